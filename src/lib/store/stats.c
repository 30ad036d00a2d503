/* stats.c - the counts of `store stats` and pruning. Rows are sorted here (by
 * count, then key, bytewise), so both backends print the same whatever their
 * collation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/store.h"

#define ST_STATS_MAX_ROWS 1000000 /* rows of one table kept; the rest are summed as "(more)" */

typedef struct row {
	char *key;
	uint64_t count;
} row;

typedef struct table {
	row *r;
	size_t n, cap;
	uint64_t more;
	int day;      /* keys are day numbers: written as YYYY-MM-DD */
	int oom;
} table;

static int on_row(void *ctx, const char *const *c, int n)
{
	table *t = ctx;
	char day[32];
	const char *k;

	if (n < 2)
		return 0;
	k = c[0] ? c[0] : "";
	if (t->day) {
		time_t tt = (time_t)(strtoll(k, NULL, 10) * ST_DAY);
		struct tm tm;
		gmtime_r(&tt, &tm);
		strftime(day, sizeof(day), "%Y-%m-%d", &tm);
		k = day;
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		row *nr = t->n >= ST_STATS_MAX_ROWS ? NULL : realloc(t->r, cap * sizeof(*nr));
		if (!nr) {
			t->more += strtoull(c[1] ? c[1] : "0", NULL, 10);
			t->oom = t->n < ST_STATS_MAX_ROWS;
			return 0;
		}
		t->r = nr;
		t->cap = cap;
	}
	if (!(t->r[t->n].key = strdup(k))) {
		t->oom = 1;
		return 0;
	}
	t->r[t->n++].count = strtoull(c[1] ? c[1] : "0", NULL, 10);
	return 0;
}

static int by_count(const void *a, const void *b)
{
	const row *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->key, y->key);
}

static int emit(table *t, const char *name, smtpdiag_stat_fn fn, void *ctx)
{
	int rc = 0;

	if (t->n > 1) /* an empty table has no rows (qsort takes no NULL) */
		qsort(t->r, t->n, sizeof(*t->r), by_count);
	for (size_t i = 0; fn && i < t->n && !rc; i++)
		rc = fn(ctx, name, t->r[i].key, t->r[i].count);
	if (fn && !rc && t->more)
		rc = fn(ctx, name, "(more)", t->more);
	for (size_t i = 0; i < t->n; i++)
		free(t->r[i].key);
	free(t->r);
	memset(t, 0, sizeof(*t));
	return rc;
}

static const struct {
	const char *name, *sql;
	int day;
} tables[] = {
	{ "total", "SELECT 'events', count(*) FROM events", 0 },
	{ "kind", "SELECT kind, count(*) FROM events GROUP BY kind", 0 },
	{ "reason", "SELECT reason, count(*) FROM events GROUP BY reason", 0 },
	{ "domain", "SELECT domain, count(*) FROM events GROUP BY domain", 0 },
	{ "day", "SELECT ts / 86400, count(*) FROM events GROUP BY ts / 86400", 1 },
	{ "sender-domain", "SELECT senderdomain, count(*) FROM events WHERE kind = 'x' GROUP BY senderdomain", 0 },
	{ "sender-ip", "SELECT ip, count(*) FROM events WHERE kind = 'x' AND ip <> '' GROUP BY ip", 0 },
};

typedef struct states {
	uint64_t addresses, suppressed, hard, complaint, soft;
} states;

static int count_state(void *ctx, const smtpdiag_addr_state *a)
{
	states *s = ctx;

	s->addresses++;
	if (!a->suppressed)
		return 0;
	s->suppressed++;
	s->hard += !strcmp(a->cause, "hard");
	s->complaint += !strcmp(a->cause, "complaint");
	s->soft += !strcmp(a->cause, "soft");
	return 0;
}

typedef struct to_fn {
	smtpdiag_stat_fn fn;
	void *ctx;
} to_fn;

/* the kind table's keys are letters: give their names */
static int kind_names(void *ctx, const char *table_name, const char *key, uint64_t count)
{
	to_fn *c = ctx;
	return c->fn(c->ctx, table_name, st_kind_name(key[0]), count);
}

