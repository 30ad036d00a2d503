/* arf.c - RFC 5965 feedback reports (complaints, DMARC failure reports).
 *
 * A multipart/report with report-type=feedback-report (or a message/feedback-
 * report part), Hotmail's and Amazon SES's "complaint about message from"
 * mails, and Apple's one-click unsubscribe mails (X-Apple-Unsubscribe: true).
 * Recipients: Original-Rcpt-To / Removal-Recipient, else the To of the
 * returned message (message/rfc822 or text/rfc822-headers), else Microsoft's
 * X-HmXmrOriginalRecipient in it. Reason: feedback; feedbacktype from
 * Feedback-Type, which the verdict reads (docs/complaints.md). The sender:
 * the returned message's From, else Original-Mail-From.
 *
 * A recipient the report hides is kept as the report writes it (a stand-in
 * such as "redacted@example.net", or ARF_UNDISCLOSED when it names none) and
 * marked redacted: the complaint counts for the sender, no address is
 * suppressed. Hidden: the report has a Redacted-Address field (RFC 6590), or
 * the address is one no mailbox has (ARF_STAND_INS, a local part of only
 * 'x' or '*', a domain under .invalid, RFC 2606). */
#include "bounce/ctx.h"
#include "bounce/dsnutil.h"
#include "decode/formats/formats.h"

/* The reference decoder's stand-in when the returned message names no
 * recipient ("To: Undisclosed recipients:;"). */
#define ARF_UNDISCLOSED "undisclosed-recipient-in-headers@libsisimai.org.invalid"
#define ARF_MAX_TEXT (8u << 10) /* bytes of report text kept as the diagnostic */
#define ARF_MASK_MIN 3          /* a local part of this many 'x' or '*' at least is a mask */

/* Local parts that report writers put in place of the complained address. */
static const char *const ARF_STAND_INS[] = { "redacted", "hashed", "undisclosed", "undisclosed-recipients",
					     "undisclosed-recipient", "anonymous", "removed", NULL };

typedef struct arf_info {
	sd_str ftype, date, source, lhost, mailfrom;
	int redacted; /* a Redacted-Address field */
} arf_info;

/* An address no mailbox has: a report writer's stand-in for a hidden one. */
static int stand_in(sd_str addr)
{
	const char *at = addr.p ? memchr(addr.p, '@', addr.n) : NULL;
	sd_str local, dom;
	size_t masked = 0;

	if (!at)
		return 1;
	local = (sd_str){ addr.p, (size_t)(at - addr.p) };
	dom = (sd_str){ at + 1, addr.n - local.n - 1 };
	if (sd_str_caseeq(dom, "invalid") ||
	    (dom.n > 8 && sd_memcaseeq(dom.p + dom.n - 8, ".invalid", 8)))
		return 1;
	for (size_t i = 0; ARF_STAND_INS[i]; i++)
		if (sd_str_caseeq(local, ARF_STAND_INS[i]))
			return 1;
	while (masked < local.n && (local.p[masked] == 'x' || local.p[masked] == 'X' || local.p[masked] == '*'))
		masked++;
	return masked == local.n && masked >= ARF_MASK_MIN;
}

static long feedback_part(const sd_ctx *c)
{
	for (size_t i = 0; i < c->mime.nparts; i++)
		if (!strcmp(c->mime.parts[i].ctype, "message/feedback-report") && !sd_ctx_in_returned(c, i))
			return (long)i;
	return -1;
}

static int is_arf(const sd_ctx *c)
{
	sd_str ct = sd_part_header(c->top, "Content-Type");
	sd_str xa = sd_trim(sd_part_header(c->top, "X-Apple-Unsubscribe"));

	if (sd_memcasemem(ct.p, ct.n, "feedback-report", 15) && sd_memcasemem(ct.p, ct.n, "report-type", 11))
		return 1;
	if (!strcmp(c->top->ctype, "multipart/report") && feedback_part(c) >= 0)
		return 1;
	if (!strcmp(c->top->ctype, "multipart/mixed") &&
	    sd_memcasemem(c->subject.p, c->subject.n, "complaint about message from ", 29) &&
	    (sd_memcasemem(c->from.p, c->from.n, "staff@hotmail.com", 17) ||
	     sd_memcasemem(c->from.p, c->from.n, "complaints@email-abuse.amazonses.com", 36)))
		return 1;
	return sd_str_caseeq(xa, "true");
}

