/* simple.c - human-readable bounces that no other module read.
 *
 * Many mailers (Smail, old Sendmail and qmail variants, Exchange 5.5/2000,
 * LSMTP, MDaemon, webmail providers of the 2000s) send a failure report as
 * plain prose: a sentence that introduces the failed addresses ("The following
 * recipient(s) could not be reached:", "Intended recipient: a@b", "Sorry,
 * unable to deliver your message to a@b"), the addresses on that line or the
 * next ones, and the reply or reason near them; then the returned message.
 *
 * The mail must look like a report (sent by a mailer daemon or postmaster,
 * titled like one, or a bare text with no header: what is left of a forwarded
 * bounce) and not like an auto-reply, a read receipt or a challenge. The
 * phrases are data (simple_tab.c). Each introducing phrase opens a short block
 * of lines; an address there is a failed recipient unless it is the report's
 * own sender or recipient, the returned message's sender, or a postmaster;
 * "(expanded from: a@b)" names the alias of the address before it. The lines
 * without an address are the error text of the address above them. A
 * delay-warning phrase anywhere in the explanation makes every recipient
 * "delayed" instead of "failed". */
#include "bounce/dsnutil.h"
#include "decode/formats/formats.h"
#include "decode/formats/simple.h"
#include "verdict/verdict.h"

#define SIMPLE_MAX_SCAN    (64u << 10) /* bytes of the report text looked at */
#define SIMPLE_BLOCK_LINES 12          /* lines read after an introducing phrase */
#define SIMPLE_DIAG_LINES  4           /* error lines kept per address */
#define SIMPLE_MAX_RCPTS   32          /* recipients taken from one report */
#define SIMPLE_MAX_BLOCKS  8           /* introducing phrases followed */
#define SIMPLE_MAX_SKIP    8           /* addresses that are never recipients */
#define SIMPLE_LOCAL_MAX   64          /* a bare local part is at most this long */

typedef struct simple_state {
	sd_ctx *c;
	size_t first;              /* c->rcpts index of our first record */
	sd_str skip[SIMPLE_MAX_SKIP];
	size_t nskip;
	const char *action;        /* "failed" or "delayed" */
	sd_rcpt *cur;              /* the record error lines go to */
	int lines;                 /* error lines taken for cur */
	sd_buf diag;
	sd_str intro;              /* the introducing line: the error text of last resort */
	sd_str domain;             /* of the report's sender: completes a bare local part */
	int list_intro;            /* the introducing line ends with ':' (a list follows) */
} simple_state;

/* The earliest phrase of this kind in t: its offset (t.n if none), *len its length. */
static size_t earliest(sd_str t, int kind, size_t *len)
{
	size_t best = t.n;

	for (size_t i = 0; i < sd_simple_nphrases; i++) {
		const sd_simple_phrase *ph = &sd_simple_phrases[i];
		size_t n = strlen(ph->text), lim = best < t.n ? best + n : t.n;
		const char *q;
		if (ph->kind != kind || lim > t.n)
			continue;
		if ((q = sd_memcasemem(t.p, lim, ph->text, n)) != NULL && (size_t)(q - t.p) < best) {
			best = (size_t)(q - t.p);
			if (len)
				*len = n;
		}
	}
	return best;
}

static int has_kind(sd_str t, int kind)
{
	return t.p && earliest(t, kind, NULL) < t.n;
}

/* Titled like a non-delivery report, and not like an auto-reply or receipt:
 * of the two, the phrase that comes first in the Subject decides. */
static int report_subject(sd_ctx *c, int *autoreply)
{
	const char *s = c->subject.n ? sd_header_text(c->a, c->subject) : NULL;
	sd_str t = s ? (sd_str){ s, strlen(s) } : SD_NULLSTR;
	size_t rep, aut;

	*autoreply = 0;
	if (!t.n)
		return 0;
	rep = earliest(t, SP_SUBJ, NULL);
	aut = earliest(t, SP_AUTO, NULL);
	*autoreply = aut < rep;
	return rep < aut;
}

