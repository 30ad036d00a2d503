/* x6.c - an unidentified MTA ("Sisimai X6"): "There was an error sending your mail".
 *
 *     We had trouble delivering your message. Full details follow:
 *     SMTP Server <mx.example.jp> rejected recipient <user@example.jp> (Error
 *     following RCPT command). It responded as follows: [550 5.1.1 User unknown]
 *     The following recipients returned permanent errors: user@example.org.
 *     Reason: SMTP Server <192.0.2.1> refused to accept your message (DATA), ...
 */
#include "decode/formats/mta.h"

static sd_str host_in(sd_str line)
{
	sd_str h = mta_after(line, "SMTP Server <");

	return h.p ? mta_before(h, ">") : SD_NULLSTR;
}

static int add_line(sd_ctx *c, sd_str line)
{
	sd_str addr = SD_NULLSTR;
	sd_rcpt *r;

	if (mta_starts(line, "The following recipients returned permanent errors: "))
		addr = mta_addr(mta_skip(line, 52));
	else if (mta_starts(line, "SMTP Server <"))
		addr = mta_addr(mta_after(line, "recipient <"));
	if (!addr.p || !(r = sd_ctx_add(c)))
		return 0;
	r->recipient = addr;
	r->diagnostic = mta_squeeze(c->a, line);
	r->rhost = host_in(line);
	if (mta_has(line, "Error following ") )
		r->command = mta_command_word(mta_after(line, "Error following "));
	else if (mta_has(line, "your message (") )
		r->command = mta_command_word(mta_after(line, "your message ("));
	if (!r->command.n)
		r->command = mta_command(line);
	return 1;
}

int sd_fmt_x6(sd_ctx *c)
{
	sd_str body, line;
	size_t pos = 0;
	int on = 0, n = 0;

	if (!mta_starts(sd_trim(c->subject), "There was an error sending your mail"))
		return 0;
	body = mta_body(c);
	while (sd_next_line(body, &pos, &line)) {
		if (!on) {
			on = mta_starts(line, "We had trouble delivering your message. Full details follow:");
			continue;
		}
		if (mta_starts(line, "The attachment contains the original mail headers"))
			break;
		n += add_line(c, line);
	}
	return n;
}
