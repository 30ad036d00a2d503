/* classify.h - reply text to bounce reason, with one multi-pattern database. */
#ifndef SD_CLASSIFY_H
#define SD_CLASSIFY_H

#include <stdint.h>
#include "core/util.h"

enum {
#define SD_REASON(name, hard, advice, meaning) SD_R_##name,
#include "verdict/reasons.def"
#undef SD_REASON
	SD_R_COUNT
};

typedef uint64_t sd_reasonset; /* bit i set: reason i matched */

/* Load the embedded database (once per process, thread-safe). Returns 0, or a
 * negative code when neither the embedded database nor a compile works. Sets
 * *compiled to 1 when it had to compile the patterns at start. */
int sd_classify_init(int *compiled);

/* Tests: make the next first load compile the embedded patterns instead of
 * loading the serialized database. Call before anything else. */
void sd_classify_force_compile(void);

/* Per-thread scanning state. */
typedef struct sd_classifier sd_classifier;
sd_classifier *sd_classifier_new(void);
void sd_classifier_free(sd_classifier *c);

/* Which reasons' patterns match the text. */
sd_reasonset sd_classify_scan(sd_classifier *c, const char *p, size_t n);


/* The reason with the highest priority in the set, or -1. */
int sd_reason_pick(sd_reasonset s);
/* Reason implied by an enhanced status ("5.1.1"), or -1. */
int sd_reason_from_status(const char *status);

const char *sd_reason_name(int r);
int sd_reason_index(const char *name);
int sd_reason_hard(int r);
const char *sd_reason_advice(int r);
const char *sd_reason_text(int r);

/* The retry verdict and the advice word for a reason (-1: none), a class digit
 * (2, 4, 5) and whether the verdict is a hard bounce. */
int sd_reason_retry(int reason, int cls, int hard);
const char *sd_reason_advice_for(int reason, int cls, int hard);

#endif
