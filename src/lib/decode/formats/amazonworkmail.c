/* amazonworkmail.c - Amazon WorkMail bounces: the DSN fields are written into
 * the text part after "Technical report:", and the real SMTP error is often
 * quoted inside SES's own ("554 4.4.7 Message expired: ...<421 4.4.2 ...>"). */
#include "decode/formats/prov.h"

static int is_workmail(const sd_ctx *c)
{
	if (!mta_has(c->from, "amazonses.com"))
		return 0;
	return (mta_hdr_has(c, "X-Mailer", "Amazon WorkMail") ||
		mta_hdr_has(c, "X-Original-Mailer", "Amazon WorkMail")) &&
	       mta_hdr(c, "X-SES-Outgoing").p;
}

int sd_fmt_amazonworkmail(sd_ctx *c)
{
	size_t from = c->nrcpt;
	sd_str body;
	int n;

	if (!is_workmail(c))
		return 0;
	body = mta_body(c);
	n = mta_dsn(c);
	if (n == 0)
		n = mta_dsn_read(c, mta_after(body, "Technical report:"));
	if (n <= 0)
		return n;
	for (size_t i = from; i < c->nrcpt; i++) {
		sd_rcpt *r = &c->rcpts[i];
		if (!pv_inner_codes(c, r, r->diagnostic))
			mta_take_codes(c->a, r, r->diagnostic);
		if (mta_has(r->diagnostic, "Message expired:"))
			r->reason = SD_R_expired; /* WorkMail gave up; the quoted reply was the last try */
	}
	pv_original(c, body, NULL);
	return (int)(c->nrcpt - from);
}
