/* test_reply.c - reply grammar, status grammar, and finding codes in text. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <unistd.h>

#include "smtp/reply.h"
#include "smtpdiag.h"

static void test_status_parse(void **state)
{
	static const struct {
		const char *in;
		size_t consumed;
		int cls, sub, det;
	} t[] = {
		{ "5.1.1", 5, 5, 1, 1 },
		{ "4.7.500", 7, 4, 7, 500 },
		{ "2.0.0 ok", 5, 2, 0, 0 },
		{ "5.1.1.1", 0, 0, 0, 0 },      /* an IP address, not a status */
		{ "5.1.1234", 0, 0, 0, 0 },     /* detail of four digits */
		{ "5.1", 0, 0, 0, 0 },
		{ "5..1", 0, 0, 0, 0 },
		{ "5.1.1a", 0, 0, 0, 0 },
		{ "6.1.1", 5, 6, 1, 1 },        /* parsed; callers reject class 6 */
		{ "5.123.456", 9, 5, 123, 456 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		sd_status st;
		size_t n = sd_status_parse(t[i].in, strlen(t[i].in), &st);
		assert_int_equal(n, t[i].consumed);
		if (n) {
			assert_int_equal(st.cls, t[i].cls);
			assert_int_equal(st.subject, t[i].sub);
			assert_int_equal(st.detail, t[i].det);
		}
	}
}

static void test_reply_parse(void **state)
{
	static const struct {
		const char *in;
		int rc, code;
		const char *status, *text;
	} t[] = {
		{ "550 5.1.1 User unknown", 0, 550, "5.1.1", "User unknown" },
		{ "550-5.1.1 The email account that you tried to reach does not exist.\r\n"
		  "550-5.1.1 Please try double-checking the recipient's email\r\n"
		  "550 5.1.1 address for typos.", 0, 550, "5.1.1",
		  "The email account that you tried to reach does not exist. Please try double-checking the recipient's email address for typos." },
		{ "421 Service not available\n", 0, 421, "", "Service not available" },
		{ "250 OK", 0, 250, "", "OK" },
		{ "550-first\n451 second", SMTPDIAG_EPARSE, 0, "", "" },  /* codes differ */
		{ "hello world", SMTPDIAG_EPARSE, 0, "", "" },
		{ "55 short", SMTPDIAG_EPARSE, 0, "", "" },
		{ "550x no space", SMTPDIAG_EPARSE, 0, "", "" },
		{ "550 5.1.1 done\nextra line", SMTPDIAG_EPARSE, 0, "", "" },
		{ "452 4.3.1 Insufficient system resources", 0, 452, "4.3.1", "Insufficient system resources" },
		/* blank lines of every line-end form before, between and after */
		{ "\n\n550 x", 0, 550, "", "x" },
		{ "\n\n\n\n550 x\n\n", 0, 550, "", "x" },
		{ "\r\n\r\n550 x", 0, 550, "", "x" },
		{ "\r\r550 x", 0, 550, "", "x" },
		{ "\n\r\n\r550 x", 0, 550, "", "x" },
		{ "550-a\n\n550 b", 0, 550, "", "a b" },
		{ "550-a\r\n\r\n\r\n550 b\r\n", 0, 550, "", "a b" },
		{ "\n\n", SMTPDIAG_EPARSE, 0, "", "" },
		{ "\n", SMTPDIAG_EPARSE, 0, "", "" },
		{ "\n\nhello", SMTPDIAG_EPARSE, 0, "", "" },
	};

	(void)state;
	alarm(10); /* a cursor that stops on a blank line never returns: fail, not hang */
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		sd_reply r;
		sd_buf text;
		sd_buf_init(&text);
		int rc = sd_reply_parse(t[i].in, strlen(t[i].in), &r, &text);
		assert_int_equal(rc, t[i].rc);
		if (rc == 0) {
			assert_int_equal(r.code, t[i].code);
			assert_string_equal(r.status.text, t[i].status);
			assert_string_equal(sd_buf_cstr(&text), t[i].text);
		}
		sd_buf_free(&text);
	}
	alarm(0);
}

