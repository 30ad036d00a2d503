/* yahoo.c - Yahoo! Mail "Failure Notice" bounces.
 *
 *   Sorry, we were unable to deliver your message to the following address.
 *
 *   <kijitora@example.org>:
 *   Remote host said: 550 5.1.1 <kijitora@example.org>... User Unknown [RCPT_TO]
 *
 *   --- Below this line is a copy of the message.
 */
#include "decode/formats/prov.h"

#define YH_START "Sorry, we were unable to deliver your message"
#define YH_END "--- Below this line is a copy of the message."

static int is_yahoo(const sd_ctx *c)
{
	if (!mta_starts(sd_trim(c->subject), "Failure Notice"))
		return 0;
	return mta_has(c->from, "@yahoo") || mta_hdr(c, "X-YMailISG").p;
}

/* "[RCPT_TO]" -> RCPT */
static sd_str bracket_command(sd_str line)
{
	sd_str b = mta_after(line, "[");

	return b.p ? mta_command_word(b) : SD_NULLSTR;
}

static int is_rcpt_line(sd_str line)
{
	return line.n > 4 && line.p[0] == '<' && line.p[line.n - 2] == '>' && line.p[line.n - 1] == ':';
}

static void read_line(sd_ctx *c, sd_rcpt *r, sd_str line)
{
	sd_str cmd = bracket_command(line);

	if (cmd.p) {
		r->command = cmd;
		line = mta_before(line, "[");
	}
	if (mta_starts(line, "Remote host said:"))
		line = sd_trim(mta_after(line, "Remote host said:"));
	/* "550: 5.2.2 <a@b>... Mailbox Full": the reply code has a colon */
	if (!r->replycode.n && line.n > 4 && (line.p[0] == '4' || line.p[0] == '5') &&
	    sd_isdigit((unsigned char)line.p[1]) && sd_isdigit((unsigned char)line.p[2]) && line.p[3] == ':')
		r->replycode = (sd_str){ line.p, 3 };
	pv_diag(c, r, line);
}

int sd_fmt_yahoo(sd_ctx *c)
{
	sd_str body, text, line;
	size_t pos = 0, from = c->nrcpt;
	sd_rcpt *r = NULL;
	int n = 0;

	if (!is_yahoo(c))
		return 0;
	body = mta_body(c);
	text = pv_cut(pv_after_line(body, YH_START), (const char *const[]){ YH_END, NULL });
	while (text.p && n++ < PV_MAX_LINES && sd_next_line(text, &pos, &line)) {
		line = sd_trim(line);
		if (is_rcpt_line(line))
			r = pv_rcpt(c, line);
		else if (r && line.n)
			read_line(c, r, line);
	}
	if (c->nrcpt == from)
		return 0;
	for (size_t i = from; i < c->nrcpt; i++)
		if (!c->rcpts[i].command.n && mta_has(c->rcpts[i].diagnostic, "@"))
			c->rcpts[i].command = SD_STR("RCPT");
	pv_original(c, body, YH_END);
	return (int)(c->nrcpt - from);
}
