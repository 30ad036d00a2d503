/* codes.c - validate and flag reply codes and statuses against the knowledge base. */
#include "explain.h"
#include "kb.h"

#include <stdlib.h>

static const char *const issue_names[] = {
	"nonstandard-reply-code", "unregistered-status", "vendor-redefined",
	"class-mismatch", "class-not-allowed",
};

const char *smtpdiag_issue_name(unsigned bit)
{
	for (unsigned i = 0; i < sizeof(issue_names) / sizeof(issue_names[0]); i++)
		if (bit == 1u << i)
			return issue_names[i];
	return NULL;
}

void smtpdiag_issues_json(unsigned issues, smtpdiag_buf *out)
{
	sd_buf *b = (sd_buf *)out;
	int first = 1;

	sd_buf_putc(b, '[');
	for (unsigned i = 0; i < sizeof(issue_names) / sizeof(issue_names[0]); i++) {
		if (!(issues & (1u << i)))
			continue;
		if (!first)
			sd_buf_putc(b, ',');
		sd_buf_json_cstr(b, issue_names[i]);
		first = 0;
	}
	sd_buf_putc(b, ']');
}

smtpdiag_class sd_code_class(int replycode, const sd_status *st)
{
	int d = replycode ? replycode / 100 : (st && st->text[0] ? st->cls : 0);

	switch (d) {
	case 2: return SMTPDIAG_CLASS_SUCCESS;
	case 3: return SMTPDIAG_CLASS_INTERMEDIATE;
	case 4: return SMTPDIAG_CLASS_TRANSIENT;
	case 5: return SMTPDIAG_CLASS_PERMANENT;
	default: return SMTPDIAG_CLASS_NONE;
	}
}

const char *smtpdiag_class_name(smtpdiag_class c)
{
	static const char *const names[] = { "", "success", "intermediate", "transient", "permanent" };
	return (unsigned)c < 5 ? names[c] : "";
}

/* Does the vendor row's status field ("4.7.500-699", "5.7.26") cover st? */
static int vendor_status_match(const char *vs, const sd_status *st)
{
	size_t n = strlen(st->text);
	const char *dash;
	unsigned long lo, hi;

	if (!*vs || !st->text[0])
		return 0;
	if (!strcmp(vs, st->text))
		return 1;
	dash = strchr(vs, '-');
	if (!dash || (size_t)(dash - vs) < 5)
		return 0;
	/* range in the detail: "4.7.500-699" */
	const char *lastdot = memrchr(vs, '.', (size_t)(dash - vs));
	if (!lastdot || (size_t)(lastdot - vs) + 1 > n || memcmp(vs, st->text, (size_t)(lastdot - vs) + 1))
		return 0;
	if (!sd_parse_uint(lastdot + 1, (size_t)(dash - lastdot - 1), 3, &lo) ||
	    !sd_parse_uint(dash + 1, strlen(dash + 1), 3, &hi))
		return 0;
	return st->detail >= (int)lo && st->detail <= (int)hi;
}

/* The snippet's opening words (before " ...") found in text? */
static int snippet_in(const char *snip, const char *text, size_t n)
{
	size_t len = strlen(snip);
	const char *dots = strstr(snip, "...");

	if (dots)
		len = (size_t)(dots - snip);
	while (len && snip[len - 1] == ' ')
		len--;
	if (len > 48)
		len = 48;
	if (len < 8 || !n)
		return 0;
	return sd_memcasemem(text, n, snip, len) != NULL;
}

static const struct {
	const char *marker;
	const char *vendor;
} markers[] = {
	{ "STOREDRV", "Microsoft Exchange" },
	{ "protection.outlook.com", "Microsoft Exchange Online" },
	{ "gsmtp", "Google (Gmail / Workspace)" },
	{ "support.google.com", "Google (Gmail / Workspace)" },
	{ "yahoo", "Yahoo" },
	{ "icloud.com", "Apple (iCloud Mail)" },
};

const sd_kb_vendor *sd_vendor_match(int rc, const sd_status *st, const char *text, size_t tn)
{
	int has_st = st && st->text[0];

	for (size_t i = 0; i < sd_kb_nvendors; i++) {
		const sd_kb_vendor *v = &sd_kb_vendors[i];
		int stm = has_st ? vendor_status_match(v->status, st) : !v->status[0];
		int rcm = !v->replycode || !rc || v->replycode == rc;
		if (!stm || !rcm)
			continue;
		if (tn ? snippet_in(v->snippet, text, tn) : (rc && v->replycode == rc && v->differs))
			return v;
	}
	return NULL;
}

unsigned sd_code_issues(int rc, const sd_status *st, const char *text, size_t tn, const char **vendor)
{
	unsigned f = 0;
	int has_st = st && st->text[0];
	const sd_kb_status *ks = has_st ? sd_kb_find_status(st->subject, st->detail) : NULL;
	const sd_kb_reply *kr = rc ? sd_kb_find_reply(rc) : NULL;
	const char *vname = NULL;

	if (rc && (!kr || !kr->defined))
		f |= SMTPDIAG_ISSUE_NONSTANDARD_REPLY;
	if (has_st && !ks)
		f |= SMTPDIAG_ISSUE_UNREGISTERED_STATUS;
	if (rc && has_st && rc / 100 != st->cls)
		f |= SMTPDIAG_ISSUE_CLASS_MISMATCH;
	if (ks && !(ks->allowed & (1u << st->cls)))
		f |= SMTPDIAG_ISSUE_CLASS_NOT_ALLOWED;
	const sd_kb_vendor *v = sd_vendor_match(rc, st, text, tn);
	if (v) {
		vname = v->vendor;
		if (v->differs)
			f |= SMTPDIAG_ISSUE_VENDOR_REDEFINED;
	}
	/* a registered reply code that a vendor reuses with another status (432 4.3.2) */
	if (!vname && rc && has_st && kr && kr->defined && sd_kb_find_nonstd(rc)) {
		for (size_t i = 0; i < sd_kb_nvendors; i++)
			if (sd_kb_vendors[i].replycode == rc && vendor_status_match(sd_kb_vendors[i].status, st)) {
				vname = sd_kb_vendors[i].vendor;
				f |= SMTPDIAG_ISSUE_VENDOR_REDEFINED;
				break;
			}
	}
	for (size_t i = 0; !vname && tn && i < sizeof(markers) / sizeof(markers[0]); i++)
		if (sd_memcasemem(text, tn, markers[i].marker, strlen(markers[i].marker)))
			vname = markers[i].vendor;
	if (vendor)
		*vendor = vname;
	return f;
}

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
