/* msgutil.c - helpers the format modules share: texts of a parsed bounce, the
 * returned message's headers, addresses. Everything returns slices into the
 * message or the context's arena; nothing here copies more than it must. */
#include "bounce/ctx.h"

#define SD_ORIG_SCAN   (256u << 10) /* bytes of text searched for a returned header block */
#define SD_ORIG_FIELDS 64           /* fields read from an embedded header block */
#define SD_ADDR_MAX    254          /* RFC 5321 path limit for one address */

/* ---- parts ---- */

int sd_ctx_in_returned(const sd_ctx *c, size_t i)
{
	const sd_part *parts = c->mime.parts;

	while (i > 0 && i < c->mime.nparts) {
		if (parts[i].is_message)
			return 1;
		if (parts[i].parent < 0)
			break;
		i = (size_t)parts[i].parent;
	}
	return 0;
}

static int ctype_eq(const sd_part *p, const char *ctype)
{
	return strcmp(p->ctype, ctype) == 0;
}

/* First part outside a returned message whose type equals ctype, or whose
 * type starts with prefix when ctype is NULL; -1 when none. */
static long find_part(const sd_ctx *c, const char *ctype, const char *prefix)
{
	size_t plen = prefix ? strlen(prefix) : 0;

	for (size_t i = 0; i < c->mime.nparts; i++) {
		const sd_part *p = &c->mime.parts[i];
		int hit = ctype ? ctype_eq(p, ctype) : strncmp(p->ctype, prefix, plen) == 0;
		if (hit && !sd_ctx_in_returned(c, i))
			return (long)i;
	}
	return -1;
}

sd_str sd_ctx_text(sd_ctx *c, const char *ctype)
{
	long i = find_part(c, ctype ? ctype : "text/plain", NULL);

	if (i < 0)
		return SD_NULLSTR;
	return sd_part_text(c->a, &c->mime.parts[i]);
}

sd_str sd_ctx_body(sd_ctx *c)
{
	long i;

	if (c->body_done)
		return c->body;
	c->body_done = 1;
	c->body_part = -1;
	i = find_part(c, "text/plain", NULL);
	if (i < 0)
		i = find_part(c, NULL, "text/");
	if (i < 0 && (strncmp(c->top->ctype, "multipart/", 10) != 0 || c->mime.nparts == 1))
		i = 0;
	if (i >= 0)
		c->body = sd_part_text(c->a, &c->mime.parts[i]);
	else
		c->body = SD_NULLSTR;
	c->body_part = i;
	return c->body;
}

static int is_received(sd_str name)
{
	return name.n == 8 && sd_str_caseeq(name, "Received");
}

void sd_ctx_join_received(sd_ctx *c)
{
	const sd_part *t = c->top;
	size_t n = 0, k = 0;
	char *d;

	for (size_t i = 0; i < t->nhdrs; i++)
		if (is_received(t->hdrs[i].name))
			n += t->hdrs[i].value.n + 1;
	if (!(d = sd_arena_alloc(c->a, n + 1)))
		return; /* out of memory: the fields are searched one by one */
	for (size_t i = 0; i < t->nhdrs; i++) {
		if (!is_received(t->hdrs[i].name))
			continue;
		memcpy(d + k, t->hdrs[i].value.p, t->hdrs[i].value.n);
		k += t->hdrs[i].value.n;
		d[k++] = '\n';
	}
	c->received = (sd_str){ d, k };
}

sd_str sd_ctx_part_text(sd_ctx *c, size_t i)
{
	if (!c->body_done && find_part(c, "text/plain", NULL) == (long)i)
		sd_ctx_body(c); /* part i is the body's: decode it once for both */
	if (c->body_done && c->body_part >= 0 && (size_t)c->body_part == i)
		return c->body;
	return sd_part_text(c->a, &c->mime.parts[i]);
}

/* ---- the returned message ---- */

static sd_str hdr_of(const sd_header *h, size_t n, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < n; i++)
		if (h[i].name.n == len && sd_memcaseeq(h[i].name.p, name, len))
			return h[i].value;
	return SD_NULLSTR;
}

static void orig_from_fields(sd_orig *o, const sd_header *h, size_t n)
{
	o->from = hdr_of(h, n, "From");
	if (!sd_trim(o->from).n)
		o->from = hdr_of(h, n, "Return-Path");
	if (!sd_trim(o->from).n)
		o->from = hdr_of(h, n, "Sender");
	o->to = hdr_of(h, n, "To");
	o->subject = hdr_of(h, n, "Subject");
	o->messageid = hdr_of(h, n, "Message-ID");
	o->listid = hdr_of(h, n, "List-Id");
	o->date = hdr_of(h, n, "Date");
}

