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
 * body) while skipping dates, times, IPs, versions, ports and queue ids. A reply
 * code directly followed by a status is one pair. Returns the count (<= max). */
size_t sd_find_codes(const char *p, size_t n, sd_found *out, size_t max);

/* The pair that matters: the first failure (4xx/5xx) with a status, else the
 * first failure, else the first. Returns index or -1. */
int sd_pick_code(const sd_found *f, size_t n);

#endif
