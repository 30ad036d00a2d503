/* test_scan_formats.c - the logs that are no syslog lines: PowerMTA accounting
 * (CSV with a header line or the default order), KumoMTA JSON records,
 * Exchange message tracking and Microsoft 365 message trace CSV. Each input is
 * a list of lines scanned in turn; the record of the last line is checked. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "smtpdiag.h"

static smtpdiag_scanner *scanner(void)
{
	smtpdiag_scanner *s = smtpdiag_scanner_new(SMTPDIAG_SCAN_UTC);

	assert_non_null(s);
	smtpdiag_scanner_reftime(s, 1717200000);
	return s;
}

static int scan(smtpdiag_scanner *s, const char *line)
{
	return smtpdiag_scan_line(s, line, strlen(line));
}

/* Scan the lines before the last, each giving 0 (headers, skipped records),
 * then the last: its result. */
static int scan_all(smtpdiag_scanner *s, const char *const *lines)
{
	size_t i = 0;

	for (; lines[i + 1]; i++)
		assert_int_equal(scan(s, lines[i]), 0);
	return scan(s, lines[i]);
}

static void field(const char *got, const char *want)
{
	if (want)
		assert_string_equal(got, want);
}

typedef struct want {
	const char *lines[6];
	int rc;
	const char *format, *action, *queueid, *recipient, *sender, *relay, *replycode, *status, *dsn, *diag;
	int64_t ts, delay;
	const char *reason;
} want;

#define PMTA_HDR "type,timeLogged,timeQueued,orig,rcpt,orcpt,dsnAction,dsnStatus,dsnDiag,dsnMta,bounceCat,srcType," \
		 "srcMta,dlvType,dlvSourceIp,dlvDestinationIp,dlvEsmtpAvailable,dlvSize,vmta,jobId,envId,queue,vmtaPool"

static const want cases[] = {
	/* PowerMTA: the header's columns; quoted diag with a comma */
	{ { PMTA_HDR,
	    "b,2024-01-12 10:15:03-0500,2024-01-12 10:14:58-0500,b@news.example.com,bob@example.net,,failed,"
	    "5.1.1 (bad destination mailbox address),\"smtp;550 5.1.1 <bob@example.net>: no such user, sorry\","
	    "mx.example.net (203.0.113.5),bad-mailbox,smtp,app,smtp,198.51.100.7,203.0.113.5,,42,v,j,env-2,q,",
	    NULL },
	  1, "powermta", "bounced", "env-2", "bob@example.net", "b@news.example.com", "mx.example.net (203.0.113.5)",
	  "550", "5.1.1", "5.1.1", "550 5.1.1 <bob@example.net>: no such user, sorry", 1705072503, 5, "userunknown" },
	/* PowerMTA: a header of its own order (record-fields), long type names */
	{ { "type,timeLogged,rcpt,orig,dsnStatus,dsnDiag",
	    "delivery,1705072501,carol@example.org,b@news.example.com,2.0.0 (success),smtp;250 2.0.0 OK", NULL },
	  1, "powermta", "sent", "", "carol@example.org", "b@news.example.com", "", "250", "2.0.0", "2.0.0",
	  "250 2.0.0 OK", 1705072501, -1, "delivered" },
	/* PowerMTA: no header, the default order; doubled quotes */
	{ { "t,2024-01-12 15:16:00+0000,2024-01-12 15:14:58+0000,b@news.example.com,dan@yahoo.example,,delayed,"
	    "4.7.0 (delivery not authorized),\"smtp;421 4.7.0 [TSS04] \"\"deferred\"\" due to user complaints\","
	    "mta5.yahoo.example (198.18.0.5),policy-related",
	    NULL },
	  1, "powermta", "deferred", "", "dan@yahoo.example", "b@news.example.com", "mta5.yahoo.example (198.18.0.5)",
	  "421", "4.7.0", "4.7.0", "421 4.7.0 [TSS04] \"deferred\" due to user complaints", 1705072560, 62, NULL },
	/* PowerMTA: a bounce with a 4.x.x status is the expiry after transient failures */
	{ { PMTA_HDR, "b,1705504500,1705072498,b@x.example,erin@slow.example,,failed,4.4.7 (delivery time expired),"
		      "smtp;451 4.4.1 no answer from host,,routing-errors", NULL },
	  1, "powermta", "expired", "", "erin@slow.example", NULL, "", "451", "4.4.1", "4.4.7", NULL, 1705504500,
	  432002, "expired" },
	/* PowerMTA: a UTF-8 byte order mark before the header */
	{ { "\xEF\xBB\xBFtype,timeLogged,rcpt,dsnStatus,dsnDiag", "b,1705072501,frank@example.org,5.2.2,smtp;552 5.2.2 Mailbox full", NULL },
	  1, "powermta", "bounced", NULL, "frank@example.org", NULL, NULL, "552", "5.2.2", "5.2.2", NULL, 1705072501, -1, "mailboxfull" },
	/* PowerMTA: a quote that does not close on the line */
	{ { PMTA_HDR, "b,1705072501,,x@y,gina@example.org,,failed,5.0.0,\"smtp;550 unterminated", NULL },
	  .rc = SMTPDIAG_EPARSE },
	/* PowerMTA: received and feedback records are no attempt */
	{ { PMTA_HDR, "r,1705072501,,x@y,hank@example.org,,,,,,,smtp,app", NULL }, .rc = 0 },
	{ { PMTA_HDR, "f,1705072501,,x@y,hank@example.org", NULL }, .rc = 0 },
	/* PowerMTA: a bounce without a recipient cannot be read */
	{ { PMTA_HDR, "b,1705072501,,x@y,,,failed,5.1.1,smtp;550 5.1.1 who", NULL }, .rc = SMTPDIAG_EPARSE },
	/* KumoMTA: a bounce; the reply put together from code, enhanced_code and content */
	{ { "{\"type\":\"Bounce\",\"id\":\"2e11\",\"sender\":\"n@s.example\",\"recipient\":\"bob@gmail.example\","
	    "\"response\":{\"code\":550,\"enhanced_code\":{\"class\":5,\"subject\":1,\"detail\":1},\"content\":\"The "
	    "email account that you tried to reach does not exist.\",\"command\":\"RCPT TO:<bob@gmail.example>\\r\\n\"},"
	    "\"peer_address\":{\"name\":\"gmail-smtp-in.l.google.com.\",\"addr\":\"142.250.102.27\"},"
	    "\"timestamp\":1705072503,\"created\":1705072498}", NULL },
	  1, "kumomta", "bounced", "2e11", "bob@gmail.example", "n@s.example", "gmail-smtp-in.l.google.com.[142.250.102.27]",
	  "550", "5.1.1", "", "550 5.1.1 The email account that you tried to reach does not exist.", 1705072503, 5,
	  "userunknown" },
	/* KumoMTA: RFC 3339 times, no enhanced code, the site as relay */
	{ { "{\"type\":\"TransientFailure\",\"id\":\"3f\",\"recipient\":\"c@example.net\",\"site\":\"mx.example.net\","
	    "\"response\":{\"code\":421,\"content\":\"Too many connections\"},\"timestamp\":\"2024-01-12T15:16:00Z\","
	    "\"created\":\"2024-01-12T15:14:58Z\"}", NULL },
	  1, "kumomta", "deferred", "3f", "c@example.net", "", "mx.example.net", "421", "", "", "421 Too many connections",
	  1705072560, 62, NULL },
	/* KumoMTA: a recipient list gives a record each */
	{ { "{\"type\":\"Delivery\",\"id\":\"4a\",\"recipient\":[\"d@example.org\",\"e@example.org\"],"
	    "\"response\":{\"code\":250,\"enhanced_code\":{\"class\":2,\"subject\":0,\"detail\":0},\"content\":\"OK\"},"
	    "\"timestamp\":1705072501}", NULL },
	  2, "kumomta", "sent", "4a", "d@example.org", "", "", "250", "2.0.0", "", "250 2.0.0 OK", 1705072501, -1,
	  "delivered" },
	/* KumoMTA: records that are no attempt, other JSON, broken JSON, deep JSON */
	{ { "{\"type\":\"Reception\",\"id\":\"5\",\"recipient\":\"a@b.example\",\"response\":{\"code\":250}}", NULL }, .rc = 0 },
	{ { "{\"type\":\"Feedback\",\"id\":\"6\",\"recipient\":\"a@b.example\"}", NULL }, .rc = 0 },
	{ { "{\"level\":\"info\",\"msg\":\"hello\"}", NULL }, .rc = 0 },
	{ { "{\"type\":\"Bounce\",\"response\":{\"code\":550,\"content\":\"cut", NULL }, .rc = SMTPDIAG_EPARSE },
	{ { "{\"type\":\"Bounce\",\"id\":\"7\",\"response\":{\"code\":550}}", NULL }, .rc = SMTPDIAG_EPARSE },
	{ { "{\"type\":\"Bounce\",\"response\":1,\"x\":[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]}", NULL },
	  .rc = SMTPDIAG_EPARSE },
	/* Microsoft 365: Get-MessageTraceV2 | Export-Csv, quoted, en-US time */
	{ { "#TYPE Deserialized.Microsoft.Exchange.Management.FfoReporting.MessageTraceV2",
	    "\"Received\",\"SenderAddress\",\"RecipientAddress\",\"Subject\",\"Status\",\"ToIP\",\"FromIP\",\"Size\","
	    "\"MessageId\",\"MessageTraceId\"",
	    "\"12/31/2023 12:00:01 PM\",\"n@contoso.example\",\"bob@example.net\",\"Hi, \"\"you\"\"\",\"Failed\",\"\","
	    "\"10.0.0.21\",\"42\",\"<a@contoso.example>\",\"e4b3\"", NULL },
	  1, "m365", "bounced", "e4b3", "bob@example.net", "n@contoso.example", "", "", "", "", "", 1704024001, -1,
	  NULL },
	/* Microsoft 365: the extended report's last event per recipient */
	{ { "origin_timestamp_utc,sender_address,recipient_status,network_message_id",
	    "2024-01-12T15:15:00.9870000Z,n@contoso.example,\"a@example.org##Receive, Expand;b@example.net##Receive, "
	    "Defer, Fail\",1341", NULL },
	  1, "m365", "bounced", "1341", "b@example.net", "n@contoso.example", "", "", "", "", "", 1705072500, -1, NULL },
	/* Microsoft 365: a detail export, the reply is LED= */
	{ { "Date,Event,Action,Detail,MessageTraceId,RecipientAddress",
	    "2024-01-12T15:15:02Z,Fail,,\"Reason: [{LED=550 5.1.10 RESOLVER.ADR.RecipientNotFound; not found};{MSG=}]\",e4,"
	    "c@example.net", NULL },
	  1, "m365", "bounced", "e4", "c@example.net", "", "", "550", "5.1.10", "",
	  "550 5.1.10 RESOLVER.ADR.RecipientNotFound; not found", 1705072502, -1, "userunknown" },
	/* Microsoft 365: statuses and events that are no attempt; a time of another culture */
	{ { "Received,SenderAddress,RecipientAddress,Status", "2024-01-12T15:15:00Z,a@b.example,c@d.example,Quarantined", NULL },
	  .rc = 0 },
	{ { "Received,SenderAddress,RecipientAddress,Status", "12.01.2024 15:15:00,a@b.example,c@d.example,Failed", NULL },
	  .rc = SMTPDIAG_EPARSE },
	/* a CSV of something else is no header */
	{ { "name,email,status", NULL }, .rc = 0 },
};

