/* receivingses.c - bounces sent by an Amazon SES receipt rule ("Bounce"
 * action) for a domain that receives mail through SES. The text of the reply
 * comes from SES's fixed templates. */
#include "decode/formats/prov.h"

#define RS_START "This message could not be delivered."

static const pv_phrase rs_templates[] = {
	{ "Mailbox does not exist", SD_R_userunknown },
	{ "Message too large", SD_R_emailtoolarge },
	{ "Mailbox full", SD_R_mailboxfull },
	{ "Message content rejected", SD_R_spamdetected },
	{ NULL, 0 },
};

static int is_receivingses(sd_ctx *c)
{
	return mta_has(c->subject, "Delivery Status Notification") && !mta_has(c->from, "amazonses.com") &&
	       mta_hdr(c, "X-SES-Outgoing").p;
}

int sd_fmt_receivingses(sd_ctx *c)
{
	size_t from = c->nrcpt;
	sd_str body;
	int n;

	if (!is_receivingses(c))
		return 0;
	body = mta_body(c);
	if (!mta_has(body, RS_START))
		return 0;
	n = mta_dsn(c);
	if (n <= 0)
		return n;
	for (size_t i = from; i < c->nrcpt; i++) {
		sd_rcpt *r = &c->rcpts[i];
		mta_take_codes(c->a, r, r->diagnostic);
		r->reason = pv_phrase_find(r->diagnostic, rs_templates);
	}
	pv_original(c, body, NULL);
	return (int)(c->nrcpt - from);
}
