/* test_formats_provider.c - the provider format modules (Gmail, Yahoo, Amazon
 * SES, Exchange, ...) on small hand-written bounces in tests/fixtures/provider
 * (cmocka, table-driven). Run from the repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "smtpdiag.h"

#define FIXTURES "tests/fixtures/provider/"
#define MAX_FIXTURE (1u << 20)

/* One expected verdict; NULL fields are not checked. */
typedef struct want {
	const char *file;
	int index;             /* position among the email's verdicts */
	const char *recipient;
	const char *status;
	const char *replycode;
	const char *diag;      /* a substring of diagnosticcode */
	const char *reason;    /* only where the format itself states it */
	const char *decodedby;
} want;

static const want cases[] = {
	{ "yahoo.eml", 0, "nobody-here@example.org", "5.1.1", "550", "No such user", NULL, "yahoo" },
	{ "yahoo.eml", 1, "full-box@example.org", "5.2.2", "552", "Mailbox over quota", NULL, "yahoo" },
	{ "gmail.eml", 0, "ghost@example.jp", "5.1.1", "550", "User unknown in local recipient table", NULL, "gmail" },
	{ "googlegroups.eml", 0, "closed-club@googlegroups.com", NULL, "", "may not exist", "rejected",
	  "googlegroups" },
	{ "mailru.eml", 0, "hare@example.com", "5.1.1", "550", "user unknown", NULL, "mailru" },
	{ "ezweb.eml", 0, "no-such-box@ezweb.ne.jp", NULL, "550", "User unknown", "userunknown", "ezweb" },
	{ "kddi.eml", 0, "inu@a0000000000000.dion.ne.jp", NULL, "", "mailbox is full", "mailboxfull", "kddi" },
	{ "exchange2003.eml", 0, "tora@example.com", NULL, "", "000C05A6", "userunknown", "exchange2003" },
	{ "exchange2007.eml", 0, "kuma@example.org", "5.1.1", "550", "RESOLVER.ADR.RecipNotFound", "userunknown",
	  "exchange2007" },
	/* the same report in German and French: the headings in the sender's language */
	{ "exchange2007-de.eml", 0, "bernd@kunde.example", "5.1.1", "550", "Recipient address rejected",
	  "userunknown", "exchange2007" },
	{ "exchange2007-fr.eml", 0, "didier@plein.example", "5.2.2", "552", "mailbox full", "mailboxfull",
	  "exchange2007" },
	{ "office365.eml", 0, "shika@contoso.example.com", "5.1.10", "550", "RecipientNotFound", "userunknown",
	  "office365" },
	{ "outlook.eml", 0, "saru@example.net", "5.5.0", "554", "domain is not reachable", "hostunknown", "outlook" },
	{ "zoho.eml", 0, "usagi@example.co.jp", "5.1.1", "550", "User Unknown", NULL, "zoho" },
	{ "gmx.eml", 0, "hebi@example.jp", "5.2.2", "550", "Mailbox full", NULL, "gmx" },
	{ "einsundeins.eml", 0, "uma@example.org", NULL, "", "Mail size limit exceeded", "emailtoolarge",
	  "einsundeins" },
	{ "verizon.eml", 0, "2025550100@vtext.com", NULL, "550", "no such user here", "userunknown", "verizon" },
	{ "amazonses.eml", 0, "ookami@example.com", "4.4.2", "421", "Message expired", "expired", "amazonses" },
	{ "amazonses-sns.eml", 0, "yagi@example.org", "5.1.1", "550", "User unknown", NULL, "amazonses" },
	{ "amazonworkmail.eml", 0, "niwatori@example.jp", "5.2.2", "550", "Mailbox Full", NULL, "amazonworkmail" },
	{ "receivingses.eml", 0, "inoshishi@example.jp", "5.3.4", "552", "Message too large", "emailtoolarge",
	  "receivingses" },
	{ "sendgrid.eml", 0, "tori@example.org", NULL, "", "Connection timed out", "expired", "sendgrid" },
	{ "mimecast.eml", 0, "kame@example.net", "5.1.1", "550", "unknown mailbox", NULL, "mimecast" },
};

/* Emails with this many verdicts (0: not a bounce). */
static const struct {
	const char *file;
	int n;
} counts[] = {
	{ "yahoo.eml", 2 }, { "gmail.eml", 1 }, { "googlegroups.eml", 1 }, { "amazonses-sns.eml", 1 },
	{ "exchange2003.eml", 1 }, { "not-a-bounce.eml", 0 },
};

static char *slurp(const char *name, size_t *n)
{
	char path[256];
	FILE *f;
	char *buf = malloc(MAX_FIXTURE);

	snprintf(path, sizeof(path), FIXTURES "%s", name);
	f = fopen(path, "rb");
	if (!f || !buf) {
		free(buf);
		if (f)
			fclose(f);
		fail_msg("cannot read %s", path);
		return NULL;
	}
	*n = fread(buf, 1, MAX_FIXTURE, f);
	fclose(f);
	return buf;
}

static int decode_file(smtpdiag_decoder *d, const char *name)
{
	size_t n = 0;
	char *buf = slurp(name, &n);
	int rc = smtpdiag_decode(d, buf, n, name, NULL);

	free(buf); /* facts point into the decoder's arena, not into buf */
	return rc;
}

static int failures;

static void check_str(const want *w, const char *field, const char *got, const char *exp)
{
	if (exp && strcmp(got, exp) != 0) {
		print_error("%s #%d %s: got '%s', want '%s'\n", w->file, w->index, field, got, exp);
		failures++;
	}
}

static void test_verdicts(void **state)
{
	smtpdiag_decoder *d = smtpdiag_decoder_new(0);

	(void)state;
	assert_non_null(d);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const want *w = &cases[i];
		int n = decode_file(d, w->file);
		const smtpdiag_fact *f;

		if (n <= w->index) {
			print_error("%s: %d verdicts, want more than %d\n", w->file, n, w->index);
			failures++;
			continue;
		}
		f = smtpdiag_decoder_fact(d, (size_t)w->index);
		check_str(w, "recipient", f->recipient, w->recipient);
		check_str(w, "status", f->deliverystatus, w->status);
		check_str(w, "replycode", f->replycode, w->replycode);
		check_str(w, "reason", f->reason, w->reason);
		check_str(w, "decodedby", f->decodedby, w->decodedby);
		if (w->diag && !strstr(f->diagnosticcode, w->diag)) {
			print_error("%s #%d diagnosticcode '%s' lacks '%s'\n", w->file, w->index,
				    f->diagnosticcode, w->diag);
			failures++;
		}
	}
	smtpdiag_decoder_free(d);
	assert_int_equal(failures, 0);
}

static void test_counts(void **state)
{
	smtpdiag_decoder *d = smtpdiag_decoder_new(0);

	(void)state;
	assert_non_null(d);
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		int n = decode_file(d, counts[i].file);
		if (n != counts[i].n)
			fail_msg("%s: %d verdicts, want %d", counts[i].file, n, counts[i].n);
	}
	smtpdiag_decoder_free(d);
}

/* A complaint and a delivery notice from SES, built in memory. */
static void test_ses_json(void **state)
{
	static const char complaint[] =
		"From: no-reply@sns.amazonaws.com\nSubject: AWS Notification Message\n"
		"x-amz-sns-message-id: 1\n\n"
		"{\"notificationType\":\"Complaint\",\"complaint\":{\"complainedRecipients\":[{\"emailAddress\":\"ka"
		"!\n ni@example.org\"}],\"complaintFeedbackType\":\"abuse\"},\"mail\":{\"source\":\"t@example.net\"}}\n";
	static const char delivery[] =
		"From: no-reply@sns.amazonaws.com\nSubject: AWS Notification Message\n"
		"x-amz-sns-message-id: 2\n\n"
		"{\"notificationType\":\"Delivery\",\"delivery\":{\"recipients\":[\"ok@example.org\"],"
		"\"smtpResponse\":\"250 2.6.0 Message received\",\"reportingMTA\":\"a1.example.com\"}}\n";
	smtpdiag_decoder *d = smtpdiag_decoder_new(SMTPDIAG_DECODE_DELIVERED);
	const smtpdiag_fact *f;

	(void)state;
	assert_non_null(d);
	assert_int_equal(smtpdiag_decode(d, complaint, sizeof(complaint) - 1, NULL, NULL), 1);
	f = smtpdiag_decoder_fact(d, 0);
	assert_string_equal(f->recipient, "kani@example.org"); /* "!\n " folding undone */
	assert_string_equal(f->reason, "feedback");
	assert_string_equal(f->feedbacktype, "abuse");
	assert_int_equal(smtpdiag_decode(d, delivery, sizeof(delivery) - 1, NULL, NULL), 1);
	f = smtpdiag_decoder_fact(d, 0);
	assert_string_equal(f->recipient, "ok@example.org");
	assert_string_equal(f->reason, "delivered");
	assert_string_equal(f->replycode, "250");
	smtpdiag_decoder_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_ses_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
