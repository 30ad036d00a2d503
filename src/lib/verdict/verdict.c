/* verdict.c - the command a recipient's failure text names, and whether it says
 * the failure is temporary. */
#include "verdict/verdict.h"

#include <stdlib.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ---- SMTP command ---- */

static int cmd_word_ok(const char *p, size_t n, size_t at, size_t len)
{
	int a = at > 0 ? (unsigned char)p[at - 1] : ' ';
	int z = at + len < n ? (unsigned char)p[at + len] : ' ';

	return !(sd_isalnum(a) || a == '@' || a == '`' || sd_isalnum(z) || z == '@' || z == '`');
}

/* Can an SMTP command word start with c? (H E S A M R D Q X) */
static int command_initial(int c)
{
	switch (c) {
	case 'H': case 'E': case 'S': case 'A': case 'M': case 'R': case 'D': case 'Q': case 'X':
		return 1;
	default:
		return 0;
	}
}

/* The first capital letter A-X in p[i, end), or end; with SSE2 sixteen bytes
 * a step (a text is mostly lowercase). */
static size_t next_capital(const char *p, size_t i, size_t end)
{
#if defined(__SSE2__)
	const __m128i a = _mm_set1_epi8('A'), span = _mm_set1_epi8('X' - 'A');
	for (; i < end && end - i >= 16; i += 16) {
		__m128i d = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + i)), a);
		/* d <= 'X' - 'A' as an unsigned byte: a capital A-X */
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(d, span), d));
		if (m)
			return i + (size_t)__builtin_ctz(m);
	}
#endif
	while (i < end && (unsigned char)(p[i] - 'A') > 'X' - 'A')
		i++;
	return i;
}

const char *sd_vd_command_find(const char *p, size_t n)
{
#define DET(lit, cmd) { lit, sizeof(lit) - 1, cmd }
	static const struct {
		const char *lit;
		size_t len;
		const char *cmd;
	} det[] = {
		DET("HELO", "HELO"), DET("EHLO", "EHLO"), DET("STARTTLS", "STARTTLS"), DET("AUTH PLAIN", "AUTH"),
		DET("AUTH LOGIN", "AUTH"), DET("AUTH CRAM-", "AUTH"), DET("AUTH DIGEST-", "AUTH"),
		DET("MAIL F", "MAIL"), DET("RCPT", "RCPT"), DET("RCPT T", "RCPT"), DET("DATA", "DATA"),
		DET("QUIT", "QUIT"), DET("XFORWARD", "XFORWARD"),
	};
#undef DET
	enum { NDET = sizeof(det) / sizeof(det[0]) };
	long first[NDET];
	const char *last = "";

	if (!p || n < 4)
		return "";
	for (size_t k = 0; k < NDET; k++)
		first[k] = -1;
	/* one pass: the first place each command word occurs */
	for (size_t i = 0; (i = next_capital(p, i, n - 3)) < n - 3; i++) {
		if (!command_initial((unsigned char)p[i]))
			continue;
		for (size_t k = 0; k < NDET; k++)
			if (first[k] < 0 && det[k].lit[0] == p[i] && i + det[k].len <= n &&
			    !memcmp(p + i, det[k].lit, det[k].len))
				first[k] = (long)i;
	}
	for (size_t k = 0; k < NDET; k++) {
		if (first[k] < 0)
			continue;
		if (!memchr(det[k].lit, ' ', det[k].len) && !cmd_word_ok(p, n, (size_t)first[k], det[k].len))
			continue;
		last = det[k].cmd;
	}
	return last;
}

/* Words that say a refusal lasts a while, in the languages of the rules: a
 * text without a code that holds one is transient (a block "temporarily"
 * lifted, Aruba's "bloccato temporaneamente", WEB.DE's "temporär"), and
 * greylisting, which is a deferral by definition (RFC 6647 2.1). Each
 * follows a blank or starts the text, so "contemporary" is none of them. */
static const char *const temp_words[] = {
	" temporar",   /* en temporary, temporarily */
	" persistent", /* en persistent (transient) failure */
	" tempor\xc3\xa4r", " vor\xc3\xbc" "bergehend", /* de temporär, vorübergehend */
	" temporaire", /* fr temporaire, temporairement */
	" temporalmente", " temporal ", /* es, pt */
	" temporaneamente", /* it */
	" temporariamente", /* pt */
	" tymczasowo", /* pl */
	" tijdelijk", /* nl */
	" \xd0\xb2\xd1\x80\xd0\xb5\xd0\xbc\xd0\xb5\xd0\xbd\xd0\xbd\xd0\xbe", /* ru временно */
	" greylist", " graylist", " grey-list", " gray-list", " greylisted", /* greylisting */
};

/* Does one of the words start at i (at the start of the text or after a blank)? */
static int temp_word_at(const char *p, size_t n, size_t i)
{
	int c = sd_tolower((unsigned char)p[i]);

	/* the first letters of the words: t p v g, and the lead byte of the Cyrillic */
	if (c != 't' && c != 'p' && c != 'v' && c != 'g' && c != 0xd0)
		return 0;
	for (size_t k = 0; k < sizeof(temp_words) / sizeof(temp_words[0]); k++) {
		const char *w = temp_words[k] + 1; /* the word after its blank */
		size_t wl = strlen(w);
		if (sd_caseeq((unsigned char)p[i], (unsigned char)w[0]) && n - i >= wl && sd_memcaseeq(p + i, w, wl))
			return 1;
	}
	return 0;
}

int sd_vd_is_temporary(const char *p, size_t n)
{
	size_t i = 1;

	if (!p || !n)
		return 0;
	if (sd_text_class(p, n) == '4')
		return 1;
	/* one pass: the start of the text, then each place after a blank */
	if (temp_word_at(p, n, 0))
		return 1;
#if defined(__SSE2__)
	{
		const __m128i sp = _mm_set1_epi8(' ');
		for (; n - i >= 16; i += 16) { /* the bytes before places i to i + 15 */
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i - 1));
			for (unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, sp)); m; m &= m - 1)
				if (temp_word_at(p, n, i + (size_t)__builtin_ctz(m)))
					return 1;
		}
	}
#endif
	for (; i < n; i++)
		if (p[i - 1] == ' ' && temp_word_at(p, n, i))
			return 1;
	return 0;
}
