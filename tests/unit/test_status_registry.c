/* test_status_registry.c - what an enhanced status or a reply code says alone.
 *
 * Walks every status of the IANA registry as the knowledge base reads it
 * (kb/reference/enhanced-status-codes.tsv, sd_kb_statuses[]) in a reply whose
 * text names nothing ("550 5.7.26 Ref ABC123"), in both failure classes, and
 * asserts the verdict the status alone gives: the reason a postmaster reads
 * from it (rules/status-reasons.tsv, docs/reasons.md steps 5 and 6), the hard
 * bounce, the retry and the advice. A status that says too little is onhold,
 * with why. Every registry status must have a row here and every row must be
 * a registry status, so a status added to the registry fails this test until
 * it is read. Then the reply codes of RFC 5321 4.2, RFC 4954, RFC 3207 and RFC
 * 7504 alone. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "smtpdiag.h"
#include "kb/kb.h"
#include "verdict_paths.h"

typedef struct expect {
	const char *code;   /* "X.7.26" */
	const char *reason; /* with a 550 */
	int hard, retry;
	const char *advice;
	const char *reason4; /* with a 450: always retried, never hard */
} expect;

/* Said too little on their own (onhold): X.0.0 (other undefined status, the
 * class alone); X.1.0 and X.2.0 in class 4 (other address or mailbox status,
 * no detail); X.1.5 and X.3.6 (success codes: "destination address valid",
 * "requested priority was changed", RFC 3463 3.2, RFC 6710 6.2), no failure
 * reading in class 4 or 5; X.1.4 in class 4 (an ambiguous address is no
 * transient trouble RFC 3463 names). */
