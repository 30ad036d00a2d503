/* rfc3834.c - automatic replies (vacation, out of office).
 *
 * Recognised by Auto-Submitted: auto-replied (RFC 3834) and the older marks:
 * Precedence: auto_reply, X-Autoreply / X-Autorespond, X-Apple-Action:
 * vacation, and the usual subjects ("Automatic reply:", "Out of Office:").
 * Mail from root, postmaster or MAILER-DAEMON is never an auto-reply here: a
 * bounce module reads it. The recipient is the auto-reply's sender. */
#include "bounce/ctx.h"
#include "bounce/dsnutil.h"
#include "decode/formats/formats.h"

#define AR_MAX_TEXT (4u << 10) /* bytes of the reply text kept as the diagnostic */

static int starts_any(sd_str v, const char *const *list, size_t n)
{
	v = sd_trim(v);
	for (size_t i = 0; i < n; i++)
		if (sd_str_casestarts(v, list[i]))
			return 1;
	return 0;
}

static int has_any(sd_str v, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v.n && sd_memcasemem(v.p, v.n, list[i], strlen(list[i])))
			return 1;
	return 0;
}

static const char *const subjects[] = { "auto:", "auto response:", "automatic reply:", "out of office:",
					"out of the office:", "autoreply:", "auto reply:", "abwesenheitsnotiz:" };

static int excluded(const sd_ctx *c)
{
	static const char *const from[] = { "root@", "postmaster@", "mailer-daemon@" };
	static const char *const subj[] = { "security information for", "mail failure -" };
	sd_str to = sd_part_header(c->top, "To");

	return has_any(c->from, from, 3) || has_any(to, (const char *const[]){ "root@" }, 1) ||
	       has_any(c->subject, subj, 2);
}

static int auto_reply(const sd_ctx *c)
{
	static const char *const as[] = { "auto-generated", "auto-replied", "auto-notified" };
	const sd_part *t = c->top;

	if (starts_any(sd_part_header(t, "Auto-Submitted"), as, 3))
		return 1;
	if (starts_any(sd_part_header(t, "Precedence"), (const char *const[]){ "auto_reply" }, 1))
		return 1;
	if (starts_any(sd_part_header(t, "X-Apple-Action"), (const char *const[]){ "vacation" }, 1))
		return 1;
	if (sd_part_header(t, "X-Autoreply").n || sd_part_header(t, "X-Autorespond").n)
		return 1;
	return starts_any(c->subject, subjects, sizeof(subjects) / sizeof(subjects[0]));
}

/* The original subject after "Automatic reply: ". */
static sd_str orig_subject(const sd_ctx *c)
{
	sd_str s = sd_trim(c->subject);
	const char *colon;

	if (!starts_any(s, subjects, sizeof(subjects) / sizeof(subjects[0])))
		return SD_NULLSTR;
	colon = memchr(s.p, ':', s.n);
	return colon ? sd_trim((sd_str){ colon + 1, s.n - (size_t)(colon + 1 - s.p) }) : SD_NULLSTR;
}

int sd_fmt_rfc3834(sd_ctx *c)
{
	sd_str addr = sd_addr_clean(c->from);
	sd_str body;
	sd_rcpt *r;

	if (excluded(c) || !auto_reply(c))
		return 0;
	if (!sd_is_address(addr))
		addr = sd_addr_clean(sd_part_header(c->top, "Return-Path"));
	if (!sd_is_address(addr) || !(r = sd_ctx_add(c)))
		return 0;
	body = sd_ctx_body(c);
	if (body.n > AR_MAX_TEXT)
		body.n = AR_MAX_TEXT;
	r->recipient = addr;
	r->reason = SD_R_vacation;
	r->diagnostic = dsn_lead_text(c->a, body, AR_MAX_TEXT);
	r->date = c->date;
	/* the auto-reply answers a message whose recipient it names */
	c->orig_done = 1;
	c->orig.to = addr;
	c->orig.subject = orig_subject(c);
	return 1;
}
