/* scan.h - internals of the log scanner (scan*.c).
 *
 * A line goes through three steps:
 *  1. scan_syslog.c reads the envelope of the line: the time (RFC 3164,
 *     RFC 5424, RFC 3339, Exim's own), the host and the program, and finds
 *     the message text (sd_logline.h).
 *  2. One reader per MTA family (scan_postfix.c, scan_exim.c, scan_sendmail.c,
 *     scan_opensmtpd.c) turns the message into raw records: slices of the
 *     line, nothing decided yet.
 *  3. scan.c turns each raw record into a smtpdiag_logrec: codes, time,
 *     delay, and the verdict decode would give for the same reply.
 * Every reader takes slices and never relies on a NUL. */
#ifndef SD_SCAN_H
#define SD_SCAN_H

#include "smtpdiag.h"
#include "core/util.h"

#define SD_SCAN_MAX_LINE SMTPDIAG_SCAN_MAX_LINE       /* bytes of one line */
#define SD_SCAN_MAX_RECORDS SMTPDIAG_SCAN_MAX_RECORDS /* records of one line */

/* What a delivery attempt came to. */
enum { SD_ACT_NONE = 0, SD_ACT_SENT, SD_ACT_DEFERRED, SD_ACT_BOUNCED, SD_ACT_EXPIRED,
       SD_ACT_REJECTED /* the MTA's own server refused a client (scan_reject.c) */ };

/* A time as written. off is in minutes east of UTC when has_off. */
typedef struct sd_logtime {
	int year, mon, day, hour, min, sec;
	int has_year, has_off, off;
} sd_logtime;

/* The envelope of a line (step 1). */
typedef struct sd_loghdr {
	sd_logtime time;
	int has_time;
	sd_str host, program;
	sd_str msg;        /* the text after the program's tag */
	int exim;          /* an Exim main log line: msg starts at the message id */
} sd_loghdr;

/* One delivery attempt as read (step 2); every sd_str is a slice of the line. */
typedef struct sd_lograw {
	int action;        /* SD_ACT_* */
	sd_str queueid, recipient, orig, sender, relay, dsn;
	sd_str text;       /* the MTA's explanation, whole */
	sd_str reply;      /* the remote's reply inside text ("550 5.1.1 ..."), if any */
	sd_str command;    /* the SMTP command as written ("RCPT TO", "end of DATA") */
	int64_t delay;     /* seconds since arrival, -1 when the line does not say */
	int local;         /* the text is a local delivery program's (X-UNIX) */
	int own_words;     /* the text is a local delivery agent's own report (Postfix's
			    * local, virtual, pipe): its diagnostic is the text whole,
			    * as the agent's DSN gives it, not only a reply quoted in it */
	/* a reject (SD_ACT_REJECTED) */
	sd_str client, clientip, helo, list;
	const char *stage;  /* "RCPT", ... (a literal) */
	int warning;        /* logged only: nothing was refused */
	int cls;            /* 4 or 5 when the line says the class but logs no reply code */
	const char *hint;   /* a reason name the line's kind implies (postscreen's tests), or NULL */
	int log_words;      /* text is the MTA's own log words, no reply: the verdict reads none of it */
} sd_lograw;

/* A line being read. */
typedef struct sd_logline {
	sd_loghdr h;
	const char *format;   /* "postfix", ... */
	sd_logtime inner;     /* Exim's own time inside a syslog line */
	int has_inner;
	int64_t arrival;      /* Unix time the message arrived (Exim ids), 0 when unknown */
	sd_lograw *recs;      /* SD_SCAN_MAX_RECORDS of them */
	size_t n;
} sd_logline;

/* ---- step 1: scan_syslog.c ---- */

/* Read the envelope. Returns 1 when the line has one of the known forms. */
int sd_loghdr_parse(const char *p, size_t n, sd_loghdr *h);
/* An ISO 8601 / RFC 3339 time at p ("2024-01-12T10:15:01.5+01:00", the 'T' may
 * be a space). Returns the bytes read or 0. */
