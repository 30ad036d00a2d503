/* qmail.c - qmail (and clones: netqmail, indimail, vpopmail setups) bounces.
 *
 *     Hi. This is the qmail-send program at mx.example.jp.
 *     <user@example.jp>:
 *     192.0.2.153 does not like recipient.
 *     Remote host said: 550 5.1.1 <user@example.jp>... User Unknown
 *     Giving up on 192.0.2.153.
 *     --- Below this line is a copy of the message.
 * qmail-remote's and qmail-local's own sentences name the SMTP stage and some
 * reasons for sure. */
#include "decode/formats/mta.h"

static const char *const starts_of[] = {
	"Hi. This is the qmail", "He/Her is not ",
	"unable to deliver your message to the following addresses",
	"Su mensaje no pudo ser entregado",
	"Sorry, we were unable to deliver your message to the following address",
	"This is the machine generated message from mail service",
	"This is the mail delivery agent at",
	"Unable to deliver message to the following address",
	"Unfortunately, your mail was not delivered to the following address:",
	"Your mail message to the following address",
	"Your message to the following addresses", "We're sorry.", NULL
};

static const char *const ends_of[] = {
	"--- Below this line is a copy of the message.",
	"--- Below this line is a copy of the mail header.",
	"--- Below the next line is a copy of the message.",
	"--- Enclosed is a copy of the message.",
	"--- Mensaje original adjunto.", "Content-Type: message/rfc822",
	"Original message follows.", NULL
};

/* qmail-remote.c: the stage of the SMTP session a sentence stands for. */
static const struct {
	const char *text, *command;
} stages[] = {
	{ " but greeting failed.", "CONN" },
	{ " but my name was rejected.", "EHLO" },
	{ " but sender was rejected.", "MAIL" },
	{ " does not like recipient.", "RCPT" },
	{ " failed on DATA command", "DATA" },
	{ " failed after I sent the message", "DATA" },
};

/* qmail's own sentences (qmail-local, qmail-remote, error_str, qmail-ldap). */
static const struct {
	const char *text;
	int reason;
} says[] = {
	{ "Sorry, I couldn't find any host ", SD_R_hostunknown },
	{ "disk quota exceeded", SD_R_mailboxfull },
	{ "Message size exceeds fixed maximum message size:", SD_R_emailtoolarge },
	{ "Sorry, I wasn't able to establish an SMTP connection", SD_R_networkerror },
	{ "Sorry. Although I'm listed as a best-preference MX or A for that host", SD_R_networkerror },
	{ "Sorry, I couldn't find a mail exchanger or IP address", SD_R_notaccept },
	{ "bad interpreter: No such file or directory", SD_R_systemerror },
	{ "system error", SD_R_systemerror },
	{ "Unable to", SD_R_systemerror },
	{ "Requested action not taken: mailbox unavailable (not enough free space)", SD_R_systemfull },
	{ "no mailbox here by that name", SD_R_userunknown },
	{ "The message exeeded the maximum size the user accepts", SD_R_emailtoolarge },
	{ "Mailaddress is administrativ", SD_R_suspend },
	{ "Automatic homedir creator crashed", SD_R_systemerror },
	{ "Illegal value in LDAP attribute", SD_R_systemerror },
	{ "LDAP attribute is not given but mandatory", SD_R_systemerror },
	{ "Timeout while performing search on LDAP server", SD_R_systemerror },
	{ "Too many results returned but needs to be unique", SD_R_systemerror },
	{ "Permanent error while executing qmail-forward", SD_R_systemerror },
	{ "Temporary error in automatic homedir creation", SD_R_systemerror },
	{ "Temporary error while executing qmail-forward", SD_R_systemerror },
	{ "Temporary failure in LDAP lookup", SD_R_systemerror },
	{ "Unable to contact LDAP server", SD_R_systemerror },
	{ "Unable to login into LDAP server, bad credentials", SD_R_systemerror },
	{ "this message has been in the queue too long.", SD_R_expired },
};

/* qmail-send.c's bounce opens so. */
static const char *const qm_opening[] = { "Hi. This is the qmail-send program at ", NULL };

static int is_qmail(sd_ctx *c)
{
	sd_str s = sd_trim(c->subject);

	if (sd_ctx_pasted(c, qm_opening))
		return 1; /* the body pasted alone */

	if (mta_hdr(c, "X-YMailISG").p) /* Yahoo's own format (yahoo.c) */
		return 0;
	return sd_str_caseeq(s, "failure notice") || mta_received_contains(c, "(qmail ");
}

static sd_str rhost_of(sd_str text)
{
	static const char *const intro[] = { "Giving up on ", "Connected to ", "remote host ", NULL };

	for (int i = 0; intro[i]; i++) {
		sd_str h = mta_after(text, intro[i]);
		size_t k = 0;
		if (!h.p)
			continue;
		while (k < h.n && h.p[k] != ' ')
			k++;
		while (k > 0 && (h.p[k - 1] == '.' || h.p[k - 1] == ':'))
			k--;
		return (sd_str){ h.p, k };
	}
	return SD_NULLSTR;
}

static int says_reason(sd_str text)
{
	for (size_t i = 0; i < sizeof(says) / sizeof(says[0]); i++)
		if (text.n && sd_memmem(text.p, text.n, says[i].text, strlen(says[i].text)))
			return says[i].reason;
	return -1;
}

static void classify(sd_rcpt *r, sd_str said)
{
	sd_str d = r->diagnostic;

	for (size_t i = 0; i < sizeof(stages) / sizeof(stages[0]) && !r->command.n; i++)
		if (mta_has(d, stages[i].text))
			r->command = (sd_str){ stages[i].command, 4 };
	if (!r->command.n && mta_has(d, "no SMTP connection got far enough"))
		r->command = mta_command(mta_after(d, "most progress was"));
	if (r->command.n && (!memcmp(r->command.p, "EHLO", 4) || !memcmp(r->command.p, "HELO", 4))) {
		r->reason = SD_R_blocked;
		return;
	}
	if (mta_has(d, " does not like recipient.") && mta_has(d, "this message has been in the queue too long."))
		return;
	r->reason = says_reason(said);
	if (r->reason < 0)
		r->reason = says_reason(d);
	if (!r->command.n)
		r->command = mta_command(d);
}

int sd_fmt_qmail(sd_ctx *c)
{
	size_t first = c->nrcpt, at;
	sd_str body;

	if (!is_qmail(c))
		return 0;
	body = mta_body(c);
	at = mta_angle_blocks(c, body, starts_of, ends_of);
	for (size_t i = first; i < c->nrcpt; i++) {
		sd_rcpt *r = &c->rcpts[i];
		r->diagnostic = mta_squeeze(c->a, r->diagnostic);
		r->rhost = rhost_of(r->diagnostic);
		classify(r, mta_find(r->diagnostic, "Remote host said:"));
	}
	if (c->nrcpt > first && at < body.n)
		sd_ctx_find_original(c, mta_skip(body, at));
	return (int)(c->nrcpt - first);
}
