/* dsnutil.c - text helpers shared by the report modules. */
#include "bounce/dsnutil.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define DSN_FIELD_NAME_MAX 64 /* longer "names" are not header fields */

static int blank_line(sd_str l)
{
	for (size_t i = 0; i < l.n; i++)
		if (l.p[i] != ' ' && l.p[i] != '\t')
			return 0;
	return 1;
}

/* Length of "Name" when line is "Name: ...", else 0. */
static size_t field_name_len(sd_str l)
{
	size_t i = 0;

	while (i < l.n && i < DSN_FIELD_NAME_MAX &&
	       (sd_isalnum((unsigned char)l.p[i]) || l.p[i] == '-' || l.p[i] == '_'))
		i++;
	return i > 0 && i < l.n && l.p[i] == ':' ? i : 0;
}

static int is_cont(sd_str t, size_t pos)
{
	return pos < t.n && (t.p[pos] == ' ' || t.p[pos] == '\t');
}

/* Join value v and the continuation lines after *pos. */
static sd_str join_conts(sd_arena *a, sd_str t, size_t *pos, sd_str v)
{
	sd_buf b;
	sd_str l, out = v;
	char *d;

	sd_buf_init(&b);
	sd_buf_put(&b, v.p, v.n);
	while (is_cont(t, *pos)) {
		size_t save = *pos;
		sd_next_line(t, pos, &l);
		if (blank_line(l)) {
			*pos = save;
			break;
		}
		l = sd_trim(l);
		if (b.len)
			sd_buf_putc(&b, ' ');
		sd_buf_put(&b, l.p, l.n);
	}
	if (!b.oom && b.len && (d = sd_arena_strndup(a, b.data, b.len)) != NULL)
		out = (sd_str){ d, b.len };
	sd_buf_free(&b);
	return out;
}

int dsn_next_field(sd_arena *a, sd_str t, size_t *pos, sd_str *line, sd_str *name, sd_str *value)
{
	size_t k;

	*name = *value = SD_NULLSTR;
	if (!t.p || !sd_next_line(t, pos, line))
		return 0;
	if (blank_line(*line)) {
		line->n = 0;
		return 1;
	}
	k = field_name_len(*line);
	if (!k)
		return 1;
	*name = (sd_str){ line->p, k };
	*value = sd_trim((sd_str){ line->p + k + 1, line->n - k - 1 });
	if (is_cont(t, *pos))
		*value = join_conts(a, t, pos, *value);
	return 1;
}

void dsn_split_typed(sd_str v, sd_str *type, sd_str *text)
{
	const char *semi;
	size_t k;

	v = sd_trim(v);
	*type = SD_NULLSTR;
	*text = v;
	semi = v.p ? memchr(v.p, ';', v.n) : NULL;
	if (!semi)
		return;
	k = (size_t)(semi - v.p);
	for (size_t i = 0; i < k; i++)
		if (!sd_isalnum((unsigned char)v.p[i]) && v.p[i] != '-' && v.p[i] != '_' && v.p[i] != '.')
			return;
	*type = (sd_str){ v.p, k };
	*text = sd_trim((sd_str){ semi + 1, v.n - k - 1 });
}

sd_str dsn_value(sd_str v)
{
	sd_str type, text;

	dsn_split_typed(v, &type, &text);
	return text;
}

sd_str dsn_first_word(sd_str v)
{
	size_t i = 0;

	v = sd_trim(v);
	while (i < v.n && !sd_isspace((unsigned char)v.p[i]) && v.p[i] != '(' && v.p[i] != ';')
		i++;
	return (sd_str){ v.p, i };
}

int dsn_is_rcpt_field(sd_str name)
{
	static const char *const f[] = { "Action", "Status", "Remote-MTA", "Diagnostic-Code",
					 "Last-Attempt-Date", "Will-Retry-Until", "Final-Log-ID" };

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (sd_str_caseeq(name, f[i]))
			return 1;
	return 0;
}

/* ---- sweeping ---- */

