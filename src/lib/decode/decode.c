/* decode.c - one email in, one verdict per recipient out. */
#include "bounce/ctx.h"
#include "decode/decode_int.h"
#include "kb/codes.h"
#include "smtp/reply.h"
#include "decode/fact.h"
#include "decode/formats/formats.h"
#include "verdict/userrules.h"

#include <stdio.h>
#include <stdlib.h>

static const struct {
	const char *name;
	sd_format_fn fn;
} formats[] = {
#define SD_FORMAT(name) { #name, sd_fmt_##name },
#include "decode/formats/formats.def"
#undef SD_FORMAT
};

/* One bounce's allocations, its recipient table (SD_MAX_RECIPIENTS records,
 * 208 KiB) included, fit in the arena chunk a reset keeps: no malloc per message. */
#define SD_DECODE_CHUNK (512u << 10)

smtpdiag_decoder *smtpdiag_decoder_new(unsigned flags)
{
	smtpdiag_decoder *d;

	if (flags & ~(unsigned)(SMTPDIAG_DECODE_DELIVERED | SMTPDIAG_DECODE_VACATION |
				 SMTPDIAG_DECODE_NO_DELAYED | SMTPDIAG_DECODE_ALL_EVENTS |
				 SMTPDIAG_DECODE_REASONS_SISIMAI))
		return NULL;
	if (!(d = calloc(1, sizeof(*d))))
		return NULL;
	d->flags = flags;
	sd_arena_init(&d->arena);
	d->arena.chunk = SD_DECODE_CHUNK;
	d->cls = sd_classifier_new();
	if (!d->cls) {
		free(d);
		return NULL;
	}
	return d;
}

void smtpdiag_decoder_free(smtpdiag_decoder *d)
{
	if (!d)
		return;
	sd_arena_free(&d->arena);
	sd_classifier_free(d->cls);
	sd_urun_free(d->user);
	free(d);
}

int smtpdiag_decoder_set_rules(smtpdiag_decoder *d, const smtpdiag_rules *rules)
{
	return d ? sd_urun_set(&d->user, rules) : SMTPDIAG_EINVAL;
}

const smtpdiag_fact *smtpdiag_decoder_fact(const smtpdiag_decoder *d, size_t i)
{
	return d && i < d->nfacts ? &d->facts[i] : NULL;
}

static void seterr(smtpdiag_error *err, int code, const char *msg)
{
	if (!err)
		return;
	err->code = code;
	snprintf(err->message, sizeof(err->message), "%s", msg);
}

static int run_formats(sd_ctx *c)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		size_t before = c->nrcpt;
		int over = c->rcpt_over;
		int n = formats[i].fn(c);
		if (n < 0)
			return n;
		if (n > 0) {
			for (size_t k = before; k < c->nrcpt; k++)
				if (!c->rcpts[k].decodedby)
					c->rcpts[k].decodedby = formats[i].name;
			return n;
		}
		c->nrcpt = before; /* not its format: drop what it may have left */
		c->rcpt_over = over;
	}
	return 0;
}

/* A warning, not a failure: the record's Action: is delayed (RFC 3464 2.3.3:
 * the MTA will continue to try) or its module read a warning. A record the
 * MTA gave up on is no warning, whatever action its text implies. */
static int is_warning(const sd_rcpt *r)
{
	return r->pending || r->notice || sd_str_caseeq(sd_trim(r->action), "delayed");
}

static int want(const sd_ctx *c, const sd_rcpt *r, const smtpdiag_fact *f)
{
	if (!f->recipient[0] && !f->reason[0])
		return 0;
	if (f->deliverystatus[0] == '2' && !(c->flags & SMTPDIAG_DECODE_DELIVERED))
		return 0;
	if (!strcmp(f->reason, "delivered"))
		return (c->flags & SMTPDIAG_DECODE_DELIVERED) != 0;
	if (!strcmp(f->reason, "vacation"))
		return (c->flags & SMTPDIAG_DECODE_VACATION) != 0;
	if (is_warning(r))
		return (c->flags & SMTPDIAG_DECODE_NO_DELAYED) == 0;
	return 1;
}

/* A Postfix report line pasted first, "<user@example.org>: host ... said: 550",
 * reads to the MIME reader as a header field named "<user@example.org>", which
 * no email starts with, and a mail client's "From:/Sent:/To:/Subject:" lines as
 * header fields no email is sent with: such a message is all body, with no
 * header field (bounce/paste.c). */
