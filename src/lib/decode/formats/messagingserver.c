/* messagingserver.c - Oracle (Sun, iPlanet) Messaging Server and PMDF bounces.
 *
 *     This report relates to a message you sent with the following header fields:
 *     ...
 *       Recipient address: user@example.jp
 *       Reason: Remote SMTP server has rejected address
 *       Diagnostic code: smtp;550 5.1.1 <user@example.jp>... User Unknown
 *       Remote system: dns;mx.example.jp (TCP|192.0.2.1|47323|192.0.2.2|25) (...)
 * The delivery-status part often carries a vaguer Status (5.0.0) than the
 * remote server's reply in the text, so the text comes first. */
#include "decode/formats/mta.h"

static int is_msgsrv(const sd_ctx *c)
{
	return mta_hdr_has(c, "Content-Type", "Boundary_(ID_") ||
	       mta_starts(sd_trim(c->subject), "Delivery Notification: ");
}

static sd_str field_value(sd_str line, const char *name)
{
	return sd_trim(mta_skip(line, strlen(name)));
}

static sd_rcpt *start(sd_ctx *c, sd_rcpt *cur, sd_str addr, size_t first)
{
	if (!mta_is_addr(addr))
		return cur;
	if (cur && cur->recipient.n == addr.n && sd_memcaseeq(cur->recipient.p, addr.p, addr.n))
		return cur;
	if (mta_rcpt_find(c, first, addr))
		return mta_rcpt_find(c, first, addr);
	cur = sd_ctx_add(c);
	if (cur)
		cur->recipient = addr;
	return cur;
}

static void diag_field(sd_ctx *c, sd_rcpt *r, sd_str v)
{
	const char *semi = memchr(v.p, ';', v.n);

	if (semi && (size_t)(semi - v.p) < 16) {
		r->diagtype = sd_trim((sd_str){ v.p, (size_t)(semi - v.p) });
		v = mta_skip(v, (size_t)(semi - v.p) + 1);
	}
	r->diagnostic = mta_join(c->a, r->diagnostic, v);
}

/* "dns;mx.example.jp (TCP|...)" -> "mx.example.jp" */
static sd_str host_of(sd_str v)
{
	v = sd_trim(mta_after(v, ";").p ? mta_after(v, ";") : v);
	return sd_trim(mta_before(v, " "));
}

static void read_text(sd_ctx *c, sd_str body, size_t first, sd_str *reasons)
{
	size_t pos = 0;
	sd_str line;
	sd_rcpt *cur = NULL;

	while (sd_next_line(body, &pos, &line)) {
		if (mta_starts(line, "  Recipient address: "))
			cur = start(c, cur, field_value(line, "  Recipient address: "), first);
		else if (mta_starts(line, "  Original address: "))
			cur = start(c, cur, field_value(line, "  Original address: "), first);
		else if (!cur)
			continue;
		else if (mta_starts(line, "  Diagnostic code: "))
			diag_field(c, cur, field_value(line, "  Diagnostic code: "));
		else if (mta_starts(line, "  Reason: "))
			reasons[cur - c->rcpts] = field_value(line, "  Reason: ");
		else if (mta_starts(line, "  Remote system: "))
			cur->rhost = host_of(field_value(line, "  Remote system: "));
		else if (mta_starts(line, "Content-type: message/rfc822"))
			break;
	}
}

/* The DSN record's status (and its comment as text) where the text had none. */
static void from_dsn(sd_ctx *c, sd_rcpt *r, const sd_rcpt *d, sd_str reason)
{
	if (!r->diagnostic.n)
		r->diagnostic = d && d->diagnostic.n ? d->diagnostic : reason;
	if (!r->diagnostic.n && d)
		r->diagnostic = sd_trim(mta_before(mta_after(d->status, "(").p ?
						   mta_after(d->status, "(") : SD_NULLSTR, ")"));
	mta_take_codes(c->a, r, r->diagnostic);
	if (d) {
		if (!r->status.n)
			r->status = mta_before(sd_trim(d->status), " ");
		r->lhost = d->lhost;
		r->action = d->action;
	}
}

int sd_fmt_messagingserver(sd_ctx *c)
{
	size_t first = c->nrcpt, dsn_first;
	sd_str *reasons, body;
	int n;

	if (!is_msgsrv(c))
		return 0;
	reasons = sd_arena_alloc(c->a, sizeof(sd_str) * SD_MAX_RECIPIENTS);
	if (!reasons)
		return SMTPDIAG_ENOMEM;
	memset(reasons, 0, sizeof(sd_str) * SD_MAX_RECIPIENTS);
	body = mta_body(c);
	if (!mta_contains(body, "This report relates to a message you sent"))
		return 0;
	read_text(c, body, first, reasons);
	dsn_first = c->nrcpt;
	n = mta_dsn(c);
	if (n == 0)
		n = mta_dsn_inline(c, body);
	if (n < 0)
		return n;
	if (dsn_first == first)
		return n;
	for (size_t i = first; i < dsn_first; i++) {
		const sd_rcpt *d = NULL;
		for (size_t k = dsn_first; k < c->nrcpt && !d; k++)
			if (c->rcpts[k].recipient.n == c->rcpts[i].recipient.n &&
			    sd_memcaseeq(c->rcpts[k].recipient.p, c->rcpts[i].recipient.p, c->rcpts[i].recipient.n))
				d = &c->rcpts[k];
		from_dsn(c, &c->rcpts[i], d, reasons[i]);
		c->rcpts[i].diagnostic = mta_squeeze(c->a, c->rcpts[i].diagnostic);
	}
	c->nrcpt = dsn_first;
	return (int)(dsn_first - first);
}
