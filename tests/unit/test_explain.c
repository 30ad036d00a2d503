/* test_explain.c - explain: codes, pairs, texts; flags; bad input. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "smtpdiag.h"

#define NS SMTPDIAG_ISSUE_NONSTANDARD_REPLY
#define UR SMTPDIAG_ISSUE_UNREGISTERED_STATUS
#define VR SMTPDIAG_ISSUE_VENDOR_REDEFINED
#define CM SMTPDIAG_ISSUE_CLASS_MISMATCH
#define NA SMTPDIAG_ISSUE_CLASS_NOT_ALLOWED

static const struct {
	const char *q;
	int mode;
	int replycode;
	const char *status;
	smtpdiag_class klass;
	int retry;
	unsigned issues;
	const char *reason;
	int hard;
	const char *title_word; /* a word the title must hold, case-insensitive; NULL: any */
} ok[] = {
	{ "431", SMTPDIAG_EXPLAIN_CODE, 431, "", SMTPDIAG_CLASS_TRANSIENT, 1, NS, "systemfull", 0, NULL },
	{ "531", SMTPDIAG_EXPLAIN_CODE, 531, "", SMTPDIAG_CLASS_PERMANENT, 0, NS, "", 0, NULL },
	{ "4.3.1", SMTPDIAG_EXPLAIN_CODE, 0, "4.3.1", SMTPDIAG_CLASS_TRANSIENT, 1, 0, "systemfull", 0, NULL },
	{ "X.3.1", SMTPDIAG_EXPLAIN_CODE, 0, "X.3.1", SMTPDIAG_CLASS_NONE, 0, 0, "", 0, NULL },
	{ "5.3.1", SMTPDIAG_EXPLAIN_CODE, 0, "5.3.1", SMTPDIAG_CLASS_PERMANENT, 1, NA, "systemfull", 0, NULL },
	{ "552 4.3.1", SMTPDIAG_EXPLAIN_CODE, 552, "4.3.1", SMTPDIAG_CLASS_PERMANENT, 1, CM, "systemfull", 0, NULL },
	{ "552-4.3.1", SMTPDIAG_EXPLAIN_CODE, 552, "4.3.1", SMTPDIAG_CLASS_PERMANENT, 1, CM, "systemfull", 0, NULL },
	{ "4.3.1 552", SMTPDIAG_EXPLAIN_CODE, 552, "4.3.1", SMTPDIAG_CLASS_PERMANENT, 1, CM, "systemfull", 0, NULL },
	{ "421 5.7.32", SMTPDIAG_EXPLAIN_CODE, 421, "5.7.32", SMTPDIAG_CLASS_TRANSIENT, 1, CM | UR, "securityerror", 0, NULL },
	{ "4.9.9", SMTPDIAG_EXPLAIN_CODE, 0, "4.9.9", SMTPDIAG_CLASS_TRANSIENT, 1, UR, "", 0, "unknown" },
	{ "599", SMTPDIAG_EXPLAIN_CODE, 599, "", SMTPDIAG_CLASS_PERMANENT, 0, NS, "", 0, "unknown" },
	{ "550 5.1.1", SMTPDIAG_EXPLAIN_CODE, 550, "5.1.1", SMTPDIAG_CLASS_PERMANENT, 0, 0, "userunknown", 1, NULL },
	{ "250", SMTPDIAG_EXPLAIN_CODE, 250, "", SMTPDIAG_CLASS_SUCCESS, 0, 0, "", 0, NULL },
	{ "354", SMTPDIAG_EXPLAIN_CODE, 354, "", SMTPDIAG_CLASS_INTERMEDIATE, 0, 0, "", 0, NULL },
	{ "432 4.3.2", SMTPDIAG_EXPLAIN_CODE, 432, "4.3.2", SMTPDIAG_CLASS_TRANSIENT, 1, VR, "systemerror", 0, NULL }, /* 4.3.2: load or maintenance, RFC 3463 3.4 */
	{ "535 5.7.8", SMTPDIAG_EXPLAIN_CODE, 535, "5.7.8", SMTPDIAG_CLASS_PERMANENT, 0, 0, "securityerror", 0, NULL },
	{ "550-5.1.1 The email account that you tried to reach does not exist.\r\n550 5.1.1 Please try again.",
	  SMTPDIAG_EXPLAIN_TEXT, 550, "5.1.1", SMTPDIAG_CLASS_PERMANENT, 0, 0, "userunknown", 1, NULL },
	{ "450 4.2.1 The user you are trying to contact is receiving mail too quickly. Please resend later.",
	  SMTPDIAG_EXPLAIN_TEXT, 450, "4.2.1", SMTPDIAG_CLASS_TRANSIENT, 1, VR, "ratelimited", 0, NULL },
	{ "431 4.3.1 STOREDRV; mailbox disk is full", SMTPDIAG_EXPLAIN_TEXT, 431, "4.3.1",
	  SMTPDIAG_CLASS_TRANSIENT, 1, NS, "systemfull", 0, NULL },
	/* one attempt: a network failure without codes is that attempt's, and a
	 * 4xx without a known phrase is read by its status or reply code; only an
	 * MTA that says it gave up makes it expired */
	{ "Connection refused", SMTPDIAG_EXPLAIN_TEXT, 0, "", SMTPDIAG_CLASS_NONE, 1, 0, "networkerror", 0, NULL },
	{ "connect to mx.example.org[192.0.2.7]:25: Connection timed out", SMTPDIAG_EXPLAIN_TEXT, 0, "",
	  SMTPDIAG_CLASS_NONE, 1, 0, "networkerror", 0, NULL },
	{ "giving up on mx.example.org: Connection timed out", SMTPDIAG_EXPLAIN_TEXT, 0, "", SMTPDIAG_CLASS_NONE, 0, 0,
	  "expired", 0, NULL },
	{ "421 4.4.2 Connection timed out", SMTPDIAG_EXPLAIN_TEXT, 421, "4.4.2", SMTPDIAG_CLASS_TRANSIENT, 1, 0,
	  "networkerror", 0, NULL },
	{ "451 4.4.0 Please try later", SMTPDIAG_EXPLAIN_TEXT, 451, "4.4.0", SMTPDIAG_CLASS_TRANSIENT, 1, 0,
	  "networkerror", 0, NULL },
	{ "421 Please come back in a moment", SMTPDIAG_EXPLAIN_TEXT, 421, "", SMTPDIAG_CLASS_TRANSIENT, 1, 0,
	  "systemerror", 0, NULL },
	/* a text without codes whose phrase names a failure the reference order
	 * does not take at RCPT is still explained, by that phrase */
	{ "the recipient is not accepting any mail", SMTPDIAG_EXPLAIN_TEXT, 0, "", SMTPDIAG_CLASS_NONE, 0, 0,
	  "filtered", 0, NULL },
	/* a sending service's suppression notice is what happened, whatever it
	 * says of the address's history ("invalid address") */
	{ "Amazon SES has suppressed sending to this address because it has a recent history of bouncing as an invalid address.",
	  SMTPDIAG_EXPLAIN_TEXT, 0, "", SMTPDIAG_CLASS_NONE, 0, 0, "suppressed", 0, NULL },
	{ "postfix/smtp[1]: ABC: to=<bob@example.org>, relay=mx.example.org[192.0.2.7]:25, dsn=5.1.1, "
	  "status=bounced (host mx.example.org[192.0.2.7] said: 550 5.1.1 <bob@example.org>: Recipient address rejected: User unknown (in reply to RCPT TO command))",
	  SMTPDIAG_EXPLAIN_FILE, 550, "5.1.1", SMTPDIAG_CLASS_PERMANENT, 0, 0, "userunknown", 1, NULL },
};

