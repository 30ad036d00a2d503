/* esp_util.c - what every ESP reader shares: values by path, times, records. */
#include "esp/esp.h"
#include "mime/datetime.h"
#include "mta/mtarec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ESP_PATH_MAX 64 /* bytes of one dotted path */

json_t *sd_esp_get(json_t *o, const char *path)
{
	char key[ESP_PATH_MAX];
	const char *dot;
	size_t n;

	while (o && json_is_object(o)) {
		dot = strchr(path, '.');
		if (!dot)
			return json_object_get(o, path);
		n = (size_t)(dot - path);
		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		o = json_object_get(o, key);
		path = dot + 1;
	}
	return NULL;
}

sd_str sd_esp_str(sd_esp_ev *e, json_t *o, const char *path)
{
	json_t *v = sd_esp_get(o, path);
	char num[32];
	int k;

	if (json_is_string(v))
		return (sd_str){ json_string_value(v), json_string_length(v) };
	if (json_is_integer(v))
		k = snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		k = snprintf(num, sizeof(num), "%.0f", json_real_value(v));
	else
		return SD_NULLSTR;
	if (k <= 0 || (size_t)k >= sizeof(num))
		return SD_NULLSTR;
	return (sd_str){ sd_arena_strndup(e->c->a, num, (size_t)k), (size_t)k };
}

int sd_esp_is(json_t *o, const char *path, const char *lit)
{
	json_t *v = sd_esp_get(o, path);

	return json_is_string(v) &&
	       sd_str_caseeq((sd_str){ json_string_value(v), json_string_length(v) }, lit);
}

int sd_esp_mentions(sd_str text, const char *lit)
{
	return text.n && sd_memcasemem(text.p, text.n, lit, strlen(lit)) != NULL;
}

int sd_esp_has(json_t *o, const char *path)
{
	return sd_esp_get(o, path) != NULL;
}

int sd_esp_bool(json_t *o, const char *path)
{
	json_t *v = sd_esp_get(o, path);

	if (json_is_true(v))
		return 1;
	if (json_is_integer(v))
		return json_integer_value(v) != 0;
	return sd_esp_is(o, path, "true");
}

static int64_t unix_seconds(double t)
{
	if (t > 1e11) /* milliseconds */
		t /= 1000;
	return t > 0 && t < 1e11 ? (int64_t)t : 0;
}

static int all_digits(const char *s, size_t n)
{
	size_t dots = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '.' && ++dots == 1 && i)
			continue;
		if (s[i] < '0' || s[i] > '9')
			return 0;
	}
	return n > 0;
}

int64_t sd_esp_time(json_t *v)
{
	int64_t t;
	int tz;

	if (json_is_integer(v))
		return unix_seconds((double)json_integer_value(v));
	if (json_is_real(v))
		return unix_seconds(json_real_value(v));
	if (!json_is_string(v))
		return 0;
	if (all_digits(json_string_value(v), json_string_length(v)))
		return unix_seconds(strtod(json_string_value(v), NULL));
	if (sd_date_parse((sd_str){ json_string_value(v), json_string_length(v) }, &t, &tz))
		return t;
	return 0;
}

static size_t put_part(char *d, size_t at, sd_str s)
{
	s = sd_trim(s);
	if (!s.n)
		return at;
	if (at && at < SD_ESP_TYPE_MAX - 1)
		d[at++] = '/';
	for (size_t i = 0; i < s.n && at < SD_ESP_TYPE_MAX - 1; i++)
		d[at++] = s.p[i] == '/' ? '_' : s.p[i];
	return at;
}

void sd_esp_type(sd_esp_ev *e, sd_str a, sd_str b, sd_str c)
{
	size_t at = put_part(e->type, 0, a);

	at = put_part(e->type, at, b);
	at = put_part(e->type, at, c);
	e->type[at] = '\0';
}