static void test_find_codes(void **state)
{
	static const struct {
		const char *in;
		int replycode;       /* of the picked pair, 0 none */
		const char *status;  /* of the picked pair */
		size_t count;
	} t[] = {
		{ "host mx.example.com[192.0.2.1] said: 550 5.1.1 <a@example.com>: Recipient address rejected", 550, "5.1.1", 1 },
		{ "Diagnostic-Code: smtp; 552 4.3.1 Mailbox full", 552, "4.3.1", 1 },
		{ "Jan 12 10:11:12 host postfix/smtp[1234]: 4ABC123: to=<a@b.c>, relay=x[192.0.2.1]:25, delay=1.2, dsn=4.2.2, status=deferred", 0, "4.2.2", 1 },
		{ "Date: Mon, 21 Apr 2025 10:11:12 +0900", 0, "", 0 },
		{ "Postfix 3.5.6 on 10.1.1.1 port 587 and 465", 0, "", 0 },
		{ "Exim version 4.94.2 rejected", 0, "", 0 },
		{ "queue id 550AB12 and 2025-05-12", 0, "", 0 },
		{ "250 2.0.0 OK then 451 4.7.1 greylisted", 451, "4.7.1", 2 },
		{ "#5.1.1 no such user", 0, "5.1.1", 1 },
		{ "421 4.7.0 [TSS04] Messages from 192.0.2.1 temporarily deferred", 421, "4.7.0", 1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		sd_found f[16];
		size_t n = sd_find_codes(t[i].in, strlen(t[i].in), f, 16);
		int k = sd_pick_code(f, n);
		assert_int_equal(n, t[i].count);
		if (t[i].count == 0) {
			assert_int_equal(k, -1);
			continue;
		}
		assert_true(k >= 0);
		assert_int_equal(f[k].replycode, t[i].replycode);
		assert_string_equal(f[k].status.text, t[i].status);
	}
}

/* The code finder every caller asks (sd_text_status(), sd_text_reply()): what
 * is a status or a reply code in free text, and what only looks like one. */
static void test_text_codes(void **state)
{
	static const struct {
		const char *in;
		const char *status; /* sd_text_status(in, 0) */
		int reply;          /* sd_text_reply(in, 0) */
	} t[] = {
		/* a reply and its status, as MTAs write and fold them */
		{ "550 5.1.1 <a@b.example>: Recipient address rejected", "5.1.1", 550 },
		{ "550-5.1.1 The email account\n550 5.1.1 does not exist", "5.1.1", 550 },
		{ "host mx.b.example[192.0.2.1] said: 550\n    5.1.1 <a@b.example>: Recipient address rejected", "5.1.1", 550 },
		{ "host mx.b.example[192.0.2.1] said: 550\r\n\t5.1.1 no such user", "5.1.1", 550 },
		{ "SMTP error from remote mail server after RCPT TO:<a@b.example>: 550 5.1.1 No such user", "5.1.1", 550 },
		{ "mail server 452 4.2.2 over quota", "4.2.2", 452 },
		{ "431 4.3.1 STOREDRV; mailbox disk is full", "4.3.1", 431 },
		{ "550 5.1.10 RESOLVER.ADR.RecipientNotFound", "5.1.10", 550 },
		{ "421 4.7.0 [TSS04] Messages from 192.0.2.1 temporarily deferred", "4.7.0", 421 },
		{ "Sorry, no mailbox here by that name. (#5.1.1)", "5.1.1", 0 },
		{ "dsn=4.2.2, status=deferred", "4.2.2", 0 },
		{ "status:5.1.1 unknown", "5.1.1", 0 },
		{ "at 12:30:45 5.7.1 denied", "5.7.1", 0 },
		{ "554 5.0.0 then 550 5.7.1 policy", "5.7.1", 550 },     /* X.0.0 says least */
		{ "4.4.7 expired after 4.4.1 timeouts", "4.4.1", 0 },    /* 4.4.7 only that it gave up */
		/* not a status, not a reply code */
		{ "550 upgrade your client to version 5.1.1 first", "", 550 },
		{ "Postfix version 4.2.1 here", "", 0 },
		{ "running ver 5.1.1 now", "", 0 },
		{ "v5.1.1 released", "", 0 },
		{ "release 4.2.2 of foo", "", 0 },
		{ "relay 10.4.4.1 answered", "", 0 },
		{ "from 192.0.2.1 port 465", "", 0 },
		{ "on 4.5.23 10:30 the host", "", 0 },
		{ "2025-05-12 12:30:45 connection lost", "", 0 },
		{ "disk 95.1.1% used", "", 0 },
		{ "quota 2.5.1 MB", "", 0 },
		{ "size 5.2.100 bytes", "", 0 },
		{ "Message-ID: <5.1.1@host.example>", "", 0 },
		{ "queue id 550AB12 deferred", "", 0 },
		{ "5.01.1 and 5.1.01", "", 0 },                          /* no leading zeros */
		{ "6.1.1 and 3.1.1", "", 0 },                            /* class 2, 4 or 5 only */
		{ "X-Unix; 550 local mailer exit", "", 0 },              /* a mailer's exit code */
		{ "greylisted for 450 seconds", "", 0 },                 /* a count before a quantity word */
		{ "after 421 attempts and 550 messages", "", 0 },
		{ "550 seconds later", "", 0 },
		{ "550 5.7.1 rate over 500 recipients", "5.7.1", 550 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char st[SD_STATUS_MAX];
		sd_text_status(t[i].in, strlen(t[i].in), 0, st);
		if (strcmp(st, t[i].status) || sd_text_reply(t[i].in, strlen(t[i].in), 0) != t[i].reply)
			fail_msg("row %zu \"%s\": status \"%s\" reply %d, want \"%s\" %d", i, t[i].in, st,
				 sd_text_reply(t[i].in, strlen(t[i].in), 0), t[i].status, t[i].reply);
	}
}

static void test_replycode_valid(void **state)
{
	(void)state;
	assert_true(sd_replycode_valid(250));
	assert_true(sd_replycode_valid(554));
	assert_false(sd_replycode_valid(599)); /* RFC 5321: second digit 0-5 */
	assert_false(sd_replycode_valid(199));
	assert_false(sd_replycode_valid(600));
	assert_false(sd_replycode_valid(587));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_parse),
		cmocka_unit_test(test_reply_parse),
		cmocka_unit_test(test_find_codes),
		cmocka_unit_test(test_text_codes),
		cmocka_unit_test(test_replycode_valid),
	};
	return cmocka_run_group_tests_name("reply", tests, NULL, NULL);
}
