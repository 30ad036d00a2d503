/* test_messages.c - the joiner (smtpdiag_joiner_*): its arguments, the counts,
 * the window, the batches of smtpdiag_joiner_finish(), a line without a
 * header the scanner read, and the ids of a Postfix message reused after it
 * was removed. Times are read as UTC against a fixed reference (2024-06-01). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "smtpdiag.h"
#include "scan/messages.h"

#define REF_2024_06_01 1717200000

typedef struct rig {
	smtpdiag_scanner *s;
	smtpdiag_joiner *j;
	smtpdiag_buf out;
} rig;

static void rig_new(rig *r, int64_t window)
{
	memset(r, 0, sizeof(*r));
	r->s = smtpdiag_scanner_new(SMTPDIAG_SCAN_UTC);
	assert_non_null(r->s);
	smtpdiag_scanner_reftime(r->s, REF_2024_06_01);
	r->j = smtpdiag_joiner_new(window);
	assert_non_null(r->j);
}

static void rig_free(rig *r)
{
	smtpdiag_joiner_free(r->j);
	smtpdiag_scanner_free(r->s);
	smtpdiag_buf_free(&r->out);
}

/* One line through the scanner and the joiner, as scan --messages does. */
static void feed(rig *r, const char *line)
{
	int rc = smtpdiag_scan_line(r->s, line, strlen(line));

	assert_int_equal(smtpdiag_joiner_line(r->j, r->s, rc, line, strlen(line)), 0);
	(void)smtpdiag_joiner_take(r->j, &r->out);
}

static size_t lines_of(const smtpdiag_buf *b)
{
	size_t k = 0;

	for (size_t i = 0; i < b->len; i++)
		k += b->data[i] == '\n';
	return k;
}

static void test_args(void **state)
{
	rig r;

	(void)state;
	assert_null(smtpdiag_joiner_new(-1));
	smtpdiag_joiner_free(NULL);
	assert_int_equal(smtpdiag_joiner_take(NULL, NULL), 0);
	assert_int_equal(smtpdiag_joiner_finish(NULL, NULL), 0);
	assert_int_equal(smtpdiag_joiner_count(NULL, SMTPDIAG_JOIN_LINES), 0);
	rig_new(&r, 0);
	assert_int_equal(smtpdiag_joiner_line(NULL, r.s, 0, "x", 1), SMTPDIAG_EINVAL);
	assert_int_equal(smtpdiag_joiner_line(r.j, NULL, 0, "x", 1), SMTPDIAG_EINVAL);
	assert_int_equal(smtpdiag_joiner_line(r.j, r.s, 0, NULL, 1), SMTPDIAG_EINVAL);
	assert_int_equal(smtpdiag_joiner_line(r.j, r.s, SMTPDIAG_ELIMIT, NULL, 0), 0);
	assert_int_equal(smtpdiag_joiner_count(r.j, SMTPDIAG_JOIN_LINES), 1);
	assert_int_equal(smtpdiag_joiner_count(r.j, (smtpdiag_join_counter)99), 0);
	rig_free(&r);
}

