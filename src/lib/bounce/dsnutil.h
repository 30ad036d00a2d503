/* dsnutil.h - text helpers for the RFC 3464 / ARF / generic modules: field
 * lines, the human-readable lead text of a report, whitespace sweeping. */
#ifndef SD_DSNUTIL_H
#define SD_DSNUTIL_H

#include "bounce/ctx.h"

/* Next logical line of t at *pos: the line, and when it is a "Name: value"
 * field, its name and value with continuation lines joined by one space
 * (arena copy only when there were continuations). A blank line has n == 0.
 * Returns 0 at the end. */
int dsn_next_field(sd_arena *a, sd_str t, size_t *pos, sd_str *line, sd_str *name, sd_str *value);

/* "type; text" -> type ("" when absent) and text, both trimmed. */
void dsn_split_typed(sd_str v, sd_str *type, sd_str *text);
/* "dns; mx.example.jp" -> "mx.example.jp" (the value after an address type). */
sd_str dsn_value(sd_str v);
/* First blank-separated word of v. */
sd_str dsn_first_word(sd_str v);
/* Is this a per-recipient DSN field other than the recipient fields? */
int dsn_is_rcpt_field(sd_str name);

/* Collapse runs of blanks and line ends to one space, drop tabs, trim, and cut
 * a trailing MIME boundary (" --xyz"). Returns s itself when nothing changes. */
sd_str dsn_sweep(sd_arena *a, sd_str s);
/* x + " " + y in the arena (either may be empty). */
sd_str dsn_join(sd_arena *a, sd_str x, sd_str y);
/* "550" for 550, in the arena. */
sd_str dsn_code_str(sd_arena *a, int code);

/* Index of the first message/delivery-status (or global) part outside a
 * returned message, -1 when none. */
long dsn_find_part(const sd_ctx *c);
/* The human-readable text before part index ds: its text/plain parts outside
 * returned messages, lines that are MIME chatter dropped, joined and swept. */
sd_str dsn_lead_parts(sd_ctx *c, size_t ds, size_t max);
/* The same filter over a plain text. */
sd_str dsn_lead_text(sd_arena *a, sd_str t, size_t max);
/* Does text hold an inline report ("Content-Type: message/delivery-status"
 * line, or "Reporting-MTA:" after a blank line)? *off: where its fields start,
 * *end: where the returned message starts (or the text ends). */
int dsn_inline_report(sd_str t, size_t *off, size_t *end);

/* The record of addr among c->rcpts[first..] (ignoring case), or NULL. */
sd_rcpt *dsn_rcpt_find(sd_ctx *c, size_t first, sd_str addr);
/* The arena copy of b's text, swept (dsn_sweep); SD_NULLSTR when b is empty
 * or out of memory. */
sd_str dsn_buf_text(sd_arena *a, const sd_buf *b);

#endif
