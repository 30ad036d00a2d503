/* pages.c - a page per code or pair (/code/...), in the seeds' section order,
 * and the bounce analyzer (/analyze). Every piece of text is escaped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "httpd_int.h"

#define CODE_MAX_Q 32            /* a code or a pair in a /code/ path */
#define ECHO_MAX ((size_t)1 << 20) /* pasted text shown again in the form */
#define CARDS_MAX 200              /* verdicts shown; the API gives them all */

/* ---- shared bits ---- */

static void para(smtpdiag_buf *b, const char *s)
{
	hb_puts(b, "<p>");
	hb_htmls(b, s);
	hb_puts(b, "</p>\n");
}

static void items(smtpdiag_buf *b, const char *tag, const char *const *v)
{
	smtpdiag_buf_printf(b, "<%s>\n", tag);
	for (size_t i = 0; v && v[i]; i++) {
		hb_puts(b, "<li>");
		hb_htmls(b, v[i]);
		hb_puts(b, "</li>\n");
	}
	smtpdiag_buf_printf(b, "</%s>\n", tag);
}

static int has(const char *const *v)
{
	return v && v[0];
}

/* "552 4.3.1", "431" or "X.3.1" as written in the explanation. */
static void code_of(const smtpdiag_explanation *e, char *out, size_t cap)
{
	if (e->replycode)
		snprintf(out, cap, "%d%s%s", e->replycode, e->status[0] ? " " : "", e->status);
	else
		snprintf(out, cap, "%s", e->status);
}

/* ---- /code/... ---- */

static void chips(smtpdiag_buf *b, const char *const *v)
{
	hb_puts(b, "<ul class=\"chips\">\n");
	for (size_t i = 0; v[i]; i++) {
		const char *t = index_title(v[i]);
		hb_puts(b, "<li>");
		link_code(b, v[i]);
		if (t) {
			hb_puts(b, " ");
			hb_htmls(b, t);
		}
		hb_puts(b, "</li>\n");
	}
	hb_puts(b, "</ul>\n");
}

/* A reference, linked when it has a link (RFC 5321 to the RFC Editor's page). */
static void reference(smtpdiag_buf *b, const char *ref)
{
	char url[160];

	if (!ref_url(ref, url, sizeof(url))) {
		hb_htmls(b, ref);
		return;
	}
	hb_puts(b, "<a href=\"");
	hb_htmls(b, url);
	hb_puts(b, "\">");
	hb_htmls(b, ref);
	hb_puts(b, "</a>");
}

static const char *verdict_line(const smtpdiag_explanation *e)
{
	switch (e->klass) {
	case SMTPDIAG_CLASS_TRANSIENT:
		return e->retry ? "4 - Temporary. Safe to retry." : "4 - Temporary, but do not just retry: read the advice.";
	case SMTPDIAG_CLASS_PERMANENT:
		return e->retry ? "5 - Permanent reply, but the status says the condition is temporary: retry later."
				: "5 - Permanent. Do not retry unchanged.";
	case SMTPDIAG_CLASS_SUCCESS: return "2 - Success. Nothing failed, nothing to retry.";
	case SMTPDIAG_CLASS_INTERMEDIATE: return "3 - Intermediate. The server waits for the next step.";
	default: return "The first digit decides: 4.x.x is temporary (retry), 5.x.x is permanent (do not retry unchanged).";
	}
}

static void code_notes(smtpdiag_buf *b, const smtpdiag_explanation *e)
{
	if (!e->standard) {
		hb_puts(b, "<section class=\"box nonstd\" id=\"nonstandard\"><h2>Not a standard code</h2>\n");
		if (has(e->notes))
			items(b, "ul", e->notes);
		else
			para(b, "No RFC defines this code as it is used here: act on the raw reply and status.");
		hb_puts(b, "</section>\n");
	} else if (e->issues & SMTPDIAG_ISSUE_CLASS_MISMATCH) {
		hb_puts(b, "<section class=\"box mismatch\" id=\"mismatch\"><h2>The reply code and the status disagree</h2>\n"
			   "<p>Both codes are standard, but one says temporary and the other permanent: go by the "
			   "verdict above, not by the first digit alone.</p>\n");
		if (has(e->notes))
			items(b, "ul", e->notes);
		hb_puts(b, "</section>\n");
	}
}

