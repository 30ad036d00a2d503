/* ezweb.c - au by KDDI (EZweb, ezweb.ne.jp / au.com) "Mail System Error -
 * Returned Mail" bounces: a Japanese notice, then English lines.
 *
 *   The user(s) account is disabled.
 *
 *   <***@ezweb.ne.jp>: 550 user unknown (in reply to RCPT TO command)
 *
 *   -- or --
 *   Each of the following recipients was rejected by a remote mail server.
 *
 *       Recipient: <******@ezweb.ne.jp>
 *       >>> RCPT TO:<******@ezweb.ne.jp>
 *       <<< 550 <******@ezweb.ne.jp>: User unknown
 */
#include "decode/formats/prov.h"

static const pv_phrase ez_phrases[] = {
	{ "The user(s) account is temporarily over quota", SD_R_mailboxfull },
	{ "The user(s) account is disabled", SD_R_suspend },
	{ "The user(s) account is temporarily limited", SD_R_suspend },
	{ "Your message was not delivered within ", SD_R_expired },
	{ "Each of the following recipients was rejected by a remote mail server", SD_R_onhold },
	{ NULL, 0 },
};

static int is_ezweb(const sd_ctx *c)
{
	int score = 0;

	score += mta_has(c->from, "Postmaster@ezweb.ne.jp") || mta_has(c->from, "Postmaster@au.com");
	score += sd_str_caseeq(sd_trim(c->subject), "Mail System Error - Returned Mail");
	if (score == 1)
		score += mta_received_has(c, "ezweb.ne.jp (EZweb Mail) with") || mta_received_has(c, ".au.com (") ||
			 mta_hdr_has(c, "Message-ID", ".ezweb.ne.jp>") || mta_hdr_has(c, "Message-ID", ".au.com>");
	return score >= 2;
}

static int is_8bit(sd_str s)
{
	for (size_t i = 0; i < s.n; i++)
		if ((unsigned char)s.p[i] >= 0x80 || s.p[i] == 0x1b)
			return 1;
	return 0;
}

/* "<a@b>", "<a@b>: text" or "Recipient: <a@b>"; rest receives the text. */
static int rcpt_line(sd_str line, sd_str *addr, sd_str *rest)
{
	sd_str t = sd_trim(line);
	const char *gt;

	if (mta_starts(t, "Recipient: <"))
		t = mta_after(t, "Recipient: ");
	if (t.n < 5 || t.p[0] != '<' || !(gt = memchr(t.p, '>', t.n)))
		return 0;
	*addr = (sd_str){ t.p + 1, (size_t)(gt - t.p) - 1 };
	*rest = mta_skip(t, (size_t)(gt - t.p) + 1);
	if (rest->n && rest->p[0] == ':')
		*rest = mta_skip(*rest, 1);
	return mta_is_addr(*addr);
}

typedef struct ez_rd {
	sd_ctx *c;
	size_t first;
	sd_rcpt *r;
	sd_str notice; /* English lines before the recipients */
	sd_str alt;    /* other lines of the current recipient */
} ez_rd;

static void ez_line(ez_rd *d, sd_str line)
{
	sd_str addr, rest;

	if (!line.n || is_8bit(line))
		return;
	if (rcpt_line(line, &addr, &rest)) {
		d->r = mta_rcpt_find(d->c, d->first, addr);
		if (!d->r)
			d->r = pv_rcpt(d->c, addr);
		if (d->r && !d->r->diagnostic.n)
			d->r->diagnostic = d->notice;
		if (d->r)
			pv_diag(d->c, d->r, rest);
	} else if (d->r && mta_has(line, ">>> ")) {
		d->r->command = mta_command(line);
	} else if (d->r) {
		pv_diag(d->c, d->r, mta_has(line, "<<< ") ? mta_after(line, "<<< ") : line);
	} else {
		d->notice = d->notice.n ? mta_join(d->c->a, d->notice, sd_trim(line)) : sd_trim(line);
	}
}

static void ez_reason(sd_ctx *c, sd_rcpt *r)
{
	if (mta_has(sd_trim(mta_hdr(c, "X-SPASIGN")), "NG")) {
		r->reason = SD_R_filtered;
		return;
	}
	if (sd_str_caseeq(r->command, "RCPT")) {
		pv_weak_reason(c, r, SD_R_userunknown);
		return;
	}
	r->reason = pv_phrase_find(r->diagnostic, ez_phrases);
	if (r->reason == SD_R_onhold) {
		r->reason = -1;
		pv_weak_reason(c, r, SD_R_onhold);
	}
	if (r->reason < 0 && !mta_has(r->recipient, "@ezweb.ne.jp") && !mta_has(r->recipient, "@au.com"))
		pv_weak_reason(c, r, SD_R_userunknown);
}

int sd_fmt_ezweb(sd_ctx *c)
{
	ez_rd d = { c, c->nrcpt, NULL, SD_NULLSTR, SD_NULLSTR };
	sd_str body, text, line;
	size_t pos = 0;
	int n = 0;

	if (!is_ezweb(c))
		return 0;
	if (mta_dsn(c) < 0)
		return SMTPDIAG_ENOMEM;
	body = mta_body(c);
	text = pv_cut(body, (const char *const[]){ "--------------------------------------------------",
						    "Content-Type: message/rfc822", NULL });
	while (text.p && n++ < PV_MAX_LINES && sd_next_line(text, &pos, &line))
		ez_line(&d, line);
	if (c->nrcpt == d.first)
		return 0;
	for (size_t i = d.first; i < c->nrcpt; i++)
		ez_reason(c, &c->rcpts[i]);
	pv_original(c, body, "--------------------------------------------------");
	return (int)(c->nrcpt - d.first);
}
