/* postal.c - Postal webhooks: {event, timestamp, payload, uuid} with
 * MessageDeliveryFailed / MessageDelayed (status, details, output),
 * MessageBounced, MessageHeld, MessageSent, MessageLoaded, MessageLinkClicked. */
#include "esp/esp.h"

static const sd_esp_map events[] = {
	{ "MessageDeliveryFailed", SD_ESP_FAILURE, -1, 0 }, { "MessageBounced", SD_ESP_FAILURE, -1, 0 },
	{ "MessageDelayed", SD_ESP_DEFERRAL, -1, 1 },       { "MessageHeld", SD_ESP_REJECT, -1, 0 },
	{ "MessageSent", SD_ESP_DELIVERY, -1, 0 },          { "MessageLoaded", SD_ESP_ENGAGE, -1, 0 },
	{ "MessageLinkClicked", SD_ESP_ENGAGE, -1, 0 },
};

static int postal_match(json_t *o)
{
	return json_is_string(json_object_get(o, "event")) && json_is_object(json_object_get(o, "payload"));
}

static int postal_read(sd_esp_ev *e, json_t *o)
{
	json_t *p = json_object_get(o, "payload"), *m = sd_esp_get(p, "message");
	sd_str ev = sd_esp_str(e, o, "event"), st = sd_esp_str(e, p, "status");
	const sd_esp_map *k = SD_ESP_LOOKUP(events, ev);
	sd_esp_rec rec;

	if (!m)
		m = sd_esp_get(p, "original_message");
	e->kind = k ? k->kind : SD_ESP_OTHER;
	e->time = sd_esp_time(sd_esp_get(o, "timestamp"));
	sd_esp_type(e, ev, st, SD_NULLSTR);
	sd_esp_origin(e, sd_esp_str(e, m, "from"), sd_esp_str(e, m, "message_id"), sd_esp_str(e, m, "subject"));
	sd_esp_rec_init(&rec, sd_esp_str(e, m, "to"));
	rec.text = sd_esp_join(e, sd_esp_str(e, p, "output"), sd_esp_str(e, p, "details"));
	rec.soft = sd_str_caseeq(st, "SoftFail") || e->kind == SD_ESP_DEFERRAL;
	return sd_esp_add(e, &rec) ? 1 : 0;
}

const sd_esp sd_esp_postal = { "postal", postal_match, postal_read };
