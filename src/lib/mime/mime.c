/* mime.c - zero-copy MIME reader: headers, multipart tree, nested messages.
 *
 * Line ends may be LF, CRLF or bare CR, mixed. Bodies are never scanned line by
 * line: multipart delimiters are found with memmem ("--boundary"), then checked
 * to sit at a line start. Transfer and charset decoding happen only in
 * sd_part_text() and sd_header_text().
 */
#include "mime/mime.h"
#include "mime/charset.h"
#include "smtpdiag.h"

#include <stdio.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define SD_PARTS_INITIAL 16  /* parts array grows by doubling from here */
#define SD_FIELD_NAME_MAX 256 /* longer "names" are not header fields */
#define SD_HEAD_LOOKAHEAD 16  /* lines looked ahead past a broken header line */

typedef struct mctx {
	sd_arena *a;
	sd_mime *m;
	size_t cap;          /* capacity of m->parts */
	sd_header *scratch;  /* SD_MAX_HEADER_FIELDS entries, reused per header block */
	char *err;
	size_t errcap;
} mctx;

/* Set the error message (what holds one %lu for n) and return code. */
static int fail(mctx *c, int code, const char *what, unsigned long n)
{
	if (c->err && c->errcap)
		snprintf(c->err, c->errcap, what, n);
	return code;
}

static int fail0(mctx *c, int code, const char *msg)
{
	if (c->err && c->errcap)
		sd_strlcpy(c->err, msg, strlen(msg), c->errcap);
	return code;
}

/* ---- lines ---- */

#if defined(__SSE2__)
/* First CR or LF in [p, end), or end: sixteen bytes a step (SSE2, which every
 * x86-64 has), both line-end bytes at once, each byte read once. */
static const char *find_eol(const char *p, const char *end)
{
	const __m128i lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');

	for (; end - p >= 16; p += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, lf), _mm_cmpeq_epi8(v, cr)));
		if (m)
			return p + __builtin_ctz(m);
	}
	for (; p < end; p++)
		if (*p == '\n' || *p == '\r')
			return p;
	return end;
}
#else
/* First CR or LF in [p, end), or end. Searches in growing windows so that a long
 * CR-only text does not make memchr('\n') rescan to the end for every line. */
static const char *find_eol(const char *p, const char *end)
{
	size_t w = 128;

	while (p < end) {
		const char *lim = (size_t)(end - p) > w ? p + w : end;
		const char *nl = memchr(p, '\n', (size_t)(lim - p));
		const char *stop = nl ? nl : lim;
		const char *cr = memchr(p, '\r', (size_t)(stop - p));
		if (cr)
			return cr;
		if (nl)
			return nl;
		p = lim;
		w *= 2;
	}
	return end;
}
#endif

/* Length of the line end at q (0 at end, 2 for CRLF, else 1). */
static size_t eol_len(const char *q, const char *end)
{
	if (q >= end)
		return 0;
	return (q[0] == '\r' && q + 1 < end && q[1] == '\n') ? 2 : 1;
}

int sd_next_line(sd_str s, size_t *pos, sd_str *line)
{
	const char *end, *b, *e;

	if (!s.p || *pos >= s.n)
		return 0;
	end = s.p + s.n;
	b = s.p + *pos;
	e = find_eol(b, end);
	*line = (sd_str){ b, (size_t)(e - b) };
	*pos = (size_t)(e + eol_len(e, end) - s.p);
	return 1;
}

/* ---- header fields ---- */

/* If line is "name:" (optional blanks before the colon), the offset of the colon
 * (and *name the length of the name), else 0. */
static size_t field_colon(const char *p, size_t n, size_t *name)
{
	size_t i = 0;

	if (n > SD_FIELD_NAME_MAX)
		n = SD_FIELD_NAME_MAX;
#if defined(__SSE2__)
	{
		/* '!' to '~' but ':': below '!' as signed bytes are the controls, the
		 * blank and every byte >= 0x80; then DEL and the colon */
		const __m128i bang = _mm_set1_epi8('!'), del = _mm_set1_epi8(0x7f), col = _mm_set1_epi8(':');
		for (; n - i >= 16; i += 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
			unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(
				_mm_cmplt_epi8(v, bang), _mm_or_si128(_mm_cmpeq_epi8(v, del), _mm_cmpeq_epi8(v, col))));
			if (m) {
				i += (size_t)__builtin_ctz(m);
				break;
			}
		}
	} /* stopped at a byte not in a name, or fewer than 16 left */
