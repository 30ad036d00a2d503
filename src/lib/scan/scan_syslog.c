/* scan_syslog.c - the envelope of a log line: time, host, program, message.
 *
 * Forms read (an optional "<PRI>" first):
 *   RFC 3164   "Jan 12 10:15:01 host prog[pid]: msg"
 *   RFC 5424   "<22>1 2024-01-12T10:15:01.003Z host prog pid msgid [sd] msg"
 *   RFC 3339   "2024-01-12T10:15:01.123+01:00 host prog[pid]: msg"
 *   Exim       "2024-01-12 10:15:01[.123] [+0100] [[pid]] 1rOabc-0001Xy-2B => ..."
 *   bare tag   "prog[pid]: msg" (container logs without time or host)
 * Anything else is not a line of ours. */
#include "scan/scan.h"

static int dig(const char *p, int k)
{
	int v = 0;

	for (int i = 0; i < k; i++) {
		if (!sd_isdigit((unsigned char)p[i]))
			return -1;
		v = v * 10 + (p[i] - '0');
	}
	return v;
}

static int month_of(const char *p)
{
	/* the three bytes as one number: one switch, no loop over the names */
	switch (((unsigned)(unsigned char)p[0] << 16) | ((unsigned)(unsigned char)p[1] << 8) | (unsigned char)p[2]) {
	case 'J' << 16 | 'a' << 8 | 'n': return 1;
	case 'F' << 16 | 'e' << 8 | 'b': return 2;
	case 'M' << 16 | 'a' << 8 | 'r': return 3;
	case 'A' << 16 | 'p' << 8 | 'r': return 4;
	case 'M' << 16 | 'a' << 8 | 'y': return 5;
	case 'J' << 16 | 'u' << 8 | 'n': return 6;
	case 'J' << 16 | 'u' << 8 | 'l': return 7;
	case 'A' << 16 | 'u' << 8 | 'g': return 8;
	case 'S' << 16 | 'e' << 8 | 'p': return 9;
	case 'O' << 16 | 'c' << 8 | 't': return 10;
	case 'N' << 16 | 'o' << 8 | 'v': return 11;
	case 'D' << 16 | 'e' << 8 | 'c': return 12;
	default: return 0;
	}
}

/* Two digits at p, or -1. */
static inline int dig2(const char *p)
{
	unsigned a = (unsigned)(unsigned char)p[0] - '0', b = (unsigned)(unsigned char)p[1] - '0';

	return a <= 9 && b <= 9 ? (int)(a * 10 + b) : -1;
}

/* "hh:mm:ss" at p (8 bytes available). */
static int clock_at(const char *p, sd_logtime *t)
{
	if (p[2] != ':' || p[5] != ':')
		return 0;
	t->hour = dig2(p);
	t->min = dig2(p + 3);
	t->sec = dig2(p + 6);
	return t->hour >= 0 && t->hour < 24 && t->min >= 0 && t->min < 60 && t->sec >= 0 && t->sec <= 60;
}

static size_t skip_frac(const char *p, size_t n, size_t i)
{
	if (i < n && (p[i] == '.' || p[i] == ',') && i + 1 < n && sd_isdigit((unsigned char)p[i + 1])) {
		i++;
		while (i < n && sd_isdigit((unsigned char)p[i]))
			i++;
	}
	return i;
}

/* "Mmm dd hh:mm:ss" (the day may be space-padded). */
static size_t time_3164(const char *p, size_t n, sd_logtime *t)
{
	if (n < 15 || p[3] != ' ' || p[6] != ' ' || !(t->mon = month_of(p)))
		return 0;
	t->day = p[4] == ' ' ? dig(p + 5, 1) : dig2(p + 4);
	if (t->day < 1 || t->day > 31 || !clock_at(p + 7, t))
		return 0;
	t->has_year = 0;
	t->has_off = 0;
	return skip_frac(p, n, 15);
}

/* "Z", "+01:00", "+0100" at p; bytes read (0 when none). */
static size_t zone_at(const char *p, size_t n, sd_logtime *t)
{
	int h, m;

	if (n >= 1 && (p[0] == 'Z' || p[0] == 'z')) {
		t->has_off = 1;
		t->off = 0;
		return 1;
	}
	if (n < 5 || (p[0] != '+' && p[0] != '-') || (h = dig(p + 1, 2)) < 0)
		return 0;
	if (n >= 6 && p[3] == ':' && (m = dig(p + 4, 2)) >= 0) {
		t->off = h * 60 + m;
	} else if ((m = dig(p + 3, 2)) >= 0) {
		t->off = h * 60 + m;
	} else {
		return 0;
	}
	if (p[0] == '-')
		t->off = -t->off;
	t->has_off = 1;
	return p[3] == ':' ? 6 : 5;
}

