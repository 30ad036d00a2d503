/* util.c - buffers, arena, slices and ASCII helpers. */
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

void sd_buf_init(sd_buf *b)
{
	b->data = NULL;
	b->len = b->cap = 0;
	b->oom = 0;
}

void sd_buf_free(sd_buf *b)
{
	free(b->data);
	sd_buf_init(b);
}

void sd_buf_reset(sd_buf *b)
{
	b->len = 0;
	b->oom = 0;
	if (b->data)
		b->data[0] = '\0';
}

int sd_buf_reserve(sd_buf *b, size_t extra)
{
	size_t need, ncap;
	char *p;

	if (b->oom)
		return -1;
	if (extra > SIZE_MAX - b->len - 1)
		goto fail;
	need = b->len + extra + 1;
	if (need <= b->cap)
		return 0;
	ncap = b->cap ? b->cap : 256;
	while (ncap < need)
		ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
	p = realloc(b->data, ncap);
	if (!p)
		goto fail;
	b->data = p;
	b->cap = ncap;
	return 0;
fail:
	b->oom = 1;
	return -1;
}

void sd_buf_put(sd_buf *b, const char *p, size_t n)
{
	if (n == 0 || sd_buf_reserve(b, n) < 0)
		return;
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void sd_buf_puts(sd_buf *b, const char *s)
{
	if (s)
		sd_buf_put(b, s, strlen(s));
}

void sd_buf_putc(sd_buf *b, char c)
{
	sd_buf_put(b, &c, 1);
}

void sd_buf_vprintf(sd_buf *b, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n <= 0 || sd_buf_reserve(b, (size_t)n) < 0)
		return;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void sd_buf_printf(sd_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sd_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

size_t sd_fmt_int(char out[SD_INT_CHARS], long long v)
{
	char d[SD_INT_CHARS];
	size_t k = sizeof(d);
	unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;

	do
		d[--k] = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (v < 0)
		d[--k] = '-';
	memcpy(out, d + k, sizeof(d) - k);
	return sizeof(d) - k;
}

void sd_buf_put_int(sd_buf *b, long long v)
{
	char d[SD_INT_CHARS];

	sd_buf_put(b, d, sd_fmt_int(d, v));
}

const char *sd_buf_cstr(sd_buf *b)
{
	if (!b->data && sd_buf_reserve(b, 0) == 0)
		b->data[0] = '\0';
	return b->data ? b->data : "";
}

size_t sd_utf8_len(const unsigned char *p, size_t n)
{
	size_t len, i;
	unsigned c = p[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if (c == 0xe0 && p[1] < 0xa0)
		return 0;
	if (c == 0xed && p[1] > 0x9f)
		return 0;
	if (c == 0xf0 && p[1] < 0x90)
		return 0;
	if (c == 0xf4 && p[1] > 0x8f)
		return 0;
	return len;
}

/* Is c written as is inside a JSON string (printable ASCII, no quote or backslash)? */
static int json_plain(unsigned c)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

/* Are the eight bytes at s all plain? A word at a time, with the classic exact
 * tests "has a byte below n" and "has a zero byte" (on the word XOR '"' and
 * XOR '\\'), plus the top bits for bytes >= 0x80. */
static int json_plain8(const unsigned char *s)
{
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	uint64_t w, q, b, bad;

	memcpy(&w, s, 8);
	q = w ^ (ones * '"');
	b = w ^ (ones * '\\');
	bad = ((w - ones * 0x20) & ~w) | ((q - ones) & ~q) | ((b - ones) & ~b) | w;
	return (bad & high) == 0;
}

/* Write the escape of an ASCII byte that is not plain; returns its length. */
static size_t json_escape(char *o, unsigned c)
{
	static const char hex[] = "0123456789abcdef";

	o[0] = '\\';
	switch (c) {
	case '"': o[1] = '"'; return 2;
	case '\\': o[1] = '\\'; return 2;
	case '\n': o[1] = 'n'; return 2;
	case '\r': o[1] = 'r'; return 2;
	case '\t': o[1] = 't'; return 2;
	default:
		memcpy(o + 1, "u00", 3);
		o[4] = hex[c >> 4];
		o[5] = hex[c & 15];
		return 6;
	}
}

/* Write the byte at s[i] that is not plain (its escape, its UTF-8 sequence, or
 * U+FFFD for a byte that is no UTF-8) at *o; returns the input bytes used. */
static size_t json_special(char **o, const unsigned char *s, size_t i, size_t n)
{
	size_t k;

	if (s[i] < 0x80) {
		*o += json_escape(*o, s[i]);
		return 1;
	}
	if ((k = sd_utf8_len(s + i, n - i)) != 0) {
		memcpy(*o, s + i, k);
		*o += k;
		return k;
	}
	memcpy(*o, "\xef\xbf\xbd", 3); /* U+FFFD */
	*o += 3;
	return 1;
}

/* The quoted, escaped string at o, which has room for 6 * n + 2 bytes and a
 * NUL; returns the end of what was written. Runs of plain bytes are copied
 * with memcpy; with SSE2, sixteen bytes are tested and stored at once (the
 * room for six bytes of each left to read holds the store), and the output
 * goes on from the first byte not plain. */
static char *json_quote(char *o, const unsigned char *s, size_t n)
{
	size_t i = 0, run;

	if (!n) { /* most members of a record are empty */
		memcpy(o, "\"\"", 3);
		return o + 2;
	}
	*o++ = '"';
#if defined(__SSE2__)
	{
		const __m128i sp = _mm_set1_epi8(0x20), q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\');
		while (n - i >= 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
			/* below 0x20 as signed bytes: the C0 controls and every byte >= 0x80 */
			unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(
				_mm_cmplt_epi8(v, sp), _mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs))));
			_mm_storeu_si128((__m128i *)(void *)o, v);
			if (!m) {
				o += 16;
				i += 16;
				continue;
			}
			o += __builtin_ctz(m);
			i += (size_t)__builtin_ctz(m);
			i += json_special(&o, s, i, n);
		}
	}
#endif
	while (i < n) {
		for (run = i; n - run >= 8 && json_plain8(s + run); run += 8)
			;
		for (; run < n && json_plain(s[run]); run++)
			;
		memcpy(o, s + i, run - i);
		o += run - i;
		if ((i = run) == n)
			break;
		i += json_special(&o, s, i, n);
	}
	*o++ = '"';
	*o = '\0';
	return o;
}

