/* amazonses.c - Amazon SES (sending) bounces: RFC 3464 reports, the same
 * fields written into a text part, and SNS notifications (JSON) for bounces,
 * complaints and deliveries. */
#include "decode/formats/prov.h"
#include "decode/formats/sesjson.h"
#include "smtp/reply.h"

#define SES_MAX_JSON (1u << 20) /* bytes of an SNS notification we join */

static int is_amazonses(const sd_ctx *c)
{
	if (!mta_has(c->from, "amazonses.com") && !mta_has(c->from, "amazonaws.com"))
		return 0;
	if (mta_hdr_has(c, "X-Mailer", "Amazon WorkMail") || mta_hdr(c, "X-YMailISG").p)
		return 0;
	return mta_hdr(c, "X-SES-Outgoing").p || mta_hdr(c, "X-AWS-Outgoing").p ||
	       mta_hdr(c, "x-amz-sns-message-id").p;
}

/* ---- SNS notification (JSON) ---- */

/* The JSON text of the body: lines joined; a line that ends in '!' continues
 * on the next one after its leading space (long lines folded by a relay). */
static sd_str json_text(sd_ctx *c, sd_str body)
{
	sd_buf b;
	sd_str line, out = SD_NULLSTR;
	size_t pos = 0;
	int folded = 0;

	sd_buf_init(&b);
	while (sd_next_line(body, &pos, &line) && b.len < SES_MAX_JSON) {
		if (sd_str_caseeq(line, "--"))
			break;
		if (folded && line.n && line.p[0] == ' ')
			line = mta_skip(line, 1);
		folded = line.n && line.p[line.n - 1] == '!';
		sd_buf_put(&b, line.p, line.n - (size_t)folded);
	}
	if (!b.oom && b.len)
		out = pv_dup(c, b.data, b.len);
	sd_buf_free(&b);
	return out;
}

static sd_str jtext(sd_ctx *c, sd_str obj, const char *key)
{
	return sj_text(c->a, sj_member(obj, key));
}

static const struct {
	const char *subtype;
	int reason;
} ses_subtypes[] = {
	{ "Suppressed", SD_R_suppressed },       { "OnAccountSuppressionList", SD_R_suppressed },
	{ "MailboxFull", SD_R_mailboxfull },     { "MessageTooLarge", SD_R_emailtoolarge },
	{ "ContentRejected", SD_R_contenterror }, { "AttachmentRejected", SD_R_contenterror },
};

static int subtype_reason(sd_str st)
{
	for (size_t i = 0; i < sizeof(ses_subtypes) / sizeof(ses_subtypes[0]); i++)
		if (sd_str_caseeq(st, ses_subtypes[i].subtype))
			return ses_subtypes[i].reason;
	return -1;
}

static void json_bounce(sd_ctx *c, sd_str o)
{
	sd_str list = sj_member(o, "bouncedRecipients"), item;
	sd_str lhost = jtext(c, o, "reportingMTA");
	int reason = subtype_reason(jtext(c, o, "bounceSubType"));
	size_t pos = 0;

	if (mta_starts(lhost, "dns;"))
		lhost = sd_trim(mta_skip(lhost, 4));
	while (sj_next(list, &pos, &item)) {
		sd_rcpt *r = pv_rcpt(c, jtext(c, item, "emailAddress"));
		sd_str diag = jtext(c, item, "diagnosticCode");
		if (!r)
			continue;
		r->action = jtext(c, item, "action");
		r->status = jtext(c, item, "status");
		if (mta_has(mta_before(diag, " "), ";")) {
			r->diagtype = sd_trim(mta_before(diag, ";"));
			diag = mta_after(diag, ";");
		}
		r->diagnostic = sd_trim(diag);
		r->lhost = lhost;
		r->date = jtext(c, o, "timestamp");
		r->reason = reason;
	}
}

static void json_complaint(sd_ctx *c, sd_str o)
{
	sd_str list = sj_member(o, "complainedRecipients"), item;
	size_t pos = 0;

	while (sj_next(list, &pos, &item)) {
		sd_rcpt *r = pv_rcpt(c, jtext(c, item, "emailAddress"));
		if (!r)
			continue;
		r->reason = SD_R_feedback;
		r->feedbacktype = jtext(c, o, "complaintFeedbackType");
		r->date = jtext(c, o, "timestamp");
	}
}

static void json_delivery(sd_ctx *c, sd_str o)
{
	sd_str list = sj_member(o, "recipients"), item;
	size_t pos = 0;

	while (sj_next(list, &pos, &item)) {
		sd_rcpt *r = pv_rcpt(c, sj_text(c->a, item));
		if (!r)
			continue;
		r->diagnostic = jtext(c, o, "smtpResponse");
		r->lhost = jtext(c, o, "reportingMTA");
		r->action = SD_STR("delivered");
		r->date = jtext(c, o, "timestamp");
		r->reason = SD_R_delivered;
	}
}

