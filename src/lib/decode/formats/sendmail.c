/* sendmail.c - Sendmail (V8) bounces: "Returned mail: see transcript for details".
 *
 * The text part holds the transcript of the failed session:
 *     ... while talking to mx.example.org.:
 *     >>> RCPT To:<user@example.org>
 *     <<< 550 5.1.1 <user@example.org>... User unknown
 *     550 5.1.1 <user@example.org>... User unknown
 * and the message/delivery-status part the RFC 3464 fields. The transcript
 * gives the SMTP command and often the fuller reply. */
#include "decode/formats/mta.h"
#include "smtp/reply.h"

#define SM_MAX_REPLIES 16 /* distinct "<<<" reply lines kept */

typedef struct sm_text {
	sd_str command;          /* last ">>> CMD" */
	sd_str replies[SM_MAX_REPLIES];
	size_t nreplies;
	sd_str alt_rcpt, alt_diag, alt_status;
	int session;             /* "... while talking to" seen */
	int found;               /* the transcript marker was there */
} sm_text;

/* The lines Sendmail's returned-mail text opens with (savemail.c). */
static const char *const sm_opening[] = {
	"The original message was received at ", "----- The following addresses had permanent fatal errors -----",
	"----- Transcript of session follows -----", NULL
};

static int is_sendmail(sd_ctx *c)
{
	sd_str s = sd_trim(c->subject);

	if (sd_ctx_pasted(c, sm_opening))
		return 1; /* the body pasted alone */
	if (mta_hdr(c, "X-AOL-IP").p)
		return 0;
	return mta_has(s, "see transcript for details") || mta_starts(s, "Warning: ");
}

static void add_reply(sm_text *t, sd_str r)
{
	r = sd_trim(r);
	for (size_t i = 0; i < t->nreplies; i++)
		if (t->replies[i].n == r.n && !memcmp(t->replies[i].p, r.p, r.n))
			return;
	if (t->nreplies < SM_MAX_REPLIES && r.n)
		t->replies[t->nreplies++] = r;
}

/* "550 5.1.2 text": a reply line sendmail writes after the transcript. */
static int status_line(sd_str line, sd_str *status)
{
	size_t i = 4, b;

	if (line.n < 10 || (line.p[0] != '4' && line.p[0] != '5') || !sd_isdigit((unsigned char)line.p[1]) ||
	    !sd_isdigit((unsigned char)line.p[2]) || (line.p[3] != ' ' && line.p[3] != '\t'))
		return 0;
	b = i;
	while (i < line.n && (sd_isdigit((unsigned char)line.p[i]) || line.p[i] == '.'))
		i++;
	if (i - b < 5 || line.p[b] != line.p[0] || line.p[b + 1] != '.')
		return 0;
	*status = (sd_str){ line.p + b, i - b };
	return 1;
}

/* "<user@example.org>... Deferred: ..." */
static int alt_line(sd_str line, sd_str *rcpt, sd_str *diag)
{
	const char *gt;

	if (!line.n || line.p[0] != '<' || !(gt = memchr(line.p, '>', line.n)))
		return 0;
	if ((size_t)(gt - line.p) + 5 > line.n || memcmp(gt + 1, "...", 3) != 0)
		return 0;
	*rcpt = (sd_str){ line.p + 1, (size_t)(gt - line.p) - 1 };
	*diag = sd_trim((sd_str){ gt + 4, line.n - (size_t)(gt + 4 - line.p) });
	return 1;
}

static void other_line(sd_ctx *c, sm_text *t, sd_str line)
{
	sd_str st;

	if (t->session)
		return;
	if (mta_starts(line, "... while talking to ")) {
		t->session = 1;
	} else if (alt_line(line, &t->alt_rcpt, &t->alt_diag)) {
		return;
	} else if (status_line(line, &st)) {
		t->alt_status = st;
		t->alt_diag = mta_join(c->a, t->alt_diag, line);
	} else if (mta_starts(line, "Message: ") || mta_starts(line, "Warning: ")) {
		t->alt_diag = mta_join(c->a, t->alt_diag, line);
	}
}

static void read_transcript(sd_ctx *c, sd_str body, sm_text *t)
{
	sd_str tr = mta_after(body, "----- Transcript of session follows -----");
	size_t pos = 0;
	sd_str line;

	if (!tr.p)
		return;
	t->found = 1;
	tr = mta_before(tr, "Reporting-MTA:");
	while (sd_next_line(tr, &pos, &line)) {
		if (mta_starts(line, ">>> ") && !t->command.n)
			t->command = mta_command_word(mta_skip(line, 4));
		else if (mta_starts(line, "<<< "))
			add_reply(t, mta_skip(line, 4));
		else if (line.n && line.p[0] != ' ' && line.p[0] != '\t')
			other_line(c, t, line);
	}
}

