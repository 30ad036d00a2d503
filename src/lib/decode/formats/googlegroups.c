/* googlegroups.c - Google Groups refusing a post ("the group you tried to
 * contact may not exist, or you may not have permission to post").
 * The recipients are in X-Failed-Recipients; the body is localised. */
#include "decode/formats/prov.h"

#define GG_ORIG "----- Original message -----"

static int is_googlegroups(const sd_ctx *c)
{
	return mta_has(c->from, "<mailer-daemon@googlemail.com>") &&
	       mta_hdr_has(c, "X-Failed-Recipients", "@googlegroups.com");
}

/* The first paragraph after the greeting: what Google Groups says. */
static sd_str explanation(sd_str body)
{
	sd_str text = pv_cut(body, (const char *const[]){ GG_ORIG, NULL }), line;
	size_t pos = 0;
	int seen = 0;

	while (sd_next_line(text, &pos, &line)) {
		line = sd_trim(line);
		if (!line.n)
			continue;
		if (seen++)
			return line;
	}
	return SD_NULLSTR;
}

int sd_fmt_googlegroups(sd_ctx *c)
{
	sd_str list = mta_hdr(c, "X-Failed-Recipients"), body, why;
	size_t from = c->nrcpt, start = 0;

	if (!is_googlegroups(c))
		return 0;
	body = mta_body(c);
	if (!mta_has(body, "groups.google.com") && !mta_has(body, "Google Groups"))
		return 0;
	why = explanation(body);
	for (size_t i = 0; i <= list.n; i++) {
		if (i < list.n && list.p[i] != ',')
			continue;
		sd_rcpt *r = pv_rcpt(c, (sd_str){ list.p + start, i - start });
		if (r) {
			r->diagnostic = why;
			r->reason = SD_R_rejected;
		}
		start = i + 1;
	}
	if (c->nrcpt == from)
		return 0;
	pv_original(c, body, GG_ORIG);
	return (int)(c->nrcpt - from);
}
