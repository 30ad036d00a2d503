/* events_auth.c - the shared-secret checks of /api/v1/events, one per service
 * that signs its webhook posts, each on only when its key is configured:
 *   Mailgun   HMAC-SHA256 of timestamp + token under the webhook signing key,
 *             hex in "signature" (the JSON body's signature object, or the
 *             fields of a legacy form post); the timestamp within
 *             EV_MAILGUN_WINDOW of the clock. The signature covers the
 *             timestamp and the token, not the body: the token is taken once
 *             (events_replay.c) and the post must hold one event, as Mailgun
 *             posts them.
 *   Postmark  HTTP Basic credentials (the user:password of the webhook URL);
 *             nothing in them changes from post to post, so nothing can tell
 *             a replay.
 *   SendGrid  ECDSA P-256 over SHA-256 of the X-Twilio-Email-Event-Webhook-
 *             Timestamp header then the raw body; the signature, base64 DER,
 *             in X-Twilio-Email-Event-Webhook-Signature; the timestamp within
 *             EV_SENDGRID_WINDOW of the clock, and that digest (timestamp and
 *             body, whatever the signature's encoding) taken once.
 * Keys are read once at start, before privileges are dropped, and are read
 * only afterwards. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "events.h"

#define SG_SIG_HDR "X-Twilio-Email-Event-Webhook-Signature"
#define SG_TS_HDR "X-Twilio-Email-Event-Webhook-Timestamp"
#define EV_DER_MAX 80 /* bytes of an ECDSA P-256 signature in DER (72 at most) */

enum { K_MAILGUN, K_POSTMARK, K_SENDGRID, K_COUNT };
static const char *const kname[K_COUNT] = { "mailgun", "postmark", "sendgrid" };

static struct {
	int on;
	unsigned long bit;       /* the service's bit in smtpdiag_events_services() */
	uint8_t secret[EV_KEY_MAX];
	size_t n;
} keys[K_COUNT];

/* ---- reading the key files ---- */

static int read_small(const char *path, uint8_t *buf, size_t *n, const char *opt, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;
	size_t len = 0;

	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot open %s: %s", opt, path, strerror(errno));
		return -1;
	}
	while ((got = read(fd, buf + len, EV_KEY_MAX - len)) > 0 && (len += (size_t)got) < EV_KEY_MAX)
		;
	close(fd);
	if (got < 0 || len >= EV_KEY_MAX) {
		snprintf(err, errlen, "%s: %s: %s", opt, path, got < 0 ? strerror(errno) : "over 4096 bytes");
		return -1;
	}
	while (len && isspace(buf[len - 1]))
		len--;
	*n = len;
	if (!len) {
		snprintf(err, errlen, "%s: %s is empty", opt, path);
		return -1;
	}
	return 0;
}

/* The base64 between PEM armour lines, or the whole text. */
static const char *pem_body(const char *t, size_t n, size_t *len)
{
	const char *b = memmem(t, n, "-----BEGIN", 10), *e;

	*len = n;
	if (!b)
		return t;
	if (!(b = memchr(b, '\n', n - (size_t)(b - t))) || !(e = memmem(b, n - (size_t)(b - t), "-----END", 8)))
		return NULL;
	*len = (size_t)(e - b);
	return b;
}

/* A SubjectPublicKeyInfo of an uncompressed P-256 point, as SendGrid shows it
 * and `openssl ec -pubout` writes it: this prefix, then 0x04 X Y. */
static const uint8_t spki_p256[] = { 0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48,
				     0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48,
				     0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00, 0x04 };

