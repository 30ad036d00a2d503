/* summary.c - counts of delivery records (smtpdiag_summary, `scan --summary`).
 *
 * Hash tables (open addressing) keyed by action, reason, recipient domain,
 * relay, code, and code and relay of a 4xx turned into a bounce; each holds at
 * most SMTPDIAG_SUMMARY_MAX_KEYS keys and counts the rest as "other", so memory
 * stays bounded whatever the log. Messages still deferred past the give-up time
 * are kept by queue id (at most SMTPDIAG_SUMMARY_MAX_LATE). Reject records
 * (action "rejected") count by action and in tables of their own: by reason,
 * by client network (/24 of IPv4, /48 of IPv6) and by block list zone; none of
 * the delivery tables. The writers sort copies of the rows, so nothing is
 * shared between summaries. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "smtpdiag.h"
#include "core/util.h"

#define SUM_TABLE_FIRST 64       /* slots of a table's first allocation (a power of two) */
#define SUM_LOAD_TENTHS 7        /* a table grows when it would be 7/10 full */
#define SUM_KEY_MAX 512          /* bytes of a domain or a 4xx key, NUL included */
#define SUM_CODE_MAX 64          /* bytes of a code key ("550 5.1.1"), NUL included */
#define SUM_DAY_SECONDS 86400

typedef struct sum_ctr {
	char **keys;
	unsigned long *counts;
	uint32_t *hashes;        /* each key's hash: most probes end without a strcmp */
	size_t n, cap;           /* cap: a power of two */
	unsigned long other;     /* counts of keys past SMTPDIAG_SUMMARY_MAX_KEYS */
} sum_ctr;

typedef struct sum_late {
	char *queueid, *recipient, *reason, *status;
	int64_t delay;
} sum_late;

/* The tables, in the order they are written. */
enum { T_ACTION, T_REASON, T_DOMAIN, T_RELAY, T_CODE, T_BOUNCED4XX, T_REJ_REASON, T_REJ_NET, T_REJ_LIST,
       T_NTABLES };

static const char *const table_title[T_NTABLES] = {
	"by action", "by reason", "by recipient domain", "by relay", "by code", "  by code and relay",
	"  by reason", "  by client network", "  by block list"
};
static const char *const table_json[T_NTABLES] = {
	"action", "reason", "domain", "relay", "code", "bounced_4xx", "reason", "network", "list"
};
static const char *const counter_json[SMTPDIAG_SUM_NCOUNTERS] = {
	"lines", "delivery", "skipped", "malformed", "overlimit", "inputs", "failed_inputs", "records", "reject"
};

struct smtpdiag_summary {
	unsigned long n[SMTPDIAG_SUM_NCOUNTERS];
	sum_ctr t[T_NTABLES];
	sum_late *late;          /* open addressing on queueid */
	size_t nlate, caplate;
	unsigned long late_other;
	unsigned long rejects, reject_warnings; /* reject records, those only logged */
};

/* A key's hash, eight bytes at a time (the keys are short; one is hashed per
 * table a record counts in). */
static uint64_t hash(const char *s)
{
	size_t n = strlen(s);
	uint64_t h = 1469598103934665603ull ^ n, w;

	for (; n >= 8; n -= 8, s += 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	w = 0;
	memcpy(&w, s, n);
	h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 32);
}

static int full(size_t n, size_t cap)
{
	return (n + 1) * 10 >= cap * SUM_LOAD_TENTHS;
}

/* ---- counters ---- */

static size_t find(const sum_ctr *c, const char *k, uint32_t h)
{
	size_t i = (size_t)h & (c->cap - 1);

	while (c->keys[i] && (c->hashes[i] != h || strcmp(c->keys[i], k)))
		i = (i + 1) & (c->cap - 1);
	return i;
}

