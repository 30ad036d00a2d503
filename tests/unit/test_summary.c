/* test_summary.c - smtpdiag_summary: counting records, the line counters,
 * merging, the limits, and the text and JSON writers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "smtpdiag.h"

#define DAYS(n) ((int64_t)(n) * 86400)

/* A record with the fields the summary reads; the rest "". */
static smtpdiag_logrec rec(const char *action, const char *rcpt, const char *relay, const char *replycode,
			   const char *status, const char *reason, const char *queueid, int64_t delay)
{
	smtpdiag_logrec r = { .format = "postfix", .timezoneoffset = "+0000", .host = "mx1",
			      .program = "postfix/smtp", .queueid = queueid, .recipient = rcpt,
			      .orig_recipient = "", .sender = "", .relay = relay, .action = action,
			      .replycode = replycode, .status = status, .dsn = "", .diagnosticcode = "",
			      .command = "", .delay = delay, .reason = reason, .advice = "" };
	return r;
}

/* The records of the examples: sent, a 5xx bounce, a 4xx bounced (once with
 * a relay, once without a reply code or relay), one bounced after the give-up
 * time (not counted as a 4xx), and one message deferred twice past it. */
static const struct {
	const char *action, *rcpt, *relay, *replycode, *status, *reason, *queueid;
	int64_t delay;
} some[] = {
	{ "sent", "alice@Example.ORG", "mx.example.org[203.0.113.5]:25", "250", "2.0.0", "delivered", "Q1", 1 },
	{ "bounced", "bob@example.org", "mx.example.org[203.0.113.5]:25", "550", "5.1.1", "userunknown", "Q1", 1 },
	{ "bounced", "dave@contoso.example", "mx.contoso.example", "431", "4.3.1", "systemfull", "Q2", 2 },
	{ "deferred", "erin@example.com", "", "", "4.4.1", "networkerror", "Q3", 500000 },
	{ "deferred", "erin@example.com", "", "", "4.4.1", "networkerror", "Q3", 450000 },
	{ "bounced", "frank@example.net", "", "", "4.7.1", "blocked", "Q4", -1 },
	{ "bounced", "gina@example.net", "mx.example.net", "421", "", "expired", "Q5", DAYS(6) },
};
#define NSOME (sizeof(some) / sizeof(some[0]))

static void add_some(smtpdiag_summary *s, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		smtpdiag_logrec r = rec(some[i].action, some[i].rcpt, some[i].relay, some[i].replycode,
					some[i].status, some[i].reason, some[i].queueid, some[i].delay);
		assert_int_equal(smtpdiag_summary_add(s, &r), 0);
	}
}

static void count_lines(smtpdiag_summary *s)
{
	assert_int_equal(smtpdiag_summary_count(s, SMTPDIAG_SUM_LINES, 10), 0);
	assert_int_equal(smtpdiag_summary_count(s, SMTPDIAG_SUM_DELIVERY, 7), 0);
	assert_int_equal(smtpdiag_summary_count(s, SMTPDIAG_SUM_SKIPPED, 1), 0);
	assert_int_equal(smtpdiag_summary_count(s, SMTPDIAG_SUM_MALFORMED, 1), 0);
	assert_int_equal(smtpdiag_summary_count(s, SMTPDIAG_SUM_OVERLIMIT, 1), 0);
	assert_int_equal(smtpdiag_summary_count(s, SMTPDIAG_SUM_INPUTS, 2), 0);
	assert_int_equal(smtpdiag_summary_count(s, SMTPDIAG_SUM_FAILED_INPUTS, 1), 0);
}

static char *text_of(const smtpdiag_summary *s, int json)
{
	smtpdiag_buf b = { 0 };

	assert_int_equal(json ? smtpdiag_summary_json(s, &b) : smtpdiag_summary_text(s, &b), 0);
	assert_non_null(b.data);
	return b.data;
}

/* Each string of want (NULL-terminated) is in the text (json 0) or JSON (1) of s;
 * one starting with '!' is not (the rest of it). */