static void test_ok(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		smtpdiag_explanation *e = NULL;
		smtpdiag_error err = { 0, "" };
		int rc = smtpdiag_explain(ok[i].q, strlen(ok[i].q), ok[i].mode, &e, &err);
		if (rc != 0)
			fail_msg("%s: %s", ok[i].q, err.message);
		assert_int_equal(e->replycode, ok[i].replycode);
		assert_string_equal(e->status, ok[i].status);
		if (e->klass != ok[i].klass)
			fail_msg("%s: class %d", ok[i].q, e->klass);
		if (e->retry != ok[i].retry)
			fail_msg("%s: retry %d want %d", ok[i].q, e->retry, ok[i].retry);
		if (e->issues != ok[i].issues)
			fail_msg("%s: issues %#x want %#x", ok[i].q, e->issues, ok[i].issues);
		/* in this table every class-not-allowed status lacks registry backing (5.3.1) */
		if (e->standard != !(ok[i].issues & (NS | UR | NA)))
			fail_msg("%s: standard %d", ok[i].q, e->standard);
		if (strcmp(e->reason, ok[i].reason))
			fail_msg("%s: reason '%s' want '%s'", ok[i].q, e->reason, ok[i].reason);
		assert_int_equal(e->hardbounce, ok[i].hard);
		assert_non_null(e->title);
		assert_true(strlen(e->title) > 3);
		assert_true(strlen(e->short_answer) > 20);
		assert_true(strlen(e->meaning) > 20);
		assert_non_null(e->causes[0]);
		assert_non_null(e->fixes[0]);
		if (e->bounce && e->reason[0] && !e->fixers[0])
			fail_msg("%s: no fixer for reason %s", ok[i].q, e->reason);
		assert_non_null(e->evidence);
		if (e->reason[0] && !e->evidence[0])
			fail_msg("%s: no evidence for reason %s", ok[i].q, e->reason);
		if (ok[i].title_word && !strcasestr(e->title, ok[i].title_word))
			fail_msg("%s: title '%s' lacks '%s'", ok[i].q, e->title, ok[i].title_word);
		smtpdiag_buf b = { 0 };
		smtpdiag_explanation_json(e, &b);
		assert_false(b.oom);
		assert_true(b.len > 100 && b.data[0] == '{' && b.data[b.len - 1] == '}');
		smtpdiag_buf_free(&b);
		smtpdiag_explanation_free(e);
	}
}

