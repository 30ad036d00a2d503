/* conformance_extra.c - score `decode` on the extra/ collections (bounces from
 * other parsers' test suites) by what their own tests assert (expected.tsv).
 *
 * Per corpus and overall:
 *   recall      expected failed recipients found (a|b: either one), over the
 *               files that list recipients
 *   precision   verdicts that name an expected recipient, over the verdicts of
 *               the files whose recipients are known (listed, "-" = none, or
 *               not a bounce)
 *   detection   is_bounce true: at least one verdict; false: none
 *   permanence  where asserted: the class of the verdict (status 5 or 4, else
 *               action failed or delayed) of an expected recipient
 *   errors      files decode refused (each one reported; the run goes on)
 * The decoder runs with the defaults an operator sees, which report delay
 * warnings: two of the collections assert delay notices as transient failures
 * (flufl's detectors, bounce_email's 4xx "soft" bounces), as the reference
 * decoder reports them. */
#include "conformance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define EXTRA_CORPORA 8
#define EXTRA_COLS 10

typedef struct tally {
	char name[32];
	int files, errors;
	int want_rcpt, got_rcpt;  /* recall */
	int verdicts, good;       /* precision */
	int det_rows, det_ok;     /* detection */
	int perm_rows, perm_ok;   /* permanence */
} tally;

static tally tallies[EXTRA_CORPORA + 1];
static int ntally;

static tally *tally_for(const char *name)
{
	for (int i = 0; i < ntally; i++)
		if (!strcmp(tallies[i].name, name))
			return &tallies[i];
	if (ntally >= EXTRA_CORPORA)
		return &tallies[EXTRA_CORPORA - 1];
	copy(tallies[ntally].name, name, sizeof(tallies[ntally].name));
	return &tallies[ntally++];
}

/* Does the space-separated list (items "a" or "a|b") hold addr? */
static int listed(const char *list, const char *addr)
{
	size_t n = strlen(addr);

	for (const char *p = list; *p;) {
		size_t k = strcspn(p, " |");
		if (k == n && n && !strncasecmp(p, addr, n))
			return 1;
		p += k;
		p += strspn(p, " |");
	}
	return 0;
}

/* Is one alternative of the item [p, p+k) among the verdicts? */
static int found(const char *p, size_t k, const result *res)
{
	while (k) {
		size_t a = 0;
		while (a < k && p[a] != '|')
			a++;
		for (int i = 0; i < res->n; i++)
			if (strlen(res->rows[i].recipient) == a && !strncasecmp(res->rows[i].recipient, p, a))
				return 1;
		p += a;
		k -= a;
		if (k) {
			p++;
			k--;
		}
	}
	return 0;
}

/* 'p' permanent, 't' transient, 0 unknown. */
static int permanence(const row *r)
{
	if (r->status[0] == '5')
		return 'p';
	if (r->status[0] == '4' || !strcmp(r->action, "delayed"))
		return 't';
	return !strcmp(r->action, "failed") ? 'p' : 0;
}

static void score_recipients(tally *t, const char *list, const result *res, const char *file)
{
	for (const char *p = list; *p;) {
		size_t k = strcspn(p, " ");
		t->want_rcpt++;
		if (found(p, k, res))
			t->got_rcpt++;
		else if (verbose)
			printf("  extra missing: %s %.*s\n", file, (int)k, p);
		p += k;
		p += strspn(p, " ");
	}
}

static void score_precision(tally *t, const char *list, const result *res, const char *file)
{
	for (int i = 0; i < res->n; i++) {
		t->verdicts++;
		if (listed(list, res->rows[i].recipient))
			t->good++;
		else if (verbose)
			printf("  extra unexpected: %s %s (%s)\n", file, res->rows[i].recipient, res->rows[i].reason);
	}
}

static void score_permanence(tally *t, const char *want, const char *list, const result *res, const char *file)
{
	int got = 0;

	t->perm_rows++;
	for (int i = 0; i < res->n && !got; i++)
		if (!list[0] || listed(list, res->rows[i].recipient))
			got = permanence(&res->rows[i]);
	if (got && got == want[0])
		t->perm_ok++;
	else if (verbose)
		printf("  extra permanence: %s want=%s got=%c\n", file, want, got ? got : '-');
}

