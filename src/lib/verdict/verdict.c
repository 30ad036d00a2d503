/* verdict.c - status, reply code and reason of one recipient's failure text. */
#include "verdict/verdict.h"

#include <stdlib.h>

#define SD_VD_MAXCODES 32 /* statuses collected from one text */

/* ---- enhanced status codes ---- */

static int isd(int c)
{
	return c >= '0' && c <= '9';
}

/* Does an IPv4 address (four dotted numbers) start at p? */
static int ipv4_at(const char *p, const char *end)
{
	for (int part = 0; part < 4; part++) {
		int k = 0;
		while (p < end && isd((unsigned char)*p) && k < 4) {
			p++;
			k++;
		}
		if (k == 0 || k > 3)
			return 0;
		if (part < 3) {
			if (p >= end || *p != '.')
				return 0;
			p++;
		}
	}
	return p >= end || !isd((unsigned char)*p);
}

/* A status at p: class '2','4','5', subject 0-7, detail 1-3 digits. Writes it
 * and returns 1 (2 for the weak codes X.0.0 and 4.4.7), 0 when none. */
static int status_at(const char *s, const char *p, const char *end, int cls, char out[SD_STATUS_MAX])
{
	int prev = p > s ? (unsigned char)p[-1] : ' ';
	size_t k = 4;

	if (end - p < 5 || p[1] != '.' || (cls ? *p != cls : (*p != '2' && *p != '4' && *p != '5')))
		return 0;
	if ((prev >= '.' && prev <= '9') || prev == 'v' || prev == 'V')
		return 0;
	if (p[2] < '0' || p[2] > '7' || p[3] != '.' || !isd((unsigned char)p[4]) || ipv4_at(p, end))
		return 0;
	if ((p[2] == '0' && p[4] == '0') || !memcmp(p, "4.4.7", 5))
		k = 5;
	if (k == 5) {
		memcpy(out, p, 5);
		out[5] = 0;
		return 2;
	}
	while (k < 7 && p + k < end && isd((unsigned char)p[k]))
		k++;
	if (p + k < end && isd((unsigned char)p[k]))
		return 0;
	memcpy(out, p, k);
	out[k] = 0;
	return 1;
}

void sd_vd_status_find(const char *p, size_t n, int cls, char out[SD_STATUS_MAX])
{
	static const char empty[SD_STATUS_MAX];
	char found[SD_VD_MAXCODES][SD_STATUS_MAX], weak[SD_STATUS_MAX] = "", cur[SD_STATUS_MAX];
	const char *end, *best, *d, *dlast;
	size_t nf = 0;

	out[0] = 0;
	if (!p || n < 5)
		return;
	end = p + n;
	dlast = end - 4; /* a status "c.s.d" starts one byte before its first dot */
	for (d = p + 1; d <= dlast && nf < SD_VD_MAXCODES; ) {
		const char *q;
		int r;
		if (!(d = memchr(d, '.', (size_t)(dlast - d) + 1)))
			break;
		q = d - 1;
		r = (*q == '2' || *q == '4' || *q == '5') ? status_at(p, q, end, cls, cur) : 0;
		if (r == 2)
			memcpy(weak, cur, sizeof(cur));
		else if (r == 1)
			memcpy(found[nf++], cur, sizeof(cur));
		d = r ? q + 6 : d + 1; /* after a status, the next one starts 5 bytes on at least */
	}
	if (weak[0] && nf < SD_VD_MAXCODES)
		memcpy(found[nf++], weak, sizeof(weak));
	if (!nf)
		return;
	best = found[0];
	for (size_t i = 1; i < nf; i++)
		best = sd_vd_prefer(best, found[i], 0);
	memcpy(out, best ? best : empty, SD_STATUS_MAX);
	out[SD_STATUS_MAX - 1] = 0;
}

static int starts(const char *s, const char *lit)
{
	return strncmp(s, lit, strlen(lit)) == 0;
}

/* Rules for two statuses that disagree (see verdict.h). */
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

const char *sd_vd_prefer(const char *a, const char *b, int reply)
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

/* ---- reply codes ---- */

