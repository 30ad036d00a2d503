/* fact.h - build one verdict (smtpdiag_fact) from a recipient record. */
#ifndef SD_FACT_H
#define SD_FACT_H

#include "bounce/ctx.h"
#include "bounce/dsnutil.h"
#include "verdict/engine.h"

/* Fill f from r and the message context c. Strings live in c->a. v (may be
 * NULL) gets the engine's verdict that f was copied from. */
void sd_fact_fill(sd_ctx *c, const sd_rcpt *r, smtpdiag_fact *f, const char *origin, sd_verdict *v);

#endif
