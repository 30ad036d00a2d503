/* test_mime.c - MIME reader, transfer decoders, RFC 2047 and charsets (cmocka). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mime/mime.h"
#include "mime/charset.h"
#include "smtpdiag.h"

#define B64_DIGEST 0xbdb75e6385e504d4ull

/* ---- helpers ---- */

/* Rewrite the LF line ends of s as eol ("\n", "\r\n" or "\r"); malloc'd. */
static char *with_eol(const char *s, const char *eol, size_t *n)
{
	size_t el = strlen(eol), k = 0;
	char *out = malloc(strlen(s) * 2 + 1);

	for (; *s; s++) {
		if (*s == '\n') {
			memcpy(out + k, eol, el);
			k += el;
		} else {
			out[k++] = *s;
		}
	}
	out[k] = '\0';
	*n = k;
	return out;
}

/* "type type ..." of all parts, in order. */
static void types_of(const sd_mime *m, char *buf, size_t cap)
{
	size_t k = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < m->nparts; i++)
		k += (size_t)snprintf(buf + k, cap - k, "%s%s", i ? " " : "", m->parts[i].ctype);
}

static int str_eq(sd_str s, const char *lit)
{
	return s.n == strlen(lit) && memcmp(s.p, lit, s.n) == 0;
}

/* ---- message structure, each case in LF, CRLF and CR ---- */

struct parse_case {
	const char *name;
	const char *in;        /* LF line ends; also run as CRLF and CR */
	const char *types;     /* ctypes of all parts, in order */
	int truncated;
	int part;              /* part whose text is checked, -1 for none */
	const char *text;      /* first line of sd_part_text(part) */
	const char *subject;   /* sd_header_text(Subject) of part `part` ("" if absent) */
};

#define DSN_HEAD "From: MAILER-DAEMON\nSubject: Undelivered\nMIME-Version: 1.0\n"

