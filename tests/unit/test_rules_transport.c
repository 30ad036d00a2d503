/* test_rules_transport.c - the reason rules of rules/transport.rules: TLS that
 * was required or failed, DNS that failed for now or for good, connections that
 * failed, a recipient domain whose DNS points mail back at its sender, and the
 * sending client's reverse DNS, read as a postmaster would, with or without a
 * reply code; and the verdict's other fields where the reading of the status or
 * the text decides them. Every line is written for this test in the shape the
 * named MTA, RFC or provider uses; the names and addresses are documentation
 * ones. */
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
#include "rules_rows.h"

/* One line or more for each rule of transport.rules, in its order. */
static const row texts[] = {
	/* TLS required, refused or failed */
	{ "450 4.7.1 Session encryption is required", "failedstarttls" },
	{ "Sender requested REQUIRETLS, but TLS service was not offered by host mx.example.org[192.0.2.7]",
	  "failedstarttls" },
	{ "550 5.7.30 REQUIRETLS support required", "failedstarttls" },
	{ "554 5.7.0 DANE check failed.", "failedstarttls" },
	{ "554 5.7.0 DANE: missing STARTTLS.", "failedstarttls" },
	{ "454 4.7.0 STARTTLS temporarily not possible.", "failedstarttls" },
	{ "STARTTLS=client, relay=mx.example.org, error: connect failed=-1, reason=certificate verify failed",
	  "failedstarttls" },
	{ "STARTTLS rejected: 454 4.7.0 TLS not available due to local problem", "failedstarttls" },
	{ "MTA-STS policy validation failed for example.org: the certificate of mx.example.org does not match",
	  "failedstarttls" },
	{ "421-4.7.29 Your email has been rate limited because this message wasn't sent over a TLS connection. - gsmtp",
	  "failedstarttls" },
	/* DNS failed for now, and connections */
	{ "TLSA lookup error for mx.example.org:25", "networkerror" },
	{ "Name service error for name=example.org type=MX: Malformed or unexpected name server reply",
	  "networkerror" },
	{ "451 4.4.3 example.org: Name server timeout", "networkerror" },
	{ "The recipient server did not accept our requests to connect. [mx.example.org. 192.0.2.7: timed out]",
	  "networkerror" },
	{ "451 4.4.397 Error communicating with target host.", "networkerror" },
	{ "451 4.4.397 Error communicating with target host. -> 421 4.4.2 Connection dropped due to SocketError",
	  "networkerror" },
	/* no mail host at all */
	{ "550 5.1.2 No MX or A records for nosuch.example", "hostunknown" },
	/* the recipient domain's DNS sends mail back or to no host */
	{ "MX list for example.org. points back to mx.example.com", "systemerror" },
	{ "553 5.3.5 mx.example.org. config error: mail loops back to me (MX problem?)", "systemerror" },
	{ "MX record for example.org points to a CNAME", "systemerror" },
	{ "MX host for example.org points to an IP address", "systemerror" },
	/* the client's reverse DNS */
	{ "450 4.4.0 Relaying temporarily denied. Cannot resolve PTR record for 192.0.2.1", "requireptr" },
	{ "550 5.7.25 Reverse DNS validation failed", "requireptr" },
	{ "550 5.7.1 rDNS lookup for 192.0.2.1 failed", "requireptr" },
	{ "550 5.7.1 PTR check failure for 192.0.2.1", "requireptr" },
	{ "554 5.7.1 Your IP 192.0.2.1 has no PTR record", "requireptr" },
	{ "550 5.7.1 FCrDNS check failed for 192.0.2.1", "requireptr" },
	{ "421 4.7.1 Forward-confirmed reverse DNS required", "requireptr" },
	{ "550 5.7.1 Client hostname does not match its IP address", "requireptr" },
	{ "550 5.7.1 PTR record does not match the HELO name", "requireptr" },
	{ "554 5.7.1 Generic reverse DNS names are not accepted: 192-0-2-1.dyn.example.net", "requireptr" },
	{ "554 5.7.1 Dynamic-looking rDNS refused", "requireptr" },
	/* the HELO name judged as the client's identity */
	{ "550 5.7.1 Invalid HELO name", "blocked" },
	{ "554 5.7.1 Bad HELO: localhost", "blocked" },
	{ "550 5.7.1 HELO hostname does not resolve", "blocked" },
	{ "550 5.7.1 EHLO name must be a fully-qualified domain name", "blocked" },
	/* no MX host answered */
	{ "421 4.7.0 All MX hosts for example.org are unreachable", "networkerror" },
	{ "All mail servers for example.org failed to respond", "networkerror" },
	/* the same facts in general words */
	{ "530 5.7.0 Encryption required", "failedstarttls" },
	{ "550 5.7.0 A secure connection (TLS) is required", "failedstarttls" },
	{ "454 4.7.0 STARTTLS is required before MAIL FROM", "failedstarttls" },
	{ "421 4.7.0 TLS handshake error, closing connection", "failedstarttls" },
	{ "451 4.7.5 Unable to negotiate TLS with mx.example.org", "failedstarttls" },
	{ "451 4.4.3 DNS lookup failed for example.org, try again later", "networkerror" },
	{ "MX lookup for example.org timed out", "networkerror" },
	{ "550 5.7.1 Unable to resolve the hostname of your IP address 192.0.2.1", "requireptr" },
	{ "421 4.7.0 Your IP 192.0.2.1 has no reverse DNS, try again later", "requireptr" },
	{ "554 5.7.1 PTR record required for 192.0.2.1", "requireptr" },
	{ "550 5.7.1 The reverse hostname of 192.0.2.1 does not resolve back to it", "requireptr" },
};

