/* scan.c - log lines to delivery records: the public scanner API.
 *
 * See scan.h for the three steps. This file owns step 3: the codes of the
 * remote's reply, the time, the delay, and the verdict, which is decode's:
 * the same reason decision (verdict.h) on the same kind of text. Sent lines
 * need no reason scan; only failures go through the classifier. */
#include "scan/scan.h"
#include "scan/scan_formats.h"
#include "mime/datetime.h"
#include "verdict/classify.h"
#include "kb/codes.h"
#include "smtp/reply.h"
#include "verdict/engine.h"
#include "verdict/userrules.h"

#include <stdlib.h>
#include <time.h>

#define SD_SCAN_ISSUE_CACHE 16 /* (reply code, status) pairs of sent lines remembered */
#define SD_SCAN_VCACHE 256     /* verdicts of failures and rejects remembered, by their inputs */
#define SD_SCAN_VKEY_MAX 768   /* bytes of such inputs; a longer key is decided afresh */

struct smtpdiag_scanner {
	unsigned flags;
	sd_arena arena;
	sd_classifier *cls;
	sd_urun *user;           /* the user's rules and this scanner's scratch, or NULL */
	sd_logline line;
	const char *hdr_of;      /* the line line.h was read from in this call, else NULL */
	sd_lograw raws[SD_SCAN_MAX_RECORDS];
	smtpdiag_logrec recs[SD_SCAN_MAX_RECORDS];
	size_t nrecs;
	int ref_year, ref_mon;   /* for RFC 3164 times (no year) */
	int64_t tz_hour;         /* last local hour looked up, and its offset */
	long tz_off;
	int tz_valid;
	struct {                 /* issues and verdict of the codes of sent lines, by pair */
		int rc, valid;
		char status[SD_STATUS_MAX];
		unsigned issues;
		int has_verdict;     /* v is the verdict of a delivery with these codes */
		sd_verdict v;
	} ic[SD_SCAN_ISSUE_CACHE];
	sd_xfmt xf;              /* CSV header and buffer of the non-syslog formats (scan_formats.h) */
	struct {                 /* verdicts and issues of failures, by everything the engine reads */
		uint64_t h;
		size_t len;          /* 0: empty */
		char *key;
		unsigned issues;
		sd_verdict v;
	} vc[SD_SCAN_VCACHE];
	char vkey[SD_SCAN_VKEY_MAX];
};

/* Per-line values shared by the line's records. */
typedef struct line_common {
	const char *format, *host, *program, *tzoff;
	int64_t timestamp;
} line_common;

sd_lograw *sd_scan_add(sd_logline *l)
{
	sd_lograw *r;

	if (l->n >= SD_SCAN_MAX_RECORDS)
		return NULL;
	r = &l->recs[l->n++];
	memset(r, 0, sizeof(*r));
	r->delay = -1;
	return r;
}

void smtpdiag_scanner_reftime(smtpdiag_scanner *s, int64_t t)
{
	time_t tt = t ? (time_t)t : time(NULL);
	struct tm tm;

	if (!s)
		return;
	if (s->flags & SMTPDIAG_SCAN_UTC)
		gmtime_r(&tt, &tm);
	else
		localtime_r(&tt, &tm);
	s->ref_year = tm.tm_year + 1900;
	s->ref_mon = tm.tm_mon + 1;
}

smtpdiag_scanner *smtpdiag_scanner_new(unsigned flags)
{
	smtpdiag_scanner *s;

	if (flags & ~(unsigned)SMTPDIAG_SCAN_UTC)
		return NULL;
	if (!(s = calloc(1, sizeof(*s))))
		return NULL;
	s->flags = flags;
	sd_arena_init(&s->arena);
	s->cls = sd_classifier_new();
	if (!s->cls) {
		free(s);
		return NULL;
	}
	s->line.recs = s->raws;
	tzset();
	smtpdiag_scanner_reftime(s, 0);
	return s;
}

void smtpdiag_scanner_free(smtpdiag_scanner *s)
{
	if (!s)
		return;
	sd_arena_free(&s->arena);
	sd_classifier_free(s->cls);
	sd_urun_free(s->user);
	sd_xfmt_free(&s->xf);
	for (size_t i = 0; i < SD_SCAN_VCACHE; i++)
		free(s->vc[i].key);
	free(s);
}

void smtpdiag_scanner_reset(smtpdiag_scanner *s)
{
	if (s)
		sd_xfmt_reset(&s->xf);
}

