/* engine.h - the verdict engine: the one place that decides what a failure
 * means. Evidence in (codes, text, command, what the MTA did, a format module's
 * hint, the remote host); out come the reason, hard or soft, retry, advice, who
 * acts, and the trail of the rules and rows that decided, in order.
 * explain, decode and scan ask it and decide nothing themselves.
 *
 * Order of evidence (docs/reasons.md): user rules > vendor rows matched on the
 * text > reason rules on the text > what the enhanced status implies > what the
 * reply code implies > undecided. What the MTA did (expired, delayed) outranks a
 * guess from the text; sender-side causes never suppress the recipient; a 4xx
 * is never a hard bounce. */
#ifndef SD_ENGINE_H
#define SD_ENGINE_H

#include "verdict/verdict.h"
#include "kb/kb.h"

#define SD_TRAIL_MAX 8  /* steps kept in a trail; later steps are dropped */
#define SD_TRAIL_LEN 96 /* bytes of one step, NUL included */
#define SD_VD_TEXT_MAX 4096 /* bytes of a text lowercased by the engine itself */

/* Rungs of the order of evidence, for the policy: a status's side counts
 * only when no text rule named the reason. */
enum { SD_BY_OTHER = 0, SD_BY_USER, SD_BY_VENDOR, SD_BY_HINT, SD_BY_RULE, SD_BY_STATUS, SD_BY_REPLY, SD_BY_ACTION };

/* A vendor row decides advice only when its snippet names the vendor's own
 * wording: a shorter one ("Mailbox full") is a condition any server reports. */
#define SD_VENDOR_MIN_SNIPPET 20

/* What the MTA did with the message. DELAYED is a delay notice (a DSN's
 * "Action: delayed": the message has waited in the queue for a while and
 * still waits); ATTEMPT is one attempt that failed for now (a deferred log
 * line, a 4xx reply on its own): the MTA keeps the message and retries.
 * EXPIRED says the MTA gave up. */
enum { SD_EV_NONE = 0, SD_EV_FAILED, SD_EV_DELAYED, SD_EV_EXPIRED, SD_EV_DELIVERED, SD_EV_ATTEMPT };

struct sd_evidence;

/* What the first matching user rule (--rules, docs/rules.md) sets: only the
 * fields it names; the rest come from the engine's policy. */
typedef struct sd_user_hit {
	int reason;             /* SD_R_*, -1: not set */
	const char *advice;     /* docs/reasons.md vocabulary, NULL: not set */
	int hard, retry;        /* 0 or 1, -1: not set */
	const char *label;      /* the user's word, "" when none */
	char who[SD_TRAIL_LEN]; /* for the trail: "user:myrules.conf:12" */
} sd_user_hit;

/* A user rule set, asked first. Returns 1 and fills hit when a rule matched
 * the evidence, else 0. */
typedef int (*sd_user_rule_fn)(void *ctx, const struct sd_evidence *ev, sd_user_hit *hit);

/* The evidence of one failure. Strings are NUL-terminated, "" when unknown. */
typedef struct sd_evidence {
	int replycode;          /* 550; 0 when none */
	const char *status;     /* "5.1.1" */
	const char *text;       /* the reply text (cleaned diagnostic) */
	size_t textn;
	const char *lc;         /* text lowercased (textn bytes), or NULL */
	const char *diagtype;   /* "SMTP", "X-UNIX", "" */
	const char *command;    /* "RCPT", "DATA", "" */
	int action;             /* SD_EV_* */
	int hint;               /* a format module's reason, -1 when none */
	int warning;            /* a format module read a warning: the MTA still tries */
	const char *rhost, *lhost, *destination;
	unsigned mode;          /* SD_MODE_*: how the funnel reads the evidence */
	int temporary;          /* the engine's own (set when it reads the evidence): the text's
				 * words say the failure is temporary, where no code says its class */
	sd_user_rule_fn user;   /* NULL: no user rules */
	void *user_ctx;
	int inbound;            /* the reply is one the reader's own server gave a client
				 * (a reject record): the receiving side's view (inbound.c) */
	const char *feedbacktype; /* a feedback report's Feedback-Type (RFC 5965), "" when none */
	int redacted;           /* the report hid the complained recipient (docs/complaints.md) */
} sd_evidence;

/* Readings of the evidence (docs/reasons.md, "Modes"). DEFAULT is the one
 * verdict explain, decode and scan give; SISIMAI keeps the reference
 * decoder's readings where they differ (decode --reasons sisimai). The
 * engine reads the mode in one place (reading() in engine.c). */
enum { SD_MODE_DEFAULT = 0, SD_MODE_SISIMAI = 1 };

struct sd_urun;