static const short reply2[] = { 211, 214, 220, 221, 235, 250, 251, 252, 253, 334, 354, 0 };
static const short reply4[] = { 421, 450, 451, 452, 422, 430, 432, 453, 454, 455, 458, 459, 0 };
static const short reply5[] = { 550, 552, 553, 551, 521, 525, 523, 524, 530, 533, 534,
				535, 538, 555, 556, 554, 500, 501, 502, 503, 504, 0 };

static int codechar(int c)
{
	return c >= '.' && c <= '9';
}

/* What one pass over a text finds of reply codes. */
typedef struct reply_scan {
	unsigned char seen[600]; /* codes 200-599 that stand alone in the text */
	int paired[2];           /* first "4xy 4." and "5xy 5." pairing (see below), 0 if none */
	int paired_any;          /* the first of either */
} reply_scan;

/* A code outside the usual lists (431, 571 ...) counts when it stands right
 * before a status of its class: "431 4.3.1". b starts a lone three-digit run. */
static int reply_pairs(const char *p, size_t n, size_t b)
{
	int c = (p[b] - '0') * 100 + (p[b + 1] - '0') * 10 + (p[b + 2] - '0');

	if (b + 9 > n || (p[b + 3] != ' ' && p[b + 3] != '-') || p[b + 4] != p[b] || p[b + 5] != '.')
		return 0;
	return (p[b] == '4' || p[b] == '5') && c % 100 < 60 && c / 10 % 10 <= 5 ? c : 0;
}

/* Every reply code that stands alone in text: a run of exactly three digits
 * with no digit, '.' or '/' right before or after it. One pass. */
static void reply_marks(const char *p, size_t n, reply_scan *rs)
{
	size_t i = 0;
	int c;

	while (i < n) {
		size_t b;
		while (i < n && !isd((unsigned char)p[i]))
			i++;
		if (i == n)
			break;
		b = i;
		while (i < n && isd((unsigned char)p[i]))
			i++;
		if (i - b != 3 || (b > 0 && codechar((unsigned char)p[b - 1])) ||
		    (i < n && codechar((unsigned char)p[i])))
			continue;
		if (p[b] >= '2' && p[b] <= '5')
			rs->seen[(p[b] - '0') * 100 + (p[b + 1] - '0') * 10 + (p[b + 2] - '0')] = 1;
		if ((c = reply_pairs(p, n, b)) != 0) {
			if (!rs->paired[c / 100 - 4])
				rs->paired[c / 100 - 4] = c;
			if (!rs->paired_any)
				rs->paired_any = c;
		}
	}
}

static int reply_list(const unsigned char *seen, const short *list)
{
	for (; *list; list++)
		if (seen[*list])
			return *list;
	return 0;
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

int sd_vd_reply_find(const char *p, size_t n, int cls)
{
	reply_scan rs;
	int r;

	if (!p || n < 3 || mentions_xunix(p, n))
		return 0;
	memset(&rs, 0, sizeof(rs));
	reply_marks(p, n, &rs);
	if (cls == '2' || cls == '4' || cls == '5')
		r = reply_list(rs.seen, cls == '2' ? reply2 : cls == '4' ? reply4 : reply5);
	else if (!(r = reply_list(rs.seen, reply5)) && !(r = reply_list(rs.seen, reply4)))
		r = reply_list(rs.seen, reply2);
	if (r)
		return r;
	if (!cls)
		return rs.paired_any;
	return cls == '4' || cls == '5' ? rs.paired[cls - '4'] : 0;
}

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
	for (size_t i = 0; i + 4 <= n; i++) {
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

/* Class digit of the status in text, else of the reply code; 0 if none. */
static int first_code_class(const char *p, size_t n)
{
	char st[SD_STATUS_MAX];
	int r;

	sd_vd_status_find(p, n, 0, st);
	if (st[0])
		return st[0];
	r = sd_vd_reply_find(p, n, 0);
	return r ? '0' + r / 100 : 0;
}

int sd_vd_is_temporary(const char *p, size_t n)
{
	if (!p || !n)
		return 0;
	if (first_code_class(p, n) == '4')
		return 1;
	return sd_memcasemem(p, n, " temporar", 9) || sd_memcasemem(p, n, " persistent", 11);
}
