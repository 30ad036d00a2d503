/* test_api.c - every public function of smtpdiag.h with NULL and invalid
 * arguments: an error code (or NULL, 0, nothing written) as documented, never
 * a crash. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "smtpdiag.h"

static void test_core(void **state)
{
	smtpdiag_buf b = { 0 };

	(void)state;
	assert_string_equal(smtpdiag_strerror(-1000), "unknown error");
	assert_string_equal(smtpdiag_version(), SMTPDIAG_VERSION);
	assert_true(smtpdiag_init(NULL) >= 0);
	smtpdiag_buf_free(NULL);
	smtpdiag_buf_append(NULL, "x", 1);
	smtpdiag_buf_append(&b, NULL, 5);
	smtpdiag_buf_printf(NULL, "%d", 1);
	smtpdiag_buf_printf(&b, NULL);
	smtpdiag_buf_json(NULL, "x", 1);
	assert_int_equal(b.len, 0);
	smtpdiag_buf_text(NULL, "x", 1);
	smtpdiag_buf_text(&b, NULL, 5);
	assert_int_equal(b.len, 0);
	smtpdiag_buf_json(&b, NULL, 5);
	assert_string_equal(b.data, "\"\"");
	smtpdiag_buf_free(&b);
}

static void test_codes(void **state)
{
	smtpdiag_buf b = { 0 };

	(void)state;
	assert_string_equal(smtpdiag_class_name((smtpdiag_class)-1), "");
	assert_string_equal(smtpdiag_class_name((smtpdiag_class)99), "");
	assert_null(smtpdiag_issue_name(0));
	assert_null(smtpdiag_issue_name(3));
	smtpdiag_issues_json(SMTPDIAG_ISSUE_CLASS_MISMATCH, NULL);
	smtpdiag_issues_json(~0u, &b);
	assert_true(b.len > 2);
	smtpdiag_buf_free(&b);
	assert_null(smtpdiag_code_at(smtpdiag_code_count()));
	assert_null(smtpdiag_code_at((size_t)-1));
	assert_null(smtpdiag_reason_name(smtpdiag_reason_count()));
	assert_null(smtpdiag_reason_meaning(NULL));
	assert_null(smtpdiag_reason_meaning("no-such-reason"));
}

static void test_explain(void **state)
{
	smtpdiag_explanation *e = (smtpdiag_explanation *)&e;
	smtpdiag_error err = { 0, "" };
	smtpdiag_buf b = { 0 };

	(void)state;
	assert_int_equal(smtpdiag_explain("550", 3, SMTPDIAG_EXPLAIN_CODE, NULL, &err), SMTPDIAG_EINVAL);
	assert_int_equal(err.code, SMTPDIAG_EINVAL);
	assert_int_equal(smtpdiag_explain(NULL, 3, SMTPDIAG_EXPLAIN_CODE, &e, NULL), SMTPDIAG_EINVAL);
	assert_null(e);
	assert_int_equal(smtpdiag_explain("550", 3, SMTPDIAG_EXPLAIN_AUTO + 1, &e, &err), SMTPDIAG_EINVAL);
	assert_null(e);
	assert_non_null(strstr(err.message, "mode"));
	assert_int_equal(smtpdiag_explain("550", 3, -1, &e, NULL), SMTPDIAG_EINVAL);
	smtpdiag_explanation_free(NULL);
	smtpdiag_explanation_json(NULL, &b);
	assert_int_equal(b.len, 0);
	assert_int_equal(smtpdiag_explain("550", 3, SMTPDIAG_EXPLAIN_CODE, &e, NULL), 0);
	smtpdiag_explanation_json(e, NULL);
	smtpdiag_explanation_free(e);
}

static void test_decode(void **state)
{
	static const char msg[] = "From: a@example.org\nSubject: hi\n\nhello\n";
	smtpdiag_decoder *d;
	smtpdiag_error err = { 0, "" };
	smtpdiag_buf b = { 0 };

	(void)state;
	assert_null(smtpdiag_decoder_new(1u << 30));
	assert_int_equal(smtpdiag_decode(NULL, msg, sizeof(msg) - 1, NULL, &err), SMTPDIAG_EINVAL);
	assert_int_equal(err.code, SMTPDIAG_EINVAL);
	assert_null(smtpdiag_decoder_fact(NULL, 0));
	smtpdiag_decoder_free(NULL);
	smtpdiag_fact_json(NULL, &b);
	assert_int_equal(b.len, 0);
	d = smtpdiag_decoder_new(SMTPDIAG_DECODE_DELIVERED | SMTPDIAG_DECODE_VACATION);
	assert_non_null(d);
	assert_int_equal(smtpdiag_decode(d, NULL, 10, NULL, NULL), SMTPDIAG_EINVAL);
	assert_int_equal(smtpdiag_decode(d, msg, sizeof(msg) - 1, NULL, NULL), 0);
	assert_null(smtpdiag_decoder_fact(d, 0));
	smtpdiag_decoder_free(d);
}

static void test_mbox(void **state)
{
	const char *m = "x";
	size_t pos = 0, n = 1;

	(void)state;
	assert_int_equal(smtpdiag_mbox_detect(NULL, 10), 0);
	assert_int_equal(smtpdiag_mbox_next(NULL, 10, &pos, &m, &n), 0);
	assert_int_equal(smtpdiag_mbox_next("From a\n\nx", 9, NULL, &m, &n), 0);
	assert_int_equal(smtpdiag_mbox_next("From a\n\nx", 9, &pos, NULL, &n), 0);
	assert_int_equal(smtpdiag_mbox_next("From a\n\nx", 9, &pos, &m, NULL), 0);
}

static void test_scan(void **state)
{
	smtpdiag_scanner *s;
	smtpdiag_buf b = { 0 };

	(void)state;
	assert_null(smtpdiag_scanner_new(1u << 30));
	smtpdiag_scanner_free(NULL);
	smtpdiag_scanner_reftime(NULL, 0);
	assert_int_equal(smtpdiag_scan_line(NULL, "x", 1), SMTPDIAG_EINVAL);
	assert_null(smtpdiag_scanner_rec(NULL, 0));
	smtpdiag_logrec_json(NULL, &b);
	assert_int_equal(b.len, 0);
	s = smtpdiag_scanner_new(SMTPDIAG_SCAN_UTC);
	assert_non_null(s);
	assert_int_equal(smtpdiag_scan_line(s, NULL, 5), SMTPDIAG_EINVAL);
	assert_int_equal(smtpdiag_scan_line(s, NULL, 0), 0);
	assert_null(smtpdiag_scanner_rec(s, 0));
	smtpdiag_scanner_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_core),
		cmocka_unit_test(test_codes),
		cmocka_unit_test(test_explain),
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_mbox),
		cmocka_unit_test(test_scan),
	};
	return cmocka_run_group_tests_name("api", tests, NULL, NULL);
}
