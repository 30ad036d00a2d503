/* test_verdict_table.c - the verdict against what providers document.
 *
 * tests/fixtures/verdict/provider-replies.tsv holds reply lines as providers
 * and MTAs document (or are known to send) them, each with the reason,
 * hardbounce, retry and advice its provider's page implies. Every row goes
 * through explain as pasted (no SMTP command around it); every row that
 * carries a reply code also goes through decode, in a DSN, and scan, in a
 * Postfix log line, both saying the reply answered RCPT TO. The agreement is
 * printed per field and path, with the rows that disagree; the test fails
 * when a field falls below its floor. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "smtpdiag.h"
#include "verdict_paths.h"

#define TABLE "tests/fixtures/verdict/provider-replies.tsv"
#define ROWS_MAX 1024
#define LINE_MAX 2048
#define T_MAX 4096

/* Floors, in per mille: what the table must agree on, path by path. */
#define FLOOR_REASON 965
#define FLOOR_HARD 995
#define FLOOR_RETRY 993
#define FLOOR_ADVICE 965

enum { F_REASON, F_HARD, F_RETRY, F_ADVICE, F_N };
static const char *const field_name[F_N] = { "reason", "hardbounce", "retry", "advice" };
static const int field_floor[F_N] = { FLOOR_REASON, FLOOR_HARD, FLOOR_RETRY, FLOOR_ADVICE };

typedef struct row {
	char reply[LINE_MAX];
	char reason[32], advice[40];
	int hard, retry, line;
} row;

typedef struct got {
	char reason[32], advice[40];
	int hard, retry;
} got;

typedef struct tally {
	const char *path;
	int n, ok[F_N], all;
} tally;

static row rows[ROWS_MAX];
static int nrows;

static int as_bool(const char *s)
{
	return !strcmp(s, "true");
}

/* One row: reply<TAB>reason<TAB>hard<TAB>retry<TAB>advice. */
static int parse(char *s, row *r)
{
	char *f[5];
	int k = 0;

	f[k++] = s;
	for (char *p = s; *p && k < 5; p++)
		if (*p == '\t') {
			*p = 0;
			f[k++] = p + 1;
		}
	if (k != 5)
		return -1;
	snprintf(r->reply, sizeof(r->reply), "%s", f[0]);
	snprintf(r->reason, sizeof(r->reason), "%s", f[1]);
	r->hard = as_bool(f[2]);
	r->retry = as_bool(f[3]);
	snprintf(r->advice, sizeof(r->advice), "%s", f[4]);
	return 0;
}

static int load(void)
{
	FILE *fp = fopen(TABLE, "r");
	char line[LINE_MAX + 128];
	int no = 0;

	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp) && nrows < ROWS_MAX) {
		size_t n = strlen(line);
		no++;
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = 0;
		if (!n || line[0] == '#')
			continue;
		if (parse(line, &rows[nrows]) != 0) {
			fclose(fp);
			fail_msg("%s:%d: not five tab-separated columns", TABLE, no);
		}
		rows[nrows++].line = no;
	}
	fclose(fp);
	return nrows;
}

static void take(got *g, const char *reason, int hard, int retry, const char *advice)
{
	snprintf(g->reason, sizeof(g->reason), "%s", reason ? reason : "");
	snprintf(g->advice, sizeof(g->advice), "%s", advice ? advice : "");
	g->hard = hard;
	g->retry = retry;
}

static int coded(const char *reply)
{
	return (reply[0] == '4' || reply[0] == '5') && reply[1] >= '0' && reply[1] <= '9' &&
	       reply[2] >= '0' && reply[2] <= '9' && (reply[3] == ' ' || reply[3] == '-');
}

static void by_explain(const char *reply, got *g)
{
	smtpdiag_explanation *e = NULL;
	smtpdiag_error err = { 0, "" };

	if (smtpdiag_explain(reply, strlen(reply), SMTPDIAG_EXPLAIN_AUTO, &e, &err) != 0) {
		take(g, "(not explained)", 0, 0, ""); /* a disagreement, counted */
		return;
	}
	take(g, e->reason, e->hardbounce, e->retry, e->advice);
	smtpdiag_explanation_free(e);
}

static void by_decode(smtpdiag_decoder *d, const char *reply, got *g)
{
	char msg[T_MAX];
	smtpdiag_error err = { 0, "" };
	const smtpdiag_fact *f;

	vp_dsn(reply, msg, sizeof(msg));
	if (smtpdiag_decode(d, msg, strlen(msg), NULL, &err) != 1)
		fail_msg("decode '%s': %s", reply, err.message);
	f = smtpdiag_decoder_fact(d, 0);
	take(g, f->reason, f->hardbounce, f->retry, f->advice);
}

static void by_scan(smtpdiag_scanner *s, const char *reply, got *g)
{
	char line[T_MAX];
	const smtpdiag_logrec *r;

	vp_logline(reply, line, sizeof(line));
	if (smtpdiag_scan_line(s, line, strlen(line)) != 1)
		fail_msg("scan '%s': no record", reply);
	r = smtpdiag_scanner_rec(s, 0);
	take(g, r->reason, r->hardbounce, r->retry, r->advice);
}

/* Count what g gets right; print the row when anything is wrong. */
static void score(tally *t, const row *r, const got *g)
{
	int ok[F_N] = {
		!strcmp(g->reason, r->reason), g->hard == r->hard, g->retry == r->retry,
		!strcmp(g->advice, r->advice),
	};
	int all = 1;

	t->n++;
	for (int i = 0; i < F_N; i++) {
		t->ok[i] += ok[i];
		all &= ok[i];
	}
	t->all += all;
	if (all)
		return;
	print_message("%s:%d %-7s want %s hard=%d retry=%d %s, got %s hard=%d retry=%d %s\n    %.150s\n",
		      TABLE, r->line, t->path, r->reason, r->hard, r->retry, r->advice,
		      g->reason, g->hard, g->retry, g->advice, r->reply);
}

static int report(const tally *t)
{
	int low = 0;

	print_message("%-7s %3d rows:", t->path, t->n);
	for (int i = 0; i < F_N; i++) {
		int pm = t->n ? t->ok[i] * 1000 / t->n : 1000;
		print_message(" %s %.1f%%", field_name[i], pm / 10.0);
		low |= pm < field_floor[i];
	}
	print_message(" (all four %.1f%%)\n", t->n ? t->all * 100.0 / t->n : 100.0);
	return low;
}

static void test_table(void **state)
{
	(void)state;
	assert_true(load() >= 250);
}

static void test_agreement(void **state)
{
	smtpdiag_decoder *d = smtpdiag_decoder_new(0);
	smtpdiag_scanner *s = smtpdiag_scanner_new(SMTPDIAG_SCAN_UTC);
	tally ex = { "explain", 0, { 0 }, 0 }, de = { "decode", 0, { 0 }, 0 }, sc = { "scan", 0, { 0 }, 0 };
	int low;

	(void)state;
	assert_non_null(d);
	assert_non_null(s);
	if (!nrows)
		assert_true(load() > 0);
	for (int i = 0; i < nrows; i++) {
		got g;
		by_explain(rows[i].reply, &g);
		score(&ex, &rows[i], &g);
		if (!coded(rows[i].reply))
			continue;
		by_decode(d, rows[i].reply, &g);
		score(&de, &rows[i], &g);
		by_scan(s, rows[i].reply, &g);
		score(&sc, &rows[i], &g);
	}
	low = report(&ex);
	low |= report(&de);
	low |= report(&sc);
	smtpdiag_decoder_free(d);
	smtpdiag_scanner_free(s);
	assert_int_equal(low, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_agreement),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
