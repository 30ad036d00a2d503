/* fact.c - one recipient record (what a format module read) to one verdict.
 *
 * Same steps for every format: clean the diagnostic text, pick the status and
 * reply code (the Status: field, or the codes in the text), hand them to the
 * evidence builder and the verdict engine (which also gives the class-only
 * status of a bounce that has none), keep the reply code only when its class
 * agrees, then the dates and the addresses. */
#include "decode/fact.h"
#include "mime/datetime.h"
#include "kb/codes.h"
#include "smtp/hostfind.h"
#include "kb/kb.h"
#include "smtp/reply.h"
#include "verdict/engine.h"
#include "verdict/userrules.h"

#include <nettle/base16.h>
#include <nettle/sha1.h>
#include <stdio.h>
#include <strings.h>

#define FACT_MAX_DIAG (64u << 10) /* bytes of diagnostic text a verdict keeps */
#define FACT_ISSUE_TEXT 512       /* bytes of it searched for a vendor's reply snippet */
_Static_assert(FACT_ISSUE_TEXT <= SD_VENDOR_TEXT_MAX, "a text the engine matched whole is one the flags may reuse");

typedef struct fact_work {
	sd_ctx *c;
	const sd_rcpt *r;
	char status[SD_STATUS_MAX];
	int replycode;
	sd_str diag;
	const char *diagtype;
	const char *command;
	const char *action;
	/* what the verdict engine was asked, and the vendor row it matched */
	char ev_status[SD_STATUS_MAX];
	int ev_replycode;
	const sd_kb_vendor *matched;
	int asked;
	const char *implied; /* the verdict's status when the bounce has none */
} fact_work;

static const char *cstr(sd_arena *a, sd_str s)
{
	char *d;

	s = sd_trim(s);
	d = sd_arena_strndup(a, s.p ? s.p : "", s.n);
	return d ? d : "";
}

static const char *upper(sd_arena *a, sd_str s)
{
	char *d = (char *)cstr(a, s);

	for (char *q = d; *q; q++)
		if (*q >= 'a' && *q <= 'z')
			*q = (char)(*q - 32);
	return d;
}

static int status_valid(sd_str s, char out[SD_STATUS_MAX])
{
	sd_status st;

	s = sd_trim(s);
	out[0] = 0;
	if (!s.n || sd_status_parse(s.p, s.n, &st) != s.n)
		return 0;
	if ((st.cls != 2 && st.cls != 4 && st.cls != 5) || st.subject > 7)
		return 0;
	memcpy(out, st.text, SD_STATUS_MAX);
	return 1;
}

static int reply_valid(sd_str s)
{
	int c;

	s = sd_trim(s);
	if (s.n != 3 || !sd_isdigit((unsigned char)s.p[0]) || !sd_isdigit((unsigned char)s.p[1]) ||
	    !sd_isdigit((unsigned char)s.p[2]))
		return 0;
	c = (s.p[0] - '0') * 100 + (s.p[1] - '0') * 10 + (s.p[2] - '0');
	return sd_replycode_valid(c) ? c : 0;
}

/* ---- the diagnostic text ---- */

/* Remove "<html> ... </html>" from a text copy. */
static size_t drop_html(char *d, size_t n)
{
	const char *a = sd_memcasemem(d, n, "<html>", 6), *b;
	size_t tail;

	if (!a || a == d || !(b = sd_memcasemem(a, n - (size_t)(a - d), "</html>", 7)))
		return n;
	b += 7;
	tail = n - (size_t)(b - d);
	memmove((char *)a + 1, b, tail);
	*(char *)a = ' ';
	return (size_t)(a - d) + 1 + tail;
}

/* The three digits of a reply code (0-999) and a NUL, as "%03d" writes them. */
static void code_digits(int rc, char out[4])
{
	out[0] = (char)('0' + rc / 100 % 10);
	out[1] = (char)('0' + rc / 10 % 10);
	out[2] = (char)('0' + rc % 10);
	out[3] = '\0';
}