int smtpdiag_scanner_set_rules(smtpdiag_scanner *s, const smtpdiag_rules *rules)
{
	return s ? sd_urun_set(&s->user, rules) : SMTPDIAG_EINVAL;
}

const smtpdiag_logrec *smtpdiag_scanner_rec(const smtpdiag_scanner *s, size_t i)
{
	return s && i < s->nrecs ? &s->recs[i] : NULL;
}

/* ---- time ---- */


/* Offset (seconds east) of local time at the wall-clock time w (local time
 * counted as if it were UTC). One lookup per hour of log. */
static long local_offset(smtpdiag_scanner *s, int64_t w)
{
	int64_t hour = w >= 0 ? w / 3600 : (w - 3599) / 3600;
	time_t t = (time_t)w;
	struct tm tm;

	if (s->tz_valid && s->tz_hour == hour)
		return s->tz_off;
	localtime_r(&t, &tm);
	t = (time_t)(w - tm.tm_gmtoff);
	localtime_r(&t, &tm);
	s->tz_hour = hour;
	s->tz_off = tm.tm_gmtoff;
	s->tz_valid = 1;
	return s->tz_off;
}

static void tz_text(long off, char out[6])
{
	long a = off < 0 ? -off : off;

	out[0] = off < 0 ? '-' : '+';
	out[1] = (char)('0' + a / 36000 % 10);
	out[2] = (char)('0' + a / 3600 % 10);
	out[3] = (char)('0' + a / 600 % 6);
	out[4] = (char)('0' + a / 60 % 10);
	out[5] = 0;
}

static int64_t line_time(smtpdiag_scanner *s, const sd_logtime *t, char tz[6])
{
	int year = t->has_year ? t->year : (t->mon > s->ref_mon ? s->ref_year - 1 : s->ref_year);
	int64_t w = sd_days_from_civil(year, t->mon, t->day) * 86400 + t->hour * 3600 + t->min * 60 + t->sec;
	long off;

	if (t->has_off)
		off = (long)t->off * 60;
	else if (s->flags & SMTPDIAG_SCAN_UTC)
		off = 0;
	else
		off = local_offset(s, w);
	tz_text(off, tz);
	return w - off;
}

/* The Unix time of a line's time as the scanner reads it (reference year,
 * --utc, local zone): for callers that look at lines with no record. */
int64_t sd_scanner_time(smtpdiag_scanner *s, const sd_logtime *t)
{
	char tz[6];

	return line_time(s, t, tz);
}

/* The envelope of the line p the last smtpdiag_scan_line() read, or NULL
 * when that call read none of p. */
const sd_loghdr *sd_scanner_hdr(const smtpdiag_scanner *s, const char *p)
{
	return s->hdr_of && s->hdr_of == p ? &s->line.h : NULL;
}

/* ---- the records ---- */

/* A NUL-terminated copy; a NUL byte inside the line becomes a space. */
static const char *dup(sd_arena *a, sd_str v)
{
	char *d, *z;

	if (!v.n)
		return "";
	d = sd_arena_strndup(a, v.p, v.n);
	if (!d)
		return "";
	while ((z = memchr(d, 0, v.n)) != NULL)
		*z = ' ';
	return d;
}

static int reply_code(sd_str r)
{
	int c;

	if (r.n < 3 || !sd_isdigit((unsigned char)r.p[0]) || !sd_isdigit((unsigned char)r.p[1]) ||
	    !sd_isdigit((unsigned char)r.p[2]) || (r.n > 3 && r.p[3] != ' ' && r.p[3] != '-'))
		return 0;
	c = (r.p[0] - '0') * 100 + (r.p[1] - '0') * 10 + (r.p[2] - '0');
	return sd_replycode_valid(c) ? c : 0;
}

/* The remote's status: right after its reply code, else (failures) anywhere
 * in its reply. */
static void remote_status(sd_str reply, int rc, int fail, char out[SD_STATUS_MAX])
{
	sd_status st;
	sd_str t = rc ? sd_trim(sd_sl_skip(reply, 4)) : reply;

	out[0] = 0;
	if (t.n && sd_status_parse(t.p, t.n, &st) && (st.cls == 2 || st.cls == 4 || st.cls == 5)) {
		sd_strlcpy(out, st.text, strlen(st.text), SD_STATUS_MAX);
		return;
	}
	if (fail && reply.n)
		sd_text_status(reply.p, reply.n, 0, out);
}

static int dsn_ok(sd_str d)
{
	sd_status st;

	return d.n && sd_status_parse(d.p, d.n, &st) == d.n;
}