#endif
	while (i < n && (unsigned char)(p[i] - '!') < 94 && p[i] != ':') /* '!' to '~' */
		i++;
	*name = i;
	while (i < n && (p[i] == ' ' || p[i] == '\t'))
		i++;
	return (*name > 0 && i < n && p[i] == ':') ? i : 0;
}

/* Is the line "Name:" with Name made of letters, digits and '-' only? */
static int strict_field(const char *p, size_t n)
{
	size_t i = 0;

	while (i < n && i < SD_FIELD_NAME_MAX && (sd_isalnum((unsigned char)p[i]) || p[i] == '-'))
		i++;
	return i > 0 && i < n && p[i] == ':';
}

/* A header line that is neither a field nor folded (e.g. headers re-wrapped without
 * indentation, as some MTAs return them): is a strict field line found within a few
 * lines after it, before any blank line? Then it is taken as a continuation. */
static int broken_fold(const char *p, const char *end)
{
	const char *e = find_eol(p, end);

	for (int k = 0; k < SD_HEAD_LOOKAHEAD && e < end; k++) {
		p = e + eol_len(e, end);
		e = find_eol(p, end);
		if (e == p)
			return 0;
		if (strict_field(p, (size_t)(e - p)))
			return 1;
	}
	return 0;
}

enum { FS_HEAD, FS_FIELDS };
enum { FS_OK, FS_TOOMANY, FS_TOOBIG }; /* fields_scan results */

typedef struct fscan {
	sd_header *arr;
	size_t cap, nf;
	const char *head_end; /* FS_HEAD: where the blank line (or body) starts */
	const char *body;     /* FS_HEAD: first byte of the body */
} fscan;

/* name: the length of the name (no blanks: those before the colon are not in it) */
static void field_add(fscan *f, const char *p, size_t name, size_t colon, const char *e)
{
	const char *v = p + colon + 1;

	while (v < e && (*v == ' ' || *v == '\t'))
		v++;
	f->arr[f->nf].name = (sd_str){ p, name };
	f->arr[f->nf].value = (sd_str){ v, (size_t)(e - v) };
	f->nf++;
}

/* find_eol() for a scan that only moves forward: the next LF is kept until
 * passed, and CRs are searched a window at a time, so text with LF line ends
 * costs one memchr per line (and one per EOL_CR_WINDOW bytes). */
#define EOL_CR_WINDOW 4096

static const char *eol_next(sd_eol_scan *s, const char *p, const char *end)
{
#if defined(__SSE2__)
	(void)s; /* one pass finds either byte: nothing to keep between lines */
	return find_eol(p, end);
#endif
	if (!s->lf || s->lf < p) {
		s->lf = memchr(p, '\n', (size_t)(end - p));
		if (!s->lf)
			s->lf = end;
	}
	if (s->cr && s->cr < p) {
		s->cr = NULL;
		s->cr_lim = p;
	}
	while (!s->cr && s->cr_lim < s->lf) { /* CRs before the LF not known yet */
		const char *from = s->cr_lim > p ? s->cr_lim : p;
		const char *lim = (size_t)(end - from) > EOL_CR_WINDOW ? from + EOL_CR_WINDOW : end;
		s->cr = memchr(from, '\r', (size_t)(lim - from));
		s->cr_lim = lim;
	}
	return s->cr && s->cr < s->lf ? s->cr : s->lf;
}

void sd_lines_init(sd_lines *l, sd_str s, size_t pos)
{
	l->s = s;
	l->pos = pos;
	l->es = (sd_eol_scan){ NULL, NULL, s.p };
	l->at = NULL;
}

