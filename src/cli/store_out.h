/* store_out.h - what `smtpdiag store` prints: suppressed lists, an address,
 * counts; as text, JSON (Lines) or CSV. */
#ifndef SMTPDIAG_CLI_STORE_OUT_H
#define SMTPDIAG_CLI_STORE_OUT_H

#include "smtpdiag.h"

enum { OUT_TEXT, OUT_JSON, OUT_CSV };

/* "text", "json"/"jsonl", "csv" -> OUT_*; -1 otherwise. */
int out_format(const char *v);
/* Each returns the exit status. */
int out_suppressed(smtpdiag_store *s, const smtpdiag_store_filter *f, int format);
int out_show(smtpdiag_store *s, const char *address, int format);
int out_stats(smtpdiag_store *s, int format);

#endif
