/* rfc3464.c - standard delivery status notifications.
 *
 * RFC 3464 message/delivery-status and RFC 6533 message/global-delivery-status
 * parts: per-message fields (Reporting-MTA, Arrival-Date) then one group per
 * recipient (Final-Recipient, Original-Recipient, Action, Status, Remote-MTA,
 * Diagnostic-Code with continuation lines, Last-Attempt-Date). Also the common
 * broken variants: the fields written inline in a text part, groups without
 * blank lines between them, "Final-Recipient: <a@b>" without an address type.
 *
 * With one recipient, the human-readable text before the report is kept with
 * the diagnostic (it often says more than the Diagnostic-Code). */
#include "bounce/ctx.h"
#include "bounce/dsnutil.h"
#include "decode/formats/formats.h"
#include "verdict/verdict.h"
#include "smtp/reply.h"

#define DSN_MAX_LEAD   (16u << 10) /* bytes of human-readable text kept */
#define DSN_MAX_DIAG   (16u << 10) /* bytes of diagnostic text kept per recipient */

typedef struct dsn_rec {
	sd_rcpt *r;
	sd_buf diag;       /* Diagnostic-Code text and Status comments */
	int has_final;
	int has_orig;
} dsn_rec;

typedef struct dsn_state {
	sd_ctx *c;
	size_t first;          /* index of our first record in c->rcpts */
	dsn_rec *recs;         /* arena, grows by doubling */
	size_t nrec, cap;
	dsn_rec *cur;          /* record the current group fills */
	int closed;            /* a blank line ended the current group */
	sd_str lhost, arrival; /* per-message fields */
	int xreason;           /* X-PowerMTA-BounceCategory */
	int err;
} dsn_state;

#define DSN_RECS_INITIAL 8

static int grow(dsn_state *s)
{
	size_t cap = s->cap ? s->cap * 2 : DSN_RECS_INITIAL;
	dsn_rec *n = sd_arena_alloc(s->c->a, cap * sizeof(*n));

	if (!n)
		return 0;
	if (s->nrec)
		memcpy(n, s->recs, s->nrec * sizeof(*n));
	s->recs = n;
	s->cap = cap;
	return 1;
}

static dsn_rec *new_rec(dsn_state *s)
{
	dsn_rec *d;
	sd_rcpt *r;

	if (s->nrec >= s->cap && !grow(s)) {
		s->err = SMTPDIAG_ENOMEM;
		return NULL;
	}
	if (!(r = sd_ctx_add(s->c)))
		return NULL;
	d = &s->recs[s->nrec++];
	memset(d, 0, sizeof(*d));
	sd_buf_init(&d->diag);
	d->r = r;
	s->cur = d;
	s->closed = 0;
	return d;
}

static dsn_rec *cur_rec(dsn_state *s)
{
	if (s->cur && !s->closed)
		return s->cur;
	if (s->cur && s->closed && !s->cur->has_final && !s->cur->has_orig)
		return s->cur;
	return new_rec(s);
}

static void diag_add(dsn_rec *d, sd_str v)
{
	v = sd_trim(v);
	if (!v.n || d->diag.len >= DSN_MAX_DIAG)
		return;
	if (d->diag.len)
		sd_buf_putc(&d->diag, ' ');
	sd_buf_put(&d->diag, v.p, v.n);
}

/* ---- one field ---- */

static void on_final(dsn_state *s, sd_str v)
{
	sd_str a = sd_addr_clean(v);
	dsn_rec *d = s->cur;

	if (d && !s->closed && d->has_final && a.n && d->r->recipient.n == a.n &&
	    sd_memcaseeq(d->r->recipient.p, a.p, a.n))
		return; /* the same address again */
	if (!d || d->has_final || (s->closed && d->has_orig))
		d = new_rec(s);
	if (!d)
		return;
	d->has_final = 1;
	s->closed = 0;
	d->r->recipient = a;
}

static void on_orig(dsn_state *s, sd_str v)
{
	dsn_rec *d = s->cur;

	if (!d || s->closed || d->has_orig)
		d = (d && !s->closed && d->has_final && !d->has_orig) ? d : new_rec(s);
	if (!d)
		return;
	d->has_orig = 1;
	s->closed = 0;
	d->r->alias = sd_addr_clean(v);
}

static void on_status(dsn_rec *d, sd_str v)
{
	sd_status st;
	size_t k;

	v = sd_trim(v);
	k = sd_status_parse(v.p, v.n, &st);
	if (!k) {
		diag_add(d, v);
		return;
	}
	d->r->status = (sd_str){ v.p, k };
	diag_add(d, (sd_str){ v.p + k, v.n - k });
}

static void on_diag(dsn_rec *d, sd_str v)
{
	sd_str type, text;

	dsn_split_typed(v, &type, &text);
	if (type.n)
		d->r->diagtype = type;
	diag_add(d, text);
}