int sd_lines_next(sd_lines *l, sd_str *line)
{
	const char *b, *e, *end;

	if (!l->s.p || l->pos >= l->s.n)
		return 0;
	b = l->s.p + l->pos;
	end = l->s.p + l->s.n;
	if (l->at && b < l->at) /* moved back: look again */
		l->es = (sd_eol_scan){ NULL, NULL, b };
	e = eol_next(&l->es, b, end);
	l->at = b;
	*line = (sd_str){ b, (size_t)(e - b) };
	l->pos = (size_t)(e + eol_len(e, end) - l->s.p);
	return 1;
}

/* Scan header fields in [p, end). FS_HEAD stops at a blank line or at the first line
 * that is not a field (no blank line before the body); FS_FIELDS skips both. */
static int fields_scan(fscan *f, const char *p, const char *end, int mode)
{
	const char *e, *start = p;
	sd_eol_scan es = { NULL, NULL, p };
	size_t colon, name = 0;
	int folded;

	f->nf = 0;
	for (; p < end; p = e + eol_len(e, end)) {
		e = eol_next(&es, p, end);
		if (mode == FS_HEAD && (size_t)(e - start) > SD_MAX_HEADER_BYTES)
			return FS_TOOBIG;
		folded = p[0] == ' ' || p[0] == '\t';
		colon = folded ? 0 : field_colon(p, (size_t)(e - p), &name); /* a blank never starts a name */
		if (f->nf && (folded || (mode == FS_HEAD && e > p && !colon && broken_fold(p, end)))) {
			sd_header *h = &f->arr[f->nf - 1];
			h->value.n = (size_t)(e - h->value.p);
			continue;
		}
		if (!colon && mode == FS_FIELDS)
			continue;
		if (!colon) {
			f->head_end = p;
			f->body = (e == p) ? e + eol_len(e, end) : p;
			return 0;
		}
		if (f->nf == f->cap)
			return FS_TOOMANY;
		field_add(f, p, name, colon, e);
	}
	f->head_end = f->body = end;
	return FS_OK;
}

static sd_header *fields_copy(sd_arena *a, const sd_header *src, size_t n)
{
	sd_header *h = sd_arena_alloc(a, (n ? n : 1) * sizeof(*h));

	if (h && n)
		memcpy(h, src, n * sizeof(*h));
	return h;
}

/* Upper bound of the number of lines in [p, p+n). */
static size_t count_lines(const char *p, size_t n)
{
	size_t k = 1;
	const char *end = p + n, *q;

	while (p < end && (q = find_eol(p, end)) < end) {
		k++;
		p = q + 1;
	}
	return k;
}

int sd_parse_fields(sd_arena *a, sd_str block, sd_header **out, size_t *n)
{
	fscan f = { NULL, 0, 0, NULL, NULL };
	size_t lines;
	int r;

	if (!a || !out || !n || (!block.p && block.n))
		return SMTPDIAG_EINVAL;
	*out = NULL;
	*n = 0;
	lines = block.p ? count_lines(block.p, block.n) : 1;
	f.cap = lines < SD_MAX_HEADER_FIELDS ? lines : SD_MAX_HEADER_FIELDS;
	f.arr = sd_arena_alloc(a, f.cap * sizeof(sd_header));
	if (!f.arr)
		return SMTPDIAG_ENOMEM;
	r = block.p ? fields_scan(&f, block.p, block.p + block.n, FS_FIELDS) : FS_OK;
	*out = f.arr;
	*n = f.nf;
	return r == FS_OK ? 0 : SMTPDIAG_ELIMIT;
}

unsigned sd_name_bit(const char *name, size_t n)
{
	if (!n)
		return 0;
	return (unsigned)(n * 31 + (size_t)sd_tolower((unsigned char)name[0]) * 7 +
			  (size_t)sd_tolower((unsigned char)name[n - 1])) & 63;
}

static uint64_t name_bits(const sd_header *h, size_t n)
{
	uint64_t bits = 0;

	for (size_t i = 0; i < n; i++)
		bits |= (uint64_t)1 << sd_name_bit(h[i].name.p, h[i].name.n);
	return bits;
}