int smtpdiag_store_stats(smtpdiag_store *s, int64_t now, smtpdiag_stat_fn fn, void *ctx, smtpdiag_error *err)
{
	table t;
	states st = { 0, 0, 0, 0, 0 };
	int rc = 0;

	if (!s || !fn)
		return st_err(err, SMTPDIAG_EINVAL, "no store or callback");
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]) && !rc; i++) {
		to_fn kc = { fn, ctx };
		memset(&t, 0, sizeof(t));
		t.day = tables[i].day;
		rc = s->be->query(s, tables[i].sql, NULL, 0, on_row, &t, NULL, err);
		if (rc == 0 && t.oom)
			rc = st_err(err, SMTPDIAG_ENOMEM, "out of memory");
		if (rc == 0 && i == 1)
			rc = emit(&t, tables[i].name, kind_names, &kc);
		else if (rc == 0)
			rc = emit(&t, tables[i].name, fn, ctx);
		else
			emit(&t, "", NULL, NULL);
	}
	if (rc == 0)
		rc = st_each_address(s, "1 = 1", NULL, 0, now, count_state, &st, err);
	if (rc == 0)
		rc = fn(ctx, "state", "addresses", st.addresses);
	if (rc == 0)
		rc = fn(ctx, "state", "suppressed", st.suppressed);
	if (rc == 0)
		rc = fn(ctx, "state", "suppressed-hard", st.hard);
	if (rc == 0)
		rc = fn(ctx, "state", "suppressed-complaint", st.complaint);
	if (rc == 0)
		rc = fn(ctx, "state", "suppressed-soft", st.soft);
	return rc;
}

/* ---- the complaint rate ---- */

/* Complaints and deliveries per sending domain and day, newest day first;
 * only the pairs with a complaint. */
static const char rate_sql[] =
	"SELECT lower(senderdomain), ts / 86400,"
	" count(CASE WHEN kind IN ('c', 'r') THEN 1 END), count(CASE WHEN kind = 'd' THEN 1 END)"
	" FROM events WHERE kind IN ('c', 'r', 'd') GROUP BY lower(senderdomain), ts / 86400"
	" HAVING count(CASE WHEN kind IN ('c', 'r') THEN 1 END) > 0 ORDER BY 2 DESC";

typedef struct rate_row {
	char *domain;
	int64_t day;
	uint64_t complaints, delivered;
} rate_row;

typedef struct rates {
	rate_row *r;
	size_t n, cap;
	uint64_t more_c, more_d; /* of the rows over SMTPDIAG_COMPLAINT_RATE_MAX_ROWS */
	int more, oom;
} rates;

static int on_rate(void *ctx, const char *const *c, int n)
{
	rates *t = ctx;
	uint64_t cc, dc;

	if (n < 4)
		return 0;
	cc = strtoull(c[2] ? c[2] : "0", NULL, 10);
	dc = strtoull(c[3] ? c[3] : "0", NULL, 10);
	if (t->n >= SMTPDIAG_COMPLAINT_RATE_MAX_ROWS) {
		t->more = 1;
		t->more_c += cc;
		t->more_d += dc;
		return 0;
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		rate_row *nr = realloc(t->r, cap * sizeof(*nr));
		if (!nr) {
			t->oom = 1;
			return 1;
		}
		t->r = nr;
		t->cap = cap;
	}
	if (!(t->r[t->n].domain = strdup(c[0] ? c[0] : ""))) {
		t->oom = 1;
		return 1;
	}
	t->r[t->n].day = strtoll(c[1] ? c[1] : "0", NULL, 10);
	t->r[t->n].complaints = cc;
	t->r[t->n++].delivered = dc;
	return 0;
}

static int by_day(const void *a, const void *b)
{
	const rate_row *x = a, *y = b;

	if (x->day != y->day)
		return x->day < y->day ? -1 : 1;
	return strcmp(x->domain, y->domain);
}

/* The rate and its level, by integer comparison: c/d >= 0.1% is 1000c >= d. */
static void rate_of(smtpdiag_complaint_rate *o, uint64_t c, uint64_t d)
{
	o->complaints = c;
	o->delivered = d;
	o->rate = d ? (double)c / (double)d : -1;
	if (!d)
		o->level = "unknown";
	else if (c * 1000 >= d * 3)
		o->level = "over-limit";
	else if (c * 1000 >= d)
		o->level = "over-ceiling";
	else
		o->level = "ok";
}