/* Room is reserved once for the worst case (6 output bytes per input byte). */
void sd_buf_json_str(sd_buf *b, const char *p, size_t n)
{
	if (n > (SIZE_MAX - 2) / 6 || sd_buf_reserve(b, n * 6 + 2) < 0) {
		b->oom = 1;
		return;
	}
	b->len = (size_t)(json_quote(b->data + b->len, (const unsigned char *)p, n) - b->data);
}

/* The key and its string with one reservation: a record writes thirty of them. */
void sd_buf_json_member(sd_buf *b, const char *key, size_t kn, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n > (SIZE_MAX - 2 - kn) / 6 || sd_buf_reserve(b, kn + n * 6 + 2) < 0) {
		b->oom = 1;
		return;
	}
	memcpy(b->data + b->len, key, kn);
	b->len = (size_t)(json_quote(b->data + b->len + kn, (const unsigned char *)(s ? s : ""), n) - b->data);
}

void sd_buf_json_strv(sd_buf *b, const char *const *v)
{
	sd_buf_putc(b, '[');
	for (int i = 0; v && v[i]; i++) {
		if (i)
			sd_buf_putc(b, ',');
		sd_buf_json_cstr(b, v[i]);
	}
	sd_buf_putc(b, ']');
}

void sd_buf_json_cstr(sd_buf *b, const char *s)
{
	sd_buf_json_str(b, s ? s : "", s ? strlen(s) : 0);
}

/* Bytes to show as \xNN in text: C0 controls and DEL; a UTF-8 C1 control
 * (U+0080-U+009F, 0xc2 0x80-0x9f) and bytes that are no UTF-8 are taken
 * apart by the caller. */
static int text_plain(unsigned c)
{
	return c >= 0x20 && c != 0x7f;
}

void sd_buf_text(sd_buf *b, const char *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)p;
	size_t i = 0, run, k;

	while (i < n) {
		for (run = i; run < n && s[run] < 0x80 && text_plain(s[run]); run++)
			;
		sd_buf_put(b, p + i, run - i);
		if ((i = run) == n)
			break;
		k = s[i] < 0x80 ? 0 : sd_utf8_len(s + i, n - i);
		if (k && !(s[i] == 0xc2 && s[i + 1] < 0xa0)) {
			sd_buf_put(b, p + i, k);
			i += k;
			continue;
		}
		for (size_t e = i + (k ? k : 1); i < e; i++) {
			char x[4] = { '\\', 'x', hex[s[i] >> 4], hex[s[i] & 15] };
			sd_buf_put(b, x, 4);
		}
	}
}

