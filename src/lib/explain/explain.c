/* explain.c - a code, a pair, a reply or a pasted text: what it means, what to do. */
#include "kb/codes.h"
#include "smtp/address.h"
#include "verdict/engine.h"
#include "verdict/userrules.h"
#include "kb/kb.h"
#include "decode/decode_int.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct explain_obj {
	smtpdiag_explanation pub; /* first: the public pointer is this object */
	sd_arena arena;
	sd_buf text;
} explain_obj;

typedef struct query {
	int replycode;
	sd_status st;      /* st.text[0] == 0: none; st.text[0] == 'X': class unknown */
	sd_str text;       /* reply text or whole pasted text */
	sd_str engine_text;/* the failure text the verdict engine reads ("550 5.1.1 ...") */
	sd_str recipient;
	int from_message;  /* facts came from the decoder */
	sd_verdict decoded; /* then the verdict decode gave them */
	const smtpdiag_rules *rules; /* the user's, asked first; NULL when none */
} query;

static const char *fmt(explain_obj *o, const char *f, ...) __attribute__((format(printf, 2, 3)));

static void seterr(smtpdiag_error *err, int code, const char *msg)
{
	if (!err)
		return;
	err->code = code;
	snprintf(err->message, sizeof(err->message), "%s", msg);
}

/* ---- input checks ---- */

static int is_binary(const char *p, size_t n)
{
	size_t ctl = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		if (c == 0)
			return 1;
		if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != 0x1b)
			ctl++;
	}
	return ctl > 8 && ctl * 20 > n;
}

/* A number of a status written with a leading zero ("5.07.1"): RFC 3463's
 * grammar forbids it. */
static int leading_zero(sd_str t)
{
	for (size_t i = 0; i + 2 < t.n; i++)
		if (t.p[i] == '.' && t.p[i + 1] == '0' && sd_isdigit((unsigned char)t.p[i + 2]))
			return 1;
	return 0;
}

/* One token of a code query: "431", "4.3.1", "X.3.1", "#5.1.1". */
static int parse_token(sd_str t, query *q, smtpdiag_error *err)
{
	char msg[200];

	if (t.n && t.p[0] == '#') {
		t.p++;
		t.n--;
	}
	if (t.n == 3 && sd_isdigit((unsigned char)t.p[0]) && sd_isdigit((unsigned char)t.p[1]) &&
	    sd_isdigit((unsigned char)t.p[2])) {
		int c = (t.p[0] - '0') * 100 + (t.p[1] - '0') * 10 + (t.p[2] - '0');
		if (q->replycode) {
			seterr(err, SMTPDIAG_EINVAL, "two reply codes in one query");
			return SMTPDIAG_EINVAL;
		}
		if (t.p[0] < '2' || t.p[0] > '5') {
			snprintf(msg, sizeof(msg), "%.3s is not a reply code: the first digit must be 2, 3, 4 or 5", t.p);
			seterr(err, SMTPDIAG_EINVAL, msg);
			return SMTPDIAG_EINVAL;
		}
		q->replycode = c;
		return 0;
	}
	if (leading_zero(t)) {
		snprintf(msg, sizeof(msg), "%.*s is not an enhanced status: RFC 3463 allows no leading zeros (like 5.7.1)",
			 (int)(t.n > 60 ? 60 : t.n), t.p);
		seterr(err, SMTPDIAG_EINVAL, msg);
		return SMTPDIAG_EINVAL;
	}
	if (t.n >= 5 && (t.p[0] == 'X' || t.p[0] == 'x') && t.p[1] == '.') {
		char tmp[16];
		sd_status st;
		if (t.n >= sizeof(tmp))
			goto bad;
		memcpy(tmp, t.p, t.n);
		tmp[0] = '0';
		if (sd_status_parse(tmp, t.n, &st) != t.n)
			goto bad;
		st.cls = 0;
		st.text[0] = 'X';
		q->st = st;
		return 0;
	}
	if (sd_status_parse(t.p, t.n, &q->st) == t.n) {
		if (q->st.cls != 2 && q->st.cls != 4 && q->st.cls != 5) {
			snprintf(msg, sizeof(msg), "%.*s is not an enhanced status: the class must be 2, 4 or 5 (RFC 3463)",
				 (int)t.n, t.p);
			seterr(err, SMTPDIAG_EINVAL, msg);
			return SMTPDIAG_EINVAL;
		}
		return 0;
	}
bad:
	snprintf(msg, sizeof(msg), "'%.*s' is not a reply code (like 550) or an enhanced status (like 5.1.1)",
		 (int)(t.n > 60 ? 60 : t.n), t.p);
	seterr(err, SMTPDIAG_EINVAL, msg);
	return SMTPDIAG_EINVAL;
}