/* Does s hold a tab, a line end, two blanks in a row or " --"? */
static int needs_sweep(sd_str s)
{
	size_t i = 0;

	if (!s.n || s.p[0] == ' ' || s.p[s.n - 1] == ' ')
		return 1;
#if defined(__SSE2__)
	{
		/* sixteen places a step: the byte, the next and the one after */
		const __m128i sp = _mm_set1_epi8(' '), dash = _mm_set1_epi8('-');
		const __m128i tab = _mm_set1_epi8('\t'), cr = _mm_set1_epi8('\r'), lf = _mm_set1_epi8('\n');
		for (; s.n - i >= 18; i += 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s.p + i));
			__m128i w = _mm_loadu_si128((const __m128i *)(const void *)(s.p + i + 1));
			__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s.p + i + 2));
			__m128i blank = _mm_cmpeq_epi8(v, sp);
			__m128i ends = _mm_or_si128(_mm_cmpeq_epi8(v, tab),
						    _mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, lf)));
			__m128i next = _mm_or_si128(_mm_cmpeq_epi8(w, sp),
						    _mm_and_si128(_mm_cmpeq_epi8(w, dash), _mm_cmpeq_epi8(x, dash)));
			if (_mm_movemask_epi8(_mm_or_si128(ends, _mm_and_si128(blank, next))))
				return 1;
		}
	}
#endif
	for (; i < s.n; i++) {
		unsigned char ch = (unsigned char)s.p[i];
		if (ch > ' ')
			continue;
		if (ch == '\t' || ch == '\r' || ch == '\n')
			return 1;
		if (ch == ' ' && i + 1 < s.n &&
		    (s.p[i + 1] == ' ' || (s.p[i + 1] == '-' && i + 2 < s.n && s.p[i + 2] == '-')))
			return 1;
	}
	return 0;
}

/* Cut " --boundary" at the end unless the text also holds "-- " (a signature
 * or a dashed rule). */
static size_t cut_boundary(const char *p, size_t n)
{
	const char *q = sd_memmem(p, n, " --", 3);

	if (!q || sd_memmem(p, n, "-- ", 3))
		return n;
	return (size_t)(q - p);
}

sd_str dsn_sweep(sd_arena *a, sd_str s)
{
	char *d;
	size_t k = 0;
	int sp = 0;

	s = sd_trim(s);
	if (!s.p || !s.n)
		return (sd_str){ "", 0 };
	if (!needs_sweep(s))
		return s;
	d = sd_arena_alloc(a, s.n + 1);
	if (!d)
		return s;
	for (size_t i = 0; i < s.n; i++) {
		char ch = s.p[i];
		if (ch == '\t')
			continue;
		if (ch == ' ' || ch == '\r' || ch == '\n') {
			sp = 1;
			continue;
		}
		if (sp && k)
			d[k++] = ' ';
		sp = 0;
		d[k++] = ch;
	}
	k = cut_boundary(d, k);
	d[k] = 0;
	return (sd_str){ d, k };
}

sd_str dsn_join(sd_arena *a, sd_str x, sd_str y)
{
	char *d;

	if (!x.n)
		return y;
	if (!y.n)
		return x;
	d = sd_arena_alloc(a, x.n + y.n + 2);
	if (!d)
		return x;
	memcpy(d, x.p, x.n);
	d[x.n] = ' ';
	memcpy(d + x.n + 1, y.p, y.n);
	d[x.n + y.n + 1] = 0;
	return (sd_str){ d, x.n + y.n + 1 };
}

sd_str dsn_code_str(sd_arena *a, int code)
{
	char *d = sd_arena_alloc(a, 4);

	if (!d || code < 100 || code > 999)
		return SD_NULLSTR;
	d[0] = (char)('0' + code / 100);
	d[1] = (char)('0' + code / 10 % 10);
	d[2] = (char)('0' + code % 10);
	d[3] = 0;
	return (sd_str){ d, 3 };
}

/* ---- parts ---- */

long dsn_find_part(const sd_ctx *c)
{
	for (size_t i = 0; i < c->mime.nparts; i++) {
		const char *t = c->mime.parts[i].ctype;
		if ((!strcmp(t, "message/delivery-status") || !strcmp(t, "message/global-delivery-status")) &&
		    !sd_ctx_in_returned(c, i))
			return (long)i;
	}
	return -1;
}

