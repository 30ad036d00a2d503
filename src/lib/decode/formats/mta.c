/* mta.c - helpers shared by the MTA format modules: slices, header checks,
 * parts, RFC 3464 fields, addresses and SMTP commands. */
#include "decode/formats/mta.h"
#include "smtp/reply.h"

/* ---- slices ---- */

int mta_blank(sd_str line)
{
	for (size_t i = 0; i < line.n; i++)
		if (line.p[i] != ' ' && line.p[i] != '\t')
			return 0;
	return 1;
}

/* ---- headers ---- */

/* The literals searched for hold no line end, so c->received (the values
 * joined by '\n') answers for all the fields at once. */
int mta_received_contains(const sd_ctx *c, const char *lit)
{
	const sd_part *t = c->top;

	if (c->received.p)
		return mta_contains(c->received, lit);
	for (size_t i = 0; i < t->nhdrs; i++)
		if (t->hdrs[i].name.n == 8 && sd_str_caseeq(t->hdrs[i].name, "Received") &&
		    mta_contains(t->hdrs[i].value, lit))
			return 1;
	return 0;
}

int mta_received_has(const sd_ctx *c, const char *lit)
{
	const sd_part *t = c->top;

	if (c->received.p)
		return mta_has(c->received, lit);
	for (size_t i = 0; i < t->nhdrs; i++)
		if (sd_str_caseeq(t->hdrs[i].name, "Received") && mta_has(t->hdrs[i].value, lit))
			return 1;
	return 0;
}

/* ---- parts ---- */

const sd_part *mta_part(const sd_ctx *c, const char *ctype)
{
	for (size_t i = 1; i < c->mime.nparts; i++)
		if (!strcmp(c->mime.parts[i].ctype, ctype) && !sd_ctx_in_returned(c, i))
			return &c->mime.parts[i];
	return NULL;
}

sd_str mta_orig_header(const sd_ctx *c, const char *name)
{
	for (size_t i = 1; i < c->mime.nparts; i++) {
		const sd_part *p = &c->mime.parts[i];
		if (p->is_message && p->parent > 0 && !sd_ctx_in_returned(c, (size_t)p->parent))
			return sd_part_header(p, name);
	}
	return SD_NULLSTR;
}

static sd_str capped(sd_ctx *c, sd_str s)
{
	if (s.n > MTA_MAX_SCAN) {
		s.n = MTA_MAX_SCAN;
		c->limit_hit = 1;
	}
	return s;
}

sd_str mta_body(sd_ctx *c)
{
	sd_str b = sd_ctx_body(c);

	/* a broken multipart (e.g. an unfolded boundary parameter): the raw body */
	if (!b.n && c->top)
		b = c->top->body;
	return capped(c, b);
}

/* ---- text building ---- */

sd_str mta_join(sd_arena *a, sd_str x, sd_str y)
{
	char *o;

	x = sd_trim(x);
	y = sd_trim(y);
	if (!x.n)
		return y;
	if (!y.n)
		return x;
	if (x.n + y.n + 1 > MTA_MAX_TEXT)
		return x;
	o = sd_arena_alloc(a, x.n + y.n + 1);
	if (!o)
		return x;
	memcpy(o, x.p, x.n);
	o[x.n] = ' ';
	memcpy(o + x.n + 1, y.p, y.n);
	return (sd_str){ o, x.n + y.n + 1 };
}

sd_str mta_squeeze(sd_arena *a, sd_str s)
{
	char *o;
	size_t k = 0;
	int sp = 0;

	s = sd_trim(s);
	if (s.n > MTA_MAX_TEXT)
		s.n = MTA_MAX_TEXT;
	if (!s.n || !(o = sd_arena_alloc(a, s.n)))
		return s;
	for (size_t i = 0; i < s.n; i++) {
		if (sd_isspace((unsigned char)s.p[i])) {
			sp = 1;
			continue;
		}
		if (sp && k)
			o[k++] = ' ';
		sp = 0;
		o[k++] = s.p[i];
	}
	return (sd_str){ o, k };
}