/* Texts with some of the same words that mean something else. */
static const row others[] = {
	/* a receiver that drops a client it refuses stays blocked (sender.rules) */
	{ "421 4.7.0 Connection dropped", "blocked" },
	{ "550 5.7.1 Client host rejected: cannot find your reverse hostname, [192.0.2.1]", "requireptr" },
	{ "Host or domain name not found. Name service error for name=nosuch.example type=MX: Host not found",
	  "hostunknown" },
	{ "Host or domain name not found. Name service error for name=mx.example.org type=A: Host not found, try again",
	  "networkerror" },
	{ "550 5.1.8 <jo@nosuch.example>: Sender address rejected: Domain not found", "rejected" },
	/* X.7.1 alone is blocked; a TLS phrase says what it refused */
	{ "450 4.7.1 Client host rejected: Access denied", "blocked" },
	{ "550 5.7.1 Must issue a STARTTLS command first", "failedstarttls" },
	/* a word that only holds "a lookup" or "PTR" says nothing of DNS or reverse DNS */
	{ "550 5.1.1 <jo@example.org>: Recipient address rejected: User unknown in local recipient table",
	  "userunknown" },
	{ "552 5.2.2 Mailbox full: the PTR department's quota is exceeded", "mailboxfull" },
};

typedef struct {
	const char *text, *reason, *advice;
	int retry, hard;
} whole;

/* The whole verdict where it is the reading of the status or the text. */
static const whole verdicts[] = {
	/* a TLS phrase beside 4.7.1: transient, retried */
	{ "450 4.7.1 Session encryption is required", "failedstarttls", "retry", 1, 0 },
	/* the sender asked for REQUIRETLS and no MX gave it: the sender's set-up */
	{ "550 5.7.30 REQUIRETLS support required", "failedstarttls", "fix-sender-config", 0, 0 },
	/* Sendmail's loop without the word "loop": the same message loops again */
	{ "MX list for example.org. points back to mx.example.com", "systemerror", "contact-recipient-admin", 0, 0 },
	/* a DNS failure of the moment, with or without a code */
	{ "TLSA lookup error for mx.example.org:25", "networkerror", "retry", 1, 0 },
	{ "451 4.4.3 example.org: Name server timeout", "networkerror", "retry", 1, 0 },
	/* no mail host: the address is bad */
	{ "550 5.1.2 No MX or A records for nosuch.example", "hostunknown", "suppress-recipient", 0, 1 },
	/* a HELO refusal is the sender's set-up, not its credentials */
	{ "550 5.7.1 Invalid HELO name", "blocked", "fix-sender-reputation", 0, 0 },
	/* a missing PTR is the sender's to fix, never a bad recipient */
	{ "550 5.7.1 rDNS lookup for 192.0.2.1 failed", "requireptr", "fix-sender-config", 0, 0 },
	{ "421 4.7.1 Forward-confirmed reverse DNS required", "requireptr", "retry", 1, 0 },
};

