/* summary.c - the summary an analysis opens with: how many recipients, how
 * many of them are shown, and the counts by advice and by reason, largest
 * first, before the cards. */
#include <stdio.h>
#include <string.h>

#include "httpd_int.h"

static void tally_add(tally *t, const char *key)
{
	size_t i;

	if (!key || !*key)
		key = "none";
	for (i = 0; i < t->len; i++)
		if (!strcmp(t->key[i], key)) {
			t->n[i]++;
			return;
		}
	if (t->len == TALLY_KEYS || strlen(key) >= TALLY_KEY) {
		t->other++;
		return;
	}
	memcpy(t->key[t->len], key, strlen(key) + 1);
	t->n[t->len++] = 1;
}

void summary_add(summary *s, const char *advice, const char *reason)
{
	s->facts++;
	tally_add(&s->advice, advice);
	tally_add(&s->reason, reason);
}

/* The index of the largest count not yet shown (done marks them). */
static size_t next_max(const tally *t, const unsigned char *done)
{
	size_t best = t->len;

	for (size_t i = 0; i < t->len; i++)
		if (!done[i] && (best == t->len || t->n[i] > t->n[best]))
			best = i;
	return best;
}

static void tally_html(smtpdiag_buf *b, const tally *t, const char *title, int reasons)
{
	unsigned char done[TALLY_KEYS] = { 0 };
	size_t i;

	smtpdiag_buf_printf(b, "<div><h3>%s</h3><ul class=\"tally\">\n", title);
	while ((i = next_max(t, done)) < t->len) {
		done[i] = 1;
		smtpdiag_buf_printf(b, "<li class=\"%s\"><span class=\"n\">%zu</span> ",
			     reasons ? "reason" : advice_tone(t->key[i], 0), t->n[i]);
		if (reasons)
			link_reason(b, t->key[i]);
		else
			hb_htmls(b, advice_text(t->key[i]));
		hb_puts(b, "</li>\n");
	}
	if (t->other)
		smtpdiag_buf_printf(b, "<li><span class=\"n\">%zu</span> other</li>\n", t->other);
	hb_puts(b, "</ul></div>\n");
}

void summary_html(smtpdiag_buf *b, const summary *s, size_t shown)
{
	hb_puts(b, "<section id=\"summary\" class=\"summary\">\n");
	smtpdiag_buf_printf(b, "<p class=\"counts\"><strong>%zu recipient%s found in the text</strong>", s->facts,
		     s->facts == 1 ? "" : "s");
	if (shown < s->facts)
		smtpdiag_buf_printf(b, ": the first %zu are shown below, %zu are not. POST the text to "
			     "<code>/api/v1/decode</code> for every verdict.</p>\n", shown, s->facts - shown);
	else
		smtpdiag_buf_printf(b, "%s</p>\n", s->facts > 1 ? ": all shown below." : ".");
	if (s->facts > 1) {
		hb_puts(b, "<div class=\"tallies\">\n");
		tally_html(b, &s->advice, "What to do", 0);
		tally_html(b, &s->reason, "Reasons", 1);
		hb_puts(b, "</div>\n");
	}
	hb_puts(b, "</section>\n");
}