static const struct parse_case parse_cases[] = {
	{ "plain", "Subject: hi\nContent-Type: text/plain\n\nHello\nworld\n",
	  "text/plain", 0, 0, "Hello", "hi" },
	{ "no content-type", "Subject: hi\n\nbody\n", "text/plain", 0, 0, "body", "hi" },
	{ "headers only", "Subject: only\nFrom: a@b\n", "text/plain", 0, 0, "", "only" },
	{ "no blank line", "Subject: x\nThis is the body, no blank line\n",
	  "text/plain", 0, 0, "This is the body, no blank line", "x" },
	{ "folded header", "Subject: a\n  b\n\tc\n\nx\n", "text/plain", 0, 0, "x", "a  b\tc" },
	{ "mbox From_ line", "From MAILER-DAEMON Thu Sep 18 17:54:04 2008\nSubject: s\n\nb\n",
	  "text/plain", 0, 0, "b", "s" },
	{ "empty", "", "text/plain", 0, 0, "", "" },
	{ "dsn",
	  DSN_HEAD "Content-Type: multipart/report; report-type=delivery-status;\n"
	  "\tboundary=\"BB.1/x\"\n\npreamble\n--BB.1/x\nContent-Type: text/plain\n\n"
	  "The mail system\n--BB.1/x\nContent-Type: message/delivery-status\n\n"
	  "Reporting-MTA: dns; mx\n\nFinal-Recipient: rfc822; a@b\nStatus: 5.1.1\n"
	  "--BB.1/x\nContent-Type: message/rfc822\n\nSubject: =?UTF-8?B?w6k=?=\nTo: a@b\n\n"
	  "original\n--BB.1/x--\nepilogue\n",
	  "multipart/report text/plain message/delivery-status message/rfc822 text/plain", 0,
	  4, "original", "\xc3\xa9" },
	{ "rfc822-headers",
	  "Content-Type: multipart/report; boundary=b\n\n--b\n\nnotice\n--b\n"
	  "Content-Type: text/rfc822-headers\n\nSubject: returned\nTo: x@y\n--b--\n",
	  "multipart/report text/plain text/rfc822-headers text/plain", 0, 3, "", "returned" },
	{ "odd quoted boundary",
	  "Content-Type: multipart/mixed; boundary=\"=_a'()+,-./:=? b\"\n\n"
	  "--=_a'()+,-./:=? b\n\none\n--=_a'()+,-./:=? b\n\ntwo\n--=_a'()+,-./:=? b--\n",
	  "multipart/mixed text/plain text/plain", 0, 2, "two", "" },
	{ "boundary prefix of inner",
	  "Content-Type: multipart/mixed; boundary=abc\n\n--abc\n"
	  "Content-Type: multipart/alternative; boundary=abc-1\n\n--abc-1\n\nin1\n--abc-1\n\nin2\n"
	  "--abc-1--\n--abc\n\nout2\n--abc--\n",
	  "multipart/mixed multipart/alternative text/plain text/plain text/plain", 0, 4, "out2", "" },
	{ "missing close boundary",
	  "Content-Type: multipart/mixed; boundary=z\n\n--z\n\none\n--z\n\ntwo\ncut here",
	  "multipart/mixed text/plain text/plain", 1, 2, "two", "" },
	{ "no delimiter at all", "Content-Type: multipart/mixed; boundary=z\n\nnothing\n",
	  "multipart/mixed", 1, -1, NULL, NULL },
	{ "delimiter with padding",
	  "Content-Type: multipart/mixed; boundary=z\n\n--z  \n\none\n--z-- \n",
	  "multipart/mixed text/plain", 0, 1, "one", "" },
	{ "digest default type",
	  "Content-Type: multipart/digest; boundary=d\n\n--d\n\nSubject: in digest\n\nx\n--d--\n",
	  "multipart/digest message/rfc822 text/plain", 0, 2, "x", "in digest" },
	{ "base64 text",
	  "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n"
	  "SGVsbG8g\nd29ybGQ=\n", "text/plain", 0, 0, "Hello world", "" },
	{ "qp latin1",
	  "Content-Type: text/plain; charset=\"ISO-8859-1\"\nContent-Transfer-Encoding: "
	  "Quoted-Printable\n\ncaf=E9 so=\nft\n", "text/plain", 0, 0, "caf\xc3\xa9 soft", "" },
	{ "iso-2022-jp body",
	  "Content-Type: text/plain; charset=iso-2022-jp\n\n\x1b$B%F%9%H\x1b(B\n",
	  "text/plain", 0, 0, "\xe3\x83\x86\xe3\x82\xb9\xe3\x83\x88", "" },
	{ "nested message base64",
	  "Content-Type: message/rfc822\nContent-Transfer-Encoding: base64\n\n"
	  "U3ViamVjdDogaW5uZXIKCmJvZHkK\n", /* "Subject: inner\n\nbody\n" */
	  "message/rfc822 text/plain", 0, 1, "body", "inner" },
	{ "uppercase type, params spaced",
	  "Content-Type: Multipart/Mixed ; boundary = \"q\" ; charset=x\n\n--q\n"
	  "Content-type: TEXT/HTML\n\n<p>\n--q--\n", "multipart/mixed text/html", 0, 1, "<p>", "" },
};

static void check_case(const struct parse_case *c, const char *eol)
{
	sd_arena a;
	sd_mime m;
	char err[128], types[512];
	size_t n;
	char *in = with_eol(c->in, eol, &n);
	int r;

	sd_arena_init(&a);
	r = sd_mime_parse(&a, in, n, &m, err, sizeof(err));
	if (r != 0)
		fail_msg("%s: rc %d (%s)", c->name, r, err);
	types_of(&m, types, sizeof(types));
	if (strcmp(types, c->types) != 0)
		fail_msg("%s [%zu-byte eol]: types '%s', want '%s'", c->name, strlen(eol), types, c->types);
	assert_int_equal(m.truncated, c->truncated);
	assert_int_equal(m.parts[0].is_message, 1);
	assert_int_equal(m.parts[0].parent, -1);
	if (c->part >= 0) {
		sd_str t = sd_part_text(&a, &m.parts[c->part]);
		size_t pos = 0;
		sd_str line = { "", 0 };
		sd_next_line(t, &pos, &line);
		if (!str_eq(line, c->text))
			fail_msg("%s [%zu-byte eol]: text '%.*s', want '%s'", c->name, strlen(eol),
			         (int)line.n, line.p, c->text);
		const char *subj = sd_header_text(&a, sd_part_header(&m.parts[c->part], "subject"));
		if (strcmp(subj, c->subject) != 0)
			fail_msg("%s: subject '%s', want '%s'", c->name, subj, c->subject);
	}
	sd_arena_free(&a);
	free(in);
}