/* The verdict of an explanation, for its banner; a status alone ("X.1.1") with
 * the classes the registry allows it. */
static vview explanation_view(const smtpdiag_explanation *e)
{
	const smtpdiag_code_info *ci = NULL;
	vview v = { e->advice, e->reason, e->retry, e->klass, NULL, e->fixers, e->short_answer, NULL };
	char x[CODE_MAX_Q + 1];

	if (!e->replycode && (e->status[0] == 'X' || e->status[0] == 'x') && strlen(e->status) < sizeof(x)) {
		memcpy(x, e->status, strlen(e->status) + 1);
		x[0] = 'X'; /* "x.1.1" as the index writes it */
		ci = index_info(x);
	}
	v.allowed = ci ? ci->allowed : NULL;
	return v;
}

static void code_head(smtpdiag_buf *b, const smtpdiag_explanation *e, const char *code, const vview *v)
{
	hb_puts(b, "<p class=\"crumbs\"><a href=\"/\">All codes</a> &rsaquo; ");
	hb_puts(b, e->replycode && e->status[0] ? "Reply code and enhanced status" : e->replycode ? "Reply code" : "Enhanced status code");
	hb_puts(b, "</p>\n<h1><span class=\"code\">");
	hb_htmls(b, code);
	hb_puts(b, "</span> ");
	hb_htmls(b, e->title);
	hb_puts(b, "</h1>\n");
	verdict_banner(b, v, "verdict");
	code_notes(b, e);
}

static void code_body(smtpdiag_buf *b, const smtpdiag_explanation *e, const vview *v)
{
	hb_puts(b, "<section id=\"quick-fix\"><h2>Quick fix</h2>\n");
	para(b, e->quick_fix);
	smtpdiag_buf_printf(b, "</section>\n<section id=\"retry\" class=\"box %s\"><h2>Retry verdict</h2>\n"
		     "<p class=\"verdict-line\">", verdict_tone(v));
	hb_htmls(b, verdict_line(e));
	hb_puts(b, "</p>\n");
	para(b, e->retry_advice);
	hb_puts(b, "</section>\n<section id=\"meaning\"><h2>What it means</h2>\n");
	para(b, e->meaning);
	if (e->standard && !(e->issues & SMTPDIAG_ISSUE_CLASS_MISMATCH) && has(e->notes))
		items(b, "ul", e->notes);
	hb_puts(b, "</section>\n");
	if (has(e->causes)) {
		hb_puts(b, "<section id=\"causes\"><h2>Common causes</h2>\n");
		items(b, "ul", e->causes);
		hb_puts(b, "</section>\n");
	}
	hb_puts(b, "<section id=\"fix\"><h2>How to fix it</h2>\n");
	if (has(e->fixes))
		items(b, "ol", e->fixes);
	hb_puts(b, "<p><strong>Who must act:</strong> ");
	fixers_words(b, e->fixers, verdict_kind(v) == VK_OK);
	hb_puts(b, ".</p>\n</section>\n");
}

static void code_tail(smtpdiag_buf *b, const smtpdiag_explanation *e, const char *code)
{
	if (has(e->paired)) {
		hb_puts(b, "<section id=\"paired\"><h2>Paired codes</h2>\n<p>A real bounce often shows a three-digit "
			   "reply code and an enhanced status together. This one commonly pairs with:</p>\n");
		chips(b, e->paired);
		hb_puts(b, "</section>\n");
	}
	if (e->nfaq) {
		hb_puts(b, "<section id=\"faq\"><h2>Common questions</h2>\n");
		for (size_t i = 0; i < e->nfaq; i++) {
			hb_puts(b, "<h3>");
			hb_htmls(b, e->faq[i].q);
			hb_puts(b, "</h3>\n");
			para(b, e->faq[i].a);
		}
		hb_puts(b, "</section>\n");
	}
	if (has(e->related)) {
		hb_puts(b, "<section id=\"related\"><h2>Related codes</h2>\n");
		chips(b, e->related);
		hb_puts(b, "</section>\n");
	}
	if (has(e->references)) {
		hb_puts(b, "<section id=\"references\"><h2>References</h2>\n<ul>\n");
		for (size_t i = 0; e->references[i]; i++) {
			hb_puts(b, "<li>");
			reference(b, e->references[i]);
			hb_puts(b, "</li>\n");
		}
		hb_puts(b, "</ul>\n</section>\n");
	}
	hb_puts(b, "<p class=\"muted\">As JSON: <a href=\"/api/v1/explain?q=");
	hb_url(b, code);
	hb_puts(b, "\">/api/v1/explain?q=");
	hb_htmls(b, code);
	hb_puts(b, "</a></p>\n");
}

