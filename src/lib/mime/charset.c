/* charset.c - base64, quoted-printable, RFC 2047 words and charset conversion to UTF-8.
 *
 * Everything here is lenient: garbage input never fails, it is skipped, kept as written
 * or replaced by U+FFFD. iconv descriptors are cached per thread and closed when
 * the thread ends (see charset.h).
 */
#include "mime/charset.h"
#include "mime/mime.h"

#include <errno.h>
#include <iconv.h>
#include <nettle/base64.h>
#include <pthread.h>
#include <stdlib.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define SD_CHARSET_NAME  40  /* longest charset name we look at */
#define SD_ICONV_CACHE   8   /* iconv descriptors kept per thread */
#define SD_EWORD_MAX     1024 /* longest RFC 2047 encoded word we decode (lenient: RFC says 75) */

static const char sd_repl[] = "\xef\xbf\xbd"; /* U+FFFD */

/* ---- base64 ---- */

/* nettle decodes; this keeps the leniency of mail around it. Characters outside
 * the alphabet are skipped, a '=' ends the quantum (its whole bytes kept, as
 * nettle gives them as soon as they are complete) and decoding starts afresh
 * after it, so broken and concatenated bodies decode as far as they go. */
#define SD_B64_SPAN 1024 /* characters given to nettle at a time */

static int b64_alpha(unsigned char c)
{
	return (unsigned)((c | 32) - 'a') < 26 || (unsigned)(c - '0') < 10 || c == '+' || c == '/';
}

/* Decode k alphabet characters at p into out, at most room bytes of it. */
static size_t b64_span(struct base64_decode_ctx *ctx, char *out, size_t room, const char *p, size_t k)
{
	uint8_t tmp[BASE64_DECODE_LENGTH(SD_B64_SPAN)];
	size_t done = 0;

	while (k && done < room) {
		size_t m = k < SD_B64_SPAN ? k : SD_B64_SPAN, got = 0;
		uint8_t *dst = room - done >= BASE64_DECODE_LENGTH(m) ? (uint8_t *)out + done : tmp;

		/* cannot fail: only alphabet characters, never a '=' */
		(void)base64_decode_update(ctx, &got, dst, m, p);
		if (dst == tmp) {
			if (got > room - done)
				got = room - done;
			memcpy(out + done, tmp, got);
		}
		done += got;
		p += m;
		k -= m;
	}
	return done;
}

size_t sd_b64_decode(char *out, size_t outcap, const char *in, size_t n)
{
	const unsigned char *s = (const unsigned char *)in;
	struct base64_decode_ctx ctx;
	size_t o = 0;

	base64_decode_init(&ctx);
	for (size_t i = 0; i < n && o < outcap; i++) {
		size_t j = i;

		while (j < n && b64_alpha(s[j]))
			j++;
		o += b64_span(&ctx, out + o, outcap - o, in + i, j - i);
		if (j < n && s[j] == '=')
			base64_decode_init(&ctx);
		i = j;
	}
	return o;
}

/* ---- quoted-printable ---- */

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 32;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* After a '=' at in[i]: the index past a soft line break, or 0 when there is none. */
static size_t qp_softbreak(const char *in, size_t n, size_t i)
{
	size_t j = i + 1;

	while (j < n && (in[j] == ' ' || in[j] == '\t'))
		j++;
	if (j == n)
		return n;
	if (in[j] == '\r')
		return (j + 1 < n && in[j + 1] == '\n') ? j + 2 : j + 1;
	if (in[j] == '\n')
		return j + 1;
	return 0;
}

/* Length of the run of plain bytes at in (no '=', nor '_' in header mode). */
static size_t qp_run(const char *in, size_t n, int header)
{
	const char *e = memchr(in, '=', n);
	size_t k = e ? (size_t)(e - in) : n;

	if (header) {
		const char *u = memchr(in, '_', k);
		if (u)
			k = (size_t)(u - in);
	}
	return k;
}