static void test_cases(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const want *w = &cases[i];
		smtpdiag_scanner *s = scanner();
		const smtpdiag_logrec *r;
		int rc = scan_all(s, w->lines);

		if (rc != w->rc)
			fail_msg("case %zu: %d records, want %d", i, rc, w->rc);
		if (rc <= 0) {
			smtpdiag_scanner_free(s);
			continue;
		}
		r = smtpdiag_scanner_rec(s, 0);
		assert_non_null(r);
		field(r->format, w->format);
		field(r->action, w->action);
		field(r->queueid, w->queueid);
		field(r->recipient, w->recipient);
		field(r->sender, w->sender);
		field(r->relay, w->relay);
		field(r->replycode, w->replycode);
		field(r->status, w->status);
		field(r->dsn, w->dsn);
		field(r->diagnosticcode, w->diag);
		field(r->reason, w->reason);
		assert_int_equal(r->timestamp, w->ts);
		assert_int_equal(r->delay, w->delay);
		smtpdiag_scanner_free(s);
	}
}

/* A header stays in force until the next input: smtpdiag_scanner_reset()
 * brings the default order back. */
static void test_reset(void **state)
{
	smtpdiag_scanner *s = scanner();
	const char *line = "b,1705072501,1705072498,x@news.example,ivan@example.org,,failed,5.1.1,smtp;550 5.1.1 unknown";

	(void)state;
	assert_int_equal(scan(s, "type,rcpt,timeLogged,orig"), 0);
	assert_int_equal(scan(s, line), 1);
	assert_string_equal(smtpdiag_scanner_rec(s, 0)->recipient, "1705072501"); /* read by the header */
	smtpdiag_scanner_reset(s);
	assert_int_equal(scan(s, line), 1);
	assert_string_equal(smtpdiag_scanner_rec(s, 0)->recipient, "ivan@example.org");
	assert_string_equal(smtpdiag_scanner_rec(s, 0)->reason, "userunknown");
	smtpdiag_scanner_reset(NULL);
	smtpdiag_scanner_free(s);
}

