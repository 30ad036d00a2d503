/* scan_kumo.c - KumoMTA log records: one JSON object per line.
 *
 *   {"type":"Bounce","id":"1d98...","sender":"a@b","recipient":"c@d",
 *    "queue":"...","site":"...","size":1047,
 *    "response":{"code":550,"enhanced_code":{"class":5,"subject":1,"detail":1},
 *                "content":"user unknown","command":"RCPT TO:<c@d>\r\n"},
 *    "peer_address":{"name":"mx.d","addr":"192.0.2.1"},
 *    "timestamp":1678069691,"created":1678069680,"num_attempts":1,...}
 *
 * Delivery -> sent, TransientFailure -> deferred, Bounce, AdminBounce and OOB
 * (an out-of-band bounce read back) -> bounced, Expiration -> expired;
 * Reception, Feedback, Rejection and the other documented types are no
 * attempt (mta/kumo.c's table, which the KumoMTA webhook reader shares). The
 * reply is put back together as "code c.s.d content" (its head by mta/kumo.c)
 * so that scan.c reads its code and status as for any MTA. JSON is parsed with jansson after a nesting check, so
 * a hostile line costs no deep recursion. */
#include "scan/scan_formats.h"

#include <jansson.h>

#include "mta/mtarec.h"

#define KUMO_MAX_DEPTH 16 /* KumoMTA's records nest 4 deep (meta, headers may hold objects) */

/* Does the JSON text nest deeper than max (strings skipped)? */
static int too_deep(const char *p, size_t n, int max)
{
	int depth = 0, str = 0;

	for (size_t i = 0; i < n; i++) {
		char c = p[i];
		if (str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				str = 0;
		} else if (c == '"') {
			str = 1;
		} else if (c == '{' || c == '[') {
			if (++depth > max)
				return 1;
		} else if (c == '}' || c == ']') {
			depth--;
		}
	}
	return 0;
}

/* A copy of a JSON string into the scanner's buffer (empty when no string). */
static sd_str keep(sd_xfmt *x, json_t *v)
{
	size_t n = json_is_string(v) ? json_string_length(v) : 0;
	char *d = n ? sd_xf_alloc(x, n) : NULL;

	if (!d)
		return (sd_str){ "", 0 };
	memcpy(d, json_string_value(v), n);
	return (sd_str){ d, n };
}

/* A time: Unix seconds (a number) or an RFC 3339 string. */
static int time_of(json_t *v, sd_logtime *t)
{
	char num[24];

	if (json_is_string(v))
		return sd_xf_time((sd_str){ json_string_value(v), json_string_length(v) }, t);
	if (!json_is_integer(v) && !json_is_real(v))
		return 0;
	snprintf(num, sizeof(num), "%lld", (long long)json_number_value(v));
	return sd_xf_time((sd_str){ num, strlen(num) }, t);
}

/* "550 5.1.1 content": the reply as the remote wrote it. */
static sd_str reply_of(sd_xfmt *x, json_t *resp)
{
	json_t *content = json_object_get(resp, "content");
	size_t cn = json_is_string(content) ? json_string_length(content) : 0;
	char head[SD_KUMO_HEAD_MAX];
	size_t k = sd_kumo_reply_head(resp, head);
	char *d;

	if (!(d = sd_xf_alloc(x, k + cn)))
		return SD_NULLSTR;
	memcpy(d, head, k);
	if (cn)
		memcpy(d + k, json_string_value(content), cn);
	return sd_trim((sd_str){ d, k + cn });
}

/* "name[addr]" of peer_address, else the site. */
static sd_str relay_of(sd_xfmt *x, json_t *o)
{
	json_t *peer = json_object_get(o, "peer_address");
	sd_str name = keep(x, json_object_get(peer, "name")), addr = keep(x, json_object_get(peer, "addr"));
	char *d;

	if (!addr.n)
		return name.n ? name : keep(x, json_object_get(o, "site"));
	if (!(d = sd_xf_alloc(x, name.n + addr.n + 2)))
		return name;
	memcpy(d, name.p, name.n);
	d[name.n] = '[';
	memcpy(d + name.n + 1, addr.p, addr.n);
	d[name.n + 1 + addr.n] = ']';
	return (sd_str){ d, name.n + addr.n + 2 };
}