/* Drop every occurrence of pat (k bytes) from b, in place. */
static void drop_all(sd_buf *b, const char *pat, size_t k)
{
	size_t w = 0;

	for (size_t r = 0; r < b->len;) {
		if (b->data[r] == pat[0] && r + k <= b->len && !memcmp(b->data + r, pat, k)) {
			r += k;
			continue;
		}
		b->data[w++] = b->data[r++];
	}
	b->len = w;
}

/* Remove every "550-5.1.1" / "550-" / "550 5.1.1" / "550 " repetition of a
 * multi-line reply, then put "550 5.1.1 " in front when the code remains. */
static sd_str fold_reply(sd_arena *a, sd_str s, int rc, const char *cs)
{
	char code[4], pat[SD_STATUS_MAX + 4];
	size_t csn = strlen(cs);
	sd_buf b;
	sd_str out = s;

	code_digits(rc, code);
	if (!sd_memmem(s.p, s.n, (char[]){ code[0], code[1], code[2], '-' }, 4))
		return s;
	memcpy(pat, code, 3);
	memcpy(pat + 4, cs, csn);
	sd_buf_init(&b);
	sd_buf_put(&b, s.p, s.n);
	for (int i = 0; i < 4 && !b.oom; i++) {
		if (i % 2 == 0 && !cs[0])
			continue; /* "550-" + an empty status: the next pattern does it */
		pat[3] = i < 2 ? '-' : ' ';
		drop_all(&b, pat, i % 2 ? 4 : 4 + csn);
	}
	if (!b.oom && sd_memmem(b.data, b.len, code, 3)) {
		sd_buf tmp;
		sd_buf_init(&tmp);
		sd_buf_put(&tmp, code, 3);
		sd_buf_putc(&tmp, ' ');
		sd_buf_put(&tmp, cs, csn);
		sd_buf_putc(&tmp, ' ');
		sd_buf_put(&tmp, b.data, b.len);
		sd_buf_free(&b);
		b = tmp;
	}
	if (!b.oom)
		out = (sd_str){ sd_arena_strndup(a, b.data, b.len), b.len };
	sd_buf_free(&b);
	return out.p ? out : s;
}

static sd_str clean_diag(sd_arena *a, sd_str s)
{
	char *d;
	size_t n;

	s = sd_trim(s);
	if (!s.n)
		return (sd_str){ "", 0 };
	if (s.n > FACT_MAX_DIAG)
		s.n = FACT_MAX_DIAG;
	if (!sd_memcasemem(s.p, s.n, "<html>", 6))
		return dsn_sweep(a, s);
	d = sd_arena_strndup(a, s.p, s.n);
	if (!d)
		return dsn_sweep(a, s);
	n = drop_html(d, s.n);
	return dsn_sweep(a, (sd_str){ d, n });
}

/* Status and reply code from the record and the text. */
static void pick_codes(fact_work *w)
{
	char given[SD_STATUS_MAX], found[SD_STATUS_MAX];
	const char *best;
	sd_str folded;
	int cr;

	status_valid(w->r->status, given);
	w->replycode = reply_valid(w->r->replycode);
	w->diag = clean_diag(w->c->a, w->r->diagnostic);
	cr = sd_text_codes(w->diag.p, w->diag.n, found);
	best = sd_status_prefer(given, found, cr);
	memcpy(w->status, best, SD_STATUS_MAX);
	w->status[SD_STATUS_MAX - 1] = 0;
	if (!cr)
		return;
	if (!w->replycode)
		w->replycode = cr;
	folded = fold_reply(w->c->a, w->diag, cr, found);
	if (folded.p != w->diag.p || folded.n != w->diag.n) /* an unchanged text is swept already */
		w->diag = dsn_sweep(w->c->a, folded);
}

/* ---- the verdict ---- */

static const char *domain_of(const char *addr)
{
	const char *at = strrchr(addr, '@');
	return at ? at + 1 : "";
}