static int orig_empty(const sd_orig *o)
{
	return !o->from.n && !o->to.n && !o->subject.n && !o->messageid.n && !o->date.n;
}

/* Names that open or sit in a returned header block. */
static int header_name(sd_str line, int *strong)
{
	static const struct {
		const char *name;
		int strong;
	} names[] = {
		{ "Return-Path:", 1 }, { "Received:", 0 },   { "From:", 1 },     { "To:", 0 },
		{ "Subject:", 1 },     { "Date:", 0 },       { "Message-Id:", 1 }, { "MIME-Version:", 0 },
		{ "Content-Type:", 0 }, { "Reply-To:", 0 },  { "Sender:", 0 },   { "X-Mailer:", 0 },
		{ "DKIM-Signature:", 0 }, { "List-Id:", 0 }, { "Cc:", 0 },       { "Delivered-To:", 0 },
		{ "Content-Transfer-Encoding:", 0 },
	};

	const char *colon = line.n > 3 ? memchr(line.p, ':', line.n < 28 ? line.n : 28) : NULL;

	if (!colon || !sd_isalpha((unsigned char)line.p[0]))
		return 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (sd_tolower((unsigned char)line.p[0]) == sd_tolower((unsigned char)names[i].name[0]) &&
		    sd_str_casestarts(line, names[i].name)) {
			*strong = names[i].strong;
			return 1;
		}
	return 0;
}

/* Any "Name: value" line (a field we do not list, inside a block). */
static int any_field(sd_str line)
{
	size_t i = 0;

	while (i < line.n && i < 64 && (sd_isalnum((unsigned char)line.p[i]) || line.p[i] == '-'))
		i++;
	return i > 0 && i < line.n && line.p[i] == ':';
}

/* End of the header block that starts at line start b (first blank line or
 * a line that is neither a field nor a continuation). */
static size_t block_end(sd_str t, size_t b)
{
	size_t last = b;
	sd_lines it;
	sd_str line;

	sd_lines_init(&it, t, b);
	while (sd_lines_next(&it, &line)) {
		int cont = line.n && (line.p[0] == ' ' || line.p[0] == '\t');
		if (!line.n || (!cont && !any_field(line)))
			break;
		last = it.pos;
	}
	return last;
}

/* Offset of the first run of header lines (>= 2 known fields, one of them
 * From/Subject/Message-Id/Return-Path) in t; sets *end. */
static int find_block(sd_str t, size_t *start, size_t *end)
{
	size_t runstart = 0, at;
	int run = 0, strong = 0, s;
	sd_lines it;
	sd_str line;

	sd_lines_init(&it, t, 0);
	while ((at = it.pos, sd_lines_next(&it, &line))) {
		if (line.n && (line.p[0] == ' ' || line.p[0] == '\t') && run)
			continue;
		int named = header_name(line, &s);
		if (named || (run && any_field(line))) {
			if (!run++)
				runstart = at;
			strong |= named && s;
			if (run >= 2 && strong) {
				*start = runstart;
				*end = block_end(t, runstart);
				return 1;
			}
			continue;
		}
		run = strong = 0;
	}
	return 0;
}

static void orig_from_text(sd_ctx *c, sd_str t)
{
	size_t b, e, n = 0;
	sd_header *h = NULL;

	if (!t.p || !t.n)
		return;
	if (t.n > SD_ORIG_SCAN)
		t.n = SD_ORIG_SCAN;
	if (!find_block(t, &b, &e))
		return;
	if (sd_parse_fields(c->a, (sd_str){ t.p + b, e - b }, &h, &n) < 0 && !n)
		return;
	if (n > SD_ORIG_FIELDS)
		n = SD_ORIG_FIELDS;
	orig_from_fields(&c->orig, h, n);
}

void sd_ctx_find_original(sd_ctx *c, sd_str text)
{
	if (c->orig_done)
		return;
	c->orig_done = 1;
	for (size_t i = 1; i < c->mime.nparts; i++) {
		const sd_part *p = &c->mime.parts[i];
		if (!p->is_message || !p->nhdrs)
			continue;
		orig_from_fields(&c->orig, p->hdrs, p->nhdrs);
		if (!orig_empty(&c->orig))
			return;
	}
	orig_from_text(c, text.p ? text : sd_ctx_body(c));
}

/* ---- addresses ---- */

static int addr_junk(int ch)
{
	return sd_isspace(ch) || ch == '<' || ch == '>' || ch == '"' || ch == '\'' || ch == '(' ||
	       ch == ')' || ch == '[' || ch == ']' || ch == ',' || ch == ';' || ch == ':' || ch == '`';
}