/* The record's type as a scan action: 0 for no attempt, -1 for a type
 * KumoMTA does not document (mta/kumo.c decides which is which). */
static int type_of(json_t *t)
{
	if (!json_is_string(t))
		return -1;
	switch (sd_kumo_type((sd_str){ json_string_value(t), json_string_length(t) })) {
	case SD_MTA_SENT: return SD_ACT_SENT;
	case SD_MTA_DEFERRED: return SD_ACT_DEFERRED;
	case SD_MTA_BOUNCED: case SD_MTA_ADMIN: case SD_MTA_OOB: return SD_ACT_BOUNCED;
	case SD_MTA_EXPIRED: return SD_ACT_EXPIRED;
	case SD_MTA_UNKNOWN: return -1;
	default: return 0; /* a feedback report, a reception ...: no attempt */
	}
}

static int records(sd_xfmt *x, sd_logline *l, json_t *o, int act)
{
	json_t *resp = json_object_get(o, "response"), *rcpt = json_object_get(o, "recipient");
	sd_lograw t;
	sd_logtime created;
	size_t nr = json_is_array(rcpt) ? json_array_size(rcpt) : 1;

	memset(&t, 0, sizeof(t));
	t.action = act;
	t.delay = -1;
	t.queueid = keep(x, json_object_get(o, "id"));
	t.sender = keep(x, json_object_get(o, "sender"));
	t.relay = relay_of(x, o);
	t.reply = reply_of(x, resp);
	t.text = t.reply;
	t.command = keep(x, json_object_get(resp, "command"));
	l->h.has_time = time_of(json_object_get(o, "timestamp"), &l->h.time);
	if (l->h.has_time && time_of(json_object_get(o, "created"), &created)) {
		int64_t a = sd_xf_epoch(&created), b = sd_xf_epoch(&l->h.time);
		if (a && b && b >= a)
			t.delay = b - a;
	}
	if (!nr)
		return SMTPDIAG_EPARSE;
	for (size_t i = 0; i < nr; i++) {
		sd_lograw *r = sd_scan_add(l);
		if (!r)
			return SMTPDIAG_ELIMIT;
		*r = t;
		r->recipient = keep(x, json_is_array(rcpt) ? json_array_get(rcpt, i) : rcpt);
		if (!r->recipient.n)
			return SMTPDIAG_EPARSE;
	}
	return (int)nr;
}

int sd_scan_kumo(sd_xfmt *x, sd_logline *l, const char *p, size_t n, int *mine)
{
	json_error_t je;
	json_t *o;
	int act, rc;

	if (!n || p[0] != '{')
		return 0;
	x->used = 0;
	x->nf = 0;
	if (too_deep(p, n, KUMO_MAX_DEPTH) || !(o = json_loadb(p, n, 0, &je))) {
		/* broken JSON that names a KumoMTA field is a record we cannot read */
		*mine = sd_memmem(p, n, "\"response\"", 10) != NULL && sd_memmem(p, n, "\"type\"", 6) != NULL;
		return *mine ? SMTPDIAG_EPARSE : 0;
	}
	act = json_is_object(o) ? type_of(json_object_get(o, "type")) : -1;
	if (act < 0 || (act > 0 && !json_object_get(o, "recipient"))) {
		/* another JSON log, or a record of a type this reader does not know */
		*mine = act >= 0;
		json_decref(o);
		return *mine ? SMTPDIAG_EPARSE : 0;
	}
	*mine = 1;
	rc = 0;
	if (act > 0) {
		sd_xf_envelope(l, "kumomta", "kumod");
		rc = records(x, l, o, act);
	}
	json_decref(o);
	return rc;
}