size_t sd_logtime_iso(const char *p, size_t n, sd_logtime *t);
/* Exim's own line start "YYYY-MM-DD HH:MM:SS[.fff][ +zzzz][ [pid]] " before a
 * message id: the offset of the id (t gets the time), or 0. */
size_t sd_exim_prefix(const char *p, size_t n, sd_logtime *t);
/* Does an Exim reject line without a message id start at p ("H=... rejected
 * RCPT ...", scan_reject.c)? */
int sd_exim_reject_at(const char *p, size_t n);
/* Length of an Exim message id at p (16 or 23 bytes), or 0. */
size_t sd_exim_id(const char *p, size_t n);
/* Arrival time encoded in an Exim message id (base 62 seconds). */
int64_t sd_exim_id_time(const char *p);

/* ---- step 2: the readers ---- */

/* Each returns the number of records added to l, 0 when the message is no
 * delivery attempt, SMTPDIAG_EPARSE or SMTPDIAG_ELIMIT. */
int sd_scan_postfix(sd_logline *l, sd_str agent);
/* Is agent (the part of the program name after its last '/') a Postfix
 * delivery agent (smtp, lmtp, local, virtual, error, retry, discard, pipe, qmgr)? */
int sd_scan_postfix_agent(sd_str agent);
int sd_scan_exim(sd_logline *l);
int sd_scan_sendmail(sd_logline *l);
int sd_scan_opensmtpd(sd_logline *l);
/* Rejects (scan_reject.c): Postfix smtpd, postscreen and cleanup lines
 * (agent "smtpd", "postscreen", "cleanup"), Exim's reject lines (the main log
 * or the reject log, after the time), Sendmail's reject= lines (after the
 * queue id, fields the rest). Same returns as the readers above. */
int sd_scan_postfix_reject(sd_logline *l, sd_str agent);
int sd_scan_exim_reject(sd_logline *l, sd_str m);
int sd_scan_sendmail_reject(sd_logline *l, sd_str qid, sd_str fields);

/* A new raw record (delay -1, all else empty), or NULL at the limit. */
sd_lograw *sd_scan_add(sd_logline *l);

/* A line's time as smtpdiag_scan_line() reads it (scan.c), for the joiner. */
int64_t sd_scanner_time(smtpdiag_scanner *s, const sd_logtime *t);
/* The envelope the scanner read of line p in its last call, NULL when it read
 * none (scan.c), for the joiner. */
const sd_loghdr *sd_scanner_hdr(const smtpdiag_scanner *s, const char *p);

/* ---- helpers for the readers (scan_util.c) ---- */

/* s from offset k on (k <= s.n). */
sd_str sd_sl_skip(sd_str s, size_t k);
/* Does s start with lit (case-sensitive)? */
int sd_sl_starts(sd_str s, const char *lit);
/* Offset of lit in s, or -1. */
long sd_sl_find(sd_str s, const char *lit);
/* The token of s up to the first byte of stop (or the end). */
sd_str sd_sl_until(sd_str s, char stop);
/* Value of the "key=" field in a comma-space list ("a=1, b=2"): up to the next
 * ", x=" (so values may hold commas and spaces); SD_NULLSTR when absent. */
sd_str sd_sl_field(sd_str s, const char *key);
/* "<a@b>" -> "a@b"; "<>" -> "". */
sd_str sd_sl_unangle(sd_str s);
/* Durations: "1068", "0.25" (seconds); "1+02:03:04", "02:03:04" (Sendmail);
 * "1d2h3m4s", "1w2d", "1.5s" (OpenSMTPD, Exim). -1 when unreadable. */
int64_t sd_sl_duration(sd_str s);
/* SMTP command named in a phrase ("RCPT TO", "end of DATA", "initial
 * connection"): a literal "RCPT", "DATA", "CONN", ... or "". */
const char *sd_sl_command(sd_str s);

#endif
