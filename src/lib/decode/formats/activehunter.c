/* activehunter.c - TransWARE Active!hunter bounces (X-AHMAILID header).
 *
 *       ----- The following addresses had permanent fatal errors -----
 *     >>> user@example.org <user@example.org>
 *       ----- Transcript of session follows -----
 *     550 sorry, no mailbox here by that name (#5.1.1 - chkusr)
 */
#include "decode/formats/mta.h"

static int is_activehunter(const sd_ctx *c)
{
	return mta_hdr(c, "X-AHMAILID").p != NULL ||
	       (mta_starts(sd_trim(c->subject), "FAILURE NOTICE :") && mta_has(c->from, "MAILER-DAEMON"));
}

int sd_fmt_activehunter(sd_ctx *c)
{
	sd_str body, line;
	size_t pos = 0, first = c->nrcpt;
	int on = 0, transcript = 0;

	if (!is_activehunter(c))
		return 0;
	body = mta_body(c);
	while (sd_next_line(body, &pos, &line)) {
		if (!on) {
			on = mta_has(line, "----- The following addresses had permanent fatal errors -----");
			continue;
		}
		if (mta_starts(line, ">>> ") && mta_addr(line).p) {
			sd_rcpt *r = sd_ctx_add(c);
			if (r)
				r->recipient = mta_addr(line);
		} else if (mta_has(line, "----- Transcript of session follows -----")) {
			transcript = 1;
		} else if (transcript && c->nrcpt > first && !mta_blank(line)) {
			sd_rcpt *r = &c->rcpts[c->nrcpt - 1];
			r->diagnostic = mta_join(c->a, r->diagnostic, line);
		}
	}
	return mta_finish(c, first);
}