static int add_rcpt(sd_ctx *c, size_t first, sd_str addr)
{
	sd_rcpt *r;

	addr = sd_addr_clean(addr);
	if (!sd_is_address(addr))
		return 0;
	if (c->nrcpt > first) {
		sd_str prev = c->rcpts[c->nrcpt - 1].recipient;
		if (prev.n == addr.n && sd_memcaseeq(prev.p, addr.p, addr.n))
			return 0;
	}
	if (!(r = sd_ctx_add(c)))
		return 0;
	r->recipient = addr;
	r->reason = SD_R_feedback;
	return 1;
}

static void read_report(sd_ctx *c, sd_str t, size_t first, arf_info *info)
{
	size_t pos = 0;
	sd_str line, name, v;

	while (dsn_next_field(c->a, t, &pos, &line, &name, &v)) {
		if (!name.n)
			continue;
		if (sd_str_caseeq(name, "Original-Rcpt-To") || sd_str_caseeq(name, "Removal-Recipient"))
			add_rcpt(c, first, v);
		else if (sd_str_caseeq(name, "Feedback-Type"))
			info->ftype = dsn_first_word(v);
		else if (sd_str_caseeq(name, "Arrival-Date") || sd_str_caseeq(name, "Received-Date"))
			info->date = v;
		else if (sd_str_caseeq(name, "Source-IP"))
			info->source = dsn_first_word(v);
		else if (sd_str_caseeq(name, "Reporting-MTA"))
			info->lhost = dsn_value(v);
		else if (sd_str_caseeq(name, "Original-Mail-From"))
			info->mailfrom = sd_addr_clean(v);
		else if (sd_str_caseeq(name, "Redacted-Address"))
			info->redacted = 1;
	}
}

/* No recipient field: the unsubscribing sender, or the returned message's To. */
static void fallback_rcpt(sd_ctx *c, size_t first, arf_info *info)
{
	sd_str xa = sd_trim(sd_part_header(c->top, "X-Apple-Unsubscribe"));

	if (sd_str_caseeq(xa, "true")) {
		if (add_rcpt(c, first, c->from) && !info->ftype.n)
			info->ftype = SD_STR("opt-out");
		return;
	}
	sd_ctx_find_original(c, SD_NULLSTR);
	if (sd_is_address(sd_addr_clean(c->orig.to)) && !stand_in(sd_addr_clean(c->orig.to)) &&
	    add_rcpt(c, first, c->orig.to))
		return;
	for (size_t i = 1; i < c->mime.nparts; i++) {
		const sd_part *p = &c->mime.parts[i];
		sd_str x = p->is_message ? sd_addr_clean(sd_part_header(p, "X-HmXmrOriginalRecipient")) : SD_NULLSTR;
		if (sd_is_address(x) && !stand_in(x) && add_rcpt(c, first, x))
			return;
	}
	if (!add_rcpt(c, first, c->orig.to))
		add_rcpt(c, first, SD_STR(ARF_UNDISCLOSED));
}

int sd_fmt_arf(sd_ctx *c)
{
	arf_info info = { SD_NULLSTR, SD_NULLSTR, SD_NULLSTR, SD_NULLSTR, SD_NULLSTR, 0 };
	size_t first = c->nrcpt;
	long fp;
	sd_str text;

	if (!is_arf(c))
		return 0;
	fp = feedback_part(c);
	if (fp >= 0)
		read_report(c, sd_part_text(c->a, &c->mime.parts[fp]), first, &info);
	if (c->nrcpt == first)
		fallback_rcpt(c, first, &info);
	sd_ctx_find_original(c, SD_NULLSTR);
	if (!sd_is_address(sd_addr_clean(c->orig.from)) && sd_is_address(info.mailfrom))
		c->orig.from = info.mailfrom;
	text = dsn_lead_parts(c, fp >= 0 ? (size_t)fp : c->mime.nparts, ARF_MAX_TEXT);
	for (size_t i = first; i < c->nrcpt; i++) {
		sd_rcpt *r = &c->rcpts[i];
		r->feedbacktype = info.ftype;
		r->date = info.date;
		r->rhost = info.source;
		r->lhost = info.lhost;
		r->diagnostic = text;
		r->redacted = info.redacted || stand_in(r->recipient);
	}
	return (int)(c->nrcpt - first);
}
