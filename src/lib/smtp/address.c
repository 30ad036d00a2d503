/* address.c - the recipient address a reply text names. */
#include "smtp/address.h"

static int addr_char(int c)
{
	return sd_isalnum(c) || c == '.' || c == '-' || c == '_' || c == '+' || c == '=' ||
	       c == '%' || c == '\'' || c == '/' || c == '!' || c == '#' || c == '$' || c == '&' ||
	       c == '*' || c == '?' || c == '^' || c == '`' || c == '{' || c == '|' || c == '}' ||
	       c == '~' || c >= 0x80;
}

static sd_str address_at(const char *p, size_t n, size_t at)
{
	size_t s = at, e = at + 1;
	int dot = 0;

	while (s > 0 && addr_char((unsigned char)p[s - 1]))
		s--;
	while (e < n && (addr_char((unsigned char)p[e]))) {
		dot |= p[e] == '.';
		e++;
	}
	while (e > at + 1 && (p[e - 1] == '.' || p[e - 1] == '-'))
		e--;
	while (s < at && p[s] == '.')
		s++;
	if (s == at || e <= at + 1 || !dot)
		return SD_NULLSTR;
	return (sd_str){ p + s, e - s };
}

sd_str sd_find_address(const char *p, size_t n, size_t at)
{
	sd_str best = SD_NULLSTR, a;
	const char *q = p, *end = p + n;

	if (at > n)
		at = n;
	while (q < end && (q = memchr(q, '@', (size_t)(end - q))) != NULL) {
		a = address_at(p, n, (size_t)(q - p));
		q++;
		if (!a.n)
			continue;
		if ((size_t)(a.p - p) <= at || !best.n)
			best = a;
		if ((size_t)(a.p - p) > at && best.n)
			break;
	}
	return best;
}
