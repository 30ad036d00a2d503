/* mandrill.c - Mandrill (Mailchimp Transactional) webhooks: the form field
 * mandrill_events holds a JSON array of events. Message events {event, ts,
 * msg}: hard_bounce, soft_bounce, reject (Mandrill's rejection list: it did
 * not send), spam (a complaint) and deferral are read; send, open and click
 * only with --all-events; unsub is ignored. Sync events {type, action,
 * reject|entry}: a blacklist add is Mandrill's suppression of the address
 * (its reason spam a complaint, unsub nothing); whitelist changes and a
 * blacklist remove or change are ignored. Inbound events are ignored. */
#include "esp/esp.h"

static const sd_esp_map events[] = {
	{ "hard_bounce", SD_ESP_FAILURE, -1, 0 }, { "soft_bounce", SD_ESP_FAILURE, -1, 1 },
	{ "reject", SD_ESP_REJECT, SD_R_suppressed, 0 }, { "spam", SD_ESP_COMPLAINT, -1, 0 },
	{ "deferral", SD_ESP_DEFERRAL, -1, 1 },   { "send", SD_ESP_DELIVERY, -1, 0 },
	{ "open", SD_ESP_ENGAGE, -1, 0 },         { "click", SD_ESP_ENGAGE, -1, 0 },
	/* the recipient unsubscribed; mail received for an inbound domain */
	{ "unsub", SD_ESP_OTHER, -1, 0 },         { "inbound", SD_ESP_OTHER, -1, 0 },
};

/* msg.bounce_description */
static const sd_esp_map bounces[] = {
	{ "bad_mailbox", 0, SD_R_userunknown, 0 },   { "invalid_mailbox", 0, SD_R_userunknown, 0 },
	{ "invalid_domain", 0, SD_R_hostunknown, 0 }, { "mailbox_full", 0, SD_R_mailboxfull, 1 },
	{ "spam_related", 0, SD_R_spamdetected, 0 }, { "policy_related", 0, SD_R_policyviolation, 0 },
	{ "domain_error", 0, SD_R_hostunknown, 1 },  { "no_mx_record", 0, SD_R_hostunknown, 0 },
	{ "too_large", 0, SD_R_emailtoolarge, 0 },   { "general", 0, -1, 0 },
	{ "unknown", 0, -1, 0 },
};

/* A sync event's type, and a blacklist entry's reason. */
static const sd_esp_map syncs[] = {
	{ "blacklist", SD_ESP_REJECT, SD_R_suppressed, 0 }, { "whitelist", SD_ESP_OTHER, -1, 0 },
};
static const sd_esp_map blacklisted[] = {
	{ "hard-bounce", SD_ESP_REJECT, SD_R_suppressed, 0 }, { "soft-bounce", SD_ESP_REJECT, SD_R_suppressed, 0 },
	{ "custom", SD_ESP_REJECT, SD_R_suppressed, 0 },      { "spam", SD_ESP_COMPLAINT, -1, 0 },
	{ "unsub", SD_ESP_OTHER, -1, 0 },
};

static int mandrill_match(json_t *o)
{
	if (json_is_string(json_object_get(o, "event")))
		return json_is_object(json_object_get(o, "msg"));
	return (sd_esp_is(o, "type", "blacklist") || sd_esp_is(o, "type", "whitelist")) &&
	       json_is_string(json_object_get(o, "action"));
}

/* The last SMTP event's text of a deferral. */
static sd_str last_smtp(sd_esp_ev *e, json_t *msg)
{
	json_t *arr = sd_esp_get(msg, "smtp_events");
	size_t n = json_is_array(arr) ? json_array_size(arr) : 0;

	return n ? sd_esp_str(e, json_array_get(arr, n - 1), "diag") : SD_NULLSTR;
}

/* A sync event: only a blacklist add says something of a recipient. */
static int read_sync(sd_esp_ev *e, json_t *o)
{
	json_t *x = json_object_get(o, "reject");
	sd_str type = sd_esp_str(e, o, "type"), act = sd_esp_str(e, o, "action");
	sd_str why = sd_esp_str(e, x, "reason");
	const sd_esp_map *k = SD_ESP_LOOKUP(syncs, type), *b = SD_ESP_LOOKUP(blacklisted, why);
	sd_esp_rec rec;

	e->time = sd_esp_time(sd_esp_get(o, "ts"));
	sd_esp_type(e, type, act, why);
	e->kind = k && sd_str_caseeq(act, "add") ? k->kind : SD_ESP_OTHER;
	if (e->kind != SD_ESP_OTHER)
		e->kind = b ? b->kind : SD_ESP_REJECT;
	if (e->kind == SD_ESP_OTHER)
		return 0;
	sd_esp_origin(e, sd_esp_str(e, x, "sender.address"), SD_NULLSTR, SD_NULLSTR);
	sd_esp_rec_init(&rec, sd_esp_str(e, x, "email"));
	rec.text = sd_esp_str(e, x, "detail");
	if (e->kind == SD_ESP_REJECT) { /* Mandrill's own list */
		rec.hint = SD_R_suppressed;
		rec.sure = 1;
	}
	return sd_esp_add(e, &rec) ? 1 : 0;
}

static int mandrill_read(sd_esp_ev *e, json_t *o)
{
	json_t *msg = json_object_get(o, "msg");
	sd_str ev = sd_esp_str(e, o, "event"), bd = sd_esp_str(e, msg, "bounce_description");
	const sd_esp_map *k = SD_ESP_LOOKUP(events, ev), *b = SD_ESP_LOOKUP(bounces, bd);
	sd_esp_rec rec;

	if (!ev.n)
		return read_sync(e, o);
	e->kind = k ? k->kind : SD_ESP_OTHER;
	e->time = sd_esp_time(sd_esp_get(o, "ts"));
	sd_esp_type(e, ev, bd, SD_NULLSTR);
	if (e->kind == SD_ESP_OTHER)
		return 0;
	sd_esp_origin(e, sd_esp_str(e, msg, "sender"), sd_esp_str(e, msg, "_id"), sd_esp_str(e, msg, "subject"));
	sd_esp_rec_init(&rec, sd_esp_str(e, msg, "email"));
	rec.text = sd_esp_str(e, msg, "diag");
	if (!rec.text.n)
		rec.text = last_smtp(e, msg);
	rec.soft = k->soft;
	if (k->hint >= 0) {
		rec.hint = k->hint;
		rec.sure = 1;
	} else if (b) {
		rec.hint = b->hint;
		rec.soft |= b->soft;
	}
	return sd_esp_add(e, &rec) ? 1 : 0;
}

const sd_esp sd_esp_mandrill = { "mandrill", mandrill_match, mandrill_read };
