/*
 * smtpdiag.h - what an SMTP failure means and what to do about it.
 *
 * Public API of libsmtpdiag. All names carry the smtpdiag_ / SMTPDIAG_ prefix.
 *
 * Conventions
 *  - Inputs are (const char *p, size_t len); no input needs a terminating NUL.
 *  - Functions returning int return 0 (or a count) on success and a negative
 *    SMTPDIAG_E* code on failure; smtpdiag_strerror() names the code and the
 *    optional smtpdiag_error receives a one-line message.
 *  - The library never prints, never exits, and keeps no global mutable state
 *    except read-only tables built at first use (thread-safe).
 *  - Ownership is stated at each function. Strings inside returned structures
 *    belong to the object they come from and live until it is freed or reused.
 *  - A NULL or invalid argument is never followed: functions returning int
 *    return SMTPDIAG_EINVAL (smtpdiag_mbox_* return 0), those returning a
 *    pointer return NULL, writers append nothing and free functions do nothing.
 */
#ifndef SMTPDIAG_H
#define SMTPDIAG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#define SMTPDIAG_VERSION "0.1.0"

/* Error codes (negative). */
enum {
	SMTPDIAG_OK = 0,
	SMTPDIAG_EINVAL = -1,   /* bad argument or unusable input */
	SMTPDIAG_ENOMEM = -2,   /* out of memory */
	SMTPDIAG_ELIMIT = -3,   /* a named limit was hit (size, depth, count) */
	SMTPDIAG_EPARSE = -4,   /* input is not what it should be */
	SMTPDIAG_ENOTFOUND = -5,/* nothing to explain or decode in the input */
	SMTPDIAG_EIO = -6,      /* reading input failed */
	SMTPDIAG_ESTORE = -7    /* the store (database) refused or failed */
};

typedef struct smtpdiag_error {
	int code;
	char message[256];
} smtpdiag_error;

/* Static name of an error code ("invalid input", ...). */
const char *smtpdiag_strerror(int code);

/* Library version string (SMTPDIAG_VERSION of the built library). */
const char *smtpdiag_version(void);

/* Load the reason rule database embedded at build time. Optional: every entry
 * point loads it on first use. Returns 0 when the serialized database loaded,
 * 1 when it could not be loaded on this CPU or library version and the
 * patterns were compiled at start instead (slower start; callers may say so),
 * or a negative SMTPDIAG_E* code when neither worked. Thread-safe. */
int smtpdiag_init(smtpdiag_error *err);

/* ---- User rules (--rules; the format is in docs/rules.md) ----
 * A rule file says, line by line, what a reply text means to its user:
 *   match "quota exceeded" code=552 reason=mailboxfull label=vip
 *   regex /no (such|valid) (user|mailbox)/ domain=example.com reason=userunknown
 * A rule matches a literal or a regular expression on the reply text
 * (ignoring case), optionally only for a reply code, an enhanced status (exact
 * or a prefix like "5.7."), a recipient domain or a remote host; it sets a
 * reason, advice, hardbounce, retry and/or a label. Rules are asked before
 * the built-in ones and the first matching rule in file order wins; the
 * fields it does not set come from the engine's policy. The patterns are
 * compiled once (Vectorscan) into a database that stays read-only: one
 * smtpdiag_rules may be shared by any number of decoders and scanners in any
 * number of threads, each of which keeps its own scratch space. */

#define SMTPDIAG_RULES_MAX 1024          /* rules in one file */
#define SMTPDIAG_RULES_MAX_LINE 4096     /* bytes of one line, its end not counted */
#define SMTPDIAG_RULES_MAX_PATTERN 1024  /* bytes of one match or regex pattern */
#define SMTPDIAG_RULES_MAX_FILE (1u << 20) /* bytes of one rule file */
#define SMTPDIAG_RULES_MAX_LABEL 32      /* bytes of a label */
#define SMTPDIAG_RULES_MAX_HOST 253      /* bytes of a domain= or host= value */

typedef struct smtpdiag_rules smtpdiag_rules;

/* Parse and compile the rules in p (len bytes; no NUL needed). name (may be
 * NULL: "rules") names the source in error messages ("name:12: unknown
 * reason 'x'") and, without its directories, in the evidence trail
 * ("user:name:12 -> userunknown"). On success *out is a new object the caller
 * frees with smtpdiag_rules_free(). Errors: SMTPDIAG_EPARSE (a bad line: the
 * message names its line), SMTPDIAG_ELIMIT (a limit above was hit),
 * SMTPDIAG_ENOMEM. A file without rules is valid. */
int smtpdiag_rules_parse(const char *p, size_t len, const char *name, smtpdiag_rules **out,
			 smtpdiag_error *err);
/* The same for the file at path (at most SMTPDIAG_RULES_MAX_FILE bytes; the
 * path names it). SMTPDIAG_EIO when it cannot be read. */
int smtpdiag_rules_load(const char *path, smtpdiag_rules **out, smtpdiag_error *err);
/* Number of rules. */
size_t smtpdiag_rules_count(const smtpdiag_rules *r);
/* Free (NULL is fine). Free it only after every decoder and scanner it is
 * attached to, and after the explain calls that use it. */
void smtpdiag_rules_free(smtpdiag_rules *r);

/* ---- Growable output buffer ----
 * Writers append to it; the caller owns data and frees it with
 * smtpdiag_buf_free(). data is NUL-terminated when len > 0. */
typedef struct smtpdiag_buf {
	char *data;
	size_t len;
	size_t cap;
	int oom; /* set when an append failed for lack of memory */
} smtpdiag_buf;

void smtpdiag_buf_free(smtpdiag_buf *b);
/* Append n bytes of p; printf-formatted text; p as one JSON string (quoted,
 * escaped, invalid UTF-8 as U+FFFD); p as text (below). After a failed allocation b->oom is set
 * and later appends do nothing. */
