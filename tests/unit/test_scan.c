/* test_scan.c - the log scanner: envelopes, the four MTA families, codes,
 * times, limits, and the JSON of a record. Times are read as UTC against a
 * fixed reference (2024-06-01) unless a test says otherwise. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "smtpdiag.h"
#include "scan/scan.h"

#define REF_2024_06_01 1717200000
#define T_2024_03_03_0900 1709456400 /* also the time in the Exim id 1rghhQ-... */

static smtpdiag_scanner *utc_scanner(void)
{
	smtpdiag_scanner *s = smtpdiag_scanner_new(SMTPDIAG_SCAN_UTC);

	assert_non_null(s);
	smtpdiag_scanner_reftime(s, REF_2024_06_01);
	return s;
}

static int scan(smtpdiag_scanner *s, const char *line)
{
	return smtpdiag_scan_line(s, line, strlen(line));
}

/* ---- one record per line: what each field must hold ---- */

typedef struct want {
	const char *line;
	const char *format, *action, *queueid, *recipient, *orig, *relay;
	const char *replycode, *status, *dsn, *command;
	int64_t delay;
	int64_t ts;            /* -1: not checked */
	const char *reason;    /* NULL: not checked */
	int hard, retry;       /* -1: not checked */
} want;

static const want records[] = {
	/* Postfix: remote refusal with the command, orig_to */
	{ "Mar  3 09:00:02 mx1 postfix/smtp[2103]: 3F2A1B2C3D: to=<bob@example.org>, orig_to=<bob@alias.example.com>, relay=mx.example.org[203.0.113.5]:25, conn_use=2, delay=0.61, delays=0.01/0.01/0/0.6, dsn=5.1.1, status=bounced (host mx.example.org[203.0.113.5] said: 550 5.1.1 <bob@example.org>: Recipient address rejected: User unknown in virtual mailbox table (in reply to RCPT TO command))",
	  "postfix", "bounced", "3F2A1B2C3D", "bob@example.org", "bob@alias.example.com", "mx.example.org[203.0.113.5]:25",
	  "550", "5.1.1", "5.1.1", "RCPT", 0, T_2024_03_03_0900 + 2, "userunknown", 1, 0 },
	/* Postfix: sent */
	{ "Mar  3 09:00:02 mx1 postfix/smtp[2103]: 3F2A1B2C3D: to=<alice@example.org>, relay=mx.example.org[203.0.113.5]:25, delay=0.52, delays=0.01/0.01/0.2/0.3, dsn=2.0.0, status=sent (250 2.0.0 Ok: queued as 9A8B7C6D5E)",
	  "postfix", "sent", "3F2A1B2C3D", "alice@example.org", "", "mx.example.org[203.0.113.5]:25",
	  "250", "2.0.0", "2.0.0", "", 0, -1, "delivered", 0, 0 },
	/* Postfix: deferral without a remote reply keeps the MTA's dsn as status */
	{ "Mar  3 09:00:03 mx1 postfix/smtp[2104]: 3F2A1B2C3D: to=<carol@example.net>, relay=none, delay=455000, delays=454990/0.01/10/0, dsn=4.4.1, status=deferred (connect to mx.example.net[198.51.100.9]:25: Connection timed out)",
	  "postfix", "deferred", "3F2A1B2C3D", "carol@example.net", "", "none",
	  "", "4.4.1", "4.4.1", "", 455000, -1, "networkerror", 0, 1 },
	/* Postfix: a 4xx turned into a bounce; the remote's status is kept apart from dsn */
	{ "Mar  3 09:00:04 mx1 postfix/smtp[2106]: 4A1B2C3D5E: to=<dave@contoso.example>, relay=contoso-example.mail.protection.outlook.com[203.0.113.44]:25, delay=2.1, delays=0.1/0/0.9/1.1, tls=(may)TLSv1.3, dsn=5.3.1, status=bounced (host contoso-example.mail.protection.outlook.com[203.0.113.44] said: 431 4.3.1 STOREDRV.Deliver; mailbox database is out of space (in reply to end of DATA command))",
	  "postfix", "bounced", "4A1B2C3D5E", "dave@contoso.example", "", "contoso-example.mail.protection.outlook.com[203.0.113.44]:25",
	  "431", "4.3.1", "5.3.1", "DATA", 2, -1, NULL, 0, 1 },
	/* Postfix: refused at the greeting */
	{ "Mar  3 09:00:06 mx1 postfix/smtp[2108]: 4C1B2C3D5E: to=<frank@example.com>, relay=mx.example.com[198.51.100.7]:25, delay=1, delays=0/0/1/0, dsn=5.7.1, status=bounced (host mx.example.com[198.51.100.7] refused to talk to me: 554 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org)",
	  "postfix", "bounced", "4C1B2C3D5E", "frank@example.com", "", "mx.example.com[198.51.100.7]:25",
	  "554", "5.7.1", "5.7.1", "CONN", 1, -1, NULL, 0, -1 },
	/* Postfix: local delivery agent, no reply code */
	{ "Mar  3 09:00:08 mx1 postfix/local[2110]: 4E1B2C3D5E: to=<heidi@mx1.example.com>, orig_to=<postmaster@mx1.example.com>, relay=local, delay=0.02, delays=0.01/0/0/0.01, dsn=2.0.0, status=sent (delivered to mailbox)",
	  "postfix", "sent", "4E1B2C3D5E", "heidi@mx1.example.com", "postmaster@mx1.example.com", "local",
	  "", "2.0.0", "2.0.0", "", 0, -1, "delivered", 0, 0 },
	/* Postfix: qmgr's expiry, per message */
	{ "Mar  3 09:00:12 mx1 postfix/qmgr[812]: 521B2C3D5E: from=<newsletter@example.com>, status=expired, returned to sender",
	  "postfix", "expired", "521B2C3D5E", "", "", "", "", "", "", "", -1, -1, "expired", 0, 0 },
	/* Postfix: soft_bounce=yes logs SOFTBOUNCE for what is deferred */
	{ "Mar  3 09:00:13 mx1 postfix/smtp[2114]: 531B2C3D5E: to=<oscar@example.org>, relay=mx.example.org[203.0.113.5]:25, delay=0.9, delays=0/0/0.4/0.5, dsn=5.1.1, status=SOFTBOUNCE (host mx.example.org[203.0.113.5] said: 550 5.1.1 User unknown (in reply to RCPT TO command))",
	  "postfix", "deferred", "531B2C3D5E", "oscar@example.org", "", "mx.example.org[203.0.113.5]:25",
	  "550", "5.1.1", "5.1.1", "RCPT", 0, -1, NULL, -1, -1 },
	/* Postfix: another instance's syslog name, long queue id */
	{ "Mar  3 09:00:14 mx1 postfix-out/smtp[2115]: 4Rz5Xc1Hq5z9tGv: to=<peggy@example.org>, relay=mx.example.org[203.0.113.5]:25, delay=0.4, delays=0/0/0.2/0.2, dsn=2.0.0, status=sent (250 2.0.0 Ok: queued as 7F6E5D4C3B)",
	  "postfix", "sent", "4Rz5Xc1Hq5z9tGv", "peggy@example.org", "", "mx.example.org[203.0.113.5]:25",
	  "250", "2.0.0", "2.0.0", "", 0, -1, NULL, 0, 0 },
	/* Postfix: pipe(8) failure is a local program's text */
	{ "Mar  3 09:00:11 mx1 postfix/pipe[2113]: 511B2C3D5E: to=<mallory@example.com>, relay=spamfilter, delay=0.2, delays=0/0/0/0.2, dsn=5.3.0, status=bounced (Command died with status 1: \"/usr/local/bin/filter\")",
	  "postfix", "bounced", "511B2C3D5E", "mallory@example.com", "", "spamfilter",
	  "", "5.3.0", "5.3.0", "", 0, -1, "mailererror", 0, -1 },
	/* Exim: delivery with confirmation and time on queue */
	{ "2024-03-03 09:00:02 1rghhQ-0001Xy-2B => alice@example.org R=dnslookup T=remote_smtp H=mx.example.org [203.0.113.5] X=TLS1.3:TLS_AES_256_GCM_SHA384:256 CV=yes C=\"250 2.0.0 Ok: queued as 9A8B7C6D5E\" QT=1m2s",
	  "exim", "sent", "1rghhQ-0001Xy-2B", "alice@example.org", "", "mx.example.org [203.0.113.5]",
	  "250", "2.0.0", "", "", 62, T_2024_03_03_0900 + 2, "delivered", 0, 0 },
	/* Exim: bounce with the new H= before the message; delay from the id */
	{ "2024-03-03 09:00:03 1rghhQ-0001Xy-2B ** bob@example.org <bob@alias.example.com> R=dnslookup T=remote_smtp H=mx.example.org [203.0.113.5]: SMTP error from remote mail server after RCPT TO:<bob@example.org>: 550 5.1.1 <bob@example.org>: Recipient address rejected: User unknown",
	  "exim", "bounced", "1rghhQ-0001Xy-2B", "bob@example.org", "bob@alias.example.com", "mx.example.org [203.0.113.5]",
	  "550", "5.1.1", "", "RCPT", 3, T_2024_03_03_0900 + 3, "userunknown", 1, 0 },
	/* Exim: deferral, the host inside the message (older Exim) */
	{ "2024-03-03 09:00:04 1rghhQ-0001Xy-2B == erin@example.com R=dnslookup T=remote_smtp defer (-45): SMTP error from remote mail server after MAIL FROM:<sender@example.com> SIZE=2351: host mx.example.com [198.51.100.7]: 421 4.7.0 [TSS04] Messages from 192.0.2.1 temporarily deferred",
	  "exim", "deferred", "1rghhQ-0001Xy-2B", "erin@example.com", "", "mx.example.com [198.51.100.7]",
	  "421", "4.7.0", "", "MAIL", 4, -1, NULL, 0, 1 },
	/* Exim: end of data, zone and pid, and the 4.97 id form */
	{ "2024-03-03 10:00:13.250 +0100 [4242] 1rghhQ-000000003Y6-9IaB ** gina@example.org R=dnslookup T=remote_smtp H=mx.example.org [203.0.113.5]: SMTP error from remote mail server after end of data: 552 5.2.2 <gina@example.org>: Mailbox full",
	  "exim", "bounced", "1rghhQ-000000003Y6-9IaB", "gina@example.org", "", "mx.example.org [203.0.113.5]",
	  "552", "5.2.2", "", "DATA", 13, T_2024_03_03_0900 + 13, "mailboxfull", 0, 1 },
	/* Exim: giving up after the retry period is an expiry */
	{ "2024-03-03 09:00:15 1rghhQ-0001Y7-AJ ** userx@example.org: retry timeout exceeded",
	  "exim", "expired", "1rghhQ-0001Y7-AJ", "userx@example.org", "", "", "", "", "", "", 15, -1, "expired", 0, 0 },
	/* Exim through syslog, with its own time */
	{ "Mar  3 09:00:07 mx2 exim[5555]: 2024-03-03 09:00:07 1rghhQ-0001Z0-1A ** a7@example.org R=dnslookup T=remote_smtp H=mx.example.org [203.0.113.5]: SMTP error from remote mail server after RCPT TO:<a7@example.org>: 550 5.1.1 User unknown",
	  "exim", "bounced", "1rghhQ-0001Z0-1A", "a7@example.org", "", "mx.example.org [203.0.113.5]",
	  "550", "5.1.1", "", "RCPT", 7, T_2024_03_03_0900 + 7, NULL, 1, 0 },
	/* Sendmail: the reply after "Deferred: " */
	{ "Mar  3 09:00:05 mx3 sm-mta[7426]: 423900Xa007420: to=<erin@example.com>, delay=5+20:38:23, xdelay=00:00:00, mailer=esmtp, pri=11550899, relay=mx.example.com. [198.51.100.7], dsn=4.1.8, stat=Deferred: 450 4.1.8 <sender@example.com>: Sender address rejected: Domain not found",
	  "sendmail", "deferred", "423900Xa007420", "erin@example.com", "", "mx.example.com. [198.51.100.7]",
	  "450", "4.1.8", "4.1.8", "", 5 * 86400 + 20 * 3600 + 38 * 60 + 23, -1, NULL, 0, 1 },
	/* Sendmail: a bounce names no reply code */
	{ "Mar  3 09:00:03 mx3 sm-mta[7425]: 423900Xa007420: to=<bob@example.org>, delay=00:00:02, xdelay=00:00:01, mailer=esmtp, pri=120351, relay=mx.example.org. [203.0.113.5], dsn=5.1.1, stat=User unknown",
	  "sendmail", "bounced", "423900Xa007420", "bob@example.org", "", "mx.example.org. [203.0.113.5]",
	  "", "5.1.1", "5.1.1", "", 2, -1, "userunknown", 1, 0 },
	/* Sendmail: expiry notice */
	{ "Mar  3 09:00:09 mx3 sm-mta[7434]: 41UFZnc6006553: 423900Xg007434: DSN: Cannot send message for 5 days",
	  "sendmail", "expired", "41UFZnc6006553", "", "", "", "", "", "", "", -1, -1, "expired", 0, 0 },
	/* OpenSMTPD 6: mta delivery */
	{ "Mar  3 09:00:04 mx4 smtpd[75295]: 4b3a6c195c1f6011 mta delivery evpid=8f26ea98359eccfb from=<sender@example.com> to=<bob@example.org> rcpt=<bob@alias.example.com> source=\"192.0.2.1\" relay=\"203.0.113.5 (mx.example.org)\" delay=1d2h3m4s result=\"PermFail\" stat=\"550 5.1.1 <bob@example.org>: Recipient address rejected: User unknown\"",
	  "opensmtpd", "bounced", "8f26ea98359eccfb", "bob@example.org", "bob@alias.example.com", "203.0.113.5 (mx.example.org)",
	  "550", "5.1.1", "", "", 93784, -1, "userunknown", 1, 0 },
	/* OpenSMTPD 6: mda delivery, unquoted */
	{ "Mar  3 09:00:05 mx4 smtpd[75296]: 4b3a6c195c1f6012 mda delivery evpid=8f26ea98359eccee from=<sender@example.com> to=<heidi@mx4.example.com> rcpt=<postmaster@mx4.example.com> user=heidi delay=0s result=Ok stat=Delivered",
	  "opensmtpd", "sent", "8f26ea98359eccee", "heidi@mx4.example.com", "postmaster@mx4.example.com", "",
	  "", "", "", "", 0, -1, "delivered", 0, 0 },
	/* OpenSMTPD: the queue's expiry line */
	{ "Mar  3 09:00:08 mx4 smtpd[75297]: relay: Expire for 9c0e3ab3d1f2e4a6: from=<sender@example.com>, to=<kim@example.net>, rcpt=<->, delay=4d, stat=Envelope expired",
	  "opensmtpd", "expired", "9c0e3ab3d1f2e4a6", "kim@example.net", "", "", "", "", "", "", 4 * 86400, -1, "expired", 0, 0 },
	/* RFC 5424 with structured data (escaped quote and bracket) */
	{ "<22>1 2024-03-03T09:00:02.003Z mx1 postfix/smtp 2104 - [origin ip=\"192.0.2.2\"][meta note=\"a \\\"quoted\\] value\"] 621B2C3D5E: to=<a2@example.org>, relay=mx.example.org[203.0.113.5]:25, delay=0.3, delays=0/0/0.1/0.2, dsn=4.7.1, status=deferred (host mx.example.org[203.0.113.5] said: 450 4.7.1 Try again later (in reply to RCPT TO command))",
	  "postfix", "deferred", "621B2C3D5E", "a2@example.org", "", "mx.example.org[203.0.113.5]:25",
	  "450", "4.7.1", "4.7.1", "RCPT", 0, T_2024_03_03_0900 + 2, NULL, 0, 1 },
	/* RFC 3339 with an offset: the offset wins over the UTC flag */
	{ "2024-03-03T10:00:04.123456+01:00 mx1 postfix/smtp[2106]: 641B2C3D5E: to=<a4@example.org>, relay=mx.example.org[203.0.113.5]:25, delay=0.3, delays=0/0/0.1/0.2, dsn=2.0.0, status=sent (250 2.0.0 Ok)\r",
	  "postfix", "sent", "641B2C3D5E", "a4@example.org", "", "mx.example.org[203.0.113.5]:25",
	  "250", "2.0.0", "2.0.0", "", 0, T_2024_03_03_0900 + 4, NULL, 0, 0 },
	/* no time, no host: a container's output */
	{ "postfix/smtp[2108]: 661B2C3D5E: to=<a6@example.org>, relay=mx.example.org[203.0.113.5]:25, delay=0.3, delays=0/0/0.1/0.2, dsn=2.0.0, status=sent (250 2.0.0 Ok)",
	  "postfix", "sent", "661B2C3D5E", "a6@example.org", "", "mx.example.org[203.0.113.5]:25",
	  "250", "2.0.0", "2.0.0", "", 0, 0, NULL, 0, 0 },
};