static int grow(sum_ctr *c)
{
	sum_ctr g = { NULL, NULL, NULL, c->n, c->cap ? c->cap * 2 : SUM_TABLE_FIRST, c->other };

	g.keys = calloc(g.cap, sizeof(char *));
	g.counts = calloc(g.cap, sizeof(unsigned long));
	g.hashes = calloc(g.cap, sizeof(uint32_t));
	if (!g.keys || !g.counts || !g.hashes) {
		free(g.keys);
		free(g.counts);
		free(g.hashes);
		return -1;
	}
	for (size_t i = 0; i < c->cap; i++) {
		size_t j;
		if (!c->keys[i])
			continue;
		j = find(&g, c->keys[i], c->hashes[i]);
		g.keys[j] = c->keys[i];
		g.counts[j] = c->counts[i];
		g.hashes[j] = c->hashes[i];
	}
	free(c->keys);
	free(c->counts);
	free(c->hashes);
	*c = g;
	return 0;
}

/* Count key by; returns -1 when memory ran out (it is counted as "other"). */
static int ctr_add(sum_ctr *c, const char *key, unsigned long by)
{
	size_t i;
	uint32_t h;

	if (full(c->n, c->cap) && c->n < SMTPDIAG_SUMMARY_MAX_KEYS && grow(c) < 0) {
		c->other += by;
		return -1;
	}
	h = (uint32_t)hash(key);
	i = find(c, key, h);
	if (c->keys[i]) {
		c->counts[i] += by;
		return 0;
	}
	if (c->n >= SMTPDIAG_SUMMARY_MAX_KEYS) {
		c->other += by;
		return 0;
	}
	if (!(c->keys[i] = strdup(key))) {
		c->other += by;
		return -1;
	}
	c->counts[i] = by;
	c->hashes[i] = h;
	c->n++;
	return 0;
}

static int ctr_merge(sum_ctr *into, const sum_ctr *from)
{
	int rc = 0;

	for (size_t i = 0; i < from->cap; i++)
		if (from->keys[i] && ctr_add(into, from->keys[i], from->counts[i]) < 0)
			rc = -1;
	into->other += from->other;
	return rc;
}

static void ctr_free(sum_ctr *c)
{
	for (size_t i = 0; i < c->cap; i++)
		free(c->keys[i]);
	free(c->keys);
	free(c->counts);
	free(c->hashes);
}

/* ---- messages deferred past the give-up time ---- */

static size_t late_find(const smtpdiag_summary *s, const char *qid)
{
	size_t i = (size_t)hash(qid) & (s->caplate - 1);

	while (s->late[i].queueid && strcmp(s->late[i].queueid, qid))
		i = (i + 1) & (s->caplate - 1);
	return i;
}

static int late_grow(smtpdiag_summary *s)
{
	size_t cap = s->caplate ? s->caplate * 2 : SUM_TABLE_FIRST, oldcap = s->caplate;
	sum_late *old = s->late, *nl = calloc(cap, sizeof(sum_late));

	if (!nl)
		return -1;
	s->late = nl;
	s->caplate = cap;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].queueid)
			s->late[late_find(s, old[i].queueid)] = old[i];
	free(old);
	return 0;
}

/* A late message's strings are NULL where a copy failed for lack of memory. */
static const char *nz(const char *p)
{
	return p ? p : "";
}

static void late_clear(sum_late *e)
{
	free(e->recipient);
	free(e->reason);
	free(e->status);
}

static int late_set(sum_late *e, const sum_late *v)
{
	late_clear(e);
	e->delay = v->delay;
	e->recipient = strdup(nz(v->recipient));
	e->reason = strdup(nz(v->reason));
	e->status = strdup(nz(v->status));
	return e->recipient && e->reason && e->status ? 0 : -1;
}

