/* socketmap.h - serve --socketmap: Postfix's socketmap protocol (socketmap_table(5))
 * for smtp_delivery_status_filter, beside the HTTP server. A lookup key is a
 * delivery status as Postfix records it, "X.Y.Z explanatory-text"; the answer is
 * "OK 4.Y.Z explanatory-text" when the verdict engine says a 5XX is one to retry
 * (and, with harden, "OK 5.Y.Z ..." for a 4XX it reads as a hard bounce), else
 * "NOTFOUND " and Postfix keeps its status (docs/socketmap.md). No
 * libmicrohttpd here. */
#ifndef SMTPDIAG_SOCKETMAP_H
#define SMTPDIAG_SOCKETMAP_H

#include <stddef.h>

#include "smtpdiag.h"

#define SM_MAX_REQUEST 100000u  /* bytes of a request netstring's data; Postfix sends 10000 at most */
#define SM_MAX_REPLY 100000u    /* bytes of a reply's data: what Postfix's client reads at most */
#define SM_LENGTH_DIGITS 6      /* digits of a netstring's length (SM_MAX_REQUEST has 6) */
#define SM_MAX_CONN 256u        /* connections at once; one more is closed at once */
#define SM_IDLE_TIMEOUT 60u     /* seconds a connection may wait for its next bytes */
#define SM_WRITE_TIMEOUT 10u    /* seconds a reply may take to be written */
#define SM_NAME "status"        /* the map name answered by default */
#define SM_NAME_MAX 64          /* bytes of a map name */
#define SM_MODE 0660            /* a Unix socket's mode by default */
#define SM_LOG_TEXT 400         /* bytes of a status text in a log line */

typedef struct sm_config {
	const char *addr;   /* "unix:PATH", "tcp:HOST:PORT", "tcp:[V6]:PORT" or "tcp:PORT" (loopback) */
	const char *name;   /* the map name answered; others get PERM */
	unsigned mode;      /* a Unix socket's mode */
	int harden;         /* 4XX to 5XX where the engine reads a hard bounce */
	const smtpdiag_rules *rules; /* user rules the engine asks first; kept by the caller */
} sm_config;

/* Bind and listen (before --user applies: the socket is made as the caller;
 * a Unix socket's owner becomes user's when one is given). A stale Unix socket
 * (nobody listening) is removed; a live one or any other file is an error.
 * Returns 0, or -1 with the reason in err. */
int sm_open(const sm_config *c, const char *user, char *err, size_t errlen);
/* Serve on a thread of its own and one per connection (side work of
 * httpd_run); 0 or -1. */
int sm_start(void);
/* Stop: close the listener and every connection, wait for their threads,
 * remove the Unix socket made. */
void sm_stop(void);

/* Parse a netstring at p (len bytes so far): 1 and the data's offset and
 * length when whole, 0 when more bytes are needed, -1 when malformed (a
 * length not of 1 to SM_LENGTH_DIGITS digits, over max, no ':' or no ','). */
int sm_netstring(const char *p, size_t len, size_t max, size_t *off, size_t *n);

/* "X.Y.Z" of 1 to 3 digits each, class 2, 4 or 5, then one space: the
 * status's length, 0 when the key k (n bytes) does not start so. */
size_t sm_key_status(const char *k, size_t n);

/* The answer to one request's data (without the netstring): its reply data
 * into out (at most SM_MAX_REPLY bytes and a NUL); the result's label. */
const char *sm_answer(const sm_config *c, const char *req, size_t n, char *out, size_t cap);

/* The socketmap's metrics (nothing unless --socketmap was given). */
void sm_metrics_text(smtpdiag_buf *b);

#endif
