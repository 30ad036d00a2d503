/* verdict.c - the verdict banner every code page and analyze card opens with:
 * retry or not, suppress the address or not, who must act, coloured by what to
 * do (retry green, suppress red, fix on the sender's side amber), then the
 * short answer. Also the plain words for advice and who acts, and the page of
 * bounce reasons (/reasons) that reason names link to. */
#include <string.h>

#include "httpd_int.h"

#define FIXER_SIDES 2 /* the sender's side and the recipient's side */

/* The words of an advice come from the one table (smtpdiag_advice_words()). */
const char *advice_text(const char *a)
{
	const char *w = a ? smtpdiag_advice_words(a) : NULL;

	return w ? w : "Read the explanation before sending again.";
}

int advice_suppresses(const char *a)
{
	return a && !strcmp(a, "suppress-recipient");
}

/* The banner's colour: what to do, never the reply class. */
const char *advice_tone(const char *a, int retry)
{
	if (advice_suppresses(a))
		return "v-suppress";
	if (a && !strcmp(a, "none"))
		return "v-none";
	if (a && !strcmp(a, "retry"))
		return "v-retry";
	if (a && *a)
		return "v-fix";
	return retry ? "v-retry" : "v-fix";
}

static int in_list(const char *const *v, const char *s)
{
	for (size_t i = 0; v && v[i]; i++)
		if (!strcmp(v[i], s))
			return 1;
	return 0;
}

/* One side's words: "the sender", "the sender's mail admin", or both. */
static const char *side_words(const char *const *v, int recipient)
{
	int user = in_list(v, recipient ? "recipient" : "sender");
	int admin = in_list(v, recipient ? "recipient-admin" : "sender-admin");

	if (user && admin)
		return recipient ? "the recipient or their mail admin" : "the sender or their mail admin";
	if (admin)
		return recipient ? "the recipient's mail admin" : "the sender's mail admin";
	if (user)
		return recipient ? "the recipient" : "the sender";
	return NULL;
}

void fixers_words(smtpdiag_buf *b, const char *const *v)
{
	const char *side[FIXER_SIDES] = { side_words(v, 0), side_words(v, 1) };

	if (side[0] && side[1]) {
		hb_htmls(b, side[0]);
		hb_puts(b, " and ");
		hb_htmls(b, side[1]);
	} else if (side[0] || side[1]) {
		hb_htmls(b, side[0] ? side[0] : side[1]);
	} else {
		hb_puts(b, in_list(v, "none") ? "nobody: nothing failed" : "not known");
	}
}

static const char *banner_head(const vview *v)
{
	if (v->headline)
		return v->headline;
	if (advice_suppresses(v->advice))
		return "Do not retry: remove the address.";
	if (v->advice && !strcmp(v->advice, "none"))
		return "Nothing failed: nothing to do.";
	if (v->retry)
		return "Retry later: this should clear.";
	return "Do not retry unchanged: fix the cause first.";
}

static void fact_row(smtpdiag_buf *b, const char *dt, const char *cls, const char *dd)
{
	smtpdiag_buf_printf(b, "<div><dt>%s</dt><dd class=\"%s\">%s</dd></div>", dt, cls, dd);
}

void verdict_banner(smtpdiag_buf *b, const vview *v, const char *id)
{
	int sup = advice_suppresses(v->advice);

	hb_puts(b, "<section class=\"verdict ");
	hb_puts(b, advice_tone(v->advice, v->retry));
	hb_puts(b, "\"");
	if (id) {
		hb_puts(b, " id=\"");
		hb_htmls(b, id);
		hb_puts(b, "\"");
	}
	hb_puts(b, " aria-label=\"Verdict\">\n<p class=\"v-head\">");
	hb_htmls(b, banner_head(v));
	hb_puts(b, "</p>\n<dl class=\"v-facts\">");
	fact_row(b, "Retry", v->retry ? "yes" : "no", v->retry ? "yes" : "no");
	fact_row(b, "Suppress the address", sup ? "no-go" : "ok", sup ? "yes" : "no");
	hb_puts(b, "<div class=\"v-who\"><dt>Who must act</dt><dd>");
	fixers_words(b, v->fixers);
	hb_puts(b, "</dd></div></dl>\n<p class=\"v-do\">");
	hb_htmls(b, advice_text(v->advice));
	hb_puts(b, "</p>\n");
	if (v->short_answer && *v->short_answer) {
		hb_puts(b, "<p class=\"v-short\">");
		hb_htmls(b, v->short_answer);
		hb_puts(b, "</p>\n");
	}
	hb_puts(b, "</section>\n");
}

/* <a href="/reasons#userunknown">userunknown</a>: what the reason means */
void link_reason(smtpdiag_buf *b, const char *reason)
{
	const char *meaning = smtpdiag_reason_meaning(reason);

	if (!meaning) {
		hb_htmls(b, reason);
		return;
	}
	hb_htmls(b, meaning);
	hb_puts(b, " (<a class=\"reason\" href=\"/reasons#");
	hb_url(b, reason);
	hb_puts(b, "\">");
	hb_htmls(b, reason);
	hb_puts(b, "</a>)");
}

void render_reasons(smtpdiag_buf *b)
{
	page_begin(b, "Bounce reasons", NULL);
	hb_puts(b, "<h1>Bounce reasons</h1>\n<p class=\"lead\">Every verdict names one reason. The names are "
		   "Sisimai's, so they match what other bounce tools report.</p>\n<dl class=\"reasons\">\n");
	for (size_t i = 0; i < smtpdiag_reason_count(); i++) {
		const char *n = smtpdiag_reason_name(i), *m = smtpdiag_reason_meaning(n);
		hb_puts(b, "<dt id=\"");
		hb_htmls(b, n);
		hb_puts(b, "\"><code>");
		hb_htmls(b, n);
		hb_puts(b, "</code></dt><dd>");
		hb_htmls(b, m ? m : "");
		hb_puts(b, "</dd>\n");
	}
	hb_puts(b, "</dl>\n");
	page_end(b);
}
