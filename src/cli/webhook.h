/* webhook.h - signed webhooks out (docs/webhooks-out.md): the options
 * decode, scan --follow and serve share, and the sending of the store's
 * outbox over HTTP (libcurl, opened at run time). */
#ifndef SMTPDIAG_CLI_WEBHOOK_H
#define SMTPDIAG_CLI_WEBHOOK_H

#include <pthread.h>
#include "smtpdiag.h"
#include "opts.h"

#define HOOK_MAX_SECRET 4096     /* bytes of the --webhook-secret-file key */
#define HOOK_MAX_AUTH 4096       /* bytes of the --webhook-auth-file header value */
#define HOOK_WAIT_DEFAULT 30     /* --webhook-wait: seconds decode sends for at its end */
#define HOOK_WAIT_MAX 86400
#define HOOK_TIMEOUT 10          /* seconds one POST may take (connecting: HOOK_CONNECT_TIMEOUT) */
#define HOOK_CONNECT_TIMEOUT 5
#define HOOK_BATCH 100           /* items asked of the outbox at a time */
#define HOOK_POLL_MS 500         /* the background sender looks at the outbox this often when idle */
#define HOOK_MAX_URL 4096

enum { HOOK_SMTPDIAG, HOOK_LISTMONK };

/* The option lines; a command lists them with its own ids. */
#define HOOK_OPT_LINES(W, S, E, F, T, A)                                                               \
	[W] = { "webhook", 0, CLI_VALUE, "URL",                                                        \
		"POST each verdict recorded (or, with --webhook-events suppressions, each address "    \
		"becoming suppressed or released) to URL as signed JSON, from the store's outbox "     \
		"(needs --store; docs/webhooks-out.md)" },                                             \
	[S] = { "webhook-secret-file", 0, CLI_VALUE, "FILE",                                           \
		"the HMAC-SHA256 key of the Smtpdiag-Signature header (required with --webhook; one "  \
		"line, the line end dropped)" },                                                       \
	[E] = { "webhook-events", 0, CLI_VALUE, "EVENTS",                                              \
		"what is posted: verdicts (each verdict recorded; default) or suppressions (each "     \
		"suppression change)" },        \
	[F] = { "webhook-format", 0, CLI_VALUE, "FORMAT",                                              \
		"the body: smtpdiag (default) or listmonk (the body of listmonk's POST /api/bounces)" },        \
	[T] = { "webhook-wait", 0, CLI_VALUE, "SECONDS",                                               \
		"decode: how long to send the outbox for at the end (default 30; what is left waits "  \
		"for a later run or serve); serve and scan --follow send all the time" },              \
	[A] = { "webhook-auth-file", 0, CLI_VALUE, "FILE",                                             \
		"the value of the Authorization header of each post, from the file's first line "      \
		"(listmonk: token USER:TOKEN); never in the URL" }

typedef struct hook {
	const char *url;          /* --webhook; NULL: no webhooks */
	const char *secret_file;
	const char *auth_file;    /* --webhook-auth-file */
	int events;               /* SMTPDIAG_OUTBOX_* */
	int format;               /* HOOK_* */
	long wait;                /* --webhook-wait */
	int wait_set;
	char secret[HOOK_MAX_SECRET + 1];
	size_t secret_len;
	char auth[HOOK_MAX_AUTH + 16]; /* "Authorization: VALUE", "" when none */
	/* the background sender (hook_start) */
	const char *store_url;
	smtpdiag_policy pol;
	pthread_t thread;
	int running;
	volatile int stop;
	/* what was sent */
	uint64_t delivered, failed, retried;
} hook;

/* "verdicts" or "suppressions" -> SMTPDIAG_OUTBOX_*; -1 for anything else. */
int hook_events(const char *v);
/* One of the options above (which: 0 webhook .. 4 wait, 5 auth). -1, or the usage exit status. */
int hook_opt(hook *h, const cli_parse *p, int which);
/* After the options: the usage errors (no store, no secret), the key read,
 * libcurl opened. -1, or an exit status after saying why. */
int hook_ready(hook *h, const cli_cmd *cmd, int have_store);
/* Send what is due until nothing is pending or deadline (Unix seconds;
 * 0: one pass over what is due now). 0, or -1 when the store failed (said). */
int hook_drain(hook *h, smtpdiag_store *s, int64_t deadline, const char *cmd);
/* decode's end: drain for --webhook-wait seconds, then one line on stderr
 * with what was sent and what is left. Returns 1 when some are left
 * pending or failed, -1 when the store failed, else 0. */
int hook_finish(hook *h, smtpdiag_store *s, const char *cmd);
/* A thread sending the outbox of the store at url (its own handle) until
 * hook_stop. 0, or -1 after saying why. */
int hook_start(hook *h, const char *url, const smtpdiag_policy *pol, const char *cmd);
void hook_stop(hook *h);

#endif
