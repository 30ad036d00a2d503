/* cmd_scan_sum.c - counts for `smtpdiag scan --summary`.
 *
 * Hash tables (open addressing) keyed by action, reason, recipient domain,
 * relay and code; each holds at most SCAN_MAX_KEYS keys and counts the rest
 * as "(other keys)", so memory stays bounded whatever the log. Messages still
 * deferred past the give-up time are kept by queue id (at most SCAN_MAX_LATE). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd_scan.h"

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static size_t find(const scan_ctr *c, const char *k)
{
	size_t i = (size_t)hash(k) & (c->cap - 1);

	while (c->keys[i] && strcmp(c->keys[i], k))
		i = (i + 1) & (c->cap - 1);
	return i;
}

static int grow(scan_ctr *c)
{
	scan_ctr g = { NULL, NULL, c->n, c->cap ? c->cap * 2 : 64, c->other };

	g.keys = calloc(g.cap, sizeof(char *));
	g.counts = calloc(g.cap, sizeof(unsigned long));
	if (!g.keys || !g.counts) {
		free(g.keys);
		free(g.counts);
		return -1;
	}
	for (size_t i = 0; i < c->cap; i++) {
		size_t j;
		if (!c->keys[i])
			continue;
		j = find(&g, c->keys[i]);
		g.keys[j] = c->keys[i];
		g.counts[j] = c->counts[i];
	}
	free(c->keys);
	free(c->counts);
	*c = g;
	return 0;
}

static void ctr_add(scan_ctr *c, const char *key, unsigned long by)
{
	size_t i;

	if ((c->n + 1) * 10 >= c->cap * 7 && c->n < SCAN_MAX_KEYS && grow(c) < 0) {
		c->other += by;
		return;
	}
	i = find(c, key);
	if (c->keys[i]) {
		c->counts[i] += by;
		return;
	}
	if (c->n >= SCAN_MAX_KEYS || !(c->keys[i] = strdup(key))) {
		c->other += by;
		return;
	}
	c->counts[i] = by;
	c->n++;
}

static void ctr_free(scan_ctr *c)
{
	for (size_t i = 0; i < c->cap; i++)
		free(c->keys[i]);
	free(c->keys);
	free(c->counts);
	memset(c, 0, sizeof(*c));
}

/* ---- messages deferred past the give-up time ---- */

static size_t late_find(const scan_sum *s, const char *qid)
{
	size_t i = (size_t)hash(qid) & (s->caplate - 1);

	while (s->late[i].queueid && strcmp(s->late[i].queueid, qid))
		i = (i + 1) & (s->caplate - 1);
	return i;
}

