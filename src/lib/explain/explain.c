/* explain.c - a code, a pair, a reply or a pasted text: what it means, what to do. */
#include "kb/codes.h"
#include "smtp/address.h"
#include "verdict/classify.h"
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
	sd_str recipient;
	int reason;        /* -1 none */
	int from_message;  /* facts came from the decoder */
	const char *decoded_status; /* decoder's status when the text had none */
} query;

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
		return 0;
	}
	sd_buf_reset(&o->text);
	q->text = sd_trim(s);
	take_found(s.p, s.n, q);
	return 0;
}

static int parse_file_query(explain_obj *o, sd_str s, query *q)
{
	const smtpdiag_fact *f;

	if (sd_decode_peek(s.p, s.n, &f) > 0 && f) {
		sd_str d = { f->diagnosticcode, strlen(f->diagnosticcode) };
		q->from_message = 1;
		q->text = d.n ? d : s;
		take_found(d.p, d.n, q);
		if (!q->replycode && f->replycode[0])
			q->replycode = atoi(f->replycode);
		if (!q->st.text[0] && f->deliverystatus[0])
			sd_status_parse(f->deliverystatus, strlen(f->deliverystatus), &q->st);
		q->recipient = (sd_str){ f->recipient, strlen(f->recipient) };
		q->reason = sd_reason_index(f->reason);
		q->recipient.p = sd_arena_strndup(&o->arena, q->recipient.p, q->recipient.n);
		q->text.p = sd_arena_strndup(&o->arena, q->text.p, q->text.n);
		sd_decode_peek_done();
		return 0;
	}
	sd_decode_peek_done();
	q->text = sd_trim(s);
	take_found(s.p, s.n, q);
	return 0;
}

/* ---- building the answer ---- */

static const char *dup(explain_obj *o, const char *s)
{
	return sd_arena_strndup(&o->arena, s ? s : "", s ? strlen(s) : 0);
}

static const char *fmt(explain_obj *o, const char *f, ...) __attribute__((format(printf, 2, 3)));
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

	e->title = fmt(o, "%s: unknown code (%s)", code_label(o, q), smtpdiag_class_name(k)[0] ? smtpdiag_class_name(k) : "no class");
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
	e->fixer = k == SMTPDIAG_CLASS_TRANSIENT ? "recipient-admin" : "sender";
}

