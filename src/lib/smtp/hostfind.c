/* hostfind.c - the remote host named in an error text, when the bounce has no
 * Remote-MTA: "host mx.example.com[192.0.2.1] said:", "while talking to
 * mx.example.com.:", "Generating server: mta.example.org". */
#include "smtp/hostfind.h"

#define HF_MAX_TEXT 4096 /* bytes of the text searched */

static int host_char(int c)
{
	return sd_isalnum(c) || c == '-' || c == '.';
}

/* An Internet host name: dotted labels of letters, digits and '-', a
 * letters-only top level label, 4-255 bytes. */
static int internet_host(const char *p, size_t n)
{
	const char *dot;
	size_t tld;

	if (n < 4 || n > 255 || p[0] == '.' || p[0] == '-' || p[n - 1] == '-' || !memchr(p, '.', n))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!host_char((unsigned char)p[i]) || (p[i] == '.' && i + 1 < n && p[i + 1] == '.'))
			return 0;
	dot = memrchr(p, '.', n);
	tld = n - (size_t)(dot - p) - 1;
	if (!tld || tld > 63)
		return 0;
	for (size_t i = 0; i < tld; i++)
		if (!sd_isalpha((unsigned char)dot[1 + i]))
			return 0;
	return 1;
}

/* The longest host name among the tokens of [b, e). */
static sd_str longest_host(const char *b, const char *e)
{
	sd_str best = SD_NULLSTR;

	while (b < e) {
		const char *s;
		size_t n;
		while (b < e && !host_char((unsigned char)*b))
			b++;
		s = b;
		while (b < e && host_char((unsigned char)*b))
			b++;
		n = (size_t)(b - s);
		while (n && s[n - 1] == '.')
			n--;
		if (internet_host(s, n) && n > best.n)
			best = (sd_str){ s, n };
	}
	return best;
}

static const char host_word[] = "host "; /* three pairs start with it: searched once */

sd_str sd_host_find(sd_str t)
{
	static const struct {
		const char *a, *b;
	} pairs[] = {
		{ host_word, " said: " }, { host_word, " talk to me: " }, { "while talking to ", ":" },
		{ host_word, " [" }, { " by ", ". [" }, { "delivery failed for the following reason: ", " with" },
		{ "remote system: ", "(" }, { "smtp server <", ">" },
	};
	static const char *const after[] = { "generating server: " };
	const char *a, *b, *end, *host = NULL;
	int host_done = 0;

	if (!t.p || !t.n)
		return SD_NULLSTR;
	if (t.n > HF_MAX_TEXT)
		t.n = HF_MAX_TEXT;
	end = t.p + t.n;
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		size_t k = strlen(pairs[i].a);
		if (pairs[i].a == host_word) {
			if (!host_done++)
				host = sd_memcasemem(t.p, t.n, host_word, k);
			a = host;
		} else {
			a = sd_memcasemem(t.p, t.n, pairs[i].a, k);
		}
		if (!a)
			continue;
		a += k;
		if (!(b = sd_memcasemem(a, (size_t)(end - a), pairs[i].b, strlen(pairs[i].b))) || b <= a)
			continue;
		return longest_host(a, b);
	}
	for (size_t i = 0; i < sizeof(after) / sizeof(after[0]); i++)
		if ((a = sd_memcasemem(t.p, t.n, after[i], strlen(after[i]))) != NULL)
			return longest_host(a + strlen(after[i]), end);
	return SD_NULLSTR;
}
