/* sendmail.c - Sendmail (V8) bounces: "Returned mail: see transcript for details".
 *
 * The text part holds the transcript of the failed session:
 *     ... while talking to mx.example.org.:
 *     >>> RCPT To:<user@example.org>
 *     <<< 550 5.1.1 <user@example.org>... User unknown
 *     550 5.1.1 <user@example.org>... User unknown
 * and the message/delivery-status part the RFC 3464 fields. The transcript
 * gives the SMTP command and often the fuller reply. */
#include "mta.h"

#define SM_MAX_REPLIES 16 /* distinct "<<<" reply lines kept */

typedef struct sm_text {
	sd_str command;          /* last ">>> CMD" */
	sd_str replies[SM_MAX_REPLIES];
	size_t nreplies;
	sd_str alt_rcpt, alt_diag, alt_status;
	int session;             /* "... while talking to" seen */
} sm_text;

static int is_sendmail(const sd_ctx *c)
{
	sd_str s = sd_trim(c->subject);
	int fwd = mta_starts(s, "Fwd:") || mta_starts(s, "Fw:");

	if (!mta_has(s, "see transcript for details") && !mta_starts(s, "Warning: "))
		return 0;
	return fwd || mta_has(c->from, "Mail Delivery Subsystem");
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
	tr = mta_before(tr, "Reporting-MTA:");
	while (sd_next_line(tr, &pos, &line)) {
		if (mta_starts(line, ">>> "))
			t->command = mta_command_word(mta_skip(line, 4));
		else if (mta_starts(line, "<<< "))
			add_reply(t, mta_skip(line, 4));
		else if (line.n && line.p[0] != ' ' && line.p[0] != '\t')
			other_line(c, t, line);
	}
}

static sd_str replies_text(sd_ctx *c, const sm_text *t)
{
	sd_str r = SD_NULLSTR;

	for (size_t i = 0; i < t->nreplies; i++)
		r = mta_join(c->a, r, t->replies[i]);
	return r;
}

static int dsn_status(sd_str s)
{
	s = sd_trim(s);
	return s.n == 5 && (s.p[0] == '4' || s.p[0] == '5') && s.p[1] == '.' &&
	       sd_isdigit((unsigned char)s.p[2]) && s.p[3] == '.' && sd_isdigit((unsigned char)s.p[4]);
}

static int all_digits(sd_str s)
{
	s = sd_trim(s);
	for (size_t i = 0; i < s.n; i++)
		if (!sd_isdigit((unsigned char)s.p[i]))
			return 0;
	return 1;
}

static void merge(sd_ctx *c, sd_rcpt *r, const sm_text *t, sd_str replies)
{
	r->command = t->command.n ? t->command : t->nreplies ? SD_STR("EHLO") : SD_NULLSTR;
	if (t->alt_diag.n && (!r->diagnostic.n || all_digits(r->diagnostic)))
		r->diagnostic = t->alt_diag;
	if (replies.n > r->diagnostic.n)
		r->diagnostic = replies;
	if (t->alt_status.n && !dsn_status(r->status))
		r->status = t->alt_status;
	if (!mta_is_addr(r->recipient)) {
		sd_str a = mta_addr(r->diagnostic);
		if (a.p)
			r->recipient = a;
	}
	mta_unix_reason(c, r);
}

int sd_fmt_sendmail(sd_ctx *c)
{
	sm_text t;
	sd_str body, replies;
	size_t first = c->nrcpt;
	int n;

	if (!is_sendmail(c))
		return 0;
	memset(&t, 0, sizeof(t));
	body = mta_body(c);
	if (mta_has(c->subject, "Fwd:") || mta_has(c->subject, "Fw:"))
		body = mta_unquote(c->a, body);
	read_transcript(c, body, &t);
	n = mta_dsn(c);
	if (n == 0)
		n = mta_dsn_inline(c, body);
	if (n <= 0)
		return n;
	replies = replies_text(c, &t);
	for (size_t i = first; i < c->nrcpt; i++)
		merge(c, &c->rcpts[i], &t, replies);
	return n;
}