static const char *domain_of(const char *addr)
{
	const char *at = strrchr(addr, '@');
	return at ? at + 1 : "";
}

static const char *const action_names[] = { "", "sent", "deferred", "bounced", "expired", "rejected" };

/* What step 3 works out for one record. */
typedef struct rec_work {
	int rc;                       /* the remote's reply code, 0 when none */
	char status[SD_STATUS_MAX];   /* the remote's status, "" when none */
	sd_str diag;                  /* the reply, else (or a local agent's) the MTA's explanation */
} rec_work;


/* What the MTA did, as the engine reads it: a reject is a reply the server
 * gave (its class says), or for a line that logs no code the class it names. */
static sd_str action_word(const sd_lograw *r, const rec_work *w)
{
	const char *a = action_names[r->action];

	if (r->action == SD_ACT_REJECTED)
		a = w->rc || !r->cls ? "reply" : r->cls == 4 ? "deferred" : "failed";
	return (sd_str){ a, strlen(a) };
}

/* The verdict engine's decision on the record's evidence. */
static void decide(smtpdiag_scanner *s, const sd_lograw *r, const rec_work *w,
		   const smtpdiag_logrec *o, sd_verdict *v)
{
	char found[SD_STATUS_MAX] = "";
	sd_evidence ev;
	sd_facts in;

	sd_facts_init(&in);
	if (r->action == SD_ACT_REJECTED) { /* the receiving side's view (verdict/inbound.c) */
		in.inbound = 1;
		in.hint = r->hint ? sd_reason_index(r->hint) : -1;
	}
	in.status = o->status;
	in.replycode = w->rc;
	in.text = r->log_words ? NULL : w->diag.p;
	in.textn = r->log_words ? 0 : w->diag.n;
	in.diagtype = r->local ? "X-UNIX" : "";
	in.command = o->command;
	in.action = action_word(r, w);
	in.rhost = o->relay;
	in.destination = domain_of(o->recipient);
	in.user = s->user;
	sd_evidence_build(&s->arena, &in, &ev, found);
	sd_verdict_decide(s->cls, &ev, v);
}

/* The cache slot of a success reply's codes, filled with their issues: they
 * depend on the codes alone (a vendor's reuse of a code is recognised on
 * failures), so they are remembered by pair. */
static size_t sent_slot(smtpdiag_scanner *s, int rc, const char *status)
{
	size_t h = ((size_t)rc * 31 + (status[0] ? (unsigned char)status[2] * 7 + (unsigned char)status[4] : 0)) %
		   SD_SCAN_ISSUE_CACHE;
	sd_status ps;

	if (s->ic[h].valid && s->ic[h].rc == rc && !strcmp(s->ic[h].status, status))
		return h;
	memset(&ps, 0, sizeof(ps));
	if (status[0])
		sd_status_parse(status, strlen(status), &ps);
	s->ic[h].rc = rc;
	s->ic[h].valid = 1;
	s->ic[h].has_verdict = 0;
	sd_strlcpy(s->ic[h].status, status, strlen(status), SD_STATUS_MAX);
	s->ic[h].issues = sd_code_issues(rc, status[0] ? &ps : NULL, NULL, 0, NULL);
	return h;
}

/* The verdict (the engine's) and the issues of the codes. A delivery's
 * verdict, without user rules, follows from its action and codes alone (the
 * engine reads no text, command or host for it: reason delivered, and the
 * sender-side policy of the codes): with a status it is remembered by codes,
 * as the issues are. */
/* The key of a failure's verdict: every input decide() gives the engine (the
 * action and its class, the hint, the codes, the command, the mailer type, the
 * relay, the recipient's domain) and the reply text with the record's own
 * names in it (recipient, original recipient, sender, client name, address and
 * HELO) masked: the engine decides on what a reply says, not on whom it names
 * (no rule or row reads an address or a client's name), so two replies that
 * differ only there get the same verdict. Returns the key's length, 0 when it
 * does not fit (the verdict is then decided afresh). */
/* The issues of a failure's codes and text. */
static unsigned failure_issues(const rec_work *w, const smtpdiag_logrec *o)
{
	sd_status ps;

	if (!w->rc && !o->status[0])
		return 0;
	memset(&ps, 0, sizeof(ps));
	if (o->status[0])
		sd_status_parse(o->status, strlen(o->status), &ps);
	return sd_code_issues(w->rc, o->status[0] ? &ps : NULL, w->diag.p, w->diag.n, NULL);
}

