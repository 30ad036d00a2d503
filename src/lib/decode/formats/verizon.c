/* verizon.c - Verizon Wireless bounces: vtext.com (SMS gateway) and
 * vzwpix.com (MMS).
 *
 *   vtext.com:  Error: Invalid user address / Error message below:
 *               550 - Requested action not taken: no such user here
 *               Message details: ... RCPT TO: 0000000000@vtext.com
 *   vzwpix.com: Message could not be delivered to mobile.
 *               Error: No valid recipients for this MM
 *               Original Message: ... To: 0000000000@vzwpix.com
 */
#include "decode/formats/prov.h"

static int is_verizon(const sd_ctx *c)
{
	return mta_has(c->from, "post_master@vtext.com") ||
	       (mta_has(c->from, "sysadmin@") && mta_has(c->from, ".vzwpix.com"));
}

/* vtext.com: the diagnostic is the "NNN - text" line, the recipient "RCPT TO:". */
static void vtext_line(sd_ctx *c, sd_rcpt **r, sd_str *diag, sd_str line)
{
	sd_str t = sd_trim(line);

	if (mta_starts(t, "RCPT TO:")) {
		*r = pv_rcpt(c, mta_after(t, "RCPT TO:"));
		if (*r)
			(*r)->diagnostic = *diag;
	} else if (t.n > 6 && sd_isdigit((unsigned char)t.p[0]) && mta_has(t, " - ")) {
		*diag = t;
	}
}

/* vzwpix.com: "Error: text", recipient in the "To:" of the original message. */
static void mms_line(sd_ctx *c, sd_rcpt **r, sd_str *diag, sd_str line)
{
	sd_str t = sd_trim(line);

	if (mta_starts(t, "Error: "))
		*diag = mta_after(t, "Error: ");
	else if (mta_starts(line, "To: ") && (*r = pv_rcpt(c, mta_after(t, "To:"))))
		(*r)->diagnostic = *diag;
}

int sd_fmt_verizon(sd_ctx *c)
{
	sd_str body, line, diag = SD_NULLSTR;
	size_t pos = 0, from = c->nrcpt;
	sd_rcpt *r = NULL;
	int mms, n = 0;

	if (!is_verizon(c))
		return 0;
	mms = mta_has(c->from, "vzwpix.com");
	body = mta_body(c);
	if (!body.n)
		body = c->top->body; /* a multipart whose boundary parameter went astray */
	while (body.p && n++ < PV_MAX_LINES && sd_next_line(body, &pos, &line)) {
		if (mms)
			mms_line(c, &r, &diag, line);
		else
			vtext_line(c, &r, &diag, line);
	}
	if (c->nrcpt == from)
		return 0;
	for (size_t i = from; i < c->nrcpt; i++) {
		sd_rcpt *e = &c->rcpts[i];
		if (mta_has(e->diagnostic, "no such user here") || mta_has(e->diagnostic, "No valid recipients for this MM"))
			e->reason = SD_R_userunknown;
	}
	pv_original(c, body, NULL);
	return (int)(c->nrcpt - from);
}
