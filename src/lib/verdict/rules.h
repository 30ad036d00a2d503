/* rules.h - tables made by tools/rulegen from rules/ (see rules/README.md). */
#ifndef SD_RULES_H
#define SD_RULES_H

#include <stddef.h>

typedef struct sd_status_reason {
	const char *status;
	int reason;
	int registry; /* 1: the registry's reading, asked only where the mode reads it */
} sd_status_reason;

extern const unsigned sd_rules_npatterns;
extern const char *const sd_rules_patterns[];
extern const char *const sd_rules_where[];     /* "recipient.rules:12" per pattern */
extern const unsigned char sd_rules_reason[];  /* reason index per pattern */
extern const unsigned sd_rules_flags;           /* Vectorscan flags of every pattern */
extern const int sd_rules_norder;
extern const unsigned char sd_rules_order[];   /* reason priority, first wins */
extern const int sd_rules_nstatus;
extern const sd_status_reason sd_rules_status[];
extern const size_t sd_rules_dblen;
extern const unsigned char sd_rules_db[];      /* serialized database of the phrases */
extern const size_t sd_fam_dblen;               /* 0: no word families */
extern const unsigned char sd_fam_db[];        /* serialized database of rules/families.rules */

#endif
