/* test_rules_services.c - the reason rules of rules/services.rules: what sending
 * services write when they did not send a message (a suppressed address, the
 * sender's quota or account, an unverified sender) read as a postmaster would,
 * with or without a reply code, and texts of receiving servers with the same
 * words that are no suppression notice. Every line is written for this test in
 * the shape the named service uses; the addresses are documentation ones. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "verdict/classify.h"
#include "verdict/verdict.h"
#include "smtpdiag.h"
#include "rule_rows.h"

/* One line or more for each rule of services.rules, in its order. */
static const row notices[] = {
	/* a suppression list, by any name and owner */
	{ "Reject: the recipient is on a suppression list for this domain", "suppressed" },
	{ "Held: Recipient (jo@example.org) is on the suppression list (reason: too many hard fails)", "suppressed" },
	{ "Not sent: the address is in your account's suppressions list", "suppressed" },
	{ "Not sent: jo@example.org is on the bounce list of this domain", "suppressed" },
	{ "Skipped: the address is on your unsubscribe list", "suppressed" },
	{ "The recipient is on the account's opt-out list", "suppressed" },
	{ "Not sent: manually suppressed address", "suppressed" },
	{ "{\"bounceType\": \"Permanent\", \"bounceSubType\": \"OnAccountSuppressionList\"}", "suppressed" },
	{ "{\"complaintSubType\": \"OnAccountSuppressionList\"}", "suppressed" },
	{ "{\"bounceType\": \"Permanent\", \"bounceSubType\": \"Suppressed\"}", "suppressed" },
	{ "Skipped: jo@example.org is on the do-not-send list of this account", "suppressed" },
	{ "blocked: contact is blacklisted", "suppressed" },
	{ "Not sent: the recipient is block-listed", "suppressed" },
	{ "Message not sent to a blocklisted contact", "suppressed" },
	{ "Address blacklisted", "suppressed" },
	{ "MessageRejected: Address blacklisted.", "suppressed" },
	/* the address's history as the reason not to send */
	{ "Skipped: this address previously hard-bounced", "suppressed" },
	{ "605 Not delivering to previously bounced address", "suppressed" },
	{ "Not sent: the recipient has bounced before", "suppressed" },
	{ "Not sent: the address has a history of hard bounces", "suppressed" },
	{ "Not sent: a spam complaint was received from this recipient", "suppressed" },
	{ "Contact flagged as spam", "suppressed" },
	{ "Not sent: the user marked your messages as junk", "suppressed" },
	{ "Not sent: the recipient previously complained", "suppressed" },
	{ "Contact unsubscribed via email", "suppressed" },
	{ "Unsubscribed Group", "suppressed" },
	{ "Dropped: Unsubscribed Group", "suppressed" },
	{ "Not sent to suppressed address jo@example.org", "suppressed" },
	{ "Dropped: Spam Reporting Address", "suppressed" },
	{ "Message not sent to inactive recipients", "suppressed" },
	{ "The recipient was marked as inactive after repeated hard bounces", "suppressed" },
	{ "The destination address is suppressed", "suppressed" },
	{ "Dropped: Bounced Address", "suppressed" },
	{ "{\"email\": \"not an email address\", \"reason\": \"Invalid\", \"event\": \"dropped\"}", "suppressed" },
	{ "{\"event\": \"dropped\", \"email\": \"not an email address\", \"reason\": \"Invalid\"}", "suppressed" },
	/* an event's reason token */
	{ "\"reason\": \"suppress-bounce\", \"severity\": \"permanent\"", "suppressed" },
	{ "\"reason\": \"suppress-unsubscribe\", \"severity\": \"permanent\"", "suppressed" },
	{ "\"reason\": \"suppress-complaint\", \"severity\": \"permanent\"", "suppressed" },
	{ "{\"email\": \"jo@example.org\", \"status\": \"rejected\", \"reject_reason\": \"custom\"}", "suppressed" },
	{ "{\"email\": \"jo@example\", \"status\": \"rejected\", \"reject_reason\": \"invalid\"}", "suppressed" },
	{ "{\"email\": \"jo@example.org\", \"reason\": {\"code\": \"adminBlocked\", \"message\": \"Admin blocked\"}}", "suppressed" },
	{ "{\"email\": \"jo@example.org\", \"reason\": {\"code\": \"unsubscribedViaApi\"}}", "suppressed" },
	{ "{\"DeliveryStatus\": \"OPT_OUT\"}", "suppressed" },
	{ "The user associated with this endpoint has opted out of receiving messages from you", "suppressed" },
	{ "Not sent to opted-out recipient jo@example.org", "suppressed" },
	{ "jo@example.org is in a compliance state due to unsubscribe, bounce, or compliance review", "suppressed" },
	/* the sender's own rate or quota at the service */
	{ "Throttling: Maximum sending rate exceeded.", "ratelimited" },
	{ "ThrottlingException: Daily message quota exceeded", "ratelimited" },
	{ "454 Throttling failure: Daily message quota exceeded.", "ratelimited" },
	{ "Hourly sending limit reached for this account", "ratelimited" },
	{ "Domain mg.example.com is not allowed to send: recipient limit exceeded, try again after Mon, 25 Aug 2025 07:00:31 UTC", "ratelimited" },
	{ "Throttling failure", "ratelimited" },
	{ "{\"email\": \"jo@example.org\", \"status\": \"rejected\", \"reject_reason\": \"test-mode-limit\"}", "ratelimited" },
	{ "451 Authentication failed: Maximum credits exceeded", "ratelimited" },
	{ "{\"DeliveryStatus\": \"THROTTLED\"}", "ratelimited" },
	/* the sender's account, domain or identity at the service */
	{ "AccountSendingPausedException: Email sending is disabled for your entire Amazon SES account.", "rejected" },
	{ "Email sending is disabled for the configuration set.", "rejected" },
	{ "ConfigurationSetSendingPausedException", "rejected" },
	{ "550 5.7.1 Sending blocked: your account is under review for suspicious activity", "rejected" },
	{ "Sandbox subdomains are for test purposes only. Please add your own domain.", "rejected" },
	{ "Please add the address to authorized recipients in Account Settings.", "rejected" },
	{ "Suspension: the email was sent from an unverified domain", "rejected" },
	{ "MailFromDomainNotVerifiedException", "rejected" },
	{ "Amazon SES could not read the MX record required to use the specified MAIL FROM domain.", "rejected" },
	{ "{\"email\": \"jo@example.org\", \"status\": \"rejected\", \"reject_reason\": \"invalid-sender\"}", "rejected" },
	{ "550 The from address does not match a verified Sender Identity.", "rejected" },
	{ "{\"email\": \"jo@example.org\", \"status\": \"rejected\", \"reject_reason\": \"unsigned\"}", "authfailure" },
	{ "{\"email\": \"jo@example.org\", \"status\": \"rejected\", \"reject_reason\": \"rule\"}", "policyviolation" },
	{ "Dropped: Spam Content", "spamdetected" },
	{ "552 Transaction failed: Message length exceeds the maximum size allowed.", "emailtoolarge" },
	{ "554 Transaction failed: Missing final '@domain'", "syntaxerror" },
};

/* Receivers' replies with some of the same words: none is a suppression. */
static const row receivers[] = {
	{ "550 5.7.1 Your IP address has been blacklisted", "blocked" },
	{ "554 5.7.1 Your IP 192.0.2.1 is listed in a DNS blocklist", "blocked" },
	{ "552 5.2.2 Mailbox full: message quota exceeded", "mailboxfull" },
	{ "452 4.2.2 Quota exceeded (mailbox for user is full)", "mailboxfull" },
	{ "554 Your message was flagged as spam", "spamdetected" },
	{ "550 5.7.1 Message rejected as spam by Content Filtering", "spamdetected" },
	{ "550 5.1.1 Recipient address rejected: User unknown", "userunknown" },
	{ "550 5.2.1 The email account that you tried to reach is inactive", "suspend" },
	{ "550 5.2.2 Submission quota exceeded", "ratelimited" },
};

/* Each notice holds a phrase of the reason it is read as. */
static void test_phrases(void **state)
{
	(void)state;
	assert_int_equal(rr_check_phrases(notices, sizeof(notices) / sizeof(notices[0])), 0);
}

/* explain explains every notice, with or without a code, as its reason: a
 * suppression notice is suppressed whatever history of the address it names. */
static void test_verdicts(void **state)
{
	(void)state;
	assert_int_equal(rr_check_verdicts(notices, sizeof(notices) / sizeof(notices[0])), 0);
}

static void test_receivers(void **state)
{
	(void)state;
	assert_int_equal(rr_check_verdicts(receivers, sizeof(receivers) / sizeof(receivers[0])), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_phrases),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_receivers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
