/* rule_rows.h - the checks the rule tests share: a table of texts and the
 * reason each is read as, asked of the rule scan (does the text hold a phrase
 * of that reason?) and of explain's whole verdict. Static, for inclusion in
 * one test file each, after cmocka.h, verdict/classify.h, verdict/verdict.h
 * and smtpdiag.h. */
#ifndef RULE_ROWS_H
#define RULE_ROWS_H

#include <string.h>

typedef struct {
	const char *text, *reason;
} row;

/* The reason explain gives a reply text; -1 when it found nothing to explain. */
static int rr_weigh(const char *t)
{
	smtpdiag_explanation *e = NULL;
	smtpdiag_error err = { 0, "" };
	int r = -1;

	if (smtpdiag_explain(t, strlen(t), SMTPDIAG_EXPLAIN_TEXT, &e, &err) == 0) {
		r = e->reason[0] ? sd_reason_index(e->reason) : -1;
		smtpdiag_explanation_free(e);
	}
	return r;
}

/* The rows whose text holds no phrase of their reason, each printed. */
static int rr_check_phrases(const row *t, size_t n)
{
	sd_classifier *c = sd_classifier_new();
	int bad = 0;

	assert_non_null(c);
	for (size_t i = 0; i < n; i++) {
		sd_reasonset set = sd_classify_scan(c, t[i].text, strlen(t[i].text));
		int want = sd_reason_index(t[i].reason);

		assert_true(want >= 0);
		if (!(set & (1ull << want))) {
			print_error("'%s': no %s phrase\n", t[i].text, t[i].reason);
			bad++;
		}
	}
	sd_classifier_free(c);
	return bad;
}

/* The rows explain reads as another reason (or not at all), each printed. */
static int rr_check_verdicts(const row *t, size_t n)
{
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		int r = rr_weigh(t[i].text);
		if (r < 0 || strcmp(sd_reason_name(r), t[i].reason) != 0) {
			print_error("'%s' -> '%s', want '%s'\n", t[i].text, r < 0 ? "(nothing to explain)" : sd_reason_name(r),
				    t[i].reason);
			bad++;
		}
	}
	return bad;
}

#endif
