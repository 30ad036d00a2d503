/* v5sendmail.c - Sendmail version 5 (and other pre-DSN sendmail) bounces.
 *
 *        ----- Transcript of session follows -----
 *     While talking to mail.example.co.jp:
 *     >>> RCPT To:<user@example.co.jp>
 *     <<< 550 Requested User Mailbox not found. No such user here.
 *     550 <user@example.co.jp>... User unknown
 *        ----- Unsent message follows -----
 * No DSN part. Each "NNN <addr>... text" (or ">>> RCPT To:<addr>") line names
 * a recipient; the session lines around it are its diagnostic. */
#include "decode/formats/mta.h"

typedef struct v5_state {
	sd_ctx *c;
	size_t first;
	sd_rcpt *cur;
	sd_str rhost, command, pending, other;
} v5_state;

/* "550 <user@example.org>... text" or ">>> RCPT To:<user@example.org>" */
static sd_str line_addr(sd_str line)
{
	sd_str a = mta_after(line, " <");

	if (a.p && mta_find(a, ">...").p)
		return mta_before(a, ">...");
	if (mta_starts(line, ">>> RCPT To:"))
		return mta_addr(line);
	return SD_NULLSTR;
}

static void address_line(v5_state *s, sd_str line, sd_str addr)
{
	sd_ctx *c = s->c;
	sd_rcpt *r = s->cur;

	if (r && r->recipient.n == addr.n && sd_memcaseeq(r->recipient.p, addr.p, addr.n)) {
		r->diagnostic = mta_join(c->a, r->diagnostic, line);
		return;
	}
	if (!(r = sd_ctx_add(c)))
		return;
	r->recipient = addr;
	r->rhost = s->rhost;
	r->command = s->command;
	r->diagnostic = mta_join(c->a, s->pending, line);
	r->alias = s->other; /* kept aside until finish() */
	s->pending = s->other = SD_NULLSTR;
	s->cur = r;
}

static void session_line(v5_state *s, sd_str line)
{
	sd_arena *a = s->c->a;
	sd_str addr = line_addr(line);

	if (mta_starts(line, ">>> "))
		s->command = mta_command_word(mta_skip(line, 4));
	if (mta_starts(line, "<<< ") && s->command.n && !memcmp(s->command.p, "MAIL", 4))
		addr = SD_NULLSTR; /* the sender's address in the reply to MAIL */
	if (addr.p && mta_has(addr, "@")) {
		address_line(s, line, addr);
	} else if (mta_starts(line, "While talking to ")) {
		s->rhost = sd_trim(mta_before(mta_skip(line, 17), ":"));
	} else if (mta_starts(line, ">>> ") || mta_starts(line, "<<< ")) {
		if (s->cur)
			s->cur->diagnostic = mta_join(a, s->cur->diagnostic, line);
		else
			s->pending = mta_join(a, s->pending, line);
	} else {
		s->other = mta_join(a, s->other, line);
	}
}

static void finish(sd_ctx *c, sd_rcpt *r)
{
	if (!r->diagnostic.n)
		r->diagnostic = r->alias;
	r->alias = SD_NULLSTR;
	r->diagnostic = mta_squeeze(c->a, r->diagnostic);
	if (!r->command.n)
		r->command = mta_command(r->diagnostic);
}

int sd_fmt_v5sendmail(sd_ctx *c)
{
	v5_state s;
	sd_str body, tr, line;
	size_t pos = 0;

	if (!mta_starts(sd_trim(c->subject), "Returned mail: "))
		return 0;
	body = mta_body(c);
	tr = mta_after(body, "----- Transcript of session follows -----");
	if (!tr.p || (!mta_contains(tr, "----- Unsent message follows -----") &&
		      !mta_contains(tr, "----- No message was collected -----")))
		return 0;
	tr = mta_before(mta_before(tr, "----- Unsent message follows -----"), "----- No message was collected -----");
	memset(&s, 0, sizeof(s));
	s.c = c;
	s.first = c->nrcpt;
	while (sd_next_line(tr, &pos, &line))
		if (!mta_blank(line))
			session_line(&s, sd_trim(line));
	for (size_t i = s.first; i < c->nrcpt; i++)
		finish(c, &c->rcpts[i]);
	return (int)(c->nrcpt - s.first);
}
