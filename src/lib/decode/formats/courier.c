/* courier.c - Courier MTA delivery status notifications.
 *
 *                               UNDELIVERABLE MAIL
 *     Your message to the following recipients cannot be delivered:
 *     <user@example.co.jp>:
 *         mx.example.co.jp [192.0.2.95]:
 *     >>> RCPT TO:<user@example.co.jp>
 *     <<< 550 5.1.1 <user@example.co.jp>... User Unknown
 * plus a message/delivery-status part. The text gives the SMTP command; the
 * esmtp client's own sentences name some reasons. */
#include "decode/formats/mta.h"

static const struct {
	const char *text;
	int reason;
} says[] = {
	{ "No such domain.", SD_R_hostunknown },
	{ "This domain's DNS violates RFC 1035.", SD_R_systemerror },
	{ "DNS lookup failed.", SD_R_networkerror },
};

static int is_courier(const sd_ctx *c)
{
	return mta_has(c->from, "Courier mail server at ") ||
	       mta_has(c->subject, "NOTICE: mail delivery status.") ||
	       mta_has(c->subject, "WARNING: delayed mail.") ||
	       mta_hdr_starts(c, "Message-Id", "<courier.");
}

/* The last ">>> COMMAND" of the notification text. */
static sd_str last_command(sd_str body)
{
	sd_str line, cmd = SD_NULLSTR;
	size_t pos = 0;

	while (sd_next_line(body, &pos, &line))
		if (mta_starts(line, ">>> ") && mta_command_word(mta_skip(line, 4)).p)
			cmd = mta_command_word(mta_skip(line, 4));
	return cmd;
}

int sd_fmt_courier(sd_ctx *c)
{
	size_t first = c->nrcpt;
	sd_str body, cmd;
	int n;

	if (!is_courier(c))
		return 0;
	body = mta_body(c);
	n = mta_dsn(c);
	if (n == 0)
		n = mta_dsn_inline(c, body);
	if (n <= 0)
		return n;
	cmd = last_command(body);
	for (size_t i = first; i < c->nrcpt; i++) {
		sd_rcpt *r = &c->rcpts[i];
		r->command = cmd;
		for (size_t k = 0; k < sizeof(says) / sizeof(says[0]); k++)
			if (sd_memmem(r->diagnostic.p, r->diagnostic.n, says[k].text, strlen(says[k].text)))
				r->reason = says[k].reason;
	}
	return n;
}
