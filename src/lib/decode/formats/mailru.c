/* mailru.c - Mail.Ru bounces: a Russian preface, then Exim's report.
 *
 *   This message was created automatically by mail delivery software.
 *   ... The following address(es) failed:
 *
 *     kijitora@example.jp
 *       SMTP error from remote mail server after RCPT TO:<kijitora@example.jp>:
 *       host mx.example.jp [192.0.2.222]: 550 5.2.2 <kijitora@example.jp>... Mailbox Full
 *
 *   ------ This is a copy of the message, including all the headers. ------
 */
#include "decode/formats/prov.h"

#define MR_START "This message was created automatically by mail delivery software."
#define MR_ORIG "------ This is a copy of the message, including all the headers. ------"

/* Exim's own words, which name the reason for sure. */
static const pv_phrase mr_phrases[] = {
	{ "retry timeout exceeded", SD_R_expired },
	{ "No action is required on your part", SD_R_expired },
	{ "user not found", SD_R_userunknown },
	{ "all host address lookups failed permanently", SD_R_hostunknown },
	{ "all relevant MX records point to non-existent hosts", SD_R_hostunknown },
	{ "Unrouteable address", SD_R_hostunknown },
	{ "mailbox is full", SD_R_mailboxfull },
	{ "error: quota exceed", SD_R_mailboxfull },
	{ "an MX or SRV record indicated no SMTP service", SD_R_notaccept },
	{ "no host found for existing SMTP connection", SD_R_notaccept },
	{ "delivery to file forbidden", SD_R_systemerror },
	{ "delivery to pipe forbidden", SD_R_systemerror },
	{ "local delivery failed", SD_R_systemerror },
	{ "Too many \"Received\" headers", SD_R_contenterror },
	{ NULL, 0 },
};

static int is_mailru(const sd_ctx *c)
{
	int score = 0;

	score += mta_has(c->from, "mailer-daemon@") && mta_has(c->from, "mail.ru");
	score += mta_hdr_has(c, "Message-ID", ".mail.ru>") || mta_hdr_has(c, "Message-ID", "smailru.net>");
	score += mta_has(c->subject, "Mail failure") || mta_has(c->subject, "Mail delivery failed") ||
		 mta_has(c->subject, "Delivery Status Notification") ||
		 mta_has(c->subject, "Message frozen") || mta_has(c->subject, "Warning: message ");
	return score >= 2 && mta_has(c->from, "mail.ru");
}

/* "  kijitora@example.jp": two spaces, no more, and an address. */
static int is_rcpt_line(sd_str line)
{
	return line.n > 3 && line.p[0] == ' ' && line.p[1] == ' ' && line.p[2] != ' ' && mta_is_addr(line);
}

/* "host mx.example.jp [192.0.2.222]: 550 ..." -> mx.example.jp */
static sd_str rhost_of(sd_str d)
{
	sd_str h = mta_after(d, "host ");
	const char *sp = h.p ? memchr(h.p, ' ', h.n) : NULL;

	return sp ? (sd_str){ h.p, (size_t)(sp - h.p) } : SD_NULLSTR;
}

static void finish(sd_rcpt *r)
{
	r->rhost = rhost_of(r->diagnostic);
	r->command = mta_command(r->diagnostic);
	if (sd_str_caseeq(r->command, "MAIL"))
		r->reason = SD_R_rejected;
	else if (sd_str_caseeq(r->command, "HELO") || sd_str_caseeq(r->command, "EHLO"))
		r->reason = SD_R_blocked;
	else
		r->reason = pv_phrase_find(r->diagnostic, mr_phrases);
}

int sd_fmt_mailru(sd_ctx *c)
{
	sd_str body, text, line;
	size_t pos = 0, from = c->nrcpt;
	sd_rcpt *r = NULL;
	int n = 0;

	if (!is_mailru(c))
		return 0;
	body = mta_body(c);
	text = pv_cut(pv_after_line(body, MR_START), (const char *const[]){ MR_ORIG, NULL });
	while (text.p && n++ < PV_MAX_LINES && sd_next_line(text, &pos, &line)) {
		if (is_rcpt_line(line))
			r = pv_rcpt(c, line);
		else if (r && line.n > 4 && !memcmp(line.p, "    ", 4))
			pv_diag(c, r, line);
	}
	if (c->nrcpt == from)
		return 0;
	for (size_t i = from; i < c->nrcpt; i++)
		finish(&c->rcpts[i]);
	pv_original(c, body, MR_ORIG);
	return (int)(c->nrcpt - from);
}
