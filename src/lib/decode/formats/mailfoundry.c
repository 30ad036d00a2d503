/* mailfoundry.c - MailFoundry bounces.
 *
 *     Unable to deliver message to: <user@example.org>
 *     Delivery failed for the following reason:
 *     mx.example.org[192.0.2.1] responded with failure: 552 sorry, mailbox ... is over quota
 *     This has been a permanent failure. No further delivery attempts will be made.
 */
#include "decode/formats/mta.h"

static int is_mailfoundry(const sd_ctx *c)
{
	return mta_received_contains(c, "(MAILFOUNDRY)") ||
	       (sd_str_caseeq(sd_trim(c->subject), "Message delivery has failed") &&
		mta_has(c->from, "MAILER-DAEMON"));
}

int sd_fmt_mailfoundry(sd_ctx *c)
{
	sd_str body, line;
	size_t pos = 0, first = c->nrcpt;
	int indiag = 0;

	if (!is_mailfoundry(c))
		return 0;
	body = mta_body(c);
	while (sd_next_line(body, &pos, &line)) {
		if (mta_starts(line, "Unable to deliver message to: ") && mta_addr(line).p) {
			sd_rcpt *r = sd_ctx_add(c);
			if (r)
				r->recipient = mta_addr(line);
			indiag = 0;
		} else if (mta_starts(line, "Delivery failed for the following reason:")) {
			indiag = 1;
		} else if (mta_starts(line, "This has been a permanent failure") || mta_starts(line, "--")) {
			indiag = 0;
		} else if (indiag && c->nrcpt > first && !mta_blank(line)) {
			sd_rcpt *r = &c->rcpts[c->nrcpt - 1];
			r->diagnostic = mta_join(c->a, r->diagnostic, line);
		}
	}
	return mta_finish(c, first);
}
