/* verdict.c - the verdict banner every code page and analyze card opens with,
 * drawn from the verdict's own fields (reason, advice, retry, who acts, class):
 * retry or not, suppress the address or not, who must act, coloured by what to
 * do (retry green, suppress red, fix on the sender's side amber), then the
 * short answer. A failure with no specific reason reads its class; only
 * success says nothing failed. The advice's words are the library's
 * (smtpdiag_advice_words). Also the plain words for who acts, and the page of
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

void fixers_words(smtpdiag_buf *b, const char *const *v, int ok)
{
	const char *side[FIXER_SIDES] = { side_words(v, 0), side_words(v, 1) };

	if (side[0] && side[1]) {
		hb_htmls(b, side[0]);
		hb_puts(b, " and ");
		hb_htmls(b, side[1]);
	} else if (side[0] || side[1]) {
		hb_htmls(b, side[0] ? side[0] : side[1]);
	} else {
		hb_puts(b, ok || in_list(v, "none") ? "nobody: nothing failed" : "not known");
	}
}

/* Is a specific reason known? "" and "undefined" are none. */
static int has_reason(const vview *v)
{
	return v->reason && *v->reason && strcmp(v->reason, "undefined");
}

/* Did something fail, and how: from the verdict's class, else (a status
 * without one) from the classes the registry allows it. */
vkind verdict_kind(const vview *v)
{
	const char *a = v->allowed;

	if (v->reason && !strcmp(v->reason, "delivered"))
		return VK_OK;
	switch (v->klass) {
	case SMTPDIAG_CLASS_SUCCESS:
	case SMTPDIAG_CLASS_INTERMEDIATE: return VK_OK;
	case SMTPDIAG_CLASS_TRANSIENT: return VK_TEMP;
	case SMTPDIAG_CLASS_PERMANENT: return VK_PERM;
	default: break;
	}
	if (!a || !*a || !strcmp(a, "any") || strchr(a, ','))
		return VK_FAIL; /* "4,5", "2,5": the first digit decides */
	return *a == '5' ? VK_PERM : *a == '4' ? VK_TEMP : VK_OK;
}

/* Nothing to act on: nothing failed, or the reason asks for nothing (an auto-reply). */
static int nothing_to_do(const vview *v, vkind k)
{
	return k == VK_OK || (has_reason(v) && v->advice && !strcmp(v->advice, "none"));
}

/* A failure with no specific reason reads its class. */
static const char *class_head(const vview *v, vkind k)
{
	if (k == VK_PERM && !v->retry)
		return "Permanent failure: the receiving server refused; read the text it sent.";
	if (k == VK_TEMP || v->retry)
		return "Temporary failure: keep it queued and retry; read the text it sent if it persists.";
	return "The first digit decides: 4.x.x is a temporary failure (keep it queued and retry), 5.x.x a permanent "
	       "one (read the text it sent).";
}

static const char *banner_head(const vview *v, vkind k)
{
	if (v->headline)
		return v->headline;
	if (k == VK_OK)
		return v->klass == SMTPDIAG_CLASS_INTERMEDIATE ? "Nothing failed: the server waits for the next step."
							       : "Nothing failed: nothing to do.";
	if (advice_suppresses(v->advice))
		return "Do not retry: remove the address.";
	if (!has_reason(v))
		return class_head(v, k);
	if (nothing_to_do(v, k))
		return NULL; /* the reason's own words */
	if (v->retry)
		return "Retry later: this should clear.";
	return "Do not retry unchanged: fix the cause first.";
}

/* The banner's colour: what to do, never the reply class alone. */
const char *verdict_tone(const vview *v)
{
	vkind k = verdict_kind(v);

	if (advice_suppresses(v->advice))
		return "v-suppress";
	if (nothing_to_do(v, k))
		return "v-none";
	if (!has_reason(v))
		return k == VK_TEMP || v->retry ? "v-retry" : "v-fix";
	return advice_tone(v->advice, v->retry);
}

static void fact_row(smtpdiag_buf *b, const char *dt, const char *cls, const char *dd)
{
	smtpdiag_buf_printf(b, "<div><dt>%s</dt><dd class=\"%s\">%s</dd></div>", dt, cls, dd);
}

/* What to do: the advice's words, left out where a failure has no reason
 * (its advice "none" would read as nothing to do). */
static const char *do_words(const vview *v, vkind k)
{
	if (!nothing_to_do(v, k) && (!v->advice || !strcmp(v->advice, "none")))
		return NULL;
	return advice_text(v->advice);
}

void verdict_banner(smtpdiag_buf *b, const vview *v, const char *id)
{
	int sup = advice_suppresses(v->advice);
	vkind k = verdict_kind(v);
	const char *head = banner_head(v, k), *todo = do_words(v, k);

	hb_puts(b, "<section class=\"verdict ");
	hb_puts(b, verdict_tone(v));
	hb_puts(b, "\"");
	if (id) {
		hb_puts(b, " id=\"");
		hb_htmls(b, id);
		hb_puts(b, "\"");
	}
	hb_puts(b, " aria-label=\"Verdict\">\n<p class=\"v-head\">");
	if (head) {
		hb_htmls(b, head);
	} else { /* "Nothing to do: an automatic reply (RFC 3834), not a bounce." */
		const char *m = smtpdiag_reason_meaning(v->reason);
		hb_puts(b, "Nothing to do: ");
		hb_htmls(b, m ? m : v->reason);
		hb_puts(b, ".");
	}
	hb_puts(b, "</p>\n<dl class=\"v-facts\">");
	fact_row(b, "Retry", v->retry ? "yes" : "no", v->retry ? "yes" : "no");
	fact_row(b, "Suppress the address", sup ? "no-go" : "ok", sup ? "yes" : "no");
	hb_puts(b, "<div class=\"v-who\"><dt>Who must act</dt><dd>");
	fixers_words(b, v->fixers, k == VK_OK);
	hb_puts(b, "</dd></div></dl>\n");
	if (todo) {
		hb_puts(b, "<p class=\"v-do\">");
		hb_htmls(b, todo);
		hb_puts(b, "</p>\n");
	}
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