size_t sd_qp_decode(char *out, size_t outcap, const char *in, size_t n, int header)
{
	size_t i = 0, o = 0, k;
	int hi, lo;

	while (i < n && o < outcap) {
		if (in[i] == '_' && header) {
			out[o++] = ' ';
			i++;
		} else if (in[i] != '=') {
			k = qp_run(in + i, n - i, header);
			if (k > outcap - o)
				k = outcap - o;
			memcpy(out + o, in + i, k);
			o += k;
			i += k;
		} else if (i + 2 < n && (hi = hexval((unsigned char)in[i + 1])) >= 0 &&
		           (lo = hexval((unsigned char)in[i + 2])) >= 0) {
			out[o++] = (char)(hi << 4 | lo);
			i += 3;
		} else if (!header && (k = qp_softbreak(in, n, i)) != 0) {
			i = k;
		} else {
			out[o++] = '=';
			i++;
		}
	}
	return o;
}

/* ---- UTF-8 ---- */


/* Length of the valid UTF-8 prefix of s. */
/* The first place from s[i] that is not ASCII (a byte >= 0x80, or ESC when
 * esc), or the place from which fewer than sixteen bytes are left: sixteen
 * bytes a step with SSE2; i itself without it. */
static size_t ascii_run(const unsigned char *s, size_t i, size_t n, int esc)
{
#if defined(__SSE2__)
	const __m128i e = _mm_set1_epi8(esc ? 0x1b : 0x80);

	for (; n - i >= 16; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(v, _mm_cmpeq_epi8(v, e)));
		if (m)
			return i + (size_t)__builtin_ctz(m);
	}
#else
	(void)s;
	(void)n;
	(void)esc;
#endif
	return i;
}

static size_t utf8_prefix(const char *p, size_t n)
{
	const unsigned char *s = (const unsigned char *)p;
	size_t i = 0, k;
	uint64_t w;

	while (i < n) {
		i = ascii_run(s, i, n, 0);
		if (i == n)
			break;
		if (n - i >= 8) {
			memcpy(&w, s + i, 8);
			if (!(w & 0x8080808080808080ull)) {
				i += 8;
				continue;
			}
		}
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		k = sd_utf8_len(s + i, n - i);
		if (!k)
			return i;
		i += k;
	}
	return n;
}

int sd_utf8_valid(const char *s, size_t n)
{
	return utf8_prefix(s, n) == n;
}

/* Append s as UTF-8, each invalid byte replaced by U+FFFD. */
static void put_utf8_lenient(sd_buf *b, const char *s, size_t n)
{
	size_t k;

	while (n) {
		k = utf8_prefix(s, n);
		sd_buf_put(b, s, k);
		if (k == n)
			return;
		sd_buf_put(b, sd_repl, 3);
		s += k + 1;
		n -= k + 1;
	}
}

/* ---- charset names ---- */

struct cs_alias {
	const char *name, *iconv;
};

/* Names seen in bounces, mapped to the glibc converter that reads them best
 * (supersets as browsers do: Latin-1 is read as windows-1252, Shift_JIS as CP932...). */
static const struct cs_alias cs_aliases[] = {
	{ "utf-8", "" }, { "utf8", "" }, { "uft-8", "" }, { "us-ascii", "" }, { "ascii", "" },
	{ "ansi_x3.4-1968", "" }, { "unicode-1-1-utf-8", "" }, { "x-unknown", "" },
	{ "unknown-8bit", "" }, { "us", "" },
	{ "iso-8859-1", "CP1252" }, { "iso8859-1", "CP1252" }, { "iso_8859-1", "CP1252" },
	{ "latin1", "CP1252" }, { "l1", "CP1252" }, { "windows-1252", "CP1252" },
	{ "ks_c_5601-1987", "CP949" }, { "ks_c_5601", "CP949" }, { "ksc5601", "CP949" },
	{ "euc-kr", "CP949" }, { "x-windows-949", "CP949" }, { "cp949", "CP949" },
	{ "shift_jis", "CP932" }, { "shift-jis", "CP932" }, { "sjis", "CP932" },
	{ "x-sjis", "CP932" }, { "windows-31j", "CP932" }, { "ms_kanji", "CP932" },
	{ "cp932", "CP932" }, { "euc-jp", "EUC-JP-MS" }, { "x-euc-jp", "EUC-JP-MS" },
	{ "iso-2022-jp", "ISO-2022-JP-3" }, { "csiso2022jp", "ISO-2022-JP-3" },
	{ "gb2312", "GBK" }, { "gbk", "GBK" }, { "x-gbk", "GBK" }, { "cp936", "GBK" },
	{ "euc-cn", "GBK" }, { "big5", "BIG5" }, { "x-big5", "BIG5" },
	{ "unicode-1-1-utf-7", "UTF-7" }, { "utf-7", "UTF-7" },
};

