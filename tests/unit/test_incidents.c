/* test_incidents.c - smtpdiag_incidents: the kinds a verdict makes, the
 * subject keys (sending address, provider, list, MX, domain), the block list
 * names (sd_blocklist_name), the bounds, merging, the open count and the
 * hour view. Reject records are built by hand (action "rejected"). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "smtpdiag.h"
#include "scan/blocklist.h"

static const char *const sender_admin[] = { "sender-admin", NULL };
static const char *const recipient_admin[] = { "recipient-admin", NULL };

#define T0 1772532000 /* an hour's start */

/* A failure record with the fields the aggregator reads; the rest "". */
static smtpdiag_logrec rec(const char *action, const char *rcpt, const char *relay, const char *status,
			   const char *reason, const char *const *fixer, const char *text, int64_t t)
{
	smtpdiag_logrec r = { .format = "postfix", .timestamp = t, .timezoneoffset = "+0000", .host = "mx1",
			      .program = "postfix/smtp", .queueid = "Q1", .recipient = rcpt, .orig_recipient = "",
			      .sender = "", .relay = relay, .action = action, .replycode = "", .status = status,
			      .dsn = "", .diagnosticcode = text, .command = "", .delay = 0, .reason = reason,
			      .advice = "", .fixer = fixer, .evidence = NULL, .label = "" };
	return r;
}

static char *json(const smtpdiag_incidents *g)
{
	smtpdiag_buf b = { 0 };
	char *s;

	assert_int_equal(smtpdiag_incidents_json(g, &b), 0);
	s = strdup(b.data ? b.data : "");
	smtpdiag_buf_free(&b);
	return s;
}

static size_t count_of(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
		n++;
	return n;
}

/* ---- sd_blocklist_name ---- */

