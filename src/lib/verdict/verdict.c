/* verdict.c - the command a recipient's failure text names, and whether it says
 * the failure is temporary. */
#include "verdict/verdict.h"

#include <pthread.h>
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
 * lifted, Aruba's "bloccato temporaneamente", WEB.DE's "temporär"), and a
 * delay notice's "delayed" (the MTA keeps the message and retries). Each
 * follows a blank or starts the text, so "contemporary" is none of them; a
 * capital that ASCII folding misses is listed as well. */
static const char *const temp_words[] = {
	" temporar", " persistent", " delayed", " delay in the delivery", " delay in delivery", " could not send message for past", /* en temporary, temporarily; a delay notice; Sendmail's delay warning (queue.c) */
	" tempor\xc3\xa4r", " vor\xc3\xbc" "bergehend", " verz\xc3\xb6gert", /* de temporär, vorübergehend, verzögert */
	" temporaire", " retard\xc3\xa9", /* fr temporaire, retardé */
	" temporalmente", " temporal ", " error temporal", " retrasad", /* es temporal, retrasado */
	" temporane", " ritardat", /* it temporaneo, temporaneamente, ritardato */
	" temporariamente", " tempor\xc3\xa1ri", " atrasad", /* pt temporário, temporariamente, atrasado */
	" tymczasow", " op\xc3\xb3\xc5\xbanion", /* pl tymczasowy, tymczasowo, opóźniony */
	" tijdelijk", " vertraagd", /* nl tijdelijk, vertraagd */
	" \xd0\xb2\xd1\x80\xd0\xb5\xd0\xbc\xd0\xb5\xd0\xbd\xd0\xbd", " \xd0\xb7\xd0\xb0\xd0\xb4\xd0\xb5\xd1\x80\xd0\xb6", " \xd1\x82\xd0\xb8\xd0\xbc\xd1\x87\xd0\xb0\xd1\x81\xd0\xbe\xd0\xb2", " \xd0\x92\xd1\x80\xd0\xb5\xd0\xbc\xd0\xb5\xd0\xbd\xd0\xbd", " \xd0\x97\xd0\xb0\xd0\xb4\xd0\xb5\xd1\x80\xd0\xb6", " \xd0\xa2\xd0\xb8\xd0\xbc\xd1\x87\xd0\xb0\xd1\x81\xd0\xbe\xd0\xb2", /* ru временно, временная, задержка; uk тимчасово */
	" do\xc4\x8d" "asn", " ideiglenes", " \xcf\x80\xcf\x81\xce\xbf\xcf\x83\xcf\x89\xcf\x81\xce\xb9\xce\xbd", " \xce\xa0\xcf\x81\xce\xbf\xcf\x83\xcf\x89\xcf\x81\xce\xb9\xce\xbd", " ge\xc3\xa7ici", /* cs dočasný, hu ideiglenes, el προσωρινό, tr geçici */
	" tillf\xc3\xa4llig", " midlertidig", " tilap\xc3\xa4i", " v\xc3\xa4liaikai", /* sv tillfälligt, da nb midlertidig, fi tilapäinen, väliaikainen */
	" t\xe1\xba\xa1m th\xe1\xbb\x9di", " sementara", /* vi tạm thời, id sementara */
	" f\xc3\xb6rsenad", " f\xc3\xb6rdr\xc3\xb6jd", " forsinket", " viiv\xc3\xa4sty", /* sv försenad, fördröjd, da nb forsinket, fi viivästynyt */
	" zpo\xc5\xbe" "d\xc4\x9bn", " k\xc3\xa9sik", " k\xc3\xa9sleltet", " \xc3\xaent\xc3\xa2rziat", " \xce\xba\xce\xb1\xce\xb8\xcf\x85\xcf\x83\xcf\x84\xce\xad\xcf\x81", " \xce\xba\xce\xb1\xce\xb8\xcf\x85\xcf\x83\xcf\x84\xce\xb5\xcf\x81", " gecik", " \xd0\xb7\xd0\xb0\xd1\x82\xd1\x80\xd0\xb8\xd0\xbc", /* cs zpožděno, hu késik, késleltetett, ro întârziat, el καθυστέρηση, tr gecikti, uk затримано */
	" tr\xc3\xac ho\xc3\xa3n", " tertunda", " \xd7\x96\xd7\x9e\xd7\xa0\xd7\x99", " \xd7\x9e\xd7\xaa\xd7\xa2\xd7\x9b\xd7\x91", " \xd7\x94\xd7\xaa\xd7\xa2\xd7\x9b\xd7\x91", " \xd9\x85\xd8\xa4\xd9\x82\xd8\xaa", " \xd8\xaa\xd8\xa3\xd8\xae\xd8\xb1", " \xd9\x85\xd8\xaa\xd8\xa3\xd8\xae\xd8\xb1", /* vi trì hoãn, id tertunda, he זמני, מתעכב, ar مؤقت, تأخر */
};
/* Scripts written without blanks between words: the word anywhere. */
static const char *const temp_words_cjk[] = {
	"\xe4\xb8\x80\xe6\x99\x82\xe7\x9a\x84", "\xe9\x81\x85\xe5\xbb\xb6", /* ja 一時的, 遅延 */
	"\xe4\xb8\xb4\xe6\x97\xb6", "\xe8\x87\xa8\xe6\x99\x82", "\xe6\x9a\x82\xe6\x97\xb6", "\xe6\x9a\xab\xe6\x99\x82", "\xe5\xbb\xb6\xe8\xbf\x9f", "\xe5\xbb\xb6\xe9\x81\xb2", /* zh 临时, 暂时, 延迟 (simplified and traditional) */
	"\xec\x9d\xbc\xec\x8b\x9c\xec\xa0\x81", "\xec\xa7\x80\xec\x97\xb0", /* ko 일시적, 지연 */
	"\xe0\xb8\x8a\xe0\xb8\xb1\xe0\xb9\x88\xe0\xb8\xa7\xe0\xb8\x84\xe0\xb8\xa3\xe0\xb8\xb2\xe0\xb8\xa7", "\xe0\xb8\xa5\xe0\xb9\x88\xe0\xb8\xb2\xe0\xb8\x8a\xe0\xb9\x89\xe0\xb8\xb2", /* th ชั่วคราว, ล่าช้า */
};