/* Each text holds a phrase of the reason it is read as. */
static void test_phrases(void **state)
{
	(void)state;
	assert_int_equal(rr_missing_phrases(texts, sizeof(texts) / sizeof(texts[0])), 0);
}

static void test_reasons(void **state)
{
	(void)state;
	assert_int_equal(rr_wrong_reasons(texts, sizeof(texts) / sizeof(texts[0])), 0);
}

static void test_others(void **state)
{
	(void)state;
	assert_int_equal(rr_wrong_reasons(others, sizeof(others) / sizeof(others[0])), 0);
}

/* One whole verdict against what it should be; 1 when it is wrong. */
static int wrong_verdict(const whole *w, const smtpdiag_explanation *e)
{
	if (!e) {
		print_error("'%s': nothing to explain\n", w->text);
		return 1;
	}
	if (!strcmp(e->reason, w->reason) && !strcmp(e->advice, w->advice) && !e->retry == !w->retry &&
	    !e->hardbounce == !w->hard)
		return 0;
	print_error("'%s' -> %s %s retry %d hard %d, want %s %s retry %d hard %d\n", w->text, e->reason, e->advice,
		    e->retry, e->hardbounce, w->reason, w->advice, w->retry, w->hard);
	return 1;
}

static void test_verdicts(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(verdicts) / sizeof(verdicts[0]); i++) {
		smtpdiag_explanation *e = NULL;

		bad += wrong_verdict(&verdicts[i], rr_explained(verdicts[i].text, &e) ? e : NULL);
		if (e)
			smtpdiag_explanation_free(e);
	}
	assert_int_equal(bad, 0);
}

/* A failure notice (the MTA gave up) of a transient status whose text is
 * Gmail's "did not accept our requests to connect": the give-up is the
 * verdict in both modes, as for "connection timed out"; the phrase only says
 * why. */
static void test_gave_up(void **state)
{
	static const unsigned modes[] = { 0, SMTPDIAG_DECODE_REASONS_SISIMAI };
	char msg[2048];

	(void)state;
	snprintf(msg, sizeof(msg), "%s",
		 "From: MAILER-DAEMON@relay.example.com\nTo: sender@example.com\n"
		 "Subject: Delivery Status Notification (Failure)\nMIME-Version: 1.0\n"
		 "Content-Type: multipart/report; report-type=delivery-status; boundary=\"b1\"\n\n"
		 "--b1\nContent-Type: text/plain\n\nThe message was not delivered.\n\n"
		 "--b1\nContent-Type: message/delivery-status\n\nReporting-MTA: dns; relay.example.com\n\n"
		 "Final-Recipient: rfc822; user@example.org\nAction: failed\nStatus: 4.4.1\n"
		 "Diagnostic-Code: smtp; The recipient server did not accept our requests to connect.\n\n"
		 "--b1--\n");
	for (size_t k = 0; k < sizeof(modes) / sizeof(modes[0]); k++) {
		smtpdiag_decoder *d = smtpdiag_decoder_new(modes[k]);
		smtpdiag_error err = { 0, "" };

		assert_non_null(d);
		assert_int_equal(smtpdiag_decode(d, msg, strlen(msg), NULL, &err), 1);
		assert_string_equal(smtpdiag_decoder_fact(d, 0)->reason, "expired");
		smtpdiag_decoder_free(d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_phrases),
		cmocka_unit_test(test_reasons),
		cmocka_unit_test(test_others),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_gave_up),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
