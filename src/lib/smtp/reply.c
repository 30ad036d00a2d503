/* reply.c - RFC 5321 replies and RFC 3463 statuses: parse and find in text. */
#include "smtp/reply.h"
#include "smtpdiag.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static int is_word(int c)
{
	return sd_isalnum(c) || c == '_';
}

size_t sd_status_parse(const char *p, size_t n, sd_status *st)
{
	size_t i = 0, k;
	unsigned long sub, det;

	if (n < 5 || !sd_isdigit((unsigned char)p[0]) || p[1] != '.')
		return 0;
	i = 2;
	k = sd_parse_uint(p + i, n - i, 3, &sub);
	if (!k)
		return 0;
	i += k;
	if (i >= n || p[i] != '.')
		return 0;
	i++;
	k = sd_parse_uint(p + i, n - i, 3, &det);
	if (!k)
		return 0;
	i += k;
	/* the code must end here: no fourth digit, no ".5" of an IP or version */
	if (i < n && (sd_isdigit((unsigned char)p[i]) ||
		      (p[i] == '.' && i + 1 < n && sd_isdigit((unsigned char)p[i + 1])) ||
		      sd_isalpha((unsigned char)p[i])))
		return 0;
	if (st) {
		st->cls = p[0] - '0';
		st->subject = (int)sub;
		st->detail = (int)det;
		sd_strlcpy(st->text, p, i, sizeof(st->text));
	}
	return i;
}

int sd_replycode_valid(int c)
{
	return c >= 200 && c <= 559 && (c / 10) % 10 <= 5;
}

/* A word with its length, known at compile time. */
typedef struct sd_lit {
	const char *p;
	size_t n;
} sd_lit;
#define W(s) { s, sizeof(s) - 1 }

/* The first digit in p[i, n), or n; with SSE2 sixteen bytes a step. */
static size_t next_digit(const char *p, size_t i, size_t n)
{
#if defined(__SSE2__)
	const __m128i zero = _mm_set1_epi8('0'), nine = _mm_set1_epi8(9);
	for (; n - i >= 16; i += 16) {
		__m128i d = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + i)), zero);
		/* d <= 9 as an unsigned byte: a digit */
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(d, nine), d));
		if (m)
			return i + (size_t)__builtin_ctz(m);
	}
#endif
	while (i < n && (unsigned)(p[i] - '0') > 9)
		i++;
	return i;
}

/* A reply code at p: three digits, 2-5 then 0-5 then 0-9, ending the number. */
/* A number a quantity word follows is a count, not a reply code: "for 300
 * seconds", "after 421 attempts", "550 messages an hour". */
static int quantity_after(const char *p, size_t n, size_t j)
{
	static const sd_lit words[] = { W("seconds"), W("second"), W("secs"), W("sec"), W("minutes"),
					W("minute"), W("mins"), W("min"), W("hours"), W("hour"), W("hrs"),
					W("days"), W("day"), W("ms"), W("messages"), W("recipients"),
					W("connections"), W("attempts"), W("times"), W("emails"), W("mails"),
					W("bytes"), W("kb"), W("mb") };

	if (j >= n || p[j] != ' ')
		return 0;
	j++;
	for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
		size_t wl = words[w].n;
		if (j + wl <= n && sd_memcaseeq(p + j, words[w].p, wl) && (j + wl == n || !sd_isalnum((unsigned char)p[j + wl])))
			return 1;
	}
	return 0;
}

static int code_at(const char *p, size_t n, size_t i)
{
	int c;

	if (i + 3 > n)
		return 0;
	for (int k = 0; k < 3; k++)
		if (!sd_isdigit((unsigned char)p[i + k]))
			return 0;
	c = (p[i] - '0') * 100 + (p[i + 1] - '0') * 10 + (p[i + 2] - '0');
	if (!sd_replycode_valid(c))
		return 0;
	if (i + 3 < n && (is_word((unsigned char)p[i + 3]) || p[i + 3] == '.' || p[i + 3] == ':' ||
			  p[i + 3] == '/' || p[i + 3] == '@'))
		return 0;
	if (quantity_after(p, n, i + 3))
		return 0;
	return c;
}

/* Skip the enhanced status that repeats on each line of a reply. */
static size_t skip_status(const char *p, size_t n)
{
	size_t k = sd_status_parse(p, n, NULL);
	if (!k)
		return 0;
	while (k < n && (p[k] == ' ' || p[k] == '\t'))
		k++;
	return k;
}