/* Keep the longest deferral of each queue id; -1 when memory ran out. */
static int late_add(smtpdiag_summary *s, const sum_late *v)
{
	size_t i;

	if (full(s->nlate, s->caplate) && s->nlate < SMTPDIAG_SUMMARY_MAX_LATE && late_grow(s) < 0) {
		s->late_other++;
		return -1;
	}
	i = late_find(s, v->queueid);
	if (s->late[i].queueid)
		return v->delay > s->late[i].delay ? late_set(&s->late[i], v) : 0;
	if (s->nlate >= SMTPDIAG_SUMMARY_MAX_LATE) {
		s->late_other++;
		return 0;
	}
	if (!(s->late[i].queueid = strdup(v->queueid))) {
		s->late_other++;
		return -1;
	}
	s->nlate++;
	return late_set(&s->late[i], v);
}

/* ---- the summary ---- */

smtpdiag_summary *smtpdiag_summary_new(void)
{
	return calloc(1, sizeof(smtpdiag_summary));
}

void smtpdiag_summary_free(smtpdiag_summary *s)
{
	if (!s)
		return;
	for (int t = 0; t < T_NTABLES; t++)
		ctr_free(&s->t[t]);
	for (size_t i = 0; i < s->caplate; i++) {
		free(s->late[i].queueid);
		late_clear(&s->late[i]);
	}
	free(s->late);
	free(s);
}

int smtpdiag_summary_count(smtpdiag_summary *s, smtpdiag_sum_counter which, unsigned long n)
{
	if (!s || (unsigned)which >= SMTPDIAG_SUM_NCOUNTERS || which == SMTPDIAG_SUM_RECORDS)
		return SMTPDIAG_EINVAL;
	s->n[which] += n;
	return 0;
}

unsigned long smtpdiag_summary_get(const smtpdiag_summary *s, smtpdiag_sum_counter which)
{
	return s && (unsigned)which < SMTPDIAG_SUM_NCOUNTERS ? s->n[which] : 0;
}

/* A 4xx reply the MTA turned into a bounce before the give-up time. */
static int bounced_4xx(const smtpdiag_logrec *r)
{
	if (strcmp(r->action, "bounced") != 0)
		return 0;
	if (r->replycode[0] != '4' && (r->replycode[0] || r->status[0] != '4'))
		return 0;
	return r->delay < SMTPDIAG_SUMMARY_GIVEUP_SECONDS; /* unknown (-1) counts */
}

/* "550 5.1.1", "550", "5.1.1" or "" (cut to cap - 1 bytes). */
static void code_key(const smtpdiag_logrec *r, char *out, size_t cap)
{
	size_t a = strlen(r->replycode), b = strlen(r->status), k = 0;

	if (a > cap - 1)
		a = cap - 1;
	memcpy(out, r->replycode, a);
	k = a;
	if (a && b && k < cap - 1)
		out[k++] = ' ';
	if (b > cap - 1 - k)
		b = cap - 1 - k;
	memcpy(out + k, r->status, b);
	out[k + b] = 0;
}

static void domain_key(const char *rcpt, char *out, size_t cap)
{
	const char *at = strrchr(rcpt, '@');
	size_t i = 0;

	for (at = at ? at + 1 : ""; *at && i + 1 < cap; at++)
		out[i++] = (char)sd_tolower((unsigned char)*at);
	out[i] = 0;
}

static int add_late(smtpdiag_summary *s, const smtpdiag_logrec *r)
{
	sum_late v = { (char *)r->queueid, (char *)r->recipient, (char *)r->reason,
		       (char *)r->status, r->delay };

	if (strcmp(r->action, "deferred") || r->delay <= SMTPDIAG_SUMMARY_GIVEUP_SECONDS || !r->queueid[0])
		return 0;
	return late_add(s, &v);
}

/* The client's network: "192.0.2.0/24", "2001:db8:1::/48"; the address as
 * logged when it is none. */