static int is_report(sd_ctx *c)
{
	int autoreply, subj;

	if (sd_ctx_headerless(c))
		return 1; /* a body pasted alone (bounce/paste.c) */
	subj = report_subject(c, &autoreply);
	return !autoreply && (subj || sd_generic_daemon_sender(c));
}

/* ---- addresses ---- */

static int addr_char(int ch)
{
	return ch > ' ' && ch != 0x7f && !strchr("<>()[],;:\"'`=|*", ch);
}

/* The first address in l at or after *from; *from moves past it. */
static sd_str next_address(sd_str l, size_t *from)
{
	for (size_t i = *from; i < l.n; i++) {
		size_t a = i, b = i + 1;
		sd_str s;
		if (l.p[i] != '@')
			continue;
		while (a > 0 && addr_char((unsigned char)l.p[a - 1]))
			a--;
		while (b < l.n && (sd_isalnum((unsigned char)l.p[b]) || strchr(".-_", l.p[b])))
			b++;
		while (b > i + 1 && (l.p[b - 1] == '.' || l.p[b - 1] == '-'))
			b--;
		*from = b;
		s = (sd_str){ l.p + a, b - a };
		if (a < i && sd_is_address(s))
			return s;
	}
	*from = l.n;
	return SD_NULLSTR;
}

static int role_address(sd_str a)
{
	static const char *const roles[] = { "postmaster@", "mailer-daemon@", "mailerdaemon@", "mail-daemon@",
					     "mdaemon@" };

	for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++)
		if (sd_str_casestarts(a, roles[i]))
			return 1;
	return 0;
}

static int skipped(const simple_state *s, sd_str a)
{
	for (size_t i = 0; i < s->nskip; i++)
		if (s->skip[i].n == a.n && sd_memcaseeq(s->skip[i].p, a.p, a.n))
			return 1;
	return role_address(a);
}

static void skip_add(simple_state *s, sd_str v)
{
	sd_str a = sd_addr_clean(v);

	if (sd_is_address(a) && s->nskip < SIMPLE_MAX_SKIP)
		s->skip[s->nskip++] = a;
}

/* The report's own addresses and the returned message's sender. */
static void skip_init(simple_state *s)
{
	sd_ctx *c = s->c;
	const char *at;
	sd_str from;

	skip_add(s, c->from);
	skip_add(s, c->to);
	skip_add(s, sd_part_header(c->top, "Return-Path"));
	skip_add(s, sd_part_header(c->top, "Sender"));
	sd_ctx_find_original(c, SD_NULLSTR);
	skip_add(s, c->orig.from);
	from = sd_addr_clean(c->from);
	if (sd_is_address(from) && (at = memchr(from.p, '@', from.n)) != NULL)
		s->domain = (sd_str){ at + 1, (size_t)(from.p + from.n - at - 1) };
}

/* ---- records ---- */

static void flush(simple_state *s)
{
	if (s->cur && s->diag.len)
		s->cur->diagnostic = dsn_buf_text(s->c->a, &s->diag);
	sd_buf_reset(&s->diag);
	s->cur = NULL;
	s->lines = 0;
}

static void diag_add(simple_state *s, sd_str l)
{
	l = sd_trim(l);
	while (l.n && strchr(">:,-", l.p[0])) {
		l.p++;
		l.n--;
	}
	l = sd_trim(l);
	if (!s->cur || !l.n || s->lines >= SIMPLE_DIAG_LINES)
		return;
	if (s->diag.len)
		sd_buf_putc(&s->diag, ' ');
	sd_buf_put(&s->diag, l.p, l.n);
	s->lines++;
}

static void start(simple_state *s, sd_str a)
{
	sd_rcpt *r;

	flush(s);
	if ((r = dsn_rcpt_find(s->c, s->first, a)) != NULL) {
		/* named again ("552 quota exceeded for a@b"): more error text */
		s->cur = r;
		sd_buf_put(&s->diag, r->diagnostic.p, r->diagnostic.n);
		return;
	}
	if (s->c->nrcpt - s->first >= SIMPLE_MAX_RCPTS || !(r = sd_ctx_add(s->c)))
		return;
	r->recipient = a;
	r->action = (sd_str){ s->action, strlen(s->action) };
	r->pending = !strcmp(s->action, "delayed");
	s->cur = r;
}