/* Does s start with a quoted local part ("..."@)? */
static int quoted_local(sd_str s)
{
	const char *q;

	if (!s.n || s.p[0] != '"' || !(q = memchr(s.p + 1, '"', s.n - 1)))
		return 0;
	return (size_t)(q - s.p) + 1 < s.n && q[1] == '@';
}

static sd_str strip_junk(sd_str s)
{
	while (s.n && addr_junk((unsigned char)s.p[0]) && !quoted_local(s)) {
		s.p++;
		s.n--;
	}
	while (s.n && (addr_junk((unsigned char)s.p[s.n - 1]) || s.p[s.n - 1] == '.')) 
		s.n--;
	if (sd_str_casestarts(s, "mailto:")) {
		s.p += 7;
		s.n -= 7;
	}
	return s;
}

/* "<...>" holding an '@', the first one; SD_NULLSTR if none. */
static sd_str angle_addr(sd_str s)
{
	const char *p = s.p, *end = s.p + s.n, *lt, *gt;

	while (p < end && (lt = memchr(p, '<', (size_t)(end - p))) != NULL) {
		gt = memchr(lt, '>', (size_t)(end - lt));
		if (!gt)
			break;
		if (memchr(lt, '@', (size_t)(gt - lt)))
			return strip_junk((sd_str){ lt + 1, (size_t)(gt - lt - 1) });
		p = gt + 1;
	}
	return SD_NULLSTR;
}

/* The whitespace/comma separated token holding the first '@'. */
static sd_str at_token(sd_str s)
{
	const char *at = memchr(s.p, '@', s.n), *b, *e, *end = s.p + s.n;

	if (!at)
		return SD_NULLSTR;
	b = at;
	if (at > s.p + 1 && at[-1] == '"') {
		const char *q = memrchr(s.p, '"', (size_t)(at - 1 - s.p));
		if (q)
			b = q;
	}
	while (b > s.p && !sd_isspace((unsigned char)b[-1]) && b[-1] != ',' && b[-1] != '<' &&
	       b[-1] != ';' && b[-1] != '(' && b[-1] != ':')
		b--;
	e = at;
	while (e < end && !sd_isspace((unsigned char)*e) && *e != ',' && *e != '>' && *e != ';' &&
	       *e != ')')
		e++;
	return strip_junk((sd_str){ b, (size_t)(e - b) });
}

/* Skip an address-type prefix: "rfc822;", "RFC822; ", "x-unix;" ... */
static sd_str skip_type(sd_str s)
{
	const char *semi = memchr(s.p, ';', s.n);
	size_t k;

	if (!semi)
		return s;
	k = (size_t)(semi - s.p);
	for (size_t i = 0; i < k; i++)
		if (!sd_isalnum((unsigned char)s.p[i]) && s.p[i] != '-' && s.p[i] != ' ')
			return s;
	return sd_trim((sd_str){ semi + 1, s.n - k - 1 });
}

sd_str sd_addr_clean(sd_str s)
{
	sd_str r;

	s = sd_trim(s);
	if (!s.p || !s.n)
		return (sd_str){ s.p ? s.p : "", 0 };
	s = skip_type(s);
	r = angle_addr(s);
	if (r.n)
		return r;
	r = at_token(s);
	if (r.n)
		return r;
	return strip_junk(s);
}

static int local_ok(int ch)
{
	return sd_isalnum(ch) || ch >= 0x80 || (ch > ' ' && ch < 0x7f && !strchr("@<>()[]\\,;:\" ", ch));
}

static int domain_ok(int ch)
{
	return sd_isalnum(ch) || ch >= 0x80 || ch == '-' || ch == '.' || ch == '_' || ch == '[' ||
	       ch == ']' || ch == ':';
}

int sd_is_address(sd_str s)
{
	const char *at;
	size_t lp, i;

	s = sd_trim(s);
	if (!s.p || s.n < 3 || s.n > SD_ADDR_MAX)
		return 0;
	at = memchr(s.p, '@', s.n);
	if (!at || at == s.p || at == s.p + s.n - 1)
		return 0;
	lp = (size_t)(at - s.p);
	if (s.p[0] == '"' && lp >= 2 && s.p[lp - 1] == '"') {
		/* quoted local part: anything printable inside */
	} else {
		for (i = 0; i < lp; i++)
			if (!local_ok((unsigned char)s.p[i]))
				return 0;
	}
	for (i = lp + 1; i < s.n; i++)
		if (!domain_ok((unsigned char)s.p[i]))
			return 0;
	return s.p[lp + 1] != '.' && s.p[s.n - 1] != '.';
}