/* Lowercase, unquote and trim a charset name into buf; drops an RFC 2231 "*lang".
 * A name that is too long or holds odd characters gives "" (read as UTF-8), so garbage
 * never reaches iconv_open(). */
static int cs_namechar(int c)
{
	return sd_isalnum(c) || c == '-' || c == '_' || c == '.' || c == ':' || c == '+';
}

static size_t cs_normalize(sd_str cs, char *buf, size_t cap)
{
	size_t i = 0, n = 0;

	cs = sd_trim(cs);
	while (i < cs.n && (cs.p[i] == '"' || cs.p[i] == '\''))
		i++;
	for (; i < cs.n; i++) {
		unsigned char c = (unsigned char)cs.p[i];
		if (c == '"' || c == '\'' || c == '*' || c == ';' || sd_isspace(c))
			break;
		if (!cs_namechar(c) || n + 1 >= cap) {
			n = 0;
			break;
		}
		buf[n++] = (char)sd_tolower(c);
	}
	buf[n] = '\0';
	return n;
}

/* The iconv name for a charset; "" means UTF-8 (no conversion). */
static const char *cs_iconv_name(const char *norm)
{
	for (size_t i = 0; i < sizeof(cs_aliases) / sizeof(cs_aliases[0]); i++)
		if (strcmp(norm, cs_aliases[i].name) == 0)
			return cs_aliases[i].iconv;
	return norm;
}

/* ---- iconv cache (per thread) ---- */

struct cs_slot {
	char name[SD_CHARSET_NAME];
	iconv_t cd; /* (iconv_t)-1: this name is unknown to iconv */
	unsigned long used;
};

static _Thread_local struct cs_slot cs_cache[SD_ICONV_CACHE];
static _Thread_local unsigned long cs_tick;
static pthread_key_t cs_key; /* its destructor closes a thread's descriptors */
static pthread_once_t cs_key_once = PTHREAD_ONCE_INIT;
static int cs_key_ok;

/* At the end of a thread that opened descriptors: c is its cs_cache. */
static void cs_thread_end(void *c)
{
	for (struct cs_slot *s = c; s < (struct cs_slot *)c + SD_ICONV_CACHE; s++) {
		if (s->used && s->cd != (iconv_t)-1)
			iconv_close(s->cd);
		s->used = 0;
	}
}

static void cs_key_init(void)
{
	cs_key_ok = pthread_key_create(&cs_key, cs_thread_end) == 0;
}

/* A library unloaded before its threads end must not leave them its destructor. */
__attribute__((destructor)) static void cs_key_drop(void)
{
	if (cs_key_ok)
		pthread_key_delete(cs_key);
	cs_key_ok = 0;
}

/* Ask for this thread's descriptors to be closed when it ends (once a thread). */
static void cs_register(void)
{
	pthread_once(&cs_key_once, cs_key_init);
	if (cs_key_ok && !pthread_getspecific(cs_key))
		pthread_setspecific(cs_key, cs_cache);
}

static iconv_t cs_open(const char *name)
{
	struct cs_slot *s, *lru = &cs_cache[0];

	for (s = cs_cache; s < cs_cache + SD_ICONV_CACHE; s++) {
		if (s->used && strcmp(s->name, name) == 0) {
			s->used = ++cs_tick;
			return s->cd;
		}
		if (s->used < lru->used)
			lru = s;
	}
	if (lru->used && lru->cd != (iconv_t)-1)
		iconv_close(lru->cd);
	cs_register();
	sd_strlcpy(lru->name, name, strlen(name), sizeof(lru->name));
	lru->cd = iconv_open("UTF-8", name);
	lru->used = ++cs_tick;
	return lru->cd;
}

/* Run iconv over in, appending to b; bad bytes become U+FFFD. Stops after about max
 * bytes. The output room grows when iconv reports E2BIG without progress. */
