/* api_store.h - the store over HTTP: who may read and write it
 * (store_access.c), the suppression routes and the recording of
 * /api/v1/events (api_store.c). */
#ifndef SMTPDIAG_HTTPD_API_STORE_H
#define SMTPDIAG_HTTPD_API_STORE_H

#include <stddef.h>

#include "httpd_int.h"

#define STORE_TOKEN_MIN 16        /* bytes of a bearer token at least */
#define STORE_TOKEN_MAX 256       /* bytes of a bearer token at most */
#define STORE_TOKEN_NAME 64       /* bytes of a token's name, with its NUL */
#define STORE_BASIC_MAX 512       /* bytes of decoded Basic credentials (user:token) */
#define STORE_MAX_TOKENS 64       /* tokens in --token-file */
#define STORE_TOKEN_FILE ((size_t)64 << 10) /* bytes of --token-file */
#define STORE_WHY 160             /* bytes of a refusal's reason */
#define STORE_BY_API "api"        /* who released, without a named token */
/* How long store work waits: for a lock held by another writer (SQLite's busy
 * timeout, PostgreSQL's lock_timeout), and in the store pool's queue; then 503
 * with Retry-After. Routes that need no store never wait for it (jobs.c). */
#define STORE_WAIT_MS 3000

/* ---- access (store_access.c) ---- */
/* Is a store configured? */
int store_on(void);
/* Open the store once, after privileges are dropped: the schema is made or
 * migrated, and a bad URL stops the server before it serves. 0 or -1. */
int store_start(char *err, size_t errlen);
/* This handler thread's store (opened on first use, closed when the thread
 * ends), or NULL with why in err. */
smtpdiag_store *store_thread(char *err, size_t errlen);
/* The store failed (a lost connection, say): drop this thread's handle so the
 * next request opens it again. */
void store_thread_drop(void);

enum { STORE_READ, STORE_WRITE };
/* May r read or write? 0, with *who the name to record ("api" without a named
 * token); or 401 / 403 with why. signed_ok: the request carried a webhook
 * signature that was checked (events_auth.c), which is enough to write. */
int store_access(hreq *r, int what, int signed_ok, const char **who, char *why, size_t whylen);
/* Answer 401 (with WWW-Authenticate: Bearer) or 403, as JSON. */
enum MHD_Result store_refuse(hreq *r, int status, const char *why);
/* A refusal as JSON, not cached, with WWW-Authenticate: challenge unless NULL. */
enum MHD_Result reply_refuse(hreq *r, int status, const char *why, const char *challenge);

/* ---- recording what /api/v1/events decodes (api_store.c) ---- */
typedef struct store_rec {
	smtpdiag_store *st;           /* NULL: nothing is recorded */
	smtpdiag_store_counts before; /* the thread's counts before this request */
	int failed;                   /* the store failed: what is left is not recorded */
	char why[STORE_WHY];
} store_rec;
/* Before decoding: record into the store when one is configured and r may
 * write. 0 (sr->st NULL when there is no store), or the status to refuse with,
 * why in sr->why. */
int store_rec_begin(hreq *r, int signed_ok, store_rec *sr);
void store_rec_fact(store_rec *sr, const smtpdiag_fact *f);
/* Write what is left; append ,"store":{"recorded":N,"duplicates":N,"errors":N}
 * to b. Returns 0, or 503 when the store failed (the sender should post again:
 * what was recorded is not recorded twice). */
int store_rec_end(store_rec *sr, smtpdiag_buf *b);

/* ---- routes (api_store.c) ---- */
enum MHD_Result api_suppressions(hreq *r); /* GET /api/v1/suppressions */
enum MHD_Result api_suppression(hreq *r);  /* GET, DELETE /api/v1/suppressions/{address} */

#endif
