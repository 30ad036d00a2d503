/* mailbox.h - bounce mailboxes as one more input of `decode`: an IMAP folder
 * (imaps://, or imap:// with STARTTLS required) or a POP3 mailbox (pop3s://,
 * or pop3:// with STARTTLS required), read through libcurl, new messages only
 * (docs/mailbox.md). */
#ifndef SMTPDIAG_CLI_MAILBOX_H
#define SMTPDIAG_CLI_MAILBOX_H

#include <signal.h>
#include <stddef.h>
#include "smtpdiag.h"

#define MBOX_MAX_MESSAGES 1000      /* messages read from one mailbox in one pass (--max-messages) */
#define MBOX_MAX_MESSAGES_TOP 1000000
#define MBOX_POLL 60                /* seconds between passes of --follow (--poll) */
#define MBOX_POLL_MAX 86400
#define MBOX_MAX_PASSWORD 1024      /* bytes of the password (file or environment) */
#define MBOX_CONNECT_TIMEOUT 30     /* seconds to connect and log in */
#define MBOX_STALL_TIME 120         /* seconds under one byte a second end a transfer */
#define MBOX_MAX_LIST (64u << 20)   /* bytes of one listing of a folder's new messages */

typedef struct mbox_opts {
	const char *password_file; /* --password-file, else $SMTPDIAG_IMAP_PASSWORD */
	const char *cacert;        /* --cacert FILE: the CA certificates to trust */
	const char *move_to;       /* --move-to FOLDER */
	int mark_seen, del;        /* --mark-seen, --delete */
	unsigned long max_messages; /* --max-messages, MBOX_MAX_MESSAGES */
	size_t max_size;            /* --max-size, SMTPDIAG_MAX_MESSAGE */
	int verbose;                /* trace the protocol on stderr ($SMTPDIAG_MAILBOX_TRACE) */
} mbox_opts;

/* What the reader hands each message to. deliver returns 0 when the message
 * was decoded, 1 when it was reported as an error, -1 when the store failed
 * (the run stops). fail reports a message that was not read (over a limit).
 * commit writes the records of the messages delivered so far: 0, or -1. */
typedef struct mbox_sink {
	int (*deliver)(void *ctx, const char *origin, const char *msg, size_t len);
	void (*fail)(void *ctx, const char *origin, const char *why);
	int (*commit)(void *ctx);
	void *ctx;
	smtpdiag_store *st;
} mbox_sink;

/* 1 when arg is a mailbox URL (imap://, imaps://, pop3://, pop3s://). */
int mbox_is_url(const char *arg);
/* A usage problem of the URL (a password in it, no user, no host) as one
 * sentence in why; 0 when it is good. */
int mbox_check_url(const char *url, char *why, size_t len);
/* The password, once: -1 with why in err. */
int mbox_password(const mbox_opts *o, char *pw, size_t cap, char *err, size_t errlen);
/* Read the new messages of one mailbox into the sink. Returns 0 when every
 * step worked, 1 after reporting why the mailbox could not be read (on
 * stderr), -1 when the store failed. *read gets the messages read. */
int mbox_read(const mbox_opts *o, const char *pw, const char *url, const mbox_sink *s,
	      unsigned long *read);

/* Waiting for new mail in one IMAP folder (IDLE, RFC 2177), for --follow. */
typedef struct mbox_watch mbox_watch;
/* A logged-in connection that has selected the folder (read-only), opened
 * before a pass reads it. NULL with why when it cannot be had (the caller then
 * polls), and *never set when it never will: POP3, a server without IDLE. */
mbox_watch *mbox_watch_open(const mbox_opts *o, const char *pw, const char *url, int *never, char *why,
			    size_t len);
/* Wait up to seconds (at most 25 minutes), or until *stop is set: 1 when the
 * server announced new mail since the folder was selected or the last wait, 0
 * when the time ran out or stop was set, -1 when the connection broke (close
 * it; a new one may be opened). */
int mbox_watch_wait(mbox_watch *w, unsigned seconds, volatile sig_atomic_t *stop);
void mbox_watch_close(mbox_watch *w);

#endif
