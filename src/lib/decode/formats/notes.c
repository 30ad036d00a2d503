/* notes.c - Lotus Notes SMTP MTA bounces: "Undeliverable message".
 *
 *     ------- Failure Reasons  --------
 *     User not listed in public Name & Address Book
 *     user@example.com
 *     ------- Returned Message --------
 */
#include "decode/formats/mta.h"

static const struct {
	const char *text;
	int reason;
} says[] = {
	{ "not listed in public Name & Address Book", SD_R_userunknown },
	{ "Message has exceeded maximum hop count", SD_R_networkerror },
};

int sd_fmt_notes(sd_ctx *c)
{
	sd_str body, line, diag = SD_NULLSTR;
	size_t pos = 0, first = c->nrcpt;
	int on = 0;

	if (!mta_starts(sd_trim(c->subject), "Undeliverable message"))
		return 0;
	body = mta_body(c);
	while (sd_next_line(body, &pos, &line)) {
		sd_str t = sd_trim(line);
		if (!on) {
			on = mta_starts(t, "------- Failure Reasons");
			continue;
		}
		if (mta_starts(t, "------- Returned Message"))
			break;
		if (mta_is_addr(t)) {
			sd_rcpt *r = sd_ctx_add(c);
			if (r) {
				r->recipient = mta_addr(t);
				r->diagnostic = diag;
			}
		} else if (t.n) {
			diag = mta_join(c->a, diag, t);
		}
	}
	for (size_t i = first; i < c->nrcpt; i++) {
		sd_rcpt *r = &c->rcpts[i];
		if (!r->diagnostic.n)
			r->diagnostic = diag;
		r->diagnostic = mta_squeeze(c->a, r->diagnostic);
		for (size_t k = 0; k < sizeof(says) / sizeof(says[0]); k++)
			if (sd_memmem(r->diagnostic.p, r->diagnostic.n, says[k].text, strlen(says[k].text)))
				r->reason = says[k].reason;
	}
	return (int)(c->nrcpt - first);
}