static const expect registry[] = {
	{ "X.0.0", "onhold", 0, 0, "contact-recipient-admin", "onhold" },
	{ "X.1.0", "userunknown", 1, 0, "suppress-recipient", "onhold" },
	{ "X.1.1", "userunknown", 1, 0, "suppress-recipient", "userunknown" },
	{ "X.1.2", "hostunknown", 1, 0, "suppress-recipient", "hostunknown" },
	{ "X.1.3", "userunknown", 1, 0, "suppress-recipient", "userunknown" },
	{ "X.1.4", "systemerror", 0, 0, "contact-recipient-admin", "onhold" },
	{ "X.1.5", "onhold", 0, 0, "contact-recipient-admin", "onhold" },
	{ "X.1.6", "hasmoved", 1, 0, "suppress-recipient", "hasmoved" },
	{ "X.1.7", "rejected", 0, 0, "fix-sender-config", "rejected" },
	{ "X.1.8", "rejected", 0, 0, "fix-sender-config", "rejected" },
	{ "X.1.9", "systemerror", 0, 0, "contact-recipient-admin", "systemerror" },
	{ "X.1.10", "notaccept", 1, 0, "suppress-recipient", "notaccept" },
	{ "X.2.0", "filtered", 0, 0, "suppress-recipient", "onhold" },
	{ "X.2.1", "filtered", 0, 0, "suppress-recipient", "blocked" },
	{ "X.2.2", "mailboxfull", 0, 1, "retry", "mailboxfull" },
	{ "X.2.3", "emailtoolarge", 0, 0, "fix-message", "emailtoolarge" },
	{ "X.2.4", "filtered", 0, 0, "suppress-recipient", "filtered" },
	{ "X.3.0", "systemerror", 0, 0, "contact-recipient-admin", "systemerror" },
	{ "X.3.1", "systemfull", 0, 1, "retry", "systemfull" },
	{ "X.3.2", "notaccept", 1, 0, "suppress-recipient", "systemerror" },
	{ "X.3.3", "systemerror", 0, 0, "contact-recipient-admin", "systemerror" },
	{ "X.3.4", "emailtoolarge", 0, 0, "fix-message", "emailtoolarge" },
	{ "X.3.5", "systemerror", 0, 0, "contact-recipient-admin", "systemerror" },
	{ "X.3.6", "onhold", 0, 0, "contact-recipient-admin", "systemerror" },
	{ "X.4.0", "networkerror", 0, 0, "contact-recipient-admin", "networkerror" },
	{ "X.4.1", "networkerror", 0, 0, "contact-recipient-admin", "networkerror" },
	{ "X.4.2", "networkerror", 0, 0, "contact-recipient-admin", "networkerror" },
	{ "X.4.3", "systemerror", 0, 0, "contact-recipient-admin", "systemerror" },
	{ "X.4.4", "hostunknown", 1, 0, "suppress-recipient", "networkerror" },
	{ "X.4.5", "systemfull", 0, 1, "retry", "systemfull" },
	{ "X.4.6", "networkerror", 0, 0, "contact-recipient-admin", "networkerror" },
	{ "X.4.7", "expired", 0, 0, "contact-recipient-admin", "expired" },
	{ "X.5.0", "syntaxerror", 0, 0, "fix-sender-config", "syntaxerror" },
	{ "X.5.1", "syntaxerror", 0, 0, "fix-sender-config", "syntaxerror" },
	{ "X.5.2", "syntaxerror", 0, 0, "fix-sender-config", "syntaxerror" },
	{ "X.5.3", "ratelimited", 0, 0, "fix-sender-config", "systemerror" },
	{ "X.5.4", "syntaxerror", 0, 0, "fix-sender-config", "syntaxerror" },
	{ "X.5.5", "systemerror", 0, 0, "fix-sender-config", "systemerror" },
	{ "X.5.6", "syntaxerror", 0, 0, "fix-sender-config", "syntaxerror" },
	{ "X.6.0", "contenterror", 0, 0, "fix-message", "contenterror" },
	{ "X.6.1", "contenterror", 0, 0, "fix-message", "contenterror" },
	{ "X.6.2", "contenterror", 0, 0, "fix-message", "contenterror" },
	{ "X.6.3", "contenterror", 0, 0, "fix-message", "contenterror" },
	{ "X.6.4", "contenterror", 0, 0, "fix-message", "contenterror" },
	{ "X.6.5", "contenterror", 0, 0, "fix-message", "contenterror" },
	{ "X.6.6", "contenterror", 0, 0, "fix-message", "contenterror" },
	{ "X.6.7", "contenterror", 0, 0, "fix-message", "contenterror" },
	{ "X.6.8", "contenterror", 0, 0, "fix-message", "contenterror" },
	{ "X.6.9", "contenterror", 0, 0, "fix-message", "contenterror" },
	{ "X.6.10", "contenterror", 0, 0, "fix-message", "contenterror" },
	{ "X.7.0", "securityerror", 0, 0, "fix-sender-authentication", "securityerror" },
	{ "X.7.1", "securityerror", 0, 0, "fix-sender-authentication", "blocked" },
	{ "X.7.2", "securityerror", 0, 0, "fix-sender-authentication", "blocked" },
	{ "X.7.3", "securityerror", 0, 0, "fix-sender-authentication", "securityerror" },
	{ "X.7.4", "securityerror", 0, 0, "fix-sender-authentication", "securityerror" },
	{ "X.7.5", "securityerror", 0, 0, "fix-sender-authentication", "securityerror" },
	{ "X.7.6", "securityerror", 0, 0, "fix-sender-authentication", "securityerror" },
	{ "X.7.7", "securityerror", 0, 0, "fix-sender-authentication", "securityerror" },
	{ "X.7.8", "securityerror", 0, 0, "fix-sender-authentication", "securityerror" },
	{ "X.7.9", "securityerror", 0, 0, "fix-sender-authentication", "securityerror" },
	{ "X.7.10", "securityerror", 0, 0, "fix-sender-authentication", "securityerror" },
	{ "X.7.11", "securityerror", 0, 0, "fix-sender-authentication", "securityerror" },
	{ "X.7.12", "securityerror", 0, 0, "fix-sender-authentication", "securityerror" },
	{ "X.7.13", "suspend", 0, 0, "suppress-recipient", "securityerror" },
	{ "X.7.14", "securityerror", 0, 0, "fix-sender-authentication", "securityerror" },
	{ "X.7.15", "securityerror", 0, 0, "fix-sender-authentication", "securityerror" },
	{ "X.7.16", "emailtoolarge", 0, 0, "fix-message", "emailtoolarge" },
	{ "X.7.17", "hasmoved", 1, 0, "suppress-recipient", "securityerror" },
	{ "X.7.18", "hasmoved", 1, 0, "suppress-recipient", "securityerror" },
	{ "X.7.19", "securityerror", 0, 0, "fix-sender-config", "securityerror" },
	{ "X.7.20", "authfailure", 0, 0, "fix-sender-authentication", "authfailure" },
	{ "X.7.21", "authfailure", 0, 0, "fix-sender-authentication", "authfailure" },
	{ "X.7.22", "authfailure", 0, 0, "fix-sender-authentication", "authfailure" },
	{ "X.7.23", "authfailure", 0, 0, "fix-sender-authentication", "authfailure" },
	{ "X.7.24", "authfailure", 0, 0, "fix-sender-authentication", "authfailure" },
	{ "X.7.25", "requireptr", 0, 0, "fix-sender-config", "requireptr" },
	{ "X.7.26", "authfailure", 0, 0, "fix-sender-authentication", "authfailure" },
	{ "X.7.27", "notaccept", 0, 0, "fix-sender-config", "notaccept" },
	{ "X.7.28", "ratelimited", 0, 1, "retry", "ratelimited" },
	{ "X.7.29", "authfailure", 0, 0, "fix-sender-authentication", "authfailure" },
	{ "X.7.30", "failedstarttls", 0, 0, "fix-sender-config", "failedstarttls" },
};

