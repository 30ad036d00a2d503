/* json.c - an explanation as one JSON object (smtpdiag_explanation_json). */
#include "smtpdiag.h"
#include "core/util.h"

#include <stdio.h>

static void jkey(sd_buf *b, const char *k, int first)
{
	if (!first)
		sd_buf_putc(b, ',');
	sd_buf_json_cstr(b, k);
	sd_buf_putc(b, ':');
}

void smtpdiag_explanation_json(const smtpdiag_explanation *e, smtpdiag_buf *out)
{
	sd_buf *b = (sd_buf *)out;
	char rc[8] = "";

	if (!e || !b)
		return;
	if (e->replycode)
		snprintf(rc, sizeof(rc), "%d", e->replycode);
	sd_buf_putc(b, '{');
	jkey(b, "query", 1);
	sd_buf_json_cstr(b, e->query);
	SD_JSTR(b, "replycode", rc);
	SD_JSTR(b, "status", e->status);
	SD_JSTR(b, "class", smtpdiag_class_name(e->klass));
	SD_JBOOL(b, "retry", e->retry);
	SD_JBOOL(b, "standard", e->standard);
	SD_JKEY(b, "issues");
	smtpdiag_issues_json(e->issues, out);
	SD_JSTR(b, "reason", e->reason);
	SD_JBOOL(b, "hardbounce", e->hardbounce);
	SD_JSTR(b, "vendor", e->vendor);
	SD_JSTR(b, "recipient", e->recipient);
	SD_JBOOL(b, "bounce", e->bounce);
	SD_JSTR(b, "advice", e->advice);
	SD_JSTR(b, "title", e->title);
	SD_JSTR(b, "short_answer", e->short_answer);
	SD_JSTR(b, "quick_fix", e->quick_fix);
	SD_JSTR(b, "retry_advice", e->retry_advice);
	SD_JSTR(b, "meaning", e->meaning);
	SD_JLIST(b, "causes", e->causes);
	SD_JLIST(b, "fixes", e->fixes);
	SD_JLIST(b, "fixer", e->fixers);
	SD_JLIST(b, "paired", e->paired);
	SD_JLIST(b, "related", e->related);
	SD_JKEY(b, "faq");
	sd_buf_putc(b, '[');
	for (size_t i = 0; i < e->nfaq; i++) {
		if (i)
			sd_buf_putc(b, ',');
		sd_buf_putc(b, '{');
		jkey(b, "q", 1);
		sd_buf_json_cstr(b, e->faq[i].q);
		SD_JSTR(b, "a", e->faq[i].a);
		sd_buf_putc(b, '}');
	}
	sd_buf_putc(b, ']');
	SD_JLIST(b, "references", e->references);
	SD_JLIST(b, "notes", e->notes);
	SD_JKEY(b, "vendors");
	sd_buf_putc(b, '[');
	for (size_t i = 0; i < e->nvendors; i++) {
		if (i)
			sd_buf_putc(b, ',');
		sd_buf_put(b, "{\"vendor\":", 10);
		sd_buf_json_cstr(b, e->vendors[i].vendor);
		SD_JSTR(b, "meaning", e->vendors[i].meaning);
		SD_JSTR(b, "source", e->vendors[i].source);
		sd_buf_putc(b, '}');
	}
	sd_buf_putc(b, ']');
	SD_JSTR(b, "text", e->text);
	SD_JLIST(b, "evidence", e->evidence);
	if (e->label && e->label[0]) /* only when a user rule set one */
		SD_JSTR(b, "label", e->label);
	sd_buf_putc(b, '}');
}
