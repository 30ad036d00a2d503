/* postfix.c - Postfix bounces (bounce(8) templates).
 *
 * The notification text lists each recipient as "<addr>: reason text" (or
 * "<addr> (expanded from <alias>): ...") with 4-space continuation lines; the
 * message/delivery-status part has the RFC 3464 fields. The text often holds
 * the remote server's full reply ("host x said: 550 5.1.1 ... (in reply to
 * RCPT TO command)") where the DSN has less. Bounces without a DSN part
 * (old Postfix, "--- Delivery report unavailable ---") use the text alone. */
#include "decode/formats/mta.h"

#define PF_MAX_ITEMS SD_MAX_RECIPIENTS /* recipients read from the notification text */

typedef struct pf_item {
	sd_str addr, alias, text;
} pf_item;

typedef struct pf_text {
	pf_item *items;
	size_t n;
	int unavailable; /* "--- Delivery report unavailable ---" */
} pf_text;

/* bounce(8)'s templates open so (older Postfix: "the Postfix program"). */
static const char *const pf_opening[] = {
	"This is the mail system at host ", "This is the Postfix program at host ", NULL
};

static int is_postfix(sd_ctx *c)
{
	sd_str s = sd_trim(c->subject);

	if (sd_ctx_pasted(c, pf_opening))
		return 1; /* the body pasted alone */

	if (mta_hdr(c, "X-AOL-IP").p || mta_hdr_has(c, "Return-Path", "@sendgrid.net>"))
		return 0; /* AOL's and SendGrid's Postfix bounces have their own modules */
	return sd_str_caseeq(s, "Undelivered Mail Returned to Sender") ||
	       mta_has(s, "SMTP server: errors from ");
}

/* "<a@b> (expanded from <x@y>): text" or "<a@b>: text" */
static int item_line(sd_str line, pf_item *it)
{
	sd_str rest;
	const char *gt;

	if (!line.n || line.p[0] != '<' || !(gt = memchr(line.p, '>', line.n)))
		return 0;
	it->addr = (sd_str){ line.p + 1, (size_t)(gt - line.p) - 1 };
	it->alias = SD_NULLSTR;
	rest = mta_skip(line, (size_t)(gt - line.p) + 1);
	if (mta_starts(rest, " (expanded from <")) {
		sd_str a = mta_skip(rest, 17);
		it->alias = mta_before(a, ">");
		rest = mta_after(a, ">)");
	}
	if (!rest.n || rest.p[0] != ':' || !memchr(it->addr.p, '@', it->addr.n))
		return 0;
	it->text = sd_trim(mta_skip(rest, 1));
	return 1;
}

/* A body pasted from its first report line on, without the template's text:
 * no header field, and the first non-blank line is "<addr>: text". */
static int pasted_item(sd_ctx *c)
{
	size_t pos = 0;
	sd_str body, line;

	if (!sd_ctx_headerless(c))
		return 0;
	body = mta_body(c);
	while (sd_next_line(body, &pos, &line))
		if (!mta_blank(line)) /* read_text() reads it with item_line() */
			return line.p[0] == '<' && mta_contains(line, "@") &&
			       (mta_contains(line, ">:") || mta_contains(line, "> (expanded from <"));
	return 0;
}

static int marker(sd_str line)
{
	return mta_has(line, "mail system") || mta_has(line, "Postfix program") ||
	       (mta_has(line, "The ") && mta_has(line, " program"));
}

/* A mail client that re-wraps a pasted body at 72 or 76 columns breaks an item
 * where it likes and drops the four blanks of its continuations: in a body
 * pasted alone a line that is the rest of a broken one (bounce/paste.c) goes on
 * the item, unless it starts the next item or the report's own fields
 * ("Reporting-MTA: ..."). */
static int rewrapped_more(sd_str prev, sd_str more)
{
	sd_str w = mta_before(more, ":");

	if (!sd_paste_rewrapped(prev, more) || more.p[0] == '<' || mta_starts(more, "--"))
		return 0;
	return !(w.p && w.n && w.n < more.n && !memchr(w.p, ' ', w.n) &&
		 (mta_starts(w, "Reporting-") || mta_starts(w, "Final-") || mta_starts(w, "Original-") ||
		  mta_starts(w, "Content-") || mta_starts(w, "Arrival-") || mta_starts(w, "X-Postfix-")));
}

