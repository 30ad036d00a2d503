/* decode.h - the decoder's internal model: what a format module fills in.
 *
 * A format module reads one parsed message (sd_ctx) and appends one sd_rcpt
 * per recipient. It only extracts what the bounce says; decode.c then decides
 * reason, status, hard/soft, retry and advice the same way for every format. */
#ifndef SD_DECODE_H
#define SD_DECODE_H

#include "smtpdiag.h"
#include "core/util.h"
#include "mime/mime.h"
#include "verdict/classify.h"

typedef struct sd_rcpt {
	sd_str recipient;      /* address only, no <> */
	sd_str alias;          /* original recipient (Original-Recipient, orig_to) */
	sd_str action;         /* failed, delayed, delivered, expanded, relayed */
	sd_str status;         /* as found: "5.1.1" */
	sd_str replycode;      /* "550" */
	sd_str diagnostic;     /* the server's text (Diagnostic-Code value, or body lines) */
	sd_str diagtype;       /* "SMTP", "X-Unix", "X-Postfix" ... */
	sd_str rhost;          /* remote host (Remote-MTA) */
	sd_str lhost;          /* reporting host (Reporting-MTA) */
	sd_str command;        /* SMTP command: HELO EHLO MAIL RCPT DATA ... */
	sd_str date;           /* Last-Attempt-Date / Arrival-Date text, if any */
	sd_str feedbacktype;   /* ARF Feedback-Type */
	int redacted;          /* a feedback report hid the complained recipient: the
				  recipient given is the report's stand-in (docs/complaints.md) */
	int reason;            /* a reason the module knows for sure, else -1 */
	int pending;           /* the report is a warning: delivery is still being tried */
	int notice;            /* a delay notice whose text is read as a failure (the
				  verdict is unchanged); reported only when asked */
	const char *decodedby; /* module name; decode.c fills it when NULL */
} sd_rcpt;

/* Facts of the original (returned) message. */
typedef struct sd_orig {
	sd_str from, to, subject, messageid, listid, date;
} sd_orig;

typedef struct sd_ctx {
	sd_arena *a;
	const char *raw;
	size_t len;
	sd_mime mime;
	const sd_part *top;     /* &mime.parts[0] */
	sd_str from, subject, date, to; /* of the bounce itself (raw header values) */
	sd_orig orig;           /* of the returned message, if found */
	sd_rcpt *rcpts;         /* arena array of SD_MAX_RECIPIENTS */
	size_t nrcpt;
	unsigned flags;         /* SMTPDIAG_DECODE_* */
	sd_classifier *cls;
	struct sd_urun *user;   /* the user's rules, asked first; NULL when none */
	int limit_hit;          /* a module cut something at a limit (recipients, text scanned) */
	int rcpt_over;          /* recipients were dropped at SD_MAX_RECIPIENTS */
	/* caches of msgutil.c (filled on first use) */
	sd_str body;            /* sd_ctx_body() result */
	int body_done;
	long body_part;         /* the part it is the text of; -1: none */
	sd_str received;        /* the top Received values joined by '\n'; p NULL: not built */
	int orig_done;          /* sd_ctx_find_original() ran */
} sd_ctx;

/* What is said of a message or event with more recipients than the limit. */
#define SD_RCPT_OVER_MSG "more than 1024 recipients (SMTPDIAG_MAX_RECIPIENTS): only the first 1024 are reported"

/* A new recipient record (reason -1, all else empty), or NULL at the limit
 * (c->rcpt_over and c->limit_hit set). */
sd_rcpt *sd_ctx_add(sd_ctx *c);

/* A format module: returns the number of recipients it added (0: not its
 * format) or a negative SMTPDIAG_E* code. */
typedef int (*sd_format_fn)(sd_ctx *c);

/* Decoded text of the first part with this content type (or of the first
 * text/plain part when ctype is NULL); SD_NULLSTR if none. */
sd_str sd_ctx_text(sd_ctx *c, const char *ctype);
/* The message's main human-readable text: the first text/plain part, else the
 * top body, decoded. */
sd_str sd_ctx_body(sd_ctx *c);
/* Join the values of the top-level Received fields with '\n' into c->received
 * (arena), so that one search answers for all of them: a text without a line
 * end is in one of the values exactly when it is in the joined text. */
void sd_ctx_join_received(sd_ctx *c);
/* sd_part_text() of part i; the body's part is decoded only once. */
sd_str sd_ctx_part_text(sd_ctx *c, size_t i);
/* Fill c->orig from the first message/rfc822 or text/rfc822-headers part, or
 * from a returned header block found in text (the message body when text is
 * SD_NULLSTR). Runs once per message; later calls return at once. */
void sd_ctx_find_original(sd_ctx *c, sd_str text);
/* Is part i inside a returned (nested) message? */
int sd_ctx_in_returned(const sd_ctx *c, size_t i);

/* A pasted bounce (paste.c): text with no header field, all of it body.
 * sd_ctx_headerless: the input had no header field. sd_ctx_pasted: it had none
 * and one of the first SD_PASTE_LINES non-blank lines of its body (within its
 * first SD_PASTE_SCAN bytes) starts with one of the NULL-ended opening lines
 * (ASCII case-insensitive, leading blanks ignored). */
#define SD_PASTE_LINES 12
#define SD_PASTE_SCAN  (8u << 10)
static inline int sd_ctx_headerless(const sd_ctx *c)
{
	return c->top && c->top->nhdrs == 0;
}
int sd_ctx_opens_with(sd_ctx *c, const char *const *opening); /* the body check alone */
/* sd_paste_clean: text with no header field as the mail client left it,
 * without the reply's quoting ("> ", once or more) or a margin all its lines
 * share, and without blanks at the ends of lines; text itself when it has
 * neither, else a copy in a (paste.c). */
sd_str sd_paste_clean(sd_arena *a, sd_str text);
/* sd_paste_rewrapped: is next the rest of prev, a line a mail client broke at
 * its width? (prev with next's first word is longer than SD_PASTE_WRAP_MIN
 * columns and next starts with no blank.) */
#define SD_PASTE_WRAP_MIN 60
/* sd_paste_client_block: are the header fields of top a mail client's own lines
 * above a message it forwards ("From:/Sent:/To:/Subject:", "Von:/Gesendet:/An:/
 * Betreff:", ...): only such names, one of them a name no message is sent with? */
int sd_paste_client_block(const sd_part *top);
int sd_paste_rewrapped(sd_str prev, sd_str next);
static inline int sd_ctx_pasted(sd_ctx *c, const char *const *opening)
{
	return sd_ctx_headerless(c) && sd_ctx_opens_with(c, opening);
}

/* Helpers for modules. */
sd_str sd_addr_clean(sd_str s);  /* "<a@b>" / "rfc822; a@b" / "Name <a@b>" -> "a@b" (a slice of s) */
int sd_is_address(sd_str s);     /* one plain address local@domain, nothing else */

#endif