static void test_blocklist_names(void **state)
{
	static const struct {
		const char *text, *name;
	} t[] = {
		{ "554 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org; "
		  "https://www.spamhaus.org/query/ip/192.0.2.1", "Spamhaus" },
		{ "550 5.7.1 192.0.2.1 listed at zen.spamhaus.org (127.0.0.11)", "Spamhaus PBL" },
		{ "550 5.7.1 192.0.2.1 listed at zen.spamhaus.org (127.0.0.4)", "Spamhaus XBL" },
		{ "550 5.7.1 192.0.2.1 listed at zen.spamhaus.org (127.0.0.2)", "Spamhaus SBL" },
		{ "554 Rejected: see https://www.spamhaus.org/sbl/query/SBL123456", "Spamhaus SBL" },
		{ "554 5.7.1 Client host [192.0.2.1] blocked using b.barracudacentral.org", "Barracuda" },
		{ "550 5.7.1 Blocked - see https://www.spamcop.net/bl.shtml?192.0.2.1", "SpamCop" },
		{ "550 5.7.1 192.0.2.1 is listed in dnsbl-1.uceprotect.net", "UCEPROTECT" },
		{ "554 5.7.1 Client host [192.0.2.1] blocked using dnsbl.sorbs.net", "SORBS" },
		{ "550 5.7.1 Unfortunately, messages from [192.0.2.1] weren't sent. Please contact your Internet "
		  "service provider since part of their network is on our block list (S3150).", "Microsoft S3150" },
		{ "550 5.7.1 ... on our block list (S3140). You can also refer your provider", "Microsoft S3140" },
		{ "550 5.7.606 Access denied, banned sending IP [192.0.2.1].", "Microsoft banned sending IP" },
		{ "421 4.7.0 [TSS04] Messages from 192.0.2.1 temporarily deferred due to unexpected volume or user "
		  "complaints - 4.16.55.1", "Yahoo TSS04" },
		{ "421-4.7.28 [192.0.2.1 15] Our system has detected an unusual rate of 421-4.7.28 unsolicited mail",
		  "Gmail unusual rate" },
		{ "550-5.7.1 This message is likely suspicious due to the very low reputation of the sending domain",
		  "Gmail low reputation" },
		{ "554 5.7.0 Blocked - see https://ipcheck.proofpoint.com/?ip=192.0.2.1", "Proofpoint" },
		{ "550 5.7.1 Poor Reputation Sender. - https://csi.cloudmark.com/reset-request/?ip=192.0.2.1",
		  "Cloudmark" },
		{ "550 Rejected by header based Anti-Spoofing policy - https://community.mimecast.com/docs/DOC-1369",
		  "Mimecast" },
		/* words inside other words name nothing */
		{ "550 5.7.1 the filter absorbs this", NULL },
		{ "550 5.1.1 User unknown", NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const char *got = sd_blocklist_name(t[i].text, strlen(t[i].text));
		if (!t[i].name ? got != NULL : !got || strcmp(got, t[i].name))
			fail_msg("'%s' -> '%s', want '%s'", t[i].text, got ? got : "(null)",
				 t[i].name ? t[i].name : "(null)");
	}
	assert_null(sd_blocklist_name(NULL, 0));
	/* the text need not end in a NUL: only its n bytes are read */
	assert_null(sd_blocklist_name("spamcopX", 8));
	assert_string_equal(sd_blocklist_name("spamcopX", 7), "SpamCop");
}

static void test_query_errors(void **state)
{
	(void)state;
	assert_string_equal(sd_blocklist_query_error("listed (127.255.255.254)", 24),
			    "query through a public or open resolver (127.255.255.254)");
	assert_string_equal(sd_blocklist_query_error("x 127.255.255.252 y", 19),
			    "typing error in the DNSBL name (127.255.255.252)");
	assert_non_null(sd_blocklist_query_error("x 127.255.255.250 y", 19));
	assert_string_equal(sd_blocklist_query_error("Error: open resolver", 20),
			    "query through a public or open resolver");
	assert_null(sd_blocklist_query_error("listed (127.0.0.2)", 18));
	assert_null(sd_blocklist_query_error(NULL, 0));
}

/* ---- grouping ---- */

static const char s3150[] = "550 5.7.1 Unfortunately, messages from [192.0.2.1] weren't sent. Please contact your "
			    "Internet service provider since part of their network is on our block list (S3150).";

static void test_group_blocklist(void **state)
{
	smtpdiag_incidents *g = smtpdiag_incidents_new();
	smtpdiag_logrec a = rec("bounced", "a@hotmail.com", "hotmail-com.olc.protection.outlook.com[52.101.1.1]:25",
				"5.7.1", "blocked", sender_admin, s3150, T0 + 10);
	smtpdiag_logrec b = a, c = a, d = a;
	char *j;

	(void)state;
	b.recipient = "b@outlook.com";
	b.timestamp = T0 + 20;
	c.timestamp = T0 + 5; /* the same recipient again, earlier */
	d.diagnosticcode = "550 5.7.1 Unfortunately, messages from [192.0.2.9] weren't sent ... block list (S3150).";
	assert_int_equal(smtpdiag_incidents_add(g, &a), 1);
	assert_int_equal(smtpdiag_incidents_add(g, &b), 1);
	assert_int_equal(smtpdiag_incidents_add(g, &c), 1);
	assert_int_equal(smtpdiag_incidents_add(g, &d), 1);
	assert_int_equal(smtpdiag_incidents_count(g), 2);
	j = json(g);
	/* one per sending address, most records first */
	assert_non_null(strstr(j, "{\"type\":\"incident\",\"kind\":\"blocklist\",\"ip\":\"192.0.2.1\",\"host\":\"mx1\","
				  "\"provider\":\"Microsoft\",\"list\":\"Microsoft S3150\""));
	assert_non_null(strstr(j, "\"first\":1772532005,\"last\":1772532020,\"count\":3,\"deferred\":0,"
				  "\"bounced\":3,\"expired\":0,\"rejected\":0,\"recipients\":2,"));
	assert_non_null(strstr(j, "\"ip\":\"192.0.2.9\""));
	assert_true(strstr(j, "192.0.2.1\"") < strstr(j, "\"ip\":\"192.0.2.9\""));
	assert_non_null(strstr(j, "\"fixer\":[\"sender-admin\"]"));
	assert_non_null(strstr(j, "sender.office.com"));
	free(j);
	smtpdiag_incidents_free(g);
}

/* No address in the reply (or only the relay's own and a list's 127/8
 * answer): the syslog host is the key. */
static void test_key_by_host(void **state)
{
	smtpdiag_incidents *g = smtpdiag_incidents_new();
	smtpdiag_logrec a = rec("bounced", "a@example.net", "mx.example.net[198.51.100.7]:25", "5.7.1", "blocked",
				sender_admin, "554 5.7.1 [198.51.100.7] listed by zen.spamhaus.org (127.0.0.3)", T0);
	smtpdiag_logrec b = a, c = a;
	char *j;

	(void)state;
	c.diagnosticcode = "554 5.7.1 Client host [2001:db8::25] blocked using bl.spamcop.net";
	b.host = "mx2";
	assert_int_equal(smtpdiag_incidents_add(g, &a), 1);
	assert_int_equal(smtpdiag_incidents_add(g, &b), 1);
	assert_int_equal(smtpdiag_incidents_add(g, &c), 1);
	assert_int_equal(smtpdiag_incidents_count(g), 3);
	j = json(g);
	assert_non_null(strstr(j, "\"ip\":\"\",\"host\":\"mx1\",\"provider\":\"example.net\",\"list\":\"Spamhaus SBL CSS\""));
	assert_non_null(strstr(j, "\"ip\":\"\",\"host\":\"mx2\""));
	/* a bracketed IPv6 address is the sending address too */
	assert_non_null(strstr(j, "\"ip\":\"2001:db8::25\",\"host\":\"mx1\",\"provider\":\"example.net\",\"list\":\"SpamCop\""));
	free(j);
	smtpdiag_incidents_free(g);
}

/* Each kind from the verdict's reason and status; what makes no incident. */
static void test_kinds(void **state)
{
	static const struct {
		const char *action, *rcpt, *relay, *status, *reason;
		const char *const *fixer;
		const char *text, *want; /* want: a piece of the incident's JSON, NULL: no incident */
	} t[] = {
		{ "deferred", "a@gmail.com", "gmail-smtp-in.l.google.com[142.250.1.26]:25", "4.7.28", "ratelimited",
		  sender_admin, "421-4.7.28 [192.0.2.1 15] Our system has detected an unusual rate of",
		  "\"kind\":\"ratelimit\",\"ip\":\"192.0.2.1\",\"host\":\"mx1\",\"provider\":\"Google\",\"list\":\"Gmail unusual rate\"" },
		{ "deferred", "a@yahoo.com", "mta5.am0.yahoodns.net[67.195.204.1]:25", "4.3.0", "systemerror",
		  recipient_admin, "451 4.3.0 Temporary failure, try again", "\"kind\":\"deferring\",\"ip\":\"\",\"host\":\"mx1\",\"provider\":\"Yahoo\"" },
		{ "deferred", "a@example.org", "mx.example.org[203.0.113.5]:25", "4.7.5", "failedstarttls", sender_admin,
		  "Server certificate not trusted", "\"kind\":\"tls\",\"ip\":\"\",\"host\":\"mx1\",\"provider\":\"example.org\",\"list\":\"\",\"mx\":\"mx.example.org\"" },
		{ "deferred", "a@example.org", "none", "4.4.3", "networkerror", sender_admin,
		  "Host or domain name not found. Name service error for name=example.org type=MX: Host not found, try again",
		  "\"kind\":\"dns\",\"ip\":\"\",\"host\":\"mx1\",\"provider\":\"example.org\",\"list\":\"\",\"mx\":\"example.org\"" },
		{ "deferred", "a@example.co.uk", "none", "4.4.1", "networkerror", sender_admin,
		  "connect to mx1.example.co.uk[198.51.100.9]:25: Connection timed out",
		  "\"kind\":\"network\",\"ip\":\"\",\"host\":\"mx1\",\"provider\":\"example.co.uk\",\"list\":\"\",\"mx\":\"mx1.example.co.uk\"" },
		{ "bounced", "a@gmail.com", "gmail-smtp-in.l.google.com[142.250.1.26]:25", "5.7.26", "authfailure",
		  sender_admin, "550-5.7.26 Unauthenticated email from example.com is not accepted due to domain's DMARC policy",
		  "\"kind\":\"auth\",\"ip\":\"\",\"host\":\"mx1\",\"provider\":\"Google\",\"list\":\"\",\"mx\":\"\",\"domain\":\"example.com\"" },
		{ "bounced", "a@example.net", "mx.example.net[198.51.100.7]:25", "5.7.1", "systemerror", recipient_admin,
		  "554 5.7.1 Client host [192.0.2.1] blocked using zen.spamhaus.org; Error: open resolver",
		  "\"kind\":\"brokencheck\",\"ip\":\"\",\"host\":\"mx1\",\"provider\":\"example.net\",\"list\":\"Spamhaus\"" },
		/* a failure of one recipient, a sent record, a mailbox full deferral: no incident */
		{ "bounced", "a@example.net", "mx.example.net[198.51.100.7]:25", "5.1.1", "userunknown", sender_admin,
		  "550 5.1.1 User unknown", NULL },
		{ "deferred", "a@example.net", "mx.example.net[198.51.100.7]:25", "4.2.2", "mailboxfull", recipient_admin,
		  "452 4.2.2 Mailbox full", NULL },
		{ "sent", "a@example.net", "mx.example.net[198.51.100.7]:25", "2.0.0", "delivered", NULL, "250 ok", NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		smtpdiag_incidents *g = smtpdiag_incidents_new();
		smtpdiag_logrec r = rec(t[i].action, t[i].rcpt, t[i].relay, t[i].status, t[i].reason, t[i].fixer,
					t[i].text, T0);
		int rc = smtpdiag_incidents_add(g, &r);
		char *j = json(g);
		if (t[i].want ? rc != 1 || !strstr(j, t[i].want) : rc != 0 || strstr(j, "\"type\":\"incident\""))
			fail_msg("row %zu (%s): rc %d, %s", i, t[i].reason, rc, j);
		free(j);
		smtpdiag_incidents_free(g);
	}
}

/* The server's own refusals (action "rejected"): only a broken check is an
 * incident, keyed by the host that runs it. */
static void test_reject_records(void **state)
{
	smtpdiag_incidents *g = smtpdiag_incidents_new();
	smtpdiag_logrec a = rec("rejected", "bob@example.org", "", "5.7.1", "systemerror", recipient_admin,
				"554 5.7.1 Service unavailable; Client host [203.0.113.8] blocked using zen.spamhaus.org; "
				"Error: open resolver; https://check.spamhaus.org/returnc/pub/198.51.100.53", T0);
	smtpdiag_logrec b = a, c = a;
	char *j;

	(void)state;
	a.program = b.program = c.program = "postfix/smtpd";
	b.diagnosticcode = "554 5.7.1 Client host [203.0.113.9] blocked using zen.spamhaus.org (127.255.255.254)";
	c.reason = "blocked"; /* a real listing: the rejects' own business */
	c.diagnosticcode = "554 5.7.1 Client host [203.0.113.9] blocked using zen.spamhaus.org";
	assert_int_equal(smtpdiag_incidents_add(g, &a), 1);
	assert_int_equal(smtpdiag_incidents_add(g, &b), 1);
	assert_int_equal(smtpdiag_incidents_add(g, &c), 0);
	assert_int_equal(smtpdiag_incidents_count(g), 1);
	j = json(g);
	assert_non_null(strstr(j, "\"kind\":\"brokencheck\",\"ip\":\"\",\"host\":\"mx1\",\"provider\":\"\","
				  "\"list\":\"Spamhaus\""));
	assert_non_null(strstr(j, "\"count\":2,\"deferred\":0,\"bounced\":0,\"expired\":0,\"rejected\":2"));
	assert_non_null(strstr(j, "resolver of your own"));
	/* rejects are not deliveries: no hour rows */
	assert_null(strstr(j, "\"type\":\"domain_hour\""));
	free(j);
	smtpdiag_incidents_free(g);
}

/* ---- bounds ---- */

static void test_limits(void **state)
{
	smtpdiag_incidents *g = smtpdiag_incidents_new();
	char text[128], rcpt[64];
	char *j;

	(void)state;
	for (int i = 0; i < SMTPDIAG_INCIDENTS_MAX + 10; i++) {
		smtpdiag_logrec r = rec("bounced", "a@example.net", "mx.example.net[198.51.100.7]:25", "5.7.1", "blocked",
					sender_admin, text, T0);
		snprintf(text, sizeof(text), "554 5.7.1 [10.%d.%d.1] blocked using bl.spamcop.net", i / 256, i % 256);
		assert_int_equal(smtpdiag_incidents_add(g, &r), i < SMTPDIAG_INCIDENTS_MAX ? 1 : 0);
	}
	assert_int_equal(smtpdiag_incidents_count(g), SMTPDIAG_INCIDENTS_MAX);
	/* one incident with more recipients than it counts */
	for (int i = 0; i < SMTPDIAG_INCIDENT_MAX_RECIPIENTS + 5; i++) {
		smtpdiag_logrec r = rec("bounced", rcpt, "mx.example.net[198.51.100.7]:25", "5.7.1", "blocked",
					sender_admin, "554 5.7.1 [10.0.0.1] blocked using bl.spamcop.net", T0);
		snprintf(rcpt, sizeof(rcpt), "u%d@example.net", i);
		assert_int_equal(smtpdiag_incidents_add(g, &r), 1);
	}
	j = json(g);
	assert_non_null(strstr(j, "\"incidents\":4096,\"dropped\":10,"));
	assert_int_equal(count_of(j, "\"type\":\"incident\""), SMTPDIAG_INCIDENTS_MAX);
	assert_non_null(strstr(j, "\"recipients\":1024,\"recipients_capped\":true"));
	free(j);
	smtpdiag_incidents_free(g);
}

/* The hour view: the top domains by name, the rest summed as "other" per hour. */
static void test_hours(void **state)
{
	smtpdiag_incidents *g = smtpdiag_incidents_new();
	char rcpt[64];
	char *j;

	(void)state;
	for (int d = 0; d < SMTPDIAG_INCIDENTS_TOP_DOMAINS + 5; d++)
		for (int k = 0; k <= d; k++) {
			smtpdiag_logrec r = rec(k % 2 ? "deferred" : "bounced", rcpt, "", "5.1.1", "userunknown",
						sender_admin, "550 5.1.1 User unknown", T0 + (k % 3) * 3600 + 59);
			snprintf(rcpt, sizeof(rcpt), "u@d%02d.example", d);
			assert_int_equal(smtpdiag_incidents_add(g, &r), 0);
		}
	j = json(g);
	/* d00 .. d04 have the fewest failures: they are "other" */
	assert_null(strstr(j, "\"domain\":\"d04.example\""));
	assert_non_null(strstr(j, "\"domain\":\"d05.example\""));
	/* other in the first hour (k = 0, 3): five bounces (d00-d04), two deferrals (d03, d04) */
	assert_non_null(strstr(j, "{\"type\":\"domain_hour\",\"domain\":\"other\",\"hour\":1772532000,"
				  "\"deferred\":2,\"bounced\":5,\"expired\":0}"));
	assert_int_equal(count_of(j, "\"domain\":\"other\""), 3);
	assert_non_null(strstr(j, "\"records\":325,\"grouped\":0,\"ungrouped\":325,\"incidents\":0"));
	free(j);
	smtpdiag_incidents_free(g);
}

/* ---- merge and the open count ---- */

static void add_mixed(smtpdiag_incidents *g, int from, int to)
{
	for (int i = from; i < to; i++) {
		char rcpt[64];
		smtpdiag_logrec r = rec(i % 3 ? "deferred" : "bounced", rcpt,
					i % 2 ? "mta5.am0.yahoodns.net[67.195.204.1]:25" : "mx.example.net[198.51.100.7]:25",
					"4.7.0", i % 4 ? "badreputation" : "ratelimited", sender_admin,
					i % 5 ? "421 4.7.0 [TSS04] Messages from 192.0.2.1 temporarily deferred" : "421 4.7.0 slow down",
					T0 + i * 600);
		snprintf(rcpt, sizeof(rcpt), "u%d@d%d.example", i % 7, i % 4);
		assert_true(smtpdiag_incidents_add(g, &r) >= 0);
	}
}

static void test_merge(void **state)
{
	smtpdiag_incidents *one = smtpdiag_incidents_new(), *a = smtpdiag_incidents_new(), *b = smtpdiag_incidents_new();
	char *j1, *j2;

	(void)state;
	add_mixed(one, 0, 40);
	add_mixed(a, 0, 17);
	add_mixed(b, 17, 40);
	assert_int_equal(smtpdiag_incidents_merge(a, b), 0);
	j1 = json(one);
	j2 = json(a);
	assert_string_equal(j1, j2);
	assert_int_equal(smtpdiag_incidents_merge(a, a), SMTPDIAG_EINVAL);
	assert_int_equal(smtpdiag_incidents_merge(NULL, b), SMTPDIAG_EINVAL);
	free(j1);
	free(j2);
	smtpdiag_incidents_free(one);
	smtpdiag_incidents_free(a);
	smtpdiag_incidents_free(b);
}

static void test_open(void **state)
{
	smtpdiag_incidents *g = smtpdiag_incidents_new();
	smtpdiag_logrec a = rec("deferred", "a@gmail.com", "gmail-smtp-in.l.google.com[142.250.1.26]:25", "4.7.28",
				"ratelimited", sender_admin, "421 4.7.28 slow down", T0);
	smtpdiag_logrec b = rec("deferred", "a@example.org", "mx.example.org[203.0.113.5]:25", "4.7.5",
				"failedstarttls", sender_admin, "Server certificate not trusted", T0 + 7200);

	(void)state;
	assert_int_equal(smtpdiag_incidents_add(g, &a), 1);
	assert_int_equal(smtpdiag_incidents_add(g, &b), 1);
	assert_int_equal(smtpdiag_incidents_open(g, T0 + 7200), 1);
	assert_int_equal(smtpdiag_incidents_open(g, T0 + SMTPDIAG_INCIDENT_OPEN_SECONDS), 2);
	assert_int_equal(smtpdiag_incidents_open(g, T0 + 7200 + SMTPDIAG_INCIDENT_OPEN_SECONDS + 1), 0);
	assert_int_equal(smtpdiag_incidents_open(NULL, 0), 0);
	smtpdiag_incidents_free(g);
}

static void test_bad_args(void **state)
{
	smtpdiag_incidents *g = smtpdiag_incidents_new();
	smtpdiag_buf b = { 0 };
	smtpdiag_logrec r = rec("deferred", "a@example.org", "", "4.4.1", "networkerror", NULL, "x", T0);

	(void)state;
	assert_int_equal(smtpdiag_incidents_add(NULL, &r), SMTPDIAG_EINVAL);
	assert_int_equal(smtpdiag_incidents_add(g, NULL), SMTPDIAG_EINVAL);
	assert_int_equal(smtpdiag_incidents_json(NULL, &b), SMTPDIAG_EINVAL);
	assert_int_equal(smtpdiag_incidents_text(g, NULL), SMTPDIAG_EINVAL);
	assert_int_equal(smtpdiag_incidents_text(g, &b), 0);
	assert_non_null(strstr(b.data, "incidents: 0"));
	smtpdiag_buf_free(&b);
	smtpdiag_incidents_free(g);
	smtpdiag_incidents_free(NULL);
}

/* The report escapes what comes from the logs: a control character in a
 * reply reaches no terminal. */
static void test_text_escapes(void **state)
{
	smtpdiag_incidents *g = smtpdiag_incidents_new();
	smtpdiag_logrec r = rec("deferred", "a@example.org", "mx.example.org[203.0.113.5]:25", "4.7.5",
				"failedstarttls", sender_admin, "Server certificate not trusted \x1b[2J", T0);
	smtpdiag_buf b = { 0 };

	(void)state;
	assert_int_equal(smtpdiag_incidents_add(g, &r), 1);
	assert_int_equal(smtpdiag_incidents_text(g, &b), 0);
	assert_null(strchr(b.data, '\x1b'));
	assert_non_null(strstr(b.data, "  sample:     Server certificate not trusted \\x1b[2J\n"));
	assert_non_null(strstr(b.data, "tls\n  sending:    host mx1\n  provider:   example.org\n  mx:         mx.example.org\n"));
	smtpdiag_buf_free(&b);
	smtpdiag_incidents_free(g);
}

/* Through the scanner: the verdict of real lines makes the kinds. */
static void test_scanned_lines(void **state)
{
	static const char *const lines[] = {
		"Mar  3 10:00:04 mx1 postfix/smtp[3101]: 1A2B3C4D61: to=<a@hotmail.com>, "
		"relay=hotmail-com.olc.protection.outlook.com[52.101.1.1]:25, delay=1, delays=0/0/1/0, dsn=5.7.1, "
		"status=bounced (host hotmail-com.olc.protection.outlook.com[52.101.1.1] said: 550 5.7.1 Unfortunately, "
		"messages from [192.0.2.1] weren't sent. Please contact your Internet service provider since part of "
		"their network is on our block list (S3150). (in reply to MAIL FROM command))",
		"Mar  3 10:00:10 mx1 postfix/smtp[3101]: 1A2B3C4D67: to=<a@example.net>, "
		"relay=mx.example.net[198.51.100.7]:25, delay=1, delays=0/0/1/0, dsn=5.7.1, status=bounced (host "
		"mx.example.net[198.51.100.7] said: 550 5.7.1 Rejected: 192.0.2.1 listed at zen.spamhaus.org "
		"(127.255.255.254) (in reply to RCPT TO command))",
	};
	smtpdiag_scanner *s = smtpdiag_scanner_new(SMTPDIAG_SCAN_UTC);
	smtpdiag_incidents *g = smtpdiag_incidents_new();
	char *j;

	(void)state;
	assert_non_null(s);
	smtpdiag_scanner_reftime(s, T0);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		assert_int_equal(smtpdiag_scan_line(s, lines[i], strlen(lines[i])), 1);
		assert_int_equal(smtpdiag_incidents_add(g, smtpdiag_scanner_rec(s, 0)), 1);
	}
	j = json(g);
	assert_non_null(strstr(j, "\"kind\":\"blocklist\",\"ip\":\"192.0.2.1\",\"host\":\"mx1\",\"provider\":\"Microsoft\""));
	assert_non_null(strstr(j, "\"kind\":\"brokencheck\""));
	assert_non_null(strstr(j, "\"queryerror\":\"query through a public or open resolver (127.255.255.254)\""));
	free(j);
	smtpdiag_incidents_free(g);
	smtpdiag_scanner_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blocklist_names),
		cmocka_unit_test(test_query_errors),
		cmocka_unit_test(test_group_blocklist),
		cmocka_unit_test(test_key_by_host),
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_reject_records),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_hours),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_open),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_text_escapes),
		cmocka_unit_test(test_scanned_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