static void on_pmta(dsn_state *s, sd_str v)
{
	static const struct {
		const char *cat;
		int reason;
	} map[] = {
		{ "bad-domain", SD_R_hostunknown },     { "bad-mailbox", SD_R_userunknown },
		{ "message-expired", SD_R_expired },    { "no-answer-from-host", SD_R_networkerror },
		{ "policy-related", SD_R_policyviolation }, { "quota-issues", SD_R_mailboxfull },
		{ "routing-errors", SD_R_systemerror }, { "spam-related", SD_R_spamdetected },
	};

	v = sd_trim(v);
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (sd_str_caseeq(v, map[i].cat)) {
			if (s->cur && !s->closed)
				s->cur->r->reason = map[i].reason;
			else
				s->xreason = map[i].reason;
		}
}

/* Per-message fields and the X- fields a few MTAs add. Returns 1 if taken. */
static int on_message_field(dsn_state *s, sd_str name, sd_str v)
{
	if (sd_str_caseeq(name, "Reporting-MTA")) {
		s->lhost = dsn_value(v);
		if (s->cur && !s->closed)
			s->cur->r->lhost = s->lhost;
	} else if (sd_str_caseeq(name, "Arrival-Date")) {
		s->arrival = sd_trim(v);
	} else if (sd_str_caseeq(name, "X-PowerMTA-VirtualMTA")) {
		if (!s->lhost.n)
			s->lhost = sd_trim(v);
	} else if (sd_str_caseeq(name, "X-PowerMTA-BounceCategory")) {
		on_pmta(s, v);
	} else {
		return 0;
	}
	return 1;
}

static void on_field(dsn_state *s, sd_str name, sd_str v)
{
	dsn_rec *d;

	if (on_message_field(s, name, v))
		return;
	if (sd_str_caseeq(name, "Final-Recipient")) {
		on_final(s, v);
		return;
	}
	if (sd_str_caseeq(name, "Original-Recipient") || sd_str_caseeq(name, "X-Actual-Recipient")) {
		if (sd_str_caseeq(name, "Original-Recipient") || !s->cur || s->closed)
			on_orig(s, v);
		else if (!s->cur->r->alias.n)
			s->cur->r->alias = sd_addr_clean(v);
		return;
	}
	if (!dsn_is_rcpt_field(name) || !(d = cur_rec(s)))
		return;
	if (sd_str_caseeq(name, "Action"))
		d->r->action = dsn_first_word(v);
	else if (sd_str_caseeq(name, "Status"))
		on_status(d, v);
	else if (sd_str_caseeq(name, "Remote-MTA"))
		d->r->rhost = dsn_value(v);
	else if (sd_str_caseeq(name, "Diagnostic-Code"))
		on_diag(d, v);
	else if (sd_str_caseeq(name, "Last-Attempt-Date"))
		d->r->date = sd_trim(v);
}

/* ---- the report text ---- */

static void parse_report(dsn_state *s, sd_str t)
{
	size_t pos = 0;
	sd_str line, name, value;

	while (dsn_next_field(s->c->a, t, &pos, &line, &name, &value)) {
		if (!line.n) {
			if (s->cur)
				s->closed = 1;
			continue;
		}
		if (name.n)
			on_field(s, name, value);
	}
}

/* ---- finishing the records ---- */

static sd_str arena_str(sd_arena *a, const char *p, size_t n)
{
	char *d = n ? sd_arena_strndup(a, p, n) : NULL;
	return d ? (sd_str){ d, n } : SD_NULLSTR;
}

/* Join lead text and diagnostic the way the reference decoder does: when the
 * lead already holds the diagnostic, the lead alone. */
static sd_str join_lead(sd_arena *a, sd_str lead, sd_str diag)
{
	if (!lead.n)
		return diag;
	if (!diag.n || sd_memcasemem(lead.p, lead.n, diag.p, diag.n))
		return lead;
	return dsn_join(a, lead, diag);
}

/* lead_in_diag: the diagnostic starts with the lead (join_lead()), so no
 * command found in the whole diagnostic can be in the lead either. */
static void finish_codes(sd_arena *a, sd_rcpt *r, sd_str lead, int lead_in_diag)
{
	int rc, cls = r->status.n ? r->status.p[0] : 0;
	const char *cmd = sd_vd_command_find(r->diagnostic.p, r->diagnostic.n);

	if (!cmd[0] && !lead_in_diag)
		cmd = sd_vd_command_find(lead.p, lead.n);
	if (cmd[0])
		r->command = (sd_str){ cmd, strlen(cmd) };
	rc = sd_text_reply(r->diagnostic.p, r->diagnostic.n, cls);
	if (!rc)
		rc = sd_text_reply(lead.p, lead.n, cls);
	if (rc)
		r->replycode = dsn_code_str(a, rc);
}

static int keep(const dsn_rec *d)
{
	return d->r->recipient.n && sd_is_address(d->r->recipient);
}

/* Drop records without a usable address (after taking an alias when no
 * record has one), compacting c->rcpts. Returns the number kept. */
