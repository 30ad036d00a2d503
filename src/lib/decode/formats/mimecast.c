/* mimecast.c - Mimecast delivery failure notifications. The report part holds
 * RFC 3464 fields written "Name : value" (a blank before the colon), which a
 * standard reader skips:
 *
 *   Action : failed
 *   Status : 5.0.0
 *   Diagnostic-Code : smtp;550 5.7.54 SMTP; Unable to relay recipient ...
 *   Final-Recipient : rfc/822;kijitora@example.net
 */
#include "decode/formats/prov.h"

static int is_mimecast(const sd_ctx *c)
{
	return (mta_has(c->subject, "Delivery Failure") || mta_has(c->subject, "Delivery Status")) &&
	       (mta_hdr(c, "X-MC-System").p || mta_hdr_has(c, "Message-ID", ".mimecast.lan>") ||
		mta_received_has(c, ".mimecast.com"));
}

/* The fields with "Name : value" turned into "Name: value" (arena). */
static sd_str normalised(sd_ctx *c, sd_str s)
{
	sd_buf b;
	sd_str line, out = SD_NULLSTR;
	size_t pos = 0;
	int n = 0;

	sd_buf_init(&b);
	while (n++ < PV_MAX_LINES && sd_next_line(s, &pos, &line)) {
		size_t k = 0, e;
		while (k < line.n && (sd_isalnum((unsigned char)line.p[k]) || line.p[k] == '-'))
			k++;
		for (e = k; e < line.n && line.p[e] == ' '; e++)
			;
		if (k && e > k && e < line.n && line.p[e] == ':') {
			sd_buf_put(&b, line.p, k);
			sd_buf_put(&b, line.p + e, line.n - e);
		} else {
			sd_buf_put(&b, line.p, line.n);
		}
		sd_buf_putc(&b, '\n');
	}
	if (!b.oom && b.len)
		out = pv_dup(c, b.data, b.len);
	sd_buf_free(&b);
	return out;
}

int sd_fmt_mimecast(sd_ctx *c)
{
	const sd_part *ds;
	size_t from = c->nrcpt;
	int n;

	if (!is_mimecast(c))
		return 0;
	ds = mta_part(c, "message/delivery-status");
	if (!ds)
		return 0;
	n = mta_dsn_read(c, normalised(c, sd_part_text(c->a, ds)));
	if (n <= 0)
		return n;
	for (size_t i = from; i < c->nrcpt; i++)
		mta_take_codes(c->a, &c->rcpts[i], c->rcpts[i].diagnostic);
	pv_original(c, mta_body(c), NULL);
	return (int)(c->nrcpt - from);
}