/* "(expanded from: a@b)" after an address: a@b is what the sender wrote. */
static int expanded_from(simple_state *s, sd_str l)
{
	const char *q = sd_memcasemem(l.p, l.n, "expanded from", 13);
	size_t from;
	sd_str a;

	if (!q || s->c->nrcpt <= s->first)
		return 0;
	from = (size_t)(q - l.p);
	a = next_address(l, &from);
	if (a.n)
		s->c->rcpts[s->c->nrcpt - 1].alias = a;
	return 1;
}

/* Does s hold a letter or digit? */
static int has_text(sd_str s)
{
	for (size_t i = 0; i < s.n; i++)
		if (sd_isalnum((unsigned char)s.p[i]))
			return 1;
	return 0;
}

/* An indented line that holds one bare local part ("\tjsmith") under an
 * introducing line that announces a list: AOL and other providers name their
 * own users so; the address is in the report sender's domain. */
static sd_str bare_local(simple_state *s, sd_str l)
{
	sd_str t = sd_trim(l);
	char *a;

	if (!s->list_intro || !s->domain.n || !l.n || (l.p[0] != ' ' && l.p[0] != '\t') || t.n < 2 ||
	    !sd_isalnum((unsigned char)t.p[0]) ||
	    t.n > SIMPLE_LOCAL_MAX)
		return SD_NULLSTR;
	for (size_t i = 0; i < t.n; i++)
		if (!sd_isalnum((unsigned char)t.p[i]) && !strchr("._-+", t.p[i]))
			return SD_NULLSTR;
	if (!(a = sd_arena_alloc(s->c->a, t.n + 1 + s->domain.n)))
		return SD_NULLSTR;
	memcpy(a, t.p, t.n);
	a[t.n] = '@';
	memcpy(a + t.n + 1, s->domain.p, s->domain.n);
	return (sd_str){ a, t.n + 1 + s->domain.n };
}

/* One line of a block: an address starts a record, other text is error text.
 * Returns 1 when an address was taken. */
static int on_line(simple_state *s, sd_str l)
{
	size_t from = 0;
	sd_str a;

	if (expanded_from(s, l))
		return 0;
	while ((a = next_address(l, &from)).n) {
		if (skipped(s, a))
			continue;
		start(s, a);
		if (has_text((sd_str){ l.p, (size_t)(a.p - l.p) }))
			diag_add(s, l); /* "552 quota exceeded for a@b" */
		else
			diag_add(s, (sd_str){ a.p + a.n, (size_t)(l.p + l.n - (a.p + a.n)) });
		return 1;
	}
	if ((a = bare_local(s, l)).n) {
		start(s, a);
		return 1;
	}
	diag_add(s, l);
	return 0;
}

/* The introducing line: the addresses after the phrase, else those before it
 * ("a@b - no such user here"); the whole line is their error text. */
static int on_intro(simple_state *s, sd_str line, size_t at, size_t plen)
{
	size_t end = at + plen <= line.n ? at + plen : line.n;
	sd_str after = { line.p + end, line.n - end }, before = { line.p, at };
	sd_str t = sd_trim(line);
	int found;

	s->intro = line;
	s->list_intro = t.n && t.p[t.n - 1] == ':';
	found = on_line(s, after) || on_line(s, before);
	if (found && s->cur) {
		sd_buf_reset(&s->diag);
		s->lines = 0;
		diag_add(s, line);
	}
	return found;
}

/* ---- blocks ---- */

static int separator(sd_str l)
{
	l = sd_trim(l);
	return l.n >= 3 && strchr("-=*|_", l.p[0]) && l.p[1] == l.p[0];
}

/* A header field of the returned message or of the summary above the list
 * ("To:", "Subject:", "Sent:"): its addresses are no failed recipients. */
static int header_line(sd_str l)
{
	static const char *const names[] = { "to:", "cc:", "from:", "subject:", "sent:", "date:", "reply-to:",
					     "received:", "return-path:", "message-id:", "x-sender:" };

	l = sd_trim(l);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (sd_str_casestarts(l, names[i]))
			return 1;
	return 0;
}

