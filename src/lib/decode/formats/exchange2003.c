/* exchange2003.c - Microsoft Exchange Server 5.5 - 2003 (Internet Mail Service)
 * non-delivery reports.
 *
 *   Your message
 *     To:      shironeko@example.jp
 *     Subject: ...
 *     Sent:    Thu, 29 Apr 2010 18:14:35 +0000
 *   did not reach the following recipient(s):
 *
 *   kijitora@example.co.jp on Thu, 29 Apr 2007 16:51:51 -0500
 *       The recipient name is not recognized
 *       MSEXCH:IMS:KIJITORA CAT:EXAMPLE:EXCHANGE 0 (000C05A6) Unknown Recipient
 */
#include "decode/formats/prov.h"

/* The MSEXCH error code in parentheses and what it means. */
static const struct {
	const char *code;
	int reason;
} ex_codes[] = {
	{ "000C05A6", SD_R_userunknown },   /* Unknown Recipient */
	{ "00010256", SD_R_systemerror },   /* Too many recipients */
	{ "000D06B5", SD_R_systemerror },   /* No proxy for recipient */
	{ "00120270", SD_R_networkerror },  /* Too Many Hops */
	{ "00050311", SD_R_contenterror },  /* Conversion to Internet format failed */
	{ "000502CC", SD_R_contenterror },
	{ "000B0981", SD_R_securityerror }, /* 502 Server does not support AUTH */
	{ "000C0595", SD_R_filtered },      /* Ambiguous Recipient */
	{ "000B099C", SD_R_onhold },        /* Host Unknown, Message exceeds size limit, ... */
	{ "000B09AA", SD_R_onhold },        /* Unable to relay for, ... */
	{ "000B09B6", SD_R_onhold },        /* error messages of the remote MTA */
};

static int is_exchange2003(const sd_ctx *c)
{
	if (!mta_has(c->from, "postmaster") && !mta_has(c->from, "mailer-daemon") &&
	    !mta_has(c->from, "administrator"))
		return 0;
	return mta_hdr(c, "X-MS-Embedded-Report").p ||
	       mta_hdr_starts(c, "X-Mailer", "Internet Mail Service (") ||
	       mta_hdr_starts(c, "X-Mailer", "Microsoft Exchange Server Internet Mail Connector") ||
	       mta_hdr_starts(c, "X-MimeOLE", "Produced By Microsoft Exchange") ||
	       mta_received_has(c, " with Internet Mail Service (");
}

/* "kijitora@example.jp on Thu, 29 Apr ..." or "... SMTP=a@b on ..." */
static int rcpt_line(sd_str line, sd_str *addr)
{
	sd_str t = sd_trim(line), a = mta_before(t, " on ");

	if (a.n == t.n || !a.n)
		return 0;
	if (mta_has(a, "SMTP="))
		a = mta_after(a, "SMTP=");
	*addr = sd_trim(a);
	return mta_is_addr(*addr);
}

static int code_reason(sd_str d)
{
	sd_str p = mta_after(d, "(");

	if (p.n < 8)
		return -1;
	for (size_t i = 0; i < sizeof(ex_codes) / sizeof(ex_codes[0]); i++)
		if (sd_memcaseeq(p.p, ex_codes[i].code, 8))
			return ex_codes[i].reason;
	return -1;
}

typedef struct ex_rd {
	sd_ctx *c;
	sd_rcpt *r;
	int msexch;   /* the current record's MSEXCH line was seen */
} ex_rd;

static void ex_line(ex_rd *d, sd_str line)
{
	sd_str addr, msx = mta_find(line, "MSEXCH:");

	if (rcpt_line(line, &addr)) {
		d->r = pv_rcpt(d->c, addr);
		d->msexch = 0;
	} else if (d->r && msx.p) {
		pv_diag(d->c, d->r, msx);
		d->msexch = 1;
	} else if (d->r && d->msexch && line.n && line.p[0] != ' ' && line.p[0] != '\t') {
		pv_diag(d->c, d->r, line); /* "Unknown Recipient" wrapped onto its own line */
		d->msexch = 2;
	} else if (d->r && d->msexch != 2 && !mta_starts(sd_trim(line), "The MTS-ID") && line.p[0] != ';') {
		pv_diag(d->c, d->r, line);
	}
}

static void ex_finish(ex_rd *d, sd_rcpt *r)
{
	int reason = code_reason(mta_find(r->diagnostic, "MSEXCH:"));

	if (reason == SD_R_onhold)
		pv_weak_reason(d->c, r, reason);
	else if (reason >= 0)
		r->reason = reason;
}

int sd_fmt_exchange2003(sd_ctx *c)
{
	ex_rd d = { c, NULL, 0 };
	sd_str body, text, line;
	size_t pos = 0, from = c->nrcpt;
	int n = 0;

	if (!is_exchange2003(c))
		return 0;
	body = mta_body(c);
	text = mta_after(body, "did not reach the following recipient(s):");
	if (!text.p)
		text = mta_after(body, "The following recipient(s) could not be reached:");
	while (text.p && n++ < PV_MAX_LINES && sd_next_line(text, &pos, &line))
		if (line.n)
			ex_line(&d, line);
	if (c->nrcpt == from)
		return 0;
	for (size_t i = from; i < c->nrcpt; i++)
		ex_finish(&d, &c->rcpts[i]);
	pv_original(c, body, NULL);
	return (int)(c->nrcpt - from);
}