static void decide(fact_work *w, smtpdiag_fact *f, sd_verdict *v)
{
	char found[SD_STATUS_MAX] = "";
	sd_evidence ev;
	sd_facts in;

	sd_facts_init(&in);
	in.hint = w->r->reason;
	in.status = w->status;
	in.replycode = w->replycode;
	in.text = w->diag.p;
	in.textn = w->diag.n;
	in.diagtype = w->diagtype;
	in.command = w->command;
	in.action = sd_trim(w->r->action);
	in.warning = w->r->pending;
	in.rhost = f->rhost;
	in.lhost = f->lhost;
	in.destination = f->destination;
	in.mode = w->c->flags & SMTPDIAG_DECODE_REASONS_SISIMAI ? SD_MODE_SISIMAI : SD_MODE_DEFAULT;
	in.user = w->c->user;
	in.feedbacktype = w->r->feedbacktype;
	in.redacted = w->r->redacted;
	sd_evidence_build(w->c->a, &in, &ev, found);
	w->command = ev.command;
	w->diagtype = ev.diagtype;
	if (!ev.textn)
		w->diag.n = 0;
	sd_verdict_decide(w->c->cls, &ev, v);
	memcpy(w->ev_status, w->status, sizeof(w->ev_status));
	w->ev_replycode = ev.replycode;
	w->matched = v->matched;
	w->asked = v->asked;
	w->implied = v->implied;
}

static const char *action_norm(sd_arena *a, sd_str v)
{
	static const struct {
		const char *in, *out;
	} map[] = { { "failed", "failed" }, { "failure", "failed" }, { "fail", "failed" },
		    { "delayed", "delayed" }, { "expired", "delayed" }, { "delivered", "delivered" },
		    { "deliverable", "delivered" }, { "expanded", "expanded" }, { "relayed", "relayed" } };

	v = sd_trim(v);
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (sd_str_caseeq(v, map[i].in))
			return map[i].out;
	return cstr(a, v);
}

/* Keep the reply code only when its class agrees with the status. */
static int fix_reply(const fact_work *w, const char *status)
{
	int rc = w->replycode;

	if (!status[0] && !rc)
		return 0;
	if (status[0] && rc && status[0] == '0' + rc / 100)
		return rc;
	if (!status[0])
		return rc;
	rc = sd_text_reply(w->diag.p, w->diag.n, status[0]);
	return rc / 100 == status[0] - '0' ? rc : 0;
}

static void set_time(sd_ctx *c, const sd_rcpt *r, smtpdiag_fact *f)
{
	sd_str cand[3] = { r->date, c->orig.date, c->date };
	char tz[6];
	int64_t t;
	int z;

	f->timestamp = 0;
	f->timezoneoffset = "+0000";
	for (int i = 0; i < 3; i++)
		if (sd_date_parse(sd_trim(cand[i]), &t, &z)) {
			f->timestamp = t;
			sd_tz_format(z, tz);
			f->timezoneoffset = sd_arena_strndup(c->a, tz, 5);
			if (!f->timezoneoffset)
				f->timezoneoffset = "+0000";
			return;
		}
}

/* "Mailing list <list.example.org>" -> "list.example.org" (RFC 2919). */
static sd_str list_id(sd_str v)
{
	const char *lt = v.p ? memchr(v.p, '<', v.n) : NULL, *gt;

	if (!lt || !(gt = memchr(lt, '>', v.n - (size_t)(lt - v.p))))
		return sd_trim(v);
	return (sd_str){ lt + 1, (size_t)(gt - lt - 1) };
}

static void set_addresses(sd_ctx *c, const sd_rcpt *r, smtpdiag_fact *f)
{
	sd_str from = sd_addr_clean(c->orig.from);
	const char *mid;

	if (!sd_is_address(from))
		from = sd_addr_clean(c->to);
	f->recipient = cstr(c->a, sd_addr_clean(r->recipient));
	f->alias = cstr(c->a, sd_addr_clean(r->alias));
	if (!strcasecmp(f->alias, f->recipient))
		f->alias = "";
	f->addresser = sd_is_address(from) ? cstr(c->a, from) : "";
	f->senderdomain = domain_of(f->addresser);
	f->destination = domain_of(f->recipient);
	mid = cstr(c->a, c->orig.messageid);
	if (*mid == '<') {
		size_t n = strlen(mid);
		mid = sd_arena_strndup(c->a, mid + 1, n > 1 && mid[n - 1] == '>' ? n - 2 : n - 1);
	}
	f->messageid = mid ? mid : "";
	f->listid = cstr(c->a, list_id(c->orig.listid));
	f->subject = sd_header_text(c->a, c->orig.subject);
}

