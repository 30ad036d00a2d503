/* record.c - a verdict as the store takes it: from decode's or scan's JSON
 * (jansson), from a decode fact or a scan record. The kind of a record comes
 * from the verdict's own fields (advice, reason, action, hardbounce, retry);
 * nothing is decided again here. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "store/store.h"
#include "core/util.h"

#define ST_KEY_SEED1 SD_FNV1A_BASIS
#define ST_KEY_SEED2 UINT64_C(0x84222325cbf29ce4)
#define ST_TOKEN_MAX 128 /* a longer token, or one not in [0-9a-z], is hashed */

const char *st_kind_name(char kind)
{
	switch (kind) {
	case ST_HARD: return "hard";
	case ST_COMPLAINT: return "complaint";
	case ST_SOFT: return "soft";
	case ST_DEFERRED: return "deferred";
	case ST_DELIVERED: return "delivered";
	case ST_SENDER: return "sender";
	case ST_REDACTED: return "complaint-redacted";
	default: return "other";
	}
}

static char kind_of(const st_rec *r)
{
	/* a refusal the reader's own server gave a client (scan's reject
	 * records): no verdict on the recipient's mailbox, counted only */
	if (!strcmp(r->action, "rejected"))
		return ST_OTHER;
	if (!strncmp(r->advice, "fix-sender", 10) || !strcmp(r->advice, "fix-message"))
		return ST_SENDER;
	/* a report taking a complaint back is none; a complaint naming no
	 * address to suppress (advice none) counts for its sender only */
	if (!strcmp(r->reason, "feedback") && !strcasecmp(r->feedbacktype, "not-spam"))
		return ST_OTHER;
	if (!strcmp(r->reason, "feedback"))
		return strcmp(r->advice, "none") ? ST_COMPLAINT : ST_REDACTED;
	if (!strcmp(r->reason, "delivered") || !strcmp(r->action, "delivered") || !strcmp(r->action, "sent"))
		return ST_DELIVERED;
	if (!strcmp(r->action, "delayed") || !strcmp(r->action, "deferred"))
		return ST_DEFERRED;
	if (r->hardbounce || !strcmp(r->advice, "suppress-recipient"))
		return ST_HARD;
	if (r->retry)
		return ST_SOFT;
	return ST_OTHER;
}


static uint64_t key_hash(uint64_t h, const st_rec *r, const char *token)
{
	char ts[24];
	int n = snprintf(ts, sizeof(ts), "%lld", (long long)r->ts);

	if (token[0])
		return sd_fnv1a(h, token, strlen(token) + 1);
	h = sd_fnv1a(h, r->addresser, strlen(r->addresser) + 1);
	h = sd_fnv1a(h, r->recipient, strlen(r->recipient) + 1);
	h = sd_fnv1a(h, ts, (size_t)n + 1);
	return sd_fnv1a(h, r->status, strlen(r->status) + 1);
}

/* "t" + the token when it is plain [0-9a-z], else "k" + 32 hex digits of a hash */
static void make_key(st_rec *r, const char *token)
{
	size_t n = strlen(token);
	int plain = n > 0 && n <= ST_TOKEN_MAX;

	for (size_t i = 0; plain && i < n; i++)
		plain = (token[i] >= '0' && token[i] <= '9') || (token[i] >= 'a' && token[i] <= 'z');
	if (plain) {
		r->key[0] = 't';
		memcpy(r->key + 1, token, n + 1);
		return;
	}
	snprintf(r->key, sizeof(r->key), "k%016llx%016llx",
		 (unsigned long long)key_hash(ST_KEY_SEED1, r, token),
		 (unsigned long long)key_hash(ST_KEY_SEED2, r, token));
}

/* ---- valid UTF-8 ---- */

#define ST_REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */

int st_address(char *out, size_t cap, const char *in)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t o = 0, n = strlen(in), k;

	for (size_t i = 0; i < n; i += k) {
		k = sd_utf8_len(p + i, n - i);
		if (o + (k ? k : 5) >= cap)
			return -1;
		if (k == 1)
			out[o++] = (p[i] >= 'A' && p[i] <= 'Z') ? (char)(p[i] + 32) : (char)p[i];
		else if (k)
			memcpy(out + o, p + i, k), o += k;
		else
			o += (size_t)snprintf(out + o, cap - o, ST_REPLACEMENT "%02x", p[i]), k = 1;
	}
	out[o] = 0;
	return 0;
}

void st_utf8(char *out, size_t cap, const char *in)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t o = 0, n = strlen(in), k;

	for (size_t i = 0; i < n; i += k ? k : 1) {
		k = sd_utf8_len(p + i, n - i);
		if (o + (k ? k : 3) >= cap)
			break;
		memcpy(out + o, k ? in + i : ST_REPLACEMENT, k ? k : 3);
		o += k ? k : 3;
	}
	out[o] = 0;
}