static void check_record(const want *w, const smtpdiag_logrec *r)
{
	assert_string_equal(r->format, w->format);
	assert_string_equal(r->action, w->action);
	assert_string_equal(r->queueid, w->queueid);
	assert_string_equal(r->recipient, w->recipient);
	assert_string_equal(r->orig_recipient, w->orig);
	assert_string_equal(r->relay, w->relay);
	assert_string_equal(r->replycode, w->replycode);
	assert_string_equal(r->status, w->status);
	assert_string_equal(r->dsn, w->dsn);
	assert_string_equal(r->command, w->command);
	assert_int_equal(r->delay, w->delay);
	if (w->ts >= 0)
		assert_int_equal(r->timestamp, w->ts);
	if (w->reason)
		assert_string_equal(r->reason, w->reason);
	if (w->hard >= 0)
		assert_int_equal(r->hardbounce, w->hard);
	if (w->retry >= 0)
		assert_int_equal(r->retry, w->retry);
}

static void test_records(void **state)
{
	smtpdiag_scanner *s = utc_scanner();

	(void)state;
	for (size_t i = 0; i < sizeof(records) / sizeof(records[0]); i++) {
		int rc = scan(s, records[i].line);
		if (rc != 1)
			fail_msg("line %zu: rc %d: %.60s", i, rc, records[i].line);
		check_record(&records[i], smtpdiag_scanner_rec(s, 0));
		assert_null(smtpdiag_scanner_rec(s, 1));
	}
	smtpdiag_scanner_free(s);
}

