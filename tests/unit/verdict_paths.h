/* verdict_paths.h - one reply line wrapped as decode and scan meet it: a DSN
 * whose Diagnostic-Code quotes it and a Postfix log line that reports it, both
 * saying it answered RCPT TO (a 4xx as delayed/deferred, else failed/bounced).
 * Shared by the verdict tests; static, for inclusion in one test file each. */
#ifndef VERDICT_PATHS_H
#define VERDICT_PATHS_H

#include <stdio.h>
#include <string.h>

/* The status in a reply, else the class's X.0.0 as a DSN and Postfix write it. */
static void vp_status(const char *reply, char *out, size_t n)
{
	const char *p = strchr(reply, ' ');
	int k = 0;

	snprintf(out, n, "%c.0.0", reply[0]);
	if (!p || !(p[1] == '4' || p[1] == '5') || p[2] != '.')
		return;
	while (p[1 + k] && p[1 + k] != ' ')
		k++;
	snprintf(out, n, "%.*s", k, p + 1);
}

/* A DSN for user@example.org: Action from the status's class, diag as its
 * Diagnostic-Code ("smtp; ..." or "X-Postfix; ..."). */
static void vp_dsn_with(const char *st, const char *diag, char *msg, size_t n)
{
	snprintf(msg, n,
		 "From: MAILER-DAEMON@relay.example.com\nTo: sender@example.com\n"
		 "Subject: Undelivered Mail Returned to Sender\nMIME-Version: 1.0\n"
		 "Content-Type: multipart/report; report-type=delivery-status; boundary=\"b1\"\n\n"
		 "--b1\nContent-Type: text/plain\n\nYour message could not be delivered.\n\n"
		 "--b1\nContent-Type: message/delivery-status\n\nReporting-MTA: dns; relay.example.com\n\n"
		 "Final-Recipient: rfc822; user@example.org\nAction: %s\nStatus: %s\n"
		 "Remote-MTA: dns; mx.example.org\nDiagnostic-Code: %s\n\n--b1--\n",
		 st[0] == '4' ? "delayed" : "failed", st, diag);
}

/* A Postfix log line of agent (smtp, local) for user@example.org reporting text. */
static void vp_logline_with(const char *agent, const char *relay, const char *st, const char *text,
			    char *line, size_t n)
{
	snprintf(line, n,
		 "Mar  3 09:00:00 relay postfix/%s[2101]: 3F2A1B2C3D: to=<user@example.org>, "
		 "relay=%s, delay=1.2, delays=0.1/0/0.5/0.6, dsn=%s, status=%s (%s)",
		 agent, relay, st, st[0] == '4' ? "deferred" : "bounced", text);
}

static void vp_dsn(const char *reply, char *msg, size_t n)
{
	char st[16], diag[2048];

	vp_status(reply, st, sizeof(st));
	snprintf(diag, sizeof(diag), "smtp; %s (in reply to RCPT TO command)", reply);
	vp_dsn_with(st, diag, msg, n);
}

static void vp_logline(const char *reply, char *line, size_t n)
{
	char st[16], text[2048];

	vp_status(reply, st, sizeof(st));
	snprintf(text, sizeof(text), "host mx.example.org[192.0.2.7] said: %s (in reply to RCPT TO command)",
		 reply);
	vp_logline_with("smtp", "mx.example.org[192.0.2.7]:25", st, text, line, n);
}

#endif