static void expect_in(const smtpdiag_summary *s, int json, const char *const *want)
{
	char *t = text_of(s, json);

	for (; *want; want++) {
		if (**want == '!')
			assert_null(strstr(t, *want + 1));
		else if (!strstr(t, *want))
			fail_msg("lacks \"%s\" in:\n%s", *want, t);
	}
	free(t);
}

static const char some_text[] =
	"lines read:       10\n"
	"  delivery lines: 7 (records: 7)\n"
	"  skipped:        1 (other programs, other lines of the MTAs)\n"
	"  malformed:      1\n"
	"  over a limit:   1 (lines over 64 KiB, or over 256 recipients)\n"
	"  reject lines:   0 (this server's refusals)\n"
	"inputs:           2 (1 could not be read)\n"
	"\nby action:\n"
	"           4  bounced\n"
	"           2  deferred\n"
	"           1  sent\n"
	"\nby reason:\n"
	"           2  networkerror\n"
	"           1  blocked\n"
	"           1  delivered\n"
	"           1  expired\n"
	"           1  systemfull\n"
	"           1  userunknown\n"
	"\nby recipient domain:\n"
	"           2  example.com\n"
	"           2  example.net\n"
	"           2  example.org\n"
	"           1  contoso.example\n"
	"\nby relay:\n"
	"           3  (none)\n"
	"           2  mx.example.org[203.0.113.5]:25\n"
	"           1  mx.contoso.example\n"
	"           1  mx.example.net\n"
	"\nby code:\n"
	"           2  4.4.1\n"
	"           1  250 2.0.0\n"
	"           1  4.7.1\n"
	"           1  421\n"
	"           1  431 4.3.1\n"
	"           1  550 5.1.1\n"
	"\ndeferred past the give-up time (5 days, RFC 5321 4.5.4.1): 1 message\n"
	"  Q3                 5.8 days  erin@example.com                 networkerror     4.4.1\n"
	"\n4xx replies turned into bounces (a 4xx must be deferred and retried): 2\n"
	"\n  by code and relay:\n"
	"           1  4.7.1  (no relay)\n"
	"           1  431 4.3.1  mx.contoso.example\n"
	"\nrejects (this server's refusals): 0 (0 only logged: warnings)\n";

static const char some_json[] =
	"{\"lines\":10,\"delivery\":7,\"skipped\":1,\"malformed\":1,\"overlimit\":1,\"inputs\":2,"
	"\"failed_inputs\":1,\"records\":7,\"reject\":0,"
	"\"action\":{\"rows\":[{\"key\":\"bounced\",\"count\":4},{\"key\":\"deferred\",\"count\":2},"
	"{\"key\":\"sent\",\"count\":1}],\"more_keys\":0,\"more_count\":0,\"other\":0},"
	"\"reason\":{\"rows\":[{\"key\":\"networkerror\",\"count\":2},{\"key\":\"blocked\",\"count\":1},"
	"{\"key\":\"delivered\",\"count\":1},{\"key\":\"expired\",\"count\":1},{\"key\":\"systemfull\",\"count\":1},"
	"{\"key\":\"userunknown\",\"count\":1}],\"more_keys\":0,\"more_count\":0,\"other\":0},"
	"\"domain\":{\"rows\":[{\"key\":\"example.com\",\"count\":2},{\"key\":\"example.net\",\"count\":2},"
	"{\"key\":\"example.org\",\"count\":2},{\"key\":\"contoso.example\",\"count\":1}],"
	"\"more_keys\":0,\"more_count\":0,\"other\":0},"
	"\"relay\":{\"rows\":[{\"key\":\"\",\"count\":3},{\"key\":\"mx.example.org[203.0.113.5]:25\",\"count\":2},"
	"{\"key\":\"mx.contoso.example\",\"count\":1},{\"key\":\"mx.example.net\",\"count\":1}],"
	"\"more_keys\":0,\"more_count\":0,\"other\":0},"
	"\"code\":{\"rows\":[{\"key\":\"4.4.1\",\"count\":2},{\"key\":\"250 2.0.0\",\"count\":1},"
	"{\"key\":\"4.7.1\",\"count\":1},{\"key\":\"421\",\"count\":1},{\"key\":\"431 4.3.1\",\"count\":1},"
	"{\"key\":\"550 5.1.1\",\"count\":1}],\"more_keys\":0,\"more_count\":0,\"other\":0},"
	"\"late\":{\"giveup_seconds\":432000,\"messages\":1,\"other\":0,\"rows\":[{\"queueid\":\"Q3\","
	"\"delay\":500000,\"recipient\":\"erin@example.com\",\"reason\":\"networkerror\",\"status\":\"4.4.1\"}],"
	"\"more\":0},"
	"\"bounced_4xx\":{\"count\":2,\"rows\":[{\"key\":\"4.7.1  (no relay)\",\"count\":1},"
	"{\"key\":\"431 4.3.1  mx.contoso.example\",\"count\":1}],\"more_keys\":0,\"more_count\":0,\"other\":0},"
	"\"rejects\":{\"count\":0,\"warnings\":0,"
	"\"reason\":{\"rows\":[],\"more_keys\":0,\"more_count\":0,\"other\":0},"
	"\"network\":{\"rows\":[],\"more_keys\":0,\"more_count\":0,\"other\":0},"
	"\"list\":{\"rows\":[],\"more_keys\":0,\"more_count\":0,\"other\":0}}}";