void sd_buf_text_vline(sd_buf *b, const char *fmt, va_list ap)
{
	sd_buf t;

	sd_buf_init(&t);
	sd_buf_vprintf(&t, fmt, ap);
	if (t.oom)
		b->oom = 1;
	else if (t.len)
		sd_buf_text(b, t.data, t.len);
	sd_buf_putc(b, '\n');
	sd_buf_free(&t);
}

void sd_buf_text_line(sd_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sd_buf_text_vline(b, fmt, ap);
	va_end(ap);
}

/* ---- arena ---- */

struct sd_chunk {
	sd_chunk *next;
	size_t size, used;
	max_align_t data[];
};

#define SD_CHUNK_MIN (64u << 10)
#define SD_ALIGN _Alignof(max_align_t)

void sd_arena_init(sd_arena *a)
{
	a->head = NULL;
	a->used = 0;
	a->limit = 0;
	a->chunk = 0;
}

void *sd_arena_alloc(sd_arena *a, size_t n)
{
	sd_chunk *c = a->head;
	size_t limit = a->limit ? a->limit : SD_MAX_ARENA;
	size_t min = a->chunk ? a->chunk : SD_CHUNK_MIN;
	size_t sz;

	n = (n + SD_ALIGN - 1) & ~(size_t)(SD_ALIGN - 1);
	if (n == 0)
		n = SD_ALIGN;
	if (n > limit || a->used > limit - n)
		return NULL;
	if (!c || c->size - c->used < n) {
		sz = n > min ? n : min;
		c = malloc(sizeof(*c) + sz);
		if (!c)
			return NULL;
		c->size = sz;
		c->used = 0;
		c->next = a->head;
		a->head = c;
	}
	void *p = (char *)c->data + c->used;
	c->used += n;
	a->used += n;
	return p;
}