sd_str mta_unquote(sd_arena *a, sd_str s)
{
	char *o = s.n ? sd_arena_alloc(a, s.n + 1) : NULL;
	size_t pos = 0, k = 0;
	sd_str line;

	if (!o)
		return s;
	while (sd_next_line(s, &pos, &line)) {
		if (line.n && line.p[0] == '>')
			line = mta_skip(line, line.n > 1 && line.p[1] == ' ' ? 2 : 1);
		memcpy(o + k, line.p, line.n);
		k += line.n;
		o[k++] = '\n';
	}
	return (sd_str){ o, k };
}

/* ---- addresses ---- */

static int addr_char(int ch)
{
	return ch > ' ' && ch < 127 && ch != '<' && ch != '>' && ch != '(' && ch != ')' &&
	       ch != ',' && ch != ';' && ch != '"' && ch != '[' && ch != ']' && ch != ':';
}

/* The address-like token around the '@' at s.p[at]. */
static sd_str token_at(sd_str s, size_t at)
{
	size_t b = at, e = at + 1;

	while (b > 0 && addr_char((unsigned char)s.p[b - 1]))
		b--;
	while (e < s.n && addr_char((unsigned char)s.p[e]))
		e++;
	while (e > at + 1 && (s.p[e - 1] == '.' || s.p[e - 1] == '\''))
		e--;
	if (b < at && s.p[b] == '\'')
		b++;
	return (sd_str){ s.p + b, e - b };
}

static int token_ok(sd_str t)
{
	const char *at = t.n ? memchr(t.p, '@', t.n) : NULL;

	return at && at > t.p && (size_t)(at - t.p) + 1 < t.n &&
	       memchr(at + 1, '.', t.n - (size_t)(at + 1 - t.p)) != NULL;
}

sd_str mta_addr(sd_str s)
{
	for (size_t i = 0; i < s.n; i++) {
		if (s.p[i] != '@')
			continue;
		sd_str t = token_at(s, i);
		if (token_ok(t))
			return t;
	}
	return SD_NULLSTR;
}

int mta_is_addr(sd_str s)
{
	sd_str t;

	s = sd_trim(s);
	if (s.n >= 2 && s.p[0] == '<' && s.p[s.n - 1] == '>')
		s = (sd_str){ s.p + 1, s.n - 2 };
	t = mta_addr(s);
	return t.p && t.n == s.n;
}

/* ---- SMTP commands ---- */

static const char *const commands[] = {
	"CONN", "EHLO", "HELO", "STARTTLS", "AUTH", "MAIL", "RCPT", "DATA", "BDAT", "RSET", "NOOP",
	"VRFY", "QUIT", NULL
};

static sd_str command_lit(const char *w)
{
	return (sd_str){ w, strlen(w) };
}

sd_str mta_command_word(sd_str s)
{
	s = sd_trim(s);
	for (int i = 0; commands[i]; i++) {
		size_t n = strlen(commands[i]);
		if (s.n >= n && sd_memcaseeq(s.p, commands[i], n) &&
		    (s.n == n || !sd_isalpha((unsigned char)s.p[n])))
			return command_lit(commands[i]);
	}
	return SD_NULLSTR;
}

/* Texts that name the command right after them. */
static const char *const cmd_intro[] = {
	"in reply to ", "after ", ">>> ", "error after ", "in response to ", NULL
};

sd_str mta_command(sd_str s)
{
	if (mta_has(s, "end of data") || mta_has(s, "after end of"))
		return command_lit("DATA");
	for (int i = 0; cmd_intro[i]; i++) {
		sd_str f = s;
		while ((f = mta_after(f, cmd_intro[i])).p) {
			sd_str w = mta_command_word(f);
			if (w.p)
				return w;
		}
	}
	return SD_NULLSTR;
}

/* ---- recipients and codes ---- */

sd_rcpt *mta_rcpt_find(sd_ctx *c, size_t from, sd_str addr)
{
	addr = sd_trim(addr);
	for (size_t i = from; i < c->nrcpt; i++) {
		sd_str r = c->rcpts[i].recipient;
		if (r.n == addr.n && sd_memcaseeq(r.p, addr.p, r.n))
			return &c->rcpts[i];
	}
	return NULL;
}