enum MHD_Result page_code(hreq *r)
{
	const char *q = r->url + strlen("/code/");
	smtpdiag_explanation *e;
	smtpdiag_error err = { 0, "" };
	smtpdiag_buf b = { 0 };
	hbody *h;
	char key[CODE_MAX_Q + 8], code[64], title[160];
	int hit, rc;
	vview v;

	if (!*q)
		return reply_error(r, 404, "Give a code in the path: /code/431, /code/4.3.1 or /code/552-4.3.1.");
	if (strlen(q) > CODE_MAX_Q)
		return reply_error(r, 404, "That is not an SMTP code.");
	snprintf(key, sizeof(key), "c:%s", q);
	if ((hit = cache_reply(r, key)) != 0)
		return hit > 0 ? MHD_YES : MHD_NO;
	OFFLOAD(r);
	if ((rc = smtpdiag_explain(q, strlen(q), SMTPDIAG_EXPLAIN_CODE, &e, &err)) < 0) {
		char msg[320];
		snprintf(msg, sizeof(msg), "No page for this code: %s.", err.message[0] ? err.message : smtpdiag_strerror(rc));
		return reply_error(r, rc == SMTPDIAG_ENOMEM ? 503 : 404, msg);
	}
	code_of(e, code, sizeof(code));
	v = explanation_view(e);
	snprintf(title, sizeof(title), "SMTP %s: %s", code, e->title);
	page_begin(&b, title, NULL);
	code_head(&b, e, code, &v);
	code_body(&b, e, &v);
	code_tail(&b, e, code);
	page_end(&b);
	smtpdiag_explanation_free(e);
	if (!(h = hbody_from_buf(&b, "text/html; charset=utf-8", HTTPD_PAGE_CACHE, HF_GZIP_KEEP)))
		return reply_error(r, 503, "out of memory");
	return cache_put_reply(r, key, 200, h);
}

/* ---- /analyze ---- */

static void analyze_form(smtpdiag_buf *b, const char *text, size_t len, int again)
{
	smtpdiag_buf_printf(b, "<form method=\"post\" action=\"/analyze\" id=\"analyze\">\n<h2>%s</h2>\n"
		     "<label for=\"text\">Paste an SMTP reply, a log fragment or a whole bounce email "
		     "(headers included, or an mbox):</label>\n"
		     "<textarea id=\"text\" name=\"text\" rows=\"14\" spellcheck=\"false\" required "
		     "placeholder=\"550 5.1.1 &lt;bob@example.org&gt;: Recipient address rejected: User unknown\">\n",
		  again ? "Analyze again" : "What did the server say?");
	if (text && len > ECHO_MAX) { /* the start, to the end of a line */
		const char *nl = memrchr(text, '\n', ECHO_MAX);
		len = nl ? (size_t)(nl - text) + 1 : ECHO_MAX;
	}
	if (text)
		hb_html(b, text, len);
	hb_puts(b, "</textarea>\n<p><button type=\"submit\">Analyze</button></p>\n</form>\n");
}

static int delivered(const smtpdiag_fact *f)
{
	return !strcmp(f->action, "delivered") || !strcmp(f->action, "relayed") || !strcmp(f->action, "expanded");
}