static void cs_convert(sd_buf *b, iconv_t cd, const char *in, size_t n, size_t max)
{
	char *ip = (char *)in, *op;
	size_t il = n, ol, start = b->len, room, slack = 16, r;

	iconv(cd, NULL, NULL, NULL, NULL);
	while (il > 0 && b->len - start < max && slack <= 4096) {
		room = max - (b->len - start);
		if (sd_buf_reserve(b, (il < room / 3 ? il * 3 : room) + slack) < 0)
			return;
		op = b->data + b->len;
		ol = b->cap - b->len - 1;
		r = iconv(cd, &ip, &il, &op, &ol);
		if (r == (size_t)-1 && errno == E2BIG && op == b->data + b->len)
			slack *= 2;
		b->len = (size_t)(op - b->data);
		b->data[b->len] = '\0';
		if (r != (size_t)-1 || errno == E2BIG)
			continue;
		sd_buf_put(b, sd_repl, 3);
		if (errno != EILSEQ)
			break;
		ip++;
		il--;
	}
}

/* ---- single-byte charsets: each byte's UTF-8 read from iconv once ---- */

/* A charset of one byte a character without state: converting a text is
 * converting each of its bytes on its own (windows-1258 is left out: glibc
 * composes its combining marks with the letter before them). */
static int sb_stateless(const char *name)
{
	return !strcmp(name, "CP1252") || !strncmp(name, "iso-8859-", 9) || !strncmp(name, "koi8-", 5) ||
	       (!strncmp(name, "windows-125", 11) && strcmp(name, "windows-1258") != 0);
}

/* The last such charset a thread converted: what iconv gives for each byte
 * (U+FFFD where it refuses the byte, as cs_convert() writes). */
typedef struct sb_table {
	char name[SD_CHARSET_NAME];
	int state; /* 0: not built, 1: built, -1: iconv did not convert a byte alone */
	unsigned char len[256];
	char utf8[256][4];
} sb_table;

static _Thread_local sb_table sb_last;

static const sb_table *sb_table_for(const char *name, iconv_t cd)
{
	sb_table *t = &sb_last;

	if (t->state && !strcmp(t->name, name))
		return t->state > 0 ? t : NULL;
	sd_strlcpy(t->name, name, strlen(name), sizeof(t->name));
	t->state = 1;
	for (int c = 0; c < 256; c++) {
		char in = (char)c, out[8], *ip = &in, *op = out;
		size_t il = 1, ol = sizeof(out), r;
		iconv(cd, NULL, NULL, NULL, NULL);
		r = iconv(cd, &ip, &il, &op, &ol);
		if (r == (size_t)-1 && errno == EILSEQ && op == out) {
			memcpy(t->utf8[c], sd_repl, 3);
			t->len[c] = 3;
		} else if (r != (size_t)-1 && il == 0 && op > out && op - out <= 4) {
			memcpy(t->utf8[c], out, (size_t)(op - out));
			t->len[c] = (unsigned char)(op - out);
		} else {
			t->state = -1;
			break;
		}
	}
	return t->state > 0 ? t : NULL;
}

/* cs_convert() for a stateless single-byte charset, by its table: the same
 * bytes, until about max of them. 0 when the charset is not one. */
static int sb_convert(sd_buf *b, const char *name, iconv_t cd, const char *in, size_t n, size_t max)
{
	const sb_table *t = sb_stateless(name) ? sb_table_for(name, cd) : NULL;
	size_t start = b->len, i = 0;

	if (!t)
		return 0;
	while (i < n && b->len - start < max) {
		size_t step = n - i < 256 ? n - i : 256;
		char *op;
		if (sd_buf_reserve(b, 4 * step) < 0)
			return 1;
		op = b->data + b->len;
		for (size_t end = i + step; i < end; i++) {
			unsigned char c = (unsigned char)in[i];
			memcpy(op, t->utf8[c], 4);
			op += t->len[c];
		}
		b->len = (size_t)(op - b->data);
		b->data[b->len] = '\0';
	}
	return 1;
}