size_t sd_logtime_iso(const char *p, size_t n, sd_logtime *t)
{
	size_t i;

	if (n < 19 || p[4] != '-' || p[7] != '-' || (p[10] != 'T' && p[10] != ' '))
		return 0;
	t->year = dig(p, 4);
	t->mon = dig(p + 5, 2);
	t->day = dig(p + 8, 2);
	if (t->year < 1970 || t->mon < 1 || t->mon > 12 || t->day < 1 || t->day > 31 || !clock_at(p + 11, t))
		return 0;
	t->has_year = 1;
	t->has_off = 0;
	i = skip_frac(p, n, 19);
	return i + zone_at(p + i, n - i, t);
}

/* ---- Exim ids ---- */

static int b62(int c)
{
	if (sd_isdigit(c))
		return c - '0';
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 36;
	return -1;
}

static int b62_run(const char *p, size_t k)
{
	for (size_t i = 0; i < k; i++)
		if (b62((unsigned char)p[i]) < 0)
			return 0;
	return 1;
}

size_t sd_exim_id(const char *p, size_t n)
{
	/* 6-6-2 (before 4.97) or 6-11-4 (4.97 on), ending at a space */
	if (n >= 17 && p[6] == '-' && p[13] == '-' && p[16] == ' ' && b62_run(p, 6) &&
	    b62_run(p + 7, 6) && b62_run(p + 14, 2))
		return 16;
	if (n >= 24 && p[6] == '-' && p[18] == '-' && p[23] == ' ' && b62_run(p, 6) &&
	    b62_run(p + 7, 11) && b62_run(p + 19, 4))
		return 23;
	return 0;
}

int64_t sd_exim_id_time(const char *p)
{
	int64_t v = 0;

	for (int i = 0; i < 6; i++)
		v = v * 62 + b62((unsigned char)p[i]);
	return v;
}

/* ---- host and tag ---- */

/* The offset of the first byte x, y or z at or after i, or n: eight bytes at
 * a time (the envelope's fields are short; a call costs more than the scan). */
static inline size_t first_of(const char *p, size_t n, size_t i, char x, char y, char z)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;

	for (; i + 8 <= n; i += 8) {
		uint64_t v, a, b, c, m;
		memcpy(&v, p + i, 8);
		a = v ^ (ones * (unsigned char)x);
		b = v ^ (ones * (unsigned char)y);
		c = v ^ (ones * (unsigned char)z);
		/* a byte is zero where v has the byte: the lowest flag is exact */
		m = ((a - ones) & ~a) | ((b - ones) & ~b) | ((c - ones) & ~c);
		m &= highs;
		if (m)
			return i + (size_t)__builtin_ctzll(m) / 8;
	}
#endif
	while (i < n && p[i] != x && p[i] != y && p[i] != z)
		i++;
	return i;
}

/* " host " after a time: sets h->host; the offset of what follows, or 0. */
static size_t host_at(const char *p, size_t n, size_t i, sd_loghdr *h)
{
	size_t e;

	if (i >= n || p[i] != ' ')
		return 0;
	while (i < n && p[i] == ' ')
		i++;
	if (i >= n || (e = first_of(p, n, i, ' ', ' ', ' ')) >= n)
		return 0;
	h->host = (sd_str){ p + i, e - i };
	return e + 1;
}

/* "prog[pid]: msg" or "prog: msg" at p + i. */
static int tag_at(const char *p, size_t n, size_t i, sd_loghdr *h)
{
	size_t s = i;

	i = first_of(p, n, i, ' ', ':', '[');
	if (i == s || i >= n || p[i] == ' ')
		return 0;
	h->program = (sd_str){ p + s, i - s };
	if (p[i] == '[') {
		i = first_of(p, n, i, ']', ']', ']');
		if (++i >= n || p[i] != ':')
			return 0;
	}
	i++;
	if (i < n && p[i] == ' ')
		i++;
	h->msg = (sd_str){ p + i, n - i };
	return 1;
}

static int after_time(const char *p, size_t n, size_t i, sd_loghdr *h)
{
	size_t t = host_at(p, n, i, h);

	return t && tag_at(p, n, t, h);
}

/* ---- Exim's own log ---- */

