/* messages.h - internals of the joiner (messages.c) for its tests. */
#ifndef SD_MESSAGES_H
#define SD_MESSAGES_H

#include "smtpdiag.h"

/* smtpdiag_joiner_line() with the line's records given (nrec of them, as the
 * scanner made them, or by hand): delivery attempts are joined, reject records
 * (action "rejected", inbound refusals) are not attempts, and a line with no
 * attempt is read by the joiner itself. */
int sd_joiner_recs(smtpdiag_joiner *j, smtpdiag_scanner *s, const smtpdiag_logrec *const *recs, int nrec,
		   const char *line, size_t len);

#endif
