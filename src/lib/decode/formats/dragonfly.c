/* dragonfly.c - DragonFly Mail Agent (dma) bounces.
 *
 *     This is the DragonFly Mail Agent v0.13 at host.example.jp.
 *     There was an error delivering your mail to <user@example.org>.
 *     mx.example.org [192.0.2.25] did not like our RCPT TO:
 *     550 5.1.1 <user@example.org>: Recipient address rejected
 *     Message headers follow.
 * No DSN part; "Could not deliver for the last N seconds. Giving up." is dma's
 * own expiry notice. */
#include "decode/formats/mta.h"

static int is_dma(const sd_ctx *c)
{
	if (mta_received_contains(c, "DragonFly Mail Agent"))
		return 1;
	return mta_has(c->subject, "Mail delivery failed") && mta_has(c->from, "MAILER-DAEMON");
}

/* "mx.example.org [192.0.2.25] did not like our RCPT TO:" */
static void remote_line(sd_rcpt *r, sd_str line)
{
	sd_str what = mta_after(line, " did not like our ");
	const char *sp = memchr(line.p, ' ', line.n);

	if (!what.p)
		return;
	if (sp)
		r->rhost = (sd_str){ line.p, (size_t)(sp - line.p) };
	if (mta_starts(what, "final DATA"))
		r->command = SD_STR("DATA");
	else
		r->command = mta_command_word(what);
}

static void read_error(sd_ctx *c, sd_rcpt *r, sd_str text)
{
	size_t pos = 0;
	sd_str line;

	while (sd_next_line(text, &pos, &line)) {
		if (mta_starts(line, "Message headers follow") || mta_starts(line, "Original message follows"))
			break;
		if (mta_has(line, " did not like our ")) {
			remote_line(r, line);
			continue;
		}
		r->diagnostic = mta_join(c->a, r->diagnostic, line);
	}
	if (mta_has(r->diagnostic, "Could not deliver for the last ") && mta_has(r->diagnostic, "Giving up"))
		r->reason = SD_R_expired;
}

int sd_fmt_dragonfly(sd_ctx *c)
{
	sd_str body, to, rest, first;
	size_t pos = 0;
	sd_rcpt *r;

	if (!is_dma(c))
		return 0;
	body = mta_body(c);
	if (!mta_contains(body, "This is the DragonFly Mail Agent"))
		return 0;
	rest = mta_after(body, "There was an error delivering your mail to ");
	if (!rest.p || !sd_next_line(rest, &pos, &first))
		return 0;
	to = mta_addr(first);
	if (!to.p || !(r = sd_ctx_add(c)))
		return 0;
	r->recipient = to;
	read_error(c, r, mta_skip(rest, pos));
	return 1;
}
