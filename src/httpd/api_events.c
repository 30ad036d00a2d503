/* api_events.c - POST /api/v1/events: ESP webhook bodies in (as each service
 * posts them: JSON, a JSON array, JSON Lines, or a form-encoded post), a
 * verdict record per recipient of each bounce, deferral, complaint or
 * rejection out, with the counts and the errors:
 *   {"results":[...],"counts":{"events":N,"decided":N,"ignored":N,"errors":N},
 *    "errors":[{"event":N,"line":L,"column":C,"message":"..."}]}
 * 200, or 400 when nothing in the body reads as events. The answer is bounded
 * by the request's limit: at most SMTPDIAG_MAX_EVENT_ERRORS error objects, then
 * {"more":K,"message":"and K more errors ..."}; results up to EV_RESULTS_FACTOR
 * times --max-body bytes, then "results_left_out":K (the counts and the store
 * still take them all). So an answer is at most EV_RESULTS_FACTOR x --max-body
 * + EV_ANSWER_REST bytes. ?esp=NAME reads every
 * event as that service's; ?taxonomy=NAME[,NAME] adds each record's category in
 * those vocabularies; ?all-events=1 also reports deliveries, opens, clicks.
 * When a key is configured for a service whose events the body holds, its
 * signature is checked first (events_auth.c): a wrong, missing or stale one is
 * a 401, one already taken a 409, and nothing is decoded; a post refused
 * after that (the store failed) has its signatures forgotten, so that the
 * sender's retry is taken. With a store (serve --store), the records are also
 * recorded, when the client may write (api_store.c), and the answer carries
 * ,"store":{"recorded":N,"duplicates":N,"errors":N}; 503 when the store failed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "api_store.h"

#define EV_MAX_TAX 8         /* taxonomies in ?taxonomy= */
#define EV_TAX_ARG 128       /* bytes of ?taxonomy= */
#define EV_RESULTS_FACTOR 8  /* bytes of results in an answer, in --max-body's */
/* what else an answer holds: the error objects (a message escaped, 6 bytes a
 * byte at worst, and its place), the counts and the store's */
#define EV_ANSWER_REST ((SMTPDIAG_MAX_EVENT_ERRORS + 1) * (6 * sizeof(((smtpdiag_error *)0)->message) + 96) + 1024)

typedef struct ev_out {
	smtpdiag_buf res;          /* the result records, comma-separated */
	smtpdiag_buf err;          /* the error objects, comma-separated */
	const smtpdiag_event_counts *cnt;
	store_rec rec;             /* recording into the store, when there is one */
	const char *tax[EV_MAX_TAX];
	size_t ntax, nres, nerr;
	size_t res_max;            /* bytes of results answered, EV_RESULTS_FACTOR x --max-body */
	size_t left_out;           /* results past res_max */
} ev_out;

/* ,"taxonomy":{"ses":"Permanent/General",...} before the record's closing brace. */
static void put_fact(ev_out *o, const smtpdiag_fact *f)
{
	size_t mark = o->res.len;

	if (mark >= o->res_max) {
		o->left_out++;
		return;
	}
	hb_puts(&o->res, o->nres++ ? ",\n" : "\n");
	smtpdiag_fact_json(f, &o->res);
	if (!o->ntax || o->res.oom || !o->res.len || o->res.data[o->res.len - 1] != '}')
		return;
	o->res.len--;
	hb_puts(&o->res, ",\"taxonomy\":{");
	for (size_t i = 0; i < o->ntax; i++) {
		const char *v = smtpdiag_taxonomy(o->tax[i], f);
		hb_puts(&o->res, i ? "," : "");
		hb_json(&o->res, o->tax[i]);
		hb_puts(&o->res, ":");
		hb_json(&o->res, v ? v : "");
	}
	hb_puts(&o->res, "}}");
	if (o->res.len > o->res_max && !o->res.oom) { /* this one would pass the bound: left out */
		o->res.len = mark;
		o->nres--;
		o->left_out++;
	}
}