static int is_ipv4_token(sd_str t)
{
	int dots = 0;

	for (size_t i = 0; i < t.n; i++) {
		if (t.p[i] == '.')
			dots++;
		else if (!sd_isdigit((unsigned char)t.p[i]))
			return 0;
	}
	return dots == 3;
}

/* Does c end a host token: a blank or one of ()[]<> (or a NUL, as strchr saw it)? */
static inline int host_stop(int c)
{
	switch (c) {
	case '(': case ')': case '[': case ']': case '<': case '>': case '\0':
		return 1;
	default:
		return sd_isspace(c);
	}
}

/* "dns; mx.example.net [192.0.2.1]" -> "mx.example.net"; "a@b" -> "b". */
static sd_str clean_host(sd_str v)
{
	const char *p, *end, *at;

	v = sd_trim(dsn_value(v));
	if (!v.p || !v.n)
		return SD_NULLSTR;
	p = v.p;
	end = v.p + v.n;
	while (p < end) {
		sd_str t;
		while (p < end && host_stop((unsigned char)*p))
			p++;
		t.p = p;
		while (p < end && !host_stop((unsigned char)*p))
			p++;
		t.n = (size_t)(p - t.p);
		while (t.n && (t.p[t.n - 1] == '.' || t.p[t.n - 1] == ';' || t.p[t.n - 1] == ','))
			t.n--;
		if (!t.n || is_ipv4_token(t))
			continue;
		if ((at = memchr(t.p, '@', t.n)) != NULL)
			t = (sd_str){ at + 1, t.n - (size_t)(at + 1 - t.p) };
		return t;
	}
	return SD_NULLSTR;
}

static void set_hosts(sd_ctx *c, const sd_rcpt *r, smtpdiag_fact *f, sd_str diag)
{
	sd_str rh = clean_host(r->rhost);

	if (!rh.n)
		rh = sd_host_find(diag);
	f->rhost = cstr(c->a, rh);
	f->lhost = cstr(c->a, clean_host(r->lhost));
	if (!strcasecmp(f->lhost, f->rhost))
		f->lhost = "";
}

static void prepare(fact_work *w, smtpdiag_fact *f)
{
	sd_ctx *c = w->c;
	const sd_rcpt *r = w->r;
	const char *cmd;

	pick_codes(w);
	w->diagtype = upper(c->a, r->diagtype); /* none: the evidence builder's */
	cmd = upper(c->a, r->command);
	w->command = strlen(cmd) >= 4 ? cmd : ""; /* none: the evidence builder's */
	w->action = action_norm(c->a, r->action);
	set_addresses(c, r, f);
	set_hosts(c, r, f, w->diag);
}

static const char *code3(sd_arena *a, int rc)
{
	char buf[4];

	if (!rc)
		return "";
	code_digits(rc, buf);
	return sd_arena_strndup(a, buf, 3);
}

/* A status neither in the bounce nor registered was made up on the way (a
 * module's table): keep only its class. */
static const char *honest_status(const fact_work *w, const char *st)
{
	sd_status ps;

	if (!st[0] || !sd_status_parse(st, strlen(st), &ps) || sd_kb_find_status(ps.subject, ps.detail))
		return st;
	if (sd_memmem(w->c->raw, w->c->len, st, strlen(st)))
		return st;
	return ps.cls == 4 ? "4.0.0" : ps.cls == 2 ? "2.0.0" : "5.0.0";
}