static int lead_line_ok(sd_str l)
{
	static const char *const skip[] = { "Content-", "This is a MIME", "This is a multi",
					    "This is an auto", "This multi-part", "###", "***", "--" };

	if (!l.n || blank_line(l))
		return 0;
	for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++) {
		size_t k = strlen(skip[i]);
		if (l.p[0] == skip[i][0] && l.n >= k && !memcmp(l.p, skip[i], k))
			return 0;
	}
	if (!memchr(l.p, '-', l.n)) /* both texts below hold one */
		return 1;
	return !sd_memmem(l.p, l.n, "--- The follow", 14) && !sd_memmem(l.p, l.n, "--- Transcript", 14);
}

static void lead_add(sd_buf *b, sd_str t, size_t max)
{
	size_t pos = 0;
	sd_str l;

	if (!t.p)
		return;
	while (b->len < max && sd_next_line(t, &pos, &l)) {
		if (!lead_line_ok(l))
			continue;
		if (b->len)
			sd_buf_putc(b, ' ');
		sd_buf_put(b, l.p, l.n);
	}
}

static sd_str lead_finish(sd_arena *a, sd_buf *b)
{
	sd_str s = SD_NULLSTR;
	char *d;

	if (!b->oom && b->len && (d = sd_arena_strndup(a, b->data, b->len)) != NULL)
		s = dsn_sweep(a, (sd_str){ d, b->len });
	sd_buf_free(b);
	return s;
}

sd_str dsn_lead_parts(sd_ctx *c, size_t ds, size_t max)
{
	sd_buf b;

	sd_buf_init(&b);
	for (size_t i = 0; i < ds && i < c->mime.nparts; i++) {
		const sd_part *p = &c->mime.parts[i];
		if (strcmp(p->ctype, "text/plain") != 0 || sd_ctx_in_returned(c, i))
			continue;
		lead_add(&b, sd_ctx_part_text(c, i), max);
	}
	return lead_finish(c->a, &b);
}

sd_str dsn_lead_text(sd_arena *a, sd_str t, size_t max)
{
	sd_buf b;

	sd_buf_init(&b);
	lead_add(&b, t, max);
	return lead_finish(a, &b);
}

static int starts_with(sd_str l, const char *lit)
{
	size_t k = strlen(lit);
	return l.n >= k && !memcmp(l.p, lit, k);
}

/* Where the returned message starts after off: "Return-Path:" after a blank
 * line or a message/rfc822 or headers part line; t.n when none. */
static size_t returned_start(sd_str t, size_t off)
{
	size_t pos = off, at;
	sd_str l;
	int prev_blank = 0;

	while ((at = pos, sd_next_line(t, &pos, &l))) {
		if ((prev_blank && starts_with(l, "Return-Path:")) ||
		    starts_with(l, "Content-Type: message/rfc822") ||
		    starts_with(l, "Content-Type: text/rfc822-headers"))
			return at;
		prev_blank = blank_line(l);
	}
	return t.n;
}

int dsn_inline_report(sd_str t, size_t *off, size_t *end)
{
	size_t pos = 0, at;
	sd_str l;
	int prev_blank = 1;

	if (!t.p || !t.n)
		return 0;
	while ((at = pos, sd_next_line(t, &pos, &l))) {
		if (starts_with(l, "Content-Type: message/delivery-status")) {
			*off = pos;
			*end = returned_start(t, pos);
			return 1;
		}
		if (prev_blank && starts_with(l, "Reporting-MTA:")) {
			*off = at;
			*end = returned_start(t, pos);
			return 1;
		}
		prev_blank = blank_line(l);
	}
	return 0;
}

sd_rcpt *dsn_rcpt_find(sd_ctx *c, size_t first, sd_str addr)
{
	for (size_t i = first; i < c->nrcpt; i++) {
		sd_str r = c->rcpts[i].recipient;
		if (r.n == addr.n && sd_memcaseeq(r.p, addr.p, addr.n))
			return &c->rcpts[i];
	}
	return NULL;
}

sd_str dsn_buf_text(sd_arena *a, const sd_buf *b)
{
	char *d;

	if (!b->len || b->oom || !(d = sd_arena_strndup(a, b->data, b->len)))
		return SD_NULLSTR;
	return dsn_sweep(a, (sd_str){ d, b->len });
}