static const char *retry_text(smtpdiag_class k, int retry)
{
	if (k == SMTPDIAG_CLASS_PERMANENT && retry)
		return "Permanent reply, but its cause (a full mailbox or system, a rate limit, a network fault) "
		       "usually clears: retry later with backoff, at least 30 minutes apart, stop after 4-5 days, and "
		       "suppress the address only if it keeps failing.";
	switch (k) {
	case SMTPDIAG_CLASS_TRANSIENT:
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
		return "No class is known: read the server's text before retrying.";
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
		sl_add(notes, fmt(o, "X.%d.%d is registered for class %s only, so %s is itself non-standard.",
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

/* The reason a reply text states, by the rules' priority order; -1 for none. */
static int text_reason(sd_str t)
{
	sd_classifier *c;
	int r = -1;

	if (t.n && (c = sd_classifier_new()) != NULL) {
		r = sd_reason_pick(sd_classify_scan(c, t.p, t.n));
		sd_classifier_free(c);
	}
	return r;
}

static int decide_reason(const query *q, smtpdiag_class k)
{
	int r = q->reason;

	if (r >= 0)
		return r;
	r = text_reason(q->text);
	if (r < 0 && q->st.text[0] && q->st.text[0] != 'X')
		r = sd_reason_from_status(q->st.text);
	/* X.3.1 names the mail system's storage (RFC 3463 3.4), not a mailbox quota:
	 * "431 4.3.1 STOREDRV; mailbox disk is full" is the server's disk */
	if (r == SD_R_mailboxfull && q->st.text[0] && q->st.subject == 3 && q->st.detail == 1)
		r = SD_R_systemfull;
	if (k != SMTPDIAG_CLASS_TRANSIENT && k != SMTPDIAG_CLASS_PERMANENT && r != SD_R_delivered)
		r = -1;
	return r;
}

/* A vendor row that matches the text says what it means and who acts. */
static void vendor_advice(explain_obj *o, const query *q, slist *fixes, slist *causes)
{
	static const struct {
		const char *action, *fixer, *fix;
	} acts[] = {
		{ "retry", "sender", "Let it retry: keep the message queued and retry later with backoff; slow down if the text speaks of rates." },
		{ "fix-sender-config", "sender-admin", "Fix the sending set-up the provider names (DNS, TLS, sender address, volume or format), then resend." },
		{ "fix-authentication", "sender-admin", "Fix authentication: publish or repair SPF, DKIM and DMARC for the sending domain, or the SMTP AUTH credentials, as the text says." },
		{ "contact-recipient-admin", "recipient-admin", "Contact the recipient's administrator: only the receiving organisation can change this." },
		{ "remove-recipient", "sender", "Remove the address from your lists: the provider says it cannot receive mail." },
	};
	smtpdiag_explanation *e = &o->pub;
	const sd_kb_vendor *v = sd_vendor_match(q->replycode, q->st.text[0] && q->st.text[0] != 'X' ? &q->st : NULL,
						q->text.p, q->text.n);
	slist tmp = { { 0 }, 0 };

	if (!v || !q->text.n)
		return;
	for (size_t i = 0; i < sizeof(acts) / sizeof(acts[0]); i++)
		if (!strcmp(v->action, acts[i].action)) {
			sl_add(&tmp, fmt(o, "%s (%s)", acts[i].fix, v->vendor));
			e->fixer = acts[i].fixer;
		}
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

static void build(explain_obj *o, const query *q)
{
	smtpdiag_explanation *e = &o->pub;
	const sd_kb_entry *second, *en = pick_entry(o, q, &second);
	smtpdiag_class k = sd_code_class(q->replycode, q->st.text[0] == 'X' ? NULL : &q->st);
	const char *vendor = NULL;
	unsigned issues = sd_code_issues(q->replycode, q->st.text[0] == 'X' ? NULL : &q->st, q->text.p, q->text.n, &vendor);
	slist causes = { { 0 }, 0 }, fixes = { { 0 }, 0 }, paired = { { 0 }, 0 }, related = { { 0 }, 0 },
	      refs = { { 0 }, 0 }, notes = { { 0 }, 0 };
	int r;

	e->replycode = q->replycode;
	e->status = dup(o, q->st.text);
	e->klass = k;
	e->issues = issues;
	e->standard = !issues;
	e->vendor = dup(o, vendor);
	e->recipient = sd_arena_strndup(&o->arena, q->recipient.p ? q->recipient.p : "", q->recipient.n);
	e->text = sd_arena_strndup(&o->arena, q->text.p ? q->text.p : "", q->text.n);
	r = decide_reason(q, k);
	e->reason = r >= 0 ? sd_reason_name(r) : "";
	e->hardbounce = k == SMTPDIAG_CLASS_PERMANENT && sd_reason_hard(r);
	e->bounce = k == SMTPDIAG_CLASS_TRANSIENT || k == SMTPDIAG_CLASS_PERMANENT;
	if (en) {
		e->title = en->title;
		e->short_answer = en->short_answer;
		e->quick_fix = en->quick_fix;
		e->meaning = en->meaning;
		e->fixer = en->fixer;
		sl_addv(&causes, en->causes);
		sl_addv(&fixes, en->fixes);
		sl_addv(&paired, en->paired);
		sl_addv(&related, en->related);
		sl_addv(&refs, en->refs);
		e->faq = faq_of(o, en, &e->nfaq);
	} else {
		explain_from_digits(o, q, k, &causes, &fixes);
	}
	if (second) {
		sl_addv(&related, second->related);
		sl_addv(&refs, second->refs);
		sl_add(&related, second->key);
	}
	vendor_advice(o, q, &fixes, &causes);
	add_paired(o, q, &paired);
	add_notes(o, q, issues, vendor, &notes);
	if (r >= 0 && e->bounce)
		sl_add(&notes, fmt(o, "Bounce reason: %s (%s).", sd_reason_name(r), sd_reason_text(r)));
	e->retry = sd_reason_retry(r, k == SMTPDIAG_CLASS_TRANSIENT ? 4 : k == SMTPDIAG_CLASS_PERMANENT ? 5 : 2,
				   e->hardbounce);
	e->retry_advice = retry_text(k, e->retry);
	e->advice = e->bounce ? sd_reason_advice_for(r, k == SMTPDIAG_CLASS_TRANSIENT ? 4 : 5, e->hardbounce) : "none";
	e->causes = sl_done(o, &causes);
	e->fixes = sl_done(o, &fixes);
	e->paired = sl_done(o, &paired);
	e->related = sl_done(o, &related);
	e->references = sl_done(o, &refs);
	e->notes = sl_done(o, &notes);
	if (!e->faq) {
		e->faq = sd_arena_alloc(&o->arena, sizeof(smtpdiag_faq));
		e->nfaq = 0;
	}
}

static int check_input(const char *p, size_t len, smtpdiag_error *err)
{
	if (!p || !len) {
		seterr(err, SMTPDIAG_EINVAL, "empty input");
		return SMTPDIAG_EINVAL;
	}
	if (len > SMTPDIAG_MAX_QUERY) {
		seterr(err, SMTPDIAG_ELIMIT, "input larger than 1 MiB (SMTPDIAG_MAX_QUERY)");
		return SMTPDIAG_ELIMIT;
	}
	if (is_binary(p, len)) {
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
	explain_obj *o;
	query q;
	int rc;

	if (!out || mode < SMTPDIAG_EXPLAIN_CODE || mode > SMTPDIAG_EXPLAIN_FILE) {
		seterr(err, SMTPDIAG_EINVAL, out ? "unknown explain mode" : "out is NULL");
		return SMTPDIAG_EINVAL;
	}
	*out = NULL;
	if ((rc = check_input(p, len, err)) < 0)
		return rc;
	o = calloc(1, sizeof(*o));
	if (!o) {
		seterr(err, SMTPDIAG_ENOMEM, "out of memory");
		return SMTPDIAG_ENOMEM;
	}
	sd_arena_init(&o->arena);
	sd_buf_init(&o->text);
	memset(&q, 0, sizeof(q));
	q.reason = -1;
	if (mode == SMTPDIAG_EXPLAIN_CODE)
		rc = parse_code_query((sd_str){ p, len }, &q, err);
	else if (mode == SMTPDIAG_EXPLAIN_TEXT)
		rc = parse_text_query(o, (sd_str){ p, len }, &q);
	else
		rc = parse_file_query(o, (sd_str){ p, len }, &q);
	if (rc == 0 && mode != SMTPDIAG_EXPLAIN_CODE && !q.replycode && !q.st.text[0] && q.reason < 0) {
		q.reason = text_reason(q.text); /* kept: decide_reason will not scan again */
		if (q.reason < 0) {
			seterr(err, SMTPDIAG_ENOTFOUND, "no SMTP reply code, enhanced status or known failure text found");
			rc = SMTPDIAG_ENOTFOUND;
		}
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

/* ---- JSON ---- */

static void jkey(sd_buf *b, const char *k, int first)
{
	if (!first)
		sd_buf_putc(b, ',');
	sd_buf_json_cstr(b, k);
	sd_buf_putc(b, ':');
}

static void jstr(sd_buf *b, const char *k, const char *v)
{
	jkey(b, k, 0);
	sd_buf_json_cstr(b, v);
}

static void jbool(sd_buf *b, const char *k, int v)
{
	jkey(b, k, 0);
	sd_buf_puts(b, v ? "true" : "false");
}

static void jlist(sd_buf *b, const char *k, const char *const *v)
{
	jkey(b, k, 0);
	sd_buf_putc(b, '[');
	for (int i = 0; v && v[i]; i++) {
		if (i)
			sd_buf_putc(b, ',');
		sd_buf_json_cstr(b, v[i]);
	}
	sd_buf_putc(b, ']');
}

void smtpdiag_explanation_json(const smtpdiag_explanation *e, smtpdiag_buf *out)
{
	sd_buf *b = (sd_buf *)out;
	char rc[8] = "";

	if (!e || !b)
		return;
	if (e->replycode)
		snprintf(rc, sizeof(rc), "%d", e->replycode);
	sd_buf_putc(b, '{');
	jkey(b, "query", 1);
	sd_buf_json_cstr(b, e->query);
	jstr(b, "replycode", rc);
	jstr(b, "status", e->status);
	jstr(b, "class", smtpdiag_class_name(e->klass));
	jbool(b, "retry", e->retry);
	jbool(b, "standard", e->standard);
	jkey(b, "issues", 0);
	smtpdiag_issues_json(e->issues, out);
	jstr(b, "reason", e->reason);
	jbool(b, "hardbounce", e->hardbounce);
	jstr(b, "vendor", e->vendor);
	jstr(b, "recipient", e->recipient);
	jbool(b, "bounce", e->bounce);
	jstr(b, "advice", e->advice);
	jstr(b, "title", e->title);
	jstr(b, "short_answer", e->short_answer);
	jstr(b, "quick_fix", e->quick_fix);
	jstr(b, "retry_advice", e->retry_advice);
	jstr(b, "meaning", e->meaning);
	jlist(b, "causes", e->causes);
	jlist(b, "fixes", e->fixes);
	jstr(b, "fixer", e->fixer);
	jlist(b, "paired", e->paired);
	jlist(b, "related", e->related);
	jkey(b, "faq", 0);
	sd_buf_putc(b, '[');
	for (size_t i = 0; i < e->nfaq; i++) {
		if (i)
			sd_buf_putc(b, ',');
		sd_buf_putc(b, '{');
		jkey(b, "q", 1);
		sd_buf_json_cstr(b, e->faq[i].q);
		jstr(b, "a", e->faq[i].a);
		sd_buf_putc(b, '}');
	}
	sd_buf_putc(b, ']');
	jlist(b, "references", e->references);
	jlist(b, "notes", e->notes);
	jstr(b, "text", e->text);
	sd_buf_putc(b, '}');
}