static void network_key(const char *ip, char *out, size_t cap)
{
	unsigned char a[16];
	char t[INET6_ADDRSTRLEN];

	if (inet_pton(AF_INET, ip, a) == 1) {
		snprintf(out, cap, "%u.%u.%u.0/24", a[0], a[1], a[2]);
		return;
	}
	if (inet_pton(AF_INET6, ip, a) == 1) {
		memset(a + 6, 0, 10);
		if (inet_ntop(AF_INET6, a, t, sizeof(t))) {
			snprintf(out, cap, "%s/48", t);
			return;
		}
	}
	snprintf(out, cap, "%s", ip);
}

/* A reject record: by reason, client network and block list. */
static int add_reject(smtpdiag_summary *s, const smtpdiag_logrec *r)
{
	char key[SUM_KEY_MAX];
	int bad = 0;

	s->rejects++;
	s->reject_warnings += r->warning != 0;
	bad |= ctr_add(&s->t[T_REJ_REASON], r->reason, 1);
	network_key(r->clientip ? r->clientip : "", key, sizeof(key));
	bad |= ctr_add(&s->t[T_REJ_NET], key, 1);
	if (r->list && r->list[0])
		bad |= ctr_add(&s->t[T_REJ_LIST], r->list, 1);
	return bad;
}

int smtpdiag_summary_add(smtpdiag_summary *s, const smtpdiag_logrec *r)
{
	char key[SUM_KEY_MAX], code[SUM_CODE_MAX];
	int bad = 0;

	if (!s || !r)
		return SMTPDIAG_EINVAL;
	s->n[SMTPDIAG_SUM_RECORDS]++;
	bad |= ctr_add(&s->t[T_ACTION], r->action, 1);
	if (!strcmp(r->action, "rejected"))
		return add_reject(s, r) ? SMTPDIAG_ENOMEM : 0;
	bad |= ctr_add(&s->t[T_REASON], r->reason, 1);
	domain_key(r->recipient, key, sizeof(key));
	bad |= ctr_add(&s->t[T_DOMAIN], key, 1);
	bad |= ctr_add(&s->t[T_RELAY], r->relay, 1);
	code_key(r, code, sizeof(code));
	bad |= ctr_add(&s->t[T_CODE], code, 1);
	if (bounced_4xx(r)) {
		snprintf(key, sizeof(key), "%s  %s", code, r->relay[0] ? r->relay : "(no relay)");
		bad |= ctr_add(&s->t[T_BOUNCED4XX], key, 1);
	}
	bad |= add_late(s, r);
	return bad ? SMTPDIAG_ENOMEM : 0;
}

int smtpdiag_summary_merge(smtpdiag_summary *into, const smtpdiag_summary *from)
{
	int bad = 0;

	if (!into || !from || into == from)
		return SMTPDIAG_EINVAL;
	for (int i = 0; i < SMTPDIAG_SUM_NCOUNTERS; i++)
		into->n[i] += from->n[i];
	for (int t = 0; t < T_NTABLES; t++)
		bad |= ctr_merge(&into->t[t], &from->t[t]);
	for (size_t i = 0; i < from->caplate; i++)
		if (from->late[i].queueid)
			bad |= late_add(into, &from->late[i]);
	into->late_other += from->late_other;
	into->rejects += from->rejects;
	into->reject_warnings += from->reject_warnings;
	return bad ? SMTPDIAG_ENOMEM : 0;
}

/* ---- rows in the order they are written ---- */

typedef struct sum_row {
	const char *key;
	unsigned long count;
} sum_row;

static int by_count(const void *a, const void *b)
{
	const sum_row *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->key, y->key);
}

/* The rows of c, most counted first (malloc'd; NULL when out of memory). */
static sum_row *ctr_rows(const sum_ctr *c)
{
	sum_row *rows = malloc((c->n ? c->n : 1) * sizeof(sum_row));
	size_t k = 0;

	if (!rows)
		return NULL;
	for (size_t i = 0; i < c->cap; i++)
		if (c->keys[i])
			rows[k++] = (sum_row){ c->keys[i], c->counts[i] };
	qsort(rows, k, sizeof(sum_row), by_count);
	return rows;
}

