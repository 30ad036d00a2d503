/* mbox.c - split an mbox into messages at From_ lines, zero-copy.
 *
 * A From_ line is a line starting with "From " at the start of the buffer, or at the
 * start of any later line (after a blank line or not: real mboxes are sloppy) when it
 * looks like one: it holds a digit and a ':', as the date of
 * "From sender Thu Sep 18 17:54:04 2008" does, or it follows a blank line and is
 * followed by a header field. So unquoted prose like "From here on" does not split.
 * Line ends may be LF, CRLF or CR.
 */
#include "mime/mbox.h"

#define SD_FROM_LINE_SCAN 256 /* bytes of a From_ line we look at */

static int is_eol(char c)
{
	return c == '\n' || c == '\r';
}

/* Index past the line that starts at i (its line end included). */
static size_t line_next(const char *p, size_t n, size_t i)
{
	while (i < n && !is_eol(p[i]))
		i++;
	if (i < n && p[i] == '\r' && i + 1 < n && p[i + 1] == '\n')
		return i + 2;
	return i < n ? i + 1 : n;
}

int sd_mbox_detect(const char *p, size_t n)
{
	size_t i = 0;

	if (!p)
		return 0;
	while (i < n && is_eol(p[i]))
		i++;
	return n - i >= 5 && memcmp(p + i, "From ", 5) == 0;
}

void sd_mbox_init(sd_mbox_iter *it, const char *p, size_t n)
{
	it->p = p;
	it->n = p ? n : 0;
	it->pos = 0;
	it->index = 0;
}

/* Is the line before offset q (q at a line start, q > 0) blank? */
static int prev_blank(const char *p, size_t q)
{
	size_t i = q;

	if (i >= 2 && p[i - 1] == '\n' && p[i - 2] == '\r')
		i -= 2;
	else
		i -= 1;
	return i == 0 || is_eol(p[i - 1]);
}

/* Does the line at q look like a From_ line (a digit and a ':' in it)? */
static int looks_like_from(const char *p, size_t n, size_t q)
{
	size_t end = q + SD_FROM_LINE_SCAN < n ? q + SD_FROM_LINE_SCAN : n;
	int digit = 0, colon = 0;

	for (size_t i = q + 5; i < end && !is_eol(p[i]); i++) {
		digit |= sd_isdigit((unsigned char)p[i]);
		colon |= p[i] == ':';
	}
	return digit && colon;
}

/* Does the line after the one at q start with a header field ("Name:")? */
static int field_follows(const char *p, size_t n, size_t q)
{
	size_t i = line_next(p, n, q), k = i;

	while (k < n && k - i < SD_FROM_LINE_SCAN && (sd_isalnum((unsigned char)p[k]) || p[k] == '-'))
		k++;
	return k > i && k < n && p[k] == ':';
}

/* Offset of the next "From " at or after from, or n. 'F' is rare in mail text,
 * so a vectorised memchr for it beats a general substring search. */
static size_t find_from(const char *p, size_t n, size_t from)
{
	const char *q;

	while (from + 5 <= n && (q = memchr(p + from, 'F', n - from - 4)) != NULL) {
		if (memcmp(q + 1, "rom ", 4) == 0)
			return (size_t)(q - p);
		from = (size_t)(q - p) + 1;
	}
	return n;
}

/* Offset of the next From_ line at or after from, or n. */
static size_t next_from(const char *p, size_t n, size_t from)
{
	size_t k;

	while ((k = find_from(p, n, from)) < n) {
		if (k == 0 || (is_eol(p[k - 1]) && (looks_like_from(p, n, k) ||
		                                    (prev_blank(p, k) && field_follows(p, n, k)))))
			return k;
		from = k + 1;
	}
	return n;
}

/* Drop the blank separator line that ends a message, if there is one. */
static size_t trim_separator(const char *p, size_t start, size_t end)
{
	size_t e = end;

	if (e > start && p[e - 1] == '\n')
		e--;
	if (e > start && p[e - 1] == '\r')
		e--;
	if (e == end || e == start || !is_eol(p[e - 1]))
		return end;
	return e;
}

int sd_mbox_next(sd_mbox_iter *it, sd_str *msg)
{
	size_t pos = it->pos, start, end;

	while (pos < it->n && is_eol(it->p[pos]))
		pos++;
	if (pos >= it->n)
		return 0;
	start = pos;
	if (it->n - pos >= 5 && memcmp(it->p + pos, "From ", 5) == 0)
		start = line_next(it->p, it->n, pos);
	end = next_from(it->p, it->n, start);
	it->pos = end;
	it->index++;
	*msg = (sd_str){ it->p + start, trim_separator(it->p, start, end) - start };
	return 1;
}

/* Offset of the first '>' of the next ">+From " line at or after from, or n. */
static size_t next_quoted(const char *p, size_t n, size_t from)
{
	const char *q;

	while (from < n && (q = sd_memmem(p + from, n - from, ">From ", 6)) != NULL) {
		size_t k = (size_t)(q - p);
		while (k > 0 && p[k - 1] == '>')
			k--;
		if (k == 0 || is_eol(p[k - 1]))
			return k;
		from = (size_t)(q - p) + 1;
	}
	return n;
}

sd_str sd_mbox_unquote(sd_arena *a, sd_str msg)
{
	size_t pos = 0, q, k = 0;
	char *out;

	if (!msg.p || (q = next_quoted(msg.p, msg.n, 0)) == msg.n)
		return msg;
	out = sd_arena_alloc(a, msg.n);
	if (!out)
		return SD_NULLSTR;
	while (pos < msg.n) {
		memcpy(out + k, msg.p + pos, q - pos);
		k += q - pos;
		if (q == msg.n)
			break;
		pos = q + 1; /* drop one '>' */
		q = next_quoted(msg.p, msg.n, line_next(msg.p, msg.n, pos));
	}
	return (sd_str){ out, k };
}