static void test_parse_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
		check_case(&parse_cases[i], "\n");
		check_case(&parse_cases[i], "\r\n");
		check_case(&parse_cases[i], "\r");
	}
}

static void test_tree_links(void **state)
{
	const struct parse_case *c = &parse_cases[7]; /* dsn */
	sd_arena a;
	sd_mime m;
	sd_header *f;
	size_t nf;

	(void)state;
	sd_arena_init(&a);
	assert_int_equal(sd_mime_parse(&a, c->in, strlen(c->in), &m, NULL, 0), 0);
	assert_int_equal(m.nparts, 5);
	assert_int_equal(m.parts[1].parent, 0);
	assert_int_equal(m.parts[3].depth, 1);
	assert_int_equal(m.parts[4].parent, 3);
	assert_int_equal(m.parts[4].depth, 2);
	assert_int_equal(m.parts[4].is_message, 1);
	assert_int_equal(m.parts[3].is_message, 0);
	assert_true(str_eq(m.parts[0].boundary, "BB.1/x"));
	assert_true(str_eq(m.parts[2].body, "Reporting-MTA: dns; mx\n\nFinal-Recipient: rfc822; a@b\nStatus: 5.1.1"));
	assert_true(str_eq(m.parts[1].head, "Content-Type: text/plain\n"));
	/* zero-copy: slices point into the input */
	assert_true(m.parts[2].body.p > c->in && m.parts[2].body.p < c->in + strlen(c->in));
	assert_int_equal(sd_parse_fields(&a, m.parts[2].body, &f, &nf), 0);
	assert_int_equal(nf, 3);
	assert_true(str_eq(f[1].name, "Final-Recipient"));
	assert_true(str_eq(f[2].value, "5.1.1"));
	sd_arena_free(&a);
}

/* ---- limits ---- */

static char *nested_multiparts(int depth, size_t *n)
{
	sd_buf b;

	sd_buf_init(&b);
	for (int i = 0; i < depth; i++)
		sd_buf_printf(&b, "Content-Type: multipart/mixed; boundary=b%d\n\n--b%d\n", i, i);
	sd_buf_puts(&b, "\nleaf\n");
	*n = b.len;
	return b.data;
}

static char *many_parts(int nparts, size_t *n)
{
	sd_buf b;

	sd_buf_init(&b);
	sd_buf_puts(&b, "Content-Type: multipart/mixed; boundary=p\n\n");
	for (int i = 0; i < nparts; i++)
		sd_buf_printf(&b, "--p\n\npart %d\n", i);
	sd_buf_puts(&b, "--p--\n");
	*n = b.len;
	return b.data;
}

static char *many_fields(int nfields, size_t fieldlen, size_t *n)
{
	sd_buf b;

	sd_buf_init(&b);
	for (int i = 0; i < nfields; i++) {
		sd_buf_printf(&b, "X-F%d: ", i);
		for (size_t k = 0; k < fieldlen; k++)
			sd_buf_putc(&b, 'v');
		sd_buf_putc(&b, '\n');
	}
	sd_buf_puts(&b, "\nbody\n");
	*n = b.len;
	return b.data;
}

struct limit_case {
	const char *name;
	int kind, count;
	size_t len;
	int rc;
	const char *err; /* substring of the error message */
};

static const struct limit_case limit_cases[] = {
	{ "depth at limit", 0, SD_MAX_MIME_DEPTH, 0, 0, "" },
	{ "depth over limit", 0, SD_MAX_MIME_DEPTH + 1, 0, SMTPDIAG_ELIMIT, "nesting" },
	{ "parts at limit", 1, SD_MAX_MIME_PARTS - 1, 0, 0, "" },
	{ "parts over limit", 1, SD_MAX_MIME_PARTS, 0, SMTPDIAG_ELIMIT, "MIME parts" },
	{ "fields at limit", 2, SD_MAX_HEADER_FIELDS, 4, 0, "" },
	{ "fields over limit", 2, SD_MAX_HEADER_FIELDS + 1, 4, SMTPDIAG_ELIMIT, "header fields" },
	{ "header bytes over", 2, 2, SD_MAX_HEADER_BYTES, SMTPDIAG_ELIMIT, "header block" },
	{ "long boundary", 3, 0, SD_MAX_BOUNDARY + 1, SMTPDIAG_ELIMIT, "boundary" },
};

