/* test_logmetrics.c - the metrics of followed logs (src/httpd/logmetrics.c):
 * deliveries by action, reason and advice; recipient domains past LM_DOMAINS
 * folding into "other"; rejects (records with action "rejected", built by
 * hand); the follower's health; the incidents gauge only once it is wired;
 * counters read while another thread writes them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/httpd/logmetrics.h"

static smtpdiag_logrec rec(const char *action, const char *rcpt, const char *reason, const char *advice, int64_t t)
{
	smtpdiag_logrec r = { .format = "postfix", .timestamp = t, .timezoneoffset = "+0000", .host = "mx1",
			      .program = "postfix/smtp", .queueid = "Q1", .recipient = rcpt, .orig_recipient = "",
			      .sender = "", .relay = "", .action = action, .replycode = "", .status = "", .dsn = "",
			      .diagnosticcode = "", .command = "", .delay = -1, .reason = reason, .advice = advice,
			      .label = "" };
	return r;
}

static char *text(int64_t now)
{
	smtpdiag_buf b = { 0 };

	logmetrics_text(&b, now);
	smtpdiag_buf_append(&b, "", 1);
	assert_false(b.oom);
	return b.data;
}

/* The value of the sample line that starts with sample (name and labels), -1 when none. */
static long long sample(const char *t, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = t; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, name, n) && p[n] == ' ')
			return strtoll(p + n + 1, NULL, 10);
	return -1;
}

typedef struct want {
	const char *sample;
	long long value;
} want;

/* Each sample of w (up to the one without a name) has its value in t. */
static void expect(const char *t, const want *w)
{
	for (; w->sample; w++) {
		if (sample(t, w->sample) != w->value)
			print_error("%s: %lld, want %lld\n", w->sample, sample(t, w->sample), w->value);
		assert_int_equal(sample(t, w->sample), w->value);
	}
}

/* The sum over the domain series (labelled and "other"). */
static long long domain_sum(const char *t)
{
	long long sum = 0;

	for (const char *p = strstr(t, "smtpdiag_log_domain_deliveries_total{"); p;
	     p = strstr(p + 1, "smtpdiag_log_domain_deliveries_total{"))
		sum += strtoll(strchr(p, ' ') + 1, NULL, 10);
	return sum;
}

static int setup(void **st)
{
	(void)st;
	logmetrics_reset();
	logmetrics_enable();
	return 0;
}

static void off_until_enabled(void **st)
{
	smtpdiag_buf b = { 0 };
	smtpdiag_logrec r = rec("sent", "a@example.org", "delivered", "none", 100);

	(void)st;
	logmetrics_reset();
	logmetrics_record(&r);
	logmetrics_text(&b, 200);
	assert_int_equal(b.len, 0);
	smtpdiag_buf_free(&b);
}

static void deliveries(void **st)
{
	smtpdiag_logrec s = rec("sent", "a@Example.ORG", "delivered", "none", 100);
	smtpdiag_logrec d = rec("deferred", "b@example.org", "ratelimited", "retry", 160);
	smtpdiag_logrec x = rec("bounced", "c@example.net", "no-such-reason", "no-such-advice", 50);
	char *t;

	(void)st;
	for (int i = 0; i < 4; i++)
		logmetrics_record(&s);
	logmetrics_record(&d);
	logmetrics_record(&x);
	t = text(200);
	expect(t, (const want[]){
		{ "smtpdiag_log_deliveries_total{action=\"sent\",reason=\"delivered\",advice=\"none\"}", 4 },
		{ "smtpdiag_log_deliveries_total{action=\"deferred\",reason=\"ratelimited\",advice=\"retry\"}", 1 },
		{ "smtpdiag_log_deliveries_total{action=\"bounced\",reason=\"other\",advice=\"other\"}", 1 },
		/* example.org: its first two records under "other", then its own label */
		{ "smtpdiag_log_domain_deliveries_total{domain=\"example.org\",action=\"sent\"}", 2 },
		{ "smtpdiag_log_domain_deliveries_total{domain=\"example.org\",action=\"deferred\"}", 1 },
		{ "smtpdiag_log_domain_deliveries_total{domain=\"other\",action=\"sent\"}", 2 },
		{ "smtpdiag_log_domain_deliveries_total{domain=\"other\",action=\"bounced\"}", 1 },
		{ "smtpdiag_follow_last_record_timestamp_seconds", 160 },
		{ "smtpdiag_follow_lag_seconds", 40 },
		{ NULL, 0 } });
	assert_null(strstr(t, "smtpdiag_incidents_open"));
	free(t);
}

static void domains_bounded(void **st)
{
	char rcpt[64], name[160];
	char *t;

	(void)st;
	for (int d = 0; d < LM_DOMAINS + 5; d++)
		for (int i = 0; i < LM_DOMAIN_MIN + 2; i++) {
			snprintf(rcpt, sizeof(rcpt), "u%d@d%d.example", i, d);
			smtpdiag_logrec r = rec("sent", rcpt, "delivered", "none", 1);
			logmetrics_record(&r);
		}
	t = text(2);
	for (int d = 0; d < LM_DOMAINS + 5; d++) {
		snprintf(name, sizeof(name), "smtpdiag_log_domain_deliveries_total{domain=\"d%d.example\",action=\"sent\"}", d);
		assert_int_equal(sample(t, name), d < LM_DOMAINS ? 3 : -1);
	}
	/* 2 of each labelled domain, all 5 of each of the 5 others */
	assert_int_equal(sample(t, "smtpdiag_log_domain_deliveries_total{domain=\"other\",action=\"sent\"}"),
			 LM_DOMAINS * (LM_DOMAIN_MIN - 1) + 5 * (LM_DOMAIN_MIN + 2));
	free(t);
}

