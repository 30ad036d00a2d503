/* mta.h - helpers shared by the MTA format modules (postfix.c, sendmail.c, exim.c, ...).
 *
 * Every function works on slices (sd_str) and never relies on a NUL. Text made
 * here (joined or unfolded lines) lives in the context's arena. */
#ifndef SD_FORMATS_MTA_H
#define SD_FORMATS_MTA_H

#include "bounce/ctx.h"
#include "decode/formats/formats.h"

#define MTA_MAX_TEXT 4096   /* bytes of diagnostic text kept for one recipient */
#define MTA_MAX_SCAN (1u << 20) /* bytes of a bounce's text the line readers look at */

/* ---- slices ----
 * The small helpers are inline: most calls pass a literal, whose length the
 * compiler then knows. */

/* s without its first k bytes (k <= s.n). */
static inline sd_str mta_skip(sd_str s, size_t k)
{
	if (k > s.n)
		k = s.n;
	return (sd_str){ s.p + k, s.n - k };
}

/* Does s contain lit (ASCII case-insensitive)? */
static inline int mta_has(sd_str s, const char *lit)
{
	return s.p && sd_memcasemem(s.p, s.n, lit, strlen(lit)) != NULL;
}

/* Does s contain lit exactly (case-sensitive, fast: for texts software writes)? */
static inline int mta_contains(sd_str s, const char *lit)
{
	return s.p && sd_memmem(s.p, s.n, lit, strlen(lit)) != NULL;
}

/* Does s start with lit (case-insensitive)? */
static inline int mta_starts(sd_str s, const char *lit)
{
	return s.p && sd_str_casestarts(s, lit);
}

/* Does s start with lit exactly (case-sensitive)? */
static inline int mta_prefix(sd_str s, const char *lit)
{
	size_t n = strlen(lit);

	return s.p && s.n >= n && memcmp(s.p, lit, n) == 0;
}

/* The part of s from the first lit on (case-insensitive); SD_NULLSTR if absent. */
static inline sd_str mta_find(sd_str s, const char *lit)
{
	const char *q = s.p ? sd_memcasemem(s.p, s.n, lit, strlen(lit)) : NULL;

	return q ? (sd_str){ q, s.n - (size_t)(q - s.p) } : SD_NULLSTR;
}

/* The part of s after the first lit; SD_NULLSTR if absent. */
static inline sd_str mta_after(sd_str s, const char *lit)
{
	sd_str f = mta_find(s, lit);

	return f.p ? mta_skip(f, strlen(lit)) : SD_NULLSTR;
}

/* s cut before the first lit (s itself when absent). */
static inline sd_str mta_before(sd_str s, const char *lit)
{
	sd_str f = mta_find(s, lit);

	return f.p ? (sd_str){ s.p, (size_t)(f.p - s.p) } : s;
}

/* Is the line blank (only spaces / tabs)? */
int mta_blank(sd_str line);

/* ---- headers of the bounce ---- */

/* Raw value of a top-level header field, SD_NULLSTR when absent. */
static inline sd_str mta_hdr(const sd_ctx *c, const char *name)
{
	return sd_part_header(c->top, name);
}

/* Does the field exist and contain lit? */
static inline int mta_hdr_has(const sd_ctx *c, const char *name, const char *lit)
{
	return mta_has(mta_hdr(c, name), lit);
}

/* Does the field value (leading blanks skipped) start with lit? */
static inline int mta_hdr_starts(const sd_ctx *c, const char *name, const char *lit)
{
	sd_str v = mta_hdr(c, name);

	return v.p && mta_starts(sd_trim(v), lit);
}

/* Does any Received field contain lit (ignoring case)? */
int mta_received_has(const sd_ctx *c, const char *lit);
/* The same, case-sensitive and faster: for software banners ("(qmail "). */
int mta_received_contains(const sd_ctx *c, const char *lit);

/* ---- parts ---- */

/* First part of this content type that is not inside a returned message. */
const sd_part *mta_part(const sd_ctx *c, const char *ctype);
/* Header field of the returned message (message/rfc822 or headers part). */
sd_str mta_orig_header(const sd_ctx *c, const char *name);
/* The bounce's human-readable text: first text/plain part outside the returned
 * message, else the top body; decoded, at most MTA_MAX_SCAN bytes (longer texts
 * are cut there and c->limit_hit is set). */
sd_str mta_body(sd_ctx *c);

/* ---- text building ---- */

/* Join a and b with one space (either may be empty); arena. */
sd_str mta_join(sd_arena *a, sd_str x, sd_str y);
/* Collapse runs of blanks and line ends into one space and trim; arena. */
sd_str mta_squeeze(sd_arena *a, sd_str s);

/* Remove one level of "> " quoting from each line (forwarded bounces); arena. */
sd_str mta_unquote(sd_arena *a, sd_str s);

/* ---- addresses and commands ---- */

/* First e-mail address in s: "<a@b>" or a bare a@b token; SD_NULLSTR if none. */
sd_str mta_addr(sd_str s);
/* Does s (trimmed, <> removed) look like one address a@b? */
int mta_is_addr(sd_str s);
/* SMTP command named in a text ("in reply to RCPT TO command", "after RCPT TO",
 * ">>> DATA", "end of data"); SD_NULLSTR if none. The result is a literal. */
sd_str mta_command(sd_str s);
/* Close the records a module added from index first on: squeeze each
 * diagnostic's white space and take the SMTP command it names. Returns how
 * many records the module added. */
int mta_finish(sd_ctx *c, size_t first);
/* Command at the start of a line like "RCPT TO:<..>" or "MAIL FROM:"; literal. */
sd_str mta_command_word(sd_str s);

/* ---- RFC 3464 fields ---- */

/* Read the delivery-status fields in text (a message/delivery-status body or
 * fields embedded in a text part) and append one record per recipient.
 * Returns the number added or a negative code. */
int mta_dsn_read(sd_ctx *c, sd_str text);
/* mta_dsn_read() on the first message/delivery-status part; 0 when none. */
int mta_dsn(sd_ctx *c);

/* mta_dsn_read() on delivery-status fields quoted in a text (a forwarded
 * bounce): from "message/delivery-status" to the returned message. */
int mta_dsn_inline(sd_ctx *c, sd_str text);

/* Recipient record for addr, found among records [from, c->nrcpt) (case-
 * insensitive), or NULL. */
sd_rcpt *mta_rcpt_find(sd_ctx *c, size_t from, sd_str addr);

/* When r's status is empty or X.0.0 and text holds a more precise one, take it;
 * the same for the reply code (empty or X00). Returns 1 when one was taken. */
int mta_take_codes(sd_arena *a, sd_rcpt *r, sd_str text);

/* Read "<addr>:" lines each followed by lines of error text (qmail's format),
 * from the line after one holding a starts[] text (from the top when starts
 * is NULL) up to a line holding an ends[] text. Appends one record per
 * address (recipient, joined diagnostic). Returns the offset in body where
 * the returned message begins (body.n when no end marker was found). */
size_t mta_angle_blocks(sd_ctx *c, sd_str body, const char *const *starts, const char *const *ends);

/* Exim's text (and MXLogic's, an Exim derivative), after the header checks. */
int mta_exim_body(sd_ctx *c);

#endif