/* Read the block that starts with the phrase at t.p+at (length plen); returns
 * where it ends. */
static size_t read_block(simple_state *s, sd_str t, size_t at, size_t plen)
{
	size_t ls = at, pos, found = 0, n = 0;
	sd_str line;

	while (ls > 0 && t.p[ls - 1] != '\n' && t.p[ls - 1] != '\r')
		ls--;
	pos = ls;
	if (!sd_next_line(t, &pos, &line))
		return t.n;
	found += on_intro(s, line, at - ls, plen);
	while (n++ < SIMPLE_BLOCK_LINES && sd_next_line(t, &pos, &line)) {
		if (!sd_trim(line).n) {
			if (s->lines)
				flush(s);
			continue;
		}
		if ((found || n > 1) && separator(line))
			break;
		if (found && has_kind(line, SP_END))
			break;
		if (header_line(line))
			continue;
		found += on_line(s, line);
	}
	flush(s);
	return pos;
}

/* Where the explanation ends: at a returned-message marker after the first
 * introducing phrase, or at the returned header ("Received:" at a line start). */
static size_t explanation_end(sd_str t, size_t intro)
{
	sd_str rest = { t.p + intro, t.n - intro };
	size_t cut = intro + earliest(rest, SP_END, NULL);
	const char *q = sd_memmem(t.p + intro, cut - intro, "\nReceived: ", 11);

	return q ? (size_t)(q - t.p) : cut;
}

/* Records with no error text of their own get the introducing line. A report
 * that lists an address as unknown, without naming the SMTP command, tells of
 * a refused recipient: RCPT. */
static void finish(simple_state *s)
{
	for (size_t i = s->first; i < s->c->nrcpt; i++) {
		sd_rcpt *r = &s->c->rcpts[i];
		sd_reasonset set;
		if (!r->diagnostic.n && s->intro.n)
			r->diagnostic = dsn_sweep(s->c->a, sd_trim(s->intro));
		set = sd_classify_scan(s->c->cls, r->diagnostic.p, r->diagnostic.n);
		if (!sd_vd_command_find(r->diagnostic.p, r->diagnostic.n)[0] &&
		    (set & ((sd_reasonset)1 << SD_R_userunknown)))
			r->command = SD_STR("RCPT");
	}
}

static void read_blocks(simple_state *s, sd_str t)
{
	const char *base = s->action;
	size_t pos = 0, len = 0, fail, warn, wlen = 0;

	for (int b = 0; b < SIMPLE_MAX_BLOCKS && pos < t.n; b++) {
		sd_str rest = { t.p + pos, t.n - pos };
		fail = earliest(rest, SP_FAIL, &len);
		warn = earliest(rest, SP_WARN, &wlen);
		if (fail == rest.n && warn == rest.n)
			break;
		s->action = base;
		if (warn < fail) {
			s->action = "delayed";
			fail = warn;
			len = wlen;
		}
		pos = read_block(s, t, pos + fail, len);
	}
}

int sd_fmt_simple(sd_ctx *c)
{
	simple_state s;
	sd_str t;
	size_t intro;

	if (!is_report(c))
		return 0;
	t = sd_ctx_body(c);
	if (!t.p || !t.n)
		return 0;
	if (t.n > SIMPLE_MAX_SCAN)
		t.n = SIMPLE_MAX_SCAN;
	intro = earliest(t, SP_FAIL, NULL);
	if (earliest(t, SP_WARN, NULL) < intro)
		intro = earliest(t, SP_WARN, NULL);
	if (intro == t.n)
		return 0;
	t.n = explanation_end(t, intro);
	if (has_kind(t, SP_CHAL))
		return 0;
	memset(&s, 0, sizeof(s));
	s.c = c;
	s.first = c->nrcpt;
	s.action = has_kind(t, SP_DELAY) ? "delayed" : "failed";
	sd_buf_init(&s.diag);
	skip_init(&s);
	read_blocks(&s, t);
	sd_buf_free(&s.diag);
	finish(&s);
	return (int)(c->nrcpt - s.first);
}
