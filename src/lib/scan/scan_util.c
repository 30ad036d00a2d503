/* scan_util.c - slice helpers shared by the log readers. */
#include "scan/scan.h"

sd_str sd_sl_skip(sd_str s, size_t k)
{
	return k >= s.n ? (sd_str){ s.p + s.n, 0 } : (sd_str){ s.p + k, s.n - k };
}

int sd_sl_starts(sd_str s, const char *lit)
{
	size_t n = strlen(lit);

	return s.n >= n && !memcmp(s.p, lit, n);
}

long sd_sl_find(sd_str s, const char *lit)
{
	const char *q = sd_memmem(s.p, s.n, lit, strlen(lit));

	return q ? (long)(q - s.p) : -1;
}

sd_str sd_sl_until(sd_str s, char stop)
{
	const char *q = s.n ? memchr(s.p, stop, s.n) : NULL;

	return (sd_str){ s.p, q ? (size_t)(q - s.p) : s.n };
}

/* Does "name=" (a lower-case field name, digits after its first letter:
 * Sendmail's arg1=) start at p? */
static int key_at(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && ((*q >= 'a' && *q <= 'z') || *q == '_' || (q > p && *q >= '0' && *q <= '9')))
		q++;
	return q > p && q < end && *q == '=';
}

/* End of a field value starting at v: the next ", name=" or the end. */
static const char *value_end(const char *v, const char *end)
{
	const char *q = v;

	while (q < end && (q = memchr(q, ',', (size_t)(end - q))) != NULL) {
		if (q + 1 < end && q[1] == ' ' && key_at(q + 2, end))
			return q;
		q++;
	}
	return end;
}

sd_str sd_sl_field(sd_str s, const char *key)
{
	size_t kl = strlen(key);
	const char *p = s.p, *end = s.p + s.n, *q = p, *v;

	while (q < end && (q = sd_memmem(q, (size_t)(end - q), key, kl)) != NULL) {
		if (q + kl < end && q[kl] == '=' && (q == p || (q - p >= 2 && q[-1] == ' ' && q[-2] == ',')))
			break;
		q++;
	}
	if (!q || q >= end)
		return SD_NULLSTR;
	v = q + kl + 1;
	return (sd_str){ v, (size_t)(value_end(v, end) - v) };
}

sd_str sd_sl_unangle(sd_str s)
{
	s = sd_trim(s);
	if (s.n >= 2 && s.p[0] == '<' && s.p[s.n - 1] == '>')
		return (sd_str){ s.p + 1, s.n - 2 };
	return s;
}

/* ---- durations ---- */

/* "1+02:03:04" or "02:03:04". */
static int64_t clock_duration(sd_str s)
{
	unsigned long d = 0, h, m, sec;
	size_t i = 0, k;

	if (memchr(s.p, '+', s.n)) {
		k = sd_parse_uint(s.p, s.n, 6, &d);
		if (!k || k >= s.n || s.p[k] != '+')
			return -1;
		i = k + 1;
	}
	if (s.n - i != 8 || s.p[i + 2] != ':' || s.p[i + 5] != ':' ||
	    sd_parse_uint(s.p + i, 2, 2, &h) != 2 || sd_parse_uint(s.p + i + 3, 2, 2, &m) != 2 ||
	    sd_parse_uint(s.p + i + 6, 2, 2, &sec) != 2)
		return -1;
	return (int64_t)d * 86400 + (int64_t)h * 3600 + (int64_t)m * 60 + (int64_t)sec;
}

static int64_t unit_of(char c)
{
	switch (c) {
	case 'w': return 7 * 86400;
	case 'd': return 86400;
	case 'h': return 3600;
	case 'm': return 60;
	case 's': return 1;
	default: return 0;
	}
}

/* "1068", "0.25", "1d2h3m4s", "1.5s". */
static int64_t unit_duration(sd_str s)
{
	int64_t total = 0;
	size_t i = 0;

	while (i < s.n) {
		unsigned long v;
		size_t k = sd_parse_uint(s.p + i, s.n - i, 9, &v);
		if (!k)
			return -1;
		i += k;
		if (i < s.n && s.p[i] == '.') /* fractions of a second are dropped */
			while (++i < s.n && sd_isdigit((unsigned char)s.p[i]))
				;
		if (i >= s.n)
			return total + (int64_t)v;
		if (!unit_of(s.p[i]))
			return -1;
		total += (int64_t)v * unit_of(s.p[i++]);
	}
	return total;
}

int64_t sd_sl_duration(sd_str s)
{
	s = sd_trim(s);
	if (s.n >= 2 && s.p[0] == '"' && s.p[s.n - 1] == '"')
		s = (sd_str){ s.p + 1, s.n - 2 };
	if (!s.n || !sd_isdigit((unsigned char)s.p[0]))
		return -1;
	if (memchr(s.p, ':', s.n))
		return clock_duration(s);
	return unit_duration(s);
}

/* ---- SMTP commands ---- */

const char *sd_sl_command(sd_str s)
{
	static const struct {
		const char *word, *cmd;
	} lead[] = {
		{ "RCPT", "RCPT" }, { "MAIL", "MAIL" }, { "DATA", "DATA" }, { "BDAT", "DATA" },
		{ "EHLO", "EHLO" }, { "HELO", "HELO" }, { "LHLO", "EHLO" }, { "STARTTLS", "STARTTLS" },
		{ "AUTH", "AUTH" }, { "QUIT", "QUIT" }, { "RSET", "RSET" }, { "XFORWARD", "XFORWARD" },
	};

	s = sd_trim(s);
	if (!s.n)
		return "";
	if (sd_str_casestarts(s, "pipelined "))
		s = sd_trim(sd_sl_skip(s, 10));
	for (size_t i = 0; i < sizeof(lead) / sizeof(lead[0]); i++)
		if (sd_str_casestarts(s, lead[i].word))
			return lead[i].cmd;
	if (sd_memcasemem(s.p, s.n, "end of data", 11) || sd_memcasemem(s.p, s.n, "DATA", 4))
		return "DATA";
	if (sd_memcasemem(s.p, s.n, "greeting", 8) || sd_memcasemem(s.p, s.n, "connect", 7))
		return "CONN";
	return "";
}