typedef struct got {
	char reason[32], advice[40];
	int hard, retry;
} got;

static void explain(const char *reply, got *g)
{
	smtpdiag_explanation *e = NULL;
	smtpdiag_error err = { 0, "" };

	if (smtpdiag_explain(reply, strlen(reply), SMTPDIAG_EXPLAIN_TEXT, &e, &err) != 0)
		fail_msg("explain '%s': %s", reply, err.message);
	snprintf(g->reason, sizeof(g->reason), "%s", e->reason);
	snprintf(g->advice, sizeof(g->advice), "%s", e->advice);
	g->hard = e->hardbounce;
	g->retry = e->retry;
	smtpdiag_explanation_free(e);
}

static int check(const char *reply, const char *reason, int hard, int retry, const char *advice)
{
	got g;

	explain(reply, &g);
	if (!strcmp(g.reason, reason) && g.hard == hard && g.retry == retry && !strcmp(g.advice, advice))
		return 0;
	print_message("%s: want %s hard=%d retry=%d %s, got %s hard=%d retry=%d %s\n", reply, reason, hard, retry,
		      advice, g.reason, g.hard, g.retry, g.advice);
	return 1;
}

static const expect *find(const char *code)
{
	for (size_t i = 0; i < sizeof(registry) / sizeof(registry[0]); i++)
		if (!strcmp(registry[i].code, code))
			return &registry[i];
	return NULL;
}

/* Every registry status has a row, and every row is a registry status. */
static void test_every_status_has_a_row(void **state)
{
	size_t missing = 0, extra = 0;

	(void)state;
	for (size_t i = 0; i < sd_kb_nstatuses; i++)
		if (!find(sd_kb_statuses[i].code)) {
			print_message("no row for registry status %s\n", sd_kb_statuses[i].code);
			missing++;
		}
	for (size_t i = 0; i < sizeof(registry) / sizeof(registry[0]); i++) {
		size_t k = 0;

		while (k < sd_kb_nstatuses && strcmp(sd_kb_statuses[k].code, registry[i].code) != 0)
			k++;
		if (k == sd_kb_nstatuses) {
			print_message("row %s is no registry status\n", registry[i].code);
			extra++;
		}
	}
	assert_int_equal(missing, 0);
	assert_int_equal(extra, 0);
}

static void test_status_alone(void **state)
{
	char reply[64];
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < sd_kb_nstatuses; i++) {
		const expect *x = find(sd_kb_statuses[i].code);
		const char *sd = sd_kb_statuses[i].code + 1; /* ".7.26" */

		if (!x)
			continue;
		snprintf(reply, sizeof(reply), "550 5%s Ref ABC123", sd);
		bad += check(reply, x->reason, x->hard, x->retry, x->advice);
		snprintf(reply, sizeof(reply), "450 4%s Ref ABC123", sd);
		if (!strcmp(sd, ".4.7")) /* delivery time expired: the MTA gave up */
			bad += check(reply, x->reason4, 0, 0, "contact-recipient-admin");
		else
			bad += check(reply, x->reason4, 0, 1, "retry");
	}
	assert_int_equal(bad, 0);
}