/* A banner headline where the advice alone would mislead; NULL: from the advice. */
static const char *fact_headline(const smtpdiag_fact *f)
{
	if (delivered(f))
		return "Delivered: nothing to do.";
	if (!strcmp(f->action, "delayed"))
		return "Delayed: the message is still queued and being retried.";
	if (!strcmp(f->reason, "feedback"))
		return "A complaint (feedback report), not a bounce: stop sending to this address.";
	return NULL;
}

/* The class of a fact: its status's, else its reply code's, else a delay's. */
static smtpdiag_class fact_class(const smtpdiag_fact *f)
{
	char c = f->deliverystatus[0] ? f->deliverystatus[0] : f->replycode[0];

	if (!c && !strcmp(f->action, "delayed"))
		c = '4';
	return c == '2' ? SMTPDIAG_CLASS_SUCCESS : c == '3' ? SMTPDIAG_CLASS_INTERMEDIATE
	       : c == '4' ? SMTPDIAG_CLASS_TRANSIENT : c == '5' ? SMTPDIAG_CLASS_PERMANENT : SMTPDIAG_CLASS_NONE;
}

static const char *action_words(const smtpdiag_fact *f)
{
	static const struct { const char *k, *v; } m[] = {
		{ "failed", "The message was not delivered to this address." },
		{ "delayed", "Not delivered yet: the sending server keeps trying." },
		{ "delivered", "Delivered." }, { "relayed", "Passed on to a server that does not report back." },
		{ "expanded", "Delivered to a list or alias, which passed it on." },
	};
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (!strcmp(f->action, m[i].k))
			return m[i].v;
	return f->hardbounce || !f->retry ? "The message was not delivered to this address." : NULL;
}

/* <dt>dt</dt><dd>v</dd>, v escaped (as preformatted text when pre), nothing when v is empty. */
static void dd_any(smtpdiag_buf *b, const char *dt, const char *v, int pre)
{
	if (!v || !*v)
		return;
	smtpdiag_buf_printf(b, "<dt>%s</dt><dd>%s", dt, pre ? "<pre>" : "");
	hb_htmls(b, v);
	hb_puts(b, pre ? "</pre></dd>\n" : "</dd>\n");
}

#define dd_text(b, dt, v) dd_any(b, dt, v, 0)
#define dd_pre(b, dt, v) dd_any(b, dt, v, 1)

/* Links to the reply code, the status and the pair. */
static void dd_codes(smtpdiag_buf *b, const char *rc, const char *st)
{
	char pair[48];

	if (!*rc && !*st)
		return;
	hb_puts(b, "<dt>Codes</dt><dd>");
	if (*rc)
		link_code(b, rc);
	if (*rc && *st)
		hb_puts(b, " ");
	if (*st)
		link_code(b, st);
	if (*rc && *st) {
		snprintf(pair, sizeof(pair), "%s %s", rc, st);
		hb_puts(b, " (together: ");
		link_code(b, pair);
		hb_puts(b, ")");
	}
	hb_puts(b, "</dd>\n");
}

static void dd_reason(smtpdiag_buf *b, const char *reason)
{
	if (!reason || !*reason)
		return;
	hb_puts(b, "<dt>Reason</dt><dd>");
	link_reason(b, reason);
	hb_puts(b, "</dd>\n");
}

static const char *issue_words(unsigned bit)
{
	switch (bit) {
	case SMTPDIAG_ISSUE_NONSTANDARD_REPLY: return "the reply code is not in any RFC";
	case SMTPDIAG_ISSUE_UNREGISTERED_STATUS: return "the enhanced status is not registered";
	case SMTPDIAG_ISSUE_VENDOR_REDEFINED: return "a provider uses this code with its own meaning";
	case SMTPDIAG_ISSUE_CLASS_MISMATCH: return "the reply code and the status disagree (temporary or permanent)";
	case SMTPDIAG_ISSUE_CLASS_NOT_ALLOWED: return "the status is used in a class its registration does not allow";
	default: return NULL;
	}
}