static int parse_code_query(sd_str s, query *q, smtpdiag_error *err)
{
	size_t i = 0, ntok = 0;

	s = sd_trim(s);
	while (i < s.n) {
		size_t b;
		while (i < s.n && (sd_isspace((unsigned char)s.p[i]) || s.p[i] == '-' || s.p[i] == ',' || s.p[i] == '/'))
			i++;
		b = i;
		while (i < s.n && !sd_isspace((unsigned char)s.p[i]) && s.p[i] != ',' && s.p[i] != '/' &&
		       !(s.p[i] == '-' && i - b == 3))
			i++;
		if (i == b)
			break;
		if (++ntok > 2) {
			seterr(err, SMTPDIAG_EINVAL, "give one code or a pair, like \"552 4.3.1\"; use --text for reply text");
			return SMTPDIAG_EINVAL;
		}
		if (parse_token((sd_str){ s.p + b, i - b }, q, err) < 0)
			return SMTPDIAG_EINVAL;
	}
	if (!ntok) {
		seterr(err, SMTPDIAG_EINVAL, "empty query");
		return SMTPDIAG_EINVAL;
	}
	if (ntok == 2 && (!q->replycode || !q->st.text[0])) {
		seterr(err, SMTPDIAG_EINVAL, "a pair is a reply code and an enhanced status, like \"552 4.3.1\"");
		return SMTPDIAG_EINVAL;
	}
	return 0;
}

/* ---- text and files ---- */

static void take_found(const char *p, size_t n, query *q)
{
	sd_found f[SD_MAX_CODES];
	size_t cnt = sd_find_codes(p, n, f, SD_MAX_CODES);
	int k = sd_pick_code(f, cnt);

	if (k < 0)
		return;
	q->replycode = f[k].replycode;
	q->st = f[k].status;
	if (!q->st.text[0]) /* a status elsewhere in the text of the same class */
		for (size_t i = 0; i < cnt; i++)
			if (!f[i].replycode && f[i].status.cls == q->replycode / 100) {
				q->st = f[i].status;
				break;
			}
	q->recipient = sd_find_address(p, n, f[k].off);
}

static int parse_text_query(explain_obj *o, sd_str s, query *q)
{
	sd_reply r;

	if (sd_reply_parse(s.p, s.n, &r, &o->text) == 0) {
		q->replycode = r.code;
		q->st = r.status;
		q->text = (sd_str){ o->text.data ? o->text.data : "", o->text.len };
		q->recipient = sd_find_address(q->text.p, q->text.n, 0);
		q->engine_text.p = fmt(o, "%d%s%s %.*s", r.code, r.status.text[0] ? " " : "", r.status.text,
				       (int)q->text.n, q->text.p);
		q->engine_text.n = q->engine_text.p ? strlen(q->engine_text.p) : 0;
		return 0;
	}
	sd_buf_reset(&o->text);
	q->text = q->engine_text = sd_trim(s);
	take_found(s.p, s.n, q);
	return 0;
}

/* The three digits of a decoded reply code, 0 when there are none. */
static int code_of(const char *rc)
{
	if (!sd_isdigit((unsigned char)rc[0]) || !sd_isdigit((unsigned char)rc[1]) ||
	    !sd_isdigit((unsigned char)rc[2]) || rc[3])
		return 0;
	return (rc[0] - '0') * 100 + (rc[1] - '0') * 10 + (rc[2] - '0');
}

/* A pasted email or bounce body the decoder reads: its fact's codes and
 * recipient and the verdict decode gave it, by decode's own path (the same
 * evidence, the same funnel, the same trail). Anything else is text. */
static int parse_file_query(explain_obj *o, sd_str s, query *q)
{
	const smtpdiag_fact *f;
	const sd_verdict *v;

	if (sd_decode_peek(s.p, s.n, q->rules, &f, &v) > 0 && f && v) {
		sd_str d = { f->diagnosticcode, strlen(f->diagnosticcode) };
		q->from_message = 1;
		if (sd_verdict_keep(&o->arena, v, &q->decoded) < 0) {
			sd_decode_peek_done();
			return SMTPDIAG_ENOMEM;
		}
		q->text = d.n ? d : s;
		q->replycode = code_of(f->replycode);
		if (f->deliverystatus[0])
			sd_status_parse(f->deliverystatus, strlen(f->deliverystatus), &q->st);
		q->recipient = (sd_str){ f->recipient, strlen(f->recipient) };
		q->recipient.p = sd_arena_strndup(&o->arena, q->recipient.p, q->recipient.n);
		q->text.p = sd_arena_strndup(&o->arena, q->text.p, q->text.n);
		q->engine_text = q->text;
		sd_decode_peek_done();
		return q->recipient.p && q->text.p ? 0 : SMTPDIAG_ENOMEM;
	}
	sd_decode_peek_done();
	q->text = q->engine_text = sd_trim(s);
	take_found(s.p, s.n, q);
	return 0;
}

