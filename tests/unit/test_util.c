/* test_util.c - buffers, JSON escaping, arena, ASCII helpers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "core/util.h"

typedef struct esc_case {
	const char *in;
	size_t len;
	const char *out;
} esc_case;

static void check_escapes(void (*put)(sd_buf *, const char *, size_t), const esc_case *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		sd_buf b;
		sd_buf_init(&b);
		put(&b, t[i].in, t[i].len);
		assert_string_equal(sd_buf_cstr(&b), t[i].out);
		sd_buf_free(&b);
	}
}

static void test_json_escape(void **state)
{
	static const esc_case t[] = {
		{ "plain", 5, "\"plain\"" },
		{ "a\"b\\c", 5, "\"a\\\"b\\\\c\"" },
		{ "l1\nl2\r\t", 7, "\"l1\\nl2\\r\\t\"" },
		{ "\x01\x1f", 2, "\"\\u0001\\u001f\"" },
		{ "caf\xc3\xa9", 5, "\"caf\xc3\xa9\"" },            /* valid UTF-8 kept */
		{ "bad\xff", 4, "\"bad\xef\xbf\xbd\"" },             /* invalid byte -> U+FFFD */
		{ "\xe3\x81", 2, "\"\xef\xbf\xbd\xef\xbf\xbd\"" },   /* truncated sequence */
		{ "\xed\xa0\x80", 3, "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"" }, /* surrogate */
		{ "nul\0x", 5, "\"nul\\u0000x\"" },
	};

	(void)state;
	check_escapes(sd_buf_json_str, t, sizeof(t) / sizeof(t[0]));
	/* each case after 0-40 plain bytes and before 0-20 more: its bytes fall on
	 * every place of a 16-byte step, and runs of 16 plain bytes pass whole */
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		for (size_t pre = 0; pre <= 40; pre += 1)
			for (size_t post = 0; post <= 20; post += 5) {
				char in[128], want[256];
				size_t n = 0, w = 0, wn = strlen(t[i].out);
				sd_buf b;
				for (size_t k = 0; k < pre; k++)
					in[n++] = (char)('A' + k % 26);
				memcpy(in + n, t[i].in, t[i].len);
				n += t[i].len;
				for (size_t k = 0; k < post; k++)
					in[n++] = (char)('a' + k % 26);
				want[w++] = '"';
				memcpy(want + w, in, pre);
				w += pre;
				memcpy(want + w, t[i].out + 1, wn - 2);
				w += wn - 2;
				memcpy(want + w, in + pre + t[i].len, post);
				w += post;
				want[w++] = '"';
				sd_buf_init(&b);
				sd_buf_json_str(&b, in, n);
				assert_int_equal(b.len, w);
				assert_memory_equal(b.data, want, w);
				sd_buf_free(&b);
			}
}

/* Text for terminals: no byte that can start a control sequence gets through. */
static void test_text_escape(void **state)
{
	static const esc_case t[] = {
		{ "plain \\ text", 12, "plain \\ text" },
		{ "\x1b[2J\x1b]0;owned\x07", 14, "\\x1b[2J\\x1b]0;owned\\x07" },
		{ "l1\nl2\r\t", 7, "l1\\x0al2\\x0d\\x09" },
		{ "del\x7f nul\0", 9, "del\\x7f nul\\x00" },
		{ "caf\xc3\xa9 \xe2\x82\xac", 9, "caf\xc3\xa9 \xe2\x82\xac" }, /* UTF-8 kept */
		{ "csi\xc2\x9b" "31m", 8, "csi\\xc2\\x9b" "31m" },         /* C1 CSI in UTF-8 */
		{ "\xc2\xa0nbsp", 6, "\xc2\xa0nbsp" },                          /* U+00A0 is no control */
		{ "raw\x9b" "1m\xff", 7, "raw\\x9b" "1m\\xff" },              /* no UTF-8 */
		{ "\xe3\x81", 2, "\\xe3\\x81" },                                /* truncated sequence */
	};

	(void)state;
	check_escapes(sd_buf_text, t, sizeof(t) / sizeof(t[0]));
}

static void test_buf(void **state)
{
	sd_buf b;

	(void)state;
	sd_buf_init(&b);
	assert_string_equal(sd_buf_cstr(&b), "");
	for (int i = 0; i < 10000; i++)
		sd_buf_printf(&b, "%d,", i % 10);
	assert_int_equal(b.len, 20000);
	assert_false(b.oom);
	sd_buf_reset(&b);
	assert_int_equal(b.len, 0);
	sd_buf_puts(&b, "x");
	sd_buf_putc(&b, 'y');
	assert_string_equal(sd_buf_cstr(&b), "xy");
	sd_buf_free(&b);
}