static char *long_boundary(size_t len, size_t *n)
{
	sd_buf b;

	sd_buf_init(&b);
	sd_buf_puts(&b, "Content-Type: multipart/mixed; boundary=");
	for (size_t i = 0; i < len; i++)
		sd_buf_putc(&b, 'x');
	sd_buf_puts(&b, "\n\nbody\n");
	*n = b.len;
	return b.data;
}

static void test_limits(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(limit_cases) / sizeof(limit_cases[0]); i++) {
		const struct limit_case *c = &limit_cases[i];
		sd_arena a;
		sd_mime m;
		char err[128];
		size_t n;
		char *in = c->kind == 0 ? nested_multiparts(c->count, &n) :
		           c->kind == 1 ? many_parts(c->count, &n) :
		           c->kind == 2 ? many_fields(c->count, c->len, &n) : long_boundary(c->len, &n);
		int r;

		sd_arena_init(&a);
		r = sd_mime_parse(&a, in, n, &m, err, sizeof(err));
		if (r != c->rc || !strstr(err, c->err))
			fail_msg("%s: rc %d err '%s', want %d '%s'", c->name, r, err, c->rc, c->err);
		sd_arena_free(&a);
		free(in);
	}
}

/* A large base64 attachment is not decoded by parsing (lazy), and its text is capped. */
static void test_big_attachment(void **state)
{
	const size_t big = 20u << 20;
	sd_buf b;
	sd_arena a;
	sd_mime m;
	sd_str t;

	(void)state;
	sd_buf_init(&b);
	sd_buf_puts(&b, "Content-Type: multipart/mixed; boundary=q\n\n--q\n\ntext\n--q\n"
	                "Content-Type: application/octet-stream\nContent-Transfer-Encoding: base64\n\n");
	sd_buf_reserve(&b, big + 64);
	for (size_t i = 0; i < big / 77; i++)
		sd_buf_put(&b, "QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFB\n", 77);
	sd_buf_puts(&b, "--q--\n");
	sd_arena_init(&a);
	assert_int_equal(sd_mime_parse(&a, b.data, b.len, &m, NULL, 0), 0);
	assert_int_equal(m.nparts, 3);
	assert_true(a.used < (1u << 20));
	t = sd_part_text(&a, &m.parts[2]);
	assert_int_equal(t.n, SD_MAX_DECODED);
	assert_int_equal(t.p[0], 'A');
	sd_arena_free(&a);
	sd_buf_free(&b);
}

static void test_bad_args(void **state)
{
	sd_arena a;
	sd_mime m;

	(void)state;
	sd_arena_init(&a);
	assert_true(sd_mime_parse(&a, NULL, 5, &m, NULL, 0) < 0);
	assert_true(sd_mime_parse(NULL, "x", 1, &m, NULL, 0) < 0);
	assert_true(sd_mime_parse(&a, "x", 1, NULL, NULL, 0) < 0);
	assert_int_equal(sd_mime_parse(&a, NULL, 0, &m, NULL, 0), 0);
	sd_arena_free(&a);
}

/* ---- lines ---- */

static void test_next_line(void **state)
{
	static const struct { const char *in; size_t n; const char *lines[6]; } cases[] = {
		{ "a\r\nb\rc\nd", 8, { "a", "b", "c", "d" } },
		{ "\n\n", 2, { "", "" } },
		{ "x\r", 2, { "x" } },
		{ "", 0, { NULL } },
		{ "a\0b\n", 4, { "a\0b" } },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sd_str s = { cases[i].in, cases[i].n }, line;
		size_t pos = 0, k = 0;
		while (sd_next_line(s, &pos, &line)) {
			assert_non_null(cases[i].lines[k]);
			if (k == 0 && i == 4)
				assert_int_equal(line.n, 3);
			else
				assert_true(str_eq(line, cases[i].lines[k]));
			k++;
		}
		assert_null(k < 6 ? cases[i].lines[k] : NULL);
	}
}