/* ---- building the answer ---- */

static const char *dup(explain_obj *o, const char *s)
{
	return sd_arena_strndup(&o->arena, s ? s : "", s ? strlen(s) : 0);
}

static const char *fmt(explain_obj *o, const char *f, ...)
{
	char buf[2048];
	va_list ap;

	va_start(ap, f);
	vsnprintf(buf, sizeof(buf), f, ap);
	va_end(ap);
	return dup(o, buf);
}

/* A NULL-terminated list that grows: at most 32 entries, deduplicated. */
typedef struct slist {
	const char *v[33];
	int n;
} slist;

static void sl_add(slist *l, const char *s)
{
	if (!s || !*s || l->n >= 32)
		return;
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return;
	l->v[l->n++] = s;
}

static void sl_addv(slist *l, const char *const *v)
{
	for (; v && *v; v++)
		sl_add(l, *v);
}

static const char *const *sl_done(explain_obj *o, slist *l)
{
	const char **a = sd_arena_alloc(&o->arena, sizeof(char *) * (size_t)(l->n + 1));
	if (!a)
		return NULL;
	for (int i = 0; i < l->n; i++)
		a[i] = l->v[i];
	a[l->n] = NULL;
	return a;
}

static const char *status_key(explain_obj *o, const sd_status *st)
{
	return fmt(o, "X.%d.%d", st->subject, st->detail);
}

/* The entry that explains best: a pair entry, a class-specific status entry,
 * a non-standard reply code, the registered status, then the reply code. */
static const sd_kb_entry *pick_entry(explain_obj *o, const query *q, const sd_kb_entry **second)
{
	const sd_kb_entry *pair = NULL, *stc = NULL, *stx = NULL, *rc = NULL;
	int has_st = q->st.text[0] != 0;

	if (q->replycode && has_st)
		pair = sd_kb_find_entry(fmt(o, "%d %s", q->replycode, q->st.text));
	if (has_st && q->st.text[0] != 'X')
		stc = sd_kb_find_entry(q->st.text);
	if (has_st)
		stx = sd_kb_find_entry(status_key(o, &q->st));
	if (q->replycode)
		rc = sd_kb_find_entry(fmt(o, "%d", q->replycode));
	*second = NULL;
	if (pair) {
		*second = stc ? stc : stx ? stx : rc;
		return pair;
	}
	if (stc) {
		*second = rc;
		return stc;
	}
	if (rc && (!sd_kb_find_reply(q->replycode) || !sd_kb_find_reply(q->replycode)->defined)) {
		*second = stx;
		return rc;
	}
	if (stx) {
		*second = rc;
		return stx;
	}
	return rc;
}

static const char *const subject_words[8] = {
	"other or undefined status", "an addressing problem", "a problem with the mailbox",
	"a problem with the receiving mail system", "a network or routing problem",
	"a mail delivery protocol problem", "a problem with the message content or media",
	"a security or policy problem",
};

static const char *class_phrase(smtpdiag_class k)
{
	switch (k) {
	case SMTPDIAG_CLASS_SUCCESS: return "a success";
	case SMTPDIAG_CLASS_INTERMEDIATE: return "an intermediate reply (the server waits for more input)";
	case SMTPDIAG_CLASS_TRANSIENT: return "a transient failure";
	case SMTPDIAG_CLASS_PERMANENT: return "a permanent failure";
	default: return "a code of unknown class";
	}
}

static const char *code_label(explain_obj *o, const query *q)
{
	if (q->replycode && q->st.text[0])
		return fmt(o, "%d %s", q->replycode, q->st.text);
	if (q->replycode)
		return fmt(o, "%d", q->replycode);
	if (q->st.text[0])
		return dup(o, q->st.text);
	return "";
}