static void test_arena(void **state)
{
	sd_arena a;
	char *s;

	(void)state;
	sd_arena_init(&a);
	for (int i = 0; i < 5000; i++) {
		s = sd_arena_strndup(&a, "hello world", 5);
		assert_non_null(s);
		assert_string_equal(s, "hello");
		assert_int_equal((uintptr_t)s % _Alignof(max_align_t), 0);
	}
	assert_non_null(sd_arena_alloc(&a, 200000)); /* larger than a chunk */
	sd_arena_reset(&a);
	assert_int_equal(a.used, 0);
	a.limit = 1000;
	assert_non_null(sd_arena_alloc(&a, 500));
	assert_null(sd_arena_alloc(&a, 600)); /* over the limit: NULL, not a crash */
	sd_arena_free(&a);
}

static void test_ascii(void **state)
{
	sd_str s = sd_trim((sd_str){ "  \tHello \r\n", 11 });
	unsigned long v = 0;
	char dst[4];

	(void)state;
	assert_int_equal(s.n, 5);
	assert_true(sd_str_caseeq(s, "hello"));
	assert_true(sd_str_casestarts(s, "HEL"));
	assert_false(sd_str_caseeq(s, "hell"));
	assert_non_null(sd_memcasemem("abcDEFg", 7, "def", 3));
	assert_null(sd_memcasemem("abc", 3, "abcd", 4));
	{
		static const struct { const char *h, *n; int at; } m[] = {
			{ "xxAbCabc", "abc", 2 }, { "aaaaAAAAb", "aab", 6 }, { "ABC", "abc", 0 },
			{ "zzzz", "a", -1 }, { "Mailbox FULL", "full", 8 }, { "..1.2", ".2", 3 },
			{ "AAAAAAAAAb", "ab", 8 },
		};
		for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
			const char *r = sd_memcasemem(m[i].h, strlen(m[i].h), m[i].n, strlen(m[i].n));
			assert_int_equal(r ? (int)(r - m[i].h) : -1, m[i].at);
		}
	}
	assert_int_equal(sd_parse_uint("12345x", 6, 3, &v), 3);
	assert_int_equal(v, 123);
	assert_int_equal(sd_parse_uint("x1", 2, 3, &v), 0);
	assert_int_equal(sd_strlcpy(dst, "abcdef", 6, sizeof(dst)), 3);
	assert_string_equal(dst, "abc");
}

/* sd_fmt_int writes what printf("%lld") does, at the ends of the range too. */
static void test_fmt_int(void **state)
{
	static const long long v[] = { 0, 1, -1, 9, 10, -10, 99, 100, 1221728044, -1221728044,
				       9223372036854775807LL, -9223372036854775807LL - 1 };
	char got[SD_INT_CHARS + 1], want[32];

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		size_t n = sd_fmt_int(got, v[i]);
		got[n] = '\0';
		snprintf(want, sizeof(want), "%lld", v[i]);
		assert_string_equal(got, want);
	}
}

/* sd_arena_strndup_lower lowers the capitals and only them: every byte value,
 * at every place of strings of 0-40 bytes. */
static void test_strndup_lower(void **state)
{
	sd_arena a;
	char in[48];

	(void)state;
	sd_arena_init(&a);
	for (int c = 0; c < 256; c++)
		for (size_t n = 0; n <= 40; n++) {
			char *d;
			for (size_t i = 0; i < n; i++)
				in[i] = (char)(i % 7 == 3 ? c : 'A' + (int)((size_t)c + i) % 58);
			d = sd_arena_strndup_lower(&a, (sd_str){ in, n });
			assert_non_null(d);
			for (size_t i = 0; i < n; i++)
				assert_int_equal((unsigned char)d[i], sd_tolower((unsigned char)in[i]));
			assert_int_equal(d[n], 0);
			sd_arena_reset(&a);
		}
	sd_arena_free(&a);
}

/* The first place a needle stands, case folded, one place at a time. */
static const char *naive_casemem(const char *h, size_t hn, const char *n, size_t nn)
{
	for (size_t i = 0; i + nn <= hn; i++) {
		size_t k = 0;
		while (k < nn && sd_tolower((unsigned char)h[i + k]) == sd_tolower((unsigned char)n[k]))
			k++;
		if (k == nn)
			return h + i;
	}
	return NULL;
}

typedef const char *(*search_fn)(const char *h, size_t hn, const char *n, size_t nn);

