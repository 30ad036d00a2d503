/* test_rules_filters.c - the reason rules of rules/filters.rules: what open mail
 * filters and policy servers (rspamd, amavis, MailScanner, OpenDMARC, the SPF
 * policy servers) and DNS block lists write into a refusal, read as a postmaster
 * would (OpenDKIM, ClamAV's clamd and policyd-weight among them): a list of the sending IP or domain is the sender's reputation, a list of
 * the URLs in the body the content, a list that refused the receiver's query the
 * receiver's own set-up. Every line is written for this test in the shape the
 * named filter or MTA uses; the addresses are documentation ones. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "verdict/classify.h"
#include "verdict/verdict.h"
#include "smtpdiag.h"

typedef struct {
	const char *text, *reason, *advice;
} row;

/* One line or more for each rule of filters.rules, in its order. */
static const row refusals[] = {
	/* rspamd */
	{ "451 4.7.1 Ratelimit \"bounce_to_ip\" exceeded", "ratelimited", "retry" },
	{ "554 5.7.1 Domain published RFC 7505 Null MX", "rejected", "fix-sender-config" },
	/* amavis */
	{ "554 5.7.0 Reject, id=04321-07 - INFECTED: Win.Test.EICAR_HDB-1", "virusdetected", "fix-message" },
	{ "554 5.7.0 Reject, id=04321-07 - BANNED: P=p002,L=1/2,T=exe,N=setup.exe", "policyviolation", "fix-message" },
	{ "554 5.6.0 Reject, id=04321-07 - BAD-HEADER: Non-encoded 8-bit data (char E9 hex) in message header 'Subject'",
	  "contenterror", "fix-message" },
	{ "451 4.5.0 Error in processing, id=04321-07, spam_scan FAILED: temporary failure", "systemerror", "retry" },
	/* OpenDKIM */
	{ "550 5.7.0 bad DKIM signature data", "authfailure", "fix-sender-authentication" },
	{ "550 5.7.0 no DKIM signature data", "authfailure", "fix-sender-authentication" },
	{ "550 5.7.0 DKIM signature syntax error", "authfailure", "fix-sender-authentication" },
	{ "550 5.7.0 DKIM signature processing failed", "authfailure", "fix-sender-authentication" },
	{ "451 4.7.0 internal DKIM error", "systemerror", "retry" },
	/* clamd's answer, quoted */
	{ "554 5.7.1 stream: Eicar-Test-Signature FOUND", "virusdetected", "fix-message" },
	/* policyd-weight */
	{ "550 5.7.1 Mail appeared to be SPAM or forged. Ask your Mail/DNS-Administrator to correct HELO and DNS MX settings or to get removed from DNSBLs",
	  "blocked", "fix-sender-reputation" },
	{ "550 5.7.1 temporarily blocked because of previous errors - retrying too fast. penalty: 30 seconds x 1 retries.",
	  "ratelimited", "retry" },
	/* MailScanner */
	{ "554 5.7.1 Message Blacklisted", "blocked", "fix-sender-reputation" },
	/* SPF policy servers */
	{ "550 5.7.1 <jo@example.com>: Sender address rejected: Please see http://www.openspf.org/Why?s=mfrom;id=jo%40example.com",
	  "authfailure", "fix-sender-authentication" },
	{ "550 5.7.1 Please see http://www.open-spf.org/Why?id=jo%40example.com&ip=192.0.2.7", "authfailure",
	  "fix-sender-authentication" },
	/* block lists of the sending IP or domain, by zone and by lookup page */
	{ "550 5.7.1 Mail from 192.0.2.7 refused, see zen.spamhaus.org", "blocked", "fix-sender-reputation" },
	{ "550 5.7.1 192.0.2.7 is in sbl-xbl.spamhaus.org", "blocked", "fix-sender-reputation" },
	{ "550 5.7.1 Client refused by zen.dq.spamhaus.net", "blocked", "fix-sender-reputation" },
	{ "550 5.7.1 Refused. See https://www.spamhaus.org/query/ip/192.0.2.7", "blocked", "fix-sender-reputation" },
	{ "550 5.7.1 Refused. See https://check.spamhaus.org/listed/?searchterm=192.0.2.7", "blocked",
	  "fix-sender-reputation" },
	{ "550 5.7.1 Sender refused by b.barracudacentral.org", "blocked", "fix-sender-reputation" },
	{ "550 5.7.1 See http://www.barracudanetworks.com/reputation/?pr=1&ip=192.0.2.7", "blocked",
	  "fix-sender-reputation" },
	{ "550 5.7.1 192.0.2.7 refused by bl.spamcop.net", "blocked", "fix-sender-reputation" },
	{ "550 5.7.1 192.0.2.7 refused by dul.sorbs.net", "blocked", "fix-sender-reputation" },
	{ "550 5.7.1 Dynamic IP Addresses See: http://www.sorbs.net/lookup.shtml?192.0.2.7", "blocked",
	  "fix-sender-reputation" },
	{ "550 5.7.1 Refused by dnsbl-3.uceprotect.net", "blocked", "fix-sender-reputation" },
	{ "550 5.7.1 Your network is UCEPROTECT-Level2 rated", "blocked", "fix-sender-reputation" },
	{ "550 5.7.1 192.0.2.7 refused by psbl.surriel.com", "blocked", "fix-sender-reputation" },
	{ "550 5.7.1 See https://psbl.org/listing?ip=192.0.2.7", "blocked", "fix-sender-reputation" },
	{ "550 5.7.1 192.0.2.7 refused by bl.mailspike.net", "blocked", "fix-sender-reputation" },
	{ "550 5.7.1 192.0.2.7 refused by sip24.invaluement.com", "blocked", "fix-sender-reputation" },
	{ "550 5.7.1 192.0.2.7 refused by ix.dnsbl.manitu.net", "blocked", "fix-sender-reputation" },
	{ "550 5.7.1 192.0.2.7 refused by black.mail.abusix.zone", "blocked", "fix-sender-reputation" },
	{ "550 5.7.1 192.0.2.7 refused by dnsbl.dronebl.org", "blocked", "fix-sender-reputation" },
	{ "550 5.7.1 192.0.2.7 refused by spam.spamrats.com", "blocked", "fix-sender-reputation" },
	{ "550 5.7.1 192.0.2.7 refused by bl.0spam.org", "blocked", "fix-sender-reputation" },
	{ "550 5.7.1 192.0.2.7 refused by truncate.gbudb.net", "blocked", "fix-sender-reputation" },
	{ "550 5.7.1 192.0.2.7 refused by bl.score.senderscore.com", "blocked", "fix-sender-reputation" },
	{ "550 5.7.1 192.0.2.7 refused by bl.blocklist.de", "blocked", "fix-sender-reputation" },
	{ "550 5.7.1 192.0.2.7 refused by db.wpbl.info", "blocked", "fix-sender-reputation" },
	{ "550 5.7.1 192.0.2.7 refused by ubl.unsubscore.com", "blocked", "fix-sender-reputation" },
	{ "550 5.7.1 192.0.2.7 refused by bl.spameatingmonkey.net", "blocked", "fix-sender-reputation" },
	{ "550 5.7.1 192.0.2.7 refused by noptr.spamrats.com", "requireptr", "fix-sender-config" },
	{ "550 5.7.1 Listed: RATS-NoPtr", "requireptr", "fix-sender-config" },
	/* a block list that refused the receiver's query: the receiver's set-up */
	{ "554 5.7.1 Refused: see https://www.spamhaus.org/returnc/pub/198.51.100.53", "systemerror",
	  "contact-recipient-admin" },
	{ "554 5.7.1 Client host [192.0.2.7] blocked using zen.spamhaus.org; Error: open resolver", "systemerror",
	  "contact-recipient-admin" },
	{ "554 5.7.1 Client host [192.0.2.7] blocked using zen.spamhaus.org; Error: excessive number of queries",
	  "systemerror", "contact-recipient-admin" },
	{ "550 5.7.1 Rejected: 192.0.2.7 listed at zen.spamhaus.org (127.255.255.254)", "systemerror",
	  "contact-recipient-admin" },
	{ "451 4.7.1 Service unavailable; query refused by the DNSBL bl.example.net", "systemerror", "retry" },
	{ "451 4.7.1 Service unavailable; query refused by bl.example.net", "systemerror", "retry" },
	{ "554 5.7.1 Client host [192.0.2.7] blocked using bl.example.net; query refused", "systemerror",
	  "contact-recipient-admin" },
	{ "554 5.7.1 Spamhaus answered a query through a public resolver: check your DNS", "systemerror",
	  "contact-recipient-admin" },
	/* block lists of the URLs in the message: spam */
	{ "554 5.7.1 Rejected: body domain found in multi.surbl.org", "spamdetected", "fix-message" },
	{ "554 5.7.1 Rejected: black.uribl.com lists a domain of this message", "spamdetected", "fix-message" },
	{ "550 5.7.1 A link in this message is listed by a domain block list", "spamdetected", "fix-message" },
	{ "550 5.7.1 URLs in the message listed at dbl.spamhaus.org", "spamdetected", "fix-message" },
};

