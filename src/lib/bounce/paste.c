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

/* ---- the text as the mail client's copy changed it ----
 *
 * A body quoted in a reply ("> " before every line, once or more), or indented
 * as a whole, is the bounce with a prefix on each line: the prefix is no part of
 * the report, and the format modules read the report by its lines' first
 * characters (Postfix's four-space continuations, Sendmail's ">>> " transcript).
 * A level of quoting is taken off when at least two thirds of the non-blank
 * lines carry it (a client's "On ... wrote:" line above is not quoted), and a
 * margin when every non-blank line has it. Blanks at a line's end go too. */

#define PASTE_MIN_QUOTED 3 /* fewer quoted lines is no quoted report */
#define PASTE_MAX_LEVELS 8

static int quoted_line(sd_str l)
{
	return l.n && l.p[0] == '>';
}

/* blanks at the start of l; l.n when it is blank throughout */
static size_t margin(sd_str l)
{
	size_t i = 0;

	while (i < l.n && (l.p[i] == ' ' || l.p[i] == '\t'))
		i++;
	return i;
}

static sd_str rtrim(sd_str l)
{
	while (l.n && sd_isspace((unsigned char)l.p[l.n - 1]))
		l.n--;
	return l;
}

/* What to take off: 1 when one level of quoting goes, else 0; *indent the
 * margin every non-blank line shares. */
static int prefix_of(sd_str text, size_t *indent)
{
	size_t pos = 0, lines = 0, quoted = 0, m = (size_t)-1;
	sd_str l;

	while (sd_next_line(text, &pos, &l)) {
		l = rtrim(l);
		if (!l.n)
			continue;
		lines++;
		quoted += (size_t)quoted_line(l);
		if (margin(l) < m)
			m = margin(l);
	}
	*indent = lines ? m : 0;
	return quoted >= PASTE_MIN_QUOTED && quoted * 3 >= lines * 2;
}

/* One pass: each line without its quote level (quote) or margin (indent) and
 * its blanks at the end, with LF line ends. */
static sd_str strip_pass(sd_arena *a, sd_str text, int quote, size_t indent)
{
	char *o = sd_arena_alloc(a, text.n + 1);
	size_t pos = 0, k = 0;
	sd_str l;

	if (!o)
		return SD_NULLSTR;
	while (sd_next_line(text, &pos, &l)) {
		l = rtrim(l);
		if (quote && quoted_line(l)) {
			l = (sd_str){ l.p + 1, l.n - 1 };
			if (l.n && l.p[0] == ' ')
				l = (sd_str){ l.p + 1, l.n - 1 };
		} else if (!quote && l.n >= indent) {
			l = (sd_str){ l.p + indent, l.n - indent };
		}
		memcpy(o + k, l.p, l.n);
		k += l.n;
		o[k++] = '\n';
	}
	return (sd_str){ o, k };
}

sd_str sd_paste_clean(sd_arena *a, sd_str text)
{
	sd_str t = text;
	size_t indent;

	for (int i = 0; i < PASTE_MAX_LEVELS; i++) {
		int quote = prefix_of(t, &indent);
		sd_str next;
		if (!quote && !indent)
			break;
		next = strip_pass(a, t, quote, indent);
		if (!next.p)
			return text; /* out of memory: read it as it came */
		t = next;
	}
	return t;
}

/* A client wraps a line when its next word would pass the width it writes at
 * (72 or 76 columns, seldom less than 60 with a quote level), so the line it
 * broke is long: with the first word of the next line it passes
 * SD_PASTE_WRAP_MIN. A short line was a whole line of the report. */
int sd_paste_rewrapped(sd_str prev, sd_str next)
{
	size_t w = 0;

	prev = rtrim(prev);
	next = rtrim(next);
	if (!prev.n || !next.n || sd_isspace((unsigned char)next.p[0]))
		return 0;
	while (w < next.n && next.p[w] != ' ' && next.p[w] != '\t')
		w++;
	return prev.n + 1 + w > SD_PASTE_WRAP_MIN;
}

/* ---- a mail client's own header lines above a pasted body ----
 *
 * A client that forwards or prints a message writes a few lines of its own
 * above it, "From: / Sent: / To: / Subject:" (Outlook), "Von: / Gesendet: / An: /
 * Betreff:" in German, and so on. They look like header fields, yet no message
 * is sent with a "Sent:" or "Betreff:" field: a block of such names only is the
 * client's, and the text is a body pasted alone. */

static const char *const client_names[] = { /* a message's own fields too */
	"From", "To", "Cc", "Subject", "Date", NULL
};
static const char *const client_only[] = { /* names no message is sent with */
	"Sent", "Gesendet", "Von", "An", "Betreff", "Datum", "Verzonden", "Van", "Aan",
	"Onderwerp", "Inviato", "Oggetto", "Skickat", "Ämne", "Från", "Till", NULL
};

static int name_in(sd_str name, const char *const *list)
{
	for (size_t i = 0; list[i]; i++)
		if (sd_str_caseeq(name, list[i]))
			return 1;
	return 0;
}

int sd_paste_client_block(const sd_part *top)
{
	int own = 0;

	if (!top->nhdrs || top->nhdrs > 8)
		return 0;
	for (size_t i = 0; i < top->nhdrs; i++) {
		if (name_in(top->hdrs[i].name, client_only))
			own = 1;
		else if (!name_in(top->hdrs[i].name, client_names))
			return 0;
	}
	return own;
}