static int emit_rates(rates *t, smtpdiag_complaint_rate_fn fn, void *ctx)
{
	int rc = 0;

	if (t->n > 1)
		qsort(t->r, t->n, sizeof(*t->r), by_day);
	for (size_t i = 0; i < t->n && !rc; i++) {
		smtpdiag_complaint_rate o;
		char day[32];
		time_t tt = (time_t)(t->r[i].day * ST_DAY);
		struct tm tm;
		gmtime_r(&tt, &tm);
		strftime(day, sizeof(day), "%Y-%m-%d", &tm);
		o.senderdomain = t->r[i].domain;
		o.day = day;
		rate_of(&o, t->r[i].complaints, t->r[i].delivered);
		rc = fn(ctx, &o);
	}
	if (!rc && t->more) { /* the older days over the limit, summed */
		smtpdiag_complaint_rate o;
		o.senderdomain = "(more)";
		o.day = "";
		rate_of(&o, t->more_c, t->more_d);
		rc = fn(ctx, &o);
	}
	return rc;
}

int smtpdiag_store_complaint_rates(smtpdiag_store *s, smtpdiag_complaint_rate_fn fn, void *ctx,
				   smtpdiag_error *err)
{
	rates t;
	int rc;

	if (!s || !fn)
		return st_err(err, SMTPDIAG_EINVAL, "no store or callback");
	memset(&t, 0, sizeof(t));
	rc = s->be->query(s, rate_sql, NULL, 0, on_rate, &t, NULL, err);
	if (t.oom)
		rc = st_err(err, SMTPDIAG_ENOMEM, "out of memory");
	if (rc == 0)
		rc = emit_rates(&t, fn, ctx);
	for (size_t i = 0; i < t.n; i++)
		free(t.r[i].domain);
	free(t.r);
	return rc;
}

/* ---- prune ---- */

typedef struct doomed {
	char **a;
	size_t n, cap;
	int oom;
} doomed;

static int on_old(void *ctx, const smtpdiag_addr_state *a)
{
	doomed *d = ctx;

	if (a->suppressed)
		return 0;
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 256;
		char **na = realloc(d->a, cap * sizeof(*na));
		if (!na) {
			d->oom = 1;
			return 1;
		}
		d->a = na;
		d->cap = cap;
	}
	if (!(d->a[d->n] = strdup(a->address))) {
		d->oom = 1;
		return 1;
	}
	d->n++;
	return 0;
}

static int prune_in_tx(smtpdiag_store *s, int64_t before, uint64_t *events, uint64_t *addrs,
		       doomed *d, smtpdiag_error *err)
{
	st_val p = { NULL, before };
	int rc;

	rc = s->be->query(s, "DELETE FROM events WHERE ts < $1", &p, 1, NULL, NULL, events, err);
	if (rc == 0) /* delivered webhooks: their ids are not looked at again */
		rc = s->be->query(s, "DELETE FROM outbox WHERE state = 'd' AND created < $1", &p, 1, NULL,
				  NULL, NULL, err);
	if (rc == 0)
		rc = st_each_address(s, "last_seen < $1", &p, 1, 0, on_old, d, err);
	if (rc == 0 && d->oom)
		rc = st_err(err, SMTPDIAG_ENOMEM, "out of memory");
	for (size_t i = 0; rc == 0 && i < d->n; i++) {
		st_val a = { d->a[i], 0 };
		uint64_t one = 0;
		rc = s->be->query(s, "DELETE FROM addresses WHERE address = $1", &a, 1, NULL, NULL, &one, err);
		*addrs += one;
	}
	return rc;
}

int smtpdiag_store_prune(smtpdiag_store *s, int64_t before, uint64_t *events, uint64_t *addrs,
			 smtpdiag_error *err)
{
	doomed d = { NULL, 0, 0, 0 };
	uint64_t ev = 0, ad = 0;
	int rc;

	if (!s)
		return st_err(err, SMTPDIAG_EINVAL, "no store");
	if ((rc = s->be->begin(s, err)) < 0)
		return rc;
	rc = prune_in_tx(s, before, &ev, &ad, &d, err);
	if (s->be->end(s, rc == 0, err) < 0 && rc == 0)
		rc = SMTPDIAG_ESTORE;
	for (size_t i = 0; i < d.n; i++)
		free(d.a[i]);
	free(d.a);
	if (events)
		*events = rc == 0 ? ev : 0;
	if (addrs)
		*addrs = rc == 0 ? ad : 0;
	return rc;
}
