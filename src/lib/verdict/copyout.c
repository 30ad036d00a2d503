/* copyout.c - the one copy-out: a decided verdict into the public results of
 * decode (smtpdiag_fact), scan (smtpdiag_logrec) and explain
 * (smtpdiag_explanation), and a verdict kept whole past its decoder (explain
 * --file shows the verdict decode gave). Nothing is decided here or by the callers: they
 * print what these fields hold (tests/cli/deciders.sh keeps it so). */
#include "verdict/engine.h"
#include "smtpdiag.h"

/* The fields the three results share, from v (or, not a bounce, none). */
typedef struct vout {
	const char *reason, *advice, *label;
	int hardbounce, retry;
	unsigned fixer;
	const char *const *evidence;
} vout;

static void fill(sd_arena *a, const sd_verdict *v, vout *o)
{
	o->reason = sd_reason_name(v->reason);
	o->advice = v->advice ? v->advice : "none";
	o->hardbounce = v->hard;
	o->retry = v->retry;
	o->fixer = v->fixer;
	o->evidence = sd_verdict_trail(a, v);
	o->label = v->label && v->label[0] ? sd_arena_strndup(a, v->label, strlen(v->label)) : "";
	if (!o->label)
		o->label = "";
}

#define COPY_SHARED(dst, o) \
	((dst)->reason = (o).reason, (dst)->hardbounce = (o).hardbounce, (dst)->retry = (o).retry, \
	 (dst)->advice = (o).advice, (dst)->evidence = (o).evidence, (dst)->label = (o).label)

void sd_verdict_to_fact(sd_arena *a, const sd_verdict *v, smtpdiag_fact *f)
{
	vout o;

	fill(a, v, &o);
	COPY_SHARED(f, o);
	f->fixer = sd_fixer_list(o.fixer);
}

void sd_verdict_to_logrec(sd_arena *a, const sd_verdict *v, smtpdiag_logrec *r)
{
	vout o;

	fill(a, v, &o);
	COPY_SHARED(r, o);
	r->fixer = sd_fixer_list(o.fixer);
}

void sd_verdict_to_explanation(sd_arena *a, const sd_verdict *v, int bounce, smtpdiag_explanation *e)
{
	vout o;

	fill(a, v, &o);
	if (!bounce) { /* a success or an unknown code: nothing failed that anyone must act on */
		o.hardbounce = o.retry = 0;
		o.advice = sd_advice_name(SD_A_none);
		o.fixer = 0;
	}
	if (v->reason == SD_R_undefined || (!bounce && v->reason != SD_R_delivered))
		o.reason = "";
	COPY_SHARED(e, o);
	e->fixers = sd_fixer_list(o.fixer);
	e->fixer = sd_fixer_text(o.fixer);
}

int sd_verdict_keep(sd_arena *a, const sd_verdict *v, sd_verdict *out)
{
	*out = *v;
	out->advice = v->advice ? sd_arena_strndup(a, v->advice, strlen(v->advice)) : NULL;
	out->label = sd_arena_strndup(a, v->label ? v->label : "", v->label ? strlen(v->label) : 0);
	return (out->advice || !v->advice) && out->label ? 0 : SMTPDIAG_ENOMEM;
}
