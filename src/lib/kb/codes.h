/* codes.h - a reply code and a status checked against the knowledge base:
 * class, flags (non-standard, unregistered, vendor reuse, class mismatch), and
 * the vendor row a text matches. */
#ifndef SD_CODES_H
#define SD_CODES_H

#include "smtpdiag.h"
#include "smtp/reply.h"
#include "kb/kb.h"

/* Flags of a (reply code, status) pair: SMTPDIAG_ISSUE_* bits. text (may be
 * empty) is used to recognise vendor reuse. vendor (may be NULL) receives the
 * vendor's name when one is recognised. */
unsigned sd_code_issues(int replycode, const sd_status *st, const char *text, size_t textlen,
			const char **vendor);

/* The vendor table row whose code and text snippet match, or NULL. Without text,
 * only an exact reply-code match of a row whose meaning differs counts. */
const sd_kb_vendor *sd_vendor_match(int replycode, const sd_status *st, const char *text, size_t textlen);

/* Class of a pair: the reply code's first digit, else the status class. */
smtpdiag_class sd_code_class(int replycode, const sd_status *st);

#endif