/* "line 3, column 7: text" or "line 3: event 2: text" into its parts. */
static void put_error(ev_out *o, const char *msg)
{
	long line = 0, col = -1;
	char *end;

	if (!strncmp(msg, "line ", 5)) {
		line = strtol(msg + 5, &end, 10);
		msg = end;
		if (!strncmp(msg, ", column ", 9)) {
			col = strtol(msg + 9, &end, 10);
			msg = end;
		}
		msg += !strncmp(msg, ": ", 2) ? 2 : 0;
		if (!strncmp(msg, "event ", 6)) {
			strtol(msg + 6, &end, 10); /* the number is o->cnt->events */
			if (!strncmp(end, ": ", 2))
				msg = end + 2;
		}
	}
	hb_puts(&o->err, o->nerr++ ? ",\n" : "\n");
	smtpdiag_buf_printf(&o->err, "{\"event\":%zu,\"line\":%ld,\"column\":", o->cnt->events, line);
	if (col >= 0)
		smtpdiag_buf_printf(&o->err, "%ld", col);
	else
		hb_puts(&o->err, "null");
	hb_puts(&o->err, ",\"message\":");
	hb_json(&o->err, msg);
	hb_puts(&o->err, "}");
}

/* The errors past SMTPDIAG_MAX_EVENT_ERRORS: {"more":K,"message":"and K more errors ..."}. */
static void put_more(ev_out *o, const char *msg)
{
	unsigned long long k = strncmp(msg, "and ", 4) ? 0 : strtoull(msg + 4, NULL, 10);

	hb_puts(&o->err, o->nerr++ ? ",\n" : "\n");
	smtpdiag_buf_printf(&o->err, "{\"more\":%llu,\"message\":", k);
	hb_json(&o->err, msg);
	hb_puts(&o->err, "}");
}

static void on_event(void *arg, const smtpdiag_fact *f, const smtpdiag_error *e)
{
	if (f) {
		put_fact(arg, f);
		store_rec_fact(&((ev_out *)arg)->rec, f);
	} else if (e && e->code == SMTPDIAG_ELIMIT) {
		put_more(arg, e->message);
	} else if (e) {
		put_error(arg, e->message);
	}
}

/* ?taxonomy=ses,postmark into o->tax; an error message, or NULL. */
static const char *taxonomies(ev_out *o, const char *arg, char *copy)
{
	char *p = copy, *comma;
	const char *name;

	if (!arg || !*arg)
		return NULL;
	if (strlen(arg) >= EV_TAX_ARG)
		return "?taxonomy= too long";
	memcpy(copy, arg, strlen(arg) + 1);
	for (; p; p = comma ? comma + 1 : NULL) {
		if ((comma = strchr(p, ',')))
			*comma = '\0';
		size_t i = 0;
		while ((name = smtpdiag_taxonomy_name(i)) && strcmp(name, p))
			i++;
		if (!name || o->ntax == EV_MAX_TAX)
			return !name ? "unknown taxonomy in ?taxonomy= (ses, sparkpost, postmark, kumomta, powermta)"
				     : "too many taxonomies in ?taxonomy=";
		o->tax[o->ntax++] = name;
	}
	return NULL;
}

static int esp_known(const char *esp)
{
	const char *name;

	if (!esp || !*esp)
		return 1;
	for (size_t i = 0; (name = smtpdiag_esp_name(i)) != NULL; i++)
		if (!strcmp(name, esp))
			return 1;
	return 0;
}

static unsigned events_flags(hreq *r)
{
	const char *all = req_arg(r, "all-events");

	return all && strcmp(all, "0") && strcmp(all, "false") ? SMTPDIAG_DECODE_ALL_EVENTS : 0;
}

/* A refused signature: a JSON error; WWW-Authenticate when Basic credentials
 * are asked for; Retry-After when the signatures remembered are too many. */