/* Does the reply name one of the recipients [first, c->nrcpt) other than r? */
static int names_other(const sd_ctx *c, size_t first, const sd_rcpt *r, sd_str reply)
{
	for (size_t i = first; i < c->nrcpt; i++) {
		sd_str a = c->rcpts[i].recipient;
		if (&c->rcpts[i] != r && a.n && sd_memcasemem(reply.p, reply.n, a.p, a.n) &&
		    !(r->recipient.n && sd_memcasemem(reply.p, reply.n, r->recipient.p, r->recipient.n)))
			return 1;
	}
	return 0;
}

/* The session's replies that concern r (those naming another recipient left out). */
static sd_str replies_text(sd_ctx *c, size_t first, const sd_rcpt *r, const sm_text *t)
{
	sd_str out = SD_NULLSTR;

	for (size_t i = 0; i < t->nreplies; i++)
		if (!names_other(c, first, r, t->replies[i]))
			out = mta_join(c->a, out, t->replies[i]);
	return out;
}

static int dsn_status(sd_str s)
{
	sd_status st;

	s = sd_trim(s);
	return s.n && sd_status_parse(s.p, s.n, &st) == s.n && (st.cls == 4 || st.cls == 5);
}

static int all_digits(sd_str s)
{
	s = sd_trim(s);
	for (size_t i = 0; i < s.n; i++)
		if (!sd_isdigit((unsigned char)s.p[i]))
			return 0;
	return 1;
}

static void merge(sd_ctx *c, sd_rcpt *r, const sm_text *t, sd_str replies, int single)
{
	if (t->alt_diag.n && (!r->diagnostic.n || all_digits(r->diagnostic)))
		r->diagnostic = t->alt_diag;
	if (replies.n && single)
		r->diagnostic = mta_join(c->a, replies, r->diagnostic);
	r->command = t->command.n ? t->command : mta_command(r->diagnostic);
	if (!r->command.n && t->nreplies)
		r->command = SD_STR("EHLO");
	if (t->alt_status.n && !dsn_status(r->status))
		r->status = t->alt_status;
	if (!mta_is_addr(r->recipient)) {
		sd_str a = mta_addr(r->diagnostic);
		if (a.p)
			r->recipient = a;
	}
}

/* Without a delivery-status part (a body pasted alone), the addresses savemail.c
 * lists under "The following addresses had permanent fatal errors", each with
 * its "(reason: ...)" line. Returns the number of records added. */
static int from_list(sd_ctx *c, sd_str body)
{
	sd_str list = mta_after(body, "The following addresses had permanent fatal errors -----"), line;
	size_t pos = 0, first = c->nrcpt;
	sd_rcpt *r = NULL;

	sd_next_line(list, &pos, &line); /* the rest of the marker's line */
	while (list.p && sd_next_line(list, &pos, &line) && !mta_blank(line) && !mta_has(line, "-----")) {
		sd_str t = sd_trim(line);
		if (line.p[0] != ' ' && line.p[0] != '\t' && mta_is_addr(t)) {
			if ((r = sd_ctx_add(c)) != NULL)
				r->recipient = mta_addr(t);
		} else if (r && mta_starts(t, "(reason: ")) {
			t = mta_skip(t, 9);
			r->diagnostic = (sd_str){ t.p, t.n && t.p[t.n - 1] == ')' ? t.n - 1 : t.n };
		}
	}
	return (int)(c->nrcpt - first);
}

int sd_fmt_sendmail(sd_ctx *c)
{
	sm_text t;
	sd_str body;
	size_t first = c->nrcpt;
	int n;

	if (!is_sendmail(c))
		return 0;
	memset(&t, 0, sizeof(t));
	body = mta_body(c);
	if (mta_has(c->subject, "Fwd:") || mta_has(c->subject, "Fw:"))
		body = mta_unquote(c->a, body);
	read_transcript(c, body, &t);
	if (!t.found)
		return 0; /* a plain RFC 3464 report (rfc3464.c) */
	n = mta_dsn(c);
	if (n == 0)
		n = mta_dsn_inline(c, body);
	if (n == 0 && sd_ctx_headerless(c))
		n = from_list(c, body);
	if (n <= 0)
		return n;
	for (size_t i = first; i < c->nrcpt; i++)
		merge(c, &c->rcpts[i], &t, replies_text(c, first, &c->rcpts[i], &t), n == 1);
	return n;
}
