/* taxonomy.c - a verdict's category in other systems' vocabularies (Amazon
 * SES, SparkPost, Postmark, KumoMTA, PowerMTA): a look-up of the verdict's
 * reason, class and retry in the tables of rules/taxonomy/. */
#include "decode/taxonomy.h"
#include "smtpdiag.h"

#include <string.h>

const char *smtpdiag_taxonomy_name(size_t i)
{
	for (size_t k = 0; sd_taxonomies[k].name; k++)
		if (k == i)
			return sd_taxonomies[k].name;
	return NULL;
}

/* The class a fact is in: its status, else its reply code, else what was done. */
static char class_of(const smtpdiag_fact *f)
{
	if (f->deliverystatus && (f->deliverystatus[0] == '4' || f->deliverystatus[0] == '5'))
		return f->deliverystatus[0];
	if (f->replycode && (f->replycode[0] == '4' || f->replycode[0] == '5'))
		return f->replycode[0];
	if (f->action && !strcmp(f->action, "delayed"))
		return '4';
	return f->action && !strcmp(f->action, "failed") ? '5' : 0;
}

/* Whether a row's class column holds for a fact of class cls: '4', '5', '*'
 * any; 'r' the verdict retries (whatever the class), 'n' a failure (4 or 5)
 * the verdict does not retry. */
static int row_holds(char want, char cls, int retry)
{
	switch (want) {
	case '*':
		return 1;
	case 'r':
		return retry != 0;
	case 'n':
		return !retry && cls != 0;
	default:
		return want == cls;
	}
}

static const char *lookup(const sd_tax_row *r, const char *reason, char cls, int retry)
{
	for (; r->reason; r++)
		if ((r->reason[0] == '*' || !strcmp(r->reason, reason)) && row_holds(r->cls, cls, retry))
			return r->value;
	return "";
}

const char *smtpdiag_taxonomy(const char *name, const smtpdiag_fact *f)
{
	for (size_t k = 0; sd_taxonomies[k].name; k++)
		if (!strcmp(sd_taxonomies[k].name, name))
			return lookup(sd_taxonomies[k].rows, f->reason ? f->reason : "", class_of(f), f->retry);
	return NULL;
}
