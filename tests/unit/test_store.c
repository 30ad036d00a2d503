/* test_store.c - smtpdiag_store through the public API, on SQLite: the
 * policy, keys and kinds of records, the counts that add up, the soft window
 * and a delivery's reset whatever the order, release, bad URLs, and the
 * outbox's bound and order per address. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "smtpdiag.h"

#define DAY 86400

static char dir[] = "/tmp/smtpdiag-test-store.XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static smtpdiag_store *open_store(const char *name, const smtpdiag_policy *p)
{
	char url[256];
	smtpdiag_store *s = NULL;
	smtpdiag_error err;

	snprintf(url, sizeof(url), "sqlite:%s/%s.db", dir, name);
	assert_int_equal(smtpdiag_store_open(url, p, &s, &err), 0);
	return s;
}

/* A soft bounce (or a delivery) of rcpt, days ago. */
static int add(smtpdiag_store *s, const char *rcpt, const char *reason, int days_ago)
{
	char line[512];
	int delivered = !strcmp(reason, "delivered");

	snprintf(line, sizeof(line), "{\"recipient\":\"%s\",\"reason\":\"%s\",\"timestamp\":%lld,"
		 "\"action\":\"%s\",\"retry\":%s,\"advice\":\"%s\",\"deliverystatus\":\"%s\"}", rcpt, reason,
		 (long long)time(NULL) - (long long)days_ago * DAY, delivered ? "delivered" : "failed",
		 delivered ? "false" : "true", delivered ? "none" : "retry", delivered ? "2.0.0" : "4.2.2");
	return smtpdiag_store_add_json(s, line, strlen(line), NULL);
}

static int count(void *ctx, const smtpdiag_addr_state *a)
{
	(*(int *)ctx)++;
	(void)a;
	return 0;
}

static int suppressed(smtpdiag_store *s)
{
	int n = 0;

	assert_int_equal(smtpdiag_store_flush(s, NULL), 0);
	assert_int_equal(smtpdiag_store_suppressed(s, NULL, count, &n, NULL), 0);
	return n;
}

static void test_policy(void **state)
{
	smtpdiag_policy p;
	smtpdiag_error err;
	const char ok[] = "# a comment\n soft_limit = 3 \nhard=off\n\nsoft_days=7 # week\n";
	const char bad[] = "soft_limit = 3\nsoft_window_days\n";

	(void)state;
	smtpdiag_policy_init(&p);
	assert_int_equal(p.soft_limit, 5);
	assert_int_equal(p.soft_window_days, 14);
	assert_int_equal(p.soft_days, 30);
	assert_int_equal(p.hard, 1);
	assert_int_equal(smtpdiag_policy_parse(&p, ok, strlen(ok), &err), 0);
	assert_int_equal(p.soft_limit, 3);
	assert_int_equal(p.hard, 0);
	assert_int_equal(p.soft_days, 7);
	assert_int_equal(smtpdiag_policy_parse(&p, bad, strlen(bad), &err), SMTPDIAG_EPARSE);
	assert_non_null(strstr(err.message, "line 2"));
	assert_int_equal(smtpdiag_policy_set(&p, "soft_limit", "0", &err), SMTPDIAG_EINVAL);
	assert_int_equal(smtpdiag_policy_set(&p, "soft_limit", "5x", &err), SMTPDIAG_EINVAL);
	assert_int_equal(smtpdiag_policy_set(&p, "nonsense", "1", &err), SMTPDIAG_EINVAL);
}

static void test_urls(void **state)
{
	smtpdiag_store *s = NULL;
	smtpdiag_error err;

	(void)state;
	assert_int_equal(smtpdiag_store_open("mysql://x", NULL, &s, &err), SMTPDIAG_EINVAL);
	assert_int_equal(smtpdiag_store_open("sqlite:", NULL, &s, &err), SMTPDIAG_EINVAL);
	assert_int_equal(smtpdiag_store_open("sqlite:/nonexistent/dir/x.db", NULL, &s, &err), SMTPDIAG_ESTORE);
	assert_null(s);
}