/* What a front end read, as it read it: the one evidence builder
 * (evidence.c) makes the engine's evidence of it. Strings NUL-terminated, NULL
 * or "" when unknown. */
typedef struct sd_facts {
	int replycode;          /* the reply code read, 0 when none */
	const char *status;     /* the status read; none: the code finder's in the text */
	const char *text;       /* the failure text (reply, diagnostic, log text) */
	size_t textn;
	const char *diagtype;   /* "SMTP", "X-UNIX"; none: SMTP when there is text */
	const char *command;    /* the SMTP command; none: the one the text names */
	sd_str action;          /* what the MTA did, its own word: failed, delayed,
				 * expired, delivered, sent, deferred, bounced; "reply":
				 * a reply as the client got it (its class says) */
	int hint;               /* a format module's reason, -1 when none */
	int warning;            /* a format module read a warning (delayed when no action) */
	const char *rhost, *lhost, *destination;
	unsigned mode;          /* SD_MODE_* */
	struct sd_urun *user;   /* user rules to ask first, NULL: none */
	const char *domain;     /* the recipient's domain for a rule's domain=, or NULL */
	int inbound;            /* the reader's own server gave the reply (sd_evidence) */
	sd_str feedbacktype;    /* a feedback report's Feedback-Type (sd_evidence) */
	int redacted;           /* the report hid the complained recipient (sd_evidence) */
} sd_facts;

/* The one evidence builder: ev from f. a (may be NULL) holds the lowercased
 * text; status is ev's status buffer when the text's own is taken. The
 * strings of f must outlive ev. */
void sd_evidence_build(sd_arena *a, const sd_facts *f, sd_evidence *ev, char status[SD_STATUS_MAX]);
void sd_facts_init(sd_facts *f);

struct sd_verdict;
/* The receiving side's view of a decided verdict (inbound.c): who is at fault
 * and what the server's operator does, by the reason, in one table. */
void sd_verdict_inbound(const sd_evidence *ev, struct sd_verdict *v);

typedef struct sd_verdict {
	int reason;             /* SD_R_* */
	int cls;                /* 2, 4, 5: the class the verdict is for; 0 unknown */
	int hard, retry;
	const char *advice;     /* docs/reasons.md vocabulary */
	unsigned fixer;         /* SD_FIX_* */
	int by;                 /* SD_BY_*: the rung of the order that decided the reason */
	const sd_kb_vendor *vendor; /* the vendor row the text matched, or NULL */
	const sd_kb_vendor *matched; /* what sd_vendor_match() answered for the evidence's
				      * own codes and text (before the snippet-length rule) */
	int asked;                  /* 1: it was asked (the evidence had text) */
	int host_advice;            /* SD_A_* the remote host's own phrase names, -1: none */
	const char *label;      /* a user rule's label, "" when none */
	const char *implied;    /* the status of a verdict whose evidence has none:
				 * its class's X.0.0 (static), "" when none fits */
	int ntrail;
	char trail[SD_TRAIL_MAX][SD_TRAIL_LEN];
} sd_verdict;

/* Decide. c: a per-thread classifier. Always fills out. */
void sd_verdict_decide(sd_classifier *c, const sd_evidence *in, sd_verdict *out);

/* Evidence with everything unknown (hint -1, strings ""). */
void sd_evidence_init(sd_evidence *ev);

/* The trail as a NULL-terminated list in a (an empty list when out of memory). */
const char *const *sd_verdict_trail(sd_arena *a, const sd_verdict *v);

/* The one copy-out (copyout.c): the verdict's reason, hardbounce, retry,
 * advice, fixer, evidence and label into decode's, scan's or explain's public
 * result (strings in a or static). explain's: bounce 0 (a success or no
 * failure class) shows no advice, no fixer, and no reason but delivered. */
struct smtpdiag_fact;
struct smtpdiag_logrec;
struct smtpdiag_explanation;
void sd_verdict_to_fact(sd_arena *a, const sd_verdict *v, struct smtpdiag_fact *f);
void sd_verdict_to_logrec(sd_arena *a, const sd_verdict *v, struct smtpdiag_logrec *r);
void sd_verdict_to_explanation(sd_arena *a, const sd_verdict *v, int bounce, struct smtpdiag_explanation *e);

/* v into out with its strings in a, to outlive what v's point into (a
 * decoder's arena, its user rules). 0, or SMTPDIAG_ENOMEM. */
int sd_verdict_keep(sd_arena *a, const sd_verdict *v, sd_verdict *out);

/* The fixer bits as names: a NULL-terminated static list ("sender-admin", ...),
 * and as one comma-separated static string. */
const char *const *sd_fixer_list(unsigned fixer);
const char *sd_fixer_text(unsigned fixer);

#endif