/* No entry: say what the digits tell. */
static void explain_from_digits(explain_obj *o, const query *q, smtpdiag_class k, slist *causes, slist *fixes)
{
	smtpdiag_explanation *e = &o->pub;
	int sub = q->st.text[0] ? q->st.subject : -1;
	const char *area = sub >= 0 && sub < 8 ? subject_words[sub] : "a condition no registry names";

	e->title = fmt(o, "Unknown code (%s)", smtpdiag_class_name(k)[0] ? smtpdiag_class_name(k) : "no class");
	e->short_answer = fmt(o, "%s is not a code any RFC or the IANA registry defines. Its digits say it is %s%s%s.",
			      code_label(o, q), class_phrase(k), sub >= 0 ? " about " : "", sub >= 0 ? area : "");
	e->quick_fix = k == SMTPDIAG_CLASS_TRANSIENT ? "Let the message queue and retry; read the server's text for the cause."
		     : k == SMTPDIAG_CLASS_PERMANENT ? "Do not retry unchanged: read the server's text to learn what must change."
						     : "Read the server's full reply text; the code alone says little.";
	e->meaning = fmt(o, "The first digit gives the class: 2 success, 4 transient failure, 5 permanent failure. "
			 "%s%s The remaining digits are not registered, so only the server's own text and documentation can say more.",
			 sub >= 0 ? "The middle number of an enhanced status gives the subject; here it points to " : "",
			 sub >= 0 ? fmt(o, "%s.", area) : "");
	sl_add(causes, "A vendor-specific code, or a code mistyped or rewritten by a tool between the server and you.");
	sl_add(fixes, "Read the raw reply: keep the full reply line and the enhanced status exactly as the server sent them.");
	sl_add(fixes, "Act on the class: 4 means retry later, 5 means something must change before sending again.");
}

/* No reply code and no status, yet a rule names the failure: the sending MTA
 * wrote the text itself (connection, DNS, TLS, loop, expiry), no server did. */
static void explain_from_reason(explain_obj *o, int r, const char *advice, slist *causes, slist *fixes)
{
	smtpdiag_explanation *e = &o->pub;
	const char *words = smtpdiag_advice_words(advice && advice[0] ? advice : sd_reason_advice(r));

	e->title = fmt(o, "No reply code: %s", sd_reason_name(r));
	e->short_answer = fmt(o, "No server reply is quoted: the sending mail system wrote this itself. "
				 "Its words say %s.", sd_reason_text(r));
	e->quick_fix = words[0] ? words : "Read the sending system's log line for this attempt: it names the host and the step that failed.";
	e->meaning = fmt(o, "Bounce reason %s: %s.", sd_reason_name(r), sd_reason_text(r));
	sl_add(causes, fmt(o, "The sending MTA reports that %s.", sd_reason_text(r)));
	if (words[0])
		sl_add(fixes, words);
	sl_add(fixes, "Read the sending system's log line for this attempt: it names the host and the step that failed.");
}

static const char *retry_text(smtpdiag_class k, int retry)
{
	if (k == SMTPDIAG_CLASS_PERMANENT && retry)
		return "Permanent reply, but its cause (a full mailbox or system, a rate limit, a network fault) "
		       "usually clears: retry later with backoff, at least 30 minutes apart, stop after 4-5 days, and "
		       "suppress the address only if it keeps failing.";
	switch (k) {
	case SMTPDIAG_CLASS_TRANSIENT:
		if (!retry)
			return "The sending side already gave up (delivery time expired): resending the same message "
			       "unchanged will wait out the same way; find out why the receiving side did not accept it.";
		return "Transient: keep the message queued and retry with backoff, at least 30 minutes apart, and give up "
		       "only after 4-5 days (RFC 5321 section 4.5.4.1). Never turn a 4xx into a bounce at once; that is a "
		       "sender-side bug.";
	case SMTPDIAG_CLASS_PERMANENT:
		return "Permanent: do not retry the same message to the same address unchanged; fix the cause first "
		       "(RFC 5321 section 4.2.1).";
	case SMTPDIAG_CLASS_SUCCESS:
		return "Success: nothing to retry.";
	case SMTPDIAG_CLASS_INTERMEDIATE:
		return "Intermediate: the server is waiting for the client's next step; nothing failed.";
	default:
		if (retry)
			return "No reply class is known, but the cause named usually clears: retry later with backoff.";
		return "No reply class is known, and waiting does not clear the cause named: do not resend unchanged; "
		       "act on the advice first.";
	}
}