sd_str sd_esp_join(sd_esp_ev *e, sd_str a, sd_str b)
{
	char *d;

	a = sd_trim(a);
	b = sd_trim(b);
	if (!b.n || (a.n && sd_memmem(a.p, a.n, b.p, b.n)))
		return a;
	if (!a.n || sd_memmem(b.p, b.n, a.p, a.n))
		return b;
	d = sd_arena_alloc(e->c->a, a.n + b.n + 3);
	if (!d)
		return a;
	memcpy(d, a.p, a.n);
	memcpy(d + a.n, "; ", 2);
	memcpy(d + a.n + 2, b.p, b.n);
	d[a.n + b.n + 2] = '\0';
	return (sd_str){ d, a.n + b.n + 2 };
}

void sd_esp_rec_init(sd_esp_rec *rec, sd_str rcpt)
{
	memset(rec, 0, sizeof(*rec));
	rec->rcpt = rcpt;
	rec->hint = -1;
}

void sd_esp_origin(sd_esp_ev *e, sd_str from, sd_str messageid, sd_str subject)
{
	e->c->orig.from = from;
	e->c->orig.messageid = messageid;
	e->c->orig.subject = subject;
}

static sd_str action_of(int kind)
{
	switch (kind) {
	case SD_ESP_FAILURE: case SD_ESP_REJECT: return SD_STR("failed");
	case SD_ESP_DEFERRAL: return SD_STR("delayed");
	case SD_ESP_DELIVERY: case SD_ESP_ENGAGE: return SD_STR("delivered");
	default: return SD_NULLSTR;
	}
}

sd_rcpt *sd_esp_add(sd_esp_ev *e, const sd_esp_rec *rec)
{
	sd_rcpt *r = sd_ctx_add(e->c);
	int no_text = !sd_trim(rec->text).n;

	if (!r)
		return NULL;
	r->recipient = rec->rcpt;
	r->action = rec->expired ? SD_STR("expired") : action_of(e->kind);
	r->status = rec->status;
	r->replycode = rec->code;
	r->diagnostic = rec->text;
	r->decodedby = e->esp;
	r->rhost = rec->rhost;
	r->pending = e->kind == SD_ESP_DEFERRAL || (rec->soft && !rec->code.n);
	if (e->kind == SD_ESP_COMPLAINT) {
		r->reason = SD_R_feedback;
		r->feedbacktype = sd_trim(rec->feedback).n ? sd_trim(rec->feedback) : SD_STR("abuse");
	} else if (e->kind == SD_ESP_DELIVERY || e->kind == SD_ESP_ENGAGE) {
		r->reason = SD_R_delivered;
	} else if (rec->hint >= 0 && (rec->sure || no_text)) {
		r->reason = rec->hint;
	}
	return r;
}

const sd_esp_map *sd_esp_lookup(const sd_esp_map *m, size_t n, sd_str s)
{
	s = sd_trim(s);
	for (size_t i = 0; i < n; i++)
		if (sd_str_caseeq(s, m[i].word))
			return &m[i];
	return NULL;
}

void sd_esp_rec_hint(sd_esp_rec *rec, const sd_esp_map *m)
{
	if (!m)
		return;
	rec->hint = m->hint;
	rec->soft |= m->soft;
	rec->sure = m->hint == SD_R_suppressed;
}

int sd_esp_mta_kind(int out, sd_esp_rec *rec)
{
	switch (out) {
	case SD_MTA_BOUNCED: case SD_MTA_OOB: return SD_ESP_FAILURE;
	case SD_MTA_DEFERRED: return SD_ESP_DEFERRAL;
	case SD_MTA_SENT: return SD_ESP_DELIVERY;
	case SD_MTA_FEEDBACK: return SD_ESP_COMPLAINT;
	case SD_MTA_EXPIRED: /* what the MTA did outranks the last reply's words */
		rec->expired = 1;
		rec->soft = 1;
		return SD_ESP_FAILURE;
	case SD_MTA_ADMIN: /* the operator failed it: nothing of the recipient */
		rec->hint = SD_R_rejected;
		rec->sure = 1;
		return SD_ESP_REJECT;
	default: return SD_ESP_OTHER; /* received, rebound ...: no delivery attempt */
	}
}