static void test_text_and_json(void **state)
{
	smtpdiag_summary *s = smtpdiag_summary_new();
	char *t;

	(void)state;
	assert_non_null(s);
	count_lines(s);
	add_some(s, 0, NSOME);
	assert_int_equal(smtpdiag_summary_get(s, SMTPDIAG_SUM_RECORDS), NSOME);
	assert_int_equal(smtpdiag_summary_get(s, SMTPDIAG_SUM_LINES), 10);
	t = text_of(s, 0);
	assert_string_equal(t, some_text);
	free(t);
	t = text_of(s, 1);
	assert_string_equal(t, some_json);
	free(t);
	smtpdiag_summary_free(s);
}

/* Reject records: by action and their own tables only, by /24, /48 and zone;
 * the REJECT line counter; merged like the rest. */
static void test_rejects(void **state)
{
	static const struct {
		const char *ip, *list, *reason;
		int warning;
	} rj[] = {
		{ "203.0.113.7", "zen.spamhaus.org", "blocked", 0 },
		{ "203.0.113.200", "zen.spamhaus.org", "blocked", 1 },
		{ "2001:db8:5:77::1", "", "userunknown", 0 },
		{ "2001:db8:5:ffff::9", "b.barracudacentral.org", "blocked", 0 },
		{ "", "", "syntaxerror", 1 },
	};
	static const char *const text[] = {
		"  reject lines:   5 (this server's refusals)\n",
		"\nrejects (this server's refusals): 10 (4 only logged: warnings)\n"
		"\n  by reason:\n           6  blocked\n           2  syntaxerror\n           2  userunknown\n"
		"\n  by client network:\n           4  2001:db8:5::/48\n           4  203.0.113.0/24\n"
		"           2  (none)\n"
		"\n  by block list:\n           4  zen.spamhaus.org\n           2  b.barracudacentral.org\n",
		"          10  rejected\n", "!\nby reason:\n           6", NULL
	};
	static const char *const json[] = {
		"\"records\":10,\"reject\":5,",
		"\"rejects\":{\"count\":10,\"warnings\":4,\"reason\":{\"rows\":[{\"key\":\"blocked\",\"count\":6}",
		"\"network\":{\"rows\":[{\"key\":\"2001:db8:5::/48\",\"count\":4},{\"key\":\"203.0.113.0/24\",\"count\":4},"
		"{\"key\":\"\",\"count\":2}]",
		"\"list\":{\"rows\":[{\"key\":\"zen.spamhaus.org\",\"count\":4},{\"key\":\"b.barracudacentral.org\",\"count\":2}]",
		"\"reason\":{\"rows\":[],", "\"domain\":{\"rows\":[],", NULL
	};
	smtpdiag_summary *a = smtpdiag_summary_new(), *b = smtpdiag_summary_new();

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	for (size_t i = 0; i < sizeof(rj) / sizeof(rj[0]); i++) {
		smtpdiag_logrec r = rec("rejected", "x@example.com", "", "550", "5.7.1", rj[i].reason, "", -1);
		r.clientip = rj[i].ip;
		r.list = rj[i].list;
		r.warning = rj[i].warning;
		assert_int_equal(smtpdiag_summary_add(a, &r), 0);
		assert_int_equal(smtpdiag_summary_add(b, &r), 0);
	}
	assert_int_equal(smtpdiag_summary_count(a, SMTPDIAG_SUM_REJECT, 5), 0);
	assert_int_equal(smtpdiag_summary_get(a, SMTPDIAG_SUM_REJECT), 5);
	assert_int_equal(smtpdiag_summary_merge(a, b), 0);
	expect_in(a, 0, text);
	expect_in(a, 1, json);
	smtpdiag_summary_free(a);
	smtpdiag_summary_free(b);
}

