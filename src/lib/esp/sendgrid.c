/* sendgrid.c - SendGrid Event Webhook: a JSON array of events (bounce with
 * type bounce or blocked, dropped, deferred, spamreport, delivered, open ...). */
#include "esp/esp.h"

static const sd_esp_map events[] = {
	{ "bounce", SD_ESP_FAILURE, -1, 0 },      { "dropped", SD_ESP_REJECT, -1, 0 },
	{ "deferred", SD_ESP_DEFERRAL, -1, 1 },   { "spamreport", SD_ESP_COMPLAINT, -1, 0 },
	{ "delivered", SD_ESP_DELIVERY, -1, 0 },  { "open", SD_ESP_ENGAGE, -1, 0 },
	{ "click", SD_ESP_ENGAGE, -1, 0 },
};

/* Why SendGrid dropped a message: its own suppression lists. */
static const sd_esp_map dropped[] = {
	{ "Bounced Address", 0, SD_R_suppressed, 0 },
	{ "Unsubscribed Address", 0, SD_R_suppressed, 0 },
	{ "Spam Reporting Address", 0, SD_R_suppressed, 0 },
	{ "Invalid", 0, SD_R_syntaxerror, 0 },
};

static int sendgrid_match(json_t *o)
{
	return json_is_string(json_object_get(o, "event")) && json_object_get(o, "email") &&
	       (sd_esp_has(o, "sg_event_id") || sd_esp_has(o, "sg_message_id") || sd_esp_has(o, "smtp-id"));
}

static int sendgrid_read(sd_esp_ev *e, json_t *o)
{
	sd_str ev = sd_esp_str(e, o, "event"), type = sd_esp_str(e, o, "type");
	const sd_esp_map *k = SD_ESP_LOOKUP(events, ev), *d;
	sd_esp_rec rec;

	e->kind = k ? k->kind : SD_ESP_OTHER;
	e->time = sd_esp_time(sd_esp_get(o, "timestamp"));
	sd_esp_type(e, ev, type, sd_esp_str(e, o, "bounce_classification"));
	sd_esp_origin(e, SD_NULLSTR, sd_esp_str(e, o, "smtp-id"), SD_NULLSTR);
	sd_esp_rec_init(&rec, sd_esp_str(e, o, "email"));
	rec.status = sd_esp_str(e, o, "status");
	rec.text = sd_esp_str(e, o, "reason");
	if (!rec.text.n)
		rec.text = sd_esp_str(e, o, "response");
	rec.soft = (k && k->soft) || sd_str_caseeq(type, "blocked");
	if (e->kind == SD_ESP_REJECT && (d = SD_ESP_LOOKUP(dropped, rec.text)) != NULL) {
		rec.hint = d->hint;
		rec.sure = 1;
	}
	return sd_esp_add(e, &rec) ? 1 : 0;
}

const sd_esp sd_esp_sendgrid = { "sendgrid", sendgrid_match, sendgrid_read };