/* The original message's headers are in mail.headers; keep what the
 * verdict shows. */
static void json_mail(sd_ctx *c, sd_str mail)
{
	sd_str list = sj_member(mail, "headers"), item;
	size_t pos = 0;

	while (sj_next(list, &pos, &item)) {
		sd_str name = jtext(c, item, "name"), value = jtext(c, item, "value");
		if (sd_str_caseeq(name, "From"))
			c->orig.from = value;
		else if (sd_str_caseeq(name, "To"))
			c->orig.to = value;
		else if (sd_str_caseeq(name, "Subject"))
			c->orig.subject = value;
		else if (sd_str_caseeq(name, "Message-ID"))
			c->orig.messageid = value;
	}
	if (!c->orig.from.n)
		c->orig.from = jtext(c, mail, "source");
}

static int ses_json(sd_ctx *c, sd_str body)
{
	sd_str j = json_text(c, body), type, msg;
	size_t from = c->nrcpt;

	msg = jtext(c, j, "Message");          /* the SNS envelope, when present */
	if (msg.n && msg.p[0] == '{')
		j = msg;
	type = jtext(c, j, "notificationType");
	if (!type.n)
		type = jtext(c, j, "eventType");
	if (sd_str_caseeq(type, "Bounce"))
		json_bounce(c, sj_member(j, "bounce"));
	else if (sd_str_caseeq(type, "Complaint"))
		json_complaint(c, sj_member(j, "complaint"));
	else if (sd_str_caseeq(type, "Delivery"))
		json_delivery(c, sj_member(j, "delivery"));
	if (c->nrcpt > from)
		json_mail(c, sj_member(j, "mail"));
	return (int)(c->nrcpt - from);
}

/* ---- DSN ---- */

/* "5.0.0 (permanent failure)" -> "5.0.0" */
static sd_str first_word(sd_str s)
{
	s = sd_trim(s);
	for (size_t i = 0; i < s.n; i++)
		if (s.p[i] == ' ' || s.p[i] == '\t' || s.p[i] == '(')
			return (sd_str){ s.p, i };
	return s;
}

/* X.0.0 and X.1.0 say little: SES quotes the real reply after them, as in
 * "5.1.0 - Unknown address error 550-'5.2.2 <a@b>... Mailbox Full'". */
static int vague(sd_str st)
{
	return st.n == 5 && st.p[1] == '.' && (st.p[2] == '0' || st.p[2] == '1') && st.p[3] == '.' &&
	       st.p[4] == '0';
}

static void ses_codes(sd_ctx *c, sd_rcpt *r)
{
	sd_str d = r->diagnostic, q = mta_after(d, "'");
	sd_found f[8];
	size_t n;

	r->status = first_word(r->status);
	if (pv_inner_codes(c, r, d)) {
		if (mta_has(d, "Message expired:"))
			r->reason = SD_R_expired;
		return;
	}
	if (vague(r->status)) {
		if (q.n && memchr(q.p, '\'', q.n))     /* the remote server's own reply */
			r->diagnostic = mta_before(q, "'");
		n = sd_find_codes(q.p, q.n, f, 8);
		if (!n || !f[0].status.text[0])
			n = sd_find_codes(d.p, d.n, f, 8);
		for (size_t i = 0; i < n; i++)
			if (f[i].status.text[0]) {
				r->status = pv_dup(c, f[i].status.text, strlen(f[i].status.text));
				break;
			}
	}
	mta_take_codes(c->a, r, d);
	if (mta_has(d, "Delivery expired") || mta_has(d, "Message expired:"))
		r->reason = SD_R_expired; /* SES's own words; the quoted reply is the last try */
}

int sd_fmt_amazonses(sd_ctx *c)
{
	sd_str body, json;
	size_t from = c->nrcpt;
	int n;

	if (!is_amazonses(c))
		return 0;
	body = mta_body(c);
	json = sd_trim(body); /* a body of blanks trims to nothing: no byte to look at */
	if (mta_hdr(c, "x-amz-sns-message-id").p && json.n && json.p[0] == '{')
		return ses_json(c, json);
	n = mta_dsn(c);
	if (n == 0)
		n = mta_dsn_read(c, mta_after(body, "An error occurred while trying to deliver the mail"));
	if (n <= 0)
		return n;
	for (size_t i = from; i < c->nrcpt; i++)
		ses_codes(c, &c->rcpts[i]);
	pv_original(c, body, NULL);
	return (int)(c->nrcpt - from);
}