/* ---- lines that are no delivery attempt, and broken ones ---- */

static void test_skipped(void **state)
{
	static const char *const lines[] = {
		"",
		"this is not a log line",
		"Mar  3 09:00:01 mx1 postfix/smtpd[2101]: connect from client.example.com[192.0.2.10]",
		"Mar  3 09:00:01 mx1 postfix/cleanup[2102]: 3F2A1B2C3D: message-id=<x@example.com>",
		"Mar  3 09:00:01 mx1 postfix/qmgr[812]: 3F2A1B2C3D: from=<sender@example.com>, size=2351, nrcpt=3 (queue active)",
		"Mar  3 09:00:16 mx1 postfix/qmgr[812]: 3F2A1B2C3D: removed",
		"Mar  3 09:00:16 mx1 postfix/smtp[2103]: warning: TLS library problem: status=1",
		"Mar  3 09:00:16 mx1 postfix/smtp[2103]: 3F2A1B2C3D: status=deferred (bounce failed)",
		"Mar  3 09:00:17 mx1 postfix/smtp[2117]: 551B2C3D5E: to=<victor@example.org>, relay=none, delay=0.1, delays=0/0/0.1/0, dsn=5.4.4, status=undeliverable (Host not found)",
		"Mar  3 09:00:18 mx1 dovecot: imap-login: Login: user=<alice@example.com>, status=ok",
		"Mar  3 09:00:18 mx1 kernel: [12345.678901] eth0: link up",
		"2024-03-03 09:00:01 1rghhQ-0001Xy-2B <= sender@example.com H=client.example.com [192.0.2.10] P=esmtps S=2351",
		"2024-03-03 09:00:06 1rghhQ-0001Xy-2B Completed",
		"2024-03-03 09:00:07 1rghhQ-0001Y0-3C == dave@example.net R=dnslookup T=remote_smtp defer (-53): retry time not reached for any host for 'example.net'",
		"2024-03-03 09:00:12 1rghhQ-0001Y4-7G *> lou@example.org R=dnslookup T=remote_smtp",
		"2024-03-03 09:00:16 1rghhQ-0001Y8-BK => :blackhole: <hole@example.com> R=blackhole_router",
		"2024-03-03 09:00:00 exim 4.96 daemon started: pid=880, -q30m",
		"Mar  3 09:00:09 mx2 exim[5555]: [2/2]  one line of syslog",
		"Mar  3 09:00:01 mx3 sm-mta[7420]: 423900Xa007420: from=<sender@example.com>, size=2351, class=0, nrcpts=4, relay=client.example.com [192.0.2.10]",
		"Mar  3 09:00:03 mx3 sm-mta[7425]: 423900Xa007420: 423900Xb007425: DSN: User unknown",
		"Mar  3 09:00:08 mx3 sm-mta[7433]: 423900Xf007433: to=<frank@example.com>, delay=00:00:00, mailer=esmtp, pri=30351, stat=queued",
		"Mar  3 09:00:01 mx4 smtpd[75295]: 5df87c9c42abeddb smtp connected address=192.0.2.10 host=client.example.com",
		"Mar  3 09:00:09 mx4 smtpd[75297]: relay: Remove for 9c0e3ab3d1f2e4a7: from=<s@example.com>, to=<lou@example.net>, rcpt=<->, delay=1h, stat=Removed by administrator",
		"Mar  3 09:00:01 mx1 postfix/smtpd[2101]: NOQUEUE: filter: RCPT from a.example[192.0.2.1]: <b@example.com>: Recipient address triggers FILTER smtp:[127.0.0.1]:10025; from=<a@example.net> to=<b@example.com> proto=ESMTP helo=<a.example>",
		"Mar  3 09:00:01 mx1 postfix/smtpd[2101]: 3F2A1B2C3D: client=a.example[192.0.2.1]",
		"Mar  3 09:00:01 mx1 postfix/cleanup[2102]: 3F2A1B2C3D: warning: header Subject: hi from a.example[192.0.2.1]; from=<a@example.net> to=<b@example.com> proto=ESMTP helo=<a.example>",
		"Mar  3 09:00:01 mx1 postfix/postscreen[2100]: CONNECT from [192.0.2.1]:4000 to [192.0.2.2]:25",
		"Mar  3 09:00:01 mx1 postfix/postscreen[2100]: PASS NEW [192.0.2.1]:4000",
		"2024-03-03 09:00:01 H=a.example [192.0.2.1] F=<a@example.net> accepted",
		"<22>1 - - - - - -",
	};
	smtpdiag_scanner *s = utc_scanner();

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		int rc = scan(s, lines[i]);
		if (rc != 0)
			fail_msg("line %zu: rc %d, want 0: %s", i, rc, lines[i]);
		assert_null(smtpdiag_scanner_rec(s, 0));
	}
	smtpdiag_scanner_free(s);
}

