/* logmetrics.h - what /metrics counts of the logs being followed (serve --follow,
 * scan --follow --metrics-listen), and the label vocabularies /metrics shares
 * (reasons, advice). No libmicrohttpd here: the follower (src/cli) and the unit
 * tests use it too. Every counter is an atomic or sits behind a mutex: the
 * follower thread writes, the HTTP threads read (docs/metrics.md). */
#ifndef SMTPDIAG_LOGMETRICS_H
#define SMTPDIAG_LOGMETRICS_H

#include <stddef.h>
#include <stdint.h>

#include "smtpdiag.h"

#define M_REASONS 64        /* reason vocabulary, with room; slot M_REASONS: "other" */
#define M_ADVICE 16         /* advice vocabulary with room, + "" + other */
#define LM_DOMAINS 20       /* recipient domains kept as labels; the rest are "other" */
#define LM_CANDIDATES 64    /* domains counted to find the ones that get a label */
#define LM_DOMAIN_MIN 3     /* records a domain needs before it gets a label */
#define LM_DOMAIN_MAX 253   /* bytes of a domain label (a DNS name); a longer one is "other" */

/* ---- the label vocabularies (shared with metrics.c) ---- */
size_t metrics_reason_slot(const char *reason);  /* M_REASONS when not in the vocabulary */
const char *metrics_reason_label(size_t slot);
size_t metrics_advice_slot(const char *advice);  /* "" and words outside it have slots too */
const char *metrics_advice_label(size_t slot);   /* NULL for a slot no word has */
/* The HELP and TYPE lines of a metric. */
void metrics_head(smtpdiag_buf *b, const char *name, const char *type, const char *help);

/* ---- the followed logs ---- */
enum { LM_LINE_RECORD, LM_LINE_SKIPPED, LM_LINE_MALFORMED, LM_LINE_OVERLIMIT };
enum { LM_ROTATE_RENAME, LM_ROTATE_TRUNCATE };

/* From now on /metrics writes the metrics below (once, before following starts). */
void logmetrics_enable(void);
/* A line read, of kind LM_LINE_*. */
void logmetrics_line(int kind);
/* A record of a line: a delivery attempt, or a reject (action "rejected"). */
void logmetrics_record(const smtpdiag_logrec *r);
/* The follower after a round: files held open, bytes written to them and not read yet. */
void logmetrics_files(long files, long long behind);
/* A rotation seen (LM_ROTATE_*). */
void logmetrics_rotation(int kind);
/* Open incidents now: the one hook for the incident aggregator's count. Until
 * it is first called, smtpdiag_incidents_open is not written at all. */
void logmetrics_incidents_open(long n);
/* The metrics of the followed logs (nothing before logmetrics_enable). now: Unix
 * seconds, for the lag. */
void logmetrics_text(smtpdiag_buf *b, int64_t now);
/* Back to nothing counted and not enabled (tests). */
void logmetrics_reset(void);

#endif
