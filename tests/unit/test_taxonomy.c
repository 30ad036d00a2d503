/* test_taxonomy.c - smtpdiag_taxonomy: each table gives only the service's own
 * words (its documented vocabulary), the word its definitions give each case
 * (tests/fixtures/taxonomy/), and docs/taxonomies.md shows what the tables
 * answer. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "smtpdiag.h"

/* A fact with the fields the look-up reads: reason, status, reply code, what
 * was done, and the verdict's retry. */
static smtpdiag_fact fact(const char *reason, const char *code, const char *status, int retry)
{
	smtpdiag_fact f;

	memset(&f, 0, sizeof(f));
	f.reason = reason;
	f.replycode = code;
	f.deliverystatus = status;
	f.action = code[0] == '4' ? "delayed" : code[0] == '5' ? "failed" : "delivered";
	f.retry = retry;
	return f;
}

/* Up to max tab-separated fields of line into cell (the line is cut); their
 * count. */
static size_t split_tabs(char *line, char **cell, size_t max)
{
	size_t n = 0;

	line[strcspn(line, "\r\n")] = '\0';
	while (n < max) {
		char *tab = strchr(line, '\t');

		cell[n++] = line;
		if (!tab)
			break;
		*tab = '\0';
		line = tab + 1;
	}
	return n;
}

static FILE *open_fixture(const char *name)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "tests/fixtures/taxonomy/%s", name);
	fp = fopen(path, "r");
	assert_non_null(fp);
	return fp;
}

/* Whether word is in taxonomy tax's documented vocabulary (words.tsv). */
static int documented(const char *tax, const char *word)
{
	FILE *fp = open_fixture("words.tsv");
	char line[256], *cell[2];
	int found = 0;

	while (!found && fgets(line, sizeof(line), fp))
		found = line[0] != '#' && split_tabs(line, cell, 2) == 2 && !strcmp(cell[0], tax) &&
			!strcmp(cell[1], word);
	fclose(fp);
	return found;
}

/* Every word taxonomy tax gives, for every reason in both classes, without
 * one, and with either retry, is in the service's vocabulary, or "" (no word). */
static void all_documented(const char *tax)
{
	static const char *const codes[][2] = { { "550", "5.0.0" }, { "450", "4.0.0" }, { "", "" } };
	int bad = 0;

	for (size_t i = 0; i < smtpdiag_reason_count(); i++)
		for (size_t c = 0; c < sizeof(codes) / sizeof(codes[0]); c++)
			for (int retry = 0; retry < 2; retry++) {
				smtpdiag_fact f = fact(smtpdiag_reason_name(i), codes[c][0], codes[c][1], retry);
				const char *got = smtpdiag_taxonomy(tax, &f);

				assert_non_null(got);
				if (*got && !documented(tax, got)) {
					print_error("%s: %s %s retry=%d gives '%s', not a word of the service\n", tax,
						    smtpdiag_reason_name(i), codes[c][0], retry, got);
					bad = 1;
				}
			}
	assert_false(bad);
}

/* The cases of cases.tsv for taxonomy tax (the test's name): each fact gets
 * the word the service's definitions give it. */
static void one_mapping(void **state)
{
	const char *tax = *state;
	FILE *fp = open_fixture("cases.tsv");
	char line[512], *c[6];
	size_t n = 0;
	int bad = 0;

	all_documented(tax);
	while (fgets(line, sizeof(line), fp)) {
		smtpdiag_fact f;
		const char *got;

		if (line[0] == '#' || split_tabs(line, c, 6) != 6 || strcmp(c[0], tax))
			continue;
		f = fact(c[1], strcmp(c[2], "-") ? c[2] : "", strcmp(c[3], "-") ? c[3] : "", c[4][0] == '1');
		got = smtpdiag_taxonomy(tax, &f);
		n++;
		if (!got || strcmp(got, c[5])) {
			print_error("%s: %s %s %s retry=%s: got '%s', want '%s'\n", tax, c[1], c[2], c[3], c[4],
				    got ? got : "(null)", c[5]);
			bad = 1;
		}
	}
	fclose(fp);
	assert_true(n > 0);
	assert_false(bad);
}

/* The side-by-side table of docs/taxonomies.md: every row is what the tables
 * answer. Columns: reason, class (4, 5 or -), retry (yes/no), then one per
 * taxonomy in the order of the header row. */
#define MAXCOL 16

static size_t split_row(char *line, char **cell, size_t max)
{
	size_t n = 0;
	char *p = line;

	if (*p != '|')
		return 0;
	p++;
	while (n < max) {
		char *bar = strchr(p, '|');
		char *e;

		if (!bar)
			break;
		*bar = '\0';
		while (*p == ' ')
			p++;
		e = p + strlen(p);
		while (e > p && e[-1] == ' ')
			*--e = '\0';
		cell[n++] = p;
		p = bar + 1;
	}
	return n;
}

static void docs_table(void **state)
{
	FILE *fp = fopen("docs/taxonomies.md", "r");
	char line[1024], *head[MAXCOL], hbuf[1024];
	size_t nhead = 0, rows = 0;
	int in = 0;

	(void)state;
	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp)) {
		char *cell[MAXCOL];
		size_t n;

		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "## ", 3)) {
			in = !strcmp(line, "## Side by side");
			continue;
		}
		if (!in || line[0] != '|')
			continue;
		if (!nhead) {
			snprintf(hbuf, sizeof(hbuf), "%s", line);
			nhead = split_row(hbuf, head, MAXCOL);
			assert_true(nhead > 3);
			assert_string_equal(head[0], "reason");
			assert_string_equal(head[1], "class");
			assert_string_equal(head[2], "retry");
			continue;
		}
		n = split_row(line, cell, MAXCOL);
		if (cell[0][0] == '-')
			continue; /* the |---| line */
		assert_int_equal(n, nhead);
		{
			const char *code = !strcmp(cell[1], "5") ? "550" : !strcmp(cell[1], "4") ? "450" : "";
			const char *status = code[0] == '5' ? "5.0.0" : code[0] == '4' ? "4.0.0" : "";
			smtpdiag_fact f = fact(cell[0], code, status, !strcmp(cell[2], "yes"));

			for (size_t k = 3; k < nhead; k++) {
				const char *got = smtpdiag_taxonomy(head[k], &f);

				assert_non_null(got);
				if (strcmp(got, cell[k])) {
					print_error("docs/taxonomies.md: %s %s retry %s: %s says '%s', the table '%s'\n",
						    cell[0], cell[1], cell[2], head[k], cell[k], got);
					fail();
				}
			}
		}
		rows++;
	}
	fclose(fp);
	assert_true(rows >= smtpdiag_reason_count());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		{ "postmark", one_mapping, NULL, NULL, (void *)"postmark" },
		{ "ses", one_mapping, NULL, NULL, (void *)"ses" },
		{ "powermta", one_mapping, NULL, NULL, (void *)"powermta" },
		{ "kumomta", one_mapping, NULL, NULL, (void *)"kumomta" },
		cmocka_unit_test(docs_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
