/* zoho.c - Zoho Mail bounces.
 *
 *   kijitora@example.co.jp Invalid Address, ERROR_CODE :550, ERROR_CODE :5.1.1 <...>... User Unknown
 *   -- or (delays) --
 *   [Status: Error, Address: <kijitora@example.jp>, ResponseCode 421, , Host not reachable.]
 */
#include "decode/formats/prov.h"
#include "smtp/reply.h"

#define ZO_START "This message was created automatically by mail delivery"

static int is_zoho(const sd_ctx *c)
{
	if (!mta_has(c->from, "mailer-daemon@"))
		return 0;
	return mta_hdr(c, "X-ZohoMail").p || mta_hdr_has(c, "X-Mailer", "Zoho Mail");
}

static sd_str digits(sd_str s, size_t max)
{
	size_t k = 0;

	s = sd_trim(s);
	while (k < s.n && k < max && sd_isdigit((unsigned char)s.p[k]))
		k++;
	return (sd_str){ s.p, k };
}

/* "ERROR_CODE :550, ERROR_CODE :5.2.1 <a@b>... User Unknown" */
static void error_codes(sd_ctx *c, sd_rcpt *r, sd_str d)
{
	sd_str e1 = mta_after(d, "ERROR_CODE :"), e2 = mta_after(e1, "ERROR_CODE :");
	sd_str rc = digits(e1, 3);
	sd_status st;

	if (rc.n == 3)
		r->replycode = rc;
	e2 = sd_trim(e2);
	if (e2.n && sd_status_parse(e2.p, e2.n, &st))
		r->status = pv_dup(c, st.text, strlen(st.text));
}

static void zo_line(sd_ctx *c, sd_str line)
{
	sd_rcpt *r = NULL;

	if (mta_starts(line, "[Status: ")) {
		r = pv_rcpt(c, mta_after(line, "Address:"));
		if (r) {
			sd_str rc = digits(mta_after(line, "ResponseCode "), 3);
			r->diagnostic = sd_trim(line);
			if (rc.n == 3)
				r->replycode = rc;
		}
	} else if (mta_has(line, "ERROR_CODE :") && line.n && line.p[0] != ' ') {
		sd_str addr = mta_before(line, " ");
		if (mta_is_addr(addr) && (r = pv_rcpt(c, addr))) {
			r->diagnostic = sd_trim(mta_skip(line, addr.n));
			error_codes(c, r, r->diagnostic);
		}
	}
	if (r && mta_has(r->diagnostic, "Host not reachable"))
		r->reason = SD_R_expired;
}

int sd_fmt_zoho(sd_ctx *c)
{
	sd_str body, text, line;
	size_t pos = 0, from = c->nrcpt;
	int n = 0;

	if (!is_zoho(c))
		return 0;
	body = mta_body(c);
	text = pv_cut(pv_after_line(body, ZO_START), (const char *const[]){ "Received:", NULL });
	while (text.p && n++ < PV_MAX_LINES && sd_next_line(text, &pos, &line))
		zo_line(c, line);
	if (c->nrcpt == from)
		return 0;
	for (size_t i = from; i < c->nrcpt; i++)
		if (mta_has(mta_hdr(c, "Subject"), "(Delay)"))
			c->rcpts[i].action = SD_STR("delayed");
	pv_original(c, body, NULL);
	return (int)(c->nrcpt - from);
}