static void score_row(char **f, const result *res)
{
	tally *t = tally_for(f[0]);
	const char *list = !strcmp(f[3], "-") ? "" : f[3];
	int known = f[3][0] || !strcmp(f[2], "false");

	t->files++;
	t->errors += res->err;
	if (!strcmp(f[2], "true") || !strcmp(f[2], "false")) {
		int ok = (res->n > 0) == !strcmp(f[2], "true");
		t->det_rows++;
		t->det_ok += ok;
		if (!ok && verbose)
			printf("  extra detection: %s is_bounce=%s verdicts=%d\n", f[1], f[2], res->n);
	}
	if (list[0])
		score_recipients(t, list, res, f[1]);
	if (known)
		score_precision(t, list, res, f[1]);
	if (!strcmp(f[4], "permanent") || !strcmp(f[4], "transient"))
		score_permanence(t, f[4], list, res, f[1]);
}

static void add(tally *to, const tally *t)
{
	to->files += t->files;
	to->errors += t->errors;
	to->want_rcpt += t->want_rcpt;
	to->got_rcpt += t->got_rcpt;
	to->verdicts += t->verdicts;
	to->good += t->good;
	to->det_rows += t->det_rows;
	to->det_ok += t->det_ok;
	to->perm_rows += t->perm_rows;
	to->perm_ok += t->perm_ok;
}

static double pc(int ok, int all)
{
	return all ? 100.0 * ok / all : 100.0;
}

static void print_tally(const tally *t)
{
	printf("%-13s %5d %6.1f%% (%d/%d) %6.1f%% (%d/%d) %6.1f%% (%d/%d) %6.1f%% (%d/%d) %4d\n", t->name,
	       t->files, pc(t->got_rcpt, t->want_rcpt), t->got_rcpt, t->want_rcpt, pc(t->good, t->verdicts),
	       t->good, t->verdicts, pc(t->det_ok, t->det_rows), t->det_ok, t->det_rows,
	       pc(t->perm_ok, t->perm_rows), t->perm_ok, t->perm_rows, t->errors);
}

static void print_all(void)
{
	tally all;

	memset(&all, 0, sizeof(all));
	copy(all.name, "overall", sizeof(all.name));
	printf("extra/        files  recall            precision         detection         permanence        errors\n");
	for (int i = 0; i < ntally; i++) {
		print_tally(&tallies[i]);
		add(&all, &tallies[i]);
	}
	print_tally(&all);
}

static void run_row(smtpdiag_decoder *d, const char *dir, char **f)
{
	static result res;
	char path[4096];
	size_t len;
	char *buf;

	snprintf(path, sizeof(path), "%s/%s/%s", dir, f[0], f[1]);
	buf = slurp(path, &len);
	memset(&res, 0, sizeof(res));
	if (!buf) {
		res.err = 1;
		printf("extra: cannot read %s\n", path);
	} else {
		decode_file(d, path, buf, len, &res);
		if (res.err)
			printf("extra: decode refused %s/%s\n", f[0], f[1]);
	}
	score_row(f, &res);
	free(buf);
}

int run_extra(const char *dir)
{
	char path[4096], *buf, *line, *save = NULL;
	smtpdiag_decoder *d;
	size_t len;
	int files = 0;

	snprintf(path, sizeof(path), "%s/expected.tsv", dir);
	if (!(buf = slurp(path, &len)))
		return -1;
	if (!(d = smtpdiag_decoder_new(0))) {
		free(buf);
		return -1;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[EXTRA_COLS];
		line[strcspn(line, "\r")] = 0;
		if (!strncmp(line, "corpus\t", 7) || split_tabs(line, f, EXTRA_COLS) < 5)
			continue;
		run_row(d, dir, f);
		files++;
	}
	smtpdiag_decoder_free(d);
	free(buf);
	print_all();
	return files;
}