/* A status outside its registered class is still standard when the registry's
 * own basic codes use that class (X.2.2 lists 552, X.7.1 lists 451 and 454). */
static void test_outside_class(void **state)
{
	static const struct { const char *q; int standard; } t[] = {
		{ "5.2.2", 1 }, { "4.7.1", 1 }, { "552 5.2.2", 1 }, { "5.3.1", 0 }, { "552 4.3.1", 1 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		smtpdiag_explanation *e = NULL;
		smtpdiag_error err = { 0, "" };
		assert_int_equal(smtpdiag_explain(t[i].q, strlen(t[i].q), SMTPDIAG_EXPLAIN_CODE, &e, &err), 0);
		if (e->standard != t[i].standard)
			fail_msg("%s: standard %d want %d", t[i].q, e->standard, t[i].standard);
		if (strcmp(t[i].q, "552 4.3.1") && !(e->issues & NA))
			fail_msg("%s: class-not-allowed not flagged", t[i].q);
		smtpdiag_explanation_free(e);
	}
}

static void test_seed_facts(void **state)
{
	smtpdiag_explanation *e;
	smtpdiag_buf b = { 0 };

	(void)state;
	assert_int_equal(smtpdiag_explain("431", 3, SMTPDIAG_EXPLAIN_CODE, &e, NULL), 0);
	smtpdiag_explanation_json(e, &b);
	assert_non_null(strstr(b.data, "STOREDRV"));
	assert_non_null(strstr(b.data, "452"));
	assert_non_null(strstr(b.data, "15004"));
	assert_non_null(strstr(e->fixer, "recipient-admin"));
	smtpdiag_buf_free(&b);
	smtpdiag_explanation_free(e);

	assert_int_equal(smtpdiag_explain("531", 3, SMTPDIAG_EXPLAIN_CODE, &e, NULL), 0);
	smtpdiag_explanation_json(e, &b);
	assert_non_null(strstr(b.data, "535"));
	assert_non_null(strstr(b.data, "530"));
	assert_non_null(strstr(b.data, "RFC 4954"));
	assert_non_null(strstr(b.data, "587"));
	assert_non_null(strstr(b.data, "465"));
	assert_non_null(strstr(b.data, "RFC 8314"));
	smtpdiag_buf_free(&b);
	smtpdiag_explanation_free(e);
}

/* A code only providers use is explained by them, and still flagged unregistered. */
static void test_vendor_only_codes(void **state)
{
	static const struct {
		const char *q, *vendor_word;
	} vo[] = {
		{ "5.7.515", "Outlook.com" }, { "5.7.708", "Exchange Online" }, { "5.7.750", "Exchange Online" },
		{ "5.4.300", "Exchange Online" }, { "5.7.57", "Exchange Online" }, { "4.7.650", "Outlook.com" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(vo) / sizeof(vo[0]); i++) {
		smtpdiag_explanation *e;
		size_t k = 0;
		assert_int_equal(smtpdiag_explain(vo[i].q, strlen(vo[i].q), SMTPDIAG_EXPLAIN_CODE, &e, NULL), 0);
		if (strcasestr(e->title, "unknown"))
			fail_msg("%s: title '%s'", vo[i].q, e->title);
		assert_true(e->issues & UR);
		while (k < e->nvendors && !strstr(e->vendors[k].vendor, vo[i].vendor_word))
			k++;
		if (k == e->nvendors)
			fail_msg("%s: no vendor like '%s' among %zu", vo[i].q, vo[i].vendor_word, e->nvendors);
		assert_true(strlen(e->vendors[k].meaning) > 10 && !strncmp(e->vendors[k].source, "http", 4));
		smtpdiag_explanation_free(e);
	}
}

/* A matched vendor row leads the answer: Gmail's 5.7.27 is about SPF, whatever
 * the registry says of X.7.27; Microsoft's 5.7.708 about the sending IP. */
static void test_vendor_row_leads(void **state)
{
	static const struct {
		const char *q, *word;
	} vl[] = {
		{ "550-5.7.27 This message was blocked because it didn't pass SPF authentication.\r\n"
		  "550 5.7.27 Gmail requires all bulk senders to authenticate with SPF. - gsmtp", "SPF" },
		{ "550 5.7.708 Service unavailable. Access denied, traffic not accepted from this IP.", "low-reputation" },
		{ "550 5.7.508 Access denied, [2001:db8::5] has exceeded permitted limits within 2001:db8::/64 range", "IPv6" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(vl) / sizeof(vl[0]); i++) {
		smtpdiag_explanation *e;
		assert_int_equal(smtpdiag_explain(vl[i].q, strlen(vl[i].q), SMTPDIAG_EXPLAIN_TEXT, &e, NULL), 0);
		if (!strstr(e->title, vl[i].word) || !strstr(e->short_answer, vl[i].word))
			fail_msg("%.30s: title '%s', short '%s'", vl[i].q, e->title, e->short_answer);
		assert_true(e->vendor[0] != '\0');
		smtpdiag_explanation_free(e);
	}
}

static void test_bad(void **state)
{
	static const struct {
		const char *q;
		size_t len; /* 0: strlen */
		int mode, rc;
	} bad[] = {
		{ "", 0, SMTPDIAG_EXPLAIN_CODE, SMTPDIAG_EINVAL },
		{ "   ", 0, SMTPDIAG_EXPLAIN_CODE, SMTPDIAG_EINVAL },
		{ "6.1.1", 0, SMTPDIAG_EXPLAIN_CODE, SMTPDIAG_EINVAL },
		{ "131", 0, SMTPDIAG_EXPLAIN_CODE, SMTPDIAG_EINVAL },
		{ "hello", 0, SMTPDIAG_EXPLAIN_CODE, SMTPDIAG_EINVAL },
		{ "550 551", 0, SMTPDIAG_EXPLAIN_CODE, SMTPDIAG_EINVAL },
		{ "550 5.1.1 4.2.2", 0, SMTPDIAG_EXPLAIN_CODE, SMTPDIAG_EINVAL },
		{ "5.1", 0, SMTPDIAG_EXPLAIN_CODE, SMTPDIAG_EINVAL },
		{ "ab\0cd", 5, SMTPDIAG_EXPLAIN_TEXT, SMTPDIAG_EINVAL },
		{ "nothing to see here", 0, SMTPDIAG_EXPLAIN_TEXT, SMTPDIAG_ENOTFOUND },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		smtpdiag_explanation *e = (void *)1;
		smtpdiag_error err = { 0, "" };
		size_t len = bad[i].len ? bad[i].len : strlen(bad[i].q);
		int rc = smtpdiag_explain(bad[i].q, len, bad[i].mode, &e, &err);
		if (rc != bad[i].rc)
			fail_msg("'%s': rc %d want %d", bad[i].q, rc, bad[i].rc);
		assert_null(e);
		assert_true(strlen(err.message) > 5);
	}
}

static void test_limit(void **state)
{
	size_t n = SMTPDIAG_MAX_QUERY + 1;
	char *big = malloc(n);
	smtpdiag_explanation *e;
	smtpdiag_error err = { 0, "" };

	(void)state;
	assert_non_null(big);
	memset(big, 'a', n);
	assert_int_equal(smtpdiag_explain(big, n, SMTPDIAG_EXPLAIN_FILE, &e, &err), SMTPDIAG_ELIMIT);
	assert_non_null(strstr(err.message, "1 MiB"));
	free(big);
}

/* An email with a stray NUL byte is read by the decoder, so explain --file
 * reads it too; the same bytes as reply text, or binary that is no email,
 * stay refused. */
static void test_file_with_nul(void **state)
{
	FILE *fp = fopen("tests/fixtures/decode/dsn-single.eml", "rb");
	static char buf[1 << 16];
	static const char junk[] = "\0\1\2\3 not an email \0\0";
	smtpdiag_explanation *e = NULL;
	smtpdiag_error err = { 0, "" };
	size_t n;

	(void)state;
	assert_non_null(fp);
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	assert_true(n > 200);
	buf[n - 2] = '\0'; /* in the last line, the closing boundary's */
	assert_int_equal(smtpdiag_explain(buf, n, SMTPDIAG_EXPLAIN_FILE, &e, &err), 0);
	assert_string_equal(e->reason, "userunknown");
	assert_string_equal(e->status, "5.1.1");
	smtpdiag_explanation_free(e);
	assert_int_equal(smtpdiag_explain(buf, n, SMTPDIAG_EXPLAIN_TEXT, &e, &err), SMTPDIAG_EINVAL);
	assert_int_equal(smtpdiag_explain(junk, sizeof(junk) - 1, SMTPDIAG_EXPLAIN_FILE, &e, &err), SMTPDIAG_EINVAL);
	assert_non_null(strstr(err.message, "binary"));
}

/* explain --file's decoder takes the rules of each call: a call without rules
 * after one with them reads with the built-in rules only, and the rules of a
 * freed set are never asked again. */
static void test_file_rules_per_call(void **state)
{
	static const char text[] = "match \"Recipient address rejected\" reason=filtered label=mine\n";
	FILE *fp = fopen("tests/fixtures/decode/dsn-single.eml", "rb");
	static char buf[1 << 16];
	smtpdiag_rules *r = NULL;
	smtpdiag_explanation *e = NULL;
	smtpdiag_error err = { 0, "" };
	size_t n;

	(void)state;
	assert_non_null(fp);
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	assert_int_equal(smtpdiag_rules_parse(text, strlen(text), "t.rules", &r, &err), 0);
	assert_int_equal(smtpdiag_explain_with_rules(buf, n, SMTPDIAG_EXPLAIN_FILE, r, &e, &err), 0);
	assert_string_equal(e->reason, "filtered");
	smtpdiag_explanation_free(e);
	smtpdiag_rules_free(r);
	assert_int_equal(smtpdiag_explain(buf, n, SMTPDIAG_EXPLAIN_FILE, &e, &err), 0);
	assert_string_equal(e->reason, "userunknown");
	smtpdiag_explanation_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ok),
		cmocka_unit_test(test_outside_class),
		cmocka_unit_test(test_seed_facts),
		cmocka_unit_test(test_vendor_only_codes),
		cmocka_unit_test(test_vendor_row_leads),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_file_with_nul),
		cmocka_unit_test(test_file_rules_per_call),
	};
	return cmocka_run_group_tests_name("explain", tests, NULL, NULL);
}
