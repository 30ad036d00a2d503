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

/* Matching a text with a vendor row: the row's pieces (its snippet without
 * placeholders) must occur in order, case folded, white space free; the first
 * SD_VENDOR_MATCH_CAP characters of them are required (the rest of a provider's
 * wording varies over time), and rows with fewer than SD_VENDOR_MATCH_MIN
 * characters of text never match. */
#define SD_VENDOR_MATCH_CAP 48
/* Bytes of a text searched for a provider's wording: the reply comes first in
 * a diagnostic, the prose after it is the bounce's own. */
#define SD_VENDOR_TEXT_MAX 1024
#define SD_VENDOR_MATCH_MIN 8

/* sd_code_issues() when sd_vendor_match() has already answered v for the same
 * reply code, status and text (the verdict engine asked it first). */
unsigned sd_code_issues_known(int replycode, const sd_status *st, const sd_kb_vendor *v, const char *text,
			      size_t textlen);

/* The vendor table row whose code and text match best (most characters of its
 * pieces found), or NULL. Without text, only an exact reply-code match of a row
 * whose meaning differs counts. The row's reason, advice, title and quick fix
 * are the vendor's word on the failure (verdict: vendor rows outrank reason
 * rules). The row is static. */
const sd_kb_vendor *sd_vendor_match(int replycode, const sd_status *st, const char *text, size_t textlen);

/* Off (1): every row of the status's group is compared in turn and matched in
 * full, neither picked by its detail nor its words looked up first
 * (kb/vendor_words.h). For the tests that compare both ways. */
void sd_vendor_words_off(int off);

/* How many characters of the row's pieces the text matches; 0: it does not. */
size_t sd_vendor_text_score(const sd_kb_vendor *v, const char *text, size_t textlen);

/* The rows that use this status (and reply code, when not 0), those for this
 * very status before those for a range: at most max into out; returns how many. */
size_t sd_vendor_rows_for_code(int replycode, const sd_status *st, const sd_kb_vendor **out, size_t max);

/* Class of a pair: the reply code's first digit, else the status class. */
smtpdiag_class sd_code_class(int replycode, const sd_status *st);

/* Does the registry's own list of basic reply codes for this status name one
 * of class cls ('2', '4', '5')? X.2.2 lists 552 although it is registered for
 * the transient class: 5.2.2 is then used outside its class, not invented. */
int sd_status_basic_has_class(const sd_kb_status *ks, int cls);

/* Are the codes of a pair standard: a defined reply code and a registered
 * status, in an allowed class or one the registry's own basic codes use? A
 * class mismatch between the two or a vendor's reuse is flagged, not
 * non-standard. */
int sd_codes_standard(unsigned issues, const sd_status *st);

#endif