/* After "YYYY-MM-DD HH:MM:SS[.fff]": optional " +zzzz", optional " [pid]",
 * then the message id, or a reject line's fields (H=...). Returns the offset
 * of the id, or 0. */
static size_t exim_prefix(const char *p, size_t n, size_t i, sd_logtime *t)
{
	if (i + 1 < n && p[i] == ' ' && (p[i + 1] == '+' || p[i + 1] == '-')) {
		size_t z = zone_at(p + i + 1, n - i - 1, t);
		if (z != 5)
			return 0;
		i += 1 + z;
	}
	if (i + 1 < n && p[i] == ' ' && p[i + 1] == '[') {
		i += 2;
		while (i < n && sd_isdigit((unsigned char)p[i]))
			i++;
		if (i >= n || p[i] != ']')
			return 0;
		i++;
	}
	if (i >= n || p[i] != ' ' || (!sd_exim_id(p + i + 1, n - i - 1) && !sd_exim_reject_at(p + i + 1, n - i - 1)))
		return 0;
	return i + 1;
}

size_t sd_exim_prefix(const char *p, size_t n, sd_logtime *t)
{
	size_t k = sd_logtime_iso(p, n, t);

	return k && p[10] == ' ' ? exim_prefix(p, n, k, t) : 0;
}

static int exim_line(const char *p, size_t n, size_t i, sd_loghdr *h)
{
	size_t at;

	if (p[10] != ' ' || !(at = exim_prefix(p, n, i, &h->time)))
		return 0;
	h->exim = 1;
	h->program = SD_STR("exim");
	h->host = (sd_str){ "", 0 };
	h->msg = (sd_str){ p + at, n - at };
	return 1;
}

/* ---- RFC 5424 ---- */

static size_t token(const char *p, size_t n, size_t i, sd_str *out)
{
	size_t s = i;

	while (i < n && p[i] != ' ')
		i++;
	*out = (sd_str){ p + s, i - s };
	if (out->n == 1 && out->p[0] == '-')
		out->n = 0;
	return i < n ? i + 1 : i;
}

/* Structured data: "-" or one or more "[id k="v" ...]" (quoted values may
 * hold escaped '"', ']' and '\'). */
static size_t skip_sd(const char *p, size_t n, size_t i)
{
	if (i < n && p[i] == '-')
		return i + 1;
	while (i < n && p[i] == '[') {
		int q = 0;
		for (i++; i < n && (q || p[i] != ']'); i++) {
			if (p[i] == '\\' && i + 1 < n)
				i++;
			else if (p[i] == '"')
				q = !q;
		}
		if (i >= n)
			return n + 1;
		i++;
	}
	return i;
}

static int rfc5424(const char *p, size_t n, size_t i, sd_loghdr *h)
{
	sd_str ts, pid, mid;

	i = token(p, n, i, &ts);
	if (ts.n) {
		if (sd_logtime_iso(ts.p, ts.n, &h->time) != ts.n)
			return 0;
		h->has_time = 1;
	}
	i = token(p, n, i, &h->host);
	i = token(p, n, i, &h->program);
	i = token(p, n, i, &pid);
	i = token(p, n, i, &mid);
	i = skip_sd(p, n, i);
	if (i > n || !h->program.n)
		return 0;
	if (i < n && p[i] == ' ')
		i++;
	if (n - i >= 3 && !memcmp(p + i, "\xef\xbb\xbf", 3))
		i += 3;
	h->msg = (sd_str){ p + i, n - i };
	return 1;
}

/* ---- the envelope ---- */

static size_t skip_pri(const char *p, size_t n)
{
	size_t i = 1;

	if (!n || p[0] != '<')
		return 0;
	while (i < n && i < 5 && sd_isdigit((unsigned char)p[i]))
		i++;
	return i > 1 && i < n && p[i] == '>' ? i + 1 : 0;
}

int sd_loghdr_parse(const char *p, size_t n, sd_loghdr *h)
{
	size_t i = skip_pri(p, n), k;

	memset(h, 0, sizeof(*h));
	if (n - i > 2 && p[i] == '1' && p[i + 1] == ' ')
		return rfc5424(p, n, i + 2, h);
	if ((k = time_3164(p + i, n - i, &h->time)) != 0) {
		h->has_time = 1;
		return after_time(p, n, i + k, h);
	}
	if ((k = sd_logtime_iso(p + i, n - i, &h->time)) != 0) {
		h->has_time = 1;
		if (exim_line(p + i, n - i, k, h))
			return 1;
		return after_time(p, n, i + k, h);
	}
	return tag_at(p, n, i, h);
}
