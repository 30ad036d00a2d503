/* domino.c - IBM/HCL Domino (Lotus Notes) SMTP bounces: "DELIVERY FAILURE:".
 *
 *     Your message
 *       Subject: Test
 *     was not delivered to:
 *       user@example.jp
 *     because:
 *       User some.name (user@example.jp) not listed in Domino Directory
 * Newer releases add a message/delivery-status part. */
#include "decode/formats/mta.h"

static const struct {
	const char *text;
	int reason;
} says[] = {
	{ "not listed in Domino Directory", SD_R_userunknown },
	{ "not listed in public Name & Address Book", SD_R_userunknown },
	{ "Cannot route mail to user", SD_R_filtered },
	{ "Several matches found in Domino Directory", SD_R_systemerror },
};

static int says_reason(sd_str text)
{
	for (size_t i = 0; i < sizeof(says) / sizeof(says[0]); i++)
		if (sd_memmem(text.p, text.n, says[i].text, strlen(says[i].text)))
			return says[i].reason;
	return -1;
}

static void read_text(sd_ctx *c, sd_str body, size_t first)
{
	sd_str line;
	size_t pos = 0;
	int state = 0; /* 1: recipients, 2: reason */

	while (sd_next_line(body, &pos, &line)) {
		sd_str t = sd_trim(line);
		if (mta_starts(t, "was not delivered to:")) {
			state = 1;
		} else if (mta_starts(t, "because:")) {
			state = 2;
		} else if (state == 1 && mta_is_addr(t)) {
			sd_rcpt *r = sd_ctx_add(c);
			if (r)
				r->recipient = t;
		} else if (state == 2 && t.n && c->nrcpt > first) {
			sd_rcpt *r = &c->rcpts[c->nrcpt - 1];
			r->diagnostic = mta_join(c->a, r->diagnostic, t);
		} else if (state == 2 && !t.n && c->nrcpt > first && c->rcpts[c->nrcpt - 1].diagnostic.n) {
			break;
		}
	}
}

/* The report pasted alone: it opens with "Your message" and has the template's
 * "was not delivered to:" and "because:" lines. */
static int pasted(sd_ctx *c)
{
	static const char *const opening[] = { "Your message", NULL };
	sd_str body = mta_body(c);

	return sd_ctx_pasted(c, opening) && mta_has(body, "was not delivered to:") && mta_has(body, "because:");
}

int sd_fmt_domino(sd_ctx *c)
{
	size_t first = c->nrcpt, dsn_first;
	int n;

	if (!mta_starts(sd_trim(c->subject), "DELIVERY FAILURE:") &&
	    !mta_starts(sd_trim(c->subject), "DELIVERY_FAILURE:") && !pasted(c))
		return 0;
	read_text(c, mta_body(c), first);
	dsn_first = c->nrcpt;
	n = mta_dsn(c);
	if (n < 0)
		return n;
	for (size_t i = first; i < dsn_first; i++) {
		sd_rcpt *r = &c->rcpts[i];
		const sd_rcpt *d = mta_rcpt_find(c, dsn_first, r->recipient);
		if (d) {
			r->status = d->status;
			r->lhost = d->lhost;
			r->diagtype = d->diagtype;
		}
		r->diagnostic = mta_squeeze(c->a, r->diagnostic);
		r->reason = says_reason(r->diagnostic);
	}
	if (dsn_first > first) {
		c->nrcpt = dsn_first;
		return (int)(dsn_first - first);
	}
	return n;
}