static int valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), k;

	for (size_t i = 0; i < n; i += k)
		if (!(k = sd_utf8_len(p + i, n - i)))
			return 0;
	return 1;
}

/* Each text field that is not valid UTF-8 rewritten into r->fixed (a field is
 * at most ST_MAX_FIELD bytes: 3 times that rewritten). */
static int fix_fields(st_rec *r, smtpdiag_error *err)
{
	const char **f[] = { &r->addresser, &r->senderdomain, &r->reason, &r->status, &r->replycode,
			     &r->action, &r->advice, &r->origin, &r->ip };
	size_t used = 0;

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		size_t need = 3 * strlen(*f[i]) + 1;
		if (valid(*f[i]))
			continue;
		if (used + need > sizeof(r->fixed))
			return st_err(err, SMTPDIAG_ELIMIT, "the fields that are not valid UTF-8 are over %d "
				      "bytes once rewritten", ST_FIX_MAX);
		st_utf8(r->fixed + used, need, *f[i]);
		*f[i] = r->fixed + used;
		used += strlen(r->fixed + used) + 1;
	}
	return 0;
}

static int set_recipient(st_rec *r, const char *rcpt, smtpdiag_error *err)
{
	const char *at;

	if (strlen(rcpt) >= sizeof(r->recipient) || st_address(r->recipient, sizeof(r->recipient), rcpt) < 0)
		return st_err(err, SMTPDIAG_ELIMIT, "recipient longer than %d bytes%s", ST_MAX_FIELD - 1,
			      strlen(rcpt) < sizeof(r->recipient) ? " once its bytes that are not UTF-8 are escaped" : "");
	at = strrchr(r->recipient, '@');
	r->domain = at ? at + 1 : "";
	return 0;
}

/* diagnosticcode as valid UTF-8, cut to ST_MAX_DIAG bytes at a character boundary */
static void set_diag(st_rec *r, const char *d)
{
	st_utf8(r->diag, sizeof(r->diag), d);
}

static const char *sender_domain(const char *addresser)
{
	const char *at = strrchr(addresser, '@');
	return at ? at + 1 : "";
}

/* The checks every source goes through, and the key and kind. */
static int finish(st_rec *r, const char *rcpt, const char *token, const char *diag, smtpdiag_error *err)
{
	const char *f[] = { r->addresser, r->senderdomain, r->reason, r->status, r->replycode,
			    r->action, r->advice, r->origin, r->ip, token };
	int rc;

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (strlen(f[i]) >= ST_MAX_FIELD)
			return st_err(err, SMTPDIAG_ELIMIT, "a field is longer than %d bytes", ST_MAX_FIELD - 1);
	if ((rc = set_recipient(r, rcpt, err)) < 0)
		return rc;
	if (!r->senderdomain[0])
		r->senderdomain = sender_domain(r->addresser);
	set_diag(r, diag);
	make_key(r, token); /* of the bytes as they came: two records stay two */
	if ((rc = fix_fields(r, err)) < 0)
		return rc;
	r->kind = kind_of(r);
	return 0;
}

int st_rec_fact(st_rec *r, const smtpdiag_fact *f, smtpdiag_error *err)
{
	r->addresser = f->addresser;
	r->senderdomain = f->senderdomain;
	r->reason = f->reason;
	r->status = f->deliverystatus;
	r->replycode = f->replycode;
	r->action = f->action;
	r->advice = f->advice;
	r->origin = f->origin;
	r->ip = f->lhost;
	r->ts = f->timestamp;
	r->hardbounce = f->hardbounce;
	r->retry = f->retry;
	r->feedbacktype = f->feedbacktype ? f->feedbacktype : "";
	return finish(r, f->recipient, f->token, f->diagnosticcode, err);
}

int st_rec_logrec(st_rec *r, const smtpdiag_logrec *l, smtpdiag_error *err)
{
	r->addresser = l->sender;
	r->senderdomain = "";
	r->reason = l->reason;
	r->status = l->status;
	r->replycode = l->replycode;
	r->action = l->action;
	r->advice = l->advice;
	r->origin = l->queueid;
	r->ip = l->host;
	r->ts = l->timestamp;
	r->hardbounce = l->hardbounce;
	r->retry = l->retry;
	r->feedbacktype = "";
	return finish(r, l->recipient, "", l->diagnosticcode, err);
}

/* ---- JSON ---- */

/* A string member: "" when absent or null; -1 when of another type. */
static int jstr(json_t *o, const char *name, const char **out)
{
	json_t *v = json_object_get(o, name);

	*out = "";
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return -1;
	*out = json_string_value(v);
	return 0;
}

/* The first of two names that is present (decode's name, then scan's). */
static int jstr2(json_t *o, const char *a, const char *b, const char **out)
{
	if (jstr(o, a, out) < 0)
		return -1;
	return (*out)[0] ? 0 : jstr(o, b, out);
}

static int jbool(json_t *o, const char *name, int *out)
{
	json_t *v = json_object_get(o, name);

	*out = 0;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_boolean(v))
		return -1;
	*out = json_is_true(v);
	return 0;
}

static int jint(json_t *o, const char *name, int64_t *out)
{
	json_t *v = json_object_get(o, name);

	*out = 0;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v))
		return -1;
	*out = (int64_t)json_integer_value(v);
	return 0;
}

static int fields(st_rec *r, json_t *o, const char **rcpt, const char **token, const char **diag)
{
	int bad = 0;

	bad |= jstr(o, "recipient", rcpt) | jstr(o, "token", token) | jstr(o, "diagnosticcode", diag);
	bad |= jstr2(o, "addresser", "sender", &r->addresser) | jstr(o, "senderdomain", &r->senderdomain);
	bad |= jstr(o, "reason", &r->reason) | jstr2(o, "deliverystatus", "status", &r->status);
	bad |= jstr(o, "replycode", &r->replycode) | jstr(o, "action", &r->action);
	bad |= jstr(o, "advice", &r->advice) | jstr2(o, "origin", "queueid", &r->origin);
	bad |= jstr2(o, "lhost", "host", &r->ip) | jstr(o, "feedbacktype", &r->feedbacktype);
	bad |= jint(o, "timestamp", &r->ts) | jbool(o, "hardbounce", &r->hardbounce) | jbool(o, "retry", &r->retry);
	return bad;
}

/* The record from st_jline's members, as fields() gives it from jansson's. */
static int from_jline(st_rec *r, const st_jfields *f, smtpdiag_error *err)
{
	const char *const *v = f->s;

	r->addresser = v[ST_JF_ADDRESSER][0] ? v[ST_JF_ADDRESSER] : v[ST_JF_SENDER];
	r->senderdomain = v[ST_JF_SENDERDOMAIN];
	r->reason = v[ST_JF_REASON];
	r->status = v[ST_JF_DSTATUS][0] ? v[ST_JF_DSTATUS] : v[ST_JF_STATUS];
	r->replycode = v[ST_JF_REPLYCODE];
	r->action = v[ST_JF_ACTION];
	r->advice = v[ST_JF_ADVICE];
	r->origin = v[ST_JF_ORIGIN][0] ? v[ST_JF_ORIGIN] : v[ST_JF_QUEUEID];
	r->ip = v[ST_JF_LHOST][0] ? v[ST_JF_LHOST] : v[ST_JF_HOST];
	r->ts = f->ts;
	r->hardbounce = f->hardbounce;
	r->retry = f->retry;
	r->feedbacktype = v[ST_JF_FEEDBACKTYPE];
	return finish(r, v[ST_JF_RECIPIENT], v[ST_JF_TOKEN], v[ST_JF_DIAG], err);
}

#define ST_JF_VERDICT (1u << ST_JF_RECIPIENT | 1u << ST_JF_REASON)

int st_rec_json(st_rec *r, const char *line, size_t len, char *scratch, void **hold,
		smtpdiag_error *err)
{
	json_error_t je;
	json_t *o;
	st_jfields f;
	const char *rcpt, *token, *diag;

	*hold = NULL;
	if (len > SMTPDIAG_STORE_MAX_LINE)
		return st_err(err, SMTPDIAG_ELIMIT, "line longer than %u bytes", SMTPDIAG_STORE_MAX_LINE);
	if (scratch && st_jline(&f, line, len, scratch) == 0 && (f.present & ST_JF_VERDICT) == ST_JF_VERDICT)
		return from_jline(r, &f, err);
	o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
	if (!o)
		return st_err(err, SMTPDIAG_EPARSE, "not JSON: %s (column %d)", je.text, je.column);
	*hold = o;
	if (!json_is_object(o))
		return st_err(err, SMTPDIAG_EPARSE, "not a JSON object");
	if (!json_object_get(o, "recipient") || !json_object_get(o, "reason"))
		return st_err(err, SMTPDIAG_EPARSE, "no verdict: \"recipient\" or \"reason\" is missing");
	if (fields(r, o, &rcpt, &token, &diag))
		return st_err(err, SMTPDIAG_EPARSE, "a verdict field has the wrong type");
	return finish(r, rcpt, token, diag, err);
}

void st_rec_release(void *hold)
{
	json_decref(hold);
}