static int late_grow(scan_sum *s)
{
	size_t cap = s->caplate ? s->caplate * 2 : 64;
	scan_late *old = s->late, *nl = calloc(cap, sizeof(scan_late));
	size_t oldcap = s->caplate;

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

static void late_set(scan_late *e, const scan_late *v)
{
	free(e->recipient);
	free(e->reason);
	free(e->status);
	e->delay = v->delay;
	e->recipient = strdup(v->recipient ? v->recipient : "");
	e->reason = strdup(v->reason ? v->reason : "");
	e->status = strdup(v->status ? v->status : "");
}

static void late_add(scan_sum *s, const scan_late *v)
{
	size_t i;

	if ((s->nlate + 1) * 10 >= s->caplate * 7 && s->nlate < SCAN_MAX_LATE && late_grow(s) < 0) {
		s->late_other++;
		return;
	}
	i = late_find(s, v->queueid);
	if (s->late[i].queueid) {
		if (v->delay > s->late[i].delay)
			late_set(&s->late[i], v);
		return;
	}
	if (s->nlate >= SCAN_MAX_LATE || !(s->late[i].queueid = strdup(v->queueid))) {
		s->late_other++;
		return;
	}
	s->nlate++;
	late_set(&s->late[i], v);
}

/* ---- records ---- */

void scan_sum_init(scan_sum *s)
{
	memset(s, 0, sizeof(*s));
}

int scan_bounced_4xx(const smtpdiag_logrec *r)
{
	if (strcmp(r->action, "bounced") != 0)
		return 0;
	if (r->replycode[0] != '4' && (r->replycode[0] || r->status[0] != '4'))
		return 0;
	return r->delay < SCAN_GIVEUP_SECONDS; /* unknown (-1) counts */
}

static void code_key(const smtpdiag_logrec *r, char *out, size_t cap)
{
	snprintf(out, cap, "%s%s%s", r->replycode, r->replycode[0] && r->status[0] ? " " : "", r->status);
}

static void domain_key(const char *rcpt, char *out, size_t cap)
{
	const char *at = strrchr(rcpt, '@');
	size_t i = 0;

	for (at = at ? at + 1 : ""; *at && i + 1 < cap; at++)
		out[i++] = (char)(*at >= 'A' && *at <= 'Z' ? *at + 32 : *at);
	out[i] = 0;
}

void scan_sum_rec(scan_sum *s, const smtpdiag_logrec *r)
{
	char key[512], code[64];

	s->records++;
	ctr_add(&s->action, r->action, 1);
	ctr_add(&s->reason, r->reason, 1);
	domain_key(r->recipient, key, sizeof(key));
	ctr_add(&s->domain, key, 1);
	ctr_add(&s->relay, r->relay, 1);
	code_key(r, code, sizeof(code));
	ctr_add(&s->code, code, 1);
	if (scan_bounced_4xx(r)) {
		snprintf(key, sizeof(key), "%s  %s", code, r->relay[0] ? r->relay : "(no relay)");
		ctr_add(&s->bounced4xx, key, 1);
	}
	if (!strcmp(r->action, "deferred") && r->delay > SCAN_GIVEUP_SECONDS && r->queueid[0]) {
		scan_late v = { (char *)r->queueid, (char *)r->recipient, (char *)r->reason,
				(char *)r->status, r->delay };
		late_add(s, &v);
	}
}

static void ctr_merge(scan_ctr *into, const scan_ctr *from)
{
	for (size_t i = 0; i < from->cap; i++)
		if (from->keys[i])
			ctr_add(into, from->keys[i], from->counts[i]);
	into->other += from->other;
}

void scan_sum_merge(scan_sum *into, const scan_sum *from)
{
	into->lines += from->lines;
	into->delivery += from->delivery;
	into->skipped += from->skipped;
	into->malformed += from->malformed;
	into->toolong += from->toolong;
	into->records += from->records;
	into->inputs += from->inputs;
	into->failed_inputs += from->failed_inputs;
	ctr_merge(&into->action, &from->action);
	ctr_merge(&into->reason, &from->reason);
	ctr_merge(&into->domain, &from->domain);
	ctr_merge(&into->relay, &from->relay);
	ctr_merge(&into->code, &from->code);
	ctr_merge(&into->bounced4xx, &from->bounced4xx);
	for (size_t i = 0; i < from->caplate; i++)
		if (from->late[i].queueid)
			late_add(into, &from->late[i]);
	into->late_other += from->late_other;
}

/* ---- printing ---- */

static const scan_ctr *sort_c;

static int by_count(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (sort_c->counts[x] != sort_c->counts[y])
		return sort_c->counts[x] < sort_c->counts[y] ? 1 : -1;
	return strcmp(sort_c->keys[x], sort_c->keys[y]);
}

static void ctr_print(const scan_ctr *c, const char *title, FILE *f)
{
	size_t *idx = malloc((c->n ? c->n : 1) * sizeof(size_t)), k = 0;
	unsigned long rest = 0;

	fprintf(f, "\n%s:\n", title);
	if (!idx)
		return;
	for (size_t i = 0; i < c->cap; i++)
		if (c->keys[i])
			idx[k++] = i;
	sort_c = c;
	qsort(idx, k, sizeof(size_t), by_count);
	for (size_t i = 0; i < k; i++) {
		if (i < SCAN_SHOW)
			cli_line(f, "  %10lu  %s", c->counts[idx[i]], c->keys[idx[i]][0] ? c->keys[idx[i]] : "(none)");
		else
			rest += c->counts[idx[i]];
	}
	if (k > SCAN_SHOW)
		fprintf(f, "  %10lu  (%zu more)\n", rest, k - SCAN_SHOW);
	if (c->other)
		fprintf(f, "  %10lu  (other keys, past %d distinct)\n", c->other, SCAN_MAX_KEYS);
	free(idx);
}

static const scan_sum *sort_s;

static int by_delay(const void *a, const void *b)
{
	const scan_late *x = &sort_s->late[*(const size_t *)a], *y = &sort_s->late[*(const size_t *)b];

	if (x->delay != y->delay)
		return x->delay < y->delay ? 1 : -1;
	return strcmp(x->queueid, y->queueid);
}

static void late_print(const scan_sum *s, FILE *f)
{
	size_t *idx = malloc((s->nlate ? s->nlate : 1) * sizeof(size_t)), k = 0;

	fprintf(f, "\ndeferred past the give-up time (%d days, RFC 5321 4.5.4.1): %zu message%s%s\n",
		SCAN_GIVEUP_SECONDS / 86400, s->nlate, s->nlate == 1 ? "" : "s",
		s->late_other ? " (and more past the table's limit)" : "");
	if (!idx)
		return;
	for (size_t i = 0; i < s->caplate; i++)
		if (s->late[i].queueid)
			idx[k++] = i;
	sort_s = s;
	qsort(idx, k, sizeof(size_t), by_delay);
	for (size_t i = 0; i < k && i < SCAN_SHOW; i++) {
		const scan_late *e = &s->late[idx[i]];
		cli_line(f, "  %-16s %5.1f days  %-32s %-16s %s", e->queueid, (double)e->delay / 86400,
			e->recipient, e->reason, e->status);
	}
	if (k > SCAN_SHOW)
		fprintf(f, "  (%zu more)\n", k - SCAN_SHOW);
	free(idx);
}

void scan_sum_print(const scan_sum *s, FILE *f)
{
	unsigned long n4 = 0;

	fprintf(f, "lines read:       %lu\n", s->lines);
	fprintf(f, "  delivery lines: %lu (records: %lu)\n", s->delivery, s->records);
	fprintf(f, "  skipped:        %lu (other programs, other lines of the MTAs)\n", s->skipped);
	fprintf(f, "  malformed:      %lu\n", s->malformed);
	fprintf(f, "  over a limit:   %lu (lines over %u KiB, or over %d recipients)\n", s->toolong,
		(unsigned)(SCAN_MAX_LINE >> 10), SMTPDIAG_SCAN_MAX_RECORDS);
	fprintf(f, "inputs:           %lu (%lu could not be read)\n", s->inputs, s->failed_inputs);
	ctr_print(&s->action, "by action", f);
	ctr_print(&s->reason, "by reason", f);
	ctr_print(&s->domain, "by recipient domain", f);
	ctr_print(&s->relay, "by relay", f);
	ctr_print(&s->code, "by code", f);
	late_print(s, f);
	for (size_t i = 0; i < s->bounced4xx.cap; i++)
		if (s->bounced4xx.keys[i])
			n4 += s->bounced4xx.counts[i];
	fprintf(f, "\n4xx replies turned into bounces (a 4xx must be deferred and retried): %lu\n",
		n4 + s->bounced4xx.other);
	if (n4)
		ctr_print(&s->bounced4xx, "  by code and relay", f);
}

void scan_sum_free(scan_sum *s)
{
	ctr_free(&s->action);
	ctr_free(&s->reason);
	ctr_free(&s->domain);
	ctr_free(&s->relay);
	ctr_free(&s->code);
	ctr_free(&s->bounced4xx);
	for (size_t i = 0; i < s->caplate; i++) {
		free(s->late[i].queueid);
		free(s->late[i].recipient);
		free(s->late[i].reason);
		free(s->late[i].status);
	}
	free(s->late);
	memset(s, 0, sizeof(*s));
}
