/* test_rules_mta.c - rules/mta.rules and the loop policy of the engine: the
 * fixed texts Postfix, Sendmail, qmail, OpenSMTPD and Dovecot write, read
 * through explain's whole verdict. Every line is written for this test in the
 * shape the named program writes it; addresses are documentation ones. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "smtpdiag.h"

typedef struct {
	const char *text, *reason;
	int retry;           /* -1: not checked */
	const char *advice;  /* NULL: not checked */
} row;

static const row mta[] = {
	/* blocked: an access table refused the client (Postfix smtpd_check.c, Sendmail proto.m4) */
	{ "554 5.7.1 <client.example.net[198.51.100.4]>: Client host rejected: Access denied", "blocked", 0, "fix-sender-reputation" },
	{ "554 5.7.1 <mx.example.net>: Helo command rejected: Access denied", "blocked", 0, NULL },
	{ "550 5.7.1 <bob@example.net>... Access denied", "blocked", 0, NULL },
	{ "host mx.example.net[198.51.100.9] refused to talk to me: 550 5.7.1 Access denied", "blocked", 0, NULL },
	{ "550 5.7.1 bogus HELO name used: relay.example.net", "blocked", 0, NULL },
	/* not an access table: relaying */
	{ "554 5.7.1 <ann@example.net>: Relay access denied", "norelaying", 0, "fix-sender-config" },
	/* syntaxerror: Sendmail's pre-greeting check */
	{ "rejecting commands from relay.example.net [198.51.100.4] due to pre-greeting traffic after 3 seconds", "syntaxerror", 0, "fix-sender-config" },
	/* notcompliantrfc, ratelimited, hostunknown (Postfix smtpd) */
	{ "553 5.6.7 Must declare SMTPUTF8 to send unicode address", "notcompliantrfc", 0, NULL },
	{ "450 4.7.1 Error: too much mail from 198.51.100.4", "ratelimited", 1, "retry" },
	{ "450 4.1.2 <ann@nosuch.example.net>: Recipient address rejected: Domain not found", "hostunknown", 1, "retry" },
	/* OpenSMTPD mta.c, no reply quoted */
	{ "Domain does not accept mail", "notaccept", 0, "suppress-recipient" },
	{ "Invalid domain name", "hostunknown", 0, "suppress-recipient" },
	{ "501 5.5.4 EHLO: Invalid domain name", "syntaxerror", 0, "fix-sender-config" },
	{ "No MX found for domain", "networkerror", 1, "retry" },
	{ "No MX found for destination", "networkerror", 1, "retry" },
	{ "Destination seem to reject all mails", "networkerror", 1, "retry" },
	{ "No valid route to remote MX", "networkerror", 1, "retry" },
	{ "No valid route to destination", "networkerror", 1, "retry" },
	{ "Address family mismatch on destination MXs", "networkerror", 1, "retry" },
	{ "All routes to destination blocked", "networkerror", 1, "retry" },
	/* qmail-local's set-up checks */
	{ "Uh-oh: .qmail file is writable. (#4.7.0)", "systemerror", 1, "retry" },
	{ "Uh-oh: home directory is writable. (#4.7.0)", "systemerror", 1, "retry" },
	{ "Uh-oh: .qmail has prog delivery but has x bit set. (#4.7.0)", "systemerror", 1, "retry" },
	{ "Home directory is sticky: user is editing his .qmail file. (#4.2.1)", NULL, 1, "retry" },
	{ "Unable to chdir to maildir.", "systemerror", -1, NULL },
	/* OpenSMTPD lka_session.c, Dovecot lmtp-proxy.c */
	{ "Mailing list expansion problem", "systemerror", -1, NULL },
	{ "554 5.4.6 <ann@example.net> Proxying loops to itself", "systemerror", 0, "contact-recipient-admin" },
	{ "554 5.4.6 <ann@example.net> Proxying appears to be looping (TTL=0)", "systemerror", 0, "contact-recipient-admin" },
	/* Postfix local: a mailbox path that is not a file */
	{ "cannot update mailbox /var/mail/ann for user ann. destination /var/mail/ann is not a regular file", "mailererror", 0, "contact-recipient-admin" },
	/* a loop the sending MTA found itself is not retried (RFC 5321 6.3) ... */
	{ "mail for mx.example.net loops back to myself", "systemerror", 0, "contact-recipient-admin" },
	{ "mail forwarding loop for ann@example.net", NULL, 0, "contact-recipient-admin" },
	{ "Loop detected", NULL, 0, "contact-recipient-admin" },
	/* ... while a word that only holds "loop" says nothing of one */
	{ "alias database unavailable (loopback lookup)", "systemerror", 1, "retry" },
};

static void test_mta(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(mta) / sizeof(mta[0]); i++) {
		const row *t = &mta[i];
		smtpdiag_explanation *e = NULL;
		smtpdiag_error err = { 0, "" };

		if (smtpdiag_explain(t->text, strlen(t->text), SMTPDIAG_EXPLAIN_TEXT, &e, &err) != 0) {
			print_error("'%s': not explained (%s)\n", t->text, err.message);
			bad++;
			continue;
		}
		if ((t->reason && strcmp(e->reason, t->reason) != 0) || (t->retry >= 0 && e->retry != t->retry) ||
		    (t->advice && strcmp(e->advice, t->advice) != 0)) {
			print_error("'%s' -> %s retry=%d %s, want %s retry=%d %s\n", t->text, e->reason, e->retry,
				    e->advice, t->reason ? t->reason : "-", t->retry, t->advice ? t->advice : "-");
			bad++;
		}
		smtpdiag_explanation_free(e);
	}
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mta),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
