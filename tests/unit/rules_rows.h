/* rules_rows.h - what the tests of one rules file share: a text with the reason
 * it is read as, the check that the text holds a phrase of that reason, and the
 * check that explain reads it so. Included by one test program each. */
#ifndef SMTPDIAG_TEST_RULES_ROWS_H
#define SMTPDIAG_TEST_RULES_ROWS_H

typedef struct {
	const char *text, *reason;
} row;

/* explain's reading of reply text t; 0 when it found nothing to explain. */
static int rr_explained(const char *t, smtpdiag_explanation **e)
{
	smtpdiag_error err = { 0, "" };

	*e = NULL;
	return smtpdiag_explain(t, strlen(t), SMTPDIAG_EXPLAIN_TEXT, e, &err) == 0;
}

/* How many of the n texts hold no phrase of their reason. */
static int rr_missing_phrases(const row *t, size_t n)
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

/* How many of the n texts explain reads as another reason, or not at all. */
static int rr_wrong_reasons(const row *t, size_t n)
{
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		smtpdiag_explanation *e = NULL;
		const char *got = rr_explained(t[i].text, &e) ? e->reason : "(nothing to explain)";

		if (strcmp(got, t[i].reason) != 0) {
			print_error("'%s' -> '%s', want '%s'\n", t[i].text, got, t[i].reason);
			bad++;
		}
		if (e)
			smtpdiag_explanation_free(e);
	}
	return bad;
}

#endif
