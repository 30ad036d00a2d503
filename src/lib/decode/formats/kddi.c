/* kddi.c - au by KDDI (au one net, dion.ne.jp) bounces.
 *
 *   Your mail sent on: Thu, 29 Apr 2013 23:45:22 +0900
 *        Could not be delivered to: <kijitora@x.dion.ne.jp>
 *        As their mailbox is full.
 */
#include "decode/formats/prov.h"

static const pv_phrase kd_phrases[] = {
	{ "As their mailbox is full", SD_R_mailboxfull },
	{ "Due to the following SMTP relay error", SD_R_norelaying },
	{ "As the remote domain doesnt exist", SD_R_hostunknown },
	{ NULL, 0 },
};

static int is_kddi(const sd_ctx *c)
{
	sd_str f = c->from;

	if (!mta_has(f, "no-reply@") && !mta_has(f, "ezweb") && !mta_has(f, "au.com") && !mta_has(f, "auone"))
		return 0;
	return (mta_has(f, "no-reply@") && mta_has(f, ".dion.ne.jp")) ||
	       mta_hdr_has(c, "Reply-To", "no-reply@app.auone-net.jp") ||
	       mta_received_has(c, "ezweb.ne.jp (") || mta_received_has(c, ".au.com (") ||
	       mta_received_has(c, "auone-net.jp");
}

static sd_str kd_section(sd_str body)
{
	sd_str s = mta_find(body, "Your mail sent on:");

	if (!s.p)
		s = mta_find(body, "Your mail attempted to be delivered on:");
	return pv_cut(s, (const char *const[]){ "Content-Type: message/rfc822", NULL });
}

static void kd_finish(sd_ctx *c, sd_rcpt *r)
{
	r->command = mta_command(r->diagnostic);
	if (mta_has(sd_trim(mta_hdr(c, "X-SPASIGN")), "NG"))
		r->reason = SD_R_filtered;
	else if (sd_str_caseeq(r->command, "RCPT"))
		pv_weak_reason(c, r, SD_R_userunknown);
	else
		r->reason = pv_phrase_find(r->diagnostic, kd_phrases);
}

int sd_fmt_kddi(sd_ctx *c)
{
	sd_str body, text, line;
	size_t pos = 0, from = c->nrcpt;
	sd_rcpt *r = NULL;
	int n = 0;

	if (!is_kddi(c))
		return 0;
	body = mta_body(c);
	text = kd_section(body);
	while (text.p && n++ < PV_MAX_LINES && sd_next_line(text, &pos, &line)) {
		if (mta_has(line, "Could not be delivered to: <"))
			r = pv_rcpt(c, mta_after(line, "Could not be delivered to:"));
		else if (r && line.n && line.p[0] == ' ')
			pv_diag(c, r, line);
	}
	if (c->nrcpt == from)
		return 0;
	for (size_t i = from; i < c->nrcpt; i++)
		kd_finish(c, &c->rcpts[i]);
	pv_original(c, body, NULL);
	return (int)(c->nrcpt - from);
}