/* Reject records: the members appended for them, set on rejects, "" and 0 on
 * delivery records; a reject line that cannot be read is malformed (the
 * lines that refuse nothing are in test_skipped). */
static void test_rejects(void **state)
{
	smtpdiag_scanner *s = utc_scanner();
	const smtpdiag_logrec *r;

	(void)state;
	assert_int_equal(scan(s, "Mar  3 09:00:01 mx1 postfix/smtpd[2101]: NOQUEUE: reject: RCPT from unknown[2001:db8::7]:2525: "
				 "554 5.7.1 Service unavailable; Client host [2001:db8::7] blocked using zen.spamhaus.org; "
				 "from=<a@example.net> to=<b@example.com> proto=ESMTP helo=<pc7>"), 1);
	r = smtpdiag_scanner_rec(s, 0);
	{
		const char *const got[] = { r->action, r->format, r->queueid, r->client, r->clientip, r->helo,
					    r->sender, r->recipient, r->stage, r->list, r->replycode, r->status,
					    r->reason, r->advice, r->fixer[0], r->diagnosticcode };
		const char *const expect[] = { "rejected", "postfix", "", "unknown", "2001:db8::7", "pc7",
					     "a@example.net", "b@example.com", "RCPT", "zen.spamhaus.org", "554",
					     "5.7.1", "blocked", "none", "sender-admin",
					     ("554 5.7.1 Service unavailable; Client host [2001:db8::7] blocked using "
					      "zen.spamhaus.org") };
		for (size_t i = 0; i < sizeof(got) / sizeof(got[0]); i++)
			if (strcmp(got[i], expect[i]))
				fail_msg("member %zu: \"%s\", want \"%s\"", i, got[i], expect[i]);
	}
	assert_int_equal(r->warning, 0);
	assert_int_equal(scan(s, "Mar  3 09:00:02 mx1 postfix/smtp[2103]: 3F2A1B2C3D: to=<bob@example.org>, relay=mx.example.org[203.0.113.5]:25, "
				 "delay=0.6, dsn=5.1.1, status=bounced (host mx.example.org[203.0.113.5] said: 550 5.1.1 no such user (in reply to RCPT TO command))"), 1);
	r = smtpdiag_scanner_rec(s, 0);
	{ /* a delivery record: the reject members empty */
		const char *const empty[] = { r->client, r->clientip, r->helo, r->stage, r->list };
		for (size_t i = 0; i < sizeof(empty) / sizeof(empty[0]); i++)
			assert_string_equal(empty[i], "");
	}
	assert_int_equal(r->warning, 0);
	assert_string_equal(r->advice, "suppress-recipient"); /* the sending side's view, as before */
	assert_int_equal(scan(s, "Mar  3 09:00:01 mx1 postfix/smtpd[2101]: NOQUEUE: reject: RCPT without a client"), SMTPDIAG_EPARSE);
	smtpdiag_scanner_free(s);
}