static void test_empty(void **state)
{
	static const char *const text[] = {
		"\nby action:\n\nby reason:\n", "RFC 5321 4.5.4.1): 0 messages\n\n4xx replies",
		"retried): 0\n", "!by code and relay", NULL
	};
	static const char *const json[] = {
		"\"action\":{\"rows\":[],\"more_keys\":0,\"more_count\":0,\"other\":0}",
		"\"bounced_4xx\":{\"count\":0,\"rows\":[]", NULL
	};
	smtpdiag_summary *s = smtpdiag_summary_new();

	(void)state;
	expect_in(s, 0, text);
	expect_in(s, 1, json);
	smtpdiag_summary_free(s);
}

static void test_bad_args(void **state)
{
	smtpdiag_summary *s = smtpdiag_summary_new();
	smtpdiag_logrec r = rec("sent", "a@b.example", "", "250", "", "delivered", "", 0);
	smtpdiag_buf b = { 0 };

	(void)state;
	assert_int_equal(smtpdiag_summary_add(NULL, &r), SMTPDIAG_EINVAL);
	assert_int_equal(smtpdiag_summary_add(s, NULL), SMTPDIAG_EINVAL);
	assert_int_equal(smtpdiag_summary_count(NULL, SMTPDIAG_SUM_LINES, 1), SMTPDIAG_EINVAL);
	assert_int_equal(smtpdiag_summary_count(s, SMTPDIAG_SUM_RECORDS, 1), SMTPDIAG_EINVAL);
	assert_int_equal(smtpdiag_summary_count(s, SMTPDIAG_SUM_NCOUNTERS, 1), SMTPDIAG_EINVAL);
	assert_int_equal(smtpdiag_summary_get(s, SMTPDIAG_SUM_NCOUNTERS), 0);
	assert_int_equal(smtpdiag_summary_get(NULL, SMTPDIAG_SUM_LINES), 0);
	assert_int_equal(smtpdiag_summary_merge(s, s), SMTPDIAG_EINVAL);
	assert_int_equal(smtpdiag_summary_merge(s, NULL), SMTPDIAG_EINVAL);
	assert_int_equal(smtpdiag_summary_text(NULL, &b), SMTPDIAG_EINVAL);
	assert_int_equal(smtpdiag_summary_json(s, NULL), SMTPDIAG_EINVAL);
	assert_int_equal(smtpdiag_summary_get(s, SMTPDIAG_SUM_RECORDS), 0);
	smtpdiag_summary_free(s);
	smtpdiag_summary_free(NULL);
}