sd_str sd_part_header_n(const sd_part *part, const char *name, size_t len)
{
	int c0 = len ? sd_tolower((unsigned char)name[0]) : 0;

	if (part->name_bits && !(part->name_bits >> sd_name_bit(name, len) & 1))
		return SD_NULLSTR;
	for (size_t i = 0; i < part->nhdrs; i++) {
		const sd_header *h = &part->hdrs[i];
		if (h->name.n == len && (!len || sd_tolower((unsigned char)h->name.p[0]) == c0) &&
		    sd_memcaseeq(h->name.p, name, len))
			return h->value;
	}
	return SD_NULLSTR;
}

/* ---- Content-Type ---- */

/* Unquote a quoted-string starting after its opening quote; *used gets the bytes
 * consumed (closing quote included). Copies only when a backslash is present. */
static sd_str unquote(sd_arena *a, const char *p, const char *end, size_t *used)
{
	const char *q = p;
	char *d;
	size_t k = 0;

	while (q < end && *q != '"')
		q += (*q == '\\' && q + 1 < end) ? 2 : 1;
	*used = (size_t)(q - p) + (q < end);
	if (!memchr(p, '\\', (size_t)(q - p)))
		return (sd_str){ p, (size_t)(q - p) };
	d = sd_arena_alloc(a, (size_t)(q - p));
	if (!d)
		return (sd_str){ p, (size_t)(q - p) };
	for (const char *s = p; s < q; s++) {
		if (*s == '\\' && s + 1 < q)
			s++;
		d[k++] = *s;
	}
	return (sd_str){ d, k };
}

static int is_blank(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Parameter value "name=value" found in a Content-Type value, or SD_NULLSTR. */
static sd_str ct_param(sd_arena *a, sd_str v, const char *name)
{
	const char *p = v.p, *end = v.p + v.n, *semi, *eq;
	size_t nl = strlen(name), used;

	while (p < end && (semi = memchr(p, ';', (size_t)(end - p))) != NULL) {
		p = semi + 1;
		while (p < end && is_blank((unsigned char)*p))
			p++;
		eq = p;
		while (eq < end && *eq != '=' && *eq != ';')
			eq++;
		if (eq == end || *eq != '=')
			continue;
		if (sd_trim((sd_str){ p, (size_t)(eq - p) }).n != nl || !sd_memcaseeq(p, name, nl))
			continue;
		for (p = eq + 1; p < end && is_blank((unsigned char)*p); p++)
			;
		if (p < end && *p == '"')
			return unquote(a, p + 1, end, &used);
		for (eq = p; eq < end && *eq != ';' && !is_blank((unsigned char)*eq); eq++)
			;
		return (sd_str){ p, (size_t)(eq - p) };
	}
	return SD_NULLSTR;
}

static void set_ctype(sd_part *pt, sd_str v, const char *dflt)
{
	size_t i = 0, k = 0;

	v = sd_trim(v);
	while (i < v.n && v.p[i] != ';' && v.p[i] != '(' && !is_blank((unsigned char)v.p[i]) &&
	       k + 1 < sizeof(pt->ctype))
		pt->ctype[k++] = (char)sd_tolower((unsigned char)v.p[i++]);
	pt->ctype[k] = '\0';
	if (k == 0)
		sd_strlcpy(pt->ctype, dflt, strlen(dflt), sizeof(pt->ctype));
}

/* First token of the Content-Transfer-Encoding value. */
static sd_str cte_token(sd_str v)
{
	size_t i = 0;

	v = sd_trim(v);
	while (i < v.n && v.p[i] != ';' && v.p[i] != '(' && !is_blank((unsigned char)v.p[i]))
		i++;
	return (sd_str){ v.p, i };
}

static int ctype_is(const sd_part *pt, const char *t)
{
	return strcmp(pt->ctype, t) == 0;
}

static void part_types(mctx *c, sd_part *pt)
{
	sd_str v = sd_part_header(pt, "Content-Type");
	const char *dflt = "text/plain";

	if (pt->parent >= 0 && !pt->is_message &&
	    ctype_is(&c->m->parts[pt->parent], "multipart/digest"))
		dflt = "message/rfc822";
	set_ctype(pt, v, dflt);
	pt->boundary = SD_NULLSTR;
	pt->charset = SD_NULLSTR;
	if (v.p) {
		if (strncmp(pt->ctype, "multipart/", 10) == 0)
			pt->boundary = ct_param(c->a, v, "boundary");
		pt->charset = sd_trim(ct_param(c->a, v, "charset"));
	}
	pt->cte = cte_token(sd_part_header(pt, "Content-Transfer-Encoding"));
}

/* ---- parts ---- */

static int part_new(mctx *c, int parent, int depth, int is_message, sd_str raw)
{
	sd_mime *m = c->m;
	sd_part *pt;

	if (m->nparts >= SD_MAX_MIME_PARTS)
		return fail(c, SMTPDIAG_ELIMIT, "more than %lu MIME parts", SD_MAX_MIME_PARTS);
	if (depth > SD_MAX_MIME_DEPTH)
		return fail(c, SMTPDIAG_ELIMIT, "MIME nesting deeper than %lu", SD_MAX_MIME_DEPTH);
	if (m->nparts == c->cap) {
		sd_part *np = sd_arena_alloc(c->a, c->cap * 2 * sizeof(*np));
		if (!np)
			return fail(c, SMTPDIAG_ENOMEM, "out of memory (%lu parts)", m->nparts);
		memcpy(np, m->parts, m->nparts * sizeof(*np));
		m->parts = np;
		c->cap *= 2;
	}
	pt = &m->parts[m->nparts];
	memset(pt, 0, sizeof(*pt));
	pt->parent = parent;
	pt->depth = depth;
	pt->is_message = is_message;
	pt->raw = raw;
	return (int)m->nparts++;
}

/* The end of the run of blank or whitespace-only lines at p (p itself when the
 * line at p holds text). */
static const char *skip_blank_lines(const char *p, const char *end)
{
	const char *q = p, *e;

	while (q < end) {
		e = q;
		while (e < end && (*e == ' ' || *e == '\t' || *e == '\r'))
			e++;
		if (e < end && *e != '\n')
			break;
		q = e < end ? e + 1 : e;
	}
	return q;
}

/* Does a header field ("Name:") start at p? */
static int field_starts(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && q - p < SD_FIELD_NAME_MAX && *q > ' ' && *q < 127 && *q != ':')
		q++;
	return q > p && q < end && *q == ':';
}

