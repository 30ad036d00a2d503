/* apachejames.c - Apache James bounces.
 *
 *     Error message below:
 *     550 - Requested action not taken: no such user here
 *     Message details:
 *       RCPT TO: user@example.com
 */
#include "decode/formats/mta.h"

static int is_james(const sd_ctx *c)
{
	return mta_has(c->subject, "[BOUNCE]") || mta_received_contains(c, "JAMES SMTP Server") ||
	       mta_hdr_has(c, "Message-Id", ".JavaMail.");
}

int sd_fmt_apachejames(sd_ctx *c)
{
	sd_str body, line, diag = SD_NULLSTR, rcpt = SD_NULLSTR;
	size_t pos = 0;
	int inmsg = 0;
	sd_rcpt *r;

	if (!is_james(c))
		return 0;
	body = mta_body(c);
	if (!mta_contains(body, "Error message below:"))
		return 0;
	while (sd_next_line(body, &pos, &line)) {
		sd_str t = sd_trim(line);
		if (mta_starts(t, "Error message below:"))
			inmsg = 1;
		else if (mta_starts(t, "Message details:"))
			inmsg = 0;
		else if (mta_starts(t, "RCPT TO:") && !rcpt.p)
			rcpt = mta_addr(t);
		else if (inmsg && t.n)
			diag = mta_join(c->a, diag, t);
	}
	if (!rcpt.p || !(r = sd_ctx_add(c)))
		return 0;
	r->recipient = rcpt;
	r->diagnostic = mta_squeeze(c->a, diag);
	return 1;
}
