/* test_rules_servers.c - the reason rules of rules/servers.rules: the fixed
 * replies of Cyrus IMAP's LMTP, Stalwart, maddy, chasquid, Apache James and
 * Dovecot's LMTP, read as a postmaster would by the kind of failure (a malformed recipient, a
 * disabled mailbox, the system's storage, broken framing, a recipient limit, a
 * relay refusal, authentication required), with their codes and without, and
 * texts with some of the same words that are another failure. Every line is
 * written for this test in the shape the named server uses; the addresses are
 * documentation ones. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "verdict/classify.h"
#include "verdict/verdict.h"
#include "smtpdiag.h"
#include "rules_rows.h"

/* One line or more for each rule of servers.rules, in its order. */
static const row replies[] = {
	/* a malformed recipient address (chasquid, Stalwart, James) */
	{ "501 5.1.3 Malformed destination address", "userunknown" },
	{ "Bad recipient address syntax", "userunknown" },
	{ "550 5.1.3 Destination address is invalid", "userunknown" },
	{ "Recipient address is malformed", "userunknown" },
	{ "553 5.1.3 Syntax error in recipient address", "userunknown" },
	/* Dovecot's LMTP */
	{ "550 5.1.1 <ann@example.net> User doesn't exist: ann@example.net", "userunknown" },
	{ "User doesn't exist: ann", "userunknown" },
	/* a sender that is no address (chasquid) */
	{ "501 5.1.8 Sender address must contain a domain", "rejected" },
	{ "Sender address is malformed", "rejected" },
	/* delivery to the mailbox switched off (Cyrus) */
	{ "451 4.2.1 Delivery to mailbox is disabled", "suspend" },
	{ "Mailbox has been disabled", "suspend" },
	/* the mailbox's own access list (Cyrus) */
	{ "550-You do not have permission to post a message to this mailbox.\n550 5.7.1 Permission denied", "filtered" },
	{ "You don't have permission to post to this folder", "filtered" },
	/* the system's storage (Cyrus) */
	{ "451 4.3.1 mail system storage has been exceeded", "systemfull" },
	{ "system storage is exceeded", "systemfull" },
	/* the receiving system's own state */
	{ "451 4.3.0 System I/O error", "systemerror" },
	{ "High load, try again later", "systemerror" },
	{ "Temporary error checking address", "systemerror" },
	{ "Unable to verify address at this time.", "systemerror" },
	{ "Mailbox has been moved to another server", "systemerror" },
	{ "451 4.3.0 <ann@example.net> Temporary internal error", "systemerror" },
	{ "Temporary internal error", "systemerror" },
	/* framing the RFCs forbid (Cyrus, James, Stalwart) */
	{ "554 5.6.0 Message contains bare newlines", "notcompliantrfc" },
	{ "Message contains bare carriage returns", "notcompliantrfc" },
	{ "554 5.6.0 Message contains NUL characters", "notcompliantrfc" },
	{ "Message contains non-ASCII characters in headers", "notcompliantrfc" },
	{ "554 5.6.0 Message has no header/body separator", "notcompliantrfc" },
	{ "500 5.0.0 line delimiter must be CRLF", "notcompliantrfc" },
	{ "Line is too long.", "notcompliantrfc" },
	/* the size limit with the sizes written in (Cyrus) */
	{ "552 5.2.3 Message size (52428800) exceeds fixed maximum message size (26214400)", "emailtoolarge" },
	{ "Message size (52428800) exceeds the maximum", "emailtoolarge" },
	{ "552 5.2.3 Message size exceeds administrative limit", "emailtoolarge" },
	{ "Message size exceeds the administrative limit", "emailtoolarge" },
	/* counts the server keeps (James, Stalwart) */
	{ "452 4.5.3 Requested action not taken: max recipients reached", "ratelimited" },
	{ "Maximum number of recipients exceeded", "ratelimited" },
	{ "452 4.4.5 Rate limit exceeded, try again later.", "ratelimited" },
	/* relaying (Stalwart, chasquid) */
	{ "550 5.1.2 Relay not allowed.", "norelaying" },
	{ "Relaying is not allowed", "norelaying" },
	/* authentication (Stalwart, chasquid, James) */
	{ "503 5.5.1 You must authenticate first.", "securityerror" },
	{ "You must first authenticate", "securityerror" },
	{ "550 5.7.9 Mail to submission port must be authenticated", "securityerror" },
	{ "535 5.7.8 Incorrect user or password", "securityerror" },
	{ "Incorrect login or password", "securityerror" },
	{ "503 5.7.1 Incorrect Authentication for Specified Email Address", "securityerror" },
	{ "You are not allowed to send from this address.", "securityerror" },
	/* reverse DNS (maddy, Stalwart) */
	{ "550 5.7.25 rDNS name does not match source hostname", "requireptr" },
	{ "550 5.7.25 Reverse DNS validation failed.", "requireptr" },
	/* DKIM (maddy, Stalwart) */
	{ "No passing DKIM signatures", "authfailure" },
	{ "451 4.7.20 No passing DKIM signatures found.", "authfailure" },
	/* the client's IP refused unless it authenticates (James) */
	{ "550 5.7.1 Rejected: unauthenticated e-mail from 198.51.100.23 is restricted.  Contact the postmaster for details.", "blocked" },
	{ "Mail from [198.51.100.23] is refused", "blocked" },
};

/* Replies with some of the same words that are another failure. */
static const row others[] = {
	/* a domain named, not an IP: the sender's DMARC */
	{ "550 5.7.26 Unauthenticated email from example.com is not accepted due to domain's DMARC policy", "authfailure" },
	/* the mailbox's quota, not the system's storage */
	{ "452 4.2.2 Over quota SESSIONID=<cyrus-77-1700000000-1-42>", "mailboxfull" },
	/* an unknown user stays that */
	{ "550 5.1.1 Mailbox does not exist", "userunknown" },
	/* a Postfix relay refusal */
	{ "554 5.7.1 <ann@example.net>: Relay access denied", "norelaying" },
	/* a status that names the failure stays first: 5.3.4 is the message's size,
	 * 5.5.4 the command's arguments (Stalwart's wordings of both) */
	{ "554 5.3.4 Line is too long.", "emailtoolarge" },
	{ "501 5.5.4 You are not allowed to send from this address.", "syntaxerror" },
	/* greylisting is a deferral whatever mailbox status it carries (Stalwart
	 * answers it with 4.2.2); a full mailbox with the same status stays that */
	{ "452 4.2.2 Greylisted, please try again in a few moments.", "blocked" },
	{ "452 4.2.2 Mailbox full, try again later", "mailboxfull" },
	/* a provider's own rate phrase, not the system's load */
	{ "421 4.7.0 Rate limited due to IP reputation", "badreputation" },
};

/* Each reply holds a phrase of the reason it is read as. */
static void test_phrases(void **state)
{
	(void)state;
	assert_int_equal(rr_missing_phrases(replies, sizeof(replies) / sizeof(replies[0])), 0);
}

/* explain explains every reply, with or without a code, as its reason: the
 * phrase decides where the status says another thing (5.1.2 of a relay
 * refusal, 4.5.3 of a recipient limit, 5.5.1 of missing authentication). */
static void test_verdicts(void **state)
{
	(void)state;
	assert_int_equal(rr_wrong_reasons(replies, sizeof(replies) / sizeof(replies[0])), 0);
}

static void test_others(void **state)
{
	(void)state;
	assert_int_equal(rr_wrong_reasons(others, sizeof(others) / sizeof(others[0])), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_phrases),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_others),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