/* Replies with some of the same words that the rules above must not take over:
 * a block list's name is no spam word, an amavis SPAM is still spam, Postfix's
 * refusal of a sender domain on a list is its reputation, not its address. */
static const row others[] = {
	{ "451 4.7.1 Temporary lookup failure of 192.0.2.7 at bl.spamcop.net", "blocked", "retry" },
	{ "554 5.7.0 Reject, id=04321-07 - SPAM", "spamdetected", "fix-message" },
	{ "554 5.7.0 Reject, id=04321-07 - virus: Eicar-Test-Signature", "virusdetected", "fix-message" },
	{ "554 5.7.1 <jo@example.com>: Sender address rejected: Service unavailable; Sender address [example.com] blocked using dbl.example.net",
	  "blocked", "fix-sender-reputation" },
	{ "553 5.1.8 <jo@example.com>: Sender address rejected: Domain not found", "rejected", "fix-sender-config" },
	{ "554 5.7.1 Service unavailable; Client host [192.0.2.7] blocked using zen.spamhaus.org; https://www.spamhaus.org/query/ip/192.0.2.7",
	  "blocked", "fix-sender-reputation" },
	{ "550 Domain example.org does not accept mail (nullMX)", "notaccept", "suppress-recipient" },
};

/* The reason and advice explain gives a reply text; 0 when explain found nothing
 * to explain. */