/* Records split between two summaries, merged, read the same as all in one;
 * the late message keeps its longest deferral from either side. */
static void test_merge(void **state)
{
	smtpdiag_summary *all = smtpdiag_summary_new(), *a = smtpdiag_summary_new(), *b = smtpdiag_summary_new();
	char *want, *got;

	(void)state;
	count_lines(all);
	add_some(all, 0, NSOME);
	count_lines(a);
	add_some(a, 0, 4);  /* up to Q3 deferred 500000 s */
	add_some(b, 4, NSOME);  /* Q3 deferred 450000 s: not kept over the longer one */
	assert_int_equal(smtpdiag_summary_merge(b, a), 0);
	for (int json = 0; json <= 1; json++) {
		want = text_of(all, json);
		got = text_of(b, json);
		assert_string_equal(got, want);
		free(want);
		free(got);
	}
	smtpdiag_summary_free(all);
	smtpdiag_summary_free(a);
	smtpdiag_summary_free(b);
}

/* times deferrals of u@dNN.example, queue id QN, delay seconds old. */
static void add_deferred(smtpdiag_summary *s, int nn, int64_t delay, int times)
{
	char rcpt[64], qid[32];
	smtpdiag_logrec r;

	snprintf(rcpt, sizeof(rcpt), "u@d%02d.example", nn);
	snprintf(qid, sizeof(qid), "Q%d", nn);
	r = rec("deferred", rcpt, "", "", "4.4.1", "networkerror", qid, delay);
	for (int k = 0; k < times; k++)
		assert_int_equal(smtpdiag_summary_add(s, &r), 0);
}

/* More than SMTPDIAG_SUMMARY_ROWS keys: the rest is one row; JSON says the same.
 * Rows d24 (25 times) down to d05 (6 times) are shown; d04..d00 sum 5+4+3+2+1. */
static void test_rows(void **state)
{
	static const char *const text[] = {
		"\nby recipient domain:\n          25  d24.example\n",
		"           6  d05.example\n          15  (5 more)\n\nby relay:", NULL
	};
	static const char *const json[] = {
		"{\"key\":\"d05.example\",\"count\":6}],\"more_keys\":5,\"more_count\":15,", NULL
	};
	smtpdiag_summary *s = smtpdiag_summary_new();

	(void)state;
	for (int i = 0; i < SMTPDIAG_SUMMARY_ROWS + 5; i++)
		add_deferred(s, i, 1, i + 1);
	expect_in(s, 0, text);
	expect_in(s, 1, json);
	smtpdiag_summary_free(s);
}

/* Past SMTPDIAG_SUMMARY_MAX_KEYS distinct keys, and past SMTPDIAG_SUMMARY_MAX_LATE
 * late messages, records are still counted, as "other". */
static void test_limits(void **state)
{
	static const char *const text[] = {
		"           3  (other keys, past 100000 distinct)\n\nby relay:",
		"): 100000 messages (and more past the table's limit)\n  Q7 ", "\n           3  d07.example\n", NULL
	};
	static const char *const json[] = {
		"\"more_keys\":99980,\"more_count\":99980,\"other\":3},\"relay\":",
		"\"late\":{\"giveup_seconds\":432000,\"messages\":100000,\"other\":3,", NULL
	};
	smtpdiag_summary *s = smtpdiag_summary_new();

	(void)state;
	for (int i = 0; i < SMTPDIAG_SUMMARY_MAX_KEYS + 3; i++)
		add_deferred(s, i, DAYS(6), 1);
	add_deferred(s, 7, DAYS(7), 2); /* a kept key and a kept queue id, deferred longer */
	assert_int_equal(smtpdiag_summary_get(s, SMTPDIAG_SUM_RECORDS), SMTPDIAG_SUMMARY_MAX_KEYS + 5);
	expect_in(s, 0, text);
	expect_in(s, 1, json);
	smtpdiag_summary_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_and_json),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_limits),
	};

	return cmocka_run_group_tests_name("summary", tests, NULL, NULL);
}
