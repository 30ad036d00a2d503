/* cli_store.h - opening the store for `store`, `decode --store` and
 * `scan --store`, and reading verdict JSON Lines for `store ingest`. */
#ifndef SMTPDIAG_CLI_STORE_H
#define SMTPDIAG_CLI_STORE_H

#include "smtpdiag.h"

#define CLI_STORE_DEFAULT "sqlite:smtpdiag.db"
#define CLI_STORE_MAX_REPORTS 100 /* bad lines named on stderr; the rest only counted */

typedef struct cli_store {
	const char *url;         /* --store, else $SMTPDIAG_STORE, else CLI_STORE_DEFAULT */
	const char *policy_file; /* --policy, else $SMTPDIAG_POLICY, else none */
	const char *set[8][2];   /* policy keys given by flags, in order */
	int nset;
	int read_only;           /* open it for reading only (the read commands) */
	smtpdiag_store *st;
	unsigned long reports;   /* bad records named so far */
} cli_store;

/* Open o->st with the URL and policy. Returns -1, or an exit status after
 * saying why on stderr. */
int cli_store_open(cli_store *o, const char *cmd);
/* The policy: o->policy_file (else $SMTPDIAG_POLICY), then the keys given by
 * flags. Returns -1, or an exit status after saying why on stderr. */
int cli_store_policy(cli_store *o, smtpdiag_policy *pol, const char *cmd);
/* Add one policy key given by a flag. */
void cli_store_set(cli_store *o, const char *key, const char *value);
/* A record could not be stored: name it (file:line) on stderr, up to the limit.
 * Returns 1 when the store itself failed (stop), 0 for a bad record. */
int cli_store_bad(cli_store *o, const char *cmd, const char *where, unsigned long line,
		  int rc, const smtpdiag_error *err);
/* Flush, print "read N = recorded N + duplicates N + errors N" to f, close.
 * Returns 0, or EXIT_FAIL_ when the last batch could not be written. */
int cli_store_finish(cli_store *o, const char *cmd, FILE *f);
/* Read verdict JSON Lines from path ("-": standard input) into the store. 0,
 * or -1 when the file could not be read, or 1 when the store failed. */
int cli_store_ingest(cli_store *o, const char *path);

#endif
