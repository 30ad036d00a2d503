/* test_classify.c - reason rules: scanning, priority, status mapping, and the
 * compile-at-start fallback (this program forces it, so both paths are tested:
 * every other test program loads the serialized database). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "verdict/classify.h"
#include "smtpdiag.h"

static void test_fallback(void **state)
{
	(void)state;
	sd_classify_force_compile();
	assert_int_equal(smtpdiag_init(NULL), 1); /* compiled at start, and said so */
}

static void test_scan(void **state)
{
	static const struct {
		const char *text, *reason;
	} t[] = {
		{ "550 5.1.1 <bob@example.org>: Recipient address rejected: User unknown in local recipient table", "userunknown" },
		{ "552 5.2.2 Mailbox full", "mailboxfull" },
		{ "Host unknown (Name server: example.invalid: host not found)", "hostunknown" },
		{ "552 5.3.4 Message too big for system", "emailtoolarge" },
		{ "nothing recognisable at all", "" },
	};
	sd_classifier *c = sd_classifier_new();

	(void)state;
	assert_non_null(c);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int r = sd_reason_pick(sd_classify_scan(c, t[i].text, strlen(t[i].text)));
		if (strcmp(sd_reason_name(r), t[i].reason))
			fail_msg("'%s' -> '%s', want '%s'", t[i].text, sd_reason_name(r), t[i].reason);
	}
	assert_int_equal(sd_classify_scan(c, NULL, 0), 0);
	sd_classifier_free(c);
}

static void test_vocabulary(void **state)
{
	(void)state;
	assert_int_equal(smtpdiag_reason_count(), 34);
	assert_string_equal(smtpdiag_reason_name(0), "authfailure");
	assert_null(smtpdiag_reason_name(34));
	for (size_t i = 0; i < smtpdiag_reason_count(); i++) {
		assert_non_null(smtpdiag_reason_meaning(smtpdiag_reason_name(i)));
		assert_int_equal(sd_reason_index(smtpdiag_reason_name(i)), (int)i);
	}
	assert_null(smtpdiag_reason_meaning("nosuchreason"));
	assert_string_equal(sd_reason_name(sd_reason_from_status("5.1.1", 0)), "userunknown");
	assert_int_equal(sd_reason_from_status("9.9.9", 0), -1);
	/* a registry row is read only when asked, and outranks the plain row */
	assert_int_equal(sd_reason_from_status("5.4.6", 0), -1);
	assert_string_equal(sd_reason_name(sd_reason_from_status("5.4.6", 1)), "networkerror");
	assert_string_equal(sd_reason_name(sd_reason_from_status("5.1.4", 0)), "filtered");
	assert_string_equal(sd_reason_name(sd_reason_from_status("5.1.4", 1)), "systemerror");
	assert_string_equal(sd_reason_name(sd_reason_from_status("5.1.1", 1)), "userunknown");
	assert_true(sd_reason_hard(SD_R_userunknown));
	assert_false(sd_reason_hard(SD_R_mailboxfull));
	/* every reason's default advice has words; a word outside the vocabulary has none */
	for (int r = 0; r < SD_R_COUNT; r++)
		assert_non_null(smtpdiag_advice_words(sd_reason_advice(r)));
	assert_string_equal(smtpdiag_advice_words("suppress-recipient"), "Stop sending to this address: remove it from your lists or keep it suppressed.");
	assert_null(smtpdiag_advice_words("remove-recipient"));
	assert_null(smtpdiag_advice_words(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fallback),
		cmocka_unit_test(test_scan),
		cmocka_unit_test(test_vocabulary),
	};
	return cmocka_run_group_tests_name("classify", tests, NULL, NULL);
}
