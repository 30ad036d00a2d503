/* outlook.c - Outlook.com / Hotmail delivery status notifications: standard
 * RFC 3464 reports whose reply texts name the reason in Microsoft's words. */
#include "decode/formats/prov.h"

static const pv_phrase ol_phrases[] = {
	{ "The mail could not be delivered to the recipient because the domain is not reachable",
	  SD_R_hostunknown },
	{ "Requested action not taken: mailbox unavailable", SD_R_userunknown },
	{ NULL, 0 },
};

static int is_outlook(const sd_ctx *c)
{
	int score = 1;

	if (!mta_has(c->subject, "Delivery Status Notification"))
		return 0;
	score += mta_hdr(c, "X-Message-Delivery").p != NULL;
	score += mta_hdr(c, "X-Message-Info").p != NULL;
	score += mta_received_has(c, ".hotmail.com");
	return score >= 2;
}

int sd_fmt_outlook(sd_ctx *c)
{
	size_t from = c->nrcpt;
	int n;

	if (!is_outlook(c))
		return 0;
	n = mta_dsn(c);
	if (n <= 0)
		return n;
	for (size_t i = from; i < c->nrcpt; i++) {
		sd_rcpt *r = &c->rcpts[i];
		r->reason = pv_phrase_find(r->diagnostic, ol_phrases);
	}
	pv_original(c, mta_body(c), NULL);
	return (int)(c->nrcpt - from);
}
