/* events.c - ESP webhook bodies in, one verdict per recipient of each
 * bounce, deferral, complaint or rejection out, through the same fact and
 * verdict steps as a bounce email. The input is read value by value with
 * jansson: one body, an array, or JSON Lines; a bad value is reported with its
 * line and column and reading goes on at the next line that starts a value. */
#include "decode/decode_int.h"
#include "decode/fact.h"
#include "esp/esp.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define EV_MAX_RAW 4096 /* bytes of status and text a record's "raw" keeps for honest_status */

typedef struct ev_run {
	smtpdiag_decoder *d;
	const sd_esp *forced;
	const char *origin;
	smtpdiag_event_fn fn;
	void *arg;
	smtpdiag_event_counts *cnt;
	long line;  /* line the current value starts on */
	unsigned long *mask; /* set: only note each event's service (smtpdiag_events_services) */
} ev_run;

static void report(ev_run *r, const char *fmt, ...)
{
	smtpdiag_error e;
	va_list ap;

	e.code = SMTPDIAG_EPARSE;
	va_start(ap, fmt);
	vsnprintf(e.message, sizeof(e.message), fmt, ap);
	va_end(ap);
	r->cnt->errors++;
	if (r->fn)
		r->fn(r->arg, NULL, &e);
}

/* The text honest_status() looks for a status in: the record's own fields. */
static void set_raw(sd_ctx *c, const sd_rcpt *rc)
{
	size_t sn = rc->status.n, dn = rc->diagnostic.n < EV_MAX_RAW ? rc->diagnostic.n : EV_MAX_RAW;
	char *raw = sd_arena_alloc(c->a, sn + dn + 2);

	c->raw = "";
	c->len = 0;
	if (!raw)
		return;
	if (sn)
		memcpy(raw, rc->status.p, sn);
	raw[sn] = ' ';
	if (dn)
		memcpy(raw + sn + 1, rc->diagnostic.p, dn);
	raw[sn + dn + 1] = '\0';
	c->raw = raw;
	c->len = sn + dn + 1;
}

static int wanted(const ev_run *r, int kind)
{
	if (kind == SD_ESP_OTHER)
		return 0;
	if (kind == SD_ESP_DELIVERY || kind == SD_ESP_ENGAGE)
		return (r->d->flags & SMTPDIAG_DECODE_ALL_EVENTS) != 0;
	return 1;
}

static void give_facts(ev_run *r, sd_ctx *c, const sd_esp_ev *e)
{
	const char *type = sd_arena_strndup(c->a, e->type, strlen(e->type));
	smtpdiag_fact f;

	r->cnt->decided++;
	for (size_t i = 0; i < c->nrcpt; i++) {
		set_raw(c, &c->rcpts[i]);
		sd_fact_fill(c, &c->rcpts[i], &f, r->origin);
		f.esp = e->esp;
		f.esp_event = type ? type : "";
		if (e->time) {
			f.timestamp = e->time;
			f.timezoneoffset = "+0000";
		}
		r->cnt->facts++;
		if (r->fn)
			r->fn(r->arg, &f, NULL);
	}
}

static void on_event(void *arg, json_t *ev, const char *why)
{
	ev_run *r = arg;
	const sd_esp *esp;
	sd_esp_ev e;
	sd_ctx c;
	int n;

	r->cnt->events++;
	if (!ev) {
		report(r, "line %ld: event %zu: %s", r->line, r->cnt->events, why);
		return;
	}
	esp = r->forced ? r->forced : sd_esp_detect(ev);
	if (!esp) {
		report(r, "line %ld: event %zu: not an event of a known service", r->line, r->cnt->events);
		return;
	}
	if (r->mask) {
		for (size_t i = 0; i < sd_esp_count(); i++)
			if (sd_esp_at(i) == esp)
				*r->mask |= 1ul << i;
		return;
	}
	sd_arena_reset(&r->d->arena);
	memset(&c, 0, sizeof(c));
	memset(&e, 0, sizeof(e));
	c.a = &r->d->arena;
	c.cls = r->d->cls;
	c.flags = r->d->flags;
	c.rcpts = sd_arena_alloc(c.a, sizeof(sd_rcpt) * SD_MAX_RECIPIENTS);
	if (!c.rcpts) {
		report(r, "line %ld: event %zu: out of memory", r->line, r->cnt->events);
		return;
	}
	e.c = &c;
	e.esp = esp->name;
	n = esp->read(&e, ev);
	if (n < 0)
		report(r, "line %ld: event %zu: %s", r->line, r->cnt->events, smtpdiag_strerror(n));
	else if (n == 0 || !wanted(r, e.kind))
		r->cnt->ignored++;
	else
		give_facts(r, &c, &e);
}

/* ---- reading values ---- */