/* Lines of every length 0-40 with every kind of line end, read by
 * sd_next_line and sd_lines_next: each comes back whole, without its end,
 * whatever 16-byte step its end falls on. */
static void test_lines_long(void **state)
{
	static const char *const ends[] = { "\n", "\r\n", "\r" };
	char text[4096];
	size_t n = 0, want[128], nw = 0;

	(void)state;
	for (size_t len = 0; len <= 40; len++) {
		const char *e = ends[len % 3];
		want[nw++] = len;
		for (size_t i = 0; i < len; i++)
			text[n++] = (char)('a' + (len + i) % 26);
		memcpy(text + n, e, strlen(e));
		n += strlen(e);
	}
	for (int way = 0; way < 2; way++) {
		sd_str s = { text, n }, line;
		sd_lines l;
		size_t pos = 0, k = 0;
		sd_lines_init(&l, s, 0);
		while (way ? sd_lines_next(&l, &line) : sd_next_line(s, &pos, &line)) {
			assert_true(k < nw);
			assert_int_equal(line.n, want[k]);
			for (size_t i = 0; i < line.n; i++)
				assert_int_equal(line.p[i], (char)('a' + (want[k] + i) % 26));
			k++;
		}
		assert_int_equal(k, nw);
	}
}

/* A byte that is no ASCII at every place of texts of 1-40 bytes: Latin-1
 * 0xe9 comes out as U+00E9 with the ASCII around it as it was, and UTF-8
 * with a bad byte there is not valid while a good sequence there is. */
static void test_ascii_runs(void **state)
{
	char in[48], want[64];

	(void)state;
	for (size_t n = 1; n <= 40; n++)
		for (size_t at = 0; at < n; at++) {
			sd_buf b;
			for (size_t i = 0; i < n; i++)
				in[i] = (char)('a' + i % 26);
			in[at] = (char)0xe9;
			memcpy(want, in, at);
			memcpy(want + at, "\xc3\xa9", 2);
			memcpy(want + at + 2, in + at + 1, n - at - 1);
			sd_buf_init(&b);
			sd_buf_put_utf8(&b, (sd_str){ "iso-8859-1", 10 }, (sd_str){ in, n }, 1000);
			assert_int_equal(b.len, n + 1);
			assert_memory_equal(b.data, want, n + 1);
			sd_buf_free(&b);
			assert_false(sd_utf8_valid(in, n));
			assert_true(sd_utf8_valid(want, n + 1));
		}
}

/* ---- transfer decoders ---- */

struct dec_case {
	int kind; /* 0 base64, 1 qp, 2 qp header (Q) */
	const char *in, *out;
};

static const struct dec_case dec_cases[] = {
	{ 0, "SGVsbG8=", "Hello" },
	{ 0, "SGVs\r\nbG8", "Hello" },
	{ 0, "SGV sbG8*!", "Hello" },
	{ 0, "SGk=SGk=", "HiHi" },
	{ 0, "=====", "" },
	{ 0, "", "" },
	{ 0, "Q", "" },
	{ 1, "a=3Db=3db", "a=b=b" },
	{ 1, "soft=\r\nbreak", "softbreak" },
	{ 1, "soft=  \nbreak", "softbreak" },
	{ 1, "bad=ZZ end=", "bad=ZZ end" },
	{ 1, "=4", "=4" },
	{ 2, "a_b=5Fc", "a b_c" },
	{ 2, "x=\ny", "x=\ny" },
};

