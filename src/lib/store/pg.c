/* pg.c - the store in PostgreSQL (libpq), for many writers at once. A batch
 * is one transaction: COPY into a temporary table, then INSERT ... ON
 * CONFLICT DO NOTHING into events (a key seen before, by this writer or
 * another, changes nothing), the new rows summed per address and merged by
 * INSERT ... ON CONFLICT DO UPDATE with arithmetic on the counts (no update
 * is lost when writers meet on an address: the row lock orders them, in
 * address order, and a later statement sees what the earlier one committed),
 * then the soft window of the addresses touched. A deadlock or serialization
 * failure runs the batch again. The schema is made under an advisory lock. */
#include <libpq-fe.h>
#include "store/pq_load.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "core/util.h"

#define PG_RETRIES 8                   /* attempts of a batch after a deadlock */
#define PG_SCHEMA_LOCK INT64_C(0x736d747064696167) /* advisory lock: "smtpdiag" */
#define PG_MAX_ERR 200                 /* bytes of a server message kept */

typedef struct pg {
	PGconn *c;
	sd_buf copy;    /* the batch, in COPY text format */
	long seq;       /* records in it */
} pg;

static int pg_fail(pg *g, smtpdiag_error *err, const char *what, const PGresult *r)
{
	const char *m = r ? PQresultErrorMessage(r) : PQerrorMessage(g->c);
	int n = (int)strcspn(m, "\n");

	return st_err(err, SMTPDIAG_ESTORE, "postgresql: %s: %.*s", what, n > PG_MAX_ERR ? PG_MAX_ERR : n, m);
}

static void no_notice(void *arg, const char *msg)
{
	(void)arg;
	(void)msg; /* the library prints nothing */
}

/* Run sql; 0, or the error (with *state the SQLSTATE when asked). */
static int run(pg *g, const char *sql, const st_val *p, int np, uint64_t *changed, char state[6],
	       smtpdiag_error *err)
{
	const char *vals[ST_MAX_PARAMS];
	char num[ST_MAX_PARAMS][24];
	PGresult *r;
	int rc = 0, st;

	for (int i = 0; i < np && i < ST_MAX_PARAMS; i++) {
		snprintf(num[i], sizeof(num[i]), "%lld", (long long)p[i].i);
		vals[i] = p[i].s ? p[i].s : num[i];
	}
	r = PQexecParams(g->c, sql, np, NULL, vals, NULL, NULL, 0);
	st = PQresultStatus(r);
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
		const char *s = PQresultErrorField(r, PG_DIAG_SQLSTATE);
		if (state)
			snprintf(state, 6, "%s", s ? s : "");
		rc = pg_fail(g, err, "statement", r);
	} else if (changed) {
		*changed = strtoull(PQcmdTuples(r), NULL, 10);
	}
	PQclear(r);
	return rc;
}

static int pg_query(smtpdiag_store *s, const char *sql, const st_val *p, int np, st_row_fn fn,
		    void *ctx, uint64_t *changed, smtpdiag_error *err)
{
	pg *g = s->impl;
	const char *vals[ST_MAX_PARAMS], *col[64];
	char num[ST_MAX_PARAMS][24];
	PGresult *r;
	int rc = 0, stop = 0;

	if (np > ST_MAX_PARAMS)
		return st_err(err, SMTPDIAG_ELIMIT, "more than %d parameters", ST_MAX_PARAMS);
	if (!fn)
		return run(g, sql, p, np, changed, NULL, err);
	for (int i = 0; i < np; i++) {
		snprintf(num[i], sizeof(num[i]), "%lld", (long long)p[i].i);
		vals[i] = p[i].s ? p[i].s : num[i];
	}
	if (!PQsendQueryParams(g->c, sql, np, NULL, vals, NULL, NULL, 0) || !PQsetSingleRowMode(g->c))
		return pg_fail(g, err, "query", NULL);
	while ((r = PQgetResult(g->c))) {
		int st = PQresultStatus(r);
		if (st == PGRES_SINGLE_TUPLE && !stop) {
			int n = PQnfields(r) > 64 ? 64 : PQnfields(r);
			for (int i = 0; i < n; i++)
				col[i] = PQgetisnull(r, 0, i) ? NULL : PQgetvalue(r, 0, i);
			stop = fn(ctx, col, n);
		} else if (st != PGRES_SINGLE_TUPLE && st != PGRES_TUPLES_OK && !rc) {
			rc = pg_fail(g, err, "query", r);
		}
		PQclear(r);
	}
	return rc ? rc : stop;
}

static int pg_begin(smtpdiag_store *s, smtpdiag_error *err)
{
	return run(s->impl, "BEGIN", NULL, 0, NULL, NULL, err);
}

