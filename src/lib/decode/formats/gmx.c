/* gmx.c - GMX / WEB.DE / 1&1 (United Internet) bounces.
 *
 *   This message was created automatically by mail delivery software.
 *   ...
 *   "shironeko@example.jp":
 *   SMTP error from remote server after RCPT command:
 *   host: mx.example.jp
 *   5.2.2 <shironeko@example.jp>... Mailbox Full
 *
 *   --- The header of the original message is following. ---
 *
 * 1&1 also writes "The following address failed: / a@b / For the following
 * reason: / text", or "a@b: / SMTP error ... host: h (ip) reason: 550 ...".
 */
#include "decode/formats/prov.h"

#define UI_START "This message was created automatically by mail delivery software"
#define UI_ORIG "--- The header of the original message is following. ---"

static int is_gmx(const sd_ctx *c)
{
	if (!mta_has(c->subject, "Mail delivery failed"))
		return 0;
	return mta_has(c->from, "@mail.gmx.") || mta_has(c->from, "@web.de") ||
	       mta_hdr(c, "X-GMX-Antispam").p || mta_hdr(c, "X-GMX-Antivirus").p;
}

/* "\"a@b\":", "a@b:" or "a@b" alone on the line. */
static int rcpt_line(sd_str line, sd_str *addr)
{
	sd_str t = sd_trim(line);

	if (t.n && t.p[t.n - 1] == ':')
		t.n--;
	if (t.n >= 2 && t.p[0] == '"' && t.p[t.n - 1] == '"')
		t = (sd_str){ t.p + 1, t.n - 2 };
	*addr = t;
	return mta_is_addr(t);
}

/* "host: mx.example.jp" or "... host: smtp-in.orange.fr (193.252.22.65) reason: ..." */
static sd_str rhost_of(sd_str d)
{
	sd_str h = sd_trim(mta_after(d, "host:"));
	size_t k = 0;

	while (k < h.n && h.p[k] != ' ' && h.p[k] != '(')
		k++;
	return (sd_str){ h.p, k };
}

static void ui_finish(sd_rcpt *r)
{
	r->rhost = rhost_of(r->diagnostic);
	if (mta_has(r->diagnostic, "for TEXT command"))
		r->command = SD_STR("DATA");
	else
		r->command = mta_command(r->diagnostic);
	if (mta_has(r->diagnostic, "Mail size limit exceeded"))
		r->reason = SD_R_emailtoolarge;
}

int pv_united_internet(sd_ctx *c)
{
	sd_str body = mta_body(c), text, line, addr;
	size_t pos = 0, from = c->nrcpt;
	sd_rcpt *r = NULL;
	int n = 0;

	text = pv_cut(pv_after_line(body, UI_START), (const char *const[]){ UI_ORIG, NULL });
	while (text.p && n++ < PV_MAX_LINES && sd_next_line(text, &pos, &line)) {
		if (rcpt_line(line, &addr))
			r = pv_rcpt(c, addr);
		else if (r && !mta_starts(sd_trim(line), "For the following reason:"))
			pv_diag(c, r, line);
	}
	if (c->nrcpt == from)
		return 0;
	for (size_t i = from; i < c->nrcpt; i++)
		ui_finish(&c->rcpts[i]);
	pv_original(c, body, UI_ORIG);
	return (int)(c->nrcpt - from);
}

int sd_fmt_gmx(sd_ctx *c)
{
	return is_gmx(c) ? pv_united_internet(c) : 0;
}
