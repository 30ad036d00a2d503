/* codes.c - the code finder every caller asks: which enhanced status and
 * which reply code a free text (a Diagnostic-Code, a log line, a pasted
 * bounce) carries. The tokens are the ones sd_find_codes() reads (reply.c:
 * RFC 5321 reply codes, RFC 3463 statuses, and what is not one: versions,
 * IP addresses, dates and times, message and queue ids, percentages,
 * sizes); here are the two choices a caller makes among them. */
#include "smtp/reply.h"

#define SD_TEXT_CODES 32 /* codes read from one text; later ones are not looked at */

static int is_weak(const sd_status *st)
{
	/* X.0.0 says only the class; 4.4.7 only that the MTA gave up */
	return (st->subject == 0 && st->detail == 0) || (st->cls == 4 && st->subject == 4 && st->detail == 7);
}

static int starts(const char *s, const char *lit)
{
	return strncmp(s, lit, strlen(lit)) == 0;
}

/* Of two statuses of one class that disagree, the one that says more. */
static const char *prefer_same_class(const char *a, const char *b)
{
	const char *z1a = strstr(a, ".0"), *z1b = strstr(b, ".0");
	const char *z2a = strstr(a, ".0.0"), *z2b = strstr(b, ".0.0");

	if (z2a)
		return z2b ? a : b;
	if (z1a && !z1b)
		return b;
	if (z2b)
		return a;
	if (!strcmp(a, "4.4.7") || !strcmp(a, "4.7.0") || starts(a, "5.3."))
		return b;
	if (starts(a + 1, ".5.1") || starts(a + 1, ".5.2") || starts(a + 1, ".5.4") || starts(a + 1, ".5.5"))
		return b;
	if (!strcmp(a, "5.1.1"))
		return (z1b || starts(b, "5.5.")) ? a : b;
	if (!strcmp(a, "5.1.3") && starts(b, "5.7."))
		return b;
	return a;
}

const char *sd_status_prefer(const char *a, const char *b, int reply)
{
	int rc = reply ? '0' + reply / 100 : '0';

	if (!a || !a[0])
		return b ? b : "";
	if (!b || !b[0])
		return a;
	if (strlen(a) < 5)
		return b;
	if (strlen(b) < 5)
		return a;
	if (a[0] != b[0]) {
		if (rc == a[0])
			return a;
		if (rc == b[0])
			return b;
	}
	if (!strcmp(a, b))
		return a;
	return prefer_same_class(a, b);
}

/* "X-Unix" (a local mailer's exit code, not an SMTP reply) in the text? */
static int mentions_xunix(const char *p, size_t n)
{
	const char *q = p, *end = p + n;

	while (q < end && (q = memchr(q, '-', (size_t)(end - q))) != NULL) {
		if (q > p && (q[-1] | 32) == 'x' && end - q >= 5 && sd_memcaseeq(q + 1, "unix", 4))
			return 1;
		q++;
	}
	return 0;
}

static void status_of(const sd_found *f, size_t cnt, int cls, char out[SD_STATUS_MAX])
{
	const char *best = "", *weak = "";

	for (size_t i = 0; i < cnt; i++) {
		const sd_status *st = &f[i].status;
		if (!st->text[0] || (st->cls != 2 && st->cls != 4 && st->cls != 5) || (cls && st->text[0] != cls))
			continue;
		if (is_weak(st))
			weak = st->text;
		else
			best = sd_status_prefer(best, st->text, 0);
	}
	best = sd_status_prefer(best, weak, 0);
	sd_strlcpy(out, best, strlen(best), SD_STATUS_MAX);
}

void sd_text_status(const char *p, size_t n, int cls, char out[SD_STATUS_MAX])
{
	sd_found f[SD_TEXT_CODES];

	out[0] = 0;
	if (p && n >= 5)
		status_of(f, sd_find_codes(p, n, f, SD_TEXT_CODES), cls, out);
}

/* The reply codes that mean what they say wherever they stand, most telling first. */
static const short reply2[] = { 211, 214, 220, 221, 235, 250, 251, 252, 253, 334, 354, 0 };
static const short reply4[] = { 421, 450, 451, 452, 422, 430, 432, 453, 454, 455, 458, 459, 0 };
static const short reply5[] = { 550, 552, 553, 551, 521, 525, 523, 524, 530, 533, 534,
				535, 538, 555, 556, 554, 500, 501, 502, 503, 504, 0 };

static int listed(const sd_found *f, size_t cnt, const short *list)
{
	for (; *list; list++)
		for (size_t i = 0; i < cnt; i++)
			if (f[i].replycode == *list)
				return *list;
	return 0;
}

/* A code outside the lists (431, 571 ...) counts when a status of its class
 * follows it: "431 4.3.1". */
static int paired(const sd_found *f, size_t cnt, int cls)
{
	for (size_t i = 0; i < cnt; i++) {
		int c = f[i].replycode;
		if (c >= 400 && f[i].status.cls == c / 100 && (!cls || c / 100 == cls - '0'))
			return c;
	}
	return 0;
}

static int reply_of(const sd_found *f, size_t cnt, int cls)
{
	int r;

	if (cls == '2' || cls == '4' || cls == '5')
		r = listed(f, cnt, cls == '2' ? reply2 : cls == '4' ? reply4 : reply5);
	else if (!(r = listed(f, cnt, reply5)) && !(r = listed(f, cnt, reply4)))
		r = listed(f, cnt, reply2);
	if (r)
		return r;
	return cls == '2' ? 0 : paired(f, cnt, cls);
}

int sd_text_reply(const char *p, size_t n, int cls)
{
	sd_found f[SD_TEXT_CODES];

	if (!p || n < 3 || mentions_xunix(p, n))
		return 0;
	return reply_of(f, sd_find_codes(p, n, f, SD_TEXT_CODES), cls);
}

int sd_text_codes(const char *p, size_t n, char status[SD_STATUS_MAX])
{
	sd_found f[SD_TEXT_CODES];
	size_t cnt;

	status[0] = 0;
	if (!p || n < 3)
		return 0;
	cnt = sd_find_codes(p, n, f, SD_TEXT_CODES);
	if (n >= 5)
		status_of(f, cnt, 0, status);
	return mentions_xunix(p, n) ? 0 : reply_of(f, cnt, status[0]);
}

int sd_text_class(const char *p, size_t n)
{
	sd_found f[SD_TEXT_CODES];
	char st[SD_STATUS_MAX] = "";
	size_t cnt;
	int r;

	if (!p || n < 3)
		return 0;
	cnt = sd_find_codes(p, n, f, SD_TEXT_CODES);
	if (n >= 5)
		status_of(f, cnt, 0, st);
	if (st[0])
		return st[0];
	r = mentions_xunix(p, n) ? 0 : reply_of(f, cnt, 0);
	return r ? '0' + r / 100 : 0;
}
