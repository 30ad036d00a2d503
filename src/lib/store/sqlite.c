/* sqlite.c - the store in one SQLite file: WAL (readers never wait for the
 * writer), a busy timeout, and each batch one BEGIN IMMEDIATE transaction, so
 * several processes on one machine can add to it at once. A record is
 * inserted into events (ON CONFLICT DO NOTHING: a key seen before changes
 * nothing); a new one is added to its address by an upsert, and when the
 * address's soft count reaches the limit its soft window is looked at again. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"

#define SQ_BUSY_MS 60000      /* how long a writer waits for another's transaction */
#define SQ_CACHE_KIB 65536    /* page cache (negative cache_size: KiB) */
#define SQ_MMAP_BYTES 0       /* no mapping: pages through the cache, memory stays flat */
#define SQ_CHECKPOINT_PAGES 16384 /* WAL pages before a checkpoint */

typedef struct sq {
	sqlite3 *db;
	sqlite3_stmt *ins, *ups, *soft, *get;
	int in_tx;
	uint64_t recorded;
} sq;

static int sq_fail(sq *q, smtpdiag_error *err, const char *what)
{
	return st_err(err, SMTPDIAG_ESTORE, "sqlite: %s: %s", what, sqlite3_errmsg(q->db));
}

/* $N -> ?N, LEAST( -> min(, GREATEST( -> max( */
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

static int sq_open(smtpdiag_store *s, const char *url, smtpdiag_error *err)
{
	sq *q = calloc(1, sizeof(*q));
	int rc;

	if (!q)
		return st_err(err, SMTPDIAG_ENOMEM, "out of memory");
	s->impl = q;
	if (!*sqlite_path(url))
		rc = st_err(err, SMTPDIAG_EINVAL, "sqlite: no file name in the store URL");
	else if (sqlite3_open_v2(sqlite_path(url), &q->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
				 SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
		rc = st_err(err, SMTPDIAG_ESTORE, "sqlite: %s: %s", sqlite_path(url),
			    q->db ? sqlite3_errmsg(q->db) : "cannot open");
	else if (sqlite3_busy_timeout(q->db, SQ_BUSY_MS), (rc = exec(q, "PRAGMA journal_mode = WAL", err)) < 0 ||
		 (rc = exec(q, "PRAGMA synchronous = NORMAL", err)) < 0 ||
		 (rc = exec(q, "PRAGMA cache_size = -" ST_STR(SQ_CACHE_KIB), err)) < 0 ||
		 (rc = exec(q, "PRAGMA mmap_size = " ST_STR(SQ_MMAP_BYTES), err)) < 0 ||
		 (rc = exec(q, "PRAGMA wal_autocheckpoint = " ST_STR(SQ_CHECKPOINT_PAGES), err)) < 0)
		;
	else if ((rc = sq_begin(s, err)) == 0) {
		rc = st_migrate(s, err);
		if (sq_end(s, rc == 0, err) < 0 && rc == 0)
			rc = SMTPDIAG_ESTORE;
		if (rc == 0)
			rc = prepare_all(s, err);
	}
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
	sqlite3_bind_int(st, 30, k == ST_OTHER);
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
	if (sqlite3_changes(q->db) == 0)
		return 0; /* seen before */
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
	if ((rc = exec(q, "COMMIT", err)) < 0)
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
