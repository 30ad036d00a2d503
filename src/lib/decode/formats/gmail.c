/* gmail.c - Gmail's own text bounces (before Google sent RFC 3464 reports).
 *
 *   Delivery to the following recipient failed permanently:
 *
 *        kijitora@example.jp
 *
 *   Technical details of permanent failure:
 *   Google tried to deliver your message, but it was rejected by the server for
 *   the recipient domain example.jp by mx.example.jp. [192.0.2.153].
 *
 *   The error that the other server returned was:
 *   550 5.1.1 <kijitora@example.jp>... User Unknown
 *
 *   ----- Original message -----
 */
#include "decode/formats/prov.h"
#include "smtp/reply.h"

#define GM_START "Delivery to the following recipient"
#define GM_ORIG "----- Original message -----"
#define GM_ADDR_SCAN 512 /* bytes after "delivered to" searched for the address */

static const char *const gm_ends[] = { GM_ORIG, "----- Message header follows -----", NULL };

/* Gmail's session table: "(state N)" at the end of the quoted reply. */
static const struct {
	int state;
	const char *command;
	int reason;
} gm_states[] = {
	{ 6, "MAIL", SD_R_systemerror },   { 8, "AUTH", SD_R_systemerror },
	{ 9, "AUTH", SD_R_systemerror },   { 12, "AUTH", SD_R_norelaying },
	{ 13, "EHLO", SD_R_blocked },      { 14, "RCPT", SD_R_userunknown },
	{ 15, "DATA", SD_R_filtered },     { 17, "DATA", SD_R_filtered },
	{ 18, "DATA", SD_R_filtered },
};

static const pv_phrase gm_phrases[] = {
	{ "DNS Error: Could not contact DNS servers", SD_R_expired },
	{ "Delivery to the following recipient has been delayed", SD_R_expired },
	{ "The recipient server did not accept our requests to connect", SD_R_expired },
	{ "DNS Error: Domain name not found", SD_R_hostunknown },
	{ "DNS Error: DNS server returned answer with no data", SD_R_hostunknown },
	{ NULL, 0 },
};

/* The lines Gmail's report opens with, the older and the current ones. */
static const char *const gm_opening[] = {
	GM_START, "** Address not found **", "** Message not delivered **", "** Message blocked **",
	"** Domain not found **", "** Delivery incomplete **", "Your message wasn't delivered to ",
	"Delivery Status Notification (", NULL
};

static int is_gmail(sd_ctx *c)
{
	if (sd_ctx_pasted(c, gm_opening))
		return 1; /* the body pasted alone */
	return mta_has(c->from, "<mailer-daemon@googlemail.com>") &&
	       mta_has(c->subject, "Delivery Status Notification");
}


/* "... (state 18)." -> 18, or -1 */
static int state_of(sd_str d)
{
	sd_str s = mta_after(d, "(state ");
	unsigned long v;

	while (s.p) {
		sd_str next = mta_after(s, "(state ");
		if (!next.p)
			break;
		s = next;
	}
	if (!s.p || !sd_parse_uint(s.p, s.n, 3, &v))
		return -1;
	return (int)v;
}

/* rhost from "... by mx.example.jp. [192.0.2.153]." */
static void find_rhost(sd_rcpt *r)
{
	sd_str by = mta_after(r->diagnostic, " by "), h;

	if (!by.p || !mta_has(by, ". ["))
		return;
	h = mta_before(by, ". [");
	if (h.n && !memchr(h.p, ' ', h.n))
		r->rhost = h;
}

/* Does the quoted reply carry a precise status (not X.0.0 nor X.Y.0)? */
static int precise_status(sd_str d)
{
	sd_found f[4];
	size_t n = sd_find_codes(d.p, d.n, f, 4);
	int k = sd_pick_code(f, n);

	return k >= 0 && f[k].status.text[0] && f[k].status.subject && f[k].status.detail;
}

static void finish(sd_ctx *c, sd_rcpt *r, sd_str head)
{
	int st = state_of(r->diagnostic), precise = precise_status(r->diagnostic);

	find_rhost(r);
	for (size_t i = 0; i < sizeof(gm_states) / sizeof(gm_states[0]); i++)
		if (gm_states[i].state == st) {
			r->command = (sd_str){ gm_states[i].command, strlen(gm_states[i].command) };
			if (!precise)
				r->reason = gm_states[i].reason;
		}
	if (r->reason < 0 && !precise)
		r->reason = pv_phrase_find(r->diagnostic, gm_phrases);
	if (r->reason < 0 && !precise)
		r->reason = pv_phrase_find(head, gm_phrases);
	if (mta_has(head, "has been delayed"))
		r->action = SD_STR("delayed");
}

/* The current report, read when its body is pasted alone (with headers it comes
 * with a delivery-status part, rfc3464.c):
 *   Your message wasn't delivered to user@example.org because the address
 *   couldn't be found, or is unable to receive mail.
 *   The response from the remote server was:      ("The response was:")
 *   550 5.1.1 <user@example.org>: Recipient address rejected: User unknown
 * The reply runs to the first blank line after it. */
static int current(sd_ctx *c, sd_str body)
{
	sd_str to = mta_after(body, " delivered to "), said, line;
	sd_rcpt *r;
	size_t pos = 0;
	int n = 0;

	if (!to.p) /* the delay notice: "There was a temporary problem delivering
		    * your message to user@example.org. Gmail will retry ..." */
		to = mta_after(body, " delivering your message to ");
	if (!to.p || !(r = pv_rcpt(c, mta_addr(mta_before(to.n > GM_ADDR_SCAN ? (sd_str){ to.p, GM_ADDR_SCAN } : to, " because")))))
		return 0;
	said = mta_after(body, "The response from the remote server was:");
	if (!said.p)
		said = mta_after(body, "The response was:");
	while (said.p && n++ < PV_MAX_LINES && sd_next_line(said, &pos, &line)) {
		if (mta_blank(line) && r->diagnostic.n)
			break;
		if (!mta_blank(line))
			pv_diag(c, r, line);
	}
	if (!r->diagnostic.n) /* no reply quoted: Gmail's own sentence */
		pv_diag(c, r, mta_before(mta_before(to, "\n\n"), "Learn more"));
	finish(c, r, body);
	return 1;
}

int sd_fmt_gmail(sd_ctx *c)
{
	sd_str body, text, line;
	size_t pos = 0, from = c->nrcpt;
	sd_rcpt *r = NULL;
	int n = 0;

	if (!is_gmail(c))
		return 0;
	body = mta_body(c);
	text = pv_cut(mta_find(body, GM_START), gm_ends);
	if (!text.p && sd_ctx_headerless(c))
		return current(c, body);
	while (text.p && n++ < PV_MAX_LINES && sd_next_line(text, &pos, &line)) {
		if (line.n > 1 && line.p[0] == ' ' && mta_is_addr(line))
			r = pv_rcpt(c, line);
		else if (r)
			pv_diag(c, r, line);
	}
	if (c->nrcpt == from)
		return 0;
	for (size_t i = from; i < c->nrcpt; i++)
		finish(c, &c->rcpts[i], text);
	pv_original(c, body, GM_ORIG);
	return (int)(c->nrcpt - from);
}