static enum MHD_Result refuse(hreq *r, int status, const ev_auth *a)
{
	if (status == 503)
		r->retry_after = 1;
	return reply_refuse(r, status, a->why, a->basic ? "Basic realm=\"smtpdiag events\", charset=\"UTF-8\"" : NULL);
}

static enum MHD_Result answer(hreq *r, ev_out *o, ev_auth *auth)
{
	const smtpdiag_event_counts *c = o->cnt;
	int bad = c->events == c->errors; /* nothing read as an event */
	smtpdiag_buf b = { 0 };
	int failed;

	hb_puts(&b, "{\"results\":[");
	hb_put(&b, o->res.data, o->res.len);
	hb_puts(&b, o->nres ? "\n]," : "],");
	if (o->left_out)
		smtpdiag_buf_printf(&b, "\"results_left_out\":%zu,", o->left_out);
	smtpdiag_buf_printf(&b, "\"counts\":{\"events\":%zu,\"decided\":%zu,\"ignored\":%zu,\"errors\":%zu},",
			    c->events, c->decided, c->ignored, c->errors);
	hb_puts(&b, "\"errors\":[");
	hb_put(&b, o->err.data, o->err.len);
	hb_puts(&b, o->nerr ? "\n]" : "]");
	failed = store_rec_end(&o->rec, &b);
	if (bad)
		hb_puts(&b, ",\"error\":\"nothing in the body reads as events of a known service\",\"status\":400");
	hb_puts(&b, "}\n");
	if (o->res.oom || o->err.oom)
		b.oom = 1;
	smtpdiag_buf_free(&o->res);
	smtpdiag_buf_free(&o->err);
	if (failed)
		r->retry_after = 1;
	if (bad || failed) /* nothing or not all was recorded: the sender may post it again */
		events_auth_release(auth);
	return reply_buf(r, bad ? 400 : failed ? failed : 200, "application/json", &b);
}

enum MHD_Result api_events(hreq *r)
{
	const char *esp = req_arg(r, "esp"), *msg;
	smtpdiag_event_counts cnt = { 0, 0, 0, 0, 0 };
	smtpdiag_error err = { 0, "" };
	ev_out o = { .cnt = &cnt, .res_max = EV_RESULTS_FACTOR * r->cfg->max_body };
	char tax[EV_TAX_ARG];
	smtpdiag_decoder *d;
	unsigned long mask = 0;
	ev_auth auth = { 0 };
	int st;

	OFFLOAD_TO(r, store_on() ? JOB_STORE : JOB_MAIN); /* recording waits on the store's threads */
	if (!r->blen)
		return reply_error(r, 400, "empty body: send the events as the service posts them");
	if (!esp_known(esp))
		return reply_error(r, 400, "unknown service in ?esp= (see smtpdiag decode --help)");
	if ((msg = taxonomies(&o, req_arg(r, "taxonomy"), tax)) != NULL)
		return reply_error(r, 400, msg);
	if (events_auth_any() || store_on())
		mask = smtpdiag_events_services(r->body, r->blen, esp);
	if (events_auth_any() && (st = events_auth_check(r, mask, esp, &auth)) != 0)
		return refuse(r, st, &auth);
	if ((st = store_rec_begin(r, events_auth_covers(mask), &o.rec)) != 0) {
		events_auth_release(&auth);
		return store_refuse(r, st, o.rec.why);
	}
	if (!(d = thread_decoder(events_flags(r)))) {
		events_auth_release(&auth);
		return reply_error(r, 503, "cannot create a decoder");
	}
	if (smtpdiag_decode_events(d, r->body, r->blen, "body", esp, on_event, &o, &cnt, &err) < 0) {
		smtpdiag_buf_free(&o.res);
		smtpdiag_buf_free(&o.err);
		store_rec_end(&o.rec, &o.res); /* what was read before: recorded */
		smtpdiag_buf_free(&o.res);
		events_auth_release(&auth);
		return reply_error(r, 400, err.message[0] ? err.message : "cannot read the events");
	}
	return answer(r, &o, &auth);
}