static int ends_with(sd_str s, const char *lit)
{
	size_t k = strlen(lit);

	return s.n >= k && !memcmp(s.p + s.n - k, lit, k);
}

/* Does the item so far end in the middle of its alias, "(expanded from", or of
 * a reply, "said:", "said: 550" or "said: 550 5.1.1"? Then whatever the next
 * line starts with (the alias's or the reply's "<user@example.org>" too) is its
 * rest. */
static int open_reply(sd_str line)
{
	size_t n, i;

	line = sd_trim(line);
	if (ends_with(line, " said:") || ends_with(line, " (expanded from"))
		return 1;
	n = line.n;
	i = n;
	while (i && line.p[i - 1] != ' ')
		i--;
	if (n - i == 3 && (line.p[i] == '4' || line.p[i] == '5') && sd_isdigit((unsigned char)line.p[i + 1]) &&
	    sd_isdigit((unsigned char)line.p[i + 2]))
		return 1;
	if (n - i >= 5 && n - i <= 9 && (line.p[i] == '4' || line.p[i] == '5') && line.p[i + 1] == '.')
		return i >= 5 && open_reply((sd_str){ line.p, i - 1 }); /* "550 5.1.1" */
	return 0;
}

/* The line and, when it starts an item, its continuation lines. */
static sd_str logical_line(sd_ctx *c, sd_str body, size_t *pos, sd_str line)
{
	size_t next = *pos;
	sd_str more, prev = line;
	int pasted = sd_ctx_headerless(c);

	if (!line.n || line.p[0] != '<')
		return line;
	while (sd_next_line(body, &next, &more) && more.n &&
	       (more.p[0] == ' ' || more.p[0] == '\t' ||
		(pasted && (rewrapped_more(prev, more) || (!mta_blank(more) && open_reply(line)))))) {
		line = mta_join(c->a, line, more);
		prev = more;
		*pos = next;
	}
	return line;
}

static void read_text(sd_ctx *c, sd_str body, pf_text *t, int on)
{
	size_t pos = 0;
	sd_str line;

	while (sd_next_line(body, &pos, &line)) {
		if (!on) {
			on = marker(line);
			continue;
		}
		if (mta_has(line, "--- Delivery report unavailable ---"))
			t->unavailable = 1;
		if (mta_starts(line, "Content-Type: message/rfc822"))
			break;
		line = logical_line(c, body, &pos, line);
		pf_item it = { SD_NULLSTR, SD_NULLSTR, SD_NULLSTR };
		if (!item_line(line, &it))
			continue;
		if (t->n < PF_MAX_ITEMS)
			t->items[t->n++] = it;
		else
			c->rcpt_over = 1; /* more recipients than SD_MAX_RECIPIENTS: said, not dropped silently */
	}
}

static const pf_item *item_for(const pf_text *t, sd_str addr)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->items[i].addr.n == addr.n && sd_memcaseeq(t->items[i].addr.p, addr.p, addr.n))
			return &t->items[i];
	return t->n ? &t->items[t->n - 1] : NULL;
}

static int all_digits(sd_str s)
{
	s = sd_trim(s);
	for (size_t i = 0; i < s.n; i++)
		if (!sd_isdigit((unsigned char)s.p[i]))
			return 0;
	return 1;
}

/* Complete a DSN record with the notification text about the same recipient. */
static void merge(sd_ctx *c, sd_rcpt *r, const pf_item *it)
{
	sd_str text = mta_squeeze(c->a, it->text);
	int vague_st = !r->status.n || mta_has(r->status, ".0.0");
	int vague_rc = !r->replycode.n;
	int took;

	if (!r->diagnostic.n || all_digits(r->diagnostic)) {
		r->diagnostic = text;
		return;
	}
	took = mta_take_codes(c->a, r, text);
	if (took && (vague_st || (vague_rc && text.n > r->diagnostic.n)))
		r->diagnostic = text;
	else if (vague_st && text.n > r->diagnostic.n && sd_memcasemem(text.p, text.n, r->diagnostic.p, r->diagnostic.n))
		r->diagnostic = text;
}

static void finish(sd_ctx *c, sd_rcpt *r, sd_str text)
{
	if (!r->command.n)
		r->command = mta_command(text.n ? text : r->diagnostic);
	if (!r->command.n && mta_has(r->diagnostic, "refused to talk to me"))
		r->command = SD_STR("HELO");
	if (r->diagtype.n && sd_str_caseeq(r->diagtype, "X-Postfix"))
		r->diagtype = SD_STR("SMTP");
}