/* Cut b back to at most start+max bytes, not inside a UTF-8 sequence. */
static void cut_utf8(sd_buf *b, size_t start, size_t max)
{
	size_t end;

	if (b->len - start <= max)
		return;
	end = start + max;
	while (end > start && ((unsigned char)b->data[end] & 0xc0) == 0x80)
		end--;
	b->len = end;
	b->data[end] = '\0';
}

/* ISO-2022-JP is 7-bit; Japanese text labelled so but holding 8-bit bytes is really
 * UTF-8, Shift_JIS (bytes 0x80-0xa0 occur) or EUC-JP. */
static const char *jp_guess(const char *name, sd_str in)
{
	const unsigned char *s = (const unsigned char *)in.p;
	size_t i = 0;

	if (strcmp(name, "ISO-2022-JP-3") != 0 || !s || memchr(s, 0x1b, in.n))
		return name;
	i = utf8_prefix(in.p, in.n);
	if (i == in.n)
		return "";
	for (; i < in.n; i++)
		if (s[i] >= 0x80 && s[i] <= 0xa0 && s[i] != 0x8e && s[i] != 0x8f)
			return "CP932";
	return "EUC-JP-MS";
}

/* How many leading bytes of in the converter for name gives back unchanged, so
 * that only the rest needs iconv. Tested byte by byte against glibc: the
 * ASCII-compatible charsets copy every byte below 0x80 (ESC aside: ISO-2022
 * switches with it, and it is in its first state until then); UTF-7 copies its
 * direct characters (tab, line ends, ' ' to '}' but '+' and '\\'). 0 for any
 * other converter. */
static size_t same_prefix(const char *name, sd_str in)
{
	static const char *const same[] = { "CP1252", "CP949", "CP932", "EUC-JP-MS", "GBK", "BIG5",
					    "ISO-2022-JP-3" };
	int utf7 = !strcmp(name, "UTF-7"), known = utf7;
	size_t i;

	for (i = 0; i < sizeof(same) / sizeof(same[0]) && !known; i++)
		known = !strcmp(name, same[i]);
	if (!known && strncmp(name, "iso-8859-", 9) && strncmp(name, "windows-125", 11) &&
	    strncmp(name, "koi8-", 5))
		return 0;
	for (i = utf7 ? 0 : ascii_run((const unsigned char *)in.p, 0, in.n, 1); i < in.n; i++) {
		unsigned char c = (unsigned char)in.p[i];
		if (c >= 0x80 || c == 0x1b)
			break;
		if (utf7 && c != '\t' && c != '\n' && c != '\r' && (c < ' ' || c > '}' || c == '+' || c == '\\'))
			break;
	}
	return i;
}

void sd_buf_put_utf8(sd_buf *b, sd_str charset, sd_str in, size_t max)
{
	char norm[SD_CHARSET_NAME];
	const char *name;
	size_t start = b->len;
	iconv_t cd;

	cs_normalize(charset, norm, sizeof(norm));
	name = jp_guess(cs_iconv_name(norm), in);
	cd = name[0] ? cs_open(name) : (iconv_t)-1;
	if (cd == (iconv_t)-1) {
		put_utf8_lenient(b, in.p, in.n > max ? max : in.n);
	} else { /* copy what the converter would give back as it is, convert the rest */
		size_t k = same_prefix(name, in);
		if (k > max)
			k = max;
		sd_buf_put(b, in.p, k);
		if (!sb_convert(b, name, cd, in.p + k, in.n - k, max - k))
			cs_convert(b, cd, in.p + k, in.n - k, max - k);
	}
	cut_utf8(b, start, max);
}

sd_str sd_to_utf8(sd_arena *a, sd_str charset, sd_str in)
{
	char norm[SD_CHARSET_NAME];
	const char *name;
	sd_buf b;
	sd_str out = SD_NULLSTR;
	char *p;

	if (!in.p || in.n == 0)
		return (sd_str){ "", 0 };
	cs_normalize(charset, norm, sizeof(norm));
	name = cs_iconv_name(norm);
	if (!name[0] && sd_utf8_valid(in.p, in.n))
		return in; /* read as UTF-8, and it is */
	if (in.n <= SD_MAX_DECODED && same_prefix(name, in) == in.n)
		return in; /* what the conversion would give */
	sd_buf_init(&b);
	sd_buf_put_utf8(&b, charset, in, SD_MAX_DECODED);
	if (!b.oom && (p = sd_arena_strndup(a, b.data ? b.data : "", b.len)) != NULL)
		out = (sd_str){ p, b.len };
	sd_buf_free(&b);
	return out;
}

