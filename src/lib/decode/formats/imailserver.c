/* imailserver.c - Ipswitch/Progress IMail Server (X-Mailer: <SMTP32 vN>).
 *
 *     Unknown user: user@example.com
 *     undeliverable to user@example.com
 *     Body of message generated response:
 *     550 ...
 *     Original message follows.
 * The server's own phrases name the reason. */
#include "decode/formats/mta.h"

static const struct {
	const char *text;
	int reason;
} says[] = {
	{ "Unknown host", SD_R_hostunknown },
	{ "Unknown user", SD_R_userunknown },
	{ "Invalid final delivery userid", SD_R_userunknown },
	{ "User mailbox exceeds allowed size", SD_R_mailboxfull },
	{ "Requested action not taken: virus detected", SD_R_virusdetected },
	{ "Blacklisted URL in message", SD_R_spamdetected },
	{ "Delivery failed ", SD_R_expired },
};

static int is_imail(const sd_ctx *c)
{
	return sd_str_caseeq(sd_trim(c->subject), "Undeliverable Mail") ||
	       mta_hdr_starts(c, "X-Mailer", "<SMTP32 v");
}

/* "Unknown user: user@example.com" or "undeliverable to user@example.com" */
static sd_str rcpt_line(sd_str line)
{
	sd_str col = mta_find(line, ": ");

	if (mta_starts(line, "undeliverable "))
		return mta_addr(line);
	if (col.p && (size_t)(col.p - line.p) > 8)
		return mta_addr(col);
	return SD_NULLSTR;
}

static int says_reason(sd_str text)
{
	for (size_t i = 0; i < sizeof(says) / sizeof(says[0]); i++)
		if (sd_memmem(text.p, text.n, says[i].text, strlen(says[i].text)))
			return says[i].reason;
	return -1;
}

int sd_fmt_imailserver(sd_ctx *c)
{
	sd_str body, line, addr, alt = SD_NULLSTR;
	size_t pos = 0, first = c->nrcpt;
	int inalt = 0;

	if (!is_imail(c))
		return 0;
	body = mta_before(mta_body(c), "Original message follows.");
	while (sd_next_line(body, &pos, &line)) {
		line = sd_trim(line);
		if ((addr = rcpt_line(line)).p) {
			sd_rcpt *r = sd_ctx_add(c);
			if (!r)
				break;
			r->recipient = addr;
			r->diagnostic = line;
			inalt = 0;
		} else if (mta_has(line, "Body of message generated response:")) {
			alt = line;
			inalt = 1;
		} else if (inalt) {
			alt = mta_join(c->a, alt, line);
		}
	}
	for (size_t i = first; i < c->nrcpt; i++) {
		sd_rcpt *r = &c->rcpts[i];
		r->diagnostic = mta_squeeze(c->a, mta_join(c->a, alt, r->diagnostic));
		r->command = mta_command(r->diagnostic);
		r->reason = says_reason(r->diagnostic);
	}
	return (int)(c->nrcpt - first);
}