/* The words by their first byte (after their blank), both cases of an ASCII
 * letter: at a place only the words that start with its byte are compared.
 * Filled once, from the list itself. */
enum { TEMP_NWORDS = sizeof(temp_words) / sizeof(temp_words[0]) };
/* the words' indexes grouped by first byte (an ASCII letter under both of its
 * cases): those of byte c are temp_idx[temp_start[c]] up to temp_start[c + 1] */
static unsigned char temp_idx[2 * TEMP_NWORDS];
static unsigned short temp_start[257];
static pthread_once_t temp_first_once = PTHREAD_ONCE_INIT;

/* calls fn(c, k) for each first byte c word k is found by */
static void temp_firsts(void (*fn)(unsigned char, size_t))
{
	for (size_t k = 0; k < TEMP_NWORDS; k++) {
		unsigned char c = (unsigned char)temp_words[k][1];
		fn(c, k);
		if (c >= 'a' && c <= 'z')
			fn((unsigned char)(c - 32), k);
	}
}

static void temp_count(unsigned char c, size_t k)
{
	(void)k;
	temp_start[c + 1]++;
}

static void temp_place(unsigned char c, size_t k)
{
	static unsigned short fill[256];

	temp_idx[temp_start[c] + fill[c]++] = (unsigned char)k;
}

static void temp_first_init(void)
{
	_Static_assert(TEMP_NWORDS <= 255, "word indexes fit a byte");
	temp_firsts(temp_count);
	for (int c = 0; c < 256; c++)
		temp_start[c + 1] += temp_start[c];
	temp_firsts(temp_place);
}