static void path_as_body(sd_mime *m)
{
	sd_part *t = &m->parts[0];
	sd_str name = t->nhdrs ? t->hdrs[0].name : SD_NULLSTR;

	if (m->nparts != 1)
		return;
	if (!sd_paste_client_block(t) && /* a client's "From:/Sent:" lines above it */
	    (name.n < 5 || name.p[0] != '<' || name.p[name.n - 1] != '>' || !memchr(name.p, '@', name.n)))
		return;
	t->body = t->raw;
	t->head = (sd_str){ t->raw.p, 0 };
	t->hdrs = NULL;
	t->nhdrs = 0;
	t->name_bits = 0;
}

int smtpdiag_decode(smtpdiag_decoder *d, const char *msg, size_t len, const char *origin,
		    smtpdiag_error *err)
{
	sd_ctx c;
	char why[200] = "";
	int rc;

	if (!d) {
		seterr(err, SMTPDIAG_EINVAL, "no decoder (d is NULL)");
		return SMTPDIAG_EINVAL;
	}
	d->nfacts = 0;
	d->facts = NULL;
	d->verdicts = NULL;
	sd_arena_reset(&d->arena);
	seterr(err, 0, "");
	if (!msg || !len) {
		seterr(err, SMTPDIAG_EINVAL, "empty input");
		return SMTPDIAG_EINVAL;
	}
	if (len > SD_MAX_MESSAGE) {
		seterr(err, SMTPDIAG_ELIMIT, "message larger than 64 MiB (SD_MAX_MESSAGE)");
		return SMTPDIAG_ELIMIT;
	}
	memset(&c, 0, sizeof(c));
	c.a = &d->arena;
	c.raw = msg;
	c.len = len;
	c.flags = d->flags;
	c.cls = d->cls;
	c.user = d->user;
	rc = sd_mime_parse(c.a, msg, len, &c.mime, why, sizeof(why));
	if (rc < 0) {
		seterr(err, rc, why[0] ? why : smtpdiag_strerror(rc));
		return rc;
	}
	path_as_body(&c.mime);
	if (c.mime.nparts == 1 && c.mime.parts[0].nhdrs == 0) {
		/* a body pasted alone: read it without the client's quoting */
		sd_str t = sd_paste_clean(c.a, (sd_str){ msg, len });
		if (t.p != msg && t.n) {
			rc = sd_mime_parse(c.a, t.p, t.n, &c.mime, why, sizeof(why));
			if (rc < 0) {
				seterr(err, rc, why[0] ? why : smtpdiag_strerror(rc));
				return rc;
			}
			path_as_body(&c.mime);
			c.raw = t.p;
			c.len = t.n;
		}
	}
	c.top = &c.mime.parts[0];
	c.from = sd_part_header(c.top, "From");
	c.subject = sd_part_header(c.top, "Subject");
	c.date = sd_part_header(c.top, "Date");
	c.to = sd_part_header(c.top, "To");
	sd_ctx_join_received(&c);
	c.rcpts = sd_arena_alloc(c.a, sizeof(sd_rcpt) * SD_MAX_RECIPIENTS);
	if (!c.rcpts) {
		seterr(err, SMTPDIAG_ENOMEM, "out of memory");
		return SMTPDIAG_ENOMEM;
	}
	rc = run_formats(&c);
	if (rc < 0) {
		seterr(err, rc, smtpdiag_strerror(rc));
		return rc;
	}
	if (c.top->nhdrs == 0 && !c.nrcpt) {
		/* a 1-byte file, a log, a binary: no email at all, which is an error,
		 * unlike a real email that is no bounce. Text without a header that
		 * still reads as a bounce (what is left of a forwarded one) is decoded. */
		seterr(err, SMTPDIAG_EPARSE, "not an email: no header fields at the start");
		return SMTPDIAG_EPARSE;
	}
	d->facts = sd_arena_alloc(c.a, sizeof(smtpdiag_fact) * (c.nrcpt ? c.nrcpt : 1));
	d->verdicts = d->keep_verdicts ? sd_arena_alloc(c.a, sizeof(sd_verdict) * (c.nrcpt ? c.nrcpt : 1)) : NULL;
	if (!d->facts || (d->keep_verdicts && !d->verdicts)) {
		seterr(err, SMTPDIAG_ENOMEM, "out of memory");
		return SMTPDIAG_ENOMEM;
	}
	if (c.nrcpt)
		sd_ctx_find_original(&c, SD_NULLSTR);
	for (size_t i = 0; i < c.nrcpt; i++) {
		sd_fact_fill(&c, &c.rcpts[i], &d->facts[d->nfacts], origin,
			     d->verdicts ? &d->verdicts[d->nfacts] : NULL);
		if (want(&c, &c.rcpts[i], &d->facts[d->nfacts]))
			d->nfacts++;
	}
	if (c.rcpt_over) /* the facts are given; err says some recipients were not */
		seterr(err, SMTPDIAG_ELIMIT, SD_RCPT_OVER_MSG);
	return (int)d->nfacts;
}

