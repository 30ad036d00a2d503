/* util.c - buffers, arena, slices and ASCII helpers. */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>

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

void sd_buf_printf(sd_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0 || sd_buf_reserve(b, (size_t)n) < 0)
		return;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

const char *sd_buf_cstr(sd_buf *b)
{
	if (!b->data && sd_buf_reserve(b, 0) == 0)
		b->data[0] = '\0';
	return b->data ? b->data : "";
}

/* Length of a valid UTF-8 sequence at p (1-4), or 0 if invalid. */
static size_t utf8_seq(const unsigned char *p, size_t n)
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

void sd_buf_json_str(sd_buf *b, const char *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)p;
	size_t i = 0, run = 0, k;

	sd_buf_reserve(b, n + 2);
	sd_buf_putc(b, '"');
	while (i < n) {
		unsigned c = s[i];
		if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
			run++;
			i++;
			continue;
		}
		if (run)
			sd_buf_put(b, (const char *)s + i - run, run);
		run = 0;
		if (c >= 0x80) {
			k = utf8_seq(s + i, n - i);
			if (k) {
				sd_buf_put(b, (const char *)s + i, k);
				i += k;
			} else {
				sd_buf_put(b, "\xef\xbf\xbd", 3);
				i++;
			}
			continue;
		}
		switch (c) {
		case '"': sd_buf_put(b, "\\\"", 2); break;
		case '\\': sd_buf_put(b, "\\\\", 2); break;
		case '\n': sd_buf_put(b, "\\n", 2); break;
		case '\r': sd_buf_put(b, "\\r", 2); break;
		case '\t': sd_buf_put(b, "\\t", 2); break;
		default: {
			char e[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
			sd_buf_put(b, e, 6);
		}
		}
		i++;
	}
	if (run)
		sd_buf_put(b, (const char *)s + i - run, run);
	sd_buf_putc(b, '"');
}

void sd_buf_json_cstr(sd_buf *b, const char *s)
{
	sd_buf_json_str(b, s ? s : "", s ? strlen(s) : 0);
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
}

void *sd_arena_alloc(sd_arena *a, size_t n)
{
	sd_chunk *c = a->head;
	size_t limit = a->limit ? a->limit : SD_MAX_ARENA;
	size_t sz;

	n = (n + SD_ALIGN - 1) & ~(size_t)(SD_ALIGN - 1);
	if (n == 0)
		n = SD_ALIGN;
	if (n > limit || a->used > limit - n)
		return NULL;
	if (!c || c->size - c->used < n) {
		sz = n > SD_CHUNK_MIN ? n : SD_CHUNK_MIN;
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
	if (c->size > SD_CHUNK_MIN) {
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

int sd_memcaseeq(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (sd_tolower((unsigned char)a[i]) != sd_tolower((unsigned char)b[i]))
			return 0;
	return 1;
}

int sd_str_caseeq(sd_str s, const char *lit)
{
	size_t n = strlen(lit);
	return s.n == n && sd_memcaseeq(s.p, lit, n);
}

int sd_str_casestarts(sd_str s, const char *lit)
{
	size_t n = strlen(lit);
	return s.n >= n && sd_memcaseeq(s.p, lit, n);
}

const char *sd_memmem(const char *h, size_t hn, const char *n, size_t nn)
{
	if (nn == 0)
		return h;
	if (hn < nn)
		return NULL;
	return memmem(h, hn, n, nn);
}

const char *sd_memcasemem(const char *h, size_t hn, const char *n, size_t nn)
{
	const char *end, *p, *lo, *up;
	int c0, c1;

	if (nn == 0)
		return h;
	if (hn < nn)
		return NULL;
	c0 = sd_tolower((unsigned char)n[0]);
	c1 = c0 >= 'a' && c0 <= 'z' ? c0 - 32 : c0;
	end = h + hn - nn + 1; /* last possible start + 1 */
	p = h;
	lo = up = NULL; /* next occurrence of each case at or after p; end when none */
	while (p < end) {
		/* the nearer of the two cases of the first byte (memchr is vectorised) */
		if (!lo || (lo < p && lo != end))
			lo = memchr(p, c0, (size_t)(end - p));
		if (!lo)
			lo = end;
		if (c1 == c0)
			up = end;
		else if (!up || (up < p && up != end))
			up = memchr(p, c1, (size_t)(end - p));
		if (!up)
			up = end;
		p = lo < up ? lo : up;
		if (p == end)
			return NULL;
		if (sd_memcaseeq(p + 1, n + 1, nn - 1))
			return p;
		p++;
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