static size_t vkey_put(char *k, size_t n, const char *p, size_t len)
{
	if (n == 0 || n + len + 1 > SD_SCAN_VKEY_MAX)
		return 0;
	memcpy(k + n, p, len);
	k[n + len] = '\x1f';
	return n + len + 1;
}

static size_t verdict_key(smtpdiag_scanner *s, const sd_lograw *r, const rec_work *w, const smtpdiag_logrec *o)
{
	char *k = s->vkey;
	const char *id[6] = { o->recipient, o->orig_recipient, o->sender, o->client, o->clientip, o->helo };
	size_t idn[6], n;
	const char *dom = domain_of(o->recipient);
	const char *hint = r->hint ? r->hint : "-";
	size_t len = 0;

	k[len++] = (char)('0' + r->action);
	k[len++] = (char)('0' + r->cls);
	k[len++] = (char)('0' + !!r->local);
	k[len++] = (char)('0' + !!r->log_words);
	k[len++] = (char)('0' + (w->rc / 100) % 10);
	k[len++] = (char)('0' + (w->rc / 10) % 10);
	k[len++] = (char)('0' + w->rc % 10);
	k[len++] = '\x1f';
	if (w->rc < 0 || w->rc > 999 || r->action > 9 || r->cls < 0 || r->cls > 9)
		return 0;
	len = vkey_put(k, len, hint, strlen(hint));
	len = vkey_put(k, len, o->status, strlen(o->status));
	len = vkey_put(k, len, o->command, strlen(o->command));
	if (!len)
		return 0;
	n = vkey_put(k, len, o->relay, strlen(o->relay));
	n = vkey_put(k, n, dom, strlen(dom));
	if (r->log_words || !n)
		return n;
	unsigned char first[32] = { 0 }; /* the first bytes of the names, as a set */

	for (int i = 0; i < 6; i++) {
		idn[i] = strlen(id[i]) >= 4 ? strlen(id[i]) : 0;
		if (idn[i])
			first[(unsigned char)id[i][0] >> 3] |= (unsigned char)(1u << ((unsigned char)id[i][0] & 7));
	}
	if (n + w->diag.n + 1 > SD_SCAN_VKEY_MAX)
		return 0;
	for (size_t i = 0; i < w->diag.n; i++) {
		unsigned char c = (unsigned char)w->diag.p[i];
		int hit = -1;
		if (!(first[c >> 3] & (1u << (c & 7)))) {
			k[n++] = (char)c;
			continue;
		}
		for (int j = 0; j < 6 && hit < 0; j++)
			if (idn[j] && w->diag.p[i] == id[j][0] && idn[j] <= w->diag.n - i &&
			    !memcmp(w->diag.p + i, id[j], idn[j]))
				hit = j;
		if (n + 2 > SD_SCAN_VKEY_MAX)
			return 0;
		if (hit >= 0) {
			k[n++] = '\x01';
			i += idn[hit] - 1;
		} else {
			k[n++] = w->diag.p[i];
		}
	}
	return n;
}


static void verdict(smtpdiag_scanner *s, const sd_lograw *r, rec_work *w, smtpdiag_logrec *o)
{
	sd_verdict v;
	size_t k, kn;

	if (r->action == SD_ACT_SENT && !s->user && o->status[0]) {
		k = sent_slot(s, w->rc, o->status);
		if (!s->ic[k].has_verdict) {
			decide(s, r, w, o, &s->ic[k].v);
			s->ic[k].has_verdict = 1;
		}
		sd_verdict_to_logrec(&s->arena, &s->ic[k].v, o);
		o->issues = s->ic[k].issues;
		return;
	}
	if (r->action != SD_ACT_SENT && !s->user && (kn = verdict_key(s, r, w, o)) > 0) {
		uint64_t h = sd_fnv1a(SD_FNV1A_BASIS, s->vkey, kn);
		k = (size_t)(h % SD_SCAN_VCACHE);
		if (s->vc[k].len == kn && s->vc[k].h == h && !memcmp(s->vc[k].key, s->vkey, kn)) {
			sd_verdict_to_logrec(&s->arena, &s->vc[k].v, o);
			o->issues = s->vc[k].issues;
			return;
		}
		decide(s, r, w, o, &v);
		sd_verdict_to_logrec(&s->arena, &v, o);
		o->issues = failure_issues(w, o);
		if (!s->vc[k].key)
			s->vc[k].key = malloc(SD_SCAN_VKEY_MAX);
		if (s->vc[k].key) { /* else not remembered: the next one is decided afresh too */
			memcpy(s->vc[k].key, s->vkey, kn);
			s->vc[k].len = kn;
			s->vc[k].h = h;
			s->vc[k].v = v;
			s->vc[k].issues = o->issues;
		}
		return;
	}
	decide(s, r, w, o, &v);
	sd_verdict_to_logrec(&s->arena, &v, o);
	o->issues = 0;
	if (!w->rc && !o->status[0])
		return;
	if (r->action == SD_ACT_SENT) {
		o->issues = s->ic[sent_slot(s, w->rc, o->status)].issues;
		return;
	}
	o->issues = failure_issues(w, o);
}

