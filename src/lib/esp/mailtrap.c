/* mailtrap.c - Mailtrap Email Sending webhooks: {"events": [{event, email,
 * message_id, timestamp, response, response_code, bounce_category ...}]}. */
#include "esp/esp.h"

static const sd_esp_map events[] = {
	{ "bounce", SD_ESP_FAILURE, -1, 0 },       { "soft bounce", SD_ESP_DEFERRAL, -1, 1 },
	{ "soft_bounce", SD_ESP_DEFERRAL, -1, 1 }, { "suspension", SD_ESP_REJECT, SD_R_suppressed, 0 },
	{ "reject", SD_ESP_REJECT, SD_R_suppressed, 0 }, { "spam", SD_ESP_COMPLAINT, -1, 0 },
	{ "delivery", SD_ESP_DELIVERY, -1, 0 },    { "open", SD_ESP_ENGAGE, -1, 0 },
	{ "click", SD_ESP_ENGAGE, -1, 0 },
};

static int mailtrap_match(json_t *o)
{
	return json_is_string(json_object_get(o, "event")) && json_object_get(o, "email") &&
	       (sd_esp_has(o, "sending_stream") || sd_esp_has(o, "sending_domain_name") ||
		(sd_esp_has(o, "event_id") && sd_esp_has(o, "message_id")));
}

static int mailtrap_read(sd_esp_ev *e, json_t *o)
{
	sd_str ev = sd_esp_str(e, o, "event");
	const sd_esp_map *k = SD_ESP_LOOKUP(events, ev);
	sd_esp_rec rec;

	e->kind = k ? k->kind : SD_ESP_OTHER;
	e->time = sd_esp_time(sd_esp_get(o, "timestamp"));
	sd_esp_type(e, ev, sd_esp_str(e, o, "bounce_category"), SD_NULLSTR);
	sd_esp_origin(e, SD_NULLSTR, sd_esp_str(e, o, "message_id"), SD_NULLSTR);
	sd_esp_rec_init(&rec, sd_esp_str(e, o, "email"));
	rec.text = sd_esp_str(e, o, "response");
	if (!rec.text.n)
		rec.text = sd_esp_str(e, o, "reason");
	rec.code = sd_esp_str(e, o, "response_code");
	sd_esp_rec_hint(&rec, k);
	return sd_esp_add(e, &rec) ? 1 : 0;
}

const sd_esp sd_esp_mailtrap = { "mailtrap", mailtrap_match, mailtrap_read };