char *sd_arena_strndup(sd_arena *a, const char *p, size_t n)
{
	char *s = sd_arena_alloc(a, n + 1);
	if (!s)
		return NULL;
	if (n)
		memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

/* d = s with ASCII capitals lowered; with SSE2 sixteen bytes a step (a capital
 * is above '@' and below '[' as a signed byte, so bytes >= 0x80 stay). */
static void lower_copy(char *d, const char *s, size_t n)
{
	size_t i = 0;

#if defined(__SSE2__)
	const __m128i at = _mm_set1_epi8('A' - 1), br = _mm_set1_epi8('Z' + 1), bit = _mm_set1_epi8(0x20);
	for (; n - i >= 16; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		__m128i up = _mm_and_si128(_mm_cmpgt_epi8(v, at), _mm_cmplt_epi8(v, br));
		_mm_storeu_si128((__m128i *)(void *)(d + i), _mm_or_si128(v, _mm_and_si128(up, bit)));
	}
#endif
	for (; i < n; i++)
		d[i] = (char)sd_tolower((unsigned char)s[i]);
}

char *sd_arena_strndup_lower(sd_arena *a, sd_str s)
{
	char *d = sd_arena_alloc(a, s.n + 1);

	if (!d)
		return NULL;
	lower_copy(d, s.p, s.n);
	d[s.n] = '\0';
	return d;
}

void sd_arena_reset(sd_arena *a)
{
	sd_chunk *c = a->head, *next;

	if (!c)
		return;
	/* keep the oldest chunk (the last in the list) if it is a standard one */
	while (c->next) {
		next = c->next;
		free(c);
		c = next;
	}
	if (c->size > (a->chunk ? a->chunk : SD_CHUNK_MIN)) {
		free(c);
		a->head = NULL;
	} else {
		c->used = 0;
		a->head = c;
	}
	a->used = 0;
}

void sd_arena_free(sd_arena *a)
{
	sd_chunk *c = a->head, *next;

	while (c) {
		next = c->next;
		free(c);
		c = next;
	}
	sd_arena_init(a);
}

/* ---- ASCII ---- */

/* Both walk lit to its NUL (no strlen first): most calls differ at once. */
int sd_str_caseeq(sd_str s, const char *lit)
{
	size_t i;

	for (i = 0; i < s.n; i++)
		if (!lit[i] || !sd_caseeq((unsigned char)s.p[i], (unsigned char)lit[i]))
			return 0;
	return lit[i] == '\0';
}

int sd_str_casestarts(sd_str s, const char *lit)
{
	for (size_t i = 0; lit[i]; i++)
		if (i >= s.n || !sd_caseeq((unsigned char)s.p[i], (unsigned char)lit[i]))
			return 0;
	return 1;
}

/* How common an ASCII byte is in mail text, roughly: 3 (blank, frequent
 * letters), 2 (other lowercase letters, '-', '.'), 1 (digits, capitals, some
 * punctuation, line ends), 0 (the rest; bytes >= 0x80 too). A substring search
 * looks for the needle's rarest byte with memchr (vectorised) and compares the
 * whole needle only where that byte occurs. */
static const unsigned char byte_rank[128] = {
	/* 0x00 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0,
	/* 0x10 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 0x20 */ 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 2, 1,
	/* 0x30 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0,
	/* 0x40 */ 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	/* 0x50 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1,
	/* 0x60 */ 0, 3, 2, 2, 2, 3, 2, 2, 3, 3, 2, 2, 3, 2, 3, 3,
	/* 0x70 */ 2, 2, 3, 3, 3, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0,
};

#define SD_RARE_SCAN 32   /* needle bytes looked at to choose the one searched for */
#define SD_RARE_HAY  256  /* shorter haystacks: the needle's first byte will do */

/* Offset in the needle of its rarest byte (the first of the rarest among its
 * first SD_RARE_SCAN bytes); 0 for a short haystack hn. nocase ranks letters by
 * their lowercase form. */
static size_t rare_byte(const char *n, size_t nn, size_t hn, int nocase)
{
	size_t best = 0, lim = nn < SD_RARE_SCAN ? nn : SD_RARE_SCAN;
	int rb = hn < SD_RARE_HAY ? 0 : 4;

	for (size_t i = 0; i < lim && rb > 0; i++) {
		int c = (unsigned char)n[i], r;
		if (nocase)
			c = sd_tolower(c);
		r = c < 128 ? byte_rank[c] : 0;
		if (r < rb) {
			rb = r;
			best = i;
		}
	}
	return best;
}

#define SD_MEMMEM_TRIES 64 /* false candidates before handing over to memmem() */

#if defined(__SSE2__)
#ifndef SD_MEMMEM_PAIRS
#define SD_MEMMEM_PAIRS SD_RARE_HAY /* shorter haystacks: the first and last bytes */
#endif
/* The first place in h where the needle's first and last bytes both stand, and
 * then the whole needle: sixteen places a step, with no call per occurrence of
 * a byte common in the text (as memchr() has when a short haystack leaves the
 * needle's first byte to search for). hn >= nn >= 1. */
static const char *mem_pairs(const char *h, size_t hn, const char *n, size_t nn)
{
	size_t k = nn - 1, last = hn - nn, i = 0; /* last: the last place the needle can start */
	const __m128i v1 = _mm_set1_epi8(n[0]), v2 = _mm_set1_epi8(n[k]);

	while (last >= 15 && i <= last) {
		/* the last step is the window ending at the last place, without the
		 * places the step before it has tested */
		size_t at = i <= last - 15 ? i : last - 15;
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(h + at));
		__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(h + at + k));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, v1), _mm_cmpeq_epi8(b, v2)));
		for (m &= ~0u << (i - at); m; m &= m - 1) {
			const char *s = h + at + (unsigned)__builtin_ctz(m);
			if (nn < 3 || !memcmp(s + 1, n + 1, nn - 2))
				return s;
		}
		i = at + 16;
	}
	for (; i <= last; i++)
		if (h[i] == n[0] && h[i + k] == n[k] && (nn < 3 || !memcmp(h + i + 1, n + 1, nn - 2)))
			return h + i;
	return NULL;
}
#endif

const char *sd_memmem(const char *h, size_t hn, const char *n, size_t nn)
{
	const char *p, *end;
	size_t k, tries = 0;

	if (nn == 0)
		return h;
	if (hn < nn)
		return NULL;
#if defined(__SSE2__)
	if (hn < SD_MEMMEM_PAIRS)
		return mem_pairs(h, hn, n, nn);
#endif
	k = rare_byte(n, nn, hn, 0);
	end = h + hn - nn + k + 1; /* last place the rare byte can be + 1 */
	for (p = h + k; p < end && (p = memchr(p, n[k], (size_t)(end - p))) != NULL; p++) {
		const char *s = p - k; /* where the needle would start */
		if (s[0] == n[0] && !memcmp(s, n, nn))
			return s;
		if (++tries > SD_MEMMEM_TRIES) /* a common byte: glibc's linear search from here */
			return memmem(s + 1, (size_t)(h + hn - (s + 1)), n, nn);
	}
	return NULL;
}

/* Next occurrence of byte c in [p, end) when the cached one (*at) is behind p;
 * end when there is none. */