static void add_notes(explain_obj *o, const query *q, unsigned issues, const char *vendor, slist *notes)
{
	const sd_kb_status *ks = q->st.text[0] && q->st.text[0] != 'X' ? sd_kb_find_status(q->st.subject, q->st.detail) : NULL;
	const sd_kb_nonstd *ns = q->replycode ? sd_kb_find_nonstd(q->replycode) : NULL;
	const sd_kb_reply *kr = q->replycode ? sd_kb_find_reply(q->replycode) : NULL;
	int has_entry = q->replycode && sd_kb_find_entry(fmt(o, "%d", q->replycode)) != NULL;

	if (issues & SMTPDIAG_ISSUE_NONSTANDARD_REPLY)
		sl_add(notes, kr ? fmt(o, "%d is listed in the IANA registry only as a basic code paired with some statuses; no RFC defines it as a reply.", q->replycode)
				 : fmt(o, "%d is not a reply code defined by RFC 5321 or any other RFC.%s%s", q->replycode,
				       ns && !has_entry ? " Usually it means: " : "", ns && !has_entry ? ns->usual : ""));
	if (issues & SMTPDIAG_ISSUE_UNREGISTERED_STATUS)
		sl_add(notes, fmt(o, "%s is not in the IANA enhanced status code registry.", q->st.text));
	if (issues & SMTPDIAG_ISSUE_CLASS_MISMATCH)
		sl_add(notes, fmt(o, "The reply code %d is of class %d but the status %s is of class %d; RFC 3463 expects them to agree.",
				  q->replycode, q->replycode / 100, q->st.text, q->st.cls));
	if ((issues & SMTPDIAG_ISSUE_CLASS_NOT_ALLOWED) && ks)
		sl_add(notes, sd_status_basic_has_class(ks, '0' + q->st.cls)
				      ? fmt(o, "X.%d.%d is registered for class %s only, but the registry's own basic codes (%s) include a %dxx reply: %s is used outside its registered class, not an invented code.",
					    q->st.subject, q->st.detail, ks->allowed_text, ks->basic, q->st.cls, q->st.text)
				      : fmt(o, "X.%d.%d is registered for class %s only, so %s is itself non-standard.",
					    q->st.subject, q->st.detail, ks->allowed_text, q->st.text));
	if (issues & SMTPDIAG_ISSUE_VENDOR_REDEFINED)
		sl_add(notes, fmt(o, "%s uses this code with a meaning other than the registry's.", vendor ? vendor : "A vendor"));
	if (vendor)
		for (size_t i = 0; i < sd_kb_nvendors; i++) {
			const sd_kb_vendor *v = &sd_kb_vendors[i];
			if (strcmp(v->vendor, vendor) || (v->replycode && v->replycode != q->replycode) ||
			    strcmp(v->status, q->st.text))
				continue;
			sl_add(notes, fmt(o, "%s: %s (source: %s)", v->vendor, v->meaning, v->source));
			break;
		}
}

static void add_paired(explain_obj *o, const query *q, slist *paired)
{
	if (q->st.text[0]) {
		const sd_kb_status *ks = sd_kb_find_status(q->st.subject, q->st.detail);
		const char *b = ks ? ks->basic : "";
		for (const char *p = b; *p; p++)
			if (sd_isdigit((unsigned char)p[0]) && p[1] && p[2] && sd_isdigit((unsigned char)p[1]) &&
			    sd_isdigit((unsigned char)p[2]) && (p == b || !sd_isdigit((unsigned char)p[-1])))
				sl_add(paired, fmt(o, "%.3s", p));
	}
	if (q->replycode) {
		char needle[8];
		snprintf(needle, sizeof(needle), "%d", q->replycode);
		for (size_t i = 0; i < sd_kb_nstatuses; i++)
			if (strstr(sd_kb_statuses[i].basic, needle))
				sl_add(paired, sd_kb_statuses[i].code);
	}
}

static smtpdiag_faq *faq_of(explain_obj *o, const sd_kb_entry *en, size_t *n)
{
	size_t k = 0;
	smtpdiag_faq *f;

	*n = 0;
	if (!en)
		return NULL;
	while (en->faq_q[k])
		k++;
	f = sd_arena_alloc(&o->arena, sizeof(*f) * (k + 1));
	if (!f)
		return NULL;
	for (size_t i = 0; i < k; i++) {
		f[i].q = en->faq_q[i];
		f[i].a = en->faq_a[i];
	}
	*n = k;
	return f;
}

