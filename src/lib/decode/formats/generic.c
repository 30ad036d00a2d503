/* generic.c - last resort: plain-text bounces that no other module took.
 *
 * Only mail that looks like a non-delivery report is read: sent by a mailer
 * daemon or postmaster (or with a null return path) and titled like a bounce.
 * In the text before the returned message, a recipient is an address that
 * stands on its own line ("<a@b>:", "  a@b", "a@b: reason"), a Final-Recipient
 * field, or the argument of an "RCPT TO:" in a session transcript; its error
 * text is the rest of that line and the indented lines after it. A recipient
 * without any error text (no reply code, status or known failure phrase) is
 * not reported. */
#include "bounce/dsnutil.h"
#include "decode/formats/formats.h"
#include "verdict/verdict.h"

#define GEN_MAX_SCAN  (64u << 10) /* bytes of the bounce text looked at */
#define GEN_MAX_LINES 8           /* error lines kept per recipient */
#define GEN_MAX_RCPTS 64          /* recipients taken from one bounce */

int sd_generic_daemon_sender(const sd_ctx *c)
{
	static const char *const who[] = { "mailer-daemon", "postmaster", "mail-daemon", "mailerdaemon",
					   "mdaemon", "mail delivery", "bounce", "no-reply", "noreply" };
	sd_str rp = sd_trim(sd_part_header(c->top, "Return-Path"));

	if (rp.n == 2 && rp.p[0] == '<' && rp.p[1] == '>')
		return 1;
	for (size_t i = 0; i < sizeof(who) / sizeof(who[0]); i++)
		if (c->from.n && sd_memcasemem(c->from.p, c->from.n, who[i], strlen(who[i])))
			return 1;
	return 0;
}