static int vague_status(sd_str s)
{
	s = sd_trim(s);
	return !s.n || (s.n >= 4 && !memcmp(s.p + s.n - 4, ".0.0", 4));
}

int mta_take_codes(sd_arena *a, sd_rcpt *r, sd_str text)
{
	sd_found f[8];
	size_t n = sd_find_codes(text.p, text.n, f, 8);
	int k = sd_pick_code(f, n), took = 0;
	char *o;

	if (k < 0)
		return 0;
	if (vague_status(r->status) && f[k].status.text[0] &&
	    !strstr(f[k].status.text + 1, ".0.0") && (f[k].status.cls == 4 || f[k].status.cls == 5)) {
		r->status = (sd_str){ sd_arena_strndup(a, f[k].status.text, strlen(f[k].status.text)),
				      strlen(f[k].status.text) };
		took = 1;
	}
	if ((!r->replycode.n || (r->replycode.n == 3 && !memcmp(r->replycode.p + 1, "00", 2))) &&
	    f[k].replycode >= 400 && f[k].replycode % 100 && (o = sd_arena_alloc(a, 3))) {
		o[0] = (char)('0' + f[k].replycode / 100);
		o[1] = (char)('0' + f[k].replycode / 10 % 10);
		o[2] = (char)('0' + f[k].replycode % 10);
		r->replycode = (sd_str){ o, 3 };
		took = 1;
	}
	return took;
}

/* ---- "<addr>:" blocks (qmail and the MTAs that copied its format) ---- */

static int any_line_of(sd_str line, const char *const *list)
{
	for (int i = 0; list && list[i]; i++)
		if (mta_has(line, list[i]))
			return 1;
	return 0;
}

/* Offset of the start of the first line of s holding one of list (ignoring
 * case), or s.n: one search per text over s instead of one per line. */
static size_t first_line_of(sd_str s, const char *const *list)
{
	size_t at = s.n;

	for (int i = 0; list[i]; i++) {
		size_t k = strlen(list[i]), hay = at + k - 1 < s.n ? at + k - 1 : s.n;
		const char *q = k ? sd_memcasemem(s.p, hay, list[i], k) : s.p;
		if (q) /* an earlier start than any found so far */
			at = (size_t)(q - s.p);
	}
	if (at == s.n)
		return s.n;
	while (at > 0 && s.p[at - 1] != '\n' && s.p[at - 1] != '\r')
		at--;
	return at;
}

/* "<user@example.jp>:" at the start of a line */
static int angle_line(sd_str line, sd_str *addr)
{
	sd_str a = mta_after(line, ">:");

	if (!line.n || line.p[0] != '<' || !a.p)
		return 0;
	*addr = (sd_str){ line.p + 1, (size_t)(a.p - 2 - line.p) - 1 };
	return memchr(addr->p, '@', addr->n) != NULL;
}

size_t mta_angle_blocks(sd_ctx *c, sd_str body, const char *const *starts, const char *const *ends)
{
	size_t pos = 0;
	sd_str line, addr;
	sd_rcpt *cur = NULL;

	if (starts) { /* read from the line after the first one holding a start text */
		pos = body.p ? first_line_of(body, starts) : body.n;
		if (pos >= body.n || !sd_next_line(body, &pos, &line))
			return body.n;
	}
	while (sd_next_line(body, &pos, &line)) {
		if (any_line_of(line, ends))
			return pos;
		if (angle_line(line, &addr)) {
			if ((cur = sd_ctx_add(c)) != NULL)
				cur->recipient = addr;
		} else if (cur && !mta_blank(line)) {
			cur->diagnostic = mta_join(c->a, cur->diagnostic, line);
		}
	}
	return body.n;
}

int mta_finish(sd_ctx *c, size_t first)
{
	for (size_t i = first; i < c->nrcpt; i++) {
		c->rcpts[i].diagnostic = mta_squeeze(c->a, c->rcpts[i].diagnostic);
		c->rcpts[i].command = mta_command(c->rcpts[i].diagnostic);
	}
	return (int)(c->nrcpt - first);
}
