/* codes.c - validate and flag reply codes and statuses against the knowledge base. */
#include "kb/codes.h"
#include "kb/kb.h"

#include "kb/vendor_words.h"

#include <pthread.h>
#include <stdlib.h>

#include <hs.h>

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
 * for "4.7.500-699"), and whether its snippet has text enough to recognise.
 * Matching a verdict against the rows is then integer compares, one scan of
 * the text for the rows' required words (kb/vendor_words.h), and the full
 * match only for the rows whose code matches and whose words all stand in it. */
typedef struct vrow {
	int cls, sub, dlo, dhi; /* cls 0: the row gives no status */
	int matchable;          /* its pieces hold SD_VENDOR_MATCH_MIN characters or more */
} vrow;

#define VW_SET (SD_VWORDS_MAX / 64)

/* The database of the rows' words: the embedded one, else compiled from the
 * words at first use (another Vectorscan build), else none: every row is then
 * matched in full. Scratch space is kept in a small pool, one per concurrent
 * caller. */
static hs_database_t *vwdb;
static pthread_once_t vw_once = PTHREAD_ONCE_INIT;
static int vw_off;
static pthread_mutex_t vw_lock = PTHREAD_MUTEX_INITIALIZER;
static hs_scratch_t *vw_pool[SD_VWORD_SCRATCH];
static int vw_npool;

static void vwords_compile(void)
{
	unsigned *flags = calloc(sd_vwords_n, sizeof(*flags)), *ids = calloc(sd_vwords_n, sizeof(*ids));
	size_t *lens = calloc(sd_vwords_n, sizeof(*lens));
	hs_compile_error_t *ce = NULL;

	for (unsigned i = 0; flags && ids && lens && i < sd_vwords_n; i++) {
		flags[i] = SD_VWORD_FLAGS;
		ids[i] = i;
		lens[i] = strlen(sd_vwords[i]);
	}
	if (!flags || !ids || !lens ||
	    hs_compile_lit_multi(sd_vwords, flags, ids, lens, sd_vwords_n, HS_MODE_BLOCK, NULL, &vwdb, &ce) !=
		    HS_SUCCESS) {
		hs_free_compile_error(ce);
		vwdb = NULL;
	}
	free(flags);
	free(ids);
	free(lens);
}

static void vwords_init(void)
{
	if (sd_vwords_nrows != sd_kb_nvendors || !sd_vwords_n || sd_vwords_n > SD_VWORDS_MAX)
		return;
	if (hs_deserialize_database((const char *)sd_vwords_db, sd_vwords_dblen, &vwdb) != HS_SUCCESS)
		vwords_compile();
}

static hs_scratch_t *scratch_take(void)
{
	hs_scratch_t *s = NULL;

	pthread_mutex_lock(&vw_lock);
	if (vw_npool)
		s = vw_pool[--vw_npool];
	pthread_mutex_unlock(&vw_lock);
	if (!s && hs_alloc_scratch(vwdb, &s) != HS_SUCCESS)
		s = NULL;
	return s;
}

static void scratch_give(hs_scratch_t *s)
{
	pthread_mutex_lock(&vw_lock);
	if (vw_npool < SD_VWORD_SCRATCH) {
		vw_pool[vw_npool++] = s;
		s = NULL;
	}
	pthread_mutex_unlock(&vw_lock);
	hs_free_scratch(s);
}

static int on_word(unsigned id, unsigned long long from, unsigned long long to, unsigned flags, void *ctx)
{
	uint64_t *set = ctx;
	(void)from;
	(void)to;
	(void)flags;
	set[id >> 6] |= 1ull << (id & 63);
	return 0;
}

/* The last text a thread read the words of, and its words: a text is often
 * matched again at once (the codes the record gives, then the ones it keeps). */
static _Thread_local struct {
	size_t tn; /* 0: none */
	char text[SD_VENDOR_TEXT_MAX];
	uint64_t set[VW_SET];
} vw_last;

/* The words of the text (at most SD_VENDOR_TEXT_MAX bytes), as bits of set; 0
 * when they could not be read (then every row counts as holding its words). */
static int words_of(const char *t, size_t tn, uint64_t *set)
{
	size_t nset = (sd_vwords_n + 63) / 64 * sizeof(*set);
	hs_scratch_t *s;
	int ok;

	memset(set, 0, nset);
	pthread_once(&vw_once, vwords_init); /* at the first text: a bare code needs no database */
	if (vw_off || !vwdb)
		return 0;
	if (tn && vw_last.tn == tn && !memcmp(vw_last.text, t, tn)) {
		memcpy(set, vw_last.set, nset);
		return 1;
	}
	if (!(s = scratch_take()))
		return 0;
	ok = hs_scan(vwdb, t, (unsigned)tn, 0, s, on_word, set) == HS_SUCCESS;
	scratch_give(s);
	vw_last.tn = 0;
	if (ok && tn && tn <= sizeof(vw_last.text)) {
		memcpy(vw_last.text, t, tn);
		memcpy(vw_last.set, set, nset);
		vw_last.tn = tn;
	}
	return ok;
}