static const char *skip_from_line(const char *p, const char *end)
{
	const char *e;

	if (((size_t)(end - p) >= 5 && memcmp(p, "From ", 5) == 0) ||
	    ((size_t)(end - p) >= 6 && memcmp(p, ">From ", 6) == 0)) {
		e = find_eol(p, end);
		p = e + eol_len(e, end);
	}
	return p;
}

/* Skip what may precede a message's header: blank or whitespace-only lines and
 * an mbox "From " / ">From " line. At the top, blank lines are skipped only when
 * a header field follows them (else the message is all body). */
static const char *skip_envelope(const char *p, const char *end, int nested)
{
	const char *q = skip_from_line(skip_blank_lines(p, end), end);

	q = skip_blank_lines(q, end);
	if (nested || field_starts(q, end))
		return q;
	return skip_from_line(p, end);
}

static int parse_head(mctx *c, int idx)
{
	sd_part *pt = &c->m->parts[idx];
	const char *p = pt->raw.p, *end = pt->raw.p + pt->raw.n;
	fscan f = { c->scratch, SD_MAX_HEADER_FIELDS, 0, NULL, NULL };
	int r;

	if (pt->is_message && p)
		p = skip_envelope(p, end, idx > 0);
	r = p ? fields_scan(&f, p, end, FS_HEAD) : 0;
	if (r == FS_TOOMANY)
		return fail(c, SMTPDIAG_ELIMIT, "more than %lu header fields", SD_MAX_HEADER_FIELDS);
	if (r == FS_TOOBIG)
		return fail(c, SMTPDIAG_ELIMIT, "header block over %lu bytes", SD_MAX_HEADER_BYTES);
	if (!p)
		f.head_end = f.body = p;
	pt->head = (sd_str){ p, (size_t)(f.head_end - p) };
	pt->body = (sd_str){ f.body, (size_t)(end - f.body) };
	pt->nhdrs = f.nf;
	pt->hdrs = fields_copy(c->a, f.arr, f.nf);
	if (!pt->hdrs)
		return fail(c, SMTPDIAG_ENOMEM, "out of memory (%lu header fields)", f.nf);
	pt->name_bits = name_bits(pt->hdrs, pt->nhdrs);
	return 0;
}