static void test_malformed(void **state)
{
	static const char *const lines[] = {
		"Mar  3 09:00:15 mx1 postfix/smtp[2116]: 541B2C3D5E: to=<trent@example.org>, relay=mx.example.org[203.0.113.5]:25, delay=0.3, dsn=5.0.0",
		"Mar  3 09:00:15 mx1 postfix/smtp[2116]: 541B2C3D5E: to=<trent@example.org>, relay=x, status=frobnicated (what)",
		"Mar  3 09:00:15 mx1 postfix/smtp[2116]: 541B2C3D5E: to=<>, relay=x, dsn=5.0.0, status=bounced (x)",
		"2024-03-03 09:00:17 1rghhQ-0001Y9-CL ** ",
		"Mar  3 09:00:11 mx3 sm-mta[7436]: 423900Xh007436: to=<gina@example.org>, delay=00:00:01, mailer=esmtp, dsn=5.2.2",
		"Mar  3 09:00:11 mx3 sm-mta[7436]: no queue id here, stat=Sent",
		"Mar  3 09:00:10 mx4 smtpd[75298]: 4b3a6c195c1f6014 mta delivery evpid=8f26ea98359ecc00 from=<s@example.com> to=<m@example.org> delay=1s result=\"Weird\" stat=\"???\"",
		"Mar  3 09:00:10 mx4 smtpd[75298]: 4b3a6c195c1f6014 mta delivery evpid=8f26ea98359ecc00 from=<s@example.com> result=\"Ok\" stat=\"250 Ok\"",
	};
	smtpdiag_scanner *s = utc_scanner();

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		int rc = scan(s, lines[i]);
		if (rc != SMTPDIAG_EPARSE)
			fail_msg("line %zu: rc %d, want EPARSE: %s", i, rc, lines[i]);
	}
	smtpdiag_scanner_free(s);
}

/* ---- limits and arguments ---- */

static char *sendmail_list(size_t n)
{
	size_t cap = n * 24 + 256, k;
	char *p = malloc(cap);

	assert_non_null(p);
	k = (size_t)snprintf(p, cap, "Mar  3 09:00:04 mx3 sm-mta[1]: 423900Xa007420: to=");
	for (size_t i = 0; i < n; i++)
		k += (size_t)snprintf(p + k, cap - k, "%s<r%zu@example.com>", i ? "," : "", i);
	snprintf(p + k, cap - k, ", delay=00:00:01, mailer=esmtp, dsn=2.0.0, stat=Sent (250 Ok)");
	return p;
}

static void test_limits(void **state)
{
	smtpdiag_scanner *s = utc_scanner();
	size_t n = SMTPDIAG_SCAN_MAX_LINE + 1;
	char *big = malloc(n);
	char *list;

	(void)state;
	assert_non_null(big);
	memset(big, 'a', n);
	assert_int_equal(smtpdiag_scan_line(s, big, n), SMTPDIAG_ELIMIT);
	assert_int_equal(smtpdiag_scan_line(NULL, "x", 1), SMTPDIAG_EINVAL);
	assert_int_equal(smtpdiag_scan_line(s, NULL, 0), 0);
	free(big);
	list = sendmail_list(3);
	assert_int_equal(scan(s, list), 3);
	assert_string_equal(smtpdiag_scanner_rec(s, 2)->recipient, "r2@example.com");
	assert_string_equal(smtpdiag_scanner_rec(s, 2)->queueid, "423900Xa007420");
	free(list);
	list = sendmail_list(SMTPDIAG_SCAN_MAX_RECORDS);
	assert_int_equal(scan(s, list), SMTPDIAG_SCAN_MAX_RECORDS);
	free(list);
	list = sendmail_list(SMTPDIAG_SCAN_MAX_RECORDS + 1);
	assert_int_equal(scan(s, list), SMTPDIAG_ELIMIT);
	free(list);
	smtpdiag_scanner_free(s);
}

/* Bytes past len are never read: the line is cut inside a longer buffer. */
static void test_slices(void **state)
{
	static const char buf[] = "Mar  3 09:00:02 mx1 postfix/smtp[1]: 3F2A1B2C3D: to=<a@example.org>, relay=x, "
				  "delay=1, dsn=2.0.0, status=sent (250 Ok)EXTRA GARBAGE)";
	smtpdiag_scanner *s = utc_scanner();
	size_t n = strlen(buf) - strlen("EXTRA GARBAGE)");
	char line[] = "Mar  3 09:00:02 mx1 postfix/smtp[1]: Q1: to=<a@b.example>, relay=x, delay=1, dsn=2.0.0, status=sent (250 \0 Ok)";

	(void)state;
	assert_int_equal(smtpdiag_scan_line(s, buf, n), 1);
	assert_string_equal(smtpdiag_scanner_rec(s, 0)->diagnosticcode, "250 Ok");
	/* a NUL inside the line is a byte like any other */
	assert_int_equal(smtpdiag_scan_line(s, line, sizeof(line) - 1), 1);
	assert_string_equal(smtpdiag_scanner_rec(s, 0)->replycode, "250");
	assert_string_equal(smtpdiag_scanner_rec(s, 0)->diagnosticcode, "250   Ok");
	smtpdiag_scanner_free(s);
}

/* ---- times ---- */

static void test_year(void **state)
{
	smtpdiag_scanner *s = utc_scanner();
	const char *dec = "Dec 31 23:59:59 mx1 postfix/smtp[1]: Q1: to=<a@example.org>, relay=x, delay=1, dsn=2.0.0, status=sent (250 Ok)";
	const char *jan = "Jan  5 00:00:01 mx1 postfix/smtp[1]: Q1: to=<a@example.org>, relay=x, delay=1, dsn=2.0.0, status=sent (250 Ok)";

	(void)state;
	smtpdiag_scanner_reftime(s, 1704412800); /* 2024-01-05 00:00:00 UTC */
	assert_int_equal(scan(s, dec), 1);
	assert_int_equal(smtpdiag_scanner_rec(s, 0)->timestamp, 1704067199); /* 2023-12-31 23:59:59 */
	assert_int_equal(scan(s, jan), 1);
	assert_int_equal(smtpdiag_scanner_rec(s, 0)->timestamp, 1704412801); /* 2024-01-05 00:00:01 */
	assert_string_equal(smtpdiag_scanner_rec(s, 0)->timezoneoffset, "+0000");
	smtpdiag_scanner_free(s);
}

