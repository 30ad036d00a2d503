/* mailmarshal.c - Trustwave/Marshal MailMarshal SMTP bounces.
 *
 *     Could not be delivered because of
 *     550 5.1.1 User unknown
 *     The following recipients were affected:
 *         user@example.com
 *     Additional Information
 *     Remote-MTA:         <203.0.113.2>
 */
#include "decode/formats/mta.h"

static int is_mailmarshal(const sd_ctx *c)
{
	return mta_starts(sd_trim(c->subject), "Undeliverable Mail: \"") ||
	       mta_received_contains(c, "MailMarshal");
}

/* "Remote-MTA:   <203.0.113.2>" */
static sd_str angle_value(sd_str line)
{
	sd_str v = mta_after(line, "<");

	return v.p ? mta_before(v, ">") : SD_NULLSTR;
}

int sd_fmt_mailmarshal(sd_ctx *c)
{
	sd_str body, line, diag = SD_NULLSTR, rhost = SD_NULLSTR, lhost = SD_NULLSTR;
	size_t pos = 0, first = c->nrcpt;
	int state = 0; /* 1: error text, 2: recipients, 3: additional information */

	if (!is_mailmarshal(c))
		return 0;
	body = mta_body(c);
	while (sd_next_line(body, &pos, &line)) {
		sd_str t = sd_trim(line);
		if (mta_starts(t, "Could not be delivered because of")) {
			state = 1;
		} else if (mta_starts(t, "The following recipients were affected")) {
			state = 2;
		} else if (mta_starts(t, "Additional Information")) {
			state = 3;
		} else if (state == 1 && t.n) {
			diag = mta_join(c->a, diag, t);
		} else if (state == 2 && mta_is_addr(t)) {
			sd_rcpt *r = sd_ctx_add(c);
			if (r)
				r->recipient = t;
		} else if (state == 3 && mta_starts(t, "Remote-MTA:")) {
			rhost = angle_value(t);
		} else if (state == 3 && mta_starts(t, "Reporting-MTA:")) {
			lhost = angle_value(t);
		}
	}
	for (size_t i = first; i < c->nrcpt; i++) {
		c->rcpts[i].diagnostic = mta_squeeze(c->a, diag);
		c->rcpts[i].rhost = rhost;
		c->rcpts[i].lhost = lhost;
	}
	return (int)(c->nrcpt - first);
}