static int pg_end(smtpdiag_store *s, int ok, smtpdiag_error *err)
{
	if (ok)
		return run(s->impl, "COMMIT", NULL, 0, NULL, NULL, err);
	run(s->impl, "ROLLBACK", NULL, 0, NULL, NULL, NULL);
	return 0;
}

static int setup(smtpdiag_store *s, smtpdiag_error *err)
{
	pg *g = s->impl;
	st_val lock = { NULL, PG_SCHEMA_LOCK };
	int rc;

	st_val wait = { NULL, s->opt.wait_ms };

	if ((rc = run(g, "SET client_min_messages = warning", NULL, 0, NULL, NULL, err)) < 0 ||
	    (s->opt.wait_ms && (rc = run(g, "SELECT set_config('lock_timeout', $1, false)", &wait, 1,
					 NULL, NULL, err)) < 0) ||
	    (rc = pg_begin(s, err)) < 0)
		return rc;
	rc = run(g, "SELECT pg_advisory_xact_lock($1)", &lock, 1, NULL, NULL, err);
	if (rc == 0)
		rc = st_migrate(s, err);
	if ((pg_end(s, rc == 0, err) < 0 && rc == 0) || rc < 0)
		return rc < 0 ? rc : SMTPDIAG_ESTORE;
	/* seq: the record's place in its batch (of records equal under the tie rule, the first) */
	if ((rc = run(g, "CREATE TEMP TABLE st_in (LIKE events, seq BIGINT NOT NULL) ON COMMIT DELETE ROWS",
		      NULL, 0, NULL, NULL, err)) < 0 ||
	    (rc = run(g, "CREATE TEMP TABLE st_rep (was TEXT NOT NULL, now TEXT NOT NULL) ON COMMIT DELETE ROWS",
		      NULL, 0, NULL, NULL, err)) < 0)
		return rc;
	return run(g, "CREATE TEMP TABLE st_new (LIKE events) ON COMMIT DELETE ROWS", NULL, 0, NULL, NULL, err);
}

static int pg_open(smtpdiag_store *s, const char *url, smtpdiag_error *err)
{
	pg *g = calloc(1, sizeof(*g));
	int rc;

	char why[256];

	if (!g)
		return st_err(err, SMTPDIAG_ENOMEM, "out of memory");
	if (sd_pq_load(why, sizeof(why)) < 0) {
		free(g);
		return st_err(err, SMTPDIAG_ESTORE, "%s", why);
	}
	s->impl = g;
	sd_buf_init(&g->copy);
	g->c = PQconnectdb(url);
	if (!g->c || PQstatus(g->c) != CONNECTION_OK) {
		rc = g->c ? pg_fail(g, err, "connect", NULL) : st_err(err, SMTPDIAG_ENOMEM, "out of memory");
	} else {
		PQsetNoticeProcessor(g->c, no_notice, NULL);
		rc = setup(s, err);
	}
	if (rc < 0)
		s->be->close(s);
	return rc;
}

static void pg_close(smtpdiag_store *s)
{
	pg *g = s->impl;

	if (!g)
		return;
	PQfinish(g->c);
	sd_buf_free(&g->copy);
	free(g);
	s->impl = NULL;
}

/* ---- a batch ---- */

/* One field in COPY's text format: \, tab, newline and CR escaped. */
static void copy_field(sd_buf *b, const char *p, int last)
{
	const char *run = p;

	for (; *p; p++) {
		const char *e = *p == '\\' ? "\\\\" : *p == '\t' ? "\\t" : *p == '\n' ? "\\n" : *p == '\r' ? "\\r" : NULL;
		if (!e)
			continue;
		sd_buf_put(b, run, (size_t)(p - run));
		sd_buf_puts(b, e);
		run = p + 1;
	}
	sd_buf_put(b, run, (size_t)(p - run));
	sd_buf_putc(b, last ? '\n' : '\t');
}

static int pg_add(smtpdiag_store *s, const st_rec *r, smtpdiag_error *err)
{
	pg *g = s->impl;
	sd_buf *b = &g->copy;
	const char kind[2] = { r->kind, 0 };
	const char *a[] = { r->key, r->recipient, r->domain, kind };
	const char *z[] = { r->reason, r->status, r->replycode, r->action };
	const char *c[] = { r->advice, r->addresser, r->senderdomain, r->ip, r->origin, r->diag };

	for (size_t i = 0; i < 4; i++)
		copy_field(b, a[i], 0);
	sd_buf_put_int(b, r->ts);
	sd_buf_putc(b, '\t');
	for (size_t i = 0; i < 4; i++)
		copy_field(b, z[i], 0);
	sd_buf_printf(b, "%d\t%d\t", r->hardbounce, r->retry);
	for (size_t i = 0; i < 6; i++)
		copy_field(b, c[i], 0);
	sd_buf_printf(b, "%ld\n", g->seq++);
	return b->oom ? st_err(err, SMTPDIAG_ENOMEM, "out of memory") : 0;
}

