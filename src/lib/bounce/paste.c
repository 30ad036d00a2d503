/* paste.c - a bounce body pasted without its header fields.
 *
 * People copy a bounce out of a mail client as its text alone: no From, no
 * Subject, no Received, by which the format modules tell their format. The
 * rule: an input with no header field at all is all body (the MIME reader
 * already reads it so), and a module takes it as its own when one of the first
 * lines of that body opens with a line of its template ("This is the mail
 * system at host", "Hi. This is the qmail-send program at"). Any other text
 * without headers is left to the generic readers, and is no bounce when they
 * find no failed recipient in it. */
#include "bounce/ctx.h"

static int opens_with(sd_str line, const char *const *opening)
{
	for (size_t i = 0; opening[i]; i++)
		if (sd_str_casestarts(line, opening[i]))
			return 1;
	return 0;
}

int sd_ctx_opens_with(sd_ctx *c, const char *const *opening)
{
	sd_str body, line;
	size_t pos = 0;
	int seen = 0;

	body = sd_ctx_body(c);
	if (!body.n && c->top)
		body = c->top->body;
	if (body.n > SD_PASTE_SCAN)
		body.n = SD_PASTE_SCAN;
	while (seen < SD_PASTE_LINES && sd_next_line(body, &pos, &line)) {
		line = sd_trim(line);
		if (!line.n)
			continue;
		seen++;
		if (opens_with(line, opening))
			return 1;
	}
	return 0;
}