/* Syslog lines are still read after a CSV header, and CSV-like text of other
 * programs is no record. */
static void test_not_csv(void **state)
{
	smtpdiag_scanner *s = scanner();

	(void)state;
	assert_int_equal(scan(s, "hello,world"), 0);
	assert_int_equal(scan(s, "d,"), 0);
	assert_int_equal(scan(s, PMTA_HDR), 0);
	assert_int_equal(scan(s, "Mar  3 09:00:02 mx1 postfix/smtp[2103]: 3F2A1B2C3D: to=<bob@example.org>, "
				 "relay=mx.example.org[203.0.113.5]:25, delay=0.61, delays=0.01/0.01/0/0.6, dsn=5.1.1, "
				 "status=bounced (host mx.example.org[203.0.113.5] said: 550 5.1.1 unknown (in reply to "
				 "RCPT TO command))"),
			 1);
	assert_string_equal(smtpdiag_scanner_rec(s, 0)->format, "postfix");
	assert_int_equal(scan(s, "2024-01-12 10:15:01 1rOabc-0001Xy-2B => a@example.org R=dnslookup T=remote_smtp "
				 "H=mx.example.org [192.0.2.1] C=\"250 OK\""),
			 1);
	assert_string_equal(smtpdiag_scanner_rec(s, 0)->format, "exim");
	smtpdiag_scanner_free(s);
}

/* Exchange: a status list pairs with the recipient list when they are as
 * many, split at a ';' that starts another reply; else each gets it whole. */
static void test_exchange_pairs(void **state)
{
	smtpdiag_scanner *s = scanner();
	const char *head = "#Fields: date-time,server-ip,server-hostname,source,event-id,internal-message-id,"
			   "recipient-address,recipient-status,sender-address";

	(void)state;
	assert_int_equal(scan(s, "#Software: Microsoft Exchange Server"), 0);
	assert_int_equal(scan(s, head), 0);
	assert_int_equal(scan(s, "2024-01-12T15:15:02.200Z,203.0.113.5,mx.example.net,SMTP,FAIL,4123,a@example.net;b@example.net,"
				 "\"550 5.1.1 RESOLVER.ADR.RecipNotFound; not found;552 5.2.2 mailbox full\",n@example.com"),
			 2);
	assert_string_equal(smtpdiag_scanner_rec(s, 0)->recipient, "a@example.net");
	assert_string_equal(smtpdiag_scanner_rec(s, 0)->diagnosticcode, "550 5.1.1 RESOLVER.ADR.RecipNotFound; not found");
	assert_string_equal(smtpdiag_scanner_rec(s, 0)->reason, "userunknown");
	assert_string_equal(smtpdiag_scanner_rec(s, 1)->recipient, "b@example.net");
	assert_string_equal(smtpdiag_scanner_rec(s, 1)->status, "5.2.2");
	assert_string_equal(smtpdiag_scanner_rec(s, 1)->relay, "mx.example.net[203.0.113.5]");
	assert_int_equal(smtpdiag_scanner_rec(s, 1)->timestamp, 1705072502);
	/* one status for two recipients: both get it */
	assert_int_equal(scan(s, "2024-01-12T15:15:02.200Z,,,SMTP,FAIL,4124,c@example.net;d@example.net,"
				 "550 5.7.1 blocked; see policy,n@example.com"),
			 2);
	assert_string_equal(smtpdiag_scanner_rec(s, 1)->diagnosticcode, "550 5.7.1 blocked; see policy");
	/* events that are no attempt, and a broken quote */
	assert_int_equal(scan(s, "2024-01-12T15:15:02.200Z,,,SMTP,RECEIVE,4125,e@example.net,,n@example.com"), 0);
	assert_int_equal(scan(s, "2024-01-12T15:15:02.200Z,,,SMTP,FAIL,4126,e@example.net,\"550 cut"), SMTPDIAG_EPARSE);
	/* an Exim line is still Exim's after the header */
	assert_int_equal(scan(s, "2024-01-12 10:15:01 1rOabc-0001Xy-2B => a@example.org R=dnslookup T=remote_smtp "
				 "H=mx.example.org [192.0.2.1] C=\"250 OK\""),
			 1);
	assert_string_equal(smtpdiag_scanner_rec(s, 0)->format, "exim");
	smtpdiag_scanner_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_not_csv),
		cmocka_unit_test(test_exchange_pairs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