static int sendgrid_key(const uint8_t *text, size_t n, char *err, size_t errlen)
{
	uint8_t der[EV_KEY_MAX];
	size_t blen;
	const char *b64 = pem_body((const char *)text, n, &blen);
	long dn = b64 ? crypto_base64(b64, blen, der, sizeof(der)) : -1;

	if (dn != (long)sizeof(spki_p256) + 2 * EV_P256 || memcmp(der, spki_p256, sizeof(spki_p256))) {
		snprintf(err, errlen, "--sendgrid-public-key: not an ECDSA P-256 public key (PEM or base64 DER)");
		return -1;
	}
	if (crypto_p256_key(der + sizeof(spki_p256), der + sizeof(spki_p256) + EV_P256) < 0) {
		snprintf(err, errlen, "--sendgrid-public-key: the point is not on the P-256 curve");
		return -1;
	}
	return 0;
}

static int key_bit(int k)
{
	const char *name;

	for (size_t i = 0; (name = smtpdiag_esp_name(i)) != NULL; i++)
		if (!strcmp(name, kname[k])) {
			keys[k].bit = 1ul << i;
			return 0;
		}
	return -1;
}

static int load_key(int k, const char *path, const char *opt, char *err, size_t errlen)
{
	if (!path)
		return 0;
	if (key_bit(k) < 0) {
		snprintf(err, errlen, "%s: the library has no %s reader", opt, kname[k]);
		return -1;
	}
	if (read_small(path, keys[k].secret, &keys[k].n, opt, err, errlen) < 0)
		return -1;
	if (k == K_POSTMARK && !memchr(keys[k].secret, ':', keys[k].n)) {
		snprintf(err, errlen, "%s: %s must hold user:password", opt, path);
		return -1;
	}
	if (k == K_SENDGRID && sendgrid_key(keys[k].secret, keys[k].n, err, errlen) < 0)
		return -1;
	keys[k].on = 1;
	return 0;
}

int httpd_events_init(const httpd_events_keys *k, char *err, size_t errlen)
{
	if (!k->mailgun && !k->postmark && !k->sendgrid)
		return 0;
	if (crypto_load(err, errlen) < 0)
		return -1;
	return load_key(K_MAILGUN, k->mailgun, "--mailgun-signing-key", err, errlen) < 0 ||
	       load_key(K_POSTMARK, k->postmark, "--postmark-basic-auth", err, errlen) < 0 ||
	       load_key(K_SENDGRID, k->sendgrid, "--sendgrid-public-key", err, errlen) < 0 ? -1 : 0;
}

int events_auth_any(void)
{
	return keys[K_MAILGUN].on || keys[K_POSTMARK].on || keys[K_SENDGRID].on;
}

int events_auth_covers(unsigned long mask)
{
	unsigned long left = mask;

	for (int k = 0; k < K_COUNT; k++)
		if (keys[k].on)
			left &= ~keys[k].bit;
	return mask && !left;
}

/* ---- Mailgun ---- */

typedef struct mg_sig {
	char ts[EV_SIG_MAX], token[EV_SIG_MAX], sig[EV_SIG_MAX];
} mg_sig;

static void take(char *to, const char *s, size_t n)
{
	if (n >= EV_SIG_MAX)
		n = 0; /* longer than any real one: left empty, so the check fails */
	memcpy(to, s, n);
	to[n] = '\0';
}

static void take_json(char *to, json_t *v)
{
	char num[32];

	if (json_is_string(v))
		take(to, json_string_value(v), json_string_length(v));
	else if (json_is_integer(v) && snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(v)) > 0)
		take(to, num, strlen(num));
}

static int mg_from_json(const hreq *r, mg_sig *m)
{
	json_error_t je;
	json_t *o = json_loadb(r->body, r->blen, 0, &je), *s = json_object_get(o, "signature");
	int found = json_is_object(s);

	if (found) {
		take_json(m->ts, json_object_get(s, "timestamp"));
		take_json(m->token, json_object_get(s, "token"));
		take_json(m->sig, json_object_get(s, "signature"));
	}
	json_decref(o);
	return found ? 0 : -1;
}

static int mg_from_form(const hreq *r, mg_sig *m)
{
	static const char *const names[] = { "timestamp", "token", "signature" };
	char *to[] = { m->ts, m->token, m->sig };
	char *copy = malloc(r->blen + 1); /* form_field decodes in place: the body stays as sent */
	size_t n;

	if (!copy)
		return -1;
	for (int i = 0; i < 3; i++) {
		memcpy(copy, r->body, r->blen);
		copy[r->blen] = '\0';
		const char *v = form_field(copy, r->blen, names[i], &n);
		if (v)
			take(to[i], v, n);
	}
	free(copy);
	return 0;
}

/* The Unix time in ts when it is within window seconds of the clock, else 0. */
static long long fresh(const char *ts, long window)
{
	char *end;
	long long t, off;

	errno = 0;
	t = strtoll(ts, &end, 10);
	if (!*ts || *end || errno || t <= 0)
		return 0;
	off = t - (long long)time(NULL);
	return off >= -window && off <= window ? t : 0;
}

/* Take the signature that key stands for, good until until: 0, or the status to refuse with. */
static int take_once(ev_auth *a, const uint8_t key[EV_SHA256], long long until, const char *service)
{
	int rc = events_replay_take(key, (int64_t)until);

	if (rc == EV_REPLAY_NEW) {
		memcpy(a->taken[a->ntaken++], key, EV_SHA256);
		return 0;
	}
	if (rc == EV_REPLAY_SEEN)
		snprintf(a->why, sizeof(a->why), "%s signature already used: a post is taken once (a replay?)", service);
	else
		snprintf(a->why, sizeof(a->why), "%s: too many signed posts inside their window (EV_REPLAY_MAX); "
			 "try again later", service);
	return rc == EV_REPLAY_SEEN ? 409 : 503;
}

static int mailgun_check(const hreq *r, const char *esp, ev_auth *a)
{
	char *why = a->why;
	size_t whylen = sizeof(a->why), nev;
	long long ts;
	static const char hex[] = "0123456789abcdef";
	uint8_t mac[EV_SHA256];
	char want[2 * EV_SHA256], got[2 * EV_SHA256];
	mg_sig m = { "", "", "" };
	size_t i = 0;

	while (i < r->blen && isspace((unsigned char)r->body[i]))
		i++;
	if ((i < r->blen && r->body[i] == '{' ? mg_from_json(r, &m) : mg_from_form(r, &m)) < 0 || !m.sig[0]) {
		snprintf(why, whylen, "Mailgun post without a signature (one signed event per post)");
		return 401;
	}
	if (!(ts = fresh(m.ts, EV_MAILGUN_WINDOW))) {
		snprintf(why, whylen, "Mailgun signature timestamp missing or more than %d minutes off the clock",
			 EV_MAILGUN_WINDOW / 60);
		return 401;
	}
	crypto_hmac_sha256(keys[K_MAILGUN].secret, keys[K_MAILGUN].n, m.ts, strlen(m.ts), m.token,
			   strlen(m.token), mac);
	for (i = 0; i < EV_SHA256; i++) {
		want[2 * i] = hex[mac[i] >> 4];
		want[2 * i + 1] = hex[mac[i] & 15];
	}
	for (i = 0; i < sizeof(got); i++)
		got[i] = (char)tolower((unsigned char)m.sig[i]); /* m.sig is NUL-padded past its end */
	if (strlen(m.sig) != sizeof(got) || !crypto_equal(want, got, sizeof(got))) {
		snprintf(why, whylen, "Mailgun signature does not match the signing key");
		return 401;
	}
	if ((nev = smtpdiag_events_count(r->body, r->blen, esp)) != 1) {
		snprintf(why, whylen, "a signed Mailgun post holds one event (Mailgun posts one a request); "
			 "this one holds %zu", nev);
		return 401;
	}
	crypto_sha256("mailgun token ", 14, m.token, strlen(m.token), mac);
	return take_once(a, mac, ts + EV_MAILGUN_WINDOW, "Mailgun");
}

/* ---- Postmark ---- */