static int parse_line(sd_str line, int *code, int *cont, sd_str *rest)
{
	if (line.n < 3)
		return -1;
	*code = code_at(line.p, line.n, 0);
	if (!*code && !(line.n >= 3 && sd_isdigit((unsigned char)line.p[0]) &&
			 sd_isdigit((unsigned char)line.p[1]) && sd_isdigit((unsigned char)line.p[2])))
		return -1;
	if (!*code)
		*code = (line.p[0] - '0') * 100 + (line.p[1] - '0') * 10 + (line.p[2] - '0');
	*cont = line.n > 3 && line.p[3] == '-';
	if (line.n > 3 && line.p[3] != '-' && line.p[3] != ' ' && line.p[3] != '\t')
		return -1;
	rest->p = line.p + (line.n > 3 ? 4 : 3);
	rest->n = line.n > 3 ? line.n - 4 : 0;
	return 0;
}

/* The line at *pos and its end (CRLF, LF or CR). The cursor always moves:
 * an empty line still consumes its line end. */
static int next_line(const char *p, size_t n, size_t *pos, sd_str *line)
{
	size_t i = *pos, s = i;

	if (i >= n)
		return 0;
	while (i < n && p[i] != '\n' && p[i] != '\r')
		i++;
	line->p = p + s;
	line->n = i - s;
	if (i < n && p[i] == '\r')
		i++;
	if (i < n && p[i] == '\n')
		i++;
	*pos = i;
	return 1;
}

int sd_reply_parse(const char *p, size_t n, sd_reply *r, sd_buf *text)
{
	size_t pos = 0;
	sd_str line, rest;
	int code, cont = 1;

	memset(r, 0, sizeof(*r));
	while (cont && next_line(p, n, &pos, &line)) {
		line = sd_trim(line);
		if (line.n == 0)
			continue;
		if (parse_line(line, &code, &cont, &rest) < 0)
			return SMTPDIAG_EPARSE;
		if (r->nlines && code != r->code)
			return SMTPDIAG_EPARSE; /* RFC 5321 4.2.1: same code on every line */
		if (++r->nlines > SD_MAX_REPLY_LINES)
			return SMTPDIAG_ELIMIT;
		r->code = code;
		if (!r->status.text[0])
			sd_status_parse(rest.p, rest.n, &r->status);
		if (r->status.text[0] && sd_str_casestarts(rest, r->status.text)) {
			size_t k = skip_status(rest.p, rest.n);
			rest.p += k;
			rest.n -= k;
		}
		rest = sd_trim(rest);
		if (text && rest.n) {
			if (text->len)
				sd_buf_putc(text, ' ');
			sd_buf_put(text, rest.p, rest.n);
		}
	}
	if (!r->nlines)
		return SMTPDIAG_EPARSE;
	/* anything after the last line must be blank */
	while (pos < n && sd_isspace((unsigned char)p[pos]))
		pos++;
	return pos < n ? SMTPDIAG_EPARSE : 0;
}

/* May a code start at i?  Not inside a word, number, IP, version or time. */
static int boundary_before(const char *p, size_t i)
{
	int c;

	if (i == 0)
		return 1;
	c = (unsigned char)p[i - 1];
	return !(is_word(c) || c == '.' || c == ':' || c == '/' || c == '-' || c == '+' ||
		 c == '@' || c == '$' || c == ',' || c >= 0x80);
}

static int after_version_word(const char *p, size_t i)
{
	static const sd_lit words[] = { W("version "), W("version: "), W("release "), W("ver "), W("ver. "),
					W("v. "), W("rev "), W("build "), W("firmware ") };

	for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++) {
		size_t wl = words[k].n;
		/* a word of its own: "server 550" is no "ver 550" */
		if (i >= wl && sd_memcaseeq(p + i - wl, words[k].p, wl) && (i == wl || !sd_isalnum((unsigned char)p[i - wl - 1])))
			return 1;
	}
	return 0;
}

/* May a status start at i? Not inside a word, a number, an IP or a version
 * ("v5.1.1"); after ':' '-' ',' or a non-ASCII letter it may ("#5.1.1",
 * "status:5.1.1"): a reply code before it is read as a pair. */
static int status_boundary(const char *p, size_t i)
{
	int c = i ? (unsigned char)p[i - 1] : ' ';

	return !(c < 0x80 && (is_word(c) || c == '.' || c == '/' || c == '@' || c == '$' || c == '+'));
}

/* Digits with a leading zero ("01"): no subject or detail of RFC 3463 is written so. */
static int leading_zero(const char *p, size_t n)
{
	return n > 1 && p[0] == '0' && sd_isdigit((unsigned char)p[1]);
}

/* What follows a status-shaped token that makes it something else: a time
 * ("4.5.23 10:30", a date), a percentage, a size, a message id. */