static int copy_in(pg *g, smtpdiag_error *err)
{
	PGresult *r = PQexec(g->c, "COPY st_in FROM STDIN");
	int ok = PQresultStatus(r) == PGRES_COPY_IN;

	PQclear(r);
	if (!ok)
		return pg_fail(g, err, "COPY", NULL);
	if (PQputCopyData(g->c, g->copy.data, (int)g->copy.len) != 1 || PQputCopyEnd(g->c, NULL) != 1)
		return pg_fail(g, err, "COPY", NULL);
	r = PQgetResult(g->c);
	ok = PQresultStatus(r) == PGRES_COMMAND_OK;
	if (!ok)
		pg_fail(g, err, "COPY", r);
	PQclear(r);
	while ((r = PQgetResult(g->c)))
		PQclear(r);
	return ok ? 0 : SMTPDIAG_ESTORE;
}

/* The new events of the batch summed per address: the counts and times by one
 * grouping, and the rows that decide (the latest event, the first suppressing
 * one, the latest soft bounce) each by one DISTINCT ON, ordered by (time, key)
 * as the upsert compares them. */
#define COUNT_IF(cond) "count(*) FILTER (WHERE " cond ")"
#define MAX_IF(cond) "coalesce(max(ts) FILTER (WHERE " cond "), -1)"
#define SUPK "kind IN ('h', 'c')"
#define PICK_ROW(name, cols, where, order) \
	name " AS (SELECT DISTINCT ON (recipient) recipient, " cols " FROM st_new WHERE " where \
	" ORDER BY recipient, " order ")"

static const char addr_select[] =
	" WITH g AS (SELECT recipient, min(domain) AS domain, min(ts) AS fs, max(ts) AS ls, count(*) AS n, "
	COUNT_IF("kind = 'h'") " AS hc, " MAX_IF("kind = 'h'") " AS hl, "
	COUNT_IF("kind = 'c'") " AS cc, " MAX_IF("kind = 'c'") " AS cl, "
	"coalesce(min(ts) FILTER (WHERE " SUPK "), 9000000000000000000) AS st, "
	COUNT_IF("kind = 's'") " AS sc, " MAX_IF("kind = 's'") " AS sl, "
	COUNT_IF("kind = 'f'") " AS fc, " COUNT_IF("kind = 'd'") " AS dc, " MAX_IF("kind = 'd'") " AS dl, "
	COUNT_IF("kind = 'x'") " AS xc, " COUNT_IF("kind IN ('o', 'r')") " AS oc"
	" FROM st_new WHERE recipient <> '' GROUP BY recipient), "
	PICK_ROW("l", "key, reason, status, replycode", "recipient <> ''", "ts DESC, key DESC") ", "
	PICK_ROW("u", "key, kind, reason, status, replycode", "recipient <> '' AND " SUPK, "ts, key") ", "
	PICK_ROW("o", "key, reason, status, replycode", "recipient <> '' AND kind = 's'", "ts DESC, key DESC")
	" SELECT g.recipient, g.domain, fs, ls, n, l.key, l.reason, l.status, l.replycode, hc, hl, cc, cl, st,"
	" coalesce(u.key, ''), coalesce(u.kind, ''), coalesce(u.reason, ''), coalesce(u.status, ''),"
	" coalesce(u.replycode, ''), sc, sl, coalesce(o.key, ''), coalesce(o.reason, ''),"
	" coalesce(o.status, ''), coalesce(o.replycode, ''), fc, dc, dl, xc, oc"
	" FROM g JOIN l USING (recipient) LEFT JOIN u USING (recipient) LEFT JOIN o USING (recipient)"
	" ORDER BY g.recipient";

static const char soft_update[] =
	"UPDATE addresses a SET soft_trigger = coalesce((SELECT max(w.ts) FROM"
	" (SELECT e.ts, lag(e.ts, $1) OVER (ORDER BY e.ts) AS tp FROM events e"
	"  WHERE e.recipient = a.address AND e.kind = 's' AND e.ts > a.last_delivery) w"
	" WHERE w.ts - w.tp <= $2), 0)"
	" WHERE a.address IN (SELECT recipient FROM st_new WHERE kind IN ('s', 'd'))"
	" AND a.soft_count >= $3";

/* The batch's record of each key: the smallest under the tie rule. */
#define WINNERS "(SELECT DISTINCT ON (key) * FROM st_in ORDER BY key, " ST_TIE("") ", seq) d"
#define BEATS " WHERE e.key = d.key AND " ST_TIE("d.") " < " ST_TIE("e.")

/* Keys kept already (by this batch's insert, or by another writer, whose
 * commit the insert waited for) whose record this batch beats under the tie
 * rule: the rows locked and their addresses noted, then replaced. */