static void codes(sd_arena *a, const sd_lograw *r, rec_work *w, smtpdiag_logrec *o)
{
	char rc3[4];

	w->rc = reply_code(r->reply);
	remote_status(r->reply, w->rc, r->action != SD_ACT_SENT, w->status);
	if (w->rc) {
		rc3[0] = (char)('0' + w->rc / 100);
		rc3[1] = (char)('0' + w->rc / 10 % 10);
		rc3[2] = (char)('0' + w->rc % 10);
		o->replycode = dup(a, (sd_str){ rc3, 3 });
	} else {
		o->replycode = "";
	}
	o->dsn = dsn_ok(sd_trim(r->dsn)) ? dup(a, sd_trim(r->dsn)) : "";
	o->status = w->status[0] ? dup(a, (sd_str){ w->status, strlen(w->status) }) : o->dsn;
	w->diag = sd_trim(r->reply.n && !r->own_words ? r->reply : r->text);
}

static int64_t delay_of(const sd_lograw *r, const sd_logline *l, int64_t ts)
{
	if (r->delay >= 0)
		return r->delay;
	if (l->arrival && ts && ts >= l->arrival)
		return ts - l->arrival;
	return -1;
}

static void finish(smtpdiag_scanner *s, const line_common *c, const sd_lograw *r, smtpdiag_logrec *o)
{
	sd_arena *a = &s->arena;
	rec_work w;

	memset(&w, 0, sizeof(w));
	o->format = c->format;
	o->host = c->host;
	o->program = c->program;
	o->timestamp = c->timestamp;
	o->timezoneoffset = c->tzoff;
	o->queueid = dup(a, r->queueid);
	o->recipient = dup(a, sd_trim(r->recipient));
	o->orig_recipient = dup(a, sd_trim(r->orig));
	o->sender = dup(a, sd_trim(r->sender));
	o->relay = dup(a, sd_trim(r->relay));
	o->action = action_names[r->action];
	codes(a, r, &w, o);
	o->diagnosticcode = dup(a, w.diag);
	o->command = sd_sl_command(r->command);
	o->delay = delay_of(r, &s->line, c->timestamp);
	o->client = dup(a, sd_trim(r->client));
	o->clientip = dup(a, sd_trim(r->clientip));
	o->helo = dup(a, sd_trim(r->helo));
	o->stage = r->stage ? r->stage : "";
	o->list = dup(a, sd_trim(r->list));
	o->warning = r->warning;
	verdict(s, r, &w, o);
}

/* ---- a line ---- */

static int starts_ci(sd_str s, const char *lit)
{
	return sd_str_casestarts(s, lit);
}

static int dispatch(sd_logline *l)
{
	sd_str prog = l->h.program;
	const char *slash = prog.n ? memrchr(prog.p, '/', prog.n) : NULL;

	if (l->h.exim || (prog.n >= 4 && (prog.p[0] | 0x20) == 'e' && starts_ci(prog, "exim"))) {
		l->format = "exim";
		return sd_scan_exim(l);
	}
	if (slash) {
		sd_str agent = { slash + 1, (size_t)(prog.p + prog.n - slash - 1) };
		if (!sd_scan_postfix_agent(agent))
			return 0;
		l->format = "postfix";
		return sd_scan_postfix(l, agent);
	}
	if (sd_str_caseeq(prog, "smtpd")) {
		l->format = "opensmtpd";
		return sd_scan_opensmtpd(l);
	}
	if (starts_ci(prog, "sendmail") || starts_ci(prog, "sm-mta") || starts_ci(prog, "sm-msp")) {
		l->format = "sendmail";
		return sd_scan_sendmail(l);
	}
	return 0;
}