static void test_localtime(void **state)
{
	smtpdiag_scanner *s;
	const char *winter = "2024-01-10 12:00:00 1rghhQ-0001Xy-2B => a@example.org R=r T=t";
	const char *summer = "2024-07-10 12:00:00 1rghhQ-0001Xy-2B => a@example.org R=r T=t";

	(void)state;
	setenv("TZ", "CET-1CEST,M3.5.0,M10.5.0/3", 1);
	tzset();
	s = smtpdiag_scanner_new(0);
	assert_non_null(s);
	assert_int_equal(scan(s, winter), 1);
	assert_string_equal(smtpdiag_scanner_rec(s, 0)->timezoneoffset, "+0100");
	assert_int_equal(smtpdiag_scanner_rec(s, 0)->timestamp, 1704884400); /* 11:00 UTC */
	assert_int_equal(scan(s, summer), 1);
	assert_string_equal(smtpdiag_scanner_rec(s, 0)->timezoneoffset, "+0200");
	assert_int_equal(smtpdiag_scanner_rec(s, 0)->timestamp, 1720605600); /* 10:00 UTC */
	smtpdiag_scanner_free(s);
	setenv("TZ", "UTC", 1);
	tzset();
}

static void test_durations(void **state)
{
	static const struct {
		const char *in;
		int64_t want;
	} t[] = {
		{ "1068", 1068 }, { "0.25", 0 }, { "1.9", 1 }, { "00:00:03", 3 }, { "1+10:18:26", 123506 },
		{ "1d2h3m4s", 93784 }, { "1w", 604800 }, { "0s", 0 }, { "1.5s", 1 }, { "\"4d\"", 345600 },
		{ "", -1 }, { "abc", -1 }, { "5x", -1 }, { "1:2", -1 }, { "-3", -1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_int_equal(sd_sl_duration((sd_str){ t[i].in, strlen(t[i].in) }), t[i].want);
}

static void test_commands(void **state)
{
	static const struct {
		const char *in, *want;
	} t[] = {
		{ "RCPT TO", "RCPT" }, { "pipelined RCPT TO:<a@b>", "RCPT" }, { "MAIL FROM:<data@example.com> SIZE=1", "MAIL" },
		{ "end of DATA", "DATA" }, { "end of data", "DATA" }, { "initial connection", "CONN" },
		{ "greeting", "CONN" }, { "EHLO mx.example", "EHLO" }, { "LHLO", "EHLO" }, { "", "" }, { "something", "" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_string_equal(sd_sl_command((sd_str){ t[i].in, strlen(t[i].in) }), t[i].want);
}

/* A local delivery agent's report is its diagnostic whole, as its DSN gives
 * it (X-Postfix; TEXT): a program's "Remote host said: 553 ..." inside it
 * gives the codes, not the text the verdict reads. */
static void test_local_words(void **state)
{
	static const char line[] =
		"Mar  3 09:00:00 relay postfix/pipe[2101]: 3F2A1B2C3D: to=<user@example.org>, relay=relayer, "
		"delay=1.2, delays=0.1/0/0.5/0.6, dsn=5.7.1, status=bounced (Connected to 192.0.2.7 but sender "
		"was rejected. Remote host said: 553 sorry, your envelope sender has been denied (#5.7.1))";
	smtpdiag_scanner *s = smtpdiag_scanner_new(SMTPDIAG_SCAN_UTC);
	const smtpdiag_logrec *r;

	(void)state;
	assert_non_null(s);
	assert_int_equal(smtpdiag_scan_line(s, line, strlen(line)), 1);
	r = smtpdiag_scanner_rec(s, 0);
	assert_string_equal(r->replycode, "553");
	assert_string_equal(r->status, "5.7.1");
	assert_non_null(strstr(r->diagnosticcode, "Connected to 192.0.2.7 but sender was rejected"));
	smtpdiag_scanner_free(s);
}

/* ---- a delivery's verdict is remembered by its codes ---- */

/* Records of deliveries whose codes repeat with other texts, relays, commands
 * and recipients: a scanner that has seen the codes before (and remembers the
 * verdict) gives, in JSON, what a new scanner gives. */
static void test_sent_cache(void **state)
{
	static const char *const lines[] = {
		"Mar  3 09:00:01 mx1 postfix/smtp[1]: Q1: to=<a@gmail.com>, relay=gmail-smtp-in.l.google.com[142.250.1.1]:25, delay=1, dsn=2.0.0, status=sent (250 2.0.0 OK  1709456401 x1 - gsmtp)",
		"Mar  3 09:00:02 mx1 postfix/smtp[1]: Q2: to=<b@outlook.com>, relay=outlook-com.olc.protection.outlook.com[52.1.1.1]:25, delay=1, dsn=2.0.0, status=sent (250 2.0.0 blocked using zen.spamhaus.org; quota exceeded (in reply to RCPT TO command))",
		"Mar  3 09:00:03 mx1 postfix/smtp[1]: Q3: to=<c@example.org>, relay=mx.example.org[192.0.2.1]:25, delay=1, dsn=2.0.0, status=sent (250 2.0.0 Ok: queued as 4XYZ)",
		"Mar  3 09:00:04 mx1 postfix/smtp[1]: Q4: to=<d@example.org>, relay=mx.example.org[192.0.2.1]:25, delay=1, dsn=2.0.0, status=sent (250 5.7.26 accepted, but DMARC failed: sender not authorized)",
		"Mar  3 09:00:05 mx1 postfix/smtp[1]: Q5: to=<e@yahoo.com>, relay=mta7.am0.yahoodns.net[98.1.1.1]:25, delay=1, dsn=2.0.0, status=sent (250 5.7.1 user unknown, mailbox disabled)",
		"Mar  3 09:00:06 mx1 postfix/local[2]: Q6: to=<f@example.com>, relay=local, delay=0, dsn=2.0.0, status=sent (delivered to mailbox)",
		"Mar  3 09:00:07 mx1 postfix/local[2]: Q7: to=<g@example.com>, relay=local, delay=0, dsn=2.0.0, status=sent (delivered to command: procmail -a \"$EXTENSION\" over quota)",
		"Mar  3 09:00:08 mx1 postfix/smtp[1]: Q8: to=<h@gmx.de>, relay=mx00.gmx.net[212.1.1.1]:25, delay=1, dsn=2.6.0, status=sent (250 2.6.0 Message accepted; greylisted before)",
		"Mar  3 09:00:09 mx1 postfix/smtp[1]: Q9: to=<i@gmx.de>, relay=mx00.gmx.net[212.1.1.1]:25, delay=1, dsn=2.6.0, status=sent (250 2.6.0 <id@x> [InternalId=1] Queued mail for delivery (in reply to end of DATA command))",
		"Mar  3 09:00:10 mx1 postfix/lmtp[3]: Q10: to=<j@example.com>, relay=mail.example.com[private/dovecot-lmtp], delay=0, dsn=2.0.0, status=sent (250 2.0.0 <j@example.com> Saved; authentication failed before)",
	};
	smtpdiag_scanner *seen = utc_scanner();
	smtpdiag_buf a = { NULL, 0, 0, 0 }, b = { NULL, 0, 0, 0 };

	(void)state;
	for (int round = 0; round < 2; round++)
		for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
			smtpdiag_scanner *fresh = utc_scanner();
			a.len = b.len = 0;
			assert_int_equal(scan(seen, lines[i]), 1);
			assert_int_equal(scan(fresh, lines[i]), 1);
			assert_string_equal(smtpdiag_scanner_rec(seen, 0)->action, "sent");
			smtpdiag_logrec_json(smtpdiag_scanner_rec(seen, 0), &a);
			smtpdiag_logrec_json(smtpdiag_scanner_rec(fresh, 0), &b);
			smtpdiag_buf_append(&a, "", 1);
			smtpdiag_buf_append(&b, "", 1);
			assert_string_equal(a.data, b.data);
			smtpdiag_scanner_free(fresh);
		}
	smtpdiag_buf_free(&a);
	smtpdiag_buf_free(&b);
	smtpdiag_scanner_free(seen);
}

/* Failures' verdicts are remembered by everything the engine reads, the
 * record's own names masked: every line read by a scanner that has seen the
 * others says what a fresh scanner says of it (a key missing an input would
 * give one line another's verdict). */
static void test_failure_cache(void **state)
{
	static const char *const lines[] = {
		"Mar  3 09:00:01 mx1 postfix/smtpd[5]: NOQUEUE: reject: RCPT from a.example.net[198.51.100.1]: 550 5.1.1 <u1@example.com>: Recipient address rejected: User unknown in virtual mailbox table; from=<s1@example.net> to=<u1@example.com> proto=ESMTP helo=<a.example.net>",
		"Mar  3 09:00:02 mx1 postfix/smtpd[5]: NOQUEUE: reject: RCPT from b.example.net[198.51.100.2]: 550 5.1.1 <u2@example.com>: Recipient address rejected: User unknown in virtual mailbox table; from=<s2@example.net> to=<u2@example.com> proto=ESMTP helo=<b.example.net>",
		"Mar  3 09:00:03 mx1 postfix/smtpd[5]: NOQUEUE: reject: RCPT from b.example.net[198.51.100.2]: 452 4.2.2 <u2@example.com>: Recipient address rejected: Mailbox full; from=<s2@example.net> to=<u2@example.com> proto=ESMTP helo=<b.example.net>",
		"Mar  3 09:00:04 mx1 postfix/smtpd[5]: NOQUEUE: reject: RCPT from c.example.net[203.0.113.7]: 554 5.7.1 Service unavailable; Client host [203.0.113.7] blocked using zen.spamhaus.org; https://www.spamhaus.org/query/ip/203.0.113.7; from=<s3@example.net> to=<u3@example.com> proto=ESMTP helo=<c.example.net>",
		"Mar  3 09:00:05 mx1 postfix/smtpd[5]: NOQUEUE: reject: RCPT from d.example.net[203.0.113.8]: 554 5.7.1 Service unavailable; Client host [203.0.113.8] blocked using zen.spamhaus.org; Error: open resolver; https://www.spamhaus.org/returnc/pub/203.0.113.8; from=<s4@example.net> to=<u4@example.com> proto=ESMTP helo=<d.example.net>",
		"Mar  3 09:00:06 mx1 postfix/smtp[1]: Q1: to=<a@example.org>, relay=mx.example.org[192.0.2.1]:25, delay=1, dsn=5.7.1, status=bounced (host mx.example.org[192.0.2.1] said: 550 5.7.1 Message rejected (in reply to end of DATA command))",
		"Mar  3 09:00:07 mx1 postfix/smtp[1]: Q2: to=<b@outlook.com>, relay=outlook-com.olc.protection.outlook.com[52.1.1.1]:25, delay=1, dsn=5.7.1, status=bounced (host outlook-com.olc.protection.outlook.com[52.1.1.1] said: 550 5.7.1 Message rejected (in reply to end of DATA command))",
		"Mar  3 09:00:08 mx1 postfix/smtp[1]: Q3: to=<a@example.org>, relay=mx.example.org[192.0.2.1]:25, delay=1, dsn=4.7.1, status=deferred (host mx.example.org[192.0.2.1] said: 450 4.7.1 Message rejected (in reply to end of DATA command))",
		"Mar  3 09:00:09 mx1 postfix/smtp[1]: Q4: to=<a@example.org>, relay=mx.example.org[192.0.2.1]:25, delay=1, dsn=5.7.1, status=bounced (host mx.example.org[192.0.2.1] said: 550 5.7.1 Message rejected (in reply to RCPT TO command))",
		"Mar  3 09:00:10 mx1 postfix/smtp[1]: Q5: to=<a@example.org>, relay=mx.example.org[192.0.2.1]:25, delay=1, dsn=5.1.1, status=bounced (host mx.example.org[192.0.2.1] said: 550 5.1.1 Message rejected (in reply to RCPT TO command))",
		"Mar  3 09:00:11 mx1 postfix/qmgr[9]: Q6: from=<s@example.net>, status=expired, returned to sender",
		"Mar  3 09:00:12 mx1 postfix/smtp[1]: Q7: to=<a@example.org>, relay=none, delay=1, dsn=4.4.1, status=deferred (connect to mx.example.org[192.0.2.1]:25: Connection timed out)",
		"Mar  3 09:00:13 mx1 postfix/smtp[1]: Q8: to=<a@example.org>, relay=none, delay=1, dsn=4.4.1, status=deferred (connect to mx.example.org[192.0.2.1]:25: Connection refused)",
		/* the same reply text, the status only in dsn=: only the status differs */
		"Mar  3 09:00:16 mx1 postfix/smtp[1]: QA: to=<a@example.org>, relay=mx.example.org[192.0.2.1]:25, delay=1, dsn=5.1.1, status=bounced (host mx.example.org[192.0.2.1] said: 550 Not accepted (in reply to RCPT TO command))",
		"Mar  3 09:00:17 mx1 postfix/smtp[1]: QB: to=<a@example.org>, relay=mx.example.org[192.0.2.1]:25, delay=1, dsn=5.2.2, status=bounced (host mx.example.org[192.0.2.1] said: 550 Not accepted (in reply to RCPT TO command))",
		/* the same reply, deferred and then given up on: only the action differs */
		"Mar  3 09:00:14 mx1 postfix/smtp[1]: Q9: to=<a@example.org>, relay=mx.example.org[192.0.2.1]:25, delay=1, dsn=4.7.1, status=deferred (host mx.example.org[192.0.2.1] said: 451 4.7.1 Try again later (in reply to RCPT TO command))",
		"Mar  3 09:00:15 mx1 postfix/smtp[1]: Q9: to=<a@example.org>, relay=mx.example.org[192.0.2.1]:25, delay=1, dsn=4.7.1, status=bounced (host mx.example.org[192.0.2.1] said: 451 4.7.1 Try again later (in reply to RCPT TO command))",
	};
	smtpdiag_scanner *seen = utc_scanner();
	smtpdiag_buf a = { NULL, 0, 0, 0 }, b = { NULL, 0, 0, 0 };

	(void)state;
	for (int round = 0; round < 2; round++)
		for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
			smtpdiag_scanner *fresh = utc_scanner();
			a.len = b.len = 0;
			assert_int_equal(scan(seen, lines[i]), 1);
			assert_int_equal(scan(fresh, lines[i]), 1);
			assert_string_not_equal(smtpdiag_scanner_rec(seen, 0)->action, "sent");
			smtpdiag_logrec_json(smtpdiag_scanner_rec(seen, 0), &a);
			smtpdiag_logrec_json(smtpdiag_scanner_rec(fresh, 0), &b);
			smtpdiag_buf_append(&a, "", 1);
			smtpdiag_buf_append(&b, "", 1);
			assert_string_equal(a.data, b.data);
			smtpdiag_scanner_free(fresh);
		}
	/* the two unknown users share a verdict, the full mailbox has its own */
	assert_int_equal(scan(seen, lines[1]), 1);
	assert_string_equal(smtpdiag_scanner_rec(seen, 0)->reason, "userunknown");
	assert_int_equal(scan(seen, lines[2]), 1);
	assert_string_not_equal(smtpdiag_scanner_rec(seen, 0)->reason, "userunknown");
	/* a reply too long for the key is decided afresh, each time as a fresh scanner decides it */
	{
		char longline[1400];
		int len = snprintf(longline, sizeof(longline),
				   "Mar  3 09:00:20 mx1 postfix/smtp[1]: QL: to=<a@example.org>, relay=mx.example.org[192.0.2.1]:25, "
				   "delay=1, dsn=5.7.1, status=bounced (host mx.example.org[192.0.2.1] said: 550 5.7.1 %0900d "
				   "(in reply to RCPT TO command))", 7);
		assert_true(len > 900 && len < (int)sizeof(longline));
		for (int round = 0; round < 2; round++) {
			smtpdiag_scanner *fresh = utc_scanner();
			a.len = b.len = 0;
			assert_int_equal(scan(seen, longline), 1);
			assert_int_equal(scan(fresh, longline), 1);
			smtpdiag_logrec_json(smtpdiag_scanner_rec(seen, 0), &a);
			smtpdiag_logrec_json(smtpdiag_scanner_rec(fresh, 0), &b);
			smtpdiag_buf_append(&a, "", 1);
			smtpdiag_buf_append(&b, "", 1);
			assert_string_equal(a.data, b.data);
			smtpdiag_scanner_free(fresh);
		}
	}
	smtpdiag_buf_free(&a);
	smtpdiag_buf_free(&b);
	smtpdiag_scanner_free(seen);
}

/* ---- output ---- */

static void test_json(void **state)
{
	smtpdiag_scanner *s = utc_scanner();
	smtpdiag_buf b = { NULL, 0, 0, 0 };

	(void)state;
	assert_int_equal(scan(s, "Mar  3 09:00:12 mx1 postfix/qmgr[812]: 521B2C3D5E: from=<n@example.com>, status=expired, returned to sender"), 1);
	smtpdiag_logrec_json(smtpdiag_scanner_rec(s, 0), &b);
	assert_non_null(b.data);
	assert_non_null(strstr(b.data, "\"action\":\"expired\""));
	assert_non_null(strstr(b.data, "\"delay\":null"));
	assert_non_null(strstr(b.data, "\"sender\":\"n@example.com\""));
	assert_non_null(strstr(b.data, "\"issues\":[]"));
	assert_int_equal(b.data[0], '{');
	assert_int_equal(b.data[b.len - 1], '}');
	b.len = 0;
	assert_int_equal(scan(s, "Mar  3 09:00:12 mx1 postfix/smtp[1]: Q1: to=<a@example.org>, relay=x, delay=3, dsn=4.3.1, status=bounced (host x said: 431 4.3.1 say \"hi\"\\\x01\xff (in reply to end of DATA command))"), 1);
	smtpdiag_logrec_json(smtpdiag_scanner_rec(s, 0), &b);
	assert_non_null(strstr(b.data, "\"diagnosticcode\":\"431 4.3.1 say \\\"hi\\\"\\\\\\u0001\xef\xbf\xbd\""));
	assert_non_null(strstr(b.data, "\"delay\":3"));
	assert_non_null(strstr(b.data, "\"nonstandard-reply-code\""));
	smtpdiag_buf_free(&b);
	smtpdiag_scanner_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_skipped),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_slices),
		cmocka_unit_test(test_year),
		cmocka_unit_test(test_localtime),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_commands),
		cmocka_unit_test(test_local_words),
		cmocka_unit_test(test_sent_cache),
		cmocka_unit_test(test_failure_cache),
		cmocka_unit_test(test_json),
	};

	setenv("TZ", "UTC", 1);
	tzset();
	return cmocka_run_group_tests_name("scan", tests, NULL, NULL);
}
