/* rhost.h - the remote-host table (rhost_tab.c) and its entry type. */
#ifndef SD_RHOST_H
#define SD_RHOST_H

#include <stddef.h>
#include "verdict/verdict.h"

enum {
	RH_NONE = 0, RH_AOL, RH_APPLE, RH_CLOUDFLARE, RH_COMCAST, RH_COX, RH_FRANCEPTT, RH_GODADDY, RH_GOOGLE,
	RH_GSUITE, RH_IUA, RH_KDDI, RH_MESSAGELABS, RH_MICROSOFT, RH_MIMECAST, RH_NTTDOCOMO,
	RH_OUTLOOK, RH_SPECTRUM, RH_TENCENT, RH_YAHOOINC, RH_ZOHO
};

#define RH_STOP (-2) /* a class rule decided: no reason from this host */

/* One phrase of a host's vocabulary. reply/status, when set, must agree with
 * the verdict's codes: Google compares "x21" / "x.7.26" ignoring the class,
 * Mimecast the exact reply code, Microsoft the exact status, or a status
 * prefix ("5.7.") with the detail in [lo, hi]. */
typedef struct rh_entry {
	unsigned char cls;
	unsigned char reason;
	const char *reply;
	const char *status;
	unsigned short lo, hi;
	const char *text; /* lowercase phrase, matched ignoring case */
	unsigned char advice; /* 1 + SD_A_* when the phrase names who acts, 0: the reason's */
} rh_entry;

extern const rh_entry sd_rh_entries[];
extern const size_t sd_rh_nentries;

/* Per-host rules that are not a phrase list (error-code labels, status-only
 * decisions). Returns a reason, -1 to go on with the phrase table, or RH_STOP. */
int rh_special(int cls, const sd_vd_in *in, int after_table);
/* sd_rhost_reason(), and in *advice (SD_A_*, -1 when the reason's own) who
 * acts when the matched phrase names it. */
int sd_rhost_decide(const sd_vd_in *in, int *advice);
/* The detail number of a status ("5.7.606" -> 606), -1 if none. */
int rh_detail(const char *status);

#endif