static void dd_issues(smtpdiag_buf *b, unsigned issues)
{
	int first = 1;

	if (!issues)
		return;
	hb_puts(b, "<dt>Odd codes</dt><dd>");
	for (unsigned bit = 1; bit && bit <= issues; bit <<= 1) {
		const char *n = (issues & bit) ? issue_words(bit) : NULL;
		if (!n)
			continue;
		hb_puts(b, first ? "" : "; ");
		hb_htmls(b, n);
		first = 0;
	}
	hb_puts(b, "</dd>\n");
}

static void card_open(smtpdiag_buf *b, const char *title, const vview *v)
{
	smtpdiag_buf_printf(b, "<article class=\"card %s\"><h3>", verdict_tone(v));
	hb_htmls(b, title);
	hb_puts(b, "</h3>\n");
	verdict_banner(b, v, NULL);
	hb_puts(b, "<dl class=\"facts\">\n");
}

static void card_close(smtpdiag_buf *b, const char *code)
{
	hb_puts(b, "</dl>\n");
	if (code && *code) {
		hb_puts(b, "<p class=\"more\">");
		link_code(b, code);
		hb_puts(b, ": the full explanation.</p>\n");
	}
	hb_puts(b, "</article>\n");
}

static void fact_card(smtpdiag_buf *b, const smtpdiag_fact *f)
{
	char q[48];
	smtpdiag_explanation *e = NULL;
	smtpdiag_error err = { 0, "" };
	vview v = { f->advice, f->reason, f->retry, fact_class(f), NULL, f->fixer, NULL, fact_headline(f) };

	snprintf(q, sizeof(q), "%s%s%s", f->replycode, f->replycode[0] && f->deliverystatus[0] ? " " : "",
		 f->deliverystatus);
	if (q[0] && smtpdiag_explain(q, strlen(q), SMTPDIAG_EXPLAIN_CODE, &e, &err) < 0)
		e = NULL;
	v.short_answer = e ? e->short_answer : NULL;
	card_open(b, f->recipient[0] ? f->recipient : "Recipient not named", &v);
	dd_text(b, "What happened", action_words(f));
	dd_reason(b, f->reason);
	dd_codes(b, f->replycode, f->deliverystatus);
	dd_issues(b, f->issues);
	dd_text(b, "Remote server", f->rhost);
	dd_pre(b, "Server said", f->diagnosticcode);
	card_close(b, e ? q : NULL);
	smtpdiag_explanation_free(e);
}

/* Decode the text as one email or an mbox; one card per fact (CARDS_MAX at
 * most), every fact counted in sum. Returns the facts. */
static size_t decode_cards(smtpdiag_buf *b, const char *text, size_t len, summary *sum)
{
	smtpdiag_decoder *d = thread_decoder(0); /* a pasted warning is shown */
	smtpdiag_error err = { 0, "" };
	size_t pos = 0, mlen;
	const char *m = text;
	int n, mbox = smtpdiag_mbox_detect(text, len);

	if (!d)
		return 0;
	if (!mbox)
		mlen = len;
	while (mbox ? smtpdiag_mbox_next(text, len, &pos, &m, &mlen) : m != NULL) {
		if ((n = smtpdiag_decode(d, m, mlen, NULL, &err)) < 0)
			metrics_decode_errors(1);
		for (int i = 0; i < n; i++) {
			const smtpdiag_fact *f = smtpdiag_decoder_fact(d, (size_t)i);
			if (sum->facts < CARDS_MAX)
				fact_card(b, f);
			summary_add(sum, f->advice, f->reason);
			metrics_verdict(f->reason, f->advice);
		}
		if (!mbox)
			m = NULL;
	}
	return sum->facts;
}