static const char tie_note[] =
	"INSERT INTO st_rep SELECT e.recipient, d.recipient FROM events e, " WINNERS BEATS " FOR UPDATE OF e";
static const char tie_take[] =
	"UPDATE events e SET recipient = d.recipient, domain = d.domain, kind = d.kind, ts = d.ts,"
	" reason = d.reason, status = d.status, replycode = d.replycode, action = d.action,"
	" hardbounce = d.hardbounce, retry = d.retry, advice = d.advice, addresser = d.addresser,"
	" senderdomain = d.senderdomain, ip = d.ip, origin = d.origin, diag = d.diag FROM " WINNERS BEATS;
static const char tie_addrs[] =
	"SELECT a FROM (SELECT was AS a FROM st_rep UNION SELECT now FROM st_rep) x WHERE a <> '' ORDER BY a";

static int add_addr(void *ctx, const char *const *col, int ncol)
{
	sd_buf *b = ctx;

	if (ncol > 0 && col[0])
		sd_buf_put(b, col[0], strlen(col[0]) + 1);
	return 0;
}

/* The addresses of the records replaced, computed again from their events
 * (each row locked first, so a writer that added to it has committed). */
static int ties(smtpdiag_store *s, char state[6], smtpdiag_error *err)
{
	pg *g = s->impl;
	sd_buf a;
	uint64_t n = 0;
	int rc;

	if ((rc = run(g, tie_note, NULL, 0, &n, state, err)) < 0 || !n)
		return rc;
	if ((rc = run(g, tie_take, NULL, 0, NULL, state, err)) < 0)
		return rc;
	sd_buf_init(&a);
	rc = pg_query(s, tie_addrs, NULL, 0, add_addr, &a, NULL, err);
	if (rc == 0 && a.oom)
		rc = st_err(err, SMTPDIAG_ENOMEM, "out of memory");
	for (size_t i = 0; rc == 0 && i < a.len; i += strlen(a.data + i) + 1)
		rc = st_rebuild(s, a.data + i, "SELECT 1 FROM addresses WHERE address = $1 FOR UPDATE", err);
	sd_buf_free(&a);
	return rc;
}

/* The statements of one attempt at the batch, after BEGIN. */
static int merge(smtpdiag_store *s, uint64_t *recorded, char state[6], smtpdiag_error *err)
{
	pg *g = s->impl;
	char sql[ST_SQL_MAX];
	st_val p[3] = { { NULL, s->pol.soft_limit - 1 },
			{ NULL, (int64_t)s->pol.soft_window_days * ST_DAY },
			{ NULL, s->pol.soft_limit } };
	int rc;

	if ((rc = copy_in(g, err)) < 0)
		return rc;
	snprintf(sql, sizeof(sql), "WITH n AS (INSERT INTO events SELECT %s FROM " WINNERS
		 " ON CONFLICT (key) DO NOTHING RETURNING *) INSERT INTO st_new SELECT * FROM n", st_event_cols);
	if ((rc = run(g, sql, NULL, 0, recorded, state, err)) < 0)
		return rc;
	snprintf(sql, sizeof(sql), "INSERT INTO addresses (%s)%s%s", st_addr_cols, addr_select,
		 st_addr_upsert_tail);
	if ((rc = run(g, sql, NULL, 0, NULL, state, err)) < 0 ||
	    (rc = run(g, soft_update, p, 3, NULL, state, err)) < 0)
		return rc;
	if (*recorded != (uint64_t)g->seq && (rc = ties(s, state, err)) < 0) /* every record new: no tie */
		return rc;
	return st_outbox_write(s, "SELECT key FROM st_new", err);
}

static int pg_commit(smtpdiag_store *s, uint64_t *recorded, smtpdiag_error *err)
{
	pg *g = s->impl;
	char state[6] = "";
	int rc = 0;

	*recorded = 0;
	if (!g->copy.len)
		return 0;
	for (int attempt = 0; attempt < PG_RETRIES; attempt++) {
		state[0] = 0;
		if ((rc = pg_begin(s, err)) < 0)
			break;
		if ((rc = merge(s, recorded, state, err)) == 0 &&
		    (rc = run(g, "COMMIT", NULL, 0, NULL, state, err)) == 0)
			break;
		pg_end(s, 0, NULL);
		if (strcmp(state, "40P01") && strcmp(state, "40001"))
			break; /* not a deadlock or serialization failure: no retry */
	}
	if (rc == 0) {
		sd_buf_reset(&g->copy);
		g->seq = 0;
	}
	return rc;
}

static void pg_drop(smtpdiag_store *s)
{
	pg *g = s->impl;

	sd_buf_reset(&g->copy);
	g->seq = 0;
}

const st_backend st_pg = {
	"postgresql", pg_open, pg_close, pg_add, pg_commit, pg_drop, pg_query, pg_begin, pg_end
};