static void test_decoders(void **state)
{
	char out[64];
	size_t k;

	(void)state;
	for (size_t i = 0; i < sizeof(dec_cases) / sizeof(dec_cases[0]); i++) {
		const struct dec_case *c = &dec_cases[i];
		size_t n = strlen(c->in);
		k = c->kind == 0 ? sd_b64_decode(out, sizeof(out), c->in, n) :
		    sd_qp_decode(out, sizeof(out), c->in, n, c->kind == 2);
		if (k != strlen(c->out) || memcmp(out, c->out, k) != 0)
			fail_msg("case %zu '%s': got '%.*s', want '%s'", i, c->in, (int)k, out, c->out);
	}
	/* never write past outcap */
	k = sd_b64_decode(out, 4, "SGVsbG8gd29ybGQ=", 16);
	assert_int_equal(k, 4);
	assert_memory_equal(out, "Hell", 4);
	k = sd_qp_decode(out, 2, "=41=42=43", 9, 0);
	assert_int_equal(k, 2);
}

/* base64 on input of every kind (alphabet, line breaks, garbage, '=' inside,
 * spans longer than one call to the decoder) cut at every length and decoded
 * into every room up to its whole output: a digest of all answers, pinned. */
static void test_b64_pinned(void **state)
{
	static const char pick[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
				   "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
				   "\r\n \t=*-_.\x80\xff";
	static char in[3000], out[3000];
	uint64_t h = 0xcbf29ce484222325ull;
	uint32_t x = 12345;

	(void)state;
	for (size_t i = 0; i < sizeof(in); i++) {
		x = x * 1103515245u + 12345u;
		/* mostly alphabet, in long runs: garbage in one stretch of ten */
		in[i] = (i / 1100) % 2 ? pick[(x >> 16) % 64] : pick[(x >> 16) % (sizeof(pick) - 1)];
	}
	for (size_t n = 0; n <= sizeof(in); n += n < 64 ? 1 : 97) {
		size_t whole = sd_b64_decode(out, sizeof(out), in, n);

		for (size_t cap = 0; cap <= whole; cap += cap < 16 || whole - cap < 16 ? 1 : 61) {
			size_t k = sd_b64_decode(out, cap, in, n);

			assert_true(k <= cap);
			for (size_t j = 0; j < k; j++)
				h = (h ^ (unsigned char)out[j]) * 0x100000001b3ull;
			h = (h ^ k) * 0x100000001b3ull;
		}
	}
	if (getenv("SMTPDIAG_TEST_PRINT"))
		printf("digest %016llx\n", (unsigned long long)h);
	else
		assert_int_equal(h, B64_DIGEST);
}

/* ---- RFC 2047 and charsets ---- */

static const struct { const char *raw, *text; } hdr_cases[] = {
	{ "=?UTF-8?B?w6k=?=", "\xc3\xa9" },
	{ "  plain  ", "plain" },
	{ "=?utf-8?q?a?= =?utf-8?q?b?=", "ab" },
	{ "=?utf-8?q?a?=\r\n =?utf-8?q?b?= c", "ab c" },
	{ "x =?utf-8?q?a?= y", "x a y" },
	{ "=?utf-8?q?=E2=9C?= =?utf-8?q?=93?=", "\xe2\x9c\x93" },
	{ "=?iso-8859-1?q?caf=E9?=", "caf\xc3\xa9" },
	{ "=?ISO-2022-JP?B?GyRCJUYlOSVIGyhC?=", "\xe3\x83\x86\xe3\x82\xb9\xe3\x83\x88" },
	{ "=?ks_c_5601-1987?B?x9GxuQ==?=", "\xed\x95\x9c\xea\xb5\xad" },
	{ "=?x-unknown-cs?Q?abc?=", "abc" },
	{ "=?utf-8*en?Q?lang?=", "lang" },
	{ "=?broken", "=?broken" },
	{ "=?utf-8?X?abc?=", "=?utf-8?X?abc?=" },
	{ "a =?bad b", "a =?bad b" },
	{ "Undeliverable:\n =?UTF-8?B?44OL44Oj44O844Oz?=", "Undeliverable: \xe3\x83\x8b\xe3\x83\xa3\xe3\x83\xbc\xe3\x83\xb3" },
	{ "", "" },
};

static void test_header_text(void **state)
{
	sd_arena a;

	(void)state;
	sd_arena_init(&a);
	for (size_t i = 0; i < sizeof(hdr_cases) / sizeof(hdr_cases[0]); i++) {
		const char *r = sd_header_text(&a, (sd_str){ hdr_cases[i].raw, strlen(hdr_cases[i].raw) });
		if (strcmp(r, hdr_cases[i].text) != 0)
			fail_msg("'%s': got '%s', want '%s'", hdr_cases[i].raw, r, hdr_cases[i].text);
	}
	assert_string_equal(sd_header_text(&a, SD_NULLSTR), "");
	sd_arena_free(&a);
}

static const struct { const char *cs, *in, *out; } cs_cases[] = {
	{ "koi8-r", "\xf0\xd2\xc9\xd7\xc5\xd4", "\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82" },
	{ "gb2312", "\xd6\xd0\xce\xc4", "\xe4\xb8\xad\xe6\x96\x87" },
	{ "GBK", "\xd6\xd0\xce\xc4", "\xe4\xb8\xad\xe6\x96\x87" },
	{ "big5", "\xa4\xa4\xa4\xe5", "\xe4\xb8\xad\xe6\x96\x87" },
	{ "Shift_JIS", "\x83\x65\x83\x58\x83\x67", "\xe3\x83\x86\xe3\x82\xb9\xe3\x83\x88" },
	{ "EUC-JP", "\xa5\xc6\xa5\xb9\xa5\xc8", "\xe3\x83\x86\xe3\x82\xb9\xe3\x83\x88" },
	{ "ks_c_5601-1987", "\xc7\xd1\xb1\xb9", "\xed\x95\x9c\xea\xb5\xad" },
	{ "\"windows-1252\"", "\x80 x", "\xe2\x82\xac x" },
	{ "iso-8859-1", "caf\xe9", "caf\xc3\xa9" },
	{ "utf-8", "bad \xff byte", "bad \xef\xbf\xbd byte" },
	{ "us-ascii", "ok", "ok" },
	{ "", "caf\xc3\xa9", "caf\xc3\xa9" },
	{ "no-such-charset", "a\xc3", "a\xef\xbf\xbd" },
	{ "shift_jis", "\x83", "\xef\xbf\xbd" },
	{ "iso-2022-jp", "\xa5\xc6\xa5\xb9\xa5\xc8", "\xe3\x83\x86\xe3\x82\xb9\xe3\x83\x88" },
	{ "iso-2022-jp", "\x83\x65\x83\x58", "\xe3\x83\x86\xe3\x82\xb9" },
	{ "iso-2022-jp", "\x1b$B%F\x1b(B\xff", "\xe3\x83\x86\xef\xbf\xbd" },
	{ "unicode-1-1-utf-7", "+ZeVnLIqe-", "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e" },
};

static void test_to_utf8(void **state)
{
	sd_arena a;

	(void)state;
	sd_arena_init(&a);
	for (int round = 0; round < 2; round++) /* second round: cached descriptors */
		for (size_t i = 0; i < sizeof(cs_cases) / sizeof(cs_cases[0]); i++) {
			sd_str cs = { cs_cases[i].cs, strlen(cs_cases[i].cs) };
			sd_str r = sd_to_utf8(&a, cs, (sd_str){ cs_cases[i].in, strlen(cs_cases[i].in) });
			if (!str_eq(r, cs_cases[i].out))
				fail_msg("%s case %zu: got '%.*s'", cs_cases[i].cs, i, (int)r.n, r.p);
		}
	/* valid UTF-8 is returned as is, no copy */
	sd_str in = SD_STR("d\xc3\xa9j\xc3\xa0");
	assert_ptr_equal(sd_to_utf8(&a, SD_STR("UTF-8"), in).p, in.p);
	assert_ptr_equal(sd_to_utf8(&a, SD_NULLSTR, in).p, in.p);
	sd_arena_free(&a);
}

/* sd_parse_fields on delivery-status groups: blank lines and junk lines skipped. */
static void test_parse_fields(void **state)
{
	const char *in = "Reporting-MTA: dns; mx.example\r\n\r\nFinal-Recipient: rfc822;\r\n"
	                 " a@example.org\r\nnot a field\r\nDiagnostic-Code: smtp; 550 5.1.1\r\n";
	sd_arena a;
	sd_header *f;
	size_t n;

	(void)state;
	sd_arena_init(&a);
	assert_int_equal(sd_parse_fields(&a, (sd_str){ in, strlen(in) }, &f, &n), 0);
	assert_int_equal(n, 3);
	assert_true(str_eq(f[1].value, "rfc822;\r\n a@example.org"));
	assert_string_equal(sd_header_text(&a, f[1].value), "rfc822; a@example.org");
	assert_int_equal(sd_parse_fields(&a, SD_NULLSTR, &f, &n), 0);
	assert_int_equal(n, 0);
	sd_arena_free(&a);
}

/* Field names of 1-40 bytes are read whole, whatever 16-byte step they end
 * on; a byte that cannot be in a name (a blank, DEL, a byte >= 0x80, a
 * control) anywhere in it makes the line no field. */
static void test_field_names(void **state)
{
	static const unsigned char bad[] = { ' ', 0x7f, 0x80, 0xff, 0x01 };
	sd_arena a;

	(void)state;
	sd_arena_init(&a);
	for (size_t len = 1; len <= 40; len++)
		for (int b = -1; b < (int)sizeof(bad); b++)
			for (size_t at = 0; at < (b < 0 ? 1 : len); at++) {
				char in[128];
				size_t n = 0;
				sd_header *f;
				size_t nf;
				for (size_t i = 0; i < len; i++)
					in[n++] = (char)('A' + (len + i) % 26);
				if (b >= 0)
					in[at] = (char)bad[b];
				memcpy(in + n, ": value of the field here\r\n", 27);
				n += 27;
				assert_int_equal(sd_parse_fields(&a, (sd_str){ in, n }, &f, &nf), 0);
				if (b >= 0 && !(bad[b] == ' ' && at == len - 1 && at > 0)) { /* "Name :" is a field, " :" a fold */
					assert_int_equal(nf, 0);
					continue;
				}
				assert_int_equal(nf, 1);
				assert_int_equal(f[0].name.n, b >= 0 ? len - 1 : len);
				assert_true(str_eq(f[0].value, "value of the field here"));
			}
	sd_arena_free(&a);
}

/* Returned headers re-wrapped without indentation (seen from Office 365). */
static void test_broken_folding(void **state)
{
	const char *in = "Subject: s\nDKIM-Signature: v=1;\ns=sel;\nb=abc\nContent-Type: "
	                 "multipart/alternative; boundary=z\n\n--z\n\nx\n--z--\n";
	sd_arena a;
	sd_mime m;

	(void)state;
	sd_arena_init(&a);
	assert_int_equal(sd_mime_parse(&a, in, strlen(in), &m, NULL, 0), 0);
	assert_string_equal(m.parts[0].ctype, "multipart/alternative");
	assert_int_equal(m.parts[0].nhdrs, 3);
	assert_int_equal(m.nparts, 2);
	sd_arena_free(&a);
}

/* Optional: the shared corpus, when present (skipped otherwise). */
static void test_corpus(void **state)
{
	const char *dir = "../shared/corpus/set-of-emails/maildir/bsd/lhost-postfix-01.eml";
	FILE *fp = fopen(dir, "rb");
	char buf[1 << 16];
	size_t n;
	sd_arena a;
	sd_mime m;

	(void)state;
	if (!fp) {
		fprintf(stderr, "test_corpus: %s absent, skipped\n", dir);
		skip();
	}
	n = fread(buf, 1, sizeof(buf), fp);
	fclose(fp);
	sd_arena_init(&a);
	assert_int_equal(sd_mime_parse(&a, buf, n, &m, NULL, 0), 0);
	assert_string_equal(m.parts[2].ctype, "message/delivery-status");
	sd_arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_table),
		cmocka_unit_test(test_tree_links),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_big_attachment),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_next_line),
		cmocka_unit_test(test_lines_long),
		cmocka_unit_test(test_ascii_runs),
		cmocka_unit_test(test_decoders),
		cmocka_unit_test(test_b64_pinned),
		cmocka_unit_test(test_header_text),
		cmocka_unit_test(test_to_utf8),
		cmocka_unit_test(test_parse_fields),
		cmocka_unit_test(test_field_names),
		cmocka_unit_test(test_broken_folding),
		cmocka_unit_test(test_corpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
