/* sqlite.c - the store in one SQLite file: WAL (readers never wait for the
 * writer), a busy timeout, and each batch one BEGIN IMMEDIATE transaction, so
 * several processes on one machine can add to it at once. A record is
 * inserted into events (ON CONFLICT DO NOTHING: a key seen before changes
 * nothing); a new one is added to its address by an upsert, and when the
 * address's soft count reaches the limit its soft window is looked at again.
 * Opening: the busy timeout first, then WAL (tried again while another
 * process holds the lock), then the schema, made under BEGIN IMMEDIATE only
 * when it is not there. A read-only store is opened mode=ro, immutable when
 * its directory cannot be written. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/store.h"

#define SQ_RETRY_MS 20        /* pause between tries of a journal mode change */
#define SQ_CACHE_KIB 65536    /* page cache (negative cache_size: KiB) */
#define SQ_MMAP_BYTES 0       /* no mapping: pages through the cache, memory stays flat */
#define SQ_CHECKPOINT_PAGES 16384 /* WAL pages before a checkpoint */

typedef struct sq {
	sqlite3 *db;
	sqlite3_stmt *ins, *ups, *soft, *get;
	sqlite3_stmt *beats, *take; /* the tie rule: does a record beat the one kept; keep it */
	int in_tx;
	uint64_t recorded;
} sq;

static int sq_fail(sq *q, smtpdiag_error *err, const char *what)
{
	return st_err(err, SMTPDIAG_ESTORE, "sqlite: %s: %s", what, sqlite3_errmsg(q->db));
}

/* $N -> ?N, LEAST( -> min(, GREATEST( -> max(, COLLATE "C" dropped (BINARY is bytewise) */
static int rewrite(const char *in, char *out, size_t cap)
{
	size_t o = 0;

	for (const char *p = in; *p; p++) {
		const char *w = NULL;
		size_t skip = 0;
		if (*p == '$')
			w = "?";
		else if (!strncmp(p, "LEAST(", 6))
			w = "min(", skip = 5;
		else if (!strncmp(p, "GREATEST(", 9))
			w = "max(", skip = 8;
		else if (!strncmp(p, ST_C, sizeof(ST_C) - 1))
			w = "", skip = sizeof(ST_C) - 2;
		if (w) {
			size_t n = strlen(w);
			if (o + n >= cap)
				return -1;
			memcpy(out + o, w, n);
			o += n;
			p += skip;
			continue;
		}
		if (o + 1 >= cap)
			return -1;
		out[o++] = *p;
	}
	out[o] = 0;
	return 0;
}

static int prepare(sq *q, const char *sql, sqlite3_stmt **st, smtpdiag_error *err)
{
	char buf[ST_SQL_MAX];

	if (rewrite(sql, buf, sizeof(buf)) < 0)
		return st_err(err, SMTPDIAG_ELIMIT, "sqlite: statement longer than %d bytes", ST_SQL_MAX);
	if (sqlite3_prepare_v2(q->db, buf, -1, st, NULL) != SQLITE_OK)
		return sq_fail(q, err, "prepare");
	return 0;
}

