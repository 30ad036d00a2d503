/* sendgrid.c - SendGrid bounces: an RFC 3464 report with SendGrid's habits
 * ("Action: expired", empty Status, a bare Diagnostic-Code). */
#include "decode/formats/prov.h"

static int is_sendgrid(const sd_ctx *c)
{
	if (!mta_has(c->subject, "Undelivered Mail Returned to Sender"))
		return 0;
	return mta_hdr_has(c, "Return-Path", "<apps@sendgrid.net>") || mta_received_has(c, ".sendgrid.net");
}

int sd_fmt_sendgrid(sd_ctx *c)
{
	size_t from = c->nrcpt;
	int n;

	if (!is_sendgrid(c))
		return 0;
	n = mta_dsn(c);
	if (n <= 0)
		return n;
	for (size_t i = from; i < c->nrcpt; i++) {
		sd_rcpt *r = &c->rcpts[i];
		if (sd_str_caseeq(sd_trim(r->action), "expired")) {
			r->reason = SD_R_expired;
			r->action = SD_STR("failed");
		}
		mta_take_codes(c->a, r, r->diagnostic);
	}
	pv_original(c, mta_body(c), NULL);
	return (int)(c->nrcpt - from);
}