void sd_vendor_words_off(int off)
{
	vw_off = off;
}

static int words_hold(size_t row, const uint64_t *set)
{
	for (unsigned k = sd_vrow_start[row]; k < sd_vrow_start[row + 1]; k++) {
		unsigned w = sd_vrow_words[k];
		if (!(set[w >> 6] & (1ull << (w & 63))))
			return 0;
	}
	return 1;
}

static vrow *vrows;
static pthread_once_t vonce = PTHREAD_ONCE_INIT;

/* Rows grouped by status (in table order within a group), so that a verdict
 * is compared with the rows of its own class and subject only: group 0 holds
 * the rows without a status, 1-24 those of classes 2, 4, 5 with subjects 0-7,
 * VB_OTHER the rest (a verdict with such a status is compared with all rows). */
#define VB_OTHER 25
static size_t *vidx, vstart[VB_OTHER + 2];
/* Within groups 1-24, the rows for one detail come first, by detail (then in
 * table order), and those for a range of details after them, in table order,
 * from vsplit[b]: a verdict's rows are then a binary search and a merge. */
static size_t vsplit[VB_OTHER + 1];
/* The rows of one detail merged on the stack: a group with more is read whole. */
#define VB_CANDS 256

static int vbucket(int cls, int sub)
{
	int c = cls == 2 ? 0 : cls == 4 ? 1 : cls == 5 ? 2 : -1;

	if (cls == 0)
		return 0;
	return c >= 0 && sub >= 0 && sub <= 7 ? 1 + c * 8 + sub : VB_OTHER;
}

