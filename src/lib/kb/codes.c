/* codes.c - validate and flag reply codes and statuses against the knowledge base. */
#include "kb/codes.h"
#include "kb/kb.h"

#include <pthread.h>
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

	if (!b)
		return;
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

/* The vendor table, prepared once: each row's status as numbers (a detail range
 * for "4.7.500-699"), and the length of its snippet's opening words. Matching a
 * verdict against 254 rows is then integer compares, and a text search only for
 * the rows whose code matches. */
typedef struct vrow {
	int cls, sub, dlo, dhi; /* cls 0: the row gives no status */
	size_t sniplen;         /* 0: too short to recognise */
} vrow;

static vrow *vrows;
static pthread_once_t vonce = PTHREAD_ONCE_INIT;

/* Rows grouped by status (in table order within a group), so that a verdict
 * is compared with the rows of its own class and subject only: group 0 holds
 * the rows without a status, 1-24 those of classes 2, 4, 5 with subjects 0-7,
 * VB_OTHER the rest (a verdict with such a status is compared with all rows). */
#define VB_OTHER 25
static size_t *vidx, vstart[VB_OTHER + 2];

static int vbucket(int cls, int sub)
{
	int c = cls == 2 ? 0 : cls == 4 ? 1 : cls == 5 ? 2 : -1;

	if (cls == 0)
		return 0;
	return c >= 0 && sub >= 0 && sub <= 7 ? 1 + c * 8 + sub : VB_OTHER;
}

static void vbuckets_init(void)
{
	size_t fill[VB_OTHER + 1];

	vidx = calloc(sd_kb_nvendors ? sd_kb_nvendors : 1, sizeof(*vidx));
	if (!vidx)
		return;
	for (size_t i = 0; i < sd_kb_nvendors; i++)
		vstart[vbucket(vrows[i].cls, vrows[i].sub) + 1]++;
	for (int b = 0; b <= VB_OTHER; b++) {
		vstart[b + 1] += vstart[b];
		fill[b] = vstart[b];
	}
	for (size_t i = 0; i < sd_kb_nvendors; i++)
		vidx[fill[vbucket(vrows[i].cls, vrows[i].sub)]++] = i;
}

static size_t snippet_len(const char *snip)
{
	size_t len = strlen(snip);
	const char *dots = strstr(snip, "...");

	if (dots)
		len = (size_t)(dots - snip);
	while (len && snip[len - 1] == ' ')
		len--;
	if (len > 48)
		len = 48;
	return len < 8 ? 0 : len;
}

static void vrow_parse(const char *vs, vrow *r)
{
	sd_status st;
	size_t n = strlen(vs), k;
	const char *dash = strchr(vs, '-');
	unsigned long hi;

	r->cls = 0;
	k = sd_status_parse(vs, dash ? (size_t)(dash - vs) : n, &st);
	if (!k)
		return;
	r->cls = st.cls;
	r->sub = st.subject;
	r->dlo = r->dhi = st.detail;
	if (dash && sd_parse_uint(dash + 1, strlen(dash + 1), 3, &hi))
		r->dhi = (int)hi;
}

static void vrows_init(void)
{
	vrows = calloc(sd_kb_nvendors ? sd_kb_nvendors : 1, sizeof(*vrows));
	if (!vrows)
		return;
	for (size_t i = 0; i < sd_kb_nvendors; i++) {
		vrow_parse(sd_kb_vendors[i].status, &vrows[i]);
		vrows[i].sniplen = snippet_len(sd_kb_vendors[i].snippet);
	}
	vbuckets_init();
}

static int vrow_status_match(const vrow *r, const sd_status *st)
{
	return r->cls == st->cls && r->sub == st->subject && st->detail >= r->dlo && st->detail <= r->dhi;
}

const sd_kb_vendor *sd_vendor_match(int rc, const sd_status *st, const char *text, size_t tn)
{
	int has_st = st && st->text[0], b;
	size_t from = 0, to = sd_kb_nvendors;

	pthread_once(&vonce, vrows_init);
	if (!vrows)
		return NULL;
	b = has_st ? vbucket(st->cls, st->subject) : 0;
	if (vidx && b != VB_OTHER) {
		from = vstart[b];
		to = vstart[b + 1];
	}
	for (size_t j = from; j < to; j++) {
		size_t i = vidx && b != VB_OTHER ? vidx[j] : j;
		const sd_kb_vendor *v = &sd_kb_vendors[i];
		const vrow *r = &vrows[i];
		if (has_st ? !vrow_status_match(r, st) : r->cls != 0)
			continue;
		if (v->replycode && rc && v->replycode != rc)
			continue;
		if (tn ? r->sniplen && sd_memcasemem(text, tn, v->snippet, r->sniplen)
		       : (rc && v->replycode == rc && v->differs))
			return v;
	}
	return NULL;
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
		for (size_t i = 0; vrows && i < sd_kb_nvendors; i++)
			if (sd_kb_vendors[i].replycode == rc && vrow_status_match(&vrows[i], st)) {
				vname = sd_kb_vendors[i].vendor;
				f |= SMTPDIAG_ISSUE_VENDOR_REDEFINED;
				break;
			}
	}
	for (size_t i = 0; vendor && !vname && tn && i < sizeof(markers) / sizeof(markers[0]); i++)
		if (sd_memcasemem(text, tn, markers[i].marker, strlen(markers[i].marker)))
			vname = markers[i].vendor;
	if (vendor)
		*vendor = vname;
	return f;
}
