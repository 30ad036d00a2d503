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
	SMTPDIAG_EIO = -6       /* reading input failed */
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
typedef struct smtpdiag_explanation {
	const char *query;      /* the input as given (possibly cut at the limit) */
	int replycode;          /* 0 when none */
	const char *status;     /* enhanced status as written, "" when none */
	smtpdiag_class klass;
	int retry;              /* 1: safe and right to retry later */
	int standard;           /* 1: every code found is defined and used in an allowed class */
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
	const char *fixer;        /* "sender", "recipient-admin", ... comma list */
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
} smtpdiag_explanation;

enum {
	SMTPDIAG_EXPLAIN_CODE = 0, /* "431", "4.3.1", "X.3.1", "552 4.3.1", "552-4.3.1" */
	SMTPDIAG_EXPLAIN_TEXT = 1, /* reply line(s): "550-5.1.1 ...\r\n550 5.1.1 ..." */
	SMTPDIAG_EXPLAIN_FILE = 2  /* any pasted text: a bounce, an NDR, a log fragment */
};

/* Explain a query. On success *out is a new object the caller frees with
 * smtpdiag_explanation_free(). Errors: SMTPDIAG_EINVAL (empty, not a code,
 * impossible class, binary; out NULL, mode not one of SMTPDIAG_EXPLAIN_*),
 * SMTPDIAG_ELIMIT (over SMTPDIAG_MAX_QUERY bytes), SMTPDIAG_ENOTFOUND (text
 * mode: no code or failure found). */
#define SMTPDIAG_MAX_QUERY (1u << 20)
int smtpdiag_explain(const char *q, size_t len, int mode,
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
} smtpdiag_fact;

/* Decoder options. */
enum {
	SMTPDIAG_DECODE_DELIVERED = 1u << 0, /* also report successful deliveries */
	SMTPDIAG_DECODE_VACATION = 1u << 1   /* also report auto-replies */
};

typedef struct smtpdiag_decoder smtpdiag_decoder;

/* A decoder holds the working memory reused from one message to the next.
 * Not thread-safe: use one per thread. Free with smtpdiag_decoder_free().
 * NULL when out of memory, when the reason database cannot be loaded, or when
 * flags has a bit no SMTPDIAG_DECODE_* names. */
smtpdiag_decoder *smtpdiag_decoder_new(unsigned flags);
void smtpdiag_decoder_free(smtpdiag_decoder *d);

/* Decode one email. origin (may be NULL) is copied into each fact. Returns the
 * number of facts (0: not a bounce) or a negative SMTPDIAG_E* code. The facts
 * stay valid until the next call on the same decoder or its free. */
int smtpdiag_decode(smtpdiag_decoder *d, const char *msg, size_t len,
		    const char *origin, smtpdiag_error *err);
const smtpdiag_fact *smtpdiag_decoder_fact(const smtpdiag_decoder *d, size_t i);

/* Append a fact as one JSON object (no trailing newline). */
void smtpdiag_fact_json(const smtpdiag_fact *f, smtpdiag_buf *out);

/* The reason vocabulary (34 names) and the advice vocabulary. */
size_t smtpdiag_reason_count(void);
const char *smtpdiag_reason_name(size_t i);
const char *smtpdiag_reason_meaning(const char *reason); /* NULL if unknown */

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
	const char *format;          /* "postfix", "exim", "sendmail", "opensmtpd" */
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

/* RFC 3164 times have no year. It is taken from the reference time t (Unix
 * seconds; 0: the current time): its year, or the year before when the line's
 * month is later than the reference's. A caller reading a file passes the
 * file's modification time (the time of its last line). */
void smtpdiag_scanner_reftime(smtpdiag_scanner *s, int64_t t);

/* Read one log line (without its line end; a trailing CR is ignored). Returns
 * the number of records it holds (1, or more for a Sendmail to= list), 0 when
 * it is no delivery attempt (another program, another line of an MTA),
 * SMTPDIAG_EPARSE when it is a delivery line that cannot be read, and
 * SMTPDIAG_ELIMIT when it is over SMTPDIAG_SCAN_MAX_LINE bytes or names more
 * than SMTPDIAG_SCAN_MAX_RECORDS recipients. smtpdiag_scanner_rec() gives the
 * records; they stay valid until the next call on the scanner or its free. */
int smtpdiag_scan_line(smtpdiag_scanner *s, const char *line, size_t len);
const smtpdiag_logrec *smtpdiag_scanner_rec(const smtpdiag_scanner *s, size_t i);

/* Append a record as one JSON object (no trailing newline; delay is null when
 * unknown). */
void smtpdiag_logrec_json(const smtpdiag_logrec *r, smtpdiag_buf *out);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif
