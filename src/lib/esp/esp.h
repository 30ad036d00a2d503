/* esp.h - ESP event readers: one webhook event (a jansson object) of a sending
 * service in, recipient records (sd_rcpt) out, for decode to turn into
 * verdicts. A reader only reads what the service says: the SMTP reply text,
 * codes, the recipient, and the service's own category, which becomes a hint
 * to the verdict engine only where the event carries no reply text (or where
 * the category is the service's own decision: a complaint, a suppression).
 *
 * Strings in the records point into the jansson values (valid while the event
 * lives) or into c->a. */
#ifndef SD_ESP_H
#define SD_ESP_H

#include <jansson.h>
#include <stdint.h>

#include "bounce/ctx.h"

#define SD_ESP_TYPE_MAX 96   /* bytes of "bounce/Permanent/General", NUL included */
#define SD_ESP_MAX_DEPTH 8   /* containers unwrapped around one event (SNS, msys, ...) */
#define SD_ESP_MAX_FORM (4u << 20) /* bytes of a form-encoded post */

/* What an event is, as far as the verdict is concerned. */
enum {
	SD_ESP_OTHER = 0,     /* sent, queued, unsubscribed ...: nothing to say */
	SD_ESP_FAILURE,       /* a bounce: delivery failed */
	SD_ESP_DEFERRAL,      /* delivery is still being tried */
	SD_ESP_COMPLAINT,     /* the recipient reported the message */
	SD_ESP_REJECT,        /* the service itself refused to send */
	SD_ESP_DELIVERY,      /* delivered (only with --all-events) */
	SD_ESP_ENGAGE         /* opened, clicked (only with --all-events) */
};

/* One event being read. */
typedef struct sd_esp_ev {
	sd_ctx *c;                  /* records are added with sd_esp_add() */
	const char *esp;            /* the service's name, "ses" */
	int kind;                   /* SD_ESP_* */
	char type[SD_ESP_TYPE_MAX]; /* the service's own type and sub-type */
	int64_t time;               /* Unix seconds, 0 when the event has none */
} sd_esp_ev;

/* What a service says of one recipient. */
typedef struct sd_esp_rec {
	sd_str rcpt;     /* the address */
	sd_str code;     /* reply code "550" when given apart from the text */
	sd_str status;   /* enhanced status "5.1.1" when given apart */
	sd_str text;     /* the SMTP reply text, or the service's own explanation */
	int hint;        /* SD_R_* the service's category implies, -1 none */
	int sure;        /* the hint stands even with a text (the service's own decision) */
	int soft;        /* the service calls it temporary (soft bounce) */
	int expired;     /* the MTA gave up after transient failures (action expired) */
	sd_str feedback; /* a complaint's feedback type ("abuse", "fraud"), else "abuse" */
	sd_str rhost;    /* the remote host the service tried, when it names it */
} sd_esp_rec;

typedef struct sd_esp {
	const char *name;
	int (*match)(json_t *o);              /* 1 when o is an event of this service */
	int (*read)(sd_esp_ev *e, json_t *o); /* records added (>= 0) or SMTPDIAG_E* */
} sd_esp;

/* The services, in detection order. */
size_t sd_esp_count(void);
const sd_esp *sd_esp_at(size_t i);
const sd_esp *sd_esp_by_name(const char *name);
/* The first service whose match() takes o, or NULL. */
const sd_esp *sd_esp_detect(json_t *o);

/* Called for each event found in a body: ev, or NULL and why not. */
typedef void (*sd_esp_leaf_fn)(void *arg, json_t *ev, const char *why);
/* Find the events in v: arrays, JSON Lines bodies, and the containers services
 * wrap them in (an SNS notification's Message, SparkPost's msys, Mandrill's
 * mandrill_events, Mailtrap's events, UniSender Go's events_by_user). */
void sd_esp_walk(json_t *v, sd_esp_leaf_fn fn, void *arg);

/* ---- helpers for readers (esp_util.c) ---- */

/* The value at a dotted path of objects ("delivery-status.code"), or NULL. */
json_t *sd_esp_get(json_t *o, const char *path);
/* The text of a string value at path; numbers are written in c->a.
 * SD_NULLSTR when absent or of another type. */
sd_str sd_esp_str(sd_esp_ev *e, json_t *o, const char *path);
/* Does text hold lit (case ignored)? A service's own words naming a cause. */
int sd_esp_mentions(sd_str text, const char *lit);
/* Is the string at path equal to lit (case ignored)? */
int sd_esp_is(json_t *o, const char *path, const char *lit);
/* Does o have a member at path? */
int sd_esp_has(json_t *o, const char *path);
/* The boolean at path (true, "true", 1), else 0. */
int sd_esp_bool(json_t *o, const char *path);
/* A time value: Unix seconds (or milliseconds) as number or digits, or an
 * RFC 3339 / RFC 5322 date text. 0 when unreadable. */
int64_t sd_esp_time(json_t *v);
/* e->type = the parts joined by '/', empty parts left out. */
void sd_esp_type(sd_esp_ev *e, sd_str a, sd_str b, sd_str c);
/* Add one record for the event's kind. NULL at the recipient limit. */
sd_rcpt *sd_esp_add(sd_esp_ev *e, const sd_esp_rec *rec);
/* Join two texts with "; " into c->a (either may be empty). */
sd_str sd_esp_join(sd_esp_ev *e, sd_str a, sd_str b);
/* Fill a record with no text, no codes, no hint. */
void sd_esp_rec_init(sd_esp_rec *rec, sd_str rcpt);
/* The message's sender, id and subject, kept in the context for every record. */
void sd_esp_origin(sd_esp_ev *e, sd_str from, sd_str messageid, sd_str subject);

/* A service's word for an event or a category, and what it means. */
typedef struct sd_esp_map {
	const char *word;
	int kind;   /* SD_ESP_*; SD_ESP_OTHER in a table of categories */
	int hint;   /* SD_R_*, -1 none */
	int soft;   /* the service calls it temporary */
} sd_esp_map;

/* The entry of m[0..n) whose word equals s (case ignored), or NULL. */
const sd_esp_map *sd_esp_lookup(const sd_esp_map *m, size_t n, sd_str s);
#define SD_ESP_LOOKUP(m, s) sd_esp_lookup((m), sizeof(m) / sizeof((m)[0]), (s))

/* Take a category's hint and softness into rec (m may be NULL); a
 * suppression is the service's own decision, so it stands over any text. */
void sd_esp_rec_hint(sd_esp_rec *rec, const sd_esp_map *m);

/* The reason an Amazon SES bounce or delay sub-type implies (also Resend's), -1 none. */
int sd_esp_ses_subtype(sd_str st);

/* The kind of an MTA's record of outcome out (SD_MTA_*, mta/mtarec.h), as
 * the KumoMTA and PowerMTA readers share it: an expiry marks rec expired, an
 * operator's bounce gives rec the hint rejected. */
int sd_esp_mta_kind(int out, sd_esp_rec *rec);

/* ---- form-encoded posts (esp_form.c) ---- */

/* 1 when p looks like an application/x-www-form-urlencoded body. */
int sd_esp_form_detect(const char *p, size_t n);
/* The fields as a JSON object of strings (new reference), or NULL. */
json_t *sd_esp_form_parse(const char *p, size_t n);

#endif