static void finish(fact_work *w, smtpdiag_fact *f, int reason)
{
	sd_arena *a = w->c->a;
	const char *st = w->status[0] ? sd_arena_strndup(a, w->status, strlen(w->status)) : "";
	sd_status ps;

	if (!st)
		st = "";
	st = honest_status(w, st);
	if (!st[0])
		st = w->implied;
	if (reason == SD_R_feedback || reason == SD_R_vacation)
		w->replycode = 0;
	w->replycode = fix_reply(w, st);
	f->deliverystatus = st ? st : "";
	f->replycode = code3(a, w->replycode);
	f->action = w->action;
	if (reason == SD_R_delivered)
		f->action = "delivered";
	else if (reason == SD_R_expired)
		f->action = "delayed";
	else if (!f->action[0] && (st[0] == '4' || st[0] == '5'))
		f->action = "failed";
	memset(&ps, 0, sizeof(ps));
	if (st[0])
		sd_status_parse(st, strlen(st), &ps);
	if (w->asked && w->replycode == w->ev_replycode && !strcmp(st, w->ev_status) &&
	    w->diag.n <= FACT_ISSUE_TEXT) /* the engine matched the same codes and text */
		f->issues = sd_code_issues_known(w->replycode, st[0] ? &ps : NULL, w->matched, w->diag.p, w->diag.n);
	else
		f->issues = sd_code_issues(w->replycode, st[0] ? &ps : NULL, w->diag.p,
					   w->diag.n < FACT_ISSUE_TEXT ? w->diag.n : FACT_ISSUE_TEXT, NULL);
}

/* Feed s to the hash, ASCII lowercased. */
static void sha1_lower(struct sha1_ctx *h, const char *s)
{
	uint8_t tmp[64];
	size_t k = 0;

	for (; *s; s++) {
		tmp[k++] = (uint8_t)sd_tolower((unsigned char)*s);
		if (k == sizeof(tmp)) {
			sha1_update(h, k, tmp);
			k = 0;
		}
	}
	sha1_update(h, k, tmp);
}

/* Sisimai's token: the SHA-1 hex of STX addresser RS recipient RS epoch ETX,
 * both addresses lowercased; empty when either address is. */
static const char *make_token(sd_arena *a, const smtpdiag_fact *f)
{
	char epoch[SD_INT_CHARS + 2], *out;
	uint8_t d[SHA1_DIGEST_SIZE];
	struct sha1_ctx h;
	size_t n;

	if (!f->addresser[0] || !f->recipient[0])
		return "";
	if (!(out = sd_arena_alloc(a, BASE16_ENCODE_LENGTH(sizeof(d)) + 1)))
		return "";
	epoch[0] = '\x1e';
	n = 1 + sd_fmt_int(epoch + 1, (long long)f->timestamp);
	epoch[n++] = '\x03';
	sha1_init(&h);
	sha1_update(&h, 1, (const uint8_t *)"\x02");
	sha1_lower(&h, f->addresser);
	sha1_update(&h, 1, (const uint8_t *)"\x1e");
	sha1_lower(&h, f->recipient);
	sha1_update(&h, n, (const uint8_t *)epoch);
	sha1_digest(&h, sizeof(d), d);
	base16_encode_update(out, sizeof(d), d); /* lowercase hex, as Sisimai writes it */
	out[BASE16_ENCODE_LENGTH(sizeof(d))] = '\0';
	return out;
}

void sd_fact_fill(sd_ctx *c, const sd_rcpt *r, smtpdiag_fact *f, const char *origin, sd_verdict *vout)
{
	fact_work w;
	sd_verdict v;
	int reason;

	memset(&w, 0, sizeof(w));
	memset(f, 0, sizeof(*f));
	w.c = c;
	w.r = r;
	prepare(&w, f);
	decide(&w, f, &v);
	reason = v.reason;
	finish(&w, f, reason);
	sd_verdict_to_fact(c->a, &v, f);
	f->decodedby = r->decodedby ? r->decodedby : "";
	f->diagnosticcode = cstr(c->a, w.diag);
	f->diagnostictype = w.diagtype;
	f->command = w.command;
	f->feedbackid = "";
	f->feedbacktype = cstr(c->a, r->feedbacktype);
	f->origin = origin ? sd_arena_strndup(c->a, origin, strlen(origin)) : "";
	if (!f->origin)
		f->origin = "";
	set_time(c, r, f);
	f->token = make_token(c->a, f);
	if (vout)
		*vout = v;
}
