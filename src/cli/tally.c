/* tally.c - counters for --summary (small key sets: a linear table is enough
 * for reasons and advice; domains use the same table, kept sorted by count at print). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tally.h"
#include "smtpdiag.h"

void counter_add(counter *c, const char *key)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->keys[i], key)) {
			c->counts[i]++;
			return;
		}
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 32;
		char **k = realloc(c->keys, cap * sizeof(char *));
		unsigned long *v;
		if (!k)
			return;
		c->keys = k;
		v = realloc(c->counts, cap * sizeof(unsigned long));
		if (!v)
			return;
		c->counts = v;
		c->cap = cap;
	}
	c->keys[c->n] = strdup(key);
	if (!c->keys[c->n])
		return;
	c->counts[c->n++] = 1;
}

static const counter *sort_ctx;

static int by_count(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	if (sort_ctx->counts[x] != sort_ctx->counts[y])
		return sort_ctx->counts[x] < sort_ctx->counts[y] ? 1 : -1;
	return strcmp(sort_ctx->keys[x], sort_ctx->keys[y]);
}

void counter_print(const counter *c, const char *title, FILE *f)
{
	size_t *idx = malloc((c->n ? c->n : 1) * sizeof(size_t));

	fprintf(f, "\n%s:\n", title);
	if (!idx)
		return;
	for (size_t i = 0; i < c->n; i++)
		idx[i] = i;
	sort_ctx = c;
	qsort(idx, c->n, sizeof(size_t), by_count);
	for (size_t i = 0; i < c->n; i++)
		cli_line(f, "  %8lu  %s", c->counts[idx[i]], c->keys[idx[i]][0] ? c->keys[idx[i]] : "(none)");
	free(idx);
}

void counter_free(counter *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->keys[i]);
	free(c->keys);
	free(c->counts);
	memset(c, 0, sizeof(*c));
}

void tally_init(tally *t)
{
	memset(t, 0, sizeof(*t));
}

void tally_fact(tally *t, const char *reason, const char *domain, const char *advice)
{
	t->results++;
	counter_add(&t->reason, reason);
	counter_add(&t->domain, domain);
	counter_add(&t->advice, advice);
}

void tally_print(const tally *t, FILE *f)
{
	fprintf(f, "inputs:      %lu\n", t->inputs);
	fprintf(f, "  bounces:     %lu\n", t->bounces);
	fprintf(f, "  non-bounces: %lu\n", t->nonbounces);
	fprintf(f, "  errors:      %lu\n", t->errors);
	if (t->over_rcpt) /* their first 1024 verdicts are in the results */
		fprintf(f, "    over %d recipients: %lu\n", SMTPDIAG_MAX_RECIPIENTS, t->over_rcpt);
	if (t->events) {
		fprintf(f, "events:      %lu\n", t->events);
		fprintf(f, "  decided:     %lu\n", t->ev_decided);
		fprintf(f, "  ignored:     %lu\n", t->ev_ignored);
		fprintf(f, "  errors:      %lu\n", t->ev_errors);
	}
	fprintf(f, "results:     %lu\n", t->results);
	counter_print(&t->reason, "by reason", f);
	counter_print(&t->domain, "by recipient domain", f);
	counter_print(&t->advice, "by advice", f);
}

void tally_free(tally *t)
{
	counter_free(&t->reason);
	counter_free(&t->domain);
	counter_free(&t->advice);
}
