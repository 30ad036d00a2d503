/* mfilter.c - Digital Arts m-FILTER bounces (X-Mailer: m-FILTER).
 *
 *     user@example.com
 *     -------server message
 *     550 unknown user <user@example.com>
 *     -------SMTP command
 *     DATA
 *     -------original message
 */
#include "decode/formats/mta.h"

int sd_fmt_mfilter(sd_ctx *c)
{
	sd_str body, line;
	size_t pos = 0, first = c->nrcpt;
	int state = 0; /* 0: addresses, 1: server message, 2: command */

	if (!mta_hdr_starts(c, "X-Mailer", "m-FILTER"))
		return 0;
	body = mta_body(c);
	while (sd_next_line(body, &pos, &line)) {
		sd_str t = sd_trim(line);
		if (mta_starts(t, "-------original mail") || mta_starts(t, "-------original message"))
			break;
		if (mta_starts(t, "-------server message")) {
			state = 1;
		} else if (mta_starts(t, "-------SMTP command")) {
			state = 2;
		} else if (state == 0 && mta_is_addr(t)) {
			sd_rcpt *r = sd_ctx_add(c);
			if (r)
				r->recipient = t;
		} else if (state == 1 && t.n && c->nrcpt > first) {
			sd_rcpt *r = &c->rcpts[c->nrcpt - 1];
			r->diagnostic = mta_join(c->a, r->diagnostic, t);
		} else if (state == 2 && t.n && c->nrcpt > first) {
			c->rcpts[c->nrcpt - 1].command = mta_command_word(t);
		}
	}
	for (size_t i = first; i < c->nrcpt; i++) {
		sd_rcpt *r = &c->rcpts[i];
		if (!r->diagnostic.n && c->nrcpt > first)
			r->diagnostic = c->rcpts[c->nrcpt - 1].diagnostic;
		if (!r->command.n)
			r->command = c->rcpts[c->nrcpt - 1].command;
	}
	return (int)(c->nrcpt - first);
}