/* The engine's verdict on what the query holds. */
static void decide(const query *q, sd_verdict *v)
{
	sd_classifier *c = sd_classifier_thread();
	int has_st = q->st.text[0] && q->st.text[0] != 'X';
	char found[SD_STATUS_MAX] = "", dom[SMTPDIAG_RULES_MAX_HOST + 1] = "";
	const char *at = q->recipient.n ? memchr(q->recipient.p, '@', q->recipient.n) : NULL;
	sd_urun *user = NULL;
	sd_evidence ev;
	sd_facts in;

	if (q->from_message) { /* decided once, on decode's path */
		*v = q->decoded;
		return;
	}
	sd_facts_init(&in);
	in.replycode = q->replycode;
	in.text = q->engine_text.p;
	in.textn = q->engine_text.n;
	in.status = has_st ? q->st.text : "";
	if (in.textn) /* a reply as an MTA got it; a bare code was never sent */
		in.action = SD_STR("reply");
	if (at) { /* the recipient's domain, for a user rule's domain= only */
		sd_strlcpy(dom, at + 1, q->recipient.n - (size_t)(at + 1 - q->recipient.p), sizeof(dom));
		in.domain = dom;
	}
	if (sd_urun_new(q->rules, &user) == 0)
		in.user = user;
	sd_evidence_build(NULL, &in, &ev, found);
	sd_verdict_decide(c, &ev, v);
	sd_urun_free(user);
}

/* A vendor row that matches the text says what it means, what to do first and
 * who acts: its title, short answer and quick fix replace the entry's. */
static void vendor_advice(explain_obj *o, const sd_kb_vendor *v, slist *fixes, slist *causes)
{
	smtpdiag_explanation *e = &o->pub;
	slist tmp = { { 0 }, 0 };
	int adv;

	if (!v)
		return;
	e->title = v->title;
	e->short_answer = fmt(o, "%s: %s", v->vendor, v->meaning);
	e->quick_fix = v->quick_fix;
	adv = sd_advice_index(v->advice, strlen(v->advice));
	if (adv >= 0 && adv != SD_A_none) /* the row's advice in the words of reasons.def */
		sl_add(&tmp, fmt(o, "%s (%s)", sd_advice_words(adv), v->vendor));
	sl_add(&tmp, fmt(o, "Read the provider's page on this code: %s", v->source));
	for (int i = 0; i < fixes->n; i++)
		sl_add(&tmp, fixes->v[i]);
	*fixes = tmp;
	tmp.n = 0;
	sl_add(&tmp, fmt(o, "%s: %s", v->vendor, v->meaning));
	for (int i = 0; i < causes->n; i++)
		sl_add(&tmp, causes->v[i]);
	*causes = tmp;
}

/* A status outside the registry that providers use: who uses it and what for,
 * one line per provider and meaning. */
#define MAX_VENDOR_USES 16

static void vendor_uses(explain_obj *o, const query *q, int has_entry)
{
	smtpdiag_explanation *e = &o->pub;
	const sd_kb_vendor *rows[MAX_VENDOR_USES];
	smtpdiag_vendor_use *u;
	size_t n = 0, k = 0;

	if (q->st.text[0] && q->st.text[0] != 'X' && !sd_kb_find_status(q->st.subject, q->st.detail))
		n = sd_vendor_rows_for_code(q->replycode, &q->st, rows, MAX_VENDOR_USES);
	u = sd_arena_alloc(&o->arena, sizeof(*u) * (n + 1));
	for (size_t i = 0; u && i < n; i++) {
		size_t j = 0;
		while (j < k && (strcmp(u[j].vendor, rows[i]->vendor) || strcmp(u[j].meaning, rows[i]->meaning)))
			j++;
		if (j == k)
			u[k++] = (smtpdiag_vendor_use){ rows[i]->vendor, rows[i]->meaning, rows[i]->source };
	}
	e->vendors = u;
	e->nvendors = u ? k : 0;
	if (k && !has_entry && !q->text.n) { /* a code alone: the first provider's word leads */
		e->title = rows[0]->title;
		e->short_answer = fmt(o, "%s is not in the IANA registry; %s uses it: %s%s", q->st.text, rows[0]->vendor,
				      rows[0]->meaning, k > 1 ? " Other providers use it too (see below)." : "");
		e->quick_fix = rows[0]->quick_fix;
	}
}

/* The verdict fields of the explanation, from the engine. */
static void set_verdict(explain_obj *o, const sd_verdict *v)
{
	smtpdiag_explanation *e = &o->pub;

	e->bounce = e->klass == SMTPDIAG_CLASS_TRANSIENT || e->klass == SMTPDIAG_CLASS_PERMANENT ||
		    (e->klass == SMTPDIAG_CLASS_NONE && (v->cls == 4 || v->cls == 5));
	sd_verdict_to_explanation(&o->arena, v, e->bounce, e);
}