/* A message opened, then removed: one record, closed; the id used again is a new message. */
static void test_close_and_reuse(void **state)
{
	rig r;

	(void)state;
	rig_new(&r, 0);
	feed(&r, "Mar  3 08:00:01 mx1 postfix/smtpd[1]: 4B2F61C2A3: client=a.example[192.0.2.1]");
	assert_int_equal(smtpdiag_joiner_count(r.j, SMTPDIAG_JOIN_OPEN), 1);
	feed(&r, "Mar  3 08:00:02 mx1 postfix/smtp[2]: 4B2F61C2A3: to=<b@example.org>, relay=mx.example.org[203.0.113.5]:25, "
		 "delay=1, delays=0/0/0.5/0.5, dsn=2.0.0, status=sent (250 2.0.0 Ok)");
	assert_int_equal(r.out.len, 0);
	feed(&r, "Mar  3 08:00:02 mx1 postfix/qmgr[3]: 4B2F61C2A3: removed");
	assert_int_equal(lines_of(&r.out), 1);
	assert_non_null(strstr(r.out.data, "\"queueid\":\"4B2F61C2A3\",\"mta\":\"postfix\",\"host\":\"mx1\""));
	assert_non_null(strstr(r.out.data, "\"client\":\"a.example[192.0.2.1]\""));
	assert_non_null(strstr(r.out.data, "\"first\":1709452801,\"last\":1709452802,\"closed\":true,\"end\":\"removed\""));
	assert_non_null(strstr(r.out.data, "{\"recipient\":\"b@example.org\",\"final\":\"sent\",\"attempts\":1,"));
	assert_int_equal(smtpdiag_joiner_count(r.j, SMTPDIAG_JOIN_OPEN), 0);
	feed(&r, "Mar  3 09:00:01 mx1 postfix/smtpd[1]: 4B2F61C2A3: client=c.example[192.0.2.3]");
	assert_int_equal(smtpdiag_joiner_finish(r.j, &r.out), 1);
	assert_int_equal(lines_of(&r.out), 2);
	assert_non_null(strstr(r.out.data, "\"client\":\"c.example[192.0.2.3]\""));
	assert_non_null(strstr(r.out.data, "\"closed\":false,\"end\":\"input\""));
	assert_int_equal(smtpdiag_joiner_count(r.j, SMTPDIAG_JOIN_LINES), 4);
	assert_int_equal(smtpdiag_joiner_count(r.j, SMTPDIAG_JOIN_EMITTED), 2);
	assert_int_equal(smtpdiag_joiner_count(r.j, SMTPDIAG_JOIN_CLOSED), 1);
	assert_int_equal(smtpdiag_joiner_count(r.j, SMTPDIAG_JOIN_ATEND), 1);
	rig_free(&r);
}

/* The window counts log time from the first line. */
static void test_window(void **state)
{
	rig r;

	(void)state;
	rig_new(&r, 3600);
	feed(&r, "2024-03-03T08:00:00Z mx1 postfix/smtpd[1]: 1A1A1A1A1A: client=a.example[192.0.2.1]");
	feed(&r, "2024-03-03T09:00:00Z mx1 postfix/smtpd[1]: 2B2B2B2B2B: client=a.example[192.0.2.1]");
	assert_int_equal(r.out.len, 0); /* one hour: not past it */
	feed(&r, "2024-03-03T09:00:01Z mx1 postfix/smtpd[1]: 3C3C3C3C3C: client=a.example[192.0.2.1]");
	assert_int_equal(lines_of(&r.out), 1);
	assert_non_null(strstr(r.out.data, "\"queueid\":\"1A1A1A1A1A\""));
	assert_non_null(strstr(r.out.data, "\"closed\":false,\"end\":\"window\""));
	assert_int_equal(smtpdiag_joiner_count(r.j, SMTPDIAG_JOIN_WINDOWED), 1);
	assert_int_equal(smtpdiag_joiner_count(r.j, SMTPDIAG_JOIN_OPEN), 2);
	rig_free(&r);
}

/* More open messages than a batch: finish() gives them a batch at a time. */
static void test_finish_batches(void **state)
{
	rig r;
	char line[160];
	long got, total = 0;
	int calls = 0;

	(void)state;
	rig_new(&r, 0);
	for (int i = 0; i < SMTPDIAG_JOIN_BATCH + 5; i++) {
		snprintf(line, sizeof(line), "2024-03-03T08:00:00Z mx1 postfix/smtpd[1]: %010X: client=a.example[192.0.2.1]",
			 0x1000 + i);
		feed(&r, line);
	}
	assert_int_equal(smtpdiag_joiner_count(r.j, SMTPDIAG_JOIN_OPEN), SMTPDIAG_JOIN_BATCH + 5);
	while ((got = smtpdiag_joiner_finish(r.j, &r.out)) > 0) {
		assert_true(got <= SMTPDIAG_JOIN_BATCH);
		total += got;
		calls++;
	}
	assert_int_equal(calls, 2);
	assert_int_equal(total, SMTPDIAG_JOIN_BATCH + 5);
	assert_int_equal(lines_of(&r.out), SMTPDIAG_JOIN_BATCH + 5);
	assert_int_equal(smtpdiag_joiner_count(r.j, SMTPDIAG_JOIN_ATEND), SMTPDIAG_JOIN_BATCH + 5);
	rig_free(&r);
}

