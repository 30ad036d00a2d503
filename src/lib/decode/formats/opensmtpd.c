/* opensmtpd.c - OpenSMTPD bounces (smtpd/bounce.c).
 *
 *         This is the MAILER-DAEMON, please DO NOT REPLY to this e-mail.
 *         An error has occurred while attempting to deliver a message for
 *         the following list of recipients:
 *     user@example.jp: 550 5.2.2 <user@example.jp>... Mailbox Full
 *         Below is a copy of the original message:
 * Newer versions add a message/delivery-status part with a generic status;
 * the text line is what the bounce says, so the text is read. The relay's own
 * failure strings (smtpd/mta.c, queue.c) name the reason. The delay notice
 * ("A message is delayed for more than 4 hours ...", "this is only a temporary
 * failure report") has the same layout: its records are warnings. */
#include "decode/formats/mta.h"

static const struct {
	const char *text;
	int reason;
} says[] = {
	{ "Envelope expired", SD_R_expired },
	{ "Could not retrieve credentials", SD_R_securityerror },
	{ "Invalid domain name", SD_R_hostunknown },
	{ "Domain does not exist", SD_R_hostunknown },
	{ "Address family mismatch on destination MXs", SD_R_networkerror },
	{ "All routes to destination blocked", SD_R_networkerror },
	{ "bad DNS lookup error code", SD_R_networkerror },
	{ "Could not retrieve source address", SD_R_networkerror },
	{ "Loop detected", SD_R_networkerror },
	{ "Network error on destination MXs", SD_R_networkerror },
	{ "No valid route to remote MX", SD_R_networkerror },
	{ "No valid route to destination", SD_R_networkerror },
	{ "Temporary failure in MX lookup", SD_R_networkerror },
	{ "Destination seem to reject all mails", SD_R_notaccept },
	{ "No MX found for domain", SD_R_notaccept },
	{ "No MX found for destination", SD_R_notaccept },
};

#define OSMTPD_START "    This is the MAILER-DAEMON, please DO NOT REPLY to this"
#define OSMTPD_DELAY "this is only a temporary failure report"

static const char *const os_opening[] = { "This is the MAILER-DAEMON, please DO NOT REPLY", NULL };

static int is_opensmtpd(sd_ctx *c)
{
	if (sd_ctx_pasted(c, os_opening))
		return 1; /* the body pasted alone */
	return mta_has(c->subject, "Delivery status notification") ||
	       mta_has(c->from, "Mailer Daemon <") || mta_received_contains(c, " (OpenSMTPD) with ");
}

static int says_reason(sd_str text)
{
	for (size_t i = 0; i < sizeof(says) / sizeof(says[0]); i++)
		if (sd_memmem(text.p, text.n, says[i].text, strlen(says[i].text)))
			return says[i].reason;
	return -1;
}

/* "user@example.jp: text" */
static int add_line(sd_ctx *c, sd_str line)
{
	sd_str colon = mta_find(line, ": ");
	sd_str addr;
	sd_rcpt *r;

	if (!line.n || line.p[0] == ' ' || !colon.p)
		return 0;
	addr = (sd_str){ line.p, (size_t)(colon.p - line.p) };
	if (!mta_is_addr(addr) || !(r = sd_ctx_add(c)))
		return 0;
	r->recipient = addr;
	r->diagnostic = mta_squeeze(c->a, mta_skip(colon, 2));
	r->reason = says_reason(r->diagnostic);
	return 1;
}

int sd_fmt_opensmtpd(sd_ctx *c)
{
	sd_str body, line, prev = SD_NULLSTR;
	size_t pos = 0;
	int on = 0, n = 0, pasted;

	if (!is_opensmtpd(c))
		return 0;
	pasted = sd_ctx_headerless(c);
	body = mta_body(c);
	if (!mta_has(body, OSMTPD_START)) /* then no line starts with it: not ours */
		return 0;
	while (sd_next_line(body, &pos, &line)) {
		if (!on) {
			on = mta_starts(line, OSMTPD_START);
			continue;
		}
		if (mta_starts(line, "    Below is a copy of the original message"))
			break;
		if (add_line(c, line)) {
			n++;
		} else if (n && pasted && sd_paste_rewrapped(prev, line)) {
			sd_rcpt *r = &c->rcpts[c->nrcpt - 1]; /* the rest of a line a mail client broke */
			r->diagnostic = mta_join(c->a, r->diagnostic, line);
			r->reason = says_reason(r->diagnostic);
		}
		prev = line;
	}
	if (n && mta_contains(body, OSMTPD_DELAY))
		for (size_t i = c->nrcpt - (size_t)n; i < c->nrcpt; i++)
			c->rcpts[i].notice = c->rcpts[i].reason != SD_R_expired; /* gave up: no warning */
	return n;
}