static int parse_entity(mctx *c, int idx);

/* A delimiter line found in a multipart body. */
typedef struct delim {
	const char *start; /* the "--" */
	const char *next;  /* first byte after the delimiter line */
	int close;         /* "--boundary--" */
} delim;

/* Next delimiter "--B" at a line start in [from, end), or 0 when there is none. */
static int find_delim(const char *body, const char *from, const char *end,
                      const char *nd, size_t ndn, delim *d)
{
	const char *q, *after, *e;

	while (from < end && (q = sd_memmem(from, (size_t)(end - from), nd, ndn)) != NULL) {
		from = q + 1;
		if (q != body && q[-1] != '\n' && q[-1] != '\r')
			continue;
		after = q + ndn;
		d->close = (end - after >= 2 && after[0] == '-' && after[1] == '-');
		if (!d->close && after < end && !is_blank((unsigned char)*after))
			continue; /* a longer boundary that starts like this one */
		e = find_eol(after, end);
		d->start = q;
		d->next = e + eol_len(e, end);
		return 1;
	}
	return 0;
}

/* End of a part's content: before the line end that precedes the next delimiter. */
static const char *content_end(const char *from, const char *dstart)
{
	const char *e = dstart;

	if (e > from && e[-1] == '\n')
		e--;
	if (e > from && e[-1] == '\r')
		e--;
	return e;
}

static int add_child(mctx *c, int idx, const char *b, const char *e)
{
	int k = part_new(c, idx, c->m->parts[idx].depth + 1, 0, (sd_str){ b, (size_t)(e - b) });

	return k < 0 ? k : parse_entity(c, k);
}

static int parse_multipart(mctx *c, int idx)
{
	sd_str body = c->m->parts[idx].body, bd = c->m->parts[idx].boundary;
	const char *end = body.p + body.n;
	char nd[SD_MAX_BOUNDARY + 2];
	delim d, nx;
	int r;

	if (bd.n > SD_MAX_BOUNDARY)
		return fail(c, SMTPDIAG_ELIMIT, "multipart boundary over %lu bytes", SD_MAX_BOUNDARY);
	nd[0] = nd[1] = '-';
	memcpy(nd + 2, bd.p, bd.n);
	if (!body.p || !find_delim(body.p, body.p, end, nd, bd.n + 2, &d)) {
		c->m->truncated = 1;
		return 0;
	}
	while (!d.close) {
		if (!find_delim(body.p, d.next, end, nd, bd.n + 2, &nx)) {
			c->m->truncated = 1;
			return add_child(c, idx, d.next, end);
		}
		r = add_child(c, idx, d.next, content_end(d.next, nx.start));
		if (r < 0)
			return r;
		d = nx;
	}
	return 0;
}

static int is_message_type(const sd_part *pt)
{
	return ctype_is(pt, "message/rfc822") || ctype_is(pt, "message/global") ||
	       ctype_is(pt, "text/rfc822-headers") || ctype_is(pt, "message/rfc822-headers") ||
	       ctype_is(pt, "message/global-headers");
}

/* The body of a part after its transfer encoding only (no charset conversion). */
static sd_str body_decoded(sd_arena *a, const sd_part *pt, size_t max)
{
	sd_str b = pt->body;
	char *out;
	size_t cap;
	int b64 = sd_str_caseeq(pt->cte, "base64");

	if (!b64 && !sd_str_caseeq(pt->cte, "quoted-printable"))
		return (sd_str){ b.p, b.n < max ? b.n : max };
	cap = b64 ? b.n / 4 * 3 + 3 : b.n;
	if (cap > max)
		cap = max;
	out = sd_arena_alloc(a, cap + 1);
	if (!out)
		return SD_NULLSTR;
	cap = b64 ? sd_b64_decode(out, cap, b.p, b.n) : sd_qp_decode(out, cap, b.p, b.n, 0);
	out[cap] = '\0';
	return (sd_str){ out, cap };
}