static void odd_domains(void **st)
{
	smtpdiag_logrec a = rec("sent", "x@bad\"name\n.example", "delivered", "none", 1);
	smtpdiag_logrec b = rec("sent", "", "delivered", "none", 1);
	char *t;

	(void)st;
	for (int i = 0; i < LM_DOMAIN_MIN; i++) {
		logmetrics_record(&a);
		logmetrics_record(&b);
	}
	t = text(2);
	assert_int_equal(sample(t, "smtpdiag_log_domain_deliveries_total{domain=\"other\",action=\"sent\"}"), 2 * LM_DOMAIN_MIN);
	assert_null(strstr(t, "bad"));
	free(t);
}

static void rejects(void **st)
{
	smtpdiag_logrec r = rec("rejected", "a@our.example", "blocked", "fix-sender-reputation", 10);
	char *t;

	(void)st;
	r.program = "postfix/smtpd";
	logmetrics_record(&r);
	logmetrics_record(&r);
	t = text(10);
	assert_int_equal(sample(t, "smtpdiag_log_rejects_total{reason=\"blocked\"}"), 2);
	assert_null(strstr(t, "smtpdiag_log_deliveries_total{"));
	assert_null(strstr(t, "smtpdiag_log_domain_deliveries_total{"));
	free(t);
}

static void follower(void **st)
{
	char *t;

	(void)st;
	logmetrics_line(LM_LINE_RECORD);
	logmetrics_line(LM_LINE_SKIPPED);
	logmetrics_line(LM_LINE_SKIPPED);
	logmetrics_line(LM_LINE_MALFORMED);
	logmetrics_line(LM_LINE_OVERLIMIT);
	logmetrics_rotation(LM_ROTATE_RENAME);
	logmetrics_rotation(LM_ROTATE_TRUNCATE);
	logmetrics_rotation(LM_ROTATE_RENAME);
	logmetrics_files(2, 4096);
	t = text(10);
	expect(t, (const want[]){
		{ "smtpdiag_follow_lines_read_total", 5 },
		{ "smtpdiag_follow_lines_skipped_total", 2 },
		{ "smtpdiag_follow_lines_malformed_total", 1 },
		{ "smtpdiag_follow_lines_over_limit_total", 1 },
		{ "smtpdiag_follow_rotations_total{kind=\"rename\"}", 2 },
		{ "smtpdiag_follow_rotations_total{kind=\"truncate\"}", 1 },
		{ "smtpdiag_follow_files", 2 },
		{ "smtpdiag_follow_lag_bytes", 4096 },
		{ NULL, 0 } });
	assert_null(strstr(t, "smtpdiag_follow_lag_seconds")); /* no record with a time yet */
	assert_non_null(strstr(t, "# TYPE smtpdiag_follow_lines_read_total counter\n"));
	assert_non_null(strstr(t, "# TYPE smtpdiag_follow_files gauge\n"));
	free(t);
}

static void incidents(void **st)
{
	char *t;

	(void)st;
	t = text(1);
	assert_null(strstr(t, "smtpdiag_incidents_open"));
	free(t);
	logmetrics_incidents_open(3);
	t = text(1);
	assert_int_equal(sample(t, "smtpdiag_incidents_open"), 3);
	assert_non_null(strstr(t, "# TYPE smtpdiag_incidents_open gauge\n"));
	free(t);
}

#define WRITES 20000
static void *writer(void *arg)
{
	char rcpt[32];

	(void)arg;
	for (int i = 0; i < WRITES; i++) {
		snprintf(rcpt, sizeof(rcpt), "u@d%d.example", i % 40);
		smtpdiag_logrec r = rec("sent", rcpt, "delivered", "none", i + 1);
		logmetrics_record(&r);
		logmetrics_line(LM_LINE_RECORD);
	}
	return NULL;
}

/* While a thread writes, every scrape's counts only grow, and the sum over the
 * domains (labelled and "other") is never more than the records. */
static void concurrent(void **st)
{
	pthread_t th;
	long long last = 0;

	(void)st;
	assert_int_equal(pthread_create(&th, NULL, writer, NULL), 0);
	for (int k = 0; k < 200; k++) {
		char *t = text(1);
		long long read = sample(t, "smtpdiag_follow_lines_read_total");
		assert_true(read >= last);
		assert_true(domain_sum(t) <= WRITES);
		last = read;
		free(t);
	}
	pthread_join(th, NULL);
	{
		char *t = text(1);
		assert_int_equal(domain_sum(t), WRITES);
		assert_int_equal(sample(t, "smtpdiag_follow_lines_read_total"), WRITES);
		free(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(off_until_enabled),
		cmocka_unit_test_setup(deliveries, setup),
		cmocka_unit_test_setup(domains_bounded, setup),
		cmocka_unit_test_setup(odd_domains, setup),
		cmocka_unit_test_setup(rejects, setup),
		cmocka_unit_test_setup(follower, setup),
		cmocka_unit_test_setup(incidents, setup),
		cmocka_unit_test_setup(concurrent, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
