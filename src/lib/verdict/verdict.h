/* verdict.h - per-recipient decisions: which command a bounce text names,
 * which reason it reports, hard or soft. The status and reply code in a text
 * are the code finder's (smtp/reply.h: sd_text_status(), sd_text_reply()). */
#ifndef SD_VERDICT_H
#define SD_VERDICT_H

#include "core/util.h"
#include "smtp/reply.h"
#include "verdict/classify.h"

/* SMTP command named in text (HELO, EHLO, MAIL, RCPT, DATA, ...), "" when none. */
const char *sd_vd_command_find(const char *p, size_t n);
/* Does the text say the failure is temporary / permanent? */
int sd_vd_is_temporary(const char *p, size_t n);
/* The text names greylisting (RFC 6647), in the spellings MTAs use: a
 * deferral of a client not seen before, temporary by definition. */
int sd_vd_greylisting(const char *p, size_t n);
/* The text says a permanent-looking refusal lifts by itself: greylisting, a
 * "try again later", a temporary block (in the languages of the rules), and
 * no "retrying will not succeed". What makes a 5xx a retry (engine.c). */
int sd_vd_lifts_by_itself(const char *p, size_t n);
/* The text says a DNS lookup failed for now (SERVFAIL, a timeout, "Host not
 * found, try again"), the MTA's phrase of a networkerror that is DNS's: what
 * scan --incidents counts as a DNS failure towards an MX. */
int sd_vd_dns_failure(const char *p, size_t n);

/* What decide() looks at. Strings are NUL-terminated; "" when unknown. */
typedef struct sd_vd_in {
	int reason;            /* reason given by the format module, -1 if none */
	const char *status;    /* "5.1.1" */
	int replycode;         /* 550, 0 if none */
	const char *diag;      /* cleaned diagnostic text */
	const char *lc;        /* the same, lowercased (ASCII), diagn bytes */
	size_t diagn;
	const char *diagtype;  /* "SMTP", "X-UNIX", ... */
	const char *command;   /* "RCPT" ... */
	const char *action;    /* "failed", "delayed" ... */
	const char *rhost, *lhost, *destination;
	int refusal_any_command; /* a recipient's refusal phrase counts before DATA too */
	int provider_codes;      /* mailbox providers' own codes decide (Yahoo, Comcast) */
	int phrase_over_subject; /* a phrase names what a subject-only status (X.7.1) does not */
	int greylist_over_status; /* a greylisting text is no full mailbox, whatever its X.2.2 */
	int registry_codes;      /* the registry's reading of statuses and reply codes */
} sd_vd_in;

/* Which step of sd_vd_reason() decided (for the evidence trail). */
enum { SD_SRC_HINT = 1, SD_SRC_DELIVERED, SD_SRC_MAILER, SD_SRC_RHOST, SD_SRC_TEXT };
typedef struct sd_vd_why {
	int src;          /* SD_SRC_* */
	int sname;        /* reason the status implies, -1 if none */
	int sregistry;    /* sname is the registry's reading, not the reference decoder's row */
	sd_matches m;     /* reason phrases found (SD_SRC_TEXT) */
	int advice;       /* SD_A_* a remote host's phrase names (SD_SRC_RHOST), -1 if none */
} sd_vd_why;

/* The bounce reason (SD_R_*), in the reference decoder's order. why (may be
 * NULL) receives which step decided. Only the verdict engine calls it. */
int sd_vd_reason(sd_classifier *cls, const sd_vd_in *in, sd_vd_why *why);
/* Is the reason a "retry the detection" reason (a module's guess)? */
int sd_vd_retried(int reason);

/* Reason decided by a remote host's own vocabulary (rhost.c), or -1. */
int sd_rhost_reason(const sd_vd_in *in);
/* Reason decided by a local delivery agent's message (procmail, dovecot...), or -1.
 * lc: the lowercased diagnostic. */
int sd_lda_reason(const char *lc, size_t n, const char *command);

#endif
