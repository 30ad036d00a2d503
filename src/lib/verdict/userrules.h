/* userrules.h - the user's rules (--rules, docs/rules.md), as the library
 * uses them: a rule set (smtpdiag_rules, read-only once compiled) and, per
 * decoder, scanner or explain call, a runner that holds the rule set and its
 * own Vectorscan scratch. The verdict engine asks the runner first
 * (engine.h: sd_evidence.user). */
#ifndef SD_USERRULES_H
#define SD_USERRULES_H

#include "smtpdiag.h"
#include "verdict/engine.h"

typedef struct sd_urun sd_urun;

/* A runner for rules: *out is NULL when rules is NULL. Returns 0 or
 * SMTPDIAG_ENOMEM. Free with sd_urun_free() (NULL is fine). */
int sd_urun_new(const smtpdiag_rules *rules, sd_urun **out);
void sd_urun_free(sd_urun *u);
/* Replace the runner in *slot by one for rules (NULL: none), freeing the old
 * one. Returns 0, or SMTPDIAG_ENOMEM with *slot unchanged. */
int sd_urun_set(sd_urun **slot, const smtpdiag_rules *rules);

/* Make the engine ask u first (nothing when u is NULL). domain (may be NULL)
 * is the recipient's domain for domain= when ev->destination is "" (explain
 * finds a recipient in the text, but does not give the engine a destination). */
void sd_urun_attach(sd_urun *u, sd_evidence *ev, const char *domain);

#endif