/* The count of the rows past those written. */
static unsigned long rows_rest(const sum_row *rows, size_t k)
{
	unsigned long rest = 0;

	for (size_t i = SMTPDIAG_SUMMARY_ROWS; i < k; i++)
		rest += rows[i].count;
	return rest;
}

static int by_delay(const void *a, const void *b)
{
	const sum_late *x = *(const sum_late *const *)a, *y = *(const sum_late *const *)b;

	if (x->delay != y->delay)
		return x->delay < y->delay ? 1 : -1;
	return strcmp(x->queueid, y->queueid);
}

/* The late messages, longest deferred first (malloc'd; NULL when out of memory). */
static const sum_late **late_rows(const smtpdiag_summary *s)
{
	const sum_late **rows = malloc((s->nlate ? s->nlate : 1) * sizeof(*rows));
	size_t k = 0;

	if (!rows)
		return NULL;
	for (size_t i = 0; i < s->caplate; i++)
		if (s->late[i].queueid)
			rows[k++] = &s->late[i];
	qsort(rows, k, sizeof(*rows), by_delay);
	return rows;
}

static unsigned long bounced_4xx_total(const smtpdiag_summary *s, unsigned long *kept)
{
	const sum_ctr *c = &s->t[T_BOUNCED4XX];

	*kept = 0;
	for (size_t i = 0; i < c->cap; i++)
		if (c->keys[i])
			*kept += c->counts[i];
	return *kept + c->other;
}

static int done(sd_buf *b)
{
	return b->oom ? SMTPDIAG_ENOMEM : 0;
}

/* ---- the readable report ---- */

/* One report line whose fields come from logs: control characters and bytes
 * that are no UTF-8 are escaped (sd_buf_text), the line end is kept. */