static int parse_nested(mctx *c, int idx)
{
	sd_part *pt = &c->m->parts[idx];
	sd_str raw = body_decoded(c->a, pt, SD_MAX_MESSAGE);
	int k;

	if (!raw.p && pt->body.p)
		return fail(c, SMTPDIAG_ENOMEM, "out of memory decoding part %lu", (unsigned long)idx);
	k = part_new(c, idx, pt->depth + 1, 1, raw);
	return k < 0 ? k : parse_entity(c, k);
}

static int parse_entity(mctx *c, int idx)
{
	sd_part *pt;
	int r = parse_head(c, idx);

	if (r < 0)
		return r;
	pt = &c->m->parts[idx];
	part_types(c, pt);
	if (strncmp(pt->ctype, "multipart/", 10) == 0 && pt->boundary.n)
		return parse_multipart(c, idx);
	if (is_message_type(pt))
		return parse_nested(c, idx);
	return 0;
}

int sd_mime_parse(sd_arena *a, const char *p, size_t n, sd_mime *out, char *err, size_t errcap)
{
	mctx c = { a, out, SD_PARTS_INITIAL, NULL, err, errcap };
	int r;

	if (err && errcap)
		err[0] = '\0';
	if (!out)
		return SMTPDIAG_EINVAL;
	memset(out, 0, sizeof(*out));
	if (!a || (!p && n))
		return fail0(&c, SMTPDIAG_EINVAL, "invalid argument");
	if (n > SD_MAX_MESSAGE)
		return fail(&c, SMTPDIAG_ELIMIT, "message over %lu bytes", SD_MAX_MESSAGE);
	out->parts = sd_arena_alloc(a, c.cap * sizeof(sd_part));
	c.scratch = sd_arena_alloc(a, SD_MAX_HEADER_FIELDS * sizeof(sd_header));
	if (!out->parts || !c.scratch)
		return fail0(&c, SMTPDIAG_ENOMEM, "out of memory");
	r = part_new(&c, -1, 0, 1, (sd_str){ p ? p : "", n });
	if (r >= 0)
		r = parse_entity(&c, 0);
	return r < 0 ? r : 0;
}

/* ---- decoded text ---- */

sd_str sd_part_text(sd_arena *a, const sd_part *part)
{
	sd_str t = body_decoded(a, part, SD_MAX_DECODED);

	if (!t.p)
		return (sd_str){ "", 0 };
	if (part->charset.n)
		return sd_to_utf8(a, part->charset, t);
	if (memchr(t.p, 0x1b, t.n) && sd_memmem(t.p, t.n, "\x1b$B", 3))
		return sd_to_utf8(a, SD_STR("iso-2022-jp"), t);
	return t;
}

/* Unfold: drop CR and LF, keeping the blanks that follow them. */
static void unfold(sd_buf *b, sd_str s)
{
	const char *p = s.p, *end = s.p + s.n, *e;

	while (p < end) {
		e = find_eol(p, end);
		sd_buf_put(b, p, (size_t)(e - p));
		p = e + eol_len(e, end);
	}
}

const char *sd_header_text(sd_arena *a, sd_str raw)
{
	sd_buf u, d;
	const char *r;

	if (!raw.p || !raw.n)
		return "";
	if (!memchr(raw.p, '\n', raw.n) && !memchr(raw.p, '\r', raw.n) &&
	    !sd_memmem(raw.p, raw.n, "=?", 2)) { /* nothing to unfold or decode */
		sd_str t = sd_trim(raw);
		r = sd_arena_strndup(a, t.p ? t.p : "", t.n);
		return r ? r : "";
	}
	sd_buf_init(&u);
	sd_buf_init(&d);
	unfold(&u, raw);
	sd_rfc2047_decode(&d, sd_trim((sd_str){ u.data ? u.data : "", u.len }));
	r = (u.oom || d.oom) ? NULL : sd_arena_strndup(a, d.data ? d.data : "", d.len);
	sd_buf_free(&u);
	sd_buf_free(&d);
	return r ? r : "";
}
