/* crypto.c - the crypto of the webhook signature checks, on nettle (the
 * library GnuTLS, and so libmicrohttpd, already brings): HMAC-SHA256, SHA-256,
 * ECDSA P-256, base64.
 *
 * Like libmicrohttpd (mhd_load.c), libhogweed is opened by `serve` at start,
 * and only when a key is configured, so no other command pays for binding it
 * and the libraries it pulls in (libnettle, GMP). Only the types and macros of
 * the headers are used here; every call goes through the table below. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <gmp.h>
#include <nettle/base64.h>
#include <nettle/bignum.h>
#include <nettle/ecc-curve.h>
#include <nettle/ecc.h>
#include <nettle/ecdsa.h>
#include <nettle/hmac.h>
#include <nettle/sha2.h>

#include "events.h"

/* The SONAME, read from the build machine's library by tools/sonames.sh (a
 * generated header, hence on the include path like a system one). */
#include <sd_sonames.h>

#define HOGWEED_SONAME SD_HOGWEED_SONAME

#define FN(name) __typeof__(name) *
static struct {
	FN(nettle_hmac_sha256_set_key) hmac_key;
	FN(nettle_hmac_sha256_update) hmac_update;
	FN(nettle_hmac_sha256_digest) hmac_digest;
	FN(nettle_sha256_init) sha_init;
	FN(nettle_sha256_update) sha_update;
	FN(nettle_sha256_digest) sha_digest;
	FN(nettle_base64_decode_init) b64_init;
	FN(nettle_base64_decode_update) b64_update;
	FN(nettle_base64_decode_final) b64_final;
	FN(nettle_get_secp_256r1) p256;
	FN(nettle_ecc_point_init) point_init;
	FN(nettle_ecc_point_set) point_set;
	FN(nettle_ecdsa_verify) verify;
	FN(nettle_dsa_signature_init) sig_init;
	FN(nettle_dsa_signature_clear) sig_clear;
	FN(nettle_mpz_set_str_256_u) mpz_bytes;
	FN(__gmpz_init) z_init;
	FN(__gmpz_clear) z_clear;
} nt;
#undef FN

static struct ecc_point pubkey; /* set once before the threads start, then read only */
static int have_pubkey;

static int sym(void *lib, const char *name, void *fp, char *err, size_t errlen)
{
	void *p = dlsym(lib, name); /* also finds libnettle's and GMP's, hogweed's dependencies */

	if (!p) {
		snprintf(err, errlen, "%s lacks %s", HOGWEED_SONAME, name);
		return -1;
	}
	memcpy(fp, &p, sizeof(p)); /* object to function pointer, as POSIX dlsym intends */
	return 0;
}

#define SYM(field, name) sym(lib, name, &nt.field, err, errlen)

int crypto_load(char *err, size_t errlen)
{
	void *lib;

	if (nt.verify)
		return 0;
	if (!(lib = dlopen(HOGWEED_SONAME, RTLD_NOW | RTLD_LOCAL))) {
		snprintf(err, errlen, "cannot load %s (Debian package libhogweed6): %s", HOGWEED_SONAME, dlerror());
		return -1;
	}
	if (SYM(hmac_key, "nettle_hmac_sha256_set_key") || SYM(hmac_update, "nettle_hmac_sha256_update") ||
	    SYM(hmac_digest, "nettle_hmac_sha256_digest") || SYM(sha_init, "nettle_sha256_init") ||
	    SYM(sha_update, "nettle_sha256_update") || SYM(sha_digest, "nettle_sha256_digest") ||
	    SYM(b64_init, "nettle_base64_decode_init") || SYM(b64_update, "nettle_base64_decode_update") ||
	    SYM(b64_final, "nettle_base64_decode_final") || SYM(p256, "nettle_get_secp_256r1") ||
	    SYM(point_init, "nettle_ecc_point_init") || SYM(point_set, "nettle_ecc_point_set") ||
	    SYM(sig_init, "nettle_dsa_signature_init") || SYM(sig_clear, "nettle_dsa_signature_clear") ||
	    SYM(mpz_bytes, "nettle_mpz_set_str_256_u") || SYM(z_init, "__gmpz_init") ||
	    SYM(z_clear, "__gmpz_clear") || SYM(verify, "nettle_ecdsa_verify")) {
		nt.verify = NULL;
		dlclose(lib);
		return -1;
	}
	return 0; /* the library stays loaded for the life of the process */
}

void crypto_hmac_sha256(const uint8_t *key, size_t klen, const char *a, size_t an,
			const char *b, size_t bn, uint8_t out[EV_SHA256])
{
	struct hmac_sha256_ctx h;

	nt.hmac_key(&h, klen, key);
	nt.hmac_update(&h, an, (const uint8_t *)a);
	nt.hmac_update(&h, bn, (const uint8_t *)b);
	nt.hmac_digest(&h, EV_SHA256, out);
}

void crypto_sha256(const char *a, size_t an, const char *b, size_t bn, uint8_t out[EV_SHA256])
{
	struct sha256_ctx h;

	nt.sha_init(&h);
	nt.sha_update(&h, an, (const uint8_t *)a);
	nt.sha_update(&h, bn, (const uint8_t *)b);
	nt.sha_digest(&h, EV_SHA256, out);
}

long crypto_base64(const char *in, size_t n, uint8_t *out, size_t cap)
{
	struct base64_decode_ctx b;
	size_t len = cap;

	if (BASE64_DECODE_LENGTH(n) > cap)
		return -1;
	nt.b64_init(&b);
	if (!nt.b64_update(&b, &len, out, n, in) || !nt.b64_final(&b))
		return -1;
	return (long)len;
}

int crypto_p256_key(const uint8_t x[EV_P256], const uint8_t y[EV_P256])
{
	mpz_t zx, zy;
	int ok;

	nt.z_init(zx);
	nt.z_init(zy);
	nt.mpz_bytes(zx, EV_P256, x);
	nt.mpz_bytes(zy, EV_P256, y);
	nt.point_init(&pubkey, nt.p256());
	ok = nt.point_set(&pubkey, zx, zy); /* 0 when (x, y) is not on the curve */
	nt.z_clear(zx);
	nt.z_clear(zy);
	have_pubkey = ok;
	return ok ? 0 : -1;
}

int crypto_p256_verify(const uint8_t digest[EV_SHA256], const uint8_t *r, size_t rn,
		       const uint8_t *s, size_t sn)
{
	struct dsa_signature sig;
	int ok;

	if (!have_pubkey)
		return 0;
	nt.sig_init(&sig);
	nt.mpz_bytes(sig.r, rn, r);
	nt.mpz_bytes(sig.s, sn, s);
	ok = nt.verify(&pubkey, EV_SHA256, digest, &sig);
	nt.sig_clear(&sig);
	return ok;
}

int crypto_equal(const void *a, const void *b, size_t n)
{
	const volatile unsigned char *x = a, *y = b;
	unsigned char d = 0;

	for (size_t i = 0; i < n; i++)
		d |= x[i] ^ y[i];
	return d == 0;
}
