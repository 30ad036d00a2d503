/* trendmicro.c - Trend Micro InterScan Messaging Security Suite notices.
 *
 *     Sent <<< RCPT TO:<user@example.co.jp>
 *     Received >>> 550 5.1.1 <user@example.co.jp>... user unknown
 * or
 *     Unable to deliver message to <user@example.jp> (and other recipients in
 *     the same domain). Please check if address is correct.
 * The last sentence is InterScan's own: the address was not accepted. */
#include "decode/formats/mta.h"

static int is_interscan(const sd_ctx *c)
{
	return mta_starts(sd_trim(c->from), "\"InterScan") || mta_hdr_has(c, "Content-Type", "InterScan") ||
	       mta_has(c->from, "InterScan");
}

/* The address in the last <...> of the line. */
static sd_str last_angle(sd_str line)
{
	sd_str a = SD_NULLSTR, f = line;

	while ((f = mta_after(f, "<")).p)
		if (mta_addr(mta_before(f, ">")).p)
			a = mta_addr(mta_before(f, ">"));
	return a;
}

static sd_rcpt *rcpt_for(sd_ctx *c, sd_rcpt *cur, sd_str addr)
{
	if (cur && cur->recipient.n == addr.n && sd_memcaseeq(cur->recipient.p, addr.p, addr.n))
		return cur;
	cur = sd_ctx_add(c);
	if (cur)
		cur->recipient = addr;
	return cur;
}

static sd_rcpt *read_line(sd_ctx *c, sd_rcpt *cur, sd_str line)
{
	sd_str addr = last_angle(line);
	int unable = mta_has(line, "Unable to deliver ");

	if (addr.p && (mta_has(line, " <<< ") || mta_has(line, " >>> ") || unable))
		cur = rcpt_for(c, cur, addr);
	if (!cur)
		return NULL;
	if (unable)
		cur->diagnostic = line;
	if (mta_starts(line, "Sent <<< "))
		cur->command = mta_command_word(mta_skip(line, 9));
	else if (mta_starts(line, "Received >>> "))
		cur->diagnostic = sd_trim(mta_skip(line, 13));
	return cur;
}

int sd_fmt_trendmicro(sd_ctx *c)
{
	sd_str body, line;
	size_t pos = 0, first = c->nrcpt;
	sd_rcpt *cur = NULL;

	if (!is_interscan(c))
		return 0;
	body = mta_before(mta_body(c), "Content-Type: message/rfc822");
	while (sd_next_line(body, &pos, &line))
		if (!mta_blank(line))
			cur = read_line(c, cur, sd_trim(line));
	for (size_t i = first; i < c->nrcpt; i++) {
		sd_rcpt *r = &c->rcpts[i];
		r->diagnostic = mta_squeeze(c->a, r->diagnostic);
		if (mta_has(r->diagnostic, "Unable to deliver"))
			r->reason = SD_R_userunknown;
	}
	return (int)(c->nrcpt - first);
}
