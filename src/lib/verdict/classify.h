/* classify.h - reply text to bounce reason, with one multi-pattern database. */
#ifndef SD_CLASSIFY_H
#define SD_CLASSIFY_H

#include <stdint.h>
#include "core/util.h"

/* Who acts on a verdict ("fixer"): bits. */
enum { SD_FIX_SENDER = 1u, SD_FIX_SENDER_ADMIN = 2u, SD_FIX_RECIPIENT = 4u, SD_FIX_RECIPIENT_ADMIN = 8u };

enum {
#define SD_REASON(name, hard, advice, fixer, meaning) SD_R_##name,
#include "verdict/reasons.def"
#undef SD_REASON
	SD_R_COUNT
};

/* The advice vocabulary, in the order of reasons.def. */
enum {
#define SD_ADVICE(id, name, fix, fixer, words) SD_A_##id,
#include "verdict/reasons.def"
#undef SD_ADVICE
	SD_A_COUNT
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
/* This thread's own classifier, made at its first call and freed when the
 * thread ends (explain asks for one a query: a scratch space costs far more
 * than a scan); NULL when it cannot be made. Not to be freed. */
sd_classifier *sd_classifier_thread(void);

/* Which reasons' phrases match the text (the word families are not counted). */
sd_reasonset sd_classify_scan(sd_classifier *c, const char *p, size_t n);

/* The same, with the first pattern that matched for each reason (valid where
 * the reason's bit is set in set), for the evidence trail. The word families
 * (rules/families.rules) are kept apart, in fam and ffirst, filled by
 * sd_classify_families(): they speak only when no phrase, no status detail and
 * no reply code of its own did. */
typedef struct sd_matches {
	sd_reasonset set;
	unsigned short first[SD_R_COUNT];
	sd_reasonset fam;
	unsigned short ffirst[SD_R_COUNT];
} sd_matches;
void sd_classify_matches(sd_classifier *c, const char *p, size_t n, sd_matches *m);
/* The word families (rules/families.rules, a database of their own) that
 * occur in the text, into m->fam and m->ffirst; the phrases are left as they
 * are. Scanned only when no phrase decided. */
void sd_classify_families(sd_classifier *c, const char *p, size_t n, sd_matches *m);
/* Where a pattern comes from: "recipient.rules:12". */
const char *sd_rule_where(unsigned id);


/* The reason with the highest priority in the set, or -1. */
int sd_reason_pick(sd_reasonset s);
/* Reason implied by an enhanced status ("5.1.1"), or -1. registry: also read
 * the rows marked "registry" in rules/status-reasons.tsv (the default mode's
 * reading of the IANA registry), which outrank the plain row of a status. */
int sd_reason_from_status(const char *status, int registry);
/* Both readings of a status in one look: the plain row's reason and the
 * registry's (a row marked `registry`, read only where no phrase speaks),
 * each -1 if none. */
void sd_status_readings(const char *status, int *plain, int *registry);

const char *sd_reason_name(int r);
int sd_reason_index(const char *name);
int sd_reason_hard(int r);
const char *sd_reason_advice(int r);
const char *sd_reason_text(int r);

/* Who acts on the reason by default: SD_FIX_* bits (0: no one). */
unsigned sd_reason_fixer(int r);

/* The advice words of reasons.def: the word of SD_A_* a ("" out of range);
 * the index of a word (n bytes, not NUL-terminated), -1 when it is none;
 * who acts when a vendor row gives it (0: the reason's); its words. (The
 * action word of vendor rows is kbgen's check.) */
const char *sd_advice_name(int a);
int sd_advice_index(const char *p, size_t n);
unsigned sd_advice_fixer(int a);
const char *sd_advice_words(int a);

#endif