static int weigh(const char *t, char *reason, size_t rn, char *advice, size_t an)
{
	smtpdiag_explanation *e = NULL;
	smtpdiag_error err = { 0, "" };

	reason[0] = advice[0] = '\0';
	if (smtpdiag_explain(t, strlen(t), SMTPDIAG_EXPLAIN_TEXT, &e, &err) != 0)
		return 0;
	snprintf(reason, rn, "%s", e->reason ? e->reason : "");
	snprintf(advice, an, "%s", e->advice ? e->advice : "");
	smtpdiag_explanation_free(e);
	return 1;
}

/* Rows of t whose verdict differs from the row's, or (with a classifier c)
 * whose text holds no phrase of the row's reason. */
static int misses(const row *t, size_t n, sd_classifier *c)
{
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		char reason[64], advice[64];
		int want = sd_reason_index(t[i].reason);

		assert_true(want >= 0);
		if (c && !(sd_classify_scan(c, t[i].text, strlen(t[i].text)) & (1ull << want))) {
			print_error("'%s': no %s phrase\n", t[i].text, t[i].reason);
			bad++;
		}
		if (!weigh(t[i].text, reason, sizeof reason, advice, sizeof advice) || strcmp(reason, t[i].reason) ||
		    strcmp(advice, t[i].advice)) {
			print_error("'%s' -> '%s' '%s', want '%s' '%s'\n", t[i].text, reason, advice, t[i].reason,
				    t[i].advice);
			bad++;
		}
	}
	return bad;
}

/* Each refusal holds a phrase of its reason, and explain reads it as that
 * reason with the advice of who acts. */
static void test_refusals(void **state)
{
	sd_classifier *c = sd_classifier_new();

	(void)state;
	assert_non_null(c);
	int bad = misses(refusals, sizeof(refusals) / sizeof(refusals[0]), c);
	sd_classifier_free(c);
	assert_int_equal(bad, 0);
}

static void test_others(void **state)
{
	(void)state;
	assert_int_equal(misses(others, sizeof(others) / sizeof(others[0]), NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_others),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