/* Reply codes alone, answering RCPT TO as a reply pasted on its own does. */
static void test_reply_code_alone(void **state)
{
	static const struct {
		const char *reply, *reason;
		int hard, retry;
		const char *advice;
	} t[] = {
		/* RFC 5321 4.2.2-4.2.3 */
		{ "421 Ref ABC123", "systemerror", 0, 1, "retry" },
		{ "450 Ref ABC123", "onhold", 0, 1, "retry" }, /* mailbox unavailable: says too little */
		{ "451 Ref ABC123", "systemerror", 0, 1, "retry" },
		{ "452 Ref ABC123", "systemfull", 0, 1, "retry" },
		{ "455 Ref ABC123", "syntaxerror", 0, 1, "retry" },
		{ "550 Ref ABC123", "onhold", 0, 0, "contact-recipient-admin" }, /* says too little */
		{ "551 Ref ABC123", "hasmoved", 1, 0, "suppress-recipient" },
		{ "552 Ref ABC123", "mailboxfull", 0, 1, "retry" },
		{ "553 Ref ABC123", "userunknown", 1, 0, "suppress-recipient" },
		{ "554 Ref ABC123", "onhold", 0, 0, "contact-recipient-admin" }, /* transaction failed */
		{ "555 Ref ABC123", "syntaxerror", 0, 0, "fix-sender-config" },
		{ "500 Ref ABC123", "syntaxerror", 0, 0, "fix-sender-config" },
		{ "501 Ref ABC123", "syntaxerror", 0, 0, "fix-sender-config" },
		{ "503 Ref ABC123", "syntaxerror", 0, 0, "fix-sender-config" },
		/* RFC 5248 2.4: an account disabled after AUTH is the sender's own */
		{ "525 5.7.13 Ref ABC123 (in reply to AUTH LOGIN command)", "securityerror", 0, 0,
		  "fix-sender-authentication" },
		{ "525 5.7.13 Ref ABC123", "suspend", 0, 0, "suppress-recipient" },
		/* RFC 7504 */
		{ "521 Ref ABC123", "notaccept", 1, 0, "suppress-recipient" },
		{ "556 Ref ABC123", "notaccept", 1, 0, "suppress-recipient" },
		/* RFC 4954 6, RFC 3207 4 */
		{ "432 Ref ABC123", "securityerror", 0, 1, "retry" },
		{ "454 Ref ABC123", "securityerror", 0, 1, "retry" },
		{ "530 Ref ABC123", "securityerror", 0, 0, "fix-sender-authentication" },
		{ "534 Ref ABC123", "securityerror", 0, 0, "fix-sender-authentication" },
		{ "535 Ref ABC123", "securityerror", 0, 0, "fix-sender-authentication" },
		{ "538 Ref ABC123", "securityerror", 0, 0, "fix-sender-authentication" },
	};
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		bad += check(t[i].reply, t[i].reason, t[i].hard, t[i].retry, t[i].advice);
	assert_int_equal(bad, 0);
}

/* The registry's reading is the default mode's: --reasons sisimai keeps the
 * reference decoder's (docs/reasons.md, "Modes": registry-codes). */
static void test_sisimai_mode_keeps_its_reading(void **state)
{
	static const struct {
		const char *reply, *dflt, *sisimai;
	} t[] = {
		{ "554 5.4.6 Ref ABC123", "networkerror", "onhold" },
		{ "550 5.1.4 Ref ABC123", "systemerror", "filtered" },
		{ "551 Ref ABC123", "hasmoved", "onhold" },
	};
	char msg[4096];

	(void)state;
	(void)vp_logline; /* the shared header's other path, unused here */
	for (int mode = 0; mode < 2; mode++) {
		smtpdiag_decoder *d = smtpdiag_decoder_new(mode ? SMTPDIAG_DECODE_REASONS_SISIMAI : 0);

		assert_non_null(d);
		for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
			smtpdiag_error err = { 0, "" };

			vp_dsn(t[i].reply, msg, sizeof(msg));
			assert_int_equal(smtpdiag_decode(d, msg, strlen(msg), NULL, &err), 1);
			assert_string_equal(smtpdiag_decoder_fact(d, 0)->reason, mode ? t[i].sisimai : t[i].dflt);
		}
		smtpdiag_decoder_free(d);
	}
}

/* The trail says when the registry's reading decided, so a user (and make
 * conformance) can tell it from the reference decoder's rows. */
static void test_trail_marks_the_registry(void **state)
{
	static const struct {
		const char *reply, *step;
	} t[] = {
		{ "554 5.4.6 Ref ABC123", "status:5.4.6 (registry) -> networkerror" },
		{ "551 Ref ABC123", "reply:551 (registry) -> hasmoved" },
		{ "550 5.1.1 Ref ABC123", "status:5.1.1 -> userunknown" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		smtpdiag_explanation *e = NULL;
		smtpdiag_error err = { 0, "" };
		int found = 0;

		assert_int_equal(smtpdiag_explain(t[i].reply, strlen(t[i].reply), SMTPDIAG_EXPLAIN_TEXT, &e, &err), 0);
		for (int k = 0; e->evidence && e->evidence[k]; k++)
			found |= !strcmp(e->evidence[k], t[i].step);
		if (!found)
			print_message("%s: no step '%s'\n", t[i].reply, t[i].step);
		smtpdiag_explanation_free(e);
		assert_true(found);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_status_has_a_row),
		cmocka_unit_test(test_status_alone),
		cmocka_unit_test(test_reply_code_alone),
		cmocka_unit_test(test_sisimai_mode_keeps_its_reading),
		cmocka_unit_test(test_trail_marks_the_registry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