static int exec(sq *q, const char *sql, smtpdiag_error *err)
{
	if (sqlite3_exec(q->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return sq_fail(q, err, sql);
	return 0;
}

static void bind(sqlite3_stmt *st, int i, const st_val *v)
{
	if (v->s)
		sqlite3_bind_text(st, i, v->s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_int64(st, i, v->i);
}

static int sq_query(smtpdiag_store *s, const char *sql, const st_val *p, int np, st_row_fn fn,
		    void *ctx, uint64_t *changed, smtpdiag_error *err)
{
	sq *q = s->impl;
	sqlite3_stmt *st;
	const char *col[64];
	int rc, stop = 0;

	if ((rc = prepare(q, sql, &st, err)) < 0)
		return rc;
	for (int i = 0; i < np; i++)
		bind(st, i + 1, &p[i]);
	while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int n = sqlite3_column_count(st);
		n = n > 64 ? 64 : n;
		for (int i = 0; i < n; i++)
			col[i] = (const char *)sqlite3_column_text(st, i);
		stop = fn ? fn(ctx, col, n) : 0;
	}
	if (!stop && rc != SQLITE_DONE) {
		rc = sq_fail(q, err, "query");
		sqlite3_finalize(st);
		return rc;
	}
	sqlite3_finalize(st);
	if (changed)
		*changed = (uint64_t)sqlite3_changes(q->db);
	return stop;
}

static int sq_begin(smtpdiag_store *s, smtpdiag_error *err)
{
	return exec(s->impl, "BEGIN IMMEDIATE", err);
}

static int sq_end(smtpdiag_store *s, int ok, smtpdiag_error *err)
{
	sq *q = s->impl;

	if (ok)
		return exec(q, "COMMIT", err);
	sqlite3_exec(q->db, "ROLLBACK", NULL, NULL, NULL);
	return 0;
}

static int prepare_all(smtpdiag_store *s, smtpdiag_error *err)
{
	sq *q = s->impl;
	char ins[ST_SQL_MAX], ups[ST_SQL_MAX];
	int rc;

	snprintf(ins, sizeof(ins), "INSERT INTO events (%s) VALUES ($1, $2, $3, $4, $5, $6, $7, $8,"
		 " $9, $10, $11, $12, $13, $14, $15, $16, $17) ON CONFLICT (key) DO NOTHING", st_event_cols);
	snprintf(ups, sizeof(ups), "INSERT INTO addresses (%s) VALUES ($1, $2, $3, $4, $5, $6, $7, $8,"
		 " $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25,"
		 " $26, $27, $28, $29, $30)%s", st_addr_cols,
		 st_addr_upsert_tail);
	if ((rc = prepare(q, ins, &q->ins, err)) < 0 || (rc = prepare(q, ups, &q->ups, err)) < 0 ||
	    (rc = prepare(q, "SELECT recipient FROM events WHERE key = $1 AND " ST_TIE("") " > "
			  ST_TIE_PARAMS, &q->beats, err)) < 0 ||
	    (rc = prepare(q, "UPDATE events SET recipient = $2, domain = $3, kind = $4, ts = $5, reason = $6,"
			  " status = $7, replycode = $8, action = $9, hardbounce = $10, retry = $11, advice = $12,"
			  " addresser = $13, senderdomain = $14, ip = $15, origin = $16, diag = $17 WHERE key = $1",
			  &q->take, err)) < 0 ||
	    (rc = prepare(q, "SELECT soft_count, last_delivery FROM addresses WHERE address = $1",
			  &q->get, err)) < 0)
		return rc;
	return prepare(q, "UPDATE addresses SET soft_trigger = coalesce((SELECT max(ts) FROM"
		       " (SELECT ts, lag(ts, $2) OVER (ORDER BY ts) AS tp FROM events"
		       " WHERE recipient = $1 AND kind = 's' AND ts > $4)"
		       " WHERE tp IS NOT NULL AND ts - tp <= $3), 0) WHERE address = $1", &q->soft, err);
}

static const char *sqlite_path(const char *url)
{
	const char *p = url + 7; /* after "sqlite:" */
	return !strncmp(p, "//", 2) ? p + 2 : p;
}

static unsigned wait_ms(const smtpdiag_store *s)
{
	return s->opt.wait_ms ? s->opt.wait_ms : SMTPDIAG_STORE_WAIT_MS;
}

static int is_wal(void *ctx, int n, char **col, char **names)
{
	(void)names;
	*(int *)ctx = n > 0 && col[0] && !strcmp(col[0], "wal");
	return 0;
}

/* WAL mode, kept in the file. Changing the journal mode takes no busy handler
 * (two processes opening a new file at once: one gets "database is locked" at
 * once), so it is tried again every SQ_RETRY_MS until the wait is over. */
static int wal_mode(smtpdiag_store *s, smtpdiag_error *err)
{
	sq *q = s->impl;

	for (unsigned waited = 0;; waited += SQ_RETRY_MS) {
		int wal = 0, rc = sqlite3_exec(q->db, "PRAGMA journal_mode = WAL", is_wal, &wal, NULL);
		if (rc == SQLITE_OK && wal)
			return 0;
		if ((rc != SQLITE_OK && (rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED) ||
		    waited >= wait_ms(s))
			return rc != SQLITE_OK ? sq_fail(q, err, "PRAGMA journal_mode = WAL")
					       : st_err(err, SMTPDIAG_ESTORE, "sqlite: cannot switch to WAL mode");
		sqlite3_sleep(SQ_RETRY_MS);
	}
}

static int has_schema(void *ctx, const char *const *col, int ncol)
{
	*(int *)ctx = ncol > 0 && col[0] && strcmp(col[0], "0");
	return 0;
}

/* The schema: checked by reading, made (or migrated) only when it is not
 * there, under BEGIN IMMEDIATE (a writer starting at the same time waits, then
 * finds it made). A read-only store is only checked. */
static int schema(smtpdiag_store *s, smtpdiag_error *err)
{
	int there = 0, rc;
	long v = -1;

	if ((rc = sq_query(s, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = "
			   "'schema_version'", NULL, 0, has_schema, &there, NULL, err)) < 0)
		return rc;
	if (there && (rc = st_schema_version(s, &v, err)) < 0)
		return rc;
	if (v == ST_SCHEMA_VERSION)
		return 0;
	if (s->opt.read_only)
		return st_err(err, SMTPDIAG_ESTORE, "sqlite: not a store (no schema): nothing was recorded here");
	if ((rc = sq_begin(s, err)) < 0)
		return rc;
	rc = st_migrate(s, err);
	if (sq_end(s, rc == 0, err) < 0 && rc == 0)
		rc = SMTPDIAG_ESTORE;
	return rc;
}

/* A directory that this process can write (access(2): a read-only mount or an
 * immutable directory is not, for root too). */
static int dir_writable(const char *path)
{
	char dir[SMTPDIAG_STORE_MAX_URL + 2];
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;

	if (!slash)
		return access(".", W_OK) == 0;
	memcpy(dir, path, n);
	dir[n ? n : 1] = 0;
	if (!n)
		dir[0] = '/';
	return access(dir, W_OK) == 0;
}

static int exists(const char *path, const char *suffix)
{
	char p[SMTPDIAG_STORE_MAX_URL + 8];

	snprintf(p, sizeof(p), "%s%s", path, suffix);
	return access(p, F_OK) == 0;
}

/* "file:PATH?mode=ro", and &immutable=1 when the directory is not writable
 * and there is no WAL to read (SQLite could create no -shm; immutable reads
 * the main file only, with no locks). */
static int ro_uri(const char *path, char *out, size_t cap)
{
	size_t o = (size_t)snprintf(out, cap, "%s", path[0] == '/' ? "file://" : "file:");

	for (const char *p = path; *p; p++) {
		if (o + 4 >= cap)
			return -1;
		if (*p == '%' || *p == '?' || *p == '#')
			o += (size_t)snprintf(out + o, cap - o, "%%%02x", (unsigned char)*p);
		else
			out[o++] = *p;
	}
	out[o] = 0;
	if (snprintf(out + o, cap - o, "?mode=ro%s", !dir_writable(path) &&
		     !(exists(path, "-wal") && exists(path, "-shm")) ? "&immutable=1" : "") >= (int)(cap - o))
		return -1;
	return 0;
}

static int connect(smtpdiag_store *s, const char *path, smtpdiag_error *err)
{
	sq *q = s->impl;
	char uri[3 * SMTPDIAG_STORE_MAX_URL + 32];
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
	const char *name = path;

	if (s->opt.read_only) {
		if (!exists(path, ""))
			return st_err(err, SMTPDIAG_ESTORE, "sqlite: %s: no such file: nothing was recorded there", path);
		if (ro_uri(path, uri, sizeof(uri)) < 0)
			return st_err(err, SMTPDIAG_ELIMIT, "sqlite: the file name is too long");
		flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX;
		name = uri;
	}
	if (sqlite3_open_v2(name, &q->db, flags, NULL) != SQLITE_OK)
		return st_err(err, SMTPDIAG_ESTORE, "sqlite: %s: %s", path,
			      q->db ? sqlite3_errmsg(q->db) : "cannot open");
	/* before any other statement: every lock waits this long */
	sqlite3_busy_timeout(q->db, (int)wait_ms(s));
	return 0;
}

static int sq_open(smtpdiag_store *s, const char *url, smtpdiag_error *err)
{
	sq *q = calloc(1, sizeof(*q));
	const char *path = sqlite_path(url);
	int rc;

	if (!q)
		return st_err(err, SMTPDIAG_ENOMEM, "out of memory");
	s->impl = q;
	if (!*path)
		rc = st_err(err, SMTPDIAG_EINVAL, "sqlite: no file name in the store URL");
	else if ((rc = connect(s, path, err)) < 0 || (!s->opt.read_only && (rc = wal_mode(s, err)) < 0))
		;
	else if ((!s->opt.read_only && ((rc = exec(q, "PRAGMA synchronous = NORMAL", err)) < 0 ||
		  (rc = exec(q, "PRAGMA wal_autocheckpoint = " ST_STR(SQ_CHECKPOINT_PAGES), err)) < 0)) ||
		 (rc = exec(q, "PRAGMA cache_size = -" ST_STR(SQ_CACHE_KIB), err)) < 0 ||
		 (rc = exec(q, "PRAGMA mmap_size = " ST_STR(SQ_MMAP_BYTES), err)) < 0)
		;
	else if ((rc = schema(s, err)) == 0 && !s->opt.read_only)
		rc = prepare_all(s, err);
	if (rc < 0)
		s->be->close(s);
	return rc;
}

static void sq_close(smtpdiag_store *s)
{
	sq *q = s->impl;

	if (!q)
		return;
	sqlite3_finalize(q->ins);
	sqlite3_finalize(q->ups);
	sqlite3_finalize(q->soft);
	sqlite3_finalize(q->get);
	sqlite3_finalize(q->beats);
	sqlite3_finalize(q->take);
	sqlite3_close(q->db);
	free(q);
	s->impl = NULL;
}

/* ---- a batch ---- */

static void bind_event(sqlite3_stmt *st, const st_rec *r)
{
	const char kind[2] = { r->kind, 0 };
	const char *t[] = { r->key, r->recipient, r->domain, kind };
	const char *u[] = { r->reason, r->status, r->replycode, r->action };
	const char *v[] = { r->advice, r->addresser, r->senderdomain, r->ip, r->origin, r->diag };
	int i = 1;

	for (size_t k = 0; k < 4; k++)
		sqlite3_bind_text(st, i++, t[k], -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, i++, r->ts);
	for (size_t k = 0; k < 4; k++)
		sqlite3_bind_text(st, i++, u[k], -1, SQLITE_STATIC);
	sqlite3_bind_int(st, i++, r->hardbounce);
	sqlite3_bind_int(st, i++, r->retry);
	for (size_t k = 0; k < 6; k++)
		sqlite3_bind_text(st, i++, v[k], -1, SQLITE_STATIC);
}

static void bind_text4(sqlite3_stmt *st, int i, int on, const st_rec *r, const char *a)
{
	sqlite3_bind_text(st, i, on ? a : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, i + 1, on ? r->reason : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, i + 2, on ? r->status : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, i + 3, on ? r->replycode : "", -1, SQLITE_STATIC);
}

/* The 30 columns of st_addr_cols for one record. */
static void bind_addr(sqlite3_stmt *st, const st_rec *r)
{
	char k = r->kind, kind[2] = { k, 0 };
	int sup = k == ST_HARD || k == ST_COMPLAINT;

	sqlite3_bind_text(st, 1, r->recipient, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, r->domain, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, r->ts);
	sqlite3_bind_int64(st, 4, r->ts);
	sqlite3_bind_int(st, 5, 1);
	bind_text4(st, 6, 1, r, r->key);
	sqlite3_bind_int(st, 10, k == ST_HARD);
	sqlite3_bind_int64(st, 11, k == ST_HARD ? r->ts : -1);
	sqlite3_bind_int(st, 12, k == ST_COMPLAINT);
	sqlite3_bind_int64(st, 13, k == ST_COMPLAINT ? r->ts : -1);
	sqlite3_bind_int64(st, 14, sup ? r->ts : ST_NO_TIME_MIN);
	sqlite3_bind_text(st, 15, sup ? r->key : "", -1, SQLITE_STATIC);
	bind_text4(st, 16, sup, r, kind); /* kind, reason, status, code */
	sqlite3_bind_int(st, 20, k == ST_SOFT);
	sqlite3_bind_int64(st, 21, k == ST_SOFT ? r->ts : -1);
	bind_text4(st, 22, k == ST_SOFT, r, r->key);
	sqlite3_bind_int(st, 26, k == ST_DEFERRED);
	sqlite3_bind_int(st, 27, k == ST_DELIVERED);
	sqlite3_bind_int64(st, 28, k == ST_DELIVERED ? r->ts : -1);
	sqlite3_bind_int(st, 29, k == ST_SENDER);
	sqlite3_bind_int(st, 30, k == ST_OTHER || k == ST_REDACTED);
}

static int step_done(sq *q, sqlite3_stmt *st, smtpdiag_error *err)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : sq_fail(q, err, "write");
}

static int soft_window(smtpdiag_store *s, const st_rec *r, int64_t last_delivery, smtpdiag_error *err)
{
	sq *q = s->impl;

	sqlite3_bind_text(q->soft, 1, r->recipient, -1, SQLITE_STATIC);
	sqlite3_bind_int(q->soft, 2, s->pol.soft_limit - 1);
	sqlite3_bind_int64(q->soft, 3, (int64_t)s->pol.soft_window_days * ST_DAY);
	sqlite3_bind_int64(q->soft, 4, last_delivery);
	return step_done(q, q->soft, err);
}

static int add_addr(smtpdiag_store *s, const st_rec *r, smtpdiag_error *err)
{
	sq *q = s->impl;
	int64_t soft = 0, ld = -1;
	int rc;

	bind_addr(q->ups, r);
	if ((rc = step_done(q, q->ups, err)) < 0)
		return rc;
	if (r->kind != ST_SOFT && r->kind != ST_DELIVERED)
		return 0; /* the soft window changes only with these */
	sqlite3_bind_text(q->get, 1, r->recipient, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(q->get)) == SQLITE_ROW) {
		soft = sqlite3_column_int64(q->get, 0);
		ld = sqlite3_column_int64(q->get, 1);
	}
	sqlite3_reset(q->get);
	if (rc != SQLITE_ROW)
		return sq_fail(q, err, "address");
	return soft >= s->pol.soft_limit ? soft_window(s, r, ld, err) : 0;
}

/* r's key is kept already: r takes its place when it is smaller under the tie
 * rule, and the addresses of both are computed again from their events. */
static int tie(smtpdiag_store *s, const st_rec *r, smtpdiag_error *err)
{
	sq *q = s->impl;
	char was[ST_MAX_FIELD];
	int rc;

	bind_event(q->beats, r);
	if ((rc = sqlite3_step(q->beats)) == SQLITE_ROW)
		snprintf(was, sizeof(was), "%s", (const char *)sqlite3_column_text(q->beats, 0));
	sqlite3_reset(q->beats);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? 0 : sq_fail(q, err, "tie");
	bind_event(q->take, r);
	if ((rc = step_done(q, q->take, err)) < 0 || (was[0] && (rc = st_rebuild(s, was, NULL, err)) < 0))
		return rc;
	return r->recipient[0] && strcmp(was, r->recipient) ? st_rebuild(s, r->recipient, NULL, err) : 0;
}

static int sq_add(smtpdiag_store *s, const st_rec *r, smtpdiag_error *err)
{
	sq *q = s->impl;
	int rc;

	if (!q->in_tx) {
		if ((rc = sq_begin(s, err)) < 0)
			return rc;
		q->in_tx = 1;
		q->recorded = 0;
	}
	bind_event(q->ins, r);
	if ((rc = step_done(q, q->ins, err)) < 0)
		return rc;
	s->ob_fresh = sqlite3_changes(q->db) != 0;
	if (!s->ob_fresh)
		return tie(s, r, err); /* seen before: a duplicate, or the one to keep */
	q->recorded++;
	return r->recipient[0] ? add_addr(s, r, err) : 0;
}

static int sq_commit(smtpdiag_store *s, uint64_t *recorded, smtpdiag_error *err)
{
	sq *q = s->impl;
	int rc;

	*recorded = 0;
	if (!q->in_tx)
		return 0;
	if ((rc = st_outbox_write(s, NULL, err)) < 0 || (rc = exec(q, "COMMIT", err)) < 0)
		return rc;
	q->in_tx = 0;
	*recorded = q->recorded;
	return 0;
}

static void sq_drop(smtpdiag_store *s)
{
	sq *q = s->impl;

	if (q->in_tx)
		sqlite3_exec(q->db, "ROLLBACK", NULL, NULL, NULL);
	q->in_tx = 0;
}

const st_backend st_sqlite = {
	"sqlite", sq_open, sq_close, sq_add, sq_commit, sq_drop, sq_query, sq_begin, sq_end
};