/* ---- RFC 2047 ---- */

typedef struct eword {
	sd_str charset; /* without "*lang" */
	char enc;       /* 'b' or 'q' */
	sd_str text;
	size_t len;     /* bytes of the whole word */
} eword;

/* Parse "=?charset?E?text?=" at p (p[0..1] == "=?"). Returns 1 on success. */
static int eword_parse(const char *p, size_t n, eword *w)
{
	const char *q1, *q3, *end;

	if (n > SD_EWORD_MAX)
		n = SD_EWORD_MAX;
	q1 = memchr(p + 2, '?', n - 2);
	if (!q1 || q1 == p + 2 || (size_t)(q1 - p) + 3 >= n || q1[2] != '?')
		return 0;
	w->enc = (char)sd_tolower((unsigned char)q1[1]);
	if (w->enc != 'b' && w->enc != 'q')
		return 0;
	q3 = q1 + 3;
	end = sd_memmem(q3, n - (size_t)(q3 - p), "?=", 2);
	if (!end)
		return 0;
	w->charset = (sd_str){ p + 2, (size_t)(q1 - p - 2) };
	if (memchr(w->charset.p, ' ', w->charset.n))
		return 0;
	w->text = (sd_str){ q3, (size_t)(end - q3) };
	w->len = (size_t)(end + 2 - p);
	return 1;
}

static int all_space(sd_str s)
{
	for (size_t i = 0; i < s.n; i++)
		if (s.p[i] != ' ' && s.p[i] != '\t' && s.p[i] != '\r' && s.p[i] != '\n')
			return 0;
	return 1;
}

/* Adjacent words in one charset are joined before conversion, so a multibyte
 * character split across two words survives. */
typedef struct ew_state {
	sd_buf *out;
	sd_buf raw;   /* decoded bytes not yet converted */
	sd_str cs;    /* their charset */
} ew_state;

static void ew_flush(ew_state *st)
{
	if (st->raw.len)
		sd_buf_put_utf8(st->out, st->cs, (sd_str){ st->raw.data, st->raw.len }, SIZE_MAX);
	st->raw.len = 0;
}

static void ew_add(ew_state *st, const eword *w)
{
	size_t k;

	if (st->raw.len && !(st->cs.n == w->charset.n &&
	                     sd_memcaseeq(st->cs.p, w->charset.p, w->charset.n)))
		ew_flush(st);
	st->cs = w->charset;
	if (sd_buf_reserve(&st->raw, w->text.n) < 0)
		return;
	if (w->enc == 'b')
		k = sd_b64_decode(st->raw.data + st->raw.len, w->text.n, w->text.p, w->text.n);
	else
		k = sd_qp_decode(st->raw.data + st->raw.len, w->text.n, w->text.p, w->text.n, 1);
	st->raw.len += k;
}

void sd_rfc2047_decode(sd_buf *b, sd_str in)
{
	ew_state st = { b, { NULL, 0, 0, 0 }, SD_NULLSTR };
	size_t pos = 0;
	int after_word = 0;
	const char *q;
	eword w;

	while (pos < in.n) {
		q = sd_memmem(in.p + pos, in.n - pos, "=?", 2);
		sd_str gap = { in.p + pos, q ? (size_t)(q - in.p) - pos : in.n - pos };
		int ok = q && eword_parse(q, in.n - (size_t)(q - in.p), &w);
		if (!(ok && after_word && all_space(gap))) {
			ew_flush(&st);
			sd_buf_put(b, gap.p, gap.n);
		}
		if (!q)
			break;
		if (ok) {
			ew_add(&st, &w);
			pos = (size_t)(q - in.p) + w.len;
		} else {
			ew_flush(&st);
			sd_buf_put(b, "=?", 2);
			pos = (size_t)(q - in.p) + 2;
		}
		after_word = ok;
	}
	ew_flush(&st);
	sd_buf_free(&st.raw);
}