/* The first place a needle stands, byte for byte, one place at a time. */
static const char *naive_mem(const char *h, size_t hn, const char *n, size_t nn)
{
	for (size_t i = 0; i + nn <= hn; i++)
		if (!memcmp(h + i, n, nn))
			return h + i;
	return NULL;
}

/* rounds searches of fn against the plain one: haystacks of 0 to maxh - 1 bytes
 * and needles of 1 to 20 bytes drawn from alpha, the needle planted in one
 * haystack of every three (its letters' case flipped when flip is set).
 * Returns how many held the needle. */
static size_t search_agrees(search_fn fn, search_fn naive, const char *alpha, size_t maxh, int rounds,
			    int flip)
{
	char h[320], n[24];
	size_t na = strlen(alpha), found = 0;
	unsigned seed = 1;

	for (int round = 0; round < rounds; round++) {
		size_t hn = (size_t)round % maxh, nn = 1 + (size_t)round % 20;
		for (size_t i = 0; i < hn; i++) {
			seed = seed * 1103515245u + 12345u;
			h[i] = alpha[(seed >> 16) % na];
		}
		for (size_t i = 0; i < nn; i++) {
			seed = seed * 1103515245u + 12345u;
			n[i] = alpha[(seed >> 16) % na];
		}
		if (hn >= nn && round % 3 == 0) { /* plant it somewhere */
			size_t at = (size_t)(seed >> 8) % (hn - nn + 1);
			for (size_t i = 0; i < nn; i++)
				h[at + i] = (char)(flip && sd_isalpha((unsigned char)n[i]) ? n[i] ^ 0x20 : n[i]);
		}
		assert_ptr_equal(fn(h, hn, n, nn), naive(h, hn, n, nn));
		found += naive(h, hn, n, nn) != NULL;
	}
	return found;
}

/* sd_memcasemem agrees with the plain search on every haystack length around
 * the 16-byte steps, every place of the needle, needles of 1 to 20 bytes, and
 * bytes that differ from the needle's in the case bit only without being
 * letters ('@' and '`', '[' and '{', '0' and DEL-like bytes above 0x7f). */
static void test_memcasemem_agrees(void **state)
{
	(void)state;
	assert_true(search_agrees(sd_memcasemem, naive_casemem, "aB@`[{0\x10\xc3\xe3-z", 70, 4000, 1) > 1000);
}

/* sd_memmem agrees with the plain search on haystacks of 0 to 299 bytes (the
 * short ones searched sixteen places a step by their first and last bytes,
 * the long ones by a rare byte), few letters so that near misses abound. */
/* A word of its own, not a piece of another word. */
static void test_has_word(void **state)
{
	static const struct {
		const char *h, *w;
		int nocase, want;
	} t[] = {
		{ "bad helo name", "helo", 0, 1 }, { "hello there", "helo", 0, 0 }, { "helo", "helo", 0, 1 },
		{ "x-helo.", "helo", 0, 1 }, { "helo2", "helo", 0, 0 }, { "mail loops back", "loops", 0, 1 },
		{ "loopback loop", "loop", 0, 1 }, { "loopback", "loop", 0, 0 }, { "Loop detected", "loop", 0, 0 },
		{ "Loop detected", "loop", 1, 1 }, { "sloop", "loop", 1, 0 }, { "", "loop", 1, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (sd_has_word(t[i].h, strlen(t[i].h), t[i].w, strlen(t[i].w), t[i].nocase) != t[i].want)
			fail_msg("'%s' in '%s' (nocase %d): want %d", t[i].w, t[i].h, t[i].nocase, t[i].want);
	assert_int_equal(sd_has_word(NULL, 0, "a", 1, 0), 0);
}

static void test_memmem_agrees(void **state)
{
	(void)state;
	assert_true(search_agrees(sd_memmem, naive_mem, "aab.-\xc3", 300, 6000, 0) > 1500);
	assert_ptr_equal(sd_memmem("abc", 3, "", 0), "abc");
}

/* FIPS 180 test vectors (the examples of FIPS 180-2 appendix A), fed whole and
 * in pieces that cross the 64-byte blocks unevenly. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_escape),
		cmocka_unit_test(test_text_escape),
		cmocka_unit_test(test_buf),
		cmocka_unit_test(test_arena),
		cmocka_unit_test(test_ascii),
		cmocka_unit_test(test_memcasemem_agrees),
		cmocka_unit_test(test_memmem_agrees),
		cmocka_unit_test(test_has_word),
		cmocka_unit_test(test_strndup_lower),
		cmocka_unit_test(test_fmt_int),
	};
	return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