static void test_counts(void **state)
{
	smtpdiag_store *s = open_store("counts", NULL);
	smtpdiag_store_counts c;
	const char *hard = "{\"recipient\":\"Gone@Example.ORG\",\"reason\":\"userunknown\",\"hardbounce\":true,"
			   "\"timestamp\":1700000000,\"deliverystatus\":\"5.1.1\",\"token\":\"abc\"}";
	const char *sender = "{\"recipient\":\"ok@example.org\",\"reason\":\"blocked\",\"hardbounce\":true,"
			     "\"advice\":\"fix-sender-reputation\",\"timestamp\":1700000001}";

	(void)state;
	assert_int_equal(smtpdiag_store_add_json(s, hard, strlen(hard), NULL), 0);
	assert_int_equal(smtpdiag_store_add_json(s, hard, strlen(hard), NULL), 0);
	assert_int_equal(smtpdiag_store_add_json(s, sender, strlen(sender), NULL), 0);
	assert_int_equal(smtpdiag_store_add_json(s, "{", 1, NULL), SMTPDIAG_EPARSE);
	assert_int_equal(smtpdiag_store_add_json(s, "{\"reason\":\"x\"}", 14, NULL), SMTPDIAG_EPARSE);
	assert_int_equal(suppressed(s), 1); /* the hard bounce, not the sender-side failure */
	smtpdiag_store_counts_get(s, &c);
	assert_int_equal(c.read, 5);
	assert_int_equal(c.recorded, 2);
	assert_int_equal(c.duplicates, 1);
	assert_int_equal(c.errors, 2);
	assert_int_equal(c.pending, 0);
	assert_int_equal(smtpdiag_store_show(s, "nobody@example.org", 0, NULL, NULL, NULL, NULL), SMTPDIAG_ENOTFOUND);
	assert_int_equal(smtpdiag_store_release(s, "GONE@example.org", "tester", 0, NULL), 1);
	assert_int_equal(suppressed(s), 0);
	assert_int_equal(smtpdiag_store_release(s, "gone@example.org", "tester", 0, NULL), 0);
	smtpdiag_store_close(s);
}

/* 5 soft bounces in 14 days suppress; a delivery in between resets; the
 * order the records come in does not matter. */
static void test_soft(void **state)
{
	static const struct {
		const char *reason;
		int days;
	} ev[] = { { "mailboxfull", 12 }, { "mailboxfull", 11 }, { "delivered", 10 }, { "mailboxfull", 9 },
		   { "mailboxfull", 7 }, { "mailboxfull", 5 }, { "mailboxfull", 3 } };
	smtpdiag_store *fwd = open_store("fwd", NULL), *rev = open_store("rev", NULL);
	size_t n = sizeof(ev) / sizeof(ev[0]);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(add(fwd, "a@example.org", ev[i].reason, ev[i].days), 0);
		assert_int_equal(add(rev, "a@example.org", ev[n - 1 - i].reason, ev[n - 1 - i].days), 0);
	}
	assert_int_equal(suppressed(fwd), 0); /* 4 after the delivery */
	assert_int_equal(suppressed(rev), 0);
	assert_int_equal(add(fwd, "a@example.org", "mailboxfull", 1), 0);
	assert_int_equal(add(rev, "a@example.org", "mailboxfull", 1), 0);
	assert_int_equal(suppressed(fwd), 1);
	assert_int_equal(suppressed(rev), 1);
	assert_int_equal(add(fwd, "a@example.org", "delivered", 0), 0); /* a later delivery resets */
	assert_int_equal(suppressed(fwd), 0);
	smtpdiag_store_close(fwd);
	smtpdiag_store_close(rev);
}

static int collect(void *ctx, const smtpdiag_outbox_item *it)
{
	char *seen = ctx;

	strncat(seen, it->address, 511 - strlen(seen));
	strncat(seen, " ", 511 - strlen(seen));
	return 0;
}

/* The outbox: the number of items one call may give is 1..SMTPDIAG_OUTBOX_MAX_NEXT,
 * and a call gives only the oldest pending item of each address. */
static void test_outbox_next(void **state)
{
	smtpdiag_store *s = open_store("outbox", NULL);
	char seen[512] = "";
	smtpdiag_error err;

	(void)state;
	assert_int_equal(smtpdiag_store_outbox(s, SMTPDIAG_OUTBOX_VERDICTS, NULL), 0);
	assert_int_equal(add(s, "a@example.org", "mailboxfull", 3), 0);
	assert_int_equal(add(s, "a@example.org", "mailboxfull", 2), 0);
	assert_int_equal(add(s, "b@example.org", "mailboxfull", 1), 0);
	assert_int_equal(smtpdiag_store_flush(s, NULL), 0);
	assert_int_equal(smtpdiag_store_outbox_next(s, 0, 0, collect, seen, &err), SMTPDIAG_EINVAL);
	assert_int_equal(smtpdiag_store_outbox_next(s, 0, SMTPDIAG_OUTBOX_MAX_NEXT + 1, collect, seen, &err),
			 SMTPDIAG_EINVAL);
	assert_non_null(strstr(err.message, "not in 1..1000"));
	assert_string_equal(seen, "");
	assert_int_equal(smtpdiag_store_outbox_next(s, 0, SMTPDIAG_OUTBOX_MAX_NEXT, collect, seen, &err), 0);
	assert_string_equal(seen, "a@example.org b@example.org "); /* a's second waits for its first */
	seen[0] = 0;
	assert_int_equal(smtpdiag_store_outbox_next(s, 0, 1, collect, seen, &err), 0);
	assert_string_equal(seen, "a@example.org ");
	smtpdiag_store_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy),
		cmocka_unit_test(test_urls),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_soft),
		cmocka_unit_test(test_outbox_next),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
