/* events.c - ESP webhook bodies in, one verdict per recipient of each
 * bounce, deferral, complaint or rejection out, through the same fact and
 * verdict steps as a bounce email. The input is cut into values by
 * events_split.c (one body, each element of a top-level array, or each line of
 * JSON Lines) and each value is read alone with jansson, so memory stays flat
 * in the size of the input; a bad value is reported with its line and column
 * and reading goes on. At most SMTPDIAG_MAX_EVENT_ERRORS errors are reported
 * one by one, then one line says how many more there were. */
#include "decode/decode_int.h"
#include "decode/events_split.h"
#include "decode/fact.h"
#include "esp/esp.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EV_MAX_RAW 4096 /* bytes of status and text a record's "raw" keeps for honest_status */
#define EV_READ_CHUNK ((size_t)256 << 10) /* bytes asked of a reader at a time */

typedef struct ev_run {
	smtpdiag_decoder *d;
	const sd_esp *forced;
	const char *origin;
	smtpdiag_event_fn fn;
	void *arg;
	smtpdiag_event_counts *cnt;
	long line;  /* line the current value starts on */
	unsigned long *mask; /* set: only note each event's service (smtpdiag_events_services) */
	size_t shown, hidden; /* errors reported one by one, and past SMTPDIAG_MAX_EVENT_ERRORS */
} ev_run;

/* One error: counted, and reported while fewer than SMTPDIAG_MAX_EVENT_ERRORS were. */
static void report(ev_run *r, const char *fmt, ...)
{
	smtpdiag_error e;
	va_list ap;

	r->cnt->errors++;
	if (!r->fn)
		return;
	if (r->shown == SMTPDIAG_MAX_EVENT_ERRORS) {
		r->hidden++;
		return;
	}
	r->shown++;
	e.code = SMTPDIAG_EPARSE;
	va_start(ap, fmt);
	vsnprintf(e.message, sizeof(e.message), fmt, ap);
	va_end(ap);
	r->fn(r->arg, NULL, &e);
}

