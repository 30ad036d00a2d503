/* mandrill.c - Mandrill (Mailchimp Transactional) webhooks: the form field
 * mandrill_events holds a JSON array of {event, ts, msg}; hard_bounce,
 * soft_bounce, reject, spam, deferral, send, open, click. */
#include "esp/esp.h"

static const sd_esp_map events[] = {
	{ "hard_bounce", SD_ESP_FAILURE, -1, 0 }, { "soft_bounce", SD_ESP_FAILURE, -1, 1 },
	{ "reject", SD_ESP_REJECT, SD_R_suppressed, 0 }, { "spam", SD_ESP_COMPLAINT, -1, 0 },
	{ "deferral", SD_ESP_DEFERRAL, -1, 1 },   { "open", SD_ESP_ENGAGE, -1, 0 },
	{ "click", SD_ESP_ENGAGE, -1, 0 },
};

/* msg.bounce_description */
static const sd_esp_map bounces[] = {
	{ "bad_mailbox", 0, SD_R_userunknown, 0 },   { "invalid_mailbox", 0, SD_R_userunknown, 0 },
	{ "invalid_domain", 0, SD_R_hostunknown, 0 }, { "mailbox_full", 0, SD_R_mailboxfull, 1 },
	{ "spam_related", 0, SD_R_spamdetected, 0 }, { "policy_related", 0, SD_R_policyviolation, 0 },
	{ "domain_error", 0, SD_R_hostunknown, 1 },  { "no_mx_record", 0, SD_R_hostunknown, 0 },
};

static int mandrill_match(json_t *o)
{
	return json_is_string(json_object_get(o, "event")) && json_is_object(json_object_get(o, "msg"));
}

/* The last SMTP event's text of a deferral. */
static sd_str last_smtp(sd_esp_ev *e, json_t *msg)
{
	json_t *arr = sd_esp_get(msg, "smtp_events");
	size_t n = json_is_array(arr) ? json_array_size(arr) : 0;

	return n ? sd_esp_str(e, json_array_get(arr, n - 1), "diag") : SD_NULLSTR;
}

static int mandrill_read(sd_esp_ev *e, json_t *o)
{
	json_t *msg = json_object_get(o, "msg");
	sd_str ev = sd_esp_str(e, o, "event"), bd = sd_esp_str(e, msg, "bounce_description");
	const sd_esp_map *k = SD_ESP_LOOKUP(events, ev), *b = SD_ESP_LOOKUP(bounces, bd);
	sd_esp_rec rec;

	e->kind = k ? k->kind : SD_ESP_OTHER;
	e->time = sd_esp_time(sd_esp_get(o, "ts"));
	sd_esp_type(e, ev, bd, SD_NULLSTR);
	sd_esp_origin(e, sd_esp_str(e, msg, "sender"), sd_esp_str(e, msg, "_id"), sd_esp_str(e, msg, "subject"));
	sd_esp_rec_init(&rec, sd_esp_str(e, msg, "email"));
	rec.text = sd_esp_str(e, msg, "diag");
	if (!rec.text.n)
		rec.text = last_smtp(e, msg);
	rec.soft = k && k->soft;
	if (k && k->hint >= 0) {
		rec.hint = k->hint;
		rec.sure = 1;
	} else if (b) {
		rec.hint = b->hint;
		rec.soft |= b->soft;
	}
	return sd_esp_add(e, &rec) ? 1 : 0;
}

const sd_esp sd_esp_mandrill = { "mandrill", mandrill_match, mandrill_read };