static int not_a_status_after(const char *p, size_t n, size_t j)
{
	static const char *const units[] = { "kb", "mb", "gb", "kib", "mib", "gib", "bytes", "%" };
	size_t k = j;

	if (j < n && (p[j] == '%' || p[j] == '@'))
		return 1;
	if (k < n && p[k] == ' ')
		k++;
	if (k + 2 < n && sd_isdigit((unsigned char)p[k]) &&
	    (p[k + 1] == ':' || (sd_isdigit((unsigned char)p[k + 1]) && p[k + 2] == ':')))
		return 1;
	for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
		size_t ul = strlen(units[u]);
		if (k + ul <= n && sd_memcaseeq(p + k, units[u], ul) && (k + ul == n || !sd_isalnum((unsigned char)p[k + ul])))
			return 1;
	}
	return 0;
}

/* A status as it stands in free text at i (RFC 3463: class 2, 4 or 5, subject
 * and detail of 1-3 digits without a leading zero), and not one of the things
 * not_a_status_after() names. Returns its length or 0. */
static size_t status_token(const char *p, size_t n, size_t i, sd_status *st)
{
	size_t k = sd_status_parse(p + i, n - i, st), dot;

	if (!k || (st->cls != 2 && st->cls != 4 && st->cls != 5))
		return 0;
	dot = (size_t)((const char *)memchr(p + i + 2, '.', k - 2) - (p + i));
	if (leading_zero(p + i + 2, dot - 2) || leading_zero(p + i + dot + 1, k - dot - 1))
		return 0;
	if (after_version_word(p, i) || not_a_status_after(p, n, i + k))
		return 0;
	return k;
}

/* After a reply code: optional spaces/'-'/'#' then a status? An MTA that folds
 * the reply ("said: 550\n    5.1.1 ...") puts a line end and indentation there. */
static size_t status_after(const char *p, size_t n, size_t i, sd_status *st)
{
	size_t j = i, k;

	if (j < n && (p[j] == '-' || p[j] == ' '))
		j++;
	if (j < n && (p[j] == '\r' || p[j] == '\n')) {
		while (j < n && (p[j] == '\r' || p[j] == '\n'))
			j++;
		while (j < n && j < i + 16 && (p[j] == ' ' || p[j] == '\t'))
			j++;
	}
	while (j < n && j < i + 3 && (p[j] == ' ' || p[j] == '#' || p[j] == '('))
		j++;
	k = status_token(p, n, j, st);
	return k ? j + k : 0;
}

static int status_plausible(const sd_status *st, const char *p, size_t i)
{
	if (!status_boundary(p, i))
		return 0;
	/* standalone: only the defined subjects, single digit */
	return st->subject <= 7 && st->text[3] == '.';
}

size_t sd_find_codes(const char *p, size_t n, sd_found *out, size_t max)
{
	size_t cnt = 0, i = 0, k;
	sd_status st;
	int c;

	while (i + 3 <= n && cnt < max) {
		i = next_digit(p, i, n); /* most bytes are none */
		if (i + 3 > n)
			break;
		if (i && sd_isdigit((unsigned char)p[i - 1])) {
			i++;
			continue;
		}
		if (boundary_before(p, i) && (c = code_at(p, n, i)) != 0 && !after_version_word(p, i)) {
			memset(&out[cnt], 0, sizeof(out[cnt]));
			out[cnt].replycode = c;
			out[cnt].off = i;
			k = status_after(p, n, i + 3, &st);
			if (k) {
				out[cnt].status = st;
				out[cnt].end = k;
			} else {
				out[cnt].end = i + 3;
			}
			i = out[cnt++].end;
			continue;
		}
		k = status_token(p, n, i, &st);
		if (k && status_plausible(&st, p, i)) {
			memset(&out[cnt], 0, sizeof(out[cnt]));
			out[cnt].status = st;
			out[cnt].off = i;
			out[cnt].end = i + k;
			cnt++;
			i += k;
			continue;
		}
		while (i < n && sd_isdigit((unsigned char)p[i]))
			i++;
	}
	return cnt;
}

int sd_pick_code(const sd_found *f, size_t n)
{
	int first_fail = -1, first_status_only = -1;

	for (size_t i = 0; i < n; i++) {
		int fail = f[i].replycode >= 400 || (!f[i].replycode && f[i].status.cls >= 4);
		if (fail && f[i].replycode && f[i].status.text[0])
			return (int)i;
		if (fail && f[i].replycode && first_fail < 0)
			first_fail = (int)i;
		if (fail && !f[i].replycode && first_status_only < 0)
			first_status_only = (int)i;
	}
	if (first_fail >= 0)
		return first_fail;
	if (first_status_only >= 0)
		return first_status_only;
	return n ? 0 : -1;
}