void smtpdiag_buf_append(smtpdiag_buf *b, const char *p, size_t n);
void smtpdiag_buf_printf(smtpdiag_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void smtpdiag_buf_json(smtpdiag_buf *b, const char *p, size_t n);
/* Append n bytes of p for a terminal or a log: control characters (C0, DEL,
 * and C1 written in UTF-8) and bytes that are no UTF-8 as \xNN, so text from
 * mail, logs or requests cannot drive the terminal; the rest as it is. */
void smtpdiag_buf_text(smtpdiag_buf *b, const char *p, size_t n);

/* ---- Codes ---- */

/* Reply classes, from the first digit. */
typedef enum smtpdiag_class {
	SMTPDIAG_CLASS_NONE = 0,
	SMTPDIAG_CLASS_SUCCESS,      /* 2 */
	SMTPDIAG_CLASS_INTERMEDIATE, /* 3 */
	SMTPDIAG_CLASS_TRANSIENT,    /* 4 */
	SMTPDIAG_CLASS_PERMANENT     /* 5 */
} smtpdiag_class;

const char *smtpdiag_class_name(smtpdiag_class c); /* "transient", ... ; "" for NONE */

/* Issue flags: what is non-standard about a code or a pair. */
enum {
	SMTPDIAG_ISSUE_NONSTANDARD_REPLY = 1u << 0,  /* reply code no RFC defines */
	SMTPDIAG_ISSUE_UNREGISTERED_STATUS = 1u << 1,/* status not in the IANA registry */
	SMTPDIAG_ISSUE_VENDOR_REDEFINED = 1u << 2,   /* a vendor uses a registered code for another meaning */
	SMTPDIAG_ISSUE_CLASS_MISMATCH = 1u << 3,     /* reply class and status class disagree */
	SMTPDIAG_ISSUE_CLASS_NOT_ALLOWED = 1u << 4   /* status used in a class its registration forbids */
};

/* Append the issue names ("nonstandard-reply-code", ...) of flags as a JSON array. */
void smtpdiag_issues_json(unsigned issues, smtpdiag_buf *out);
/* Name of one issue bit, or NULL. */
const char *smtpdiag_issue_name(unsigned bit);

/* ---- explain ---- */

typedef struct smtpdiag_faq {
	const char *q;
	const char *a;
} smtpdiag_faq;

/* What explain found out. String lists are NULL-terminated arrays. */
/* A provider that uses a code outside the registry, and what it means by it. */
typedef struct smtpdiag_vendor_use {
	const char *vendor;
	const char *meaning;
	const char *source;     /* the provider's page */
} smtpdiag_vendor_use;

typedef struct smtpdiag_explanation {
	const char *query;      /* the input as given (possibly cut at the limit) */
	int replycode;          /* 0 when none */
	const char *status;     /* enhanced status as written, "" when none */
	smtpdiag_class klass;
	int retry;              /* 1: safe and right to retry later */
	int standard;           /* 1: every code is defined (reply) or registered (status), used in
				 * an allowed class or one the registry's basic codes use; a
				 * class mismatch or a vendor's reuse is an issue, not non-standard */
	unsigned issues;        /* SMTPDIAG_ISSUE_* */
	const char *reason;     /* Sisimai reason name, "" when the text allows none */
	int hardbounce;
	const char *vendor;     /* "" when none */
	const char *recipient;  /* "" when none */
	int bounce;             /* the text reports a delivery failure */
	const char *title;
	const char *short_answer;
	const char *quick_fix;
	const char *meaning;
	const char *retry_advice; /* how to retry, or why not */
	const char *fixer;        /* fixers as one comma list ("sender,sender-admin") */
	const char *advice;       /* one word of the advice vocabulary (see decode) */
	const char *const *causes;
	const char *const *fixes;
	const char *const *paired;
	const char *const *related;
	const char *const *references;
	const char *const *notes;  /* one sentence per issue flag, and vendor notes */
	const smtpdiag_faq *faq;
	size_t nfaq;
	const char *text;       /* reply text found (continuations joined), "" when none */
	const smtpdiag_vendor_use *vendors; /* providers using an unregistered status */
	size_t nvendors;
	const char *const *fixers;   /* who acts, as a list: "sender", "sender-admin", "recipient", "recipient-admin" */
	const char *const *evidence; /* the rules and rows that decided, in order ("status:5.1.1 -> userunknown") */
	const char *label;      /* the label a user rule set, "" when none (JSON: left out) */
} smtpdiag_explanation;

enum {
	SMTPDIAG_EXPLAIN_CODE = 0, /* "431", "4.3.1", "X.3.1", "552 4.3.1", "552-4.3.1" */
	SMTPDIAG_EXPLAIN_TEXT = 1, /* reply line(s): "550-5.1.1 ...\r\n550 5.1.1 ..." */
	SMTPDIAG_EXPLAIN_FILE = 2, /* any pasted text: a bounce, an NDR, a log fragment */
	SMTPDIAG_EXPLAIN_AUTO = 3  /* one code or a pair as CODE, anything else as TEXT */
};

/* Explain a query. On success *out is a new object the caller frees with
 * smtpdiag_explanation_free(). Errors: SMTPDIAG_EINVAL (empty, not a code,
 * impossible class, binary; out NULL, mode not one of SMTPDIAG_EXPLAIN_*),
 * SMTPDIAG_ELIMIT (over SMTPDIAG_MAX_QUERY bytes), SMTPDIAG_ENOTFOUND (text
 * mode: no code or failure found, "nothing to explain"). */
#define SMTPDIAG_MAX_QUERY (1u << 20)
int smtpdiag_explain(const char *q, size_t len, int mode,
		     smtpdiag_explanation **out, smtpdiag_error *err);
/* The same, with user rules asked first (NULL: none). Thread-safe: rules are
 * only read, and the scratch space is the call's own. */
int smtpdiag_explain_with_rules(const char *q, size_t len, int mode, const smtpdiag_rules *rules,
				smtpdiag_explanation **out, smtpdiag_error *err);
void smtpdiag_explanation_free(smtpdiag_explanation *e);

/* Append the explanation as one JSON object (no trailing newline). */
void smtpdiag_explanation_json(const smtpdiag_explanation *e, smtpdiag_buf *out);

/* ---- code index (for listings) ---- */

typedef struct smtpdiag_code_info {
	const char *code;   /* "431", "X.3.1", "5.3.1" */
	const char *title;
	smtpdiag_class klass;   /* of the code; NONE for X.* statuses */
	int standard;       /* defined by an RFC / registered */
	const char *allowed;/* statuses: allowed classes ("4", "4,5", "any"); "" for replies */
	const char *const *aka; /* other words people use for it ("user unknown"), for search;
				 * NULL-terminated, never NULL */
} smtpdiag_code_info;

/* Number of knowledge-base entries and the i-th one (static; never freed). */
size_t smtpdiag_code_count(void);
const smtpdiag_code_info *smtpdiag_code_at(size_t i);

/* ---- decode ---- */

/* One verdict: a recipient of a bounce (or one delivery attempt from a log).
 * Field names follow Sisimai's. Strings are never NULL ("" when unknown). */
typedef struct smtpdiag_fact {
	const char *action;          /* failed, delayed, delivered, expanded, relayed */
	const char *addresser;
	const char *alias;
	const char *decodedby;       /* the format module that read it */
	const char *deliverystatus;  /* "5.1.1" */
	const char *destination;     /* recipient's domain */
	const char *diagnosticcode;
	const char *diagnostictype;  /* "SMTP", "X-Unix", ... */
	const char *feedbackid;
	const char *feedbacktype;
	int hardbounce;
	const char *lhost;
	const char *listid;
	const char *messageid;
	const char *origin;
	const char *reason;
	const char *recipient;
	const char *replycode;       /* "550" or "" */
	const char *rhost;
	const char *command;         /* SMTP command the failure answered */
	const char *senderdomain;
	const char *subject;
	int64_t timestamp;           /* Unix seconds, 0 when unknown */
	const char *timezoneoffset;  /* "+0900" */
	const char *token;
	int retry;
	unsigned issues;
	const char *advice;          /* retry, suppress-recipient, ... */
	const char *const *fixer;    /* who acts: "sender", "sender-admin", "recipient", "recipient-admin" */
	const char *const *evidence; /* the rules and rows that decided, in order */
	const char *label;           /* the label a user rule set, "" when none (JSON: left out) */
	const char *esp;             /* ESP events: the service ("ses"), else NULL or "" */
	const char *esp_event;       /* its own type and sub-type ("bounce/Permanent/General") */
} smtpdiag_fact;

/* Decoder options. */
enum {
	SMTPDIAG_DECODE_DELIVERED = 1u << 0, /* also report successful deliveries */
	SMTPDIAG_DECODE_VACATION = 1u << 1,  /* also report auto-replies */
	SMTPDIAG_DECODE_NO_DELAYED = 1u << 2, /* leave out delay warnings: records whose
						action is delayed (RFC 3464: the MTA
						will still try); expired ones stay */
	SMTPDIAG_DECODE_ALL_EVENTS = 1u << 3, /* ESP events: also deliveries, opens, clicks */
	SMTPDIAG_DECODE_REASONS_SISIMAI = 1u << 4 /* keep the reference decoder's (Sisimai's)
						     reading where it differs from the one
						     verdict explain and scan give (a 4xx in a
						     delay notice is expired, a recipient phrase
						     with no command is filtered, ...: the table
						     in docs/reasons.md, "Modes"); the default is
						     the one verdict */
};

typedef struct smtpdiag_decoder smtpdiag_decoder;

/* A decoder holds the working memory reused from one message to the next.
 * Not thread-safe: use one per thread. Free with smtpdiag_decoder_free().
 * NULL when out of memory, when the reason database cannot be loaded, or when
 * flags has a bit no SMTPDIAG_DECODE_* names. */
smtpdiag_decoder *smtpdiag_decoder_new(unsigned flags);
void smtpdiag_decoder_free(smtpdiag_decoder *d);
/* Ask these user rules first (NULL: none again). The rules are not copied:
 * they must outlive the decoder or the next call. Returns 0, SMTPDIAG_EINVAL
 * (d is NULL) or SMTPDIAG_ENOMEM (no scratch space; the rules are not attached). */
int smtpdiag_decoder_set_rules(smtpdiag_decoder *d, const smtpdiag_rules *rules);

/* Decode one email. origin (may be NULL) is copied into each fact. Returns the
 * number of facts (0: not a bounce) or a negative SMTPDIAG_E* code. The facts
 * stay valid until the next call on the same decoder or its free. When the
 * email names more than SMTPDIAG_MAX_RECIPIENTS recipients, the facts of the
 * first ones are returned and err (when not NULL) is set to SMTPDIAG_ELIMIT
 * with a message that names the limit; otherwise a non-negative return leaves
 * err->code 0. */
int smtpdiag_decode(smtpdiag_decoder *d, const char *msg, size_t len,
		    const char *origin, smtpdiag_error *err);
const smtpdiag_fact *smtpdiag_decoder_fact(const smtpdiag_decoder *d, size_t i);

/* Append a fact as one JSON object (no trailing newline). */
void smtpdiag_fact_json(const smtpdiag_fact *f, smtpdiag_buf *out);

/* What a decode of one input (an email, an mbox, ESP events) found, as the
 * answer of POST /api/v1/decode and smtpdiag_call() counts it: messages =
 * bounces + not_bounces + errors (for ESP events: events, those that gave
 * facts, those with nothing to say, the malformed); results = the facts. */
typedef struct smtpdiag_decode_counts {
	size_t messages, bounces, not_bounces, errors, results;
} smtpdiag_decode_counts;
/* Append {"results":[R],"counts":{...},"errors":[E]} (no trailing newline):
 * results and errors are the members already written, comma-separated
 * (smtpdiag_fact_json objects; {"origin","error"} objects), or empty. */
void smtpdiag_decode_answer_json(const char *results, size_t rlen, const char *errors, size_t elen,
				 const smtpdiag_decode_counts *c, smtpdiag_buf *out);

/* ---- ESP events ----
 * Webhook bodies of sending services (SES, SendGrid, Mailgun, Postmark,
 * SparkPost, Mandrill, Brevo, Mailjet, Postal, Resend, MailerSend, Mailtrap,
 * UniSender Go; and the MTAs KumoMTA and PowerMTA, whose webhooks post their
 * log and accounting records) as each posts them: one body, a JSON array of bodies or
 * events, JSON Lines of bodies, or a form-encoded post. Each bounce, deferral,
 * complaint or rejection becomes one fact per recipient, decided by the same
 * verdict engine as a bounce email, with esp and esp_event set. */

typedef struct smtpdiag_event_counts {
	size_t events;  /* events read: decided + ignored + errors */
	size_t decided; /* events that gave facts */
	size_t ignored; /* events with nothing to say (sends, deliveries, opens ...) */
	size_t errors;  /* malformed JSON, events of no known service, events over
			   SMTPDIAG_MAX_RECIPIENTS (whose first facts are given) */
	size_t facts;   /* facts given */
} smtpdiag_event_counts;

#define SMTPDIAG_MAX_EVENT_ERRORS 100 /* errors reported one by one per call; then one "and N more" */
#define SMTPDIAG_MAX_RECIPIENTS 1024  /* facts from one message or event; more is an error */

/* Called with each fact (e NULL), or with each error (f NULL): e->message says
 * where ("line 3, column 7: ..."). Both live only during the call. After
 * SMTPDIAG_MAX_EVENT_ERRORS errors, the others are only counted, and one last
 * call says how many there were: e->code SMTPDIAG_ELIMIT, "and N more errors ...". */
typedef void (*smtpdiag_event_fn)(void *arg, const smtpdiag_fact *f, const smtpdiag_error *e);

/* The whole answer to "decode this", as POST /api/v1/decode and smtpdiag_call()
 * give it: p is one email, or an mbox (as smtpdiag_mbox_detect() tells); every
 * message is decoded with d, its facts written by smtpdiag_fact_json() and, when
 * it cannot be read (or is over SMTPDIAG_MAX_RECIPIENTS: its first facts and an
 * error), an {"origin","error"} record, then smtpdiag_decode_answer_json() is
 * appended to out. origin names the input: "ORIGIN" for an email, "ORIGIN:N"
 * for the Nth message of an mbox. fn (may be NULL) is called with each fact as
 * it is written (e NULL); c (may be NULL) receives the counts. Returns 0;
 * SMTPDIAG_ENOMEM (out is then unusable); or, when no message could be read and
 * none gave a fact, the last message's negative code (SMTPDIAG_ELIMIT for the
 * recipient limit) with err set, the answer appended all the same. */
int smtpdiag_decode_answer(smtpdiag_decoder *d, const char *p, size_t len, const char *origin,
			   smtpdiag_event_fn fn, void *arg, smtpdiag_decode_counts *c, smtpdiag_buf *out,
			   smtpdiag_error *err);

/* 1 when p starts like ESP event input (JSON, or a form-encoded post). */
int smtpdiag_events_detect(const char *p, size_t len);
/* Decode the events in p. esp names the service (NULL: each event's service
 * is recognised from its content). counts (may be NULL) is added to. Returns
 * the number of facts, or a negative SMTPDIAG_E* code (unknown esp). */
int smtpdiag_decode_events(smtpdiag_decoder *d, const char *p, size_t len, const char *origin,
			   const char *esp, smtpdiag_event_fn fn, void *arg,
			   smtpdiag_event_counts *counts, smtpdiag_error *err);
/* The same, with the input read from rd (a file, a pipe) a piece at a time:
 * rd(rctx, buf, cap) puts up to cap bytes in buf and returns how many, 0 at
 * the end, or -1 (then SMTPDIAG_EIO is returned, after the events read before).
 * Only the value being read is held (one body or one element of a top-level
 * array, at most SMTPDIAG_MAX_MESSAGE bytes: a longer one is an error), so
 * memory does not grow with the input. */
typedef long (*smtpdiag_read_fn)(void *rctx, char *buf, size_t cap);
int smtpdiag_decode_events_read(smtpdiag_decoder *d, smtpdiag_read_fn rd, void *rctx, const char *origin,
				const char *esp, smtpdiag_event_fn fn, void *arg,
				smtpdiag_event_counts *counts, smtpdiag_error *err);
/* The services' names ("ses", "sendgrid", ...): i from 0 until NULL. */
const char *smtpdiag_esp_name(size_t i);
/* The services whose events smtpdiag_decode_events() would read in p (esp as
 * there), as bits 1ul << i of smtpdiag_esp_name(i); 0 for none or an unknown
 * esp. Nothing is decided: for a server that checks each service's signature
 * before it decodes anything. */
unsigned long smtpdiag_events_services(const char *p, size_t len, const char *esp);
/* How many events smtpdiag_decode_events() would read in p, errors included
 * (0 for an unknown esp); nothing is decided. */
size_t smtpdiag_events_count(const char *p, size_t len, const char *esp);

/* ---- taxonomies ----
 * A verdict's category in other systems' vocabularies: "ses" (bounceType/
 * bounceSubType), "sparkpost" (bounce_class), "postmark" (Type/TypeCode),
 * "kumomta" and "powermta" (bounce categories). Tables: rules/taxonomy/. */
const char *smtpdiag_taxonomy_name(size_t i); /* i from 0 until NULL */
/* The fact's category in taxonomy name, looked up by its reason, class (4 or
 * 5) and retry ("" when it has none), NULL for an unknown name. Static string. */
const char *smtpdiag_taxonomy(const char *name, const smtpdiag_fact *f);

/* The reason vocabulary (34 names) and the advice vocabulary. */
size_t smtpdiag_reason_count(void);
const char *smtpdiag_reason_name(size_t i);
const char *smtpdiag_reason_meaning(const char *reason); /* NULL if unknown */
/* The advice vocabulary (docs/reasons.md), read from the same table as the
 * reasons: smtpdiag_advice_name(i) for i from 0 until NULL; and what to do, in
 * one sentence for a person ("Remove the address from your lists: ..."), for
 * an advice word, NULL when it is none. Static strings. */
const char *smtpdiag_advice_name(size_t i);
const char *smtpdiag_advice_words(const char *advice);

/* ---- serve helpers ---- */

/* Split an mbox (messages that start at "From " lines) in place, without copying.
 * smtpdiag_mbox_detect(): 1 when p starts like an mbox (blank lines, then "From ").
 * smtpdiag_mbox_next(): 1 and the next message as a slice of p (*msg, *msglen;
 * without its From_ line; ">From " quoting stays for smtpdiag_decode to undo), or
 * 0 at the end (or when pos, msg or msglen is NULL). *pos is the cursor: start
 * it at 0 and pass it back unchanged.
 * Split only what smtpdiag_mbox_detect() accepts: give any other buffer to
 * smtpdiag_decode whole. */
int smtpdiag_mbox_detect(const char *p, size_t len);
int smtpdiag_mbox_next(const char *p, size_t len, size_t *pos,
		       const char **msg, size_t *msglen);
/* The largest message smtpdiag_decode() takes (larger: SMTPDIAG_ELIMIT). */
#define SMTPDIAG_MAX_MESSAGE (64u << 20)

/* ---- scan ----
 * Delivery attempts read from MTA log lines: Postfix (smtp, lmtp, local,
 * virtual, error, pipe, and qmgr's expiry), Exim's main log (=> -> >> ** ==),
 * Sendmail (stat=) and OpenSMTPD (result=), bare or in syslog form (RFC 3164,
 * RFC 5424, RFC 3339 timestamps). One line is looked at at a time, so a
 * scanner works in constant memory whatever the size of the log. */

#define SMTPDIAG_SCAN_MAX_LINE (64u << 10)  /* longer lines are SMTPDIAG_ELIMIT */
#define SMTPDIAG_SCAN_MAX_RECORDS 256       /* records from one line (a Sendmail to= list) */

/* One delivery attempt. Strings are never NULL ("" when the line does not
 * give them) and belong to the scanner (see smtpdiag_scan_line). */
typedef struct smtpdiag_logrec {
	const char *format;          /* "postfix", "exim", "sendmail", "opensmtpd", "powermta",
				      * "kumomta", "exchange", "m365" (docs/logs.md) */
	int64_t timestamp;           /* Unix seconds, 0 when the line has no time */
	const char *timezoneoffset;  /* "+0100": the offset the time was read with */
	const char *host;            /* syslog host, "" in Exim's own log */
	const char *program;         /* "postfix/smtp", "exim", "sm-mta", "smtpd" */
	const char *queueid;         /* the MTA's id of the message (envelope id for OpenSMTPD) */
	const char *recipient;       /* "" on per-message lines (Postfix qmgr expiry) */
	const char *orig_recipient;  /* before aliasing: orig_to=, Exim's <...>, rcpt= */
	const char *sender;          /* when the line names it */
	const char *relay;           /* the host the MTA talked to, as logged */
	const char *action;          /* "sent", "deferred", "bounced", "expired" */
	const char *replycode;       /* the remote's reply code "550", "" when none */
	const char *status;          /* the remote's enhanced status, else the MTA's (dsn) */
	const char *dsn;             /* the MTA's own status (dsn=), "" when none */
	const char *diagnosticcode;  /* the remote's reply text, else the MTA's explanation */
	const char *command;         /* SMTP command the reply answered: CONN, RCPT, DATA ... */
	int64_t delay;               /* seconds since the message arrived, -1 when unknown */
	const char *reason;          /* decode's reasons ("delivered" when sent) */
	int hardbounce;              /* only ever set for a 5xx failure */
	int retry;
	unsigned issues;             /* SMTPDIAG_ISSUE_* of (replycode, status) */
	const char *advice;          /* decode's advice vocabulary */
	const char *const *fixer;    /* who acts, as for decode */
	const char *const *evidence; /* the rules and rows that decided, in order */
	const char *label;           /* the label a user rule set, "" when none (JSON: left out) */
	/* Reject records (action "rejected": what the MTA's own server refused a
	 * client, inbound; docs/rejects.md). "" on delivery records. */
	const char *client;          /* the client's host name as logged ("unknown" kept) */
	const char *clientip;        /* the client's IP address */
	const char *helo;            /* the name the client gave in HELO/EHLO */
	const char *stage;           /* CONNECT, HELO, MAIL, RCPT, DATA, END-OF-DATA, HEADER, BODY,
				      * POSTSCREEN, ... */
	const char *list;            /* the DNS block list zone the line names ("zen.spamhaus.org") */
	int warning;                 /* 1: logged only, nothing was refused (reject_warning,
				      * postscreen's findings) */
} smtpdiag_logrec;

/* Scanner flags. */
enum {
	SMTPDIAG_SCAN_UTC = 1u << 0  /* read times without an offset as UTC, not local time (TZ) */
};

typedef struct smtpdiag_scanner smtpdiag_scanner;

/* A scanner holds the working memory reused from one line to the next. Not
 * thread-safe: use one per thread. NULL when out of memory, when the reason
 * database cannot be loaded, or when flags has a bit no SMTPDIAG_SCAN_* names.
 * Free with smtpdiag_scanner_free(). */
smtpdiag_scanner *smtpdiag_scanner_new(unsigned flags);
void smtpdiag_scanner_free(smtpdiag_scanner *s);
/* Ask these user rules first, as smtpdiag_decoder_set_rules(). */
int smtpdiag_scanner_set_rules(smtpdiag_scanner *s, const smtpdiag_rules *rules);

/* RFC 3164 times have no year. It is taken from the reference time t (Unix
 * seconds; 0: the current time): its year, or the year before when the line's
 * month is later than the reference's. A caller reading a file passes the
 * file's modification time (the time of its last line). */
void smtpdiag_scanner_reftime(smtpdiag_scanner *s, int64_t t);

/* A new input starts: forget the columns a CSV log's header line named
 * (PowerMTA accounting, Exchange message tracking, Microsoft 365 message
 * trace). A CSV file names its columns once, at its top; a caller reading
 * several inputs with one scanner calls this before each. NULL is fine. */
void smtpdiag_scanner_reset(smtpdiag_scanner *s);

/* Read one log line (without its line end; a trailing CR is ignored). Returns
 * the number of records it holds (1, or more for a Sendmail to= list), 0 when
 * it is no delivery attempt and no reject (another program, another line of an
 * MTA), the records of a reject line having action "rejected" (all of them),
 * SMTPDIAG_EPARSE when it is a delivery line that cannot be read, and
 * SMTPDIAG_ELIMIT when it is over SMTPDIAG_SCAN_MAX_LINE bytes or names more
 * than SMTPDIAG_SCAN_MAX_RECORDS recipients. smtpdiag_scanner_rec() gives the
 * records; they stay valid until the next call on the scanner or its free. */
int smtpdiag_scan_line(smtpdiag_scanner *s, const char *line, size_t len);
const smtpdiag_logrec *smtpdiag_scanner_rec(const smtpdiag_scanner *s, size_t i);

/* Append a record as one JSON object (no trailing newline; delay is null when
 * unknown). */
void smtpdiag_logrec_json(const smtpdiag_logrec *r, smtpdiag_buf *out);

/* ---- scan messages ----
 * A joiner gathers the lines of one message (`smtpdiag scan --messages`):
 * Postfix by host and queue id (smtpd client=, pickup, cleanup message-id=,
 * qmgr from=/size=/nrcpt=, each delivery attempt, bounce's notification,
 * qmgr removed), Exim by message id (<=, => -> ** ==, Completed), Sendmail by
 * queue id (from=, to=, DSN) and OpenSMTPD by message id (smtp message,
 * smtp envelope, mta/mda delivery). Feed it every line in log order with what
 * smtpdiag_scan_line() said of it; each finished message comes out as one JSON
 * object (docs/messages.md). Memory is bounded: a message still open
 * after the window (log time since its first line) or beyond
 * SMTPDIAG_JOIN_MAX_OPEN open messages is written as it is, marked, and
 * dropped. Not thread-safe; one joiner may read many files of one run. */

#define SMTPDIAG_JOIN_WINDOW (5 * 86400)   /* default window, seconds of log time */
#define SMTPDIAG_JOIN_MAX_OPEN (4u << 20)  /* open messages kept at most */
#define SMTPDIAG_JOIN_MAX_RCPTS 1000       /* recipients listed per message */
#define SMTPDIAG_JOIN_BATCH 1000           /* messages smtpdiag_joiner_finish() appends per call */

typedef struct smtpdiag_joiner smtpdiag_joiner;

/* The counters of smtpdiag_joiner_count(). EMITTED = CLOSED + WINDOWED +
 * ATEND; OPEN is the messages held now. */
typedef enum smtpdiag_join_counter {
	SMTPDIAG_JOIN_LINES = 0,  /* lines given to smtpdiag_joiner_line() */
	SMTPDIAG_JOIN_OPEN,       /* messages open now */
	SMTPDIAG_JOIN_EMITTED,    /* message records written */
	SMTPDIAG_JOIN_CLOSED,     /* ... of which closed by their MTA's last line */
	SMTPDIAG_JOIN_WINDOWED,   /* ... still open past the window (or the open limit) */
	SMTPDIAG_JOIN_ATEND       /* ... still open at smtpdiag_joiner_finish() */
} smtpdiag_join_counter;

/* A joiner with this window in seconds of log time (0: SMTPDIAG_JOIN_WINDOW).
 * NULL when out of memory or window < 0. Free with smtpdiag_joiner_free(). */
smtpdiag_joiner *smtpdiag_joiner_new(int64_t window);
void smtpdiag_joiner_free(smtpdiag_joiner *j);
/* Join one line: s is the scanner the line was just given to and rc what
 * smtpdiag_scan_line() returned (its records are read, so call this before the
 * scanner's next line). s gives the line's time as the scanner reads it.
 * Returns 0, SMTPDIAG_EINVAL, or SMTPDIAG_ENOMEM (the line is not joined). */
int smtpdiag_joiner_line(smtpdiag_joiner *j, smtpdiag_scanner *s, int rc, const char *line, size_t len);
/* Append the messages finished so far as JSON Lines (one object and '\n'
 * each) and forget them. Returns the number appended. */
long smtpdiag_joiner_take(smtpdiag_joiner *j, smtpdiag_buf *out);
/* End of input: the messages still open are appended, marked, as by
 * smtpdiag_joiner_take(), at most SMTPDIAG_JOIN_BATCH (and those finished
 * before) per call, so that the output is written as it goes: call it until it
 * returns 0. Returns the number appended. */
long smtpdiag_joiner_finish(smtpdiag_joiner *j, smtpdiag_buf *out);
/* A counter's value; 0 for a NULL joiner or an unknown counter. */
unsigned long smtpdiag_joiner_count(const smtpdiag_joiner *j, smtpdiag_join_counter which);

/* ---- scan summary ----
 * Counts of a log's delivery records (`smtpdiag scan --summary`): the records
 * by action; the delivery records (all but rejects) by reason, recipient
 * domain (lowercased), relay and code ("550 5.1.1"),
 * the messages still deferred past RFC 5321's give-up time (section 4.5.4.1:
 * "at least 4-5 days"), and the 4xx replies the MTA turned into bounces before
 * that time (keyed "code  relay", two spaces); the reject records (action
 * "rejected") by reason, client network (clientip's /24 for IPv4, /48 for
 * IPv6, the address as logged when it is none) and block list zone (list, when
 * the record names one), with their count and how many were warnings. It also
 * keeps the caller's count of lines and inputs by outcome. Memory is bounded
 * whatever the log. */

#define SMTPDIAG_SUMMARY_MAX_KEYS 100000   /* distinct keys per table; more go to its "other" */
#define SMTPDIAG_SUMMARY_MAX_LATE 100000   /* late messages kept (by queue id); more are counted */
#define SMTPDIAG_SUMMARY_ROWS 20           /* rows written per table (text and JSON); the rest summed */
#define SMTPDIAG_SUMMARY_GIVEUP_SECONDS (5 * 86400) /* a deferral older than this is late */

/* The counters of smtpdiag_summary_count() and smtpdiag_summary_get(). The
 * reader of a log counts each line once as LINES and once as one of
 * DELIVERY (smtpdiag_scan_line() > 0), SKIPPED (0), MALFORMED (SMTPDIAG_EPARSE)
 * or OVERLIMIT (SMTPDIAG_ELIMIT, or a line too long to hand over), or REJECT
 * (> 0, and the records are rejects: action "rejected"), so that LINES =
 * DELIVERY + SKIPPED + MALFORMED + OVERLIMIT + REJECT; each input once as
 * INPUTS, and FAILED_INPUTS when it could not be read. RECORDS is counted by
 * smtpdiag_summary_add() only. */
typedef enum smtpdiag_sum_counter {
	SMTPDIAG_SUM_LINES,
	SMTPDIAG_SUM_DELIVERY,
	SMTPDIAG_SUM_SKIPPED,
	SMTPDIAG_SUM_MALFORMED,
	SMTPDIAG_SUM_OVERLIMIT,
	SMTPDIAG_SUM_INPUTS,
	SMTPDIAG_SUM_FAILED_INPUTS,
	SMTPDIAG_SUM_RECORDS,
	SMTPDIAG_SUM_REJECT,         /* lines whose records are rejects (action "rejected") */
	SMTPDIAG_SUM_NCOUNTERS
} smtpdiag_sum_counter;

typedef struct smtpdiag_summary smtpdiag_summary;

/* An empty summary (NULL when out of memory); free with smtpdiag_summary_free().
 * Not thread-safe: keep one per thread and merge them at the end. */
smtpdiag_summary *smtpdiag_summary_new(void);
void smtpdiag_summary_free(smtpdiag_summary *s);

/* Count one record. The summary copies what it keeps; r is only read during
 * the call. A key past SMTPDIAG_SUMMARY_MAX_KEYS is counted in its table's
 * "other". Returns 0, SMTPDIAG_EINVAL (NULL argument), or SMTPDIAG_ENOMEM when a
 * key could not be stored (the record is still counted, that key as "other"). */
int smtpdiag_summary_add(smtpdiag_summary *s, const smtpdiag_logrec *r);

/* Add n to a counter (not SMTPDIAG_SUM_RECORDS). Returns 0 or SMTPDIAG_EINVAL. */
int smtpdiag_summary_count(smtpdiag_summary *s, smtpdiag_sum_counter which, unsigned long n);
/* A counter's value; 0 for a NULL summary or an unknown counter. */
unsigned long smtpdiag_summary_get(const smtpdiag_summary *s, smtpdiag_sum_counter which);

/* Add from's counts into into (from is only read; for the summaries of
 * threads). Returns 0, SMTPDIAG_EINVAL (NULL, or into == from) or
 * SMTPDIAG_ENOMEM (the keys not stored are counted as "other"). */
int smtpdiag_summary_merge(smtpdiag_summary *into, const smtpdiag_summary *from);

/* Append the summary as the readable report of `scan --summary`, or as one
 * JSON object (no trailing newline):
 *   {"lines":N,"delivery":N,"skipped":N,"malformed":N,"overlimit":N,
 *    "inputs":N,"failed_inputs":N,"records":N,"reject":N,
 *    "action":T,"reason":T,"domain":T,"relay":T,"code":T,
 *    "late":{"giveup_seconds":N,"messages":N,"other":N,
 *            "rows":[{"queueid":S,"delay":N,"recipient":S,"reason":S,"status":S}],"more":N},
 *    "bounced_4xx":{"count":N, and the members of a T},
 *    "rejects":{"count":N,"warnings":N,"reason":T,"network":T,"list":T}}
 * where a table T is {"rows":[{"key":S,"count":N}],"more_keys":N,"more_count":N,"other":N}:
 * the first SMTPDIAG_SUMMARY_ROWS rows by count (then key), the keys and the
 * count of the rows left out, and the count past SMTPDIAG_SUMMARY_MAX_KEYS.
 * Late messages are the longest deferred first; "other" counts deferrals past
 * SMTPDIAG_SUMMARY_MAX_LATE. Keys are as logged ("" when the record has none).
 * Returns 0, SMTPDIAG_EINVAL or SMTPDIAG_ENOMEM (out->oom). */
int smtpdiag_summary_text(const smtpdiag_summary *s, smtpdiag_buf *out);
int smtpdiag_summary_json(const smtpdiag_summary *s, smtpdiag_buf *out);

/* ---- scan incidents ----
 * Failure records grouped into the incidents a postmaster acts on (`smtpdiag
 * scan --incidents`, docs/incidents.md). The kind comes from each record's
 * verdict (reason, status, who acts); the aggregator only groups and names:
 *   blocklist    reason blocked or badreputation: per sending address (the
 *                first address the reply quotes that is not the relay's own,
 *                else the syslog host), destination provider and the list named
 *   ratelimit    reason ratelimited: per sending address (or host) and provider
 *   deferring    other deferrals and expiries the receiving side must fix
 *                (who acts: recipient-admin; not mailboxfull): per provider
 *   tls          reason failedstarttls: per MX
 *   dns          DNS lookups that failed for now (status 4.4.3, hostunknown with
 *                4.4.4, or the MTA's DNS phrase): per MX (or the name looked up)
 *   network      other networkerror records: per MX
 *   auth         reason authfailure: per sending domain (the sender's, else the
 *                one the reply names) and provider
 *   brokencheck  reason systemerror with a block list's query error in the text
 *                (127.255.255.x, "open resolver", "query refused"): the
 *                server's own check on reject records (action "rejected", per
 *                host), a receiver's check on delivery records (per provider)
 * Every key also holds the syslog host that logged the record. The
 * provider is named from the relay by one table (google.com: Google,
 * outlook.com: Microsoft, yahoodns.net: Yahoo, ...), else it is the relay's
 * domain. Records with action deferred, bounced and expired are also counted
 * per recipient domain and hour. Memory is bounded by the limits below; what
 * does not fit is counted. */

#define SMTPDIAG_INCIDENTS_MAX 4096            /* incidents kept; records of more are counted as dropped */
#define SMTPDIAG_INCIDENT_MAX_RECIPIENTS 1024  /* distinct recipients counted per incident */
#define SMTPDIAG_INCIDENT_SAMPLE_MAX 512       /* bytes of an incident's sample reply */
#define SMTPDIAG_INCIDENT_OPEN_SECONDS 3600    /* an incident is open while its last record is this recent */
#define SMTPDIAG_INCIDENTS_MAX_DOMAINS 10000   /* recipient domains kept; more count as "other" */
#define SMTPDIAG_INCIDENTS_MAX_CELLS 200000    /* (domain, hour) cells kept; more are counted as dropped */
#define SMTPDIAG_INCIDENTS_TOP_DOMAINS 20      /* domains written by name in the hour view; the rest "other" */

typedef struct smtpdiag_incidents smtpdiag_incidents;

/* An empty aggregator (NULL when out of memory); free with
 * smtpdiag_incidents_free(). Not thread-safe: keep one per thread and merge. */
smtpdiag_incidents *smtpdiag_incidents_new(void);
void smtpdiag_incidents_free(smtpdiag_incidents *g);

/* Add one record (only read during the call). Returns 1 when it joined an
 * incident, 0 when it did not (a sent record, a failure of no incident kind,
 * or the table full: counted as dropped), SMTPDIAG_EINVAL or SMTPDIAG_ENOMEM. */
int smtpdiag_incidents_add(smtpdiag_incidents *g, const smtpdiag_logrec *r);

/* Add from's incidents and counts into into (for the aggregators of threads).
 * Returns 0, SMTPDIAG_EINVAL (NULL, or into == from) or SMTPDIAG_ENOMEM. */
int smtpdiag_incidents_merge(smtpdiag_incidents *into, const smtpdiag_incidents *from);

/* The number of incidents, and of those open at time now (Unix seconds): the
 * last record at most SMTPDIAG_INCIDENT_OPEN_SECONDS before now. */
size_t smtpdiag_incidents_count(const smtpdiag_incidents *g);
size_t smtpdiag_incidents_open(const smtpdiag_incidents *g, int64_t now);

/* Append the incidents as JSON Lines, most records first: one
 *   {"type":"incident","kind":S,"ip":S,"host":S,"provider":S,"list":S,"mx":S,
 *    "domain":S,"queryerror":S,"reason":S,"fixer":[S],"first":N,"last":N,
 *    "count":N,"deferred":N,"bounced":N,"expired":N,"rejected":N,
 *    "recipients":N,"recipients_capped":B,"replycode":S,"status":S,
 *    "sample":S,"advice":S}
 * per incident, then the hour view by hour, one
 *   {"type":"domain_hour","domain":S,"hour":N,"deferred":N,"bounced":N,"expired":N}
 * per domain and hour (hour: Unix seconds at the hour's start; the top
 * SMTPDIAG_INCIDENTS_TOP_DOMAINS domains, the rest as "other"), then one
 *   {"type":"incident_totals","records":N,"grouped":N,"ungrouped":N,
 *    "incidents":N,"dropped":N,"domains":N,"other_domain":N,"cells_dropped":N}.
 * smtpdiag_incidents_text() appends the readable report of the same.
 * Return 0, SMTPDIAG_EINVAL or SMTPDIAG_ENOMEM (out->oom). */
int smtpdiag_incidents_json(const smtpdiag_incidents *g, smtpdiag_buf *out);
int smtpdiag_incidents_text(const smtpdiag_incidents *g, smtpdiag_buf *out);

/* ---- store: bounce history and suppression ----
 * Verdicts (decode facts, scan records, or their JSON Lines) recorded in a
 * database, per recipient address: counts, first and last seen, and whether
 * the address is suppressed, by the verdict's own fields (hardbounce, reason,
 * retry, advice; nothing is decided again). URLs: "sqlite:PATH" (one file,
 * WAL, safe for several processes on one machine) or "postgresql://..." /
 * "postgres://..." (libpq; many writers). The schema is created or migrated
 * on first use. A record's key is its token, else a hash of addresser,
 * recipient, timestamp and status: adding a record twice changes nothing; of
 * two records with one key the smaller under a tie rule is kept, in any order
 * (docs/store.md). Every text is stored as UTF-8 (bytes that are not: U+FFFD;
 * in the recipient, U+FFFD and the byte's two hex digits).
 * Records are written in batches of SMTPDIAG_STORE_BATCH, one transaction each.
 * A store is not thread-safe: use one per thread (or process). */

#define SMTPDIAG_STORE_BATCH 50000         /* records per transaction */
#define SMTPDIAG_STORE_MAX_LINE (1u << 20) /* longest JSON line (SMTPDIAG_ELIMIT) */
#define SMTPDIAG_STORE_MAX_URL 4096

typedef struct smtpdiag_store smtpdiag_store;

/* Suppression policy (docs/store.md). soft_limit and soft_window_days are
 * applied when records are added (give every writer the same), the rest when
 * the store is asked. Days of 0 mean "until released". */
typedef struct smtpdiag_policy {
	int hard;             /* 1: a hard bounce suppresses at once (1) */
	int complaint;        /* 1: a complaint (reason feedback) suppresses at once (1) */
	int hard_days;        /* how long a hard bounce suppresses (0: until released) */
	int complaint_days;   /* how long a complaint suppresses (0) */
	int soft_limit;       /* soft bounces after the last delivery that suppress (5) ... */
	int soft_window_days; /* ... when they fall within this many days (14) ... */
	int soft_days;        /* ... for this many days after the last of them (30) */
} smtpdiag_policy;

#define SMTPDIAG_POLICY_MAX_DAYS 36500
#define SMTPDIAG_POLICY_MAX_SOFT 1000

/* The defaults above. */
void smtpdiag_policy_init(smtpdiag_policy *p);
/* Set one key ("soft_limit", "soft_window_days", "soft_days", "hard",
 * "complaint", "hard_days", "complaint_days"; hard and complaint take on/off)
 * from its text value. SMTPDIAG_EINVAL for an unknown key or a bad value. */
int smtpdiag_policy_set(smtpdiag_policy *p, const char *key, const char *value, smtpdiag_error *err);
/* Read "key = value" lines ('#' starts a comment). SMTPDIAG_EPARSE names the line. */
int smtpdiag_policy_parse(smtpdiag_policy *p, const char *text, size_t len, smtpdiag_error *err);

/* Open (and create or migrate) the store at url with policy pol (NULL: the
 * defaults; copied). On success *out is the caller's; close it with
 * smtpdiag_store_close(), which drops records not yet flushed. */
int smtpdiag_store_open(const char *url, const smtpdiag_policy *pol, smtpdiag_store **out,
			smtpdiag_error *err);
void smtpdiag_store_close(smtpdiag_store *s);

/* How smtpdiag_store_open_with() opens a store. */
typedef struct smtpdiag_store_options {
	int read_only;    /* 1: for reading only: nothing is created or migrated and writes
			   * fail; an SQLite file is opened mode=ro, and immutable when its
			   * directory is not writable (docs/store.md, "Read-only stores") */
	unsigned wait_ms; /* how long a statement waits for another writer's lock before
			   * SMTPDIAG_ESTORE; 0: SQLite SMTPDIAG_STORE_WAIT_MS, PostgreSQL no limit */
} smtpdiag_store_options;
#define SMTPDIAG_STORE_WAIT_MS 60000
/* smtpdiag_store_open() with options (NULL: the defaults, as smtpdiag_store_open). */
int smtpdiag_store_open_with(const char *url, const smtpdiag_policy *pol,
			     const smtpdiag_store_options *o, smtpdiag_store **out, smtpdiag_error *err);

/* Add one verdict: a JSON object of decode's or scan's output (one line,
 * without its line end), a decode fact, or a scan record. Each call counts one
 * record read. A record that is no verdict (bad JSON, no recipient, a field
 * of the wrong type or over its limit) is counted as an error and returns
 * SMTPDIAG_EPARSE or SMTPDIAG_ELIMIT; the store goes on. When a batch is full
 * it is written: SMTPDIAG_ESTORE then means the batch was not recorded (its
 * records are counted as errors). The strings are only read during the call. */
int smtpdiag_store_add_json(smtpdiag_store *s, const char *line, size_t len, smtpdiag_error *err);
int smtpdiag_store_add_fact(smtpdiag_store *s, const smtpdiag_fact *f, smtpdiag_error *err);
int smtpdiag_store_add_logrec(smtpdiag_store *s, const smtpdiag_logrec *r, smtpdiag_error *err);
/* Write the records added since the last batch, in one transaction. */
int smtpdiag_store_flush(smtpdiag_store *s, smtpdiag_error *err);

/* read = recorded + duplicates + errors + pending (added, not yet written). */
typedef struct smtpdiag_store_counts {
	uint64_t read, recorded, duplicates, errors, pending;
} smtpdiag_store_counts;
void smtpdiag_store_counts_get(const smtpdiag_store *s, smtpdiag_store_counts *c);

/* The state of one address. Strings are never NULL and live during the callback. */
typedef struct smtpdiag_addr_state {
	const char *address;     /* lowercased */
	const char *domain;
	int suppressed;
	const char *cause;       /* "hard", "complaint", "soft", or "" */
	const char *reason;      /* of the suppressing event, else of the last event */
	const char *status;
	const char *replycode;
	int64_t since;           /* suppressed since (event time), 0 when not */
	int64_t until;           /* suppressed until; 0 when until released or not suppressed */
	int64_t first_seen, last_seen;
	uint64_t events, hard, complaints, soft, deferred, delivered, sender, other;
	int64_t released_at;     /* 0 when never released */
	const char *released_by;
} smtpdiag_addr_state;

/* One recorded event of an address's history. */
typedef struct smtpdiag_store_event {
	const char *key;
	const char *kind;        /* hard, complaint, soft, deferred, delivered, sender, other */
	int64_t timestamp;
	const char *reason, *status, *replycode, *action, *advice;
	const char *addresser, *senderdomain, *origin, *diagnosticcode;
	int hardbounce, retry;
} smtpdiag_store_event;

typedef int (*smtpdiag_addr_fn)(void *ctx, const smtpdiag_addr_state *a);
typedef int (*smtpdiag_store_event_fn)(void *ctx, const smtpdiag_store_event *e);
/* A count of the store's tables: table is "total", "kind", "reason", "domain",
 * "day" (YYYY-MM-DD, UTC), "sender-domain", "sender-ip", "state".
 * The complaint rate: smtpdiag_store_complaint_rates(). */
typedef int (*smtpdiag_stat_fn)(void *ctx, const char *table, const char *key, uint64_t count);

/* Which addresses: all given conditions hold (NULL / 0: any). */
typedef struct smtpdiag_store_filter {
	const char *domain;      /* the address's domain (case-insensitive) */
	const char *reason;      /* the suppressing reason */
	int64_t since;           /* suppressed at or after this time */
	int64_t now;             /* the time to judge at (0: now) */
	const char *after;       /* only addresses after this one, in address order
				  * (the last of the previous page; NULL: from the first) */
} smtpdiag_store_filter;

/* Call fn for each suppressed address (by address). A callback's non-zero
 * return stops the walk and is returned: with f->after, a page at a time. */
int smtpdiag_store_suppressed(smtpdiag_store *s, const smtpdiag_store_filter *f,
			      smtpdiag_addr_fn fn, void *ctx, smtpdiag_error *err);
/* An address's state (fn once) and history (ev once per event, oldest first).
 * SMTPDIAG_ENOTFOUND when the store does not know it. now 0: now. */
int smtpdiag_store_show(smtpdiag_store *s, const char *address, int64_t now, smtpdiag_addr_fn fn,
			smtpdiag_store_event_fn ev, void *ctx, smtpdiag_error *err);
/* End the address's suppression at time now (0: now), recorded with by.
 * Returns 1 when it was suppressed, 0 when not, SMTPDIAG_ENOTFOUND when unknown.
 * Events dated after the release suppress again. */
int smtpdiag_store_release(smtpdiag_store *s, const char *address, const char *by, int64_t now,
			   smtpdiag_error *err);
/* Counts by kind, reason, recipient domain, day, sending domain and IP of
 * sender-side failures, and address states; rows of a table by count, then key. */
int smtpdiag_store_stats(smtpdiag_store *s, int64_t now, smtpdiag_stat_fn fn, void *ctx, smtpdiag_error *err);

/* The complaint rate of one sending domain on one day (docs/complaints.md):
 * complaints (kinds complaint and complaint-redacted) over deliveries (kind
 * delivered) of the records naming that sending domain (lowercased), dated
 * that day (UTC). Gmail's and Yahoo's sender guidelines hold bulk senders
 * under SMTPDIAG_COMPLAINT_RATE_LIMIT and recommend staying under
 * SMTPDIAG_COMPLAINT_RATE_CEILING. Strings live during the callback. */
#define SMTPDIAG_COMPLAINT_RATE_CEILING 0.001 /* 0.1%: the recommended ceiling */
#define SMTPDIAG_COMPLAINT_RATE_LIMIT 0.003   /* 0.3%: the limit */
typedef struct smtpdiag_complaint_rate {
	const char *senderdomain; /* "" when the records name none */
	const char *day;          /* YYYY-MM-DD */
	uint64_t complaints, delivered;
	double rate;              /* complaints / delivered; -1 when no delivery is recorded */
	const char *level;        /* "unknown" (no delivery recorded), "ok" (under the
				   * ceiling), "over-ceiling" (at or over 0.1%, under
				   * 0.3%), "over-limit" (at or over 0.3%) */
} smtpdiag_complaint_rate;
typedef int (*smtpdiag_complaint_rate_fn)(void *ctx, const smtpdiag_complaint_rate *r);
/* Call fn for each sending domain and day with at least one complaint, by day,
 * then domain (bytewise); at most SMTPDIAG_COMPLAINT_RATE_MAX_ROWS rows, the
 * newest days kept. A callback's non-zero return stops the walk and is returned. */
#define SMTPDIAG_COMPLAINT_RATE_MAX_ROWS 100000
int smtpdiag_store_complaint_rates(smtpdiag_store *s, smtpdiag_complaint_rate_fn fn, void *ctx,
				   smtpdiag_error *err);
/* Delete events older than before (Unix seconds), and addresses last seen
 * before it that are not suppressed. The counts deleted go to *events and *addrs. */
int smtpdiag_store_prune(smtpdiag_store *s, int64_t before, uint64_t *events, uint64_t *addrs,
			 smtpdiag_error *err);

/* ---- store: the outbox of webhooks out (docs/webhooks-out.md) ----
 * With smtpdiag_store_outbox() set, each batch also writes, in its own
 * transaction, one outbox item per new record (SMTPDIAG_OUTBOX_VERDICTS) or
 * per address that becomes suppressed (SMTPDIAG_OUTBOX_SUPPRESSIONS; and
 * smtpdiag_store_release() of a suppressed address writes "released"). An
 * item's body is JSON: {"id","event":"verdict"|"suppressed"|"released",
 * "address","record":{...}} (a suppression also has "state"). Items are taken
 * in the order they were written, per address: smtpdiag_store_outbox_next()
 * gives only the oldest pending item of each address, when it is due. The
 * sender says how each went with smtpdiag_store_outbox_done(); a retry is due
 * SMTPDIAG_OUTBOX_RETRY_FIRST seconds later, doubling with each try, at most
 * SMTPDIAG_OUTBOX_RETRY_MAX. Delivered items are kept (their ids are not sent
 * again) until smtpdiag_store_prune() deletes those written before its time. */
#define SMTPDIAG_OUTBOX_VERDICTS 1
#define SMTPDIAG_OUTBOX_SUPPRESSIONS 2
#define SMTPDIAG_OUTBOX_RETRY_FIRST 1      /* seconds before the first retry */
#define SMTPDIAG_OUTBOX_RETRY_MAX 600      /* seconds between retries at most */
#define SMTPDIAG_OUTBOX_MAX_ANSWER 200     /* bytes of a receiver's answer kept */
#define SMTPDIAG_OUTBOX_MAX_NEXT 1000      /* items one smtpdiag_store_outbox_next() gives at most */

/* Which items the records added from now write: 0 (none, the default),
 * SMTPDIAG_OUTBOX_VERDICTS or SMTPDIAG_OUTBOX_SUPPRESSIONS. SMTPDIAG_EINVAL
 * for another value, or when a batch is open. */
int smtpdiag_store_outbox(smtpdiag_store *s, int events, smtpdiag_error *err);

/* One item. Strings are never NULL and live during the callback. */
typedef struct smtpdiag_outbox_item {
	const char *id;          /* the delivery id: the same on every try */
	const char *address;     /* "" when the record names no recipient */
	const char *event;       /* "verdict", "suppressed" or "released" */
	const char *body;        /* the JSON body */
	int tries;               /* tries made so far */
	int64_t created;         /* when it was written (Unix seconds) */
} smtpdiag_outbox_item;
typedef int (*smtpdiag_outbox_fn)(void *ctx, const smtpdiag_outbox_item *it);

/* The items due at now (0: now), at most max (1..SMTPDIAG_OUTBOX_MAX_NEXT),
 * oldest first, each the oldest pending item of its address, to fn (non-zero
 * stops and is returned). */
int smtpdiag_store_outbox_next(smtpdiag_store *s, int64_t now, unsigned max, smtpdiag_outbox_fn fn,
			       void *ctx, smtpdiag_error *err);

enum {
	SMTPDIAG_OUTBOX_DELIVERED = 0, /* the receiver took it */
	SMTPDIAG_OUTBOX_RETRY = 1,     /* try again later (the backoff above) */
	SMTPDIAG_OUTBOX_FAILED = 2     /* the receiver refused it for good: kept, not sent again */
};
/* How the try of item id went, at now (0: now), with the receiver's answer
 * (NULL: none; cut to SMTPDIAG_OUTBOX_MAX_ANSWER bytes). SMTPDIAG_ENOTFOUND
 * when no pending item has that id. */
int smtpdiag_store_outbox_done(smtpdiag_store *s, const char *id, int outcome, const char *answer,
			       int64_t now, smtpdiag_error *err);

typedef struct smtpdiag_outbox_counts {
	uint64_t pending;        /* not delivered yet ... */
	uint64_t due;            /* ... of which due at now */
	uint64_t failed;         /* refused for good */
	uint64_t delivered;
	int64_t next_at;         /* when the next pending item is due (0: none pending) */
} smtpdiag_outbox_counts;
int smtpdiag_store_outbox_counts(smtpdiag_store *s, int64_t now, smtpdiag_outbox_counts *c,
				 smtpdiag_error *err);
/* Every failed item pending again, due at once; their number to *n (may be NULL). */
int smtpdiag_store_outbox_retry(smtpdiag_store *s, uint64_t *n, smtpdiag_error *err);
/* Where a bounce mailbox was read up to (docs/mailbox.md). mailbox names it
 * (smtpdiag uses its URL without a password; at most SMTPDIAG_STORE_MAX_MAILBOX
 * bytes). An IMAP folder: its UIDVALIDITY and the highest UID read;
 * smtpdiag_store_mailbox_get() returns 0, or SMTPDIAG_ENOTFOUND when the
 * mailbox was never read. A POP3 mailbox: the UIDL of each message read
 * (1 to SMTPDIAG_STORE_MAX_UIDL bytes); smtpdiag_store_uidl_seen() returns 1
 * when uidl was added, 0 when not. Each set or add is its own transaction:
 * call it after the message's records are flushed (smtpdiag_store_flush), so
 * a run cut short reads a message again rather than never. */
#define SMTPDIAG_STORE_MAX_MAILBOX 1024
#define SMTPDIAG_STORE_MAX_UIDL 70 /* RFC 1939 */
int smtpdiag_store_mailbox_get(smtpdiag_store *s, const char *mailbox, int64_t *uidvalidity,
			       int64_t *last_uid, smtpdiag_error *err);
int smtpdiag_store_mailbox_set(smtpdiag_store *s, const char *mailbox, int64_t uidvalidity,
			       int64_t last_uid, smtpdiag_error *err);
int smtpdiag_store_uidl_seen(smtpdiag_store *s, const char *mailbox, const char *uidl, smtpdiag_error *err);
int smtpdiag_store_uidl_add(smtpdiag_store *s, const char *mailbox, const char *uidl, smtpdiag_error *err);

/* Append as one JSON object (no trailing newline). */
void smtpdiag_addr_state_json(const smtpdiag_addr_state *a, smtpdiag_buf *out);
void smtpdiag_store_event_json(const smtpdiag_store_event *e, smtpdiag_buf *out);

/* ---- one entry point taking and returning JSON (for bindings) ----
 * int smtpdiag_call(request, len, &answer, &answer_len): request is one JSON
 * object (UTF-8, len bytes, no NUL needed):
 *   {"op": "explain" | "decode" | "scan" | "version",
 *    "input": "<text>"  or  "input_base64": "<bytes in base64>",
 *    "mode": "default" | "sisimai"}
 * Exactly one of input and input_base64 is given (neither for "version");
 * input_base64 carries 8-bit emails and any bytes a JSON string cannot.
 * "mode" (optional, "default") is decode's reason mode (sisimai:
 * SMTPDIAG_DECODE_REASONS_SISIMAI); explain and scan have only the default.
 * Any other member, or a member of the wrong type, is an error naming it.
 * The answer is always one JSON object (no trailing newline), NUL-terminated,
 * allocated: the caller frees it with smtpdiag_call_free():
 *   explain: the object smtpdiag_explanation_json() writes (`smtpdiag explain
 *            --json`); the input is read as SMTPDIAG_EXPLAIN_AUTO (a code, a
 *            pair or reply text), and when that finds nothing, as a pasted
 *            bounce (SMTPDIAG_EXPLAIN_FILE).
 *   decode:  an email, an mbox or ESP webhook events (as `smtpdiag decode`
 *            tells them apart), answered as smtpdiag_decode_answer() writes it:
 *            {"results":[facts],"counts":{"messages","bounces","not_bounces",
 *            "errors","results"},"errors":[{"origin","error"}]}; origins are
 *            "input", or "input:N" for the Nth message of an mbox.
 *   scan:    the input as MTA log lines: {"results":[smtpdiag_logrec_json],
 *            "counts":{"lines","records","not_records","errors","results"},
 *            "errors":[{"origin":"line N","error"}]}; lines = records (lines
 *            holding delivery attempts) + not_records + errors.
 *   version: {"version":"0.1.0","license":"BSD-2-Clause"}.
 * Returns 0, or a negative SMTPDIAG_E* code: SMTPDIAG_EPARSE (not JSON, not
 * an object, bad base64), SMTPDIAG_EINVAL (unknown op, mode or member, input
 * missing or given twice; explain's own errors), SMTPDIAG_ELIMIT (request
 * over SMTPDIAG_CALL_MAX_REQUEST bytes, input over SMTPDIAG_MAX_MESSAGE bytes,
 * explain over SMTPDIAG_MAX_QUERY), SMTPDIAG_ENOTFOUND (explain found
 * nothing), SMTPDIAG_ENOMEM. On failure *answer is still set, when memory
 * allows, to {"error":{"code":"<short code>","message":"..."}}, the short
 * code one of "invalid", "nomem", "limit", "parse", "notfound", "io",
 * "store"; *answer is NULL only when even that could not be allocated (or an
 * argument is NULL: SMTPDIAG_EINVAL). A decode or scan whose input has
 * unreadable parts still returns 0 and lists them in "errors". Thread-safe:
 * each call has its own decoder or scanner. */
#define SMTPDIAG_CALL_MAX_REQUEST ((SMTPDIAG_MAX_MESSAGE / 3 + 1) * 4 + 4096u)
int smtpdiag_call(const char *request, size_t len, char **answer, size_t *answer_len);
/* Free an answer of smtpdiag_call() (NULL: nothing). */
void smtpdiag_call_free(char *answer);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif
