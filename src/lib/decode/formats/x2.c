/* x2.c - an unidentified MTA ("Sisimai X2"): qmail-like text without a DSN.
 *
 *     Unable to deliver message to the following address(es).
 *     <user@example.com>:
 *     This user doesn't have a example.com account (user@example.com) [0]
 *     --- Original message follows.
 */
#include "decode/formats/mta.h"

static const char *const starts[] = { "Unable to deliver message to the following address", NULL };
static const char *const ends[] = { "--- Original message follows.", NULL };

static int is_x2(const sd_ctx *c)
{
	sd_str s = sd_trim(c->subject);

	return mta_has(c->from, "MAILER-DAEMON@") || mta_starts(s, "Delivery failure") ||
	       mta_starts(s, "failure delivery") || mta_starts(s, "failed delivery");
}

int sd_fmt_x2(sd_ctx *c)
{
	size_t first = c->nrcpt, at;
	sd_str body;

	if (!is_x2(c))
		return 0;
	body = mta_body(c);
	if (!mta_contains(body, starts[0]))
		return 0;
	at = mta_angle_blocks(c, body, starts, ends);
	for (size_t i = first; i < c->nrcpt; i++) {
		sd_rcpt *r = &c->rcpts[i];
		r->diagnostic = mta_squeeze(c->a, r->diagnostic);
		r->command = mta_command(r->diagnostic);
	}
	if (c->nrcpt > first && at < body.n)
		sd_ctx_find_original(c, mta_skip(body, at));
	return (int)(c->nrcpt - first);
}
