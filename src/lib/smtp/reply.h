/* reply.h - RFC 5321 reply grammar and RFC 3463 enhanced status: parse, find, validate. */
#ifndef SD_REPLY_H
#define SD_REPLY_H

#include "core/util.h"

/* An enhanced status code as written: class.subject.detail. */
typedef struct sd_status {
	int cls;        /* 2, 4 or 5 (parse also returns other digits for flagging) */
	int subject;    /* 0..999 */
	int detail;     /* 0..999 */
	char text[12];  /* as written, e.g. "5.1.1" */
} sd_status;

/* Parse a status at p exactly (class digit, '.', 1-3 digits, '.', 1-3 digits).
 * Returns bytes consumed or 0. Any class digit 0-9 is accepted here; callers
 * reject impossible classes. The next byte must not continue the code. */
size_t sd_status_parse(const char *p, size_t n, sd_status *st);

/* Is c a valid reply code per RFC 5321 grammar (2-5, 0-5, 0-9)? */
int sd_replycode_valid(int c);

/* A parsed (possibly multi-line) reply. The text joins the lines' texts with
 * one space and strips continuation prefixes and repeated statuses. */
typedef struct sd_reply {
	int code;
	sd_status status;   /* status.text[0] == 0 when absent */
	size_t nlines;
} sd_reply;

/* Parse an SMTP reply: "550-5.1.1 a\r\n550 5.1.1 b". Returns 0 or SMTPDIAG_EPARSE.
 * text (may be NULL) receives the joined text. */
int sd_reply_parse(const char *p, size_t n, sd_reply *r, sd_buf *text);

/* A code found in free text. */
typedef struct sd_found {
	int replycode;      /* 0 if only a status was found */
	sd_status status;   /* text[0] == 0 if only a reply code */
	size_t off;         /* offset of the first code in the text */
	size_t end;         /* offset after the last code of the pair */
} sd_found;

/* Find reply codes and statuses in any text (log line, Diagnostic-Code, a bounce
 * body) while skipping what only looks like one: versions ("version 5.1.1",
 * "v5.1.1"), IP addresses and dotted quads, dates and times ("4.5.23 10:30",
 * "12:30:45"), message and queue ids ("<5.1.1@host>", "550AB12"), percentages
 * and sizes ("5.1.1%", "2.5.1 MB"), and statuses with a leading zero
 * ("5.01.1"). A reply code directly followed by a status is one pair, also
 * across the line end an MTA folds a reply at ("said: 550
    5.1.1 ...").
 * Returns the count (<= max). */
size_t sd_find_codes(const char *p, size_t n, sd_found *out, size_t max);

/* The pair that matters: the first failure (4xx/5xx) with a status, else the
 * first failure, else the first. Returns index or -1. */
int sd_pick_code(const sd_found *f, size_t n);

/* ---- the code finder's choices (codes.c), over the codes sd_find_codes() reads ---- */

#define SD_STATUS_MAX 12 /* "5.7.123" plus NUL, with room */

/* The status that matters in text (class '2', '4', '5', or 0 for any), written
 * to out ("" when none): the one that says most, X.0.0 and 4.4.7 last. */
void sd_text_status(const char *p, size_t n, int cls, char out[SD_STATUS_MAX]);
/* The reply code in text, preferring class cls ('2','4','5' or 0); 0 if none
 * (and in a local mailer's "X-Unix" text). */
int sd_text_reply(const char *p, size_t n, int cls);
/* Both in one reading: the status (any class) into status, and the reply code
 * of its class (of any, without one) returned, as the two calls above give. */
int sd_text_codes(const char *p, size_t n, char status[SD_STATUS_MAX]);
/* The class digit ('2', '4', '5') of the status sd_text_status() reads in the
 * text, else of the reply code sd_text_reply() reads; 0 if none. One reading
 * of the text for both. */
int sd_text_class(const char *p, size_t n);
/* Of two statuses (a: the Status: field, b: found in the text), the one to keep,
 * given the reply code (0 when none). Returns a or b (may be ""). */
const char *sd_status_prefer(const char *a, const char *b, int reply);

#endif