static void common(smtpdiag_scanner *s, line_common *c)
{
	sd_logline *l = &s->line;
	char tz[6] = "+0000";
	const sd_logtime *t = l->has_inner ? &l->inner : l->h.has_time ? &l->h.time : NULL;

	c->format = l->format;
	c->host = dup(&s->arena, l->h.host);
	c->program = dup(&s->arena, l->h.program);
	c->timestamp = t ? line_time(s, t, tz) : 0;
	c->tzoff = dup(&s->arena, (sd_str){ tz, 5 });
}

int smtpdiag_scan_line(smtpdiag_scanner *s, const char *p, size_t n)
{
	sd_logline *l;
	line_common c;
	int rc;

	if (!s)
		return SMTPDIAG_EINVAL;
	s->nrecs = 0;
	s->hdr_of = NULL;
	if (!p)
		return n ? SMTPDIAG_EINVAL : 0;
	if (n > SD_SCAN_MAX_LINE)
		return SMTPDIAG_ELIMIT;
	if (n && p[n - 1] == '\r')
		n--;
	l = &s->line;
	l->n = 0;
	l->has_inner = 0;
	l->arrival = 0;
	l->format = "";
	if (sd_xfmt_maybe(&s->xf, p, n)) { /* CSV and JSON logs (scan_formats.h) */
		int mine = 0;
		rc = sd_xfmt_line(&s->xf, l, p, n, &mine);
		if (mine && rc <= 0)
			return rc;
		if (mine)
			goto records;
	}
	if (!sd_loghdr_parse(p, n, &l->h))
		return 0;
	s->hdr_of = p;
	rc = dispatch(l);
	if (rc <= 0)
		return rc;
records:
	sd_arena_reset(&s->arena);
	common(s, &c);
	for (size_t i = 0; i < l->n; i++)
		finish(s, &c, &l->recs[i], &s->recs[i]);
	s->nrecs = l->n;
	return (int)s->nrecs;
}

/* ---- JSON ---- */

void smtpdiag_logrec_json(const smtpdiag_logrec *r, smtpdiag_buf *out)
{
	sd_buf *b = (sd_buf *)out;

	if (!r || !b || sd_buf_reserve(b, 768 + strlen(r->diagnosticcode) * 2) < 0)
		return;
	sd_buf_put(b, "{\"timestamp\":", 13);
	sd_buf_put_int(b, r->timestamp);
	SD_JSTR(b, "timezoneoffset", r->timezoneoffset);
	SD_JSTR(b, "host", r->host);
	SD_JSTR(b, "program", r->program);
	SD_JSTR(b, "format", r->format);
	SD_JSTR(b, "queueid", r->queueid);
	SD_JSTR(b, "recipient", r->recipient);
	SD_JSTR(b, "orig_recipient", r->orig_recipient);
	SD_JSTR(b, "sender", r->sender);
	SD_JSTR(b, "relay", r->relay);
	SD_JSTR(b, "action", r->action);
	SD_JSTR(b, "replycode", r->replycode);
	SD_JSTR(b, "status", r->status);
	SD_JSTR(b, "dsn", r->dsn);
	SD_JSTR(b, "diagnosticcode", r->diagnosticcode);
	SD_JSTR(b, "command", r->command);
	SD_JKEY(b, "delay");
	if (r->delay >= 0)
		sd_buf_put_int(b, r->delay);
	else
		sd_buf_put(b, "null", 4);
	SD_JSTR(b, "reason", r->reason);
	SD_JBOOL(b, "hardbounce", r->hardbounce);
	SD_JBOOL(b, "retry", r->retry);
	SD_JKEY(b, "issues");
	smtpdiag_issues_json(r->issues, out);
	SD_JSTR(b, "advice", r->advice);
	SD_JLIST(b, "fixer", r->fixer);
	SD_JLIST(b, "evidence", r->evidence);
	if (r->label && r->label[0]) /* only when a user rule set one */
		SD_JSTR(b, "label", r->label);
	if (!strcmp(r->action, "rejected")) { /* a reject record's own members */
		SD_JSTR(b, "client", r->client ? r->client : "");
		SD_JSTR(b, "clientip", r->clientip ? r->clientip : "");
		SD_JSTR(b, "helo", r->helo ? r->helo : "");
		SD_JSTR(b, "stage", r->stage ? r->stage : "");
		SD_JSTR(b, "list", r->list ? r->list : "");
		SD_JBOOL(b, "warning", r->warning);
		SD_JSTR(b, "deliverystatus", r->status);
	}
	sd_buf_putc(b, '}');
}