static void safe_line(sd_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void safe_line(sd_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sd_buf_text_vline(b, fmt, ap);
	va_end(ap);
}

static void ctr_text(const sum_ctr *c, const char *title, sd_buf *b)
{
	sum_row *rows = ctr_rows(c);

	sd_buf_printf(b, "\n%s:\n", title);
	if (!rows) {
		b->oom = 1;
		return;
	}
	for (size_t i = 0; i < c->n && i < SMTPDIAG_SUMMARY_ROWS; i++)
		safe_line(b, "  %10lu  %s", rows[i].count, rows[i].key[0] ? rows[i].key : "(none)");
	if (c->n > SMTPDIAG_SUMMARY_ROWS)
		sd_buf_printf(b, "  %10lu  (%zu more)\n", rows_rest(rows, c->n), c->n - SMTPDIAG_SUMMARY_ROWS);
	if (c->other)
		sd_buf_printf(b, "  %10lu  (other keys, past %d distinct)\n", c->other, SMTPDIAG_SUMMARY_MAX_KEYS);
	free(rows);
}

static void late_text(const smtpdiag_summary *s, sd_buf *b)
{
	const sum_late **rows = late_rows(s);

	sd_buf_printf(b, "\ndeferred past the give-up time (%d days, RFC 5321 4.5.4.1): %zu message%s%s\n",
		      SMTPDIAG_SUMMARY_GIVEUP_SECONDS / SUM_DAY_SECONDS, s->nlate, s->nlate == 1 ? "" : "s",
		      s->late_other ? " (and more past the table's limit)" : "");
	if (!rows) {
		b->oom = 1;
		return;
	}
	for (size_t i = 0; i < s->nlate && i < SMTPDIAG_SUMMARY_ROWS; i++)
		safe_line(b, "  %-16s %5.1f days  %-32s %-16s %s", rows[i]->queueid,
			      (double)rows[i]->delay / SUM_DAY_SECONDS, nz(rows[i]->recipient), nz(rows[i]->reason),
			      nz(rows[i]->status));
	if (s->nlate > SMTPDIAG_SUMMARY_ROWS)
		sd_buf_printf(b, "  (%zu more)\n", s->nlate - SMTPDIAG_SUMMARY_ROWS);
	free(rows);
}

static void counts_text(const smtpdiag_summary *s, sd_buf *b)
{
	const unsigned long *n = s->n;

	sd_buf_printf(b, "lines read:       %lu\n", n[SMTPDIAG_SUM_LINES]);
	sd_buf_printf(b, "  delivery lines: %lu (records: %lu)\n", n[SMTPDIAG_SUM_DELIVERY],
		      n[SMTPDIAG_SUM_RECORDS]);
	sd_buf_printf(b, "  skipped:        %lu (other programs, other lines of the MTAs)\n",
		      n[SMTPDIAG_SUM_SKIPPED]);
	sd_buf_printf(b, "  malformed:      %lu\n", n[SMTPDIAG_SUM_MALFORMED]);
	sd_buf_printf(b, "  over a limit:   %lu (lines over %u KiB, or over %d recipients)\n",
		      n[SMTPDIAG_SUM_OVERLIMIT], (unsigned)(SMTPDIAG_SCAN_MAX_LINE >> 10),
		      SMTPDIAG_SCAN_MAX_RECORDS);
	sd_buf_printf(b, "  reject lines:   %lu (this server's refusals)\n", n[SMTPDIAG_SUM_REJECT]);
	sd_buf_printf(b, "inputs:           %lu (%lu could not be read)\n", n[SMTPDIAG_SUM_INPUTS],
		      n[SMTPDIAG_SUM_FAILED_INPUTS]);
}

int smtpdiag_summary_text(const smtpdiag_summary *s, smtpdiag_buf *out)
{
	sd_buf *b = (sd_buf *)out;
	unsigned long kept, total;

	if (!s || !b)
		return SMTPDIAG_EINVAL;
	counts_text(s, b);
	for (int t = 0; t < T_BOUNCED4XX; t++)
		ctr_text(&s->t[t], table_title[t], b);
	late_text(s, b);
	total = bounced_4xx_total(s, &kept);
	sd_buf_printf(b, "\n4xx replies turned into bounces (a 4xx must be deferred and retried): %lu\n", total);
	if (kept)
		ctr_text(&s->t[T_BOUNCED4XX], table_title[T_BOUNCED4XX], b);
	sd_buf_printf(b, "\nrejects (this server's refusals): %lu (%lu only logged: warnings)\n", s->rejects,
		      s->reject_warnings);
	if (s->rejects)
		for (int t = T_REJ_REASON; t <= T_REJ_LIST; t++)
			ctr_text(&s->t[t], table_title[t], b);
	return done(b);
}

/* ---- JSON ---- */

/* The members of a table: "rows":[...],"more_keys":N,"more_count":N,"other":N */
static void ctr_json(const sum_ctr *c, sd_buf *b)
{
	sum_row *rows = ctr_rows(c);

	if (!rows) {
		b->oom = 1;
		return;
	}
	sd_buf_puts(b, "\"rows\":[");
	for (size_t i = 0; i < c->n && i < SMTPDIAG_SUMMARY_ROWS; i++) {
		sd_buf_puts(b, i ? ",{\"key\":" : "{\"key\":");
		sd_buf_json_cstr(b, rows[i].key);
		SD_JKEY(b, "count");
		sd_buf_put_int(b, (long long)rows[i].count);
		sd_buf_putc(b, '}');
	}
	sd_buf_putc(b, ']');
	SD_JKEY(b, "more_keys");
	sd_buf_put_int(b, (long long)(c->n > SMTPDIAG_SUMMARY_ROWS ? c->n - SMTPDIAG_SUMMARY_ROWS : 0));
	SD_JKEY(b, "more_count");
	sd_buf_put_int(b, (long long)rows_rest(rows, c->n));
	SD_JKEY(b, "other");
	sd_buf_put_int(b, (long long)c->other);
	free(rows);
}

static void late_row_json(const sum_late *e, sd_buf *b)
{
	sd_buf_puts(b, "{\"queueid\":");
	sd_buf_json_cstr(b, e->queueid);
	SD_JKEY(b, "delay");
	sd_buf_put_int(b, e->delay);
	SD_JSTR(b, "recipient", nz(e->recipient));
	SD_JSTR(b, "reason", nz(e->reason));
	SD_JSTR(b, "status", nz(e->status));
	sd_buf_putc(b, '}');
}

static void late_json(const smtpdiag_summary *s, sd_buf *b)
{
	const sum_late **rows = late_rows(s);

	if (!rows) {
		b->oom = 1;
		return;
	}
	SD_JKEY(b, "late");
	sd_buf_puts(b, "{\"giveup_seconds\":");
	sd_buf_put_int(b, SMTPDIAG_SUMMARY_GIVEUP_SECONDS);
	SD_JKEY(b, "messages");
	sd_buf_put_int(b, (long long)s->nlate);
	SD_JKEY(b, "other");
	sd_buf_put_int(b, (long long)s->late_other);
	SD_JKEY(b, "rows");
	sd_buf_putc(b, '[');
	for (size_t i = 0; i < s->nlate && i < SMTPDIAG_SUMMARY_ROWS; i++) {
		if (i)
			sd_buf_putc(b, ',');
		late_row_json(rows[i], b);
	}
	sd_buf_putc(b, ']');
	SD_JKEY(b, "more");
	sd_buf_put_int(b, (long long)(s->nlate > SMTPDIAG_SUMMARY_ROWS ? s->nlate - SMTPDIAG_SUMMARY_ROWS : 0));
	sd_buf_putc(b, '}');
	free(rows);
}

static void counts_json(const smtpdiag_summary *s, sd_buf *b)
{
	for (int i = 0; i < SMTPDIAG_SUM_NCOUNTERS; i++) {
		sd_buf_puts(b, i ? ",\"" : "{\"");
		sd_buf_puts(b, counter_json[i]);
		sd_buf_puts(b, "\":");
		sd_buf_put_int(b, (long long)s->n[i]);
	}
}

static void table_json_open(int t, sd_buf *b)
{
	sd_buf_puts(b, ",\"");
	sd_buf_puts(b, table_json[t]);
	sd_buf_puts(b, "\":{");
}

int smtpdiag_summary_json(const smtpdiag_summary *s, smtpdiag_buf *out)
{
	sd_buf *b = (sd_buf *)out;
	unsigned long kept;

	if (!s || !b)
		return SMTPDIAG_EINVAL;
	counts_json(s, b);
	for (int t = 0; t < T_BOUNCED4XX; t++) {
		table_json_open(t, b);
		ctr_json(&s->t[t], b);
		sd_buf_putc(b, '}');
	}
	late_json(s, b);
	table_json_open(T_BOUNCED4XX, b);
	sd_buf_puts(b, "\"count\":");
	sd_buf_put_int(b, (long long)bounced_4xx_total(s, &kept));
	sd_buf_putc(b, ',');
	ctr_json(&s->t[T_BOUNCED4XX], b);
	sd_buf_puts(b, "},\"rejects\":{\"count\":");
	sd_buf_put_int(b, (long long)s->rejects);
	SD_JKEY(b, "warnings");
	sd_buf_put_int(b, (long long)s->reject_warnings);
	for (int t = T_REJ_REASON; t <= T_REJ_LIST; t++) {
		table_json_open(t, b);
		ctr_json(&s->t[t], b);
		sd_buf_putc(b, '}');
	}
	sd_buf_puts(b, "}}");
	return done(b);
}