/* A line the scanner was not given (its envelope is read by the joiner itself). */
static void test_own_envelope(void **state)
{
	rig r;
	const char *a = "Mar  3 08:00:01 mx1 postfix/cleanup[2]: 5D5D5D5D5D: message-id=<x@example.com>";

	(void)state;
	rig_new(&r, 0);
	(void)smtpdiag_scan_line(r.s, "unrelated", 9);
	assert_int_equal(smtpdiag_joiner_line(r.j, r.s, 0, a, strlen(a)), 0);
	assert_int_equal(smtpdiag_joiner_finish(r.j, &r.out), 1);
	assert_non_null(strstr(r.out.data, "\"queueid\":\"5D5D5D5D5D\""));
	assert_non_null(strstr(r.out.data, "\"messageid\":\"x@example.com\""));
	rig_free(&r);
}

/* Reject records (inbound refusals, made by the scanner in the default
 * stream) are no attempts: the line is read as the joiner's own. */
static void test_reject_records(void **state)
{
	rig r;
	smtpdiag_logrec rej;
	const smtpdiag_logrec *recs[1] = { &rej };
	const char *a = "Mar  3 08:00:01 mx1 postfix/smtpd[1]: 6C6C6C6C6C: client=a.example[192.0.2.1]";
	const char *b = "Mar  3 08:00:02 mx1 postfix/smtpd[1]: 6C6C6C6C6C: reject: RCPT from a.example[192.0.2.1]: "
			"550 5.1.1 <x@example.com>: Recipient address rejected: User unknown; from=<s@example.org> "
			"to=<x@example.com> proto=ESMTP helo=<a.example>";
	const char *c = "Mar  3 08:00:03 mx1 postfix/cleanup[2]: 6C6C6C6C6C: reject: header Subject: spam from "
			"a.example[192.0.2.1]; from=<s@example.org> to=<y@example.com> proto=ESMTP helo=<a.example>: 5.7.1 no";

	(void)state;
	rig_new(&r, 0);
	feed(&r, a);
	memset(&rej, 0, sizeof(rej));
	rej.format = "postfix";
	rej.host = "mx1";
	rej.queueid = "6C6C6C6C6C";
	rej.recipient = "x@example.com";
	rej.sender = "s@example.org";
	rej.action = "rejected";
	rej.replycode = "550";
	rej.status = "5.1.1";
	rej.reason = "userunknown";
	rej.advice = "suppress-recipient";
	rej.timestamp = 1709452802;
	assert_int_equal(sd_joiner_recs(r.j, r.s, recs, 1, b, strlen(b)), 0);
	assert_int_equal(smtpdiag_joiner_count(r.j, SMTPDIAG_JOIN_OPEN), 1);
	rej.recipient = "y@example.com";
	rej.timestamp = 1709452803;
	assert_int_equal(sd_joiner_recs(r.j, r.s, recs, 1, c, strlen(c)), 0);
	assert_int_equal(smtpdiag_joiner_take(r.j, &r.out), 1);
	assert_non_null(strstr(r.out.data, "\"closed\":true,\"end\":\"rejected\",\"recipients\":[]"));
	assert_null(strstr(r.out.data, "\"sender\":\"s@example.org\""));
	rig_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_args),
		cmocka_unit_test(test_close_and_reuse),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_finish_batches),
		cmocka_unit_test(test_own_envelope),
		cmocka_unit_test(test_reject_records),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