static const char *next_byte(const char *p, const char *end, int c, const char **at)
{
	if (!*at || (*at < p && *at != end)) {
		*at = memchr(p, c, (size_t)(end - p));
		if (!*at)
			*at = end;
	}
	return *at;
}

#if defined(__SSE2__)
/* The first place in h where the needle's first and last bytes both stand,
 * case folded, and then the whole needle: sixteen places a step (SSE2, which
 * every x86-64 has), so a letter common in the text costs no call per
 * occurrence as the search for one case and then the other does. A letter is
 * compared with its case bit set on both sides, any other byte as is: the test
 * of the two bytes is exact. */
static const char *casemem_pairs(const char *h, size_t hn, const char *n, size_t nn)
{
	size_t k = nn - 1, last = hn - nn, i = 0; /* last: the last place the needle can start */
	int c1 = sd_tolower((unsigned char)n[0]), c2 = sd_tolower((unsigned char)n[k]);
	const __m128i v1 = _mm_set1_epi8((char)c1), v2 = _mm_set1_epi8((char)c2);
	const __m128i f1 = _mm_set1_epi8(sd_isalpha(c1) ? 0x20 : 0), f2 = _mm_set1_epi8(sd_isalpha(c2) ? 0x20 : 0);

	while (last >= 15 && i <= last) {
		/* the last step is the window ending at the last place, without the
		 * places the step before it has tested */
		size_t at = i <= last - 15 ? i : last - 15;
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(h + at));
		__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(h + at + k));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(_mm_or_si128(a, f1), v1),
								       _mm_cmpeq_epi8(_mm_or_si128(b, f2), v2)));
		for (m &= ~0u << (i - at); m; m &= m - 1) {
			const char *s = h + at + (unsigned)__builtin_ctz(m);
			if (sd_memcaseeq(s, n, nn))
				return s;
		}
		i = at + 16;
	}
	for (; i <= last; i++)
		if (sd_caseeq((unsigned char)h[i], (unsigned char)c1) && sd_memcaseeq(h + i, n, nn))
			return h + i;
	return NULL;
}
#endif

const char *sd_memcasemem(const char *h, size_t hn, const char *n, size_t nn)
{
	const char *end, *p, *lo = NULL, *up = NULL;
	size_t k;
	int c0, c1;

	if (nn == 0)
		return h;
	if (hn < nn)
		return NULL;
#if defined(__SSE2__)
	return casemem_pairs(h, hn, n, nn);
#endif
	k = rare_byte(n, nn, hn, 1);
	c0 = sd_tolower((unsigned char)n[k]);
	c1 = c0 >= 'a' && c0 <= 'z' ? c0 - 32 : c0;
	end = h + hn - nn + k + 1; /* last place the rare byte can be + 1 */
	for (p = h + k; p < end; p++) {
		/* the nearer of the two cases of the rare byte */
		const char *a = next_byte(p, end, c0, &lo);
		const char *b = c1 == c0 ? end : next_byte(p, end, c1, &up);
		p = a < b ? a : b;
		if (p == end)
			return NULL;
		if (sd_memcaseeq(p - k, n, nn))
			return p - k;
	}
	return NULL;
}

sd_str sd_trim(sd_str s)
{
	while (s.n && sd_isspace((unsigned char)s.p[0])) {
		s.p++;
		s.n--;
	}
	while (s.n && sd_isspace((unsigned char)s.p[s.n - 1]))
		s.n--;
	return s;
}

size_t sd_parse_uint(const char *p, size_t n, size_t maxdigits, unsigned long *out)
{
	size_t i = 0;
	unsigned long v = 0;

	while (i < n && i < maxdigits && sd_isdigit((unsigned char)p[i])) {
		v = v * 10 + (unsigned long)(p[i] - '0');
		i++;
	}
	if (i && out)
		*out = v;
	return i;
}

size_t sd_strlcpy(char *dst, const char *src, size_t n, size_t cap)
{
	if (cap == 0)
		return 0;
	if (n > cap - 1)
		n = cap - 1;
	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
	return n;
}

int sd_has_word(const char *h, size_t hn, const char *w, size_t wn, int nocase)
{
	const char *p, *end;

	if (!h || !wn)
		return 0;
	p = h;
	end = h + hn;
	while ((p = nocase ? sd_memcasemem(p, (size_t)(end - p), w, wn) : sd_memmem(p, (size_t)(end - p), w, wn)) != NULL) {
		if ((p == h || !sd_isalnum((unsigned char)p[-1])) && (p + wn == end || !sd_isalnum((unsigned char)p[wn])))
			return 1;
		p++;
	}
	return 0;
}