static int vdetail_cmp(const void *x, const void *y)
{
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	int a = vrows[i].dlo != vrows[i].dhi, b = vrows[j].dlo != vrows[j].dhi;

	if (a != b)
		return a - b; /* one detail before a range */
	if (!a && vrows[i].dlo != vrows[j].dlo)
		return vrows[i].dlo < vrows[j].dlo ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* Order vidx[from, to) as vsplit says; returns where the ranges start. */
static size_t vgroup_sort(size_t from, size_t to)
{
	size_t k = from;

	qsort(vidx + from, to - from, sizeof(*vidx), vdetail_cmp);
	while (k < to && vrows[vidx[k]].dlo == vrows[vidx[k]].dhi)
		k++;
	return k;
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
	for (int b = 1; b < VB_OTHER; b++)
		vsplit[b] = vgroup_sort(vstart[b], vstart[b + 1]);
}

static int pieces_matchable(const char *const *pieces)
{
	size_t n = 0;

	for (; *pieces; pieces++)
		n += strlen(*pieces);
	return n >= SD_VENDOR_MATCH_MIN;
}

/* "4.7.500", "4.7.500-699", "5.7.900-5.7.999", "5.7.13 or 5.7.135" */
static void vrow_parse(const char *vs, vrow *r)
{
	sd_status st, hi;
	size_t n = strlen(vs), k;
	const char *dash = strchr(vs, '-');
	unsigned long d;

	r->cls = 0;
	k = sd_status_parse(vs, dash ? (size_t)(dash - vs) : n, &st);
	if (!k)
		return;
	r->cls = st.cls;
	r->sub = st.subject;
	r->dlo = r->dhi = st.detail;
	if (!dash)
		return;
	if (sd_status_parse(dash + 1, strlen(dash + 1), &hi) == strlen(dash + 1))
		r->dhi = hi.detail;
	else if (sd_parse_uint(dash + 1, strlen(dash + 1), 3, &d))
		r->dhi = (int)d;
}

static void vrows_init(void)
{
	vrows = calloc(sd_kb_nvendors ? sd_kb_nvendors : 1, sizeof(*vrows));
	if (!vrows)
		return;
	for (size_t i = 0; i < sd_kb_nvendors; i++) {
		vrow_parse(sd_kb_vendors[i].status, &vrows[i]);
		vrows[i].matchable = pieces_matchable(sd_kb_vendors[i].pieces);
	}
	vbuckets_init();
}

static int vrow_status_match(const vrow *r, const sd_status *st)
{
	return r->cls == st->cls && r->sub == st->subject && st->detail >= r->dlo && st->detail <= r->dhi;
}

/* A reply code (and status) that starts a continuation line folded into the
 * text: "550-5.7.26 ". Its length, 0 if none. */
static size_t continuation_len(const char *t, size_t tn, size_t i)
{
	size_t k = i;
	sd_status st;

	if (k + 4 > tn || !sd_isdigit((unsigned char)t[k]) || !sd_isdigit((unsigned char)t[k + 1]) ||
	    !sd_isdigit((unsigned char)t[k + 2]) || (t[k + 3] != '-' && t[k + 3] != ' '))
		return 0;
	k += 4;
	k += sd_status_parse(t + k, tn - k, &st);
	while (k < tn && sd_isspace((unsigned char)t[k]))
		k++;
	return k - i;
}

/* How many characters of piece p match the text from t[i]: case folded, any
 * run of white space matching any other, a folded continuation skipped.
 * *end receives where the match stops in the text. */
static size_t piece_prefix(const char *t, size_t tn, size_t i, const char *p, size_t pn, size_t *end)
{
	size_t k = 0;

	while (k < pn && i < tn) {
		if (sd_isspace((unsigned char)p[k]) && sd_isspace((unsigned char)t[i])) {
			while (k < pn && sd_isspace((unsigned char)p[k]))
				k++;
			while (i < tn && sd_isspace((unsigned char)t[i]))
				i++;
			if (k < pn && i < tn && sd_tolower((unsigned char)p[k]) != sd_tolower((unsigned char)t[i]))
				i += continuation_len(t, tn, i);
			continue;
		}
		if (sd_tolower((unsigned char)p[k]) != sd_tolower((unsigned char)t[i]))
			break;
		k++;
		i++;
	}
	*end = i;
	return k;
}

/* The first place from t[from] where at least need characters of p match;
 * returns the characters matched there (0: none) and the end in *end. */
static size_t piece_find(const char *t, size_t tn, size_t from, const char *p, size_t need, size_t *end)
{
	size_t pn = strlen(p);

	for (size_t i = from; i < tn; i++) {
		size_t m;
		if (sd_tolower((unsigned char)t[i]) != sd_tolower((unsigned char)p[0]))
			continue;
		m = piece_prefix(t, tn, i, p, pn, end);
		if (m >= need)
			return m;
	}
	return 0;
}

/* How well a text matches a row's pieces, in order: the first
 * SD_VENDOR_MATCH_CAP characters of the pieces must all be found; what matches
 * beyond that only adds to the score. 0: no match. */
static size_t pieces_score(const char *const *pieces, const char *t, size_t tn)
{
	size_t budget = SD_VENDOR_MATCH_CAP, pos = 0, score = 0, end;

	for (; *pieces; pieces++) {
		size_t pn = strlen(*pieces), need = budget < pn ? budget : pn;
		size_t m = piece_find(t, tn, pos, *pieces, need ? need : pn, &end);
		if (!m && need)
			return 0;
		if (m) {
			score += m;
			pos = end;
		}
		budget -= need;
	}
	return score;
}

size_t sd_vendor_text_score(const sd_kb_vendor *v, const char *text, size_t textlen)
{
	return text && textlen ? pieces_score(v->pieces, text, textlen) : 0;
}

/* X.0.0 says no more than the class: it is what a DSN or Postfix writes when
 * the reply carried no status, so a row without a status may match it. */
static int generic_status(const sd_status *st)
{
	return st && st->subject == 0 && st->detail == 0;
}

static int vrow_code_match(const vrow *r, const sd_kb_vendor *v, int rc, const sd_status *st, int loose)
{
	int ok = st ? vrow_status_match(r, st) || (loose && r->cls == 0 && generic_status(st)) : r->cls == 0;

	if (!ok)
		return 0;
	return !(v->replycode && rc && v->replycode != rc);
}

typedef struct vmatch {
	int rc;
	const sd_status *st;
	const char *text;
	size_t tn;
	uint64_t words[VW_SET];
	int scanned;     /* words read (on the first row that needs them) */
	int worded;      /* and known: 0 when the scan failed */
	size_t best;
	const sd_kb_vendor *hit;
} vmatch;

/* The rows of group b (1-24) for detail d, in table order, into out (at most
 * VB_CANDS); returns how many. */
static size_t vcands(int b, int d, size_t *out)
{
	size_t lo = vstart[b], hi = vsplit[b], e, r = vsplit[b], n = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (vrows[vidx[mid]].dlo < d)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (e = lo; e < vsplit[b] && vrows[vidx[e]].dlo == d; e++)
		;
	while (lo < e || r < vstart[b + 1]) {
		if (r < vstart[b + 1] && (vrows[vidx[r]].dlo > d || vrows[vidx[r]].dhi < d)) {
			r++;
			continue;
		}
		if (r < vstart[b + 1] && (lo == e || vidx[r] < vidx[lo]))
			out[n++] = vidx[r++];
		else
			out[n++] = vidx[lo++];
	}
	return n;
}

/* The best of the rows ix[0, n) (of the table's first n without ix) for the
 * text; *best carries the score across calls. */
static int vrange(vmatch *m, const size_t *ix, size_t n)
{
	for (size_t j = 0; j < n; j++) {
		size_t i = ix ? ix[j] : j, sc;
		const sd_kb_vendor *v = &sd_kb_vendors[i];
		if (!vrow_code_match(&vrows[i], v, m->rc, m->st, 1))
			continue;
		if (!m->tn) {
			if (m->rc && v->replycode == m->rc && v->differs) {
				m->hit = v;
				return 1;
			}
			continue;
		}
		if (!vrows[i].matchable)
			continue;
		if (!m->scanned) {
			m->worded = words_of(m->text, m->tn, m->words);
			m->scanned = 1;
		}
		if (m->worded && !words_hold(i, m->words))
			continue;
		sc = pieces_score(v->pieces, m->text, m->tn);
		if (sc > m->best) {
			m->best = sc;
			m->hit = v;
		}
	}
	return 0;
}

const sd_kb_vendor *sd_vendor_match(int rc, const sd_status *st, const char *text, size_t tn)
{
	vmatch m;
	size_t cands[VB_CANDS];
	int b, hit;

	pthread_once(&vonce, vrows_init);
	if (!vrows)
		return NULL;
	m.rc = rc;
	m.st = st && st->text[0] ? st : NULL;
	m.text = text;
	m.tn = tn > SD_VENDOR_TEXT_MAX ? SD_VENDOR_TEXT_MAX : tn;
	m.best = 0;
	m.hit = NULL;
	m.scanned = 0;
	b = m.st ? vbucket(st->cls, st->subject) : 0;
	if (!vidx || b == VB_OTHER) {
		vrange(&m, NULL, sd_kb_nvendors);
		return m.hit;
	}
	/* the rows of the status's group (those for its detail), and for a
	 * generic X.0.0 those that give no status (a provider that writes none) */
	if (b == 0 || vstart[b + 1] - vstart[b] > VB_CANDS || vw_off)
		hit = vrange(&m, vidx + vstart[b], vstart[b + 1] - vstart[b]);
	else
		hit = vrange(&m, cands, vcands(b, m.st->detail, cands));
	if (!hit && b != 0 && generic_status(m.st))
		vrange(&m, vidx + vstart[0], vstart[1] - vstart[0]);
	return m.hit;
}

size_t sd_vendor_rows_for_code(int rc, const sd_status *st, const sd_kb_vendor **out, size_t max)
{
	size_t n = 0;

	pthread_once(&vonce, vrows_init);
	if (!vrows || !st || !st->text[0])
		return 0;
	for (int ranges = 0; ranges < 2; ranges++) /* rows for this very code before ranges */
		for (size_t i = 0; i < sd_kb_nvendors && n < max; i++)
			if ((vrows[i].dlo != vrows[i].dhi) == ranges && vrow_code_match(&vrows[i], &sd_kb_vendors[i], rc, st, 0))
				out[n++] = &sd_kb_vendors[i];
	return n;
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

static unsigned code_issues(int rc, const sd_status *st, const char *text, size_t tn, const char **vendor,
			    const sd_kb_vendor *const *known);

unsigned sd_code_issues(int rc, const sd_status *st, const char *text, size_t tn, const char **vendor)
{
	return code_issues(rc, st, text, tn, vendor, NULL);
}

unsigned sd_code_issues_known(int rc, const sd_status *st, const sd_kb_vendor *v, const char *text, size_t tn)
{
	return code_issues(rc, st, text, tn, NULL, &v);
}

static unsigned code_issues(int rc, const sd_status *st, const char *text, size_t tn, const char **vendor,
			    const sd_kb_vendor *const *known)
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
	const sd_kb_vendor *v = known ? *known : sd_vendor_match(rc, st, text, tn);
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

int sd_status_basic_has_class(const sd_kb_status *ks, int cls)
{
	const char *b = ks && ks->basic ? ks->basic : "";

	for (; *b; b++)
		if (*b == cls && (b == ks->basic || !sd_isdigit((unsigned char)b[-1])) &&
		    sd_isdigit((unsigned char)b[1]))
			return 1;
	return 0;
}

int sd_codes_standard(unsigned issues, const sd_status *st)
{
	const sd_kb_status *ks;

	if (issues & (SMTPDIAG_ISSUE_NONSTANDARD_REPLY | SMTPDIAG_ISSUE_UNREGISTERED_STATUS))
		return 0;
	if (!(issues & SMTPDIAG_ISSUE_CLASS_NOT_ALLOWED) || !st)
		return 1;
	ks = sd_kb_find_status(st->subject, st->detail);
	return sd_status_basic_has_class(ks, '0' + st->cls);
}
