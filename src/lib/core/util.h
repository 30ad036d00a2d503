/* util.h - buffers, arena, slices and ASCII helpers. Knows nothing of mail. */
#ifndef SD_UTIL_H
#define SD_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <string.h>

#include "core/sd_limits.h"

/* A slice: a pointer into someone else's memory and a length. Never NUL-terminated. */
typedef struct sd_str {
	const char *p;
	size_t n;
} sd_str;

#define SD_STR(lit) ((sd_str){ (lit), sizeof(lit) - 1 })
#define SD_NULLSTR ((sd_str){ NULL, 0 })

/* Growable byte buffer; data is NUL-terminated whenever len > 0 or after sd_buf_cstr().
 * On allocation failure the buffer sets oom and ignores further writes. */
typedef struct sd_buf {
	char *data;
	size_t len;
	size_t cap;
	int oom;
} sd_buf;

void sd_buf_init(sd_buf *b);
void sd_buf_free(sd_buf *b);
void sd_buf_reset(sd_buf *b);
int sd_buf_reserve(sd_buf *b, size_t extra);
void sd_buf_put(sd_buf *b, const char *p, size_t n);
void sd_buf_puts(sd_buf *b, const char *s);
void sd_buf_putc(sd_buf *b, char c);
void sd_buf_vprintf(sd_buf *b, const char *fmt, va_list ap);
void sd_buf_printf(sd_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sd_buf_put_int(sd_buf *b, long long v); /* decimal, as printf("%lld") */
/* Characters of the longest decimal long long, sign included ("-9223372036854775808"). */
#define SD_INT_CHARS 20
/* v in decimal at out, as printf("%lld") writes it (no NUL); returns its length. */
size_t sd_fmt_int(char out[SD_INT_CHARS], long long v);
/* Members of a JSON object that is already open: ,"key": then the value. The
 * key is a string literal, so its length is known at compile time. */
#define SD_JKEY(b, key) sd_buf_put((b), ",\"" key "\":", sizeof(",\"" key "\":") - 1)
#define SD_JSTR(b, key, v) sd_buf_json_member((b), ",\"" key "\":", sizeof(",\"" key "\":") - 1, (v))
#define SD_JLIST(b, key, v) (SD_JKEY(b, key), sd_buf_json_strv((b), (v)))
#define SD_JBOOL(b, key, v) (SD_JKEY(b, key), (v) ? sd_buf_put((b), "true", 4) : sd_buf_put((b), "false", 5))
const char *sd_buf_cstr(sd_buf *b);
/* Length of the valid UTF-8 sequence at p (1-4 bytes; 1 for ASCII), or 0 when
 * the bytes there are no valid UTF-8 (overlong, surrogate, truncated, > U+10FFFF). */
size_t sd_utf8_len(const unsigned char *p, size_t n);
/* JSON: a quoted, escaped string; invalid UTF-8 bytes become U+FFFD. */
void sd_buf_json_str(sd_buf *b, const char *p, size_t n);
void sd_buf_json_cstr(sd_buf *b, const char *s); /* NULL -> "" */
/* ,"key": (kn bytes, as SD_JKEY writes it) and s as a JSON string (NULL -> ""). */
void sd_buf_json_member(sd_buf *b, const char *key, size_t kn, const char *s);
/* A NULL-terminated string list as a JSON array (NULL -> []). */
void sd_buf_json_strv(sd_buf *b, const char *const *v);
/* Text for a terminal or a log: control characters (C0, DEL, C1) and bytes
 * that are no UTF-8 as \xNN, the rest as it is. */
void sd_buf_text(sd_buf *b, const char *p, size_t n);
/* One report line whose fields come from logs: fmt formatted, then written as
 * sd_buf_text() does, then a line end. */
void sd_buf_text_vline(sd_buf *b, const char *fmt, va_list ap);
void sd_buf_text_line(sd_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Arena: many small allocations, freed in one call. */
typedef struct sd_chunk sd_chunk;
typedef struct sd_arena {
	sd_chunk *head;
	size_t used; /* bytes handed out, for limits */
	size_t limit; /* 0 = SD_MAX_ARENA */
	size_t chunk; /* size of the chunks malloc'd (and of the one a reset keeps); 0 = 64 KiB */
} sd_arena;

void sd_arena_init(sd_arena *a);
void *sd_arena_alloc(sd_arena *a, size_t n); /* NULL on OOM or limit */
char *sd_arena_strndup(sd_arena *a, const char *p, size_t n); /* NUL-terminated copy */
char *sd_arena_strndup_lower(sd_arena *a, sd_str s);          /* the same, ASCII lowercased */
void sd_arena_reset(sd_arena *a); /* keeps the first chunk */
void sd_arena_free(sd_arena *a);

/* ASCII helpers (locale independent). */
static inline int sd_isdigit(int c) { return c >= '0' && c <= '9'; }
static inline int sd_isalpha(int c) { return (c | 32) >= 'a' && (c | 32) <= 'z'; }
static inline int sd_isalnum(int c) { return sd_isdigit(c) || sd_isalpha(c); }
static inline int sd_isspace(int c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }
static inline int sd_tolower(int c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }

/* Bytes equal ignoring ASCII case (equal bytes need no folding: most are). */
static inline int sd_caseeq(unsigned char x, unsigned char y)
{
	return x == y || sd_tolower(x) == sd_tolower(y);
}

/* Inline: it is called for short compares all over the decoder. */
static inline int sd_memcaseeq(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!sd_caseeq((unsigned char)a[i], (unsigned char)b[i]))
			return 0;
	return 1;
}
int sd_str_caseeq(sd_str s, const char *lit); /* whole slice equals lit, ignoring case */
int sd_str_casestarts(sd_str s, const char *lit);
const char *sd_memmem(const char *h, size_t hn, const char *n, size_t nn);
const char *sd_memcasemem(const char *h, size_t hn, const char *n, size_t nn);
/* Whether the wn bytes of w stand in the hn bytes of h as a word of their own:
 * no ASCII letter or digit just before or after ("helo", not "hello";
 * "loop", not "loopback"). nocase: ASCII case is folded. */
int sd_has_word(const char *h, size_t hn, const char *w, size_t wn, int nocase);
sd_str sd_trim(sd_str s);
/* Parse an unsigned decimal of at most maxdigits digits; returns digits consumed or 0. */
size_t sd_parse_uint(const char *p, size_t n, size_t maxdigits, unsigned long *out);
/* Copy at most cap-1 bytes and NUL-terminate; returns bytes copied. */
/* FNV-1a, 64 bits: h is SD_FNV1A_BASIS for a new hash, or an earlier
 * result to go on with more bytes. One definition for every table and key. */
#define SD_FNV1A_BASIS UINT64_C(0xcbf29ce484222325)
#define SD_FNV1A_PRIME UINT64_C(0x100000001b3)
static inline uint64_t sd_fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * SD_FNV1A_PRIME;
	return h;
}
size_t sd_strlcpy(char *dst, const char *src, size_t n, size_t cap);

#endif
