/* events.h - what the parts of /api/v1/events share: the webhook signature
 * checks (events_auth.c) over the crypto functions (crypto.c). */
#ifndef SMTPDIAG_HTTPD_EVENTS_H
#define SMTPDIAG_HTTPD_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "httpd_int.h"

#define EV_KEY_MAX 4096          /* bytes of a key or credentials file */
#define EV_MAILGUN_WINDOW 900    /* seconds a Mailgun timestamp may be off the clock (15 min) */
#define EV_SENDGRID_WINDOW 300   /* seconds a SendGrid timestamp may be off the clock (5 min) */
#define EV_REPLAY_MAX 65536      /* signatures remembered at once (events_replay.c) */
#define EV_WHY 160               /* bytes of a refusal's reason */
#define EV_SIG_MAX 512           /* bytes of a signature, token or timestamp we look at */
#define EV_SHA256 32             /* bytes of a SHA-256 digest */
#define EV_P256 32               /* bytes of a P-256 coordinate */

/* ---- crypto (crypto.c): nettle, opened at run time ---- */
/* Open libhogweed (and through it libnettle and GMP); 0, or -1 with why in err. */
int crypto_load(char *err, size_t errlen);
/* HMAC-SHA256 of a then b under key. */
void crypto_hmac_sha256(const uint8_t *key, size_t klen, const char *a, size_t an,
			const char *b, size_t bn, uint8_t out[EV_SHA256]);
/* SHA-256 of a then b. */
void crypto_sha256(const char *a, size_t an, const char *b, size_t bn, uint8_t out[EV_SHA256]);
/* Base64 (whitespace ignored) into out; the length, or -1 when bad or over cap. */
long crypto_base64(const char *in, size_t n, uint8_t *out, size_t cap);
/* Keep the P-256 public key (x, y); 0, or -1 when the point is not on the curve. */
int crypto_p256_key(const uint8_t x[EV_P256], const uint8_t y[EV_P256]);
/* Is (r, s) (big-endian integers) an ECDSA signature of digest under the key? */
int crypto_p256_verify(const uint8_t digest[EV_SHA256], const uint8_t *r, size_t rn,
		       const uint8_t *s, size_t sn);
/* Equal, in time that depends on n only. */
int crypto_equal(const void *a, const void *b, size_t n);

/* ---- signatures already taken (events_replay.c) ---- */
enum { EV_REPLAY_NEW = 0, EV_REPLAY_SEEN = 1, EV_REPLAY_FULL = -1 };
/* Remember key (a digest that stands for one signature) until the Unix time
 * until: EV_REPLAY_NEW; EV_REPLAY_SEEN when it is remembered already (a
 * replay); EV_REPLAY_FULL when EV_REPLAY_MAX are, all inside their window. */
int events_replay_take(const uint8_t key[EV_SHA256], int64_t until);
/* Forget key (a post refused after its signature was taken: its sender retries it). */
void events_replay_forget(const uint8_t key[EV_SHA256]);

/* ---- the checks (events_auth.c) ---- */
/* What a check found: why a post is refused, and the signatures it took. */
typedef struct ev_auth {
	int basic;               /* the refusal asks for HTTP Basic credentials */
	char why[EV_WHY];
	uint8_t taken[2][EV_SHA256]; /* remembered for this post (Mailgun, SendGrid) */
	int ntaken;
} ev_auth;
/* Is a key configured for any service? */
int events_auth_any(void);
/* Has every service in mask (none empty) a key, so that a post that passed
 * events_auth_check was signed by each? */
int events_auth_covers(unsigned long mask);
/* Check the post's signature for each service in mask (bits of smtpdiag_esp_name)
 * that has a key: 0, go on; else the status to refuse with, a->why saying why:
 * 401 (no signature, a wrong or stale one, a signed Mailgun post of more than
 * one event), 409 (a signature already taken), 503 (EV_REPLAY_MAX signatures
 * inside their window: try later). */
int events_auth_check(hreq *r, unsigned long mask, const char *esp, ev_auth *a);
/* The post was refused after the check: forget the signatures it took. */
void events_auth_release(ev_auth *a);

#endif
