/* x1.c - an unidentified MTA ("Sisimai X1", Mail2000-like): no DSN part.
 *
 *     The original message was received at Thu, 29 Apr 2010 23:34:45 +0900 (JST)
 *     from sender@example.jp
 *     ---The following addresses had delivery errors---
 *     user@example.co.jp [User unknown]
 */
#include "decode/formats/mta.h"

static int is_x1(const sd_ctx *c)
{
	sd_str s = sd_trim(c->subject);

	return mta_prefix(s, "Returned Mail: ") || mta_prefix(s, "Mail Delivery Failure") ||
	       (mta_has(c->from, "\"Mail Deliver") && mta_has(c->from, "System\" "));
}

/* "user@example.co.jp [User unknown]" */
static int add_line(sd_ctx *c, sd_str line)
{
	sd_str addr = mta_before(line, " [");
	sd_rcpt *r;

	if (addr.n == line.n || !mta_is_addr(addr) || !mta_has(mta_skip(line, addr.n), "]"))
		return 0;
	if (!(r = sd_ctx_add(c)))
		return 0;
	r->recipient = sd_trim(addr);
	r->diagnostic = sd_trim(mta_before(mta_skip(line, addr.n + 2), "]"));
	r->command = mta_command(r->diagnostic);
	return 1;
}

int sd_fmt_x1(sd_ctx *c)
{
	sd_str body, line;
	size_t pos = 0;
	int on = 0, n = 0;

	if (!is_x1(c))
		return 0;
	body = mta_body(c);
	while (sd_next_line(body, &pos, &line)) {
		if (!on) {
			on = mta_starts(line, "The original message was received at ");
			continue;
		}
		if (mta_starts(line, "Received: from ") || mta_starts(line, "Content-Type: message/rfc822"))
			break;
		n += add_line(c, sd_trim(line));
	}
	return n;
}