static int bounce_subject(const sd_ctx *c)
{
	static const char *const words[] = {
		"undeliver", "undelivered", "delivery fail", "delivery status", "delivery notification",
		"returned mail", "failure notice", "mail delivery", "could not be delivered",
		"not delivered", "delivery problem", "nondeliverable", "non-delivery", "rejected",
		"unzustellbar", "non remis", "no entregado", "error sending", "delivery error",
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (c->subject.n && sd_memcasemem(c->subject.p, c->subject.n, words[i], strlen(words[i])))
			return 1;
	return 0;
}

/* Where the copy of the returned message starts in t (or t.n). */
static size_t returned_at(sd_str t)
{
	static const char *const marks[] = {
		"------ This is a copy of the message", "--- Below this line is a copy of the message",
		"----- Original message -----", "Original message follows", "----- Unsent message follows",
		"------ Original message", "The original message was:", "--- The header of the original",
		"Content-Type: message/rfc822", "Content-Type: text/rfc822-headers",
	};
	size_t cut = t.n;
	const char *q;

	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if ((q = sd_memcasemem(t.p, cut, marks[i], strlen(marks[i]))) != NULL)
			cut = (size_t)(q - t.p);
	return cut;
}

/* ---- recipient lines ---- */

typedef struct gen_state {
	sd_ctx *c;
	size_t first;
	sd_rcpt *cur;
	sd_buf diag;
	int lines;     /* error lines taken for cur */
	sd_str sender; /* the bounced message's sender, never a recipient */
} gen_state;

static int is_blank_line(sd_str l)
{
	return !sd_trim(l).n;
}

/* "<a@b>:", "a@b", "<a@b>", "a@b: text", "<a@b>: text". Sets *rest. */
static int addr_line(sd_str l, sd_str *addr, sd_str *rest)
{
	sd_str t = sd_trim(l);
	size_t i = 0, k;

	if (!t.n)
		return 0;
	if (t.p[0] == '<') {
		const char *gt = memchr(t.p, '>', t.n);
		if (!gt)
			return 0;
		*addr = (sd_str){ t.p + 1, (size_t)(gt - t.p - 1) };
		k = (size_t)(gt - t.p) + 1;
	} else {
		while (i < t.n && !sd_isspace((unsigned char)t.p[i]) && t.p[i] != ':' && t.p[i] != ',')
			i++;
		*addr = (sd_str){ t.p, i };
		k = i;
	}
	if (!sd_is_address(*addr))
		return 0;
	if (k < t.n && t.p[k] == ':')
		k++;
	*rest = sd_trim((sd_str){ t.p + k, t.n - k });
	/* "a@b something" without a colon is prose, not a recipient line */
	return !rest->n || (k > 0 && t.p[k - 1] == ':');
}

/* "Final-Recipient: rfc822; a@b" (returns 1) or "RCPT TO:<a@b>" (returns 2). */
static int typed_rcpt(sd_str l, sd_str *addr)
{
	static const char *const f[] = { "Final-Recipient:", "Original-Recipient:", "RCPT TO:", ">>> RCPT TO:" };
	sd_str t = sd_trim(l);

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (sd_str_casestarts(t, f[i])) {
			*addr = sd_addr_clean((sd_str){ t.p + strlen(f[i]), t.n - strlen(f[i]) });
			return sd_is_address(*addr) ? (i < 2 ? 1 : 2) : 0;
		}
	return 0;
}

/* The SMTP command a qmail-style sentence names ("does not like recipient"). */
static sd_str sentence_command(sd_str d)
{
	static const struct {
		const char *text, *cmd;
	} t[] = { { "does not like recipient", "RCPT" }, { "does not like sender", "MAIL" },
		  { "didn't like the data", "DATA" }, { "does not like data", "DATA" },
		  { "failed after i sent the message", "DATA" }, { "but sender was rejected", "MAIL" },
		  { "but my name was rejected", "HELO" } };

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (sd_memcasemem(d.p, d.n, t[i].text, strlen(t[i].text)))
			return (sd_str){ t[i].cmd, 4 };
	return SD_NULLSTR;
}

static void flush(gen_state *s)
{
	if (s->cur && s->diag.len)
		s->cur->diagnostic = dsn_buf_text(s->c->a, &s->diag);
	sd_buf_reset(&s->diag);
	s->cur = NULL;
	s->lines = 0;
}

static void start(gen_state *s, sd_str addr, sd_str rest)
{
	sd_rcpt *r;

	flush(s);
	if ((s->sender.n == addr.n && sd_memcaseeq(s->sender.p, addr.p, addr.n)) ||
	    s->c->nrcpt - s->first >= GEN_MAX_RCPTS)
		return;
	r = dsn_rcpt_find(s->c, s->first, addr);
	if (!r && !(r = sd_ctx_add(s->c)))
		return;
	r->recipient = addr;
	s->cur = r;
	if (r->diagnostic.n)
		sd_buf_put(&s->diag, r->diagnostic.p, r->diagnostic.n);
	if (rest.n) {
		if (s->diag.len)
			sd_buf_putc(&s->diag, ' ');
		sd_buf_put(&s->diag, rest.p, rest.n);
		s->lines++;
	}
}

static void on_line(gen_state *s, sd_str l)
{
	sd_str addr, rest = SD_NULLSTR;
	int typed = typed_rcpt(l, &addr);

	if (typed || addr_line(l, &addr, &rest)) {
		start(s, addr, rest);
		if (typed == 2 && s->cur)
			s->cur->command = SD_STR("RCPT");
		return;
	}
	if (!s->cur)
		return;
	if (is_blank_line(l)) {
		if (s->lines)
			flush(s);
		return;
	}
	if (s->lines >= GEN_MAX_LINES)
		return;
	l = sd_trim(l);
	if (s->diag.len)
		sd_buf_putc(&s->diag, ' ');
	sd_buf_put(&s->diag, l.p, l.n);
	s->lines++;
}

/* Keep the records whose text says why delivery failed. */
static size_t keep_failures(gen_state *s)
{
	size_t k = s->first;

	for (size_t i = s->first; i < s->c->nrcpt; i++) {
		sd_rcpt *r = &s->c->rcpts[i];
		char st[SD_STATUS_MAX];
		int known = 0;
		if (r->diagnostic.n) {
			sd_text_status(r->diagnostic.p, r->diagnostic.n, 0, st);
			known = st[0] || sd_text_reply(r->diagnostic.p, r->diagnostic.n, 0) >= 400 ||
				sd_classify_scan(s->c->cls, r->diagnostic.p, r->diagnostic.n) != 0;
		}
		if (!known)
			continue;
		if (!r->command.n)
			r->command = sentence_command(r->diagnostic);
		s->c->rcpts[k++] = *r;
	}
	s->c->nrcpt = k;
	return k - s->first;
}

int sd_fmt_generic(sd_ctx *c)
{
	gen_state s;
	sd_str t;
	size_t pos = 0, n;
	sd_str line;

	if (!sd_generic_daemon_sender(c) || !bounce_subject(c))
		return 0;
	t = sd_ctx_body(c);
	if (!t.p || !t.n)
		return 0;
	if (t.n > GEN_MAX_SCAN)
		t.n = GEN_MAX_SCAN;
	t.n = returned_at(t);
	memset(&s, 0, sizeof(s));
	s.c = c;
	s.first = c->nrcpt;
	sd_buf_init(&s.diag);
	sd_ctx_find_original(c, SD_NULLSTR);
	s.sender = sd_addr_clean(c->orig.from.n ? c->orig.from : c->to);
	while (sd_next_line(t, &pos, &line))
		on_line(&s, line);
	flush(&s);
	sd_buf_free(&s.diag);
	n = keep_failures(&s);
	return (int)n;
}
