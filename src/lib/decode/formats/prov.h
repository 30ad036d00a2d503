/* prov.h - helpers shared by the provider format modules (gmail.c, yahoo.c, ...).
 *
 * Built on the slice, header and DSN helpers of mta.h. Text made here lives in
 * the context's arena. Nothing here prints or keeps state. */
#ifndef SD_FORMATS_PROV_H
#define SD_FORMATS_PROV_H

#include "decode/formats/mta.h"

#define PV_MAX_LINES 4000 /* lines of a bounce text one provider reader looks at */

/* A phrase a provider writes and the reason it means (tables end with NULL). */
typedef struct pv_phrase {
	const char *text;
	int reason;
} pv_phrase;

/* A new record for the address in s (<>, quotes and "rfc822;" removed), or NULL
 * when s holds no address or the recipient limit is hit. */
sd_rcpt *pv_rcpt(sd_ctx *c, sd_str s);
/* Append a line (trimmed) to r's diagnostic text, one space between lines. */
void pv_diag(sd_ctx *c, sd_rcpt *r, sd_str line);
/* Reason of the first phrase of t found (case-insensitive) in s, or -1. */
int pv_phrase_find(sd_str s, const pv_phrase *t);
/* r->reason = reason, unless the reason rules already find one in r's text:
 * for a provider's default ("after RCPT: unknown user") that its own words
 * may overrule. */
void pv_weak_reason(sd_ctx *c, sd_rcpt *r, int reason);
/* s cut before the first line that starts with one of marks (NULL-terminated). */
sd_str pv_cut(sd_str s, const char *const *marks);
/* The text after the first line starting with mark (at a line start), or
 * SD_NULLSTR. */
sd_str pv_after_line(sd_str s, const char *mark);
/* Fill the returned message facts from the text following mark, if any. */
void pv_original(sd_ctx *c, sd_str body, const char *mark);
/* A copy of p[0..n) in the arena, as a slice (SD_NULLSTR on failure). */
sd_str pv_dup(sd_ctx *c, const char *p, size_t n);
/* A reply code and status pair "<421 4.4.2 text>" inside s: the real SMTP error
 * some providers quote inside their own. Sets both on r; returns 1 if found. */
int pv_inner_codes(sd_ctx *c, sd_rcpt *r, sd_str s);


/* The text bounce of United Internet's mail systems (GMX, WEB.DE, 1&1):
 * "address:" lines, then the remote server's error; defined in gmx.c. */
int pv_united_internet(sd_ctx *c);

/* A Microsoft Exchange (2007 and later, Exchange Online) non-delivery report:
 * the DSN part when present, else the text after "Diagnostic information for
 * administrators:"; reasons from the NDR codes (RESOLVER.ADR.RecipNotFound, ...).
 * Defined in exchange2007.c. */
int pv_exchange_ndr(sd_ctx *c);
/* The text after the heading "Diagnostic information for administrators:" (in
 * any language Exchange writes it), SD_NULLSTR when there is none. */
sd_str pv_exchange_admin(sd_str body);

#endif
