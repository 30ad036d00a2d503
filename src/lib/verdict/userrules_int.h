/* userrules_int.h - the parsed user rules, shared by the parser
 * (userrules.c) and the compiler and matcher (userrules_db.c) only. */
#ifndef SD_USERRULES_INT_H
#define SD_USERRULES_INT_H

#include "verdict/userrules.h"

#define SD_UR_NAME_MAX 48  /* bytes of the source name kept for the trail */
#define SD_UR_STATUS_MAX 12 /* "5.123.123" and NUL, with room */

/* One rule: what it tests and what it sets. Strings live in the set's arena. */
typedef struct sd_urule {
	unsigned line;             /* its line in the source */
	int literal;               /* match "..." (1) or regex /.../ (0) */
	const char *pat;           /* the pattern as meant (a literal unescaped) */
	size_t patn;
	const char *expr;          /* what Vectorscan compiles */
	unsigned flags;            /* Vectorscan flags */
	char code[4];              /* "550", "55x", "5xx"; "" when any */
	char status[SD_UR_STATUS_MAX]; /* "5.1.1", or a prefix "5.7."; "" when any */
	const char *domain, *host; /* lowercased, maybe "*.example.com"; "" when any */
	int reason, hard, retry;   /* -1 when not set */
	const char *advice;        /* NULL when not set */
	const char *label;         /* "" when not set */
} sd_urule;

struct smtpdiag_rules {
	char name[SD_UR_NAME_MAX]; /* the source without its directories */
	sd_urule *r;
	unsigned n;
	void *db;                  /* hs_database_t, NULL when there are no rules */
	sd_arena arena;
};

/* Compile the parsed rules into r->db (userrules_db.c). Returns 0 or a
 * negative code with "name:line: what" in err. */
int sd_urules_compile(smtpdiag_rules *r, const char *name, smtpdiag_error *err);

#endif