static void set_entry(explain_obj *o, const query *q, const sd_kb_entry *en, const sd_verdict *v, slist *l)
{
	smtpdiag_explanation *e = &o->pub;

	if (!en && !q->replycode && !q->st.text[0] && e->reason[0]) {
		explain_from_reason(o, v->reason, v->advice, &l[0], &l[1]);
		return;
	}
	if (!en) {
		explain_from_digits(o, q, e->klass, &l[0], &l[1]);
		return;
	}
	e->title = en->title;
	e->short_answer = en->short_answer;
	e->quick_fix = en->quick_fix;
	e->meaning = en->meaning;
	sl_addv(&l[0], en->causes);
	sl_addv(&l[1], en->fixes);
	sl_addv(&l[2], en->paired);
	sl_addv(&l[3], en->related);
	sl_addv(&l[4], en->refs);
	e->faq = faq_of(o, en, &e->nfaq);
}

/* Reply and status of opposite classes (250 5.1.1): no class is shown. */
static smtpdiag_class class_of_query(const query *q, unsigned issues)
{
	const sd_status *st = q->st.text[0] == 'X' ? NULL : &q->st;

	if ((issues & SMTPDIAG_ISSUE_CLASS_MISMATCH) && (q->replycode / 100 == 2 || q->st.cls == 2))
		return SMTPDIAG_CLASS_NONE;
	return sd_code_class(q->replycode, st);
}

static void build(explain_obj *o, const query *q)
{
	smtpdiag_explanation *e = &o->pub;
	const sd_kb_entry *second, *en = pick_entry(o, q, &second);
	const char *vendor = NULL;
	unsigned issues = sd_code_issues(q->replycode, q->st.text[0] == 'X' ? NULL : &q->st, q->text.p, q->text.n, &vendor);
	slist l[6]; /* causes, fixes, paired, related, refs, notes */
	sd_verdict v;

	memset(l, 0, sizeof(l));
	e->replycode = q->replycode;
	e->status = dup(o, q->st.text);
	e->klass = class_of_query(q, issues);
	e->issues = issues;
	e->standard = sd_codes_standard(issues, q->st.text[0] == 'X' ? NULL : &q->st);
	e->vendor = dup(o, vendor);
	e->recipient = sd_arena_strndup(&o->arena, q->recipient.p ? q->recipient.p : "", q->recipient.n);
	e->text = sd_arena_strndup(&o->arena, q->text.p ? q->text.p : "", q->text.n);
	decide(q, &v);
	set_verdict(o, &v);
	set_entry(o, q, en, &v, l);
	if (second) {
		sl_addv(&l[3], second->related);
		sl_addv(&l[4], second->refs);
		sl_add(&l[3], second->key);
	}
	vendor_advice(o, v.vendor, &l[1], &l[0]);
	vendor_uses(o, q, en != NULL);
	add_paired(o, q, &l[2]);
	add_notes(o, q, issues, vendor, &l[5]);
	if (e->reason[0] && e->bounce)
		sl_add(&l[5], fmt(o, "Bounce reason: %s (%s).", e->reason, sd_reason_text(v.reason)));
	e->retry_advice = retry_text(e->klass, e->retry);
	e->causes = sl_done(o, &l[0]);
	e->fixes = sl_done(o, &l[1]);
	e->paired = sl_done(o, &l[2]);
	e->related = sl_done(o, &l[3]);
	e->references = sl_done(o, &l[4]);
	e->notes = sl_done(o, &l[5]);
	if (!e->faq) {
		e->faq = sd_arena_alloc(&o->arena, sizeof(smtpdiag_faq));
		e->nfaq = 0;
	}
}

/* Does a text without codes still name a failure the engine recognises? */
static int states_failure(const query *q)
{
	sd_verdict v;

	if (!q->engine_text.n)
		return 0;
	decide(q, &v);
	/* expired counts when a rule says the MTA gave up, not as the fallback
	 * for a text that merely speaks of a delay; onhold when a word of refusal
	 * states a failure whose reason no word names ("Delivery failed") */
	if (v.reason == SD_R_onhold)
		return v.by == SD_BY_RULE;
	return v.reason != SD_R_undefined && (v.reason != SD_R_expired || v.by == SD_BY_RULE);
}

/* One or two tokens shaped like codes ("431", "5.1.1", "X.3.1", "552 4.3.1",
 * "#5.7.1"): a code query; anything else is reply text. */
static int looks_like_codes(sd_str s)
{
	size_t ntok = 0;

	s = sd_trim(s);
	for (size_t i = 0; i < s.n;) {
		size_t b;
		while (i < s.n && (sd_isspace((unsigned char)s.p[i]) || s.p[i] == ',' || s.p[i] == '/'))
			i++;
		b = i;
		while (i < s.n && !sd_isspace((unsigned char)s.p[i]) && s.p[i] != ',' && s.p[i] != '/') {
			int c = (unsigned char)s.p[i];
			if (!sd_isdigit(c) && c != '.' && c != '-' && !((c == 'X' || c == 'x' || c == '#') && i == b))
				return 0;
			i++;
		}
		if (i > b && ++ntok > 2)
			return 0;
	}
	return ntok > 0;
}