/* Does one of the words start at i (at the start of the text or after a blank)? */
static int temp_word_at(const char *p, size_t n, size_t i)
{
	unsigned char c = (unsigned char)p[i];

	for (unsigned j = temp_start[c]; j < temp_start[c + 1]; j++) {
		const char *w = temp_words[temp_idx[j]] + 1; /* the word after its blank */
		size_t wl = strlen(w);
		if (n - i >= wl && sd_memcaseeq(p + i, w, wl))
			return 1;
	}
	return 0;
}

int sd_vd_greylisting(const char *p, size_t n)
{
	static const char *const g[] = { "greylist", "graylist", "grey-list", "gray-list" };

	for (size_t i = 0; p && i < sizeof(g) / sizeof(g[0]); i++)
		if (sd_memcasemem(p, n, g[i], strlen(g[i])))
			return 1;
	return 0;
}

int sd_vd_lifts_by_itself(const char *p, size_t n)
{
	/* besides the temporary words (temp_words above: "temporarily",
	 * "temporär", "tijdelijk" ... in every language of the rules) and
	 * greylisting, what receivers write beside a 5xx they mean as a
	 * deferral: a retry later; not a retry that will not succeed */
	static const char *const later[] = {
		"try again later", "try later", "retry later", "try again in ", "try again after ", "retry in ",
		"sp\xc3\xa4ter erneut", "sp\xc3\xa4ter noch einmal", "sp\xc3\xa4ter wieder", /* de */
		"plus tard", "m\xc3\xa1s tarde", "pi\xc3\xb9 tardi", "mais tarde", /* fr, es, it, pt */
		"later opnieuw", "probeer het later", "spr\xc3\xb3" "buj p\xc3\xb3\xc5\xba" "niej", /* nl, pl */
	};
	static const char *const never[] = {
		"will not succeed", "won't succeed", "not retry", "don't retry", "permanently", "not temporar",
		"not a temporar",
	};

	if (!p || !n)
		return 0;
	for (size_t i = 0; i < sizeof(never) / sizeof(never[0]); i++)
		if (sd_memcasemem(p, n, never[i], strlen(never[i])))
			return 0;
	if (sd_vd_is_temporary(p, n)) /* the temporary words, greylisting */
		return 1;
	for (size_t i = 0; i < sizeof(later) / sizeof(later[0]); i++)
		if (sd_memcasemem(p, n, later[i], strlen(later[i])))
			return 1;
	return 0;
}

int sd_vd_dns_failure(const char *p, size_t n)
{
	/* the DNS phrases of rules/network.rules and system.rules, as the MTAs
	 * named there write them (Postfix, glibc, Exim, qmail, Exchange, Gmail) */
	static const char *const d[] = {
		"temporary failure in name resolution", "temporary failure in mx lookup", "bad dns lookup error code",
		"host lookup did not complete", "couldn't find any host by that name", "cname lookup failed temporarily",
		"dns query failed", "servfail", "could not contact dns servers", "name service error",
		"host not found, try again",
	};

	for (size_t i = 0; p && i < sizeof(d) / sizeof(d[0]); i++)
		if (sd_memcasemem(p, n, d[i], strlen(d[i])))
			return 1;
	return 0;
}

int sd_vd_is_temporary(const char *p, size_t n)
{
	size_t i = 1;

	if (!p || !n)
		return 0;
	if (sd_text_class(p, n) == '4' || sd_vd_greylisting(p, n)) /* greylisting defers by definition */
		return 1;
	for (size_t k = 0; k < sizeof(temp_words_cjk) / sizeof(temp_words_cjk[0]); k++)
		if (sd_memmem(p, n, temp_words_cjk[k], strlen(temp_words_cjk[k])))
			return 1;
	pthread_once(&temp_first_once, temp_first_init);
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
