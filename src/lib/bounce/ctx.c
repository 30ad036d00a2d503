/* ctx.c - the recipient table of the context a format module fills. */
#include "bounce/ctx.h"

#include <string.h>

sd_rcpt *sd_ctx_add(sd_ctx *c)
{
	sd_rcpt *r;

	if (c->nrcpt >= SD_MAX_RECIPIENTS) {
		c->limit_hit = 1;
		c->rcpt_over = 1;
		return NULL;
	}
	r = &c->rcpts[c->nrcpt++];
	memset(r, 0, sizeof(*r));
	r->reason = -1;
	return r;
}

_Static_assert(SD_MAX_RECIPIENTS == 1024, "SD_RCPT_OVER_MSG names the limit");