/* binary: 1 refuses binary input (a file that the decoder reads as a bounce
 * is let through: an email may carry a stray NUL or control bytes). */
static int check_input(const char *p, size_t len, int binary, smtpdiag_error *err)
{
	if (!p || !len) {
		seterr(err, SMTPDIAG_EINVAL, "empty input");
		return SMTPDIAG_EINVAL;
	}
	if (len > SMTPDIAG_MAX_QUERY) {
		seterr(err, SMTPDIAG_ELIMIT, "input larger than 1 MiB (SMTPDIAG_MAX_QUERY)");
		return SMTPDIAG_ELIMIT;
	}
	if (binary && is_binary(p, len)) {
		seterr(err, SMTPDIAG_EINVAL, "binary input: expected text");
		return SMTPDIAG_EINVAL;
	}
	if (!sd_trim((sd_str){ p, len }).n) {
		seterr(err, SMTPDIAG_EINVAL, "empty input");
		return SMTPDIAG_EINVAL;
	}
	return 0;
}

int smtpdiag_explain(const char *p, size_t len, int mode, smtpdiag_explanation **out, smtpdiag_error *err)
{
	return smtpdiag_explain_with_rules(p, len, mode, NULL, out, err);
}

int smtpdiag_explain_with_rules(const char *p, size_t len, int mode, const smtpdiag_rules *rules,
				smtpdiag_explanation **out, smtpdiag_error *err)
{
	explain_obj *o;
	query q;
	int rc;

	if (!out || mode < SMTPDIAG_EXPLAIN_CODE || mode > SMTPDIAG_EXPLAIN_AUTO) {
		seterr(err, SMTPDIAG_EINVAL, out ? "unknown explain mode" : "out is NULL");
		return SMTPDIAG_EINVAL;
	}
	*out = NULL;
	if ((rc = check_input(p, len, mode != SMTPDIAG_EXPLAIN_FILE, err)) < 0)
		return rc;
	o = calloc(1, sizeof(*o));
	if (!o) {
		seterr(err, SMTPDIAG_ENOMEM, "out of memory");
		return SMTPDIAG_ENOMEM;
	}
	sd_arena_init(&o->arena);
	sd_buf_init(&o->text);
	memset(&q, 0, sizeof(q));
	q.rules = rules;
	if (mode == SMTPDIAG_EXPLAIN_AUTO)
		mode = looks_like_codes((sd_str){ p, len }) ? SMTPDIAG_EXPLAIN_CODE : SMTPDIAG_EXPLAIN_TEXT;
	if (mode == SMTPDIAG_EXPLAIN_CODE)
		rc = parse_code_query((sd_str){ p, len }, &q, err);
	else if (mode == SMTPDIAG_EXPLAIN_TEXT)
		rc = parse_text_query(o, (sd_str){ p, len }, &q);
	else if ((rc = parse_file_query(o, (sd_str){ p, len }, &q)) == SMTPDIAG_ENOMEM)
		seterr(err, SMTPDIAG_ENOMEM, "out of memory");
	else if (rc == 0 && !q.from_message) /* no bounce the decoder reads: the text must be text */
		rc = check_input(p, len, 1, err);
	if (rc == 0 && mode != SMTPDIAG_EXPLAIN_CODE && !q.replycode && !q.st.text[0] && !q.from_message &&
	    !states_failure(&q)) {
		seterr(err, SMTPDIAG_ENOTFOUND, "nothing to explain: no SMTP reply code, enhanced status or known failure text found");
		rc = SMTPDIAG_ENOTFOUND;
	}
	if (rc < 0) {
		smtpdiag_explanation_free(&o->pub);
		return rc;
	}
	o->pub.query = sd_arena_strndup(&o->arena, p, len);
	build(o, &q);
	if (o->text.oom || !o->pub.query) {
		smtpdiag_explanation_free(&o->pub);
		seterr(err, SMTPDIAG_ENOMEM, "out of memory");
		return SMTPDIAG_ENOMEM;
	}
	*out = &o->pub;
	return 0;
}

void smtpdiag_explanation_free(smtpdiag_explanation *e)
{
	explain_obj *o = (explain_obj *)e;

	if (!o)
		return;
	sd_arena_free(&o->arena);
	sd_buf_free(&o->text);
	free(o);
}