/* Texts of Postfix's own delivery agents and the status each reports with them
 * (local(8) and virtual(8), src/local/unknown.c: "unknown user: \"name\"" is
 * 5.1.1), for the report read without its delivery-status part. */
static const struct {
	const char *text, *status;
} own_status[] = {
	{ "unknown user: \"", "5.1.1" },
};

static void status_of_text(sd_rcpt *r)
{
	if (r->status.n)
		return;
	for (size_t i = 0; i < sizeof(own_status) / sizeof(own_status[0]); i++)
		if (mta_starts(r->diagnostic, own_status[i].text)) {
			r->status = (sd_str){ own_status[i].status, strlen(own_status[i].status) };
			return;
		}
}

static int from_text(sd_ctx *c, const pf_text *t)
{
	for (size_t i = 0; i < t->n; i++) {
		sd_rcpt *r = sd_ctx_add(c);
		if (!r)
			break;
		r->recipient = t->items[i].addr;
		r->alias = t->items[i].alias;
		r->diagnostic = mta_squeeze(c->a, t->items[i].text);
		status_of_text(r);
		finish(c, r, r->diagnostic);
	}
	return (int)t->n;
}

/* "--- Delivery report unavailable ---": the recipient is the original To:. */
static int unavailable(sd_ctx *c)
{
	sd_str to = mta_addr(mta_orig_header(c, "To"));
	sd_rcpt *r;

	if (!to.p || !(r = sd_ctx_add(c)))
		return 0;
	r->recipient = to;
	return 1;
}

/* "Postfix SMTP server: errors from host": an smtpd session transcript with
 * " In:" (client) and "Out:" (server) lines. One record per RCPT TO; the first
 * failing reply after it is its diagnostic. */
static sd_rcpt *session_rcpt(sd_ctx *c, sd_str arg)
{
	sd_str a = mta_addr(arg);
	sd_rcpt *r = a.p ? sd_ctx_add(c) : NULL;

	if (r)
		r->recipient = a;
	return r;
}

static int session(sd_ctx *c, sd_str body)
{
	size_t pos = 0, first = c->nrcpt;
	sd_str line, cmd = SD_NULLSTR;
	sd_rcpt *r = NULL;

	while (sd_next_line(body, &pos, &line)) {
		sd_str t = sd_trim(line);
		if (mta_starts(t, "In:")) {
			t = sd_trim(mta_skip(t, 3));
			cmd = mta_command_word(t);
			if (cmd.p && !memcmp(cmd.p, "RCPT", 4))
				r = session_rcpt(c, t);
		} else if (mta_starts(t, "Out:") && r && !r->diagnostic.n) {
			t = sd_trim(mta_skip(t, 4));
			if (t.n >= 3 && (t.p[0] == '4' || t.p[0] == '5')) {
				r->diagnostic = t;
				r->command = cmd;
			}
		}
	}
	for (size_t i = first; i < c->nrcpt; i++)
		if (!c->rcpts[i].diagnostic.n)
			c->rcpts[i--] = c->rcpts[--c->nrcpt];
	return (int)(c->nrcpt - first);
}

int sd_fmt_postfix(sd_ctx *c)
{
	pf_text t = { NULL, 0, 0 };
	size_t first = c->nrcpt;
	int n;

	int bare = 0; /* only the report lines were pasted */

	if (!is_postfix(c) && !(bare = pasted_item(c)))
		return 0;
	if (mta_has(c->subject, "SMTP server: errors from "))
		return session(c, mta_body(c));
	t.items = sd_arena_alloc(c->a, sizeof(pf_item) * PF_MAX_ITEMS);
	if (!t.items)
		return SMTPDIAG_ENOMEM;
	read_text(c, mta_body(c), &t, bare);
	n = mta_dsn(c);
	if (n == 0)
		n = mta_dsn_inline(c, mta_body(c));
	if (n < 0)
		return n;
	if (n == 0)
		return t.n ? from_text(c, &t) : t.unavailable ? unavailable(c) : 0;
	for (size_t i = first; i < c->nrcpt; i++) {
		const pf_item *it = item_for(&t, c->rcpts[i].recipient);
		if (it)
			merge(c, &c->rcpts[i], it);
		finish(c, &c->rcpts[i], it ? it->text : SD_NULLSTR);
	}
	return n;
}