/* The errors past the limit, in one report (code SMTPDIAG_ELIMIT, not counted again). */
static void report_hidden(ev_run *r)
{
	smtpdiag_error e;

	if (!r->hidden || !r->fn)
		return;
	e.code = SMTPDIAG_ELIMIT;
	snprintf(e.message, sizeof(e.message), "and %zu more errors (only the first %d are listed: "
		 "SMTPDIAG_MAX_EVENT_ERRORS)", r->hidden, SMTPDIAG_MAX_EVENT_ERRORS);
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

	for (size_t i = 0; i < c->nrcpt; i++) {
		set_raw(c, &c->rcpts[i]);
		sd_fact_fill(c, &c->rcpts[i], &f, r->origin, NULL);
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
	if (n < 0) {
		report(r, "line %ld: event %zu: %s", r->line, r->cnt->events, smtpdiag_strerror(n));
		return;
	}
	if (n == 0 || !wanted(r, e.kind)) {
		r->cnt->ignored++;
		return;
	}
	give_facts(r, &c, &e);
	if (c.rcpt_over) /* its facts are given, and it counts as an error */
		report(r, "line %ld: event %zu: " SD_RCPT_OVER_MSG, r->line, r->cnt->events);
	else
		r->cnt->decided++;
}

/* ---- reading values ---- */

static void on_value(void *arg, const char *p, size_t n, const sd_evat *at)
{
	ev_run *r = arg;
	json_error_t je;
	json_t *v = json_loadb(p, n, at->elem ? JSON_DECODE_ANY : 0, &je);

	r->line = at->line;
	if (!v) {
		r->cnt->events++;
		report(r, "line %ld, column %ld: %s", at->line + je.line - 1,
		       je.line == 1 ? at->col + je.column : je.column, je.text);
		return;
	}
	sd_esp_walk(v, on_event, r);
	json_decref(v);
}

/* A broken value: jansson's words for its bytes when it has them, else the splitter's. */
static void on_broken(void *arg, const char *p, size_t n, const sd_evat *at, long line, long col,
		      const char *why)
{
	ev_run *r = arg;
	json_error_t je;
	json_t *v = n ? json_loadb(p, n, JSON_DISABLE_EOF_CHECK | (at->elem ? JSON_DECODE_ANY : 0), &je) : NULL;

	r->cnt->events++;
	r->line = at->line;
	if (n && !v)
		report(r, "line %ld, column %ld: %s", at->line + je.line - 1,
		       je.line == 1 ? at->col + je.column : je.column, je.text);
	else
		report(r, "line %ld, column %ld: %s", line, col, why);
	json_decref(v);
}

static const sd_evsplit_cb split_cb = { on_value, on_broken, NULL };

static void read_json(ev_run *r, const char *p, size_t len)
{
	sd_evsplit s;
	sd_evsplit_cb cb = split_cb;

	cb.arg = r;
	sd_evsplit_init(&s);
	sd_evsplit_scan(&s, p, len, 1, &cb);
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

/* A run's start: d and esp checked. 0, or SMTPDIAG_EINVAL with err set. */
static int run_begin(ev_run *r, smtpdiag_decoder *d, const char *esp, smtpdiag_error *err)
{
	if (!d) {
		if (err)
			*err = (smtpdiag_error){ SMTPDIAG_EINVAL, "no decoder or no input" };
		return SMTPDIAG_EINVAL;
	}
	if (esp && esp[0] && !(r->forced = sd_esp_by_name(esp))) {
		if (err) {
			err->code = SMTPDIAG_EINVAL;
			snprintf(err->message, sizeof(err->message), "unknown service '%s'", esp);
		}
		return SMTPDIAG_EINVAL;
	}
	d->nfacts = 0;
	return 0;
}

int smtpdiag_decode_events(smtpdiag_decoder *d, const char *p, size_t len, const char *origin,
			   const char *esp, smtpdiag_event_fn fn, void *arg,
			   smtpdiag_event_counts *counts, smtpdiag_error *err)
{
	smtpdiag_event_counts local;
	ev_run r = { d, NULL, origin, fn, arg, counts ? counts : &local, 1, NULL, 0, 0 };
	size_t before = r.cnt->facts;
	int rc;

	memset(&local, 0, sizeof(local));
	if ((rc = run_begin(&r, !p && len ? NULL : d, esp, err)) < 0)
		return rc;
	read_any(&r, p, len);
	report_hidden(&r);
	return (int)(r.cnt->facts - before);
}

/* Read from rd into *b (at *len, growing it) until at least want bytes are
 * held or the input ends: 1 at the end, 0 more may follow, -1 a read error or
 * no memory. */
static int pull(smtpdiag_read_fn rd, void *ctx, char **b, size_t *len, size_t *cap, size_t want)
{
	while (*len < want) {
		long n;
		if (*cap < *len + EV_READ_CHUNK) {
			size_t ncap = *cap ? *cap * 2 : EV_READ_CHUNK;
			char *nb = realloc(*b, ncap < *len + EV_READ_CHUNK ? *len + EV_READ_CHUNK : ncap);
			if (!nb)
				return -1;
			*cap = ncap < *len + EV_READ_CHUNK ? *len + EV_READ_CHUNK : ncap;
			*b = nb;
		}
		if ((n = rd(ctx, *b + *len, EV_READ_CHUNK)) < 0)
			return -1;
		if (n == 0)
			return 1;
		*len += (size_t)n;
	}
	return 0;
}

/* JSON read a piece at a time: only the value being read is held. */
static int stream_json(ev_run *r, smtpdiag_read_fn rd, void *ctx, char **b, size_t *len, size_t *cap, int eof)
{
	sd_evsplit s;
	sd_evsplit_cb cb = split_cb;

	cb.arg = r;
	sd_evsplit_init(&s);
	for (;;) {
		size_t drop = sd_evsplit_scan(&s, *b, *len, eof, &cb);
		memmove(*b, *b + drop, *len - drop);
		*len -= drop;
		if (eof)
			return 0;
		if ((eof = pull(rd, ctx, b, len, cap, *len + 1)) < 0)
			return -1;
	}
}

int smtpdiag_decode_events_read(smtpdiag_decoder *d, smtpdiag_read_fn rd, void *rctx, const char *origin,
				const char *esp, smtpdiag_event_fn fn, void *arg,
				smtpdiag_event_counts *counts, smtpdiag_error *err)
{
	smtpdiag_event_counts local;
	ev_run r = { d, NULL, origin, fn, arg, counts ? counts : &local, 1, NULL, 0, 0 };
	size_t before = r.cnt->facts, len = 0, cap = 0;
	char *b = NULL;
	int rc, eof;

	memset(&local, 0, sizeof(local));
	if ((rc = run_begin(&r, rd ? d : NULL, esp, err)) < 0)
		return rc;
	/* the first bytes tell JSON; anything else is held up to the size of a
	 * form-encoded post (read whole), to be told apart as a whole input is */
	eof = pull(rd, rctx, &b, &len, &cap, 1);
	if (eof == 0 && !starts_json(b, len))
		eof = pull(rd, rctx, &b, &len, &cap, SD_ESP_MAX_FORM + 1);
	if (eof >= 0 && !starts_json(b, len) && sd_esp_form_detect(b, len)) {
		read_form(&r, b, len);
	} else if (eof >= 0) {
		eof = stream_json(&r, rd, rctx, &b, &len, &cap, eof);
	}
	free(b);
	report_hidden(&r);
	if (eof < 0) {
		if (err)
			*err = (smtpdiag_error){ SMTPDIAG_EIO, "reading the events failed (or out of memory)" };
		return SMTPDIAG_EIO;
	}
	return (int)(r.cnt->facts - before);
}

static void read_any(ev_run *r, const char *p, size_t len)
{
	if (!starts_json(p, len) && sd_esp_form_detect(p, len))
		read_form(r, p, len);
	else
		read_json(r, p, len);
}

/* What p holds, nothing decided: the services of its events (bits of
 * smtpdiag_esp_name) and how many events it has, errors included. */
static void survey(const char *p, size_t len, const char *esp, unsigned long *mask, size_t *events)
{
	smtpdiag_event_counts cnt;
	ev_run r = { NULL, NULL, "", NULL, NULL, &cnt, 1, mask, 0, 0 };

	memset(&cnt, 0, sizeof(cnt));
	*mask = 0;
	*events = 0;
	if (esp && esp[0] && !(r.forced = sd_esp_by_name(esp)))
		return;
	if (p && len)
		read_any(&r, p, len);
	*events = cnt.events;
}

unsigned long smtpdiag_events_services(const char *p, size_t len, const char *esp)
{
	unsigned long mask;
	size_t n;

	survey(p, len, esp, &mask, &n);
	return mask;
}

size_t smtpdiag_events_count(const char *p, size_t len, const char *esp)
{
	unsigned long mask;
	size_t n;

	survey(p, len, esp, &mask, &n);
	return n;
}