static size_t compact(dsn_state *s)
{
	size_t k = 0, good = 0;

	for (size_t i = 0; i < s->nrec; i++)
		good += keep(&s->recs[i]);
	if (!good && s->nrec && sd_is_address(sd_addr_clean(s->recs[0].r->alias))) {
		s->recs[0].r->recipient = sd_addr_clean(s->recs[0].r->alias);
		good = 1;
	}
	for (size_t i = 0; i < s->nrec; i++) {
		dsn_rec d = s->recs[i];
		if (!keep(&d)) {
			sd_buf_free(&d.diag);
			continue;
		}
		s->c->rcpts[s->first + k] = *d.r;
		d.r = &s->c->rcpts[s->first + k];
		s->recs[k++] = d;
	}
	s->c->nrcpt = s->first + k;
	s->nrec = k;
	return k;
}

static void finish(dsn_state *s, sd_str lead)
{
	sd_arena *a = s->c->a;

	for (size_t i = 0; i < s->nrec; i++) {
		dsn_rec *d = &s->recs[i];
		sd_rcpt *r = d->r;
		sd_str diag = arena_str(a, d->diag.data, d->diag.len);

		sd_buf_free(&d->diag);
		diag = dsn_sweep(a, diag);
		if (s->nrec == 1)
			diag = join_lead(a, lead, diag);
		r->diagnostic = diag;
		if (!r->lhost.n)
			r->lhost = s->lhost;
		if (!r->date.n)
			r->date = s->arrival;
		if (r->reason < 0 && s->xreason >= 0)
			r->reason = s->xreason;
		finish_codes(a, r, lead, s->nrec == 1);
		if (!r->status.n) {
			char st[SD_STATUS_MAX];
			sd_text_status(r->diagnostic.p, r->diagnostic.n, r->replycode.n ? r->replycode.p[0] : 0, st);
			if (!st[0])
				sd_text_status(lead.p, lead.n, r->replycode.n ? r->replycode.p[0] : 0, st);
			if (st[0])
				r->status = arena_str(a, st, strlen(st));
		}
	}
}

/* ---- entry ---- */

static int decode_report(sd_ctx *c, sd_str report, sd_str lead)
{
	dsn_state *s = sd_arena_alloc(c->a, sizeof(*s));

	if (!s)
		return SMTPDIAG_ENOMEM;
	memset(s, 0, sizeof(*s));
	s->c = c;
	s->first = c->nrcpt;
	s->xreason = -1;
	parse_report(s, report);
	if (s->err) {
		for (size_t i = 0; i < s->nrec; i++)
			sd_buf_free(&s->recs[i].diag);
		return s->err;
	}
	if (!compact(s))
		return 0;
	finish(s, lead);
	return (int)s->nrec;
}

/* The nearest enclosing message part of part i (0 for the top). */
static size_t message_of(const sd_ctx *c, size_t i)
{
	while (i > 0 && !c->mime.parts[i].is_message && c->mime.parts[i].parent >= 0)
		i = (size_t)c->mime.parts[i].parent;
	return i;
}

/* A bounce forwarded inside a message/rfc822 part, with no address in the
 * outer text: read the report of the inner message. */
static int decode_nested(sd_ctx *c)
{
	sd_str outer = sd_ctx_body(c), lead;
	sd_buf b;
	size_t m;

	if (outer.n && memchr(outer.p, '@', outer.n))
		return 0;
	for (size_t i = 1; i < c->mime.nparts; i++) {
		const char *t = c->mime.parts[i].ctype;
		if (strcmp(t, "message/delivery-status") && strcmp(t, "message/global-delivery-status"))
			continue;
		m = message_of(c, i);
		sd_buf_init(&b);
		for (size_t k = m + 1; k < i; k++)
			if (!strcmp(c->mime.parts[k].ctype, "text/plain") && message_of(c, k) == m) {
				sd_str x = sd_part_text(c->a, &c->mime.parts[k]);
				sd_buf_put(&b, x.p, x.n);
				sd_buf_putc(&b, '\n');
			}
		lead = dsn_lead_text(c->a, (sd_str){ b.data ? b.data : "", b.len }, DSN_MAX_LEAD);
		sd_buf_free(&b);
		return decode_report(c, sd_part_text(c->a, &c->mime.parts[i]), lead);
	}
	return 0;
}

int sd_fmt_rfc3464(sd_ctx *c)
{
	long ds = dsn_find_part(c);
	sd_str body, lead;
	size_t off, end;

	if (ds >= 0) {
		lead = dsn_lead_parts(c, (size_t)ds, DSN_MAX_LEAD);
		return decode_report(c, sd_part_text(c->a, &c->mime.parts[ds]), lead);
	}
	if (sd_part_header(c->top, "Final-Recipient").n && sd_part_header(c->top, "Status").n)
		return decode_report(c, c->top->head, SD_NULLSTR); /* a pasted report, no headers */
	body = sd_ctx_body(c);
	if (!dsn_inline_report(body, &off, &end))
		return decode_nested(c);
	lead = dsn_lead_text(c->a, (sd_str){ body.p, off }, DSN_MAX_LEAD);
	return decode_report(c, (sd_str){ body.p + off, end - off }, lead);
}