static int postmark_check(const hreq *r, ev_auth *a)
{
	char *why = a->why;
	size_t whylen = sizeof(a->why);
	const char *h = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	uint8_t got[EV_KEY_MAX] = { 0 };
	long n = -1;

	if (h && !strncasecmp(h, "Basic ", 6))
		n = crypto_base64(h + 6, strlen(h + 6), got, sizeof(got));
	if (n < 0) {
		snprintf(why, whylen, "Postmark post without HTTP Basic credentials");
		return 401;
	}
	if (!crypto_equal(got, keys[K_POSTMARK].secret, keys[K_POSTMARK].n) | ((size_t)n != keys[K_POSTMARK].n)) {
		snprintf(why, whylen, "Postmark post with wrong HTTP Basic credentials");
		return 401;
	}
	return 0;
}

/* ---- SendGrid ---- */

/* One DER INTEGER at *p (short form, positive): its bytes, or -1. */
static int der_int(const uint8_t *d, size_t n, size_t *p, const uint8_t **v, size_t *vn)
{
	if (*p + 2 > n || d[*p] != 0x02 || d[*p + 1] == 0 || d[*p + 1] > EV_P256 + 1)
		return -1;
	*vn = d[*p + 1];
	*v = d + *p + 2;
	if (*p + 2 + *vn > n || (**v & 0x80))
		return -1;
	*p += 2 + *vn;
	return 0;
}

static int sendgrid_check(const hreq *r, ev_auth *a)
{
	char *why = a->why;
	size_t whylen = sizeof(a->why);
	long long t;
	const char *sig = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, SG_SIG_HDR);
	const char *ts = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, SG_TS_HDR);
	uint8_t der[EV_DER_MAX], digest[EV_SHA256];
	const uint8_t *rv, *sv;
	size_t rn, sn, p = 2;
	long n = sig && ts ? crypto_base64(sig, strlen(sig), der, sizeof(der)) : -1;

	if (n < 0 || strlen(ts) > EV_SIG_MAX) {
		snprintf(why, whylen, "SendGrid post without its signature and timestamp headers");
		return 401;
	}
	if (n < 8 || der[0] != 0x30 || der[1] != n - 2 || der_int(der, (size_t)n, &p, &rv, &rn) < 0 ||
	    der_int(der, (size_t)n, &p, &sv, &sn) < 0 || p != (size_t)n) {
		snprintf(why, whylen, "SendGrid signature is not an ECDSA signature (base64 DER)");
		return 401;
	}
	crypto_sha256(ts, strlen(ts), r->body, r->blen, digest);
	if (!crypto_p256_verify(digest, rv, rn, sv, sn)) {
		snprintf(why, whylen, "SendGrid signature does not match the public key");
		return 401;
	}
	if (!(t = fresh(ts, EV_SENDGRID_WINDOW))) {
		snprintf(why, whylen, "SendGrid signature timestamp more than %d minutes off the clock",
			 EV_SENDGRID_WINDOW / 60);
		return 401;
	}
	return take_once(a, digest, t + EV_SENDGRID_WINDOW, "SendGrid");
}

int events_auth_check(hreq *r, unsigned long mask, const char *esp, ev_auth *a)
{
	int st = 0;

	memset(a, 0, sizeof(*a));
	if (keys[K_POSTMARK].on && (mask & keys[K_POSTMARK].bit) && (st = postmark_check(r, a)) != 0)
		a->basic = 1;
	else if (keys[K_MAILGUN].on && (mask & keys[K_MAILGUN].bit) && (st = mailgun_check(r, esp, a)) != 0)
		;
	else if (keys[K_SENDGRID].on && (mask & keys[K_SENDGRID].bit))
		st = sendgrid_check(r, a);
	if (st)
		events_auth_release(a);
	return st;
}

void events_auth_release(ev_auth *a)
{
	for (int i = 0; i < a->ntaken; i++)
		events_replay_forget(a->taken[i]);
	a->ntaken = 0;
}