/* ---- JSON ---- */

/* Each key is written with its punctuation as one literal: ",\"alias\":". */

void smtpdiag_fact_json(const smtpdiag_fact *f, smtpdiag_buf *out)
{
	sd_buf *b = (sd_buf *)out;

	if (!f || !b)
		return;
	sd_buf_json_member(b, "{\"action\":", 10, f->action);
	SD_JSTR(b, "addresser", f->addresser);
	SD_JSTR(b, "alias", f->alias);
	SD_JSTR(b, "decodedby", f->decodedby);
	SD_JSTR(b, "deliverystatus", f->deliverystatus);
	SD_JSTR(b, "destination", f->destination);
	SD_JSTR(b, "diagnosticcode", f->diagnosticcode);
	SD_JSTR(b, "diagnostictype", f->diagnostictype);
	SD_JSTR(b, "feedbackid", f->feedbackid);
	SD_JSTR(b, "feedbacktype", f->feedbacktype);
	SD_JBOOL(b, "hardbounce", f->hardbounce);
	SD_JSTR(b, "lhost", f->lhost);
	SD_JSTR(b, "listid", f->listid);
	SD_JSTR(b, "messageid", f->messageid);
	SD_JSTR(b, "origin", f->origin);
	SD_JSTR(b, "reason", f->reason);
	SD_JSTR(b, "recipient", f->recipient);
	SD_JSTR(b, "replycode", f->replycode);
	SD_JSTR(b, "rhost", f->rhost);
	SD_JSTR(b, "command", f->command);
	SD_JSTR(b, "senderdomain", f->senderdomain);
	SD_JSTR(b, "subject", f->subject);
	SD_JKEY(b, "timestamp");
	sd_buf_put_int(b, (long long)f->timestamp);
	SD_JSTR(b, "timezoneoffset", f->timezoneoffset);
	SD_JSTR(b, "token", f->token);
	SD_JBOOL(b, "retry", f->retry);
	SD_JKEY(b, "issues");
	smtpdiag_issues_json(f->issues, out);
	SD_JSTR(b, "advice", f->advice);
	SD_JLIST(b, "fixer", f->fixer);
	SD_JLIST(b, "evidence", f->evidence);
	if (f->label && f->label[0]) /* only when a user rule set one */
		SD_JSTR(b, "label", f->label);
	if (f->esp && f->esp[0]) {
		SD_JSTR(b, "esp", f->esp);
		SD_JSTR(b, "esp_event", f->esp_event ? f->esp_event : "");
	}
	sd_buf_putc(b, '}');
}

/* ---- explain's view of a pasted email ---- */

static _Thread_local smtpdiag_decoder *peek_dec;

int sd_decode_peek(const char *p, size_t n, const smtpdiag_rules *rules, const smtpdiag_fact **f,
		   const sd_verdict **v)
{
	int rc, k = 0;

	*f = NULL;
	*v = NULL;
	if (!peek_dec)
		peek_dec = smtpdiag_decoder_new(0);
	if (!peek_dec)
		return SMTPDIAG_ENOMEM;
	peek_dec->keep_verdicts = 1;
	if (rules && (rc = smtpdiag_decoder_set_rules(peek_dec, rules)) < 0)
		return rc;
	rc = smtpdiag_decode(peek_dec, p, n, NULL, NULL);
	if (rc <= 0)
		return rc;
	while (k < rc && peek_dec->facts[k].deliverystatus[0] < '4')
		k++;
	if (k == rc)
		k = 0;
	*f = &peek_dec->facts[k];
	*v = &peek_dec->verdicts[k];
	return rc;
}

void sd_decode_peek_done(void)
{
	smtpdiag_decoder_free(peek_dec);
	peek_dec = NULL;
}
