/* x3.c - an unidentified MTA ("Sisimai X3"): "Delivery status notification".
 *
 *           This is an automatically generated Delivery Status Notification.
 *     Delivery to the following recipients failed permanently:
 *        * user@example.com
 *                                  Technical details:
 *     SMTP:RCPT host 192.0.2.8: 553 5.3.0 <user@example.com>... No such user here
 * Some add a message/delivery-status part. */
#include "decode/formats/mta.h"

static int is_x3(const sd_ctx *c)
{
	return mta_starts(sd_trim(c->from), "Mail Delivery System") &&
	       mta_starts(sd_trim(c->subject), "Delivery status notification");
}

static void read_text(sd_ctx *c, sd_str body, size_t first)
{
	size_t pos = 0;
	sd_str line;
	sd_rcpt *cur = NULL;
	int on = 0;

	while (sd_next_line(body, &pos, &line)) {
		sd_str t = sd_trim(line);
		if (!on) {
			on = mta_has(line, "This is an automatically generated Delivery Status Notification");
			continue;
		}
		if (mta_starts(t, "* ") && mta_is_addr(mta_skip(t, 2))) {
			cur = sd_ctx_add(c);
			if (cur)
				cur->recipient = sd_trim(mta_skip(t, 2));
		} else if (mta_starts(line, "SMTP:") && c->nrcpt > first) {
			cur = cur ? cur : &c->rcpts[c->nrcpt - 1];
			cur->command = mta_command_word(mta_skip(line, 5));
			cur->diagtype = SD_STR("SMTP");
			cur->diagnostic = mta_join(c->a, cur->diagnostic, line);
		} else if (mta_starts(line, "Routing: ") && c->nrcpt > first) {
			cur = cur ? cur : &c->rcpts[c->nrcpt - 1];
			cur->diagnostic = mta_join(c->a, cur->diagnostic, line);
		}
	}
}

static void from_dsn(sd_ctx *c, sd_rcpt *r, const sd_rcpt *d)
{
	r->status = d->status;
	r->lhost = d->lhost;
	r->rhost = d->rhost;
	r->action = d->action;
	if (d->diagtype.n)
		r->diagtype = d->diagtype;
	r->diagnostic = mta_join(c->a, r->diagnostic, d->diagnostic);
}

int sd_fmt_x3(sd_ctx *c)
{
	size_t first = c->nrcpt, dsn_first;
	int n;

	if (!is_x3(c))
		return 0;
	read_text(c, mta_body(c), first);
	dsn_first = c->nrcpt;
	if (dsn_first == first)
		return 0;
	n = mta_dsn(c);
	if (n < 0)
		return n;
	for (size_t i = first; i < dsn_first; i++) {
		sd_rcpt *r = &c->rcpts[i];
		const sd_rcpt *d = mta_rcpt_find(c, dsn_first, r->recipient);
		if (d)
			from_dsn(c, r, d);
		r->diagnostic = mta_squeeze(c->a, r->diagnostic);
	}
	c->nrcpt = dsn_first;
	return (int)(dsn_first - first);
}
