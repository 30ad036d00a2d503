/* events.h - what the parts of /api/v1/events share: the webhook signature
 * checks (events_auth.c) over the crypto functions (crypto.c). */
#ifndef SMTPDIAG_HTTPD_EVENTS_H
#define SMTPDIAG_HTTPD_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "httpd_int.h"

#define EV_KEY_MAX 4096          /* bytes of a key or credentials file */
#define EV_MAILGUN_WINDOW 900    /* seconds a Mailgun timestamp may be off the clock (15 min) */
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

/* ---- the checks (events_auth.c) ---- */
/* Is a key configured for any service? */
int events_auth_any(void);
/* Has every service in mask (none empty) a key, so that a post that passed
 * events_auth_check was signed by each? */
int events_auth_covers(unsigned long mask);
/* Check the post's signature for each service in mask (bits of smtpdiag_esp_name)
 * that has a key. 0: go on; -1: refuse, why in why (and *basic set when the
 * answer should ask for HTTP Basic credentials). */
int events_auth_check(hreq *r, unsigned long mask, int *basic, char *why, size_t whylen);

#endif