/* No bounce: find the code in any text (a reply line, a log fragment). */
static void explain_card(smtpdiag_buf *b, const char *text, size_t len)
{
	smtpdiag_explanation *e;
	smtpdiag_error err = { 0, "" };
	char code[64];
	int rc = explain_query(text, len, "auto", &e, &err);

	if (rc < 0) {
		hb_puts(b, "<section class=\"box\"><h2>Nothing to explain</h2>\n<p>No SMTP reply code, enhanced "
			   "status or delivery failure was found in the text");
		if (rc != SMTPDIAG_ENOTFOUND) {
			hb_puts(b, " (");
			hb_htmls(b, err.message[0] ? err.message : smtpdiag_strerror(rc));
			hb_puts(b, ")");
		}
		hb_puts(b, ". Paste the whole reply line, such as <code>550 5.1.1 User unknown</code>, or the "
			   "complete bounce email with its headers.</p>\n</section>\n");
		return;
	}
	code_of(e, code, sizeof(code));
	vview v = explanation_view(e);
	card_open(b, e->recipient[0] ? e->recipient : code, &v);
	dd_text(b, "What happened", e->klass == SMTPDIAG_CLASS_PERMANENT ? "The server refused for good (a 5xx reply)."
			: e->klass == SMTPDIAG_CLASS_TRANSIENT ? "The server refused for now (a 4xx reply)." : NULL);
	dd_reason(b, e->reason);
	dd_codes(b, code, "");
	dd_issues(b, e->issues);
	dd_text(b, "Provider", e->vendor);
	if (strcmp(e->text, e->query))
		dd_pre(b, "Server said", e->text);
	card_close(b, code);
	smtpdiag_explanation_free(e);
}

/* The body was over the limit: say so in words, and give back what was kept. */
static void too_big(smtpdiag_buf *b, const hreq *r, size_t kept)
{
	char lim[32], echo[32];

	human_size(lim, sizeof(lim), r->cfg->max_body);
	human_size(echo, sizeof(echo), ECHO_MAX);
	smtpdiag_buf_printf(b, "<section class=\"box v-fix\" id=\"too-big\"><h2>That paste is too large</h2>\n"
		     "<p>The limit is %s. Nothing was analyzed; ", lim);
	if (kept > ECHO_MAX)
		smtpdiag_buf_printf(b, "the first %s of your text is kept in the form below.", echo);
	else
		hb_puts(b, "the start of your text is kept in the form below.");
	hb_puts(b, " Analyze a part at a time, or send the whole file to <code>POST /api/v1/decode</code>.</p>\n"
		   "</section>\n");
}

static void analyze_result(smtpdiag_buf *b, const char *text, size_t len)
{
	smtpdiag_buf cards = { 0 };
	summary sum;
	size_t facts;

	memset(&sum, 0, sizeof(sum));
	hb_puts(b, "<section id=\"result\" aria-live=\"polite\"><h2>Verdict</h2>\n");
	if ((facts = decode_cards(&cards, text, len, &sum)) > 0)
		summary_html(b, &sum, facts < CARDS_MAX ? facts : CARDS_MAX);
	else
		explain_card(&cards, text, len);
	hb_put(b, cards.data, cards.len);
	b->oom |= cards.oom;
	smtpdiag_buf_free(&cards);
	hb_puts(b, "</section>\n");
}

enum MHD_Result page_analyze(hreq *r)
{
	smtpdiag_buf b = { 0 };
	const char *text = r->method == HM_POST ? NULL : req_arg(r, "text");
	size_t len = text ? strlen(text) : 0;

	if (!len)
		text = NULL;
	if (r->method == HM_POST || text)
		OFFLOAD(r);
	if (r->method == HM_POST && !(text = form_field(r->body, r->blen, "text", &len)))
		return reply_error(r, r->over ? 413 : 400, r->over ? "The paste is too large." : "The form has no text field.");
	page_begin(&b, r->over ? "Too large" : text ? "Analysis" : "Analyze a bounce", NULL);
	hb_puts(&b, "<h1>Analyze a bounce</h1>\n");
	if (r->over)
		too_big(&b, r, len);
	else if (!text)
		hb_puts(&b, "<p class=\"lead\">Paste what you have: one reply line, a log fragment or a whole "
			    "bounce email. You get a verdict per recipient and links to each code found.</p>\n");
	else
		analyze_result(&b, text, len);
	analyze_form(&b, text, len, text && !r->over);
	page_end(&b);
	return reply_buf(r, r->over ? 413 : 200, "text/html; charset=utf-8", &b);
}