/* Skip blanks (and a UTF-8 byte order mark at the start), counting lines. */
static size_t skip_blank(ev_run *r, const char *p, size_t len, size_t off, size_t *line_start)
{
	if (off == 0 && len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
		off = 3;
	while (off < len && sd_isspace((unsigned char)p[off])) {
		if (p[off] == '\n') {
			r->line++;
			*line_start = off + 1;
		}
		off++;
	}
	return off;
}

static void count_lines(ev_run *r, const char *p, size_t from, size_t to, size_t *line_start)
{
	const char *q = p + from, *end = p + to;

	while ((q = memchr(q, '\n', (size_t)(end - q))) != NULL) {
		r->line++;
		*line_start = (size_t)(++q - p);
	}
}

/* After a bad value: the next line that starts with '{' or '['. */
static size_t next_start(ev_run *r, const char *p, size_t len, size_t off, size_t *line_start)
{
	const char *q = p + off;

	while ((q = memchr(q, '\n', len - (size_t)(q - p))) != NULL) {
		r->line++;
		*line_start = (size_t)(++q - p);
		if (q < p + len && (*q == '{' || *q == '['))
			return (size_t)(q - p);
	}
	return len;
}

static void read_json(ev_run *r, const char *p, size_t len)
{
	size_t off = 0, line_start = 0;
	json_error_t je;
	json_t *v;

	r->line = 1;
	while ((off = skip_blank(r, p, len, off, &line_start)) < len) {
		v = json_loadb(p + off, len - off, JSON_DISABLE_EOF_CHECK, &je);
		if (!v) {
			long col = je.line == 1 ? (long)(off - line_start) + je.column : je.column;
			r->cnt->events++;
			report(r, "line %ld, column %ld: %s", r->line + je.line - 1, col, je.text);
			off = next_start(r, p, len, off, &line_start);
			continue;
		}
		sd_esp_walk(v, on_event, r);
		json_decref(v);
		count_lines(r, p, off, off + (size_t)je.position, &line_start);
		off += (size_t)je.position;
	}
}

static void read_form(ev_run *r, const char *p, size_t len)
{
	json_t *o = sd_esp_form_parse(p, len);

	r->line = 1;
	if (!o) {
		r->cnt->events++;
		report(r, "line 1: form-encoded post over SD_ESP_MAX_FORM or out of memory");
		return;
	}
	sd_esp_walk(o, on_event, r);
	json_decref(o);
}

static void read_any(ev_run *r, const char *p, size_t len);

static int starts_json(const char *p, size_t len)
{
	size_t i = len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3) ? 3 : 0;

	while (i < len && sd_isspace((unsigned char)p[i]))
		i++;
	return i < len && (p[i] == '{' || p[i] == '[');
}

int smtpdiag_events_detect(const char *p, size_t len)
{
	return p && (starts_json(p, len) || sd_esp_form_detect(p, len));
}

const char *smtpdiag_esp_name(size_t i)
{
	const sd_esp *e = sd_esp_at(i);

	return e ? e->name : NULL;
}

int smtpdiag_decode_events(smtpdiag_decoder *d, const char *p, size_t len, const char *origin,
			   const char *esp, smtpdiag_event_fn fn, void *arg,
			   smtpdiag_event_counts *counts, smtpdiag_error *err)
{
	smtpdiag_event_counts local;
	ev_run r = { d, NULL, origin, fn, arg, counts ? counts : &local, 1, NULL };
	size_t before;

	memset(&local, 0, sizeof(local));
	if (!d || (!p && len)) {
		if (err)
			*err = (smtpdiag_error){ SMTPDIAG_EINVAL, "no decoder or no input" };
		return SMTPDIAG_EINVAL;
	}
	if (esp && esp[0] && !(r.forced = sd_esp_by_name(esp))) {
		if (err) {
			err->code = SMTPDIAG_EINVAL;
			snprintf(err->message, sizeof(err->message), "unknown service '%s'", esp);
		}
		return SMTPDIAG_EINVAL;
	}
	d->nfacts = 0;
	before = r.cnt->facts;
	read_any(&r, p, len);
	return (int)(r.cnt->facts - before);
}

static void read_any(ev_run *r, const char *p, size_t len)
{
	if (!starts_json(p, len) && sd_esp_form_detect(p, len))
		read_form(r, p, len);
	else
		read_json(r, p, len);
}

unsigned long smtpdiag_events_services(const char *p, size_t len, const char *esp)
{
	smtpdiag_event_counts cnt;
	unsigned long mask = 0;
	ev_run r = { NULL, NULL, "", NULL, NULL, &cnt, 1, &mask };

	memset(&cnt, 0, sizeof(cnt));
	if (esp && esp[0] && !(r.forced = sd_esp_by_name(esp)))
		return 0;
	if (p && len)
		read_any(&r, p, len);
	return mask;
}
