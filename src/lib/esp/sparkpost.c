/* sparkpost.c - SparkPost webhooks: arrays of {"msys": {"message_event": ...}}
 * (bounce, out_of_band, delay, spam_complaint, policy_rejection, delivery,
 * open, click ...), with bounce_class, raw_reason and error_code. */
#include "esp/esp.h"

static const sd_esp_map types[] = {
	{ "bounce", SD_ESP_FAILURE, -1, 0 },       { "out_of_band", SD_ESP_FAILURE, -1, 0 },
	{ "delay", SD_ESP_DEFERRAL, -1, 1 },       { "spam_complaint", SD_ESP_COMPLAINT, -1, 0 },
	{ "policy_rejection", SD_ESP_REJECT, -1, 0 },
	{ "generation_rejection", SD_ESP_REJECT, -1, 0 },
	{ "delivery", SD_ESP_DELIVERY, -1, 0 },    { "open", SD_ESP_ENGAGE, -1, 0 },
	{ "initial_open", SD_ESP_ENGAGE, -1, 0 },  { "amp_open", SD_ESP_ENGAGE, -1, 0 },
	{ "click", SD_ESP_ENGAGE, -1, 0 },         { "amp_click", SD_ESP_ENGAGE, -1, 0 },
};

/* SparkPost's bounce classification codes and what each one says. */
static const sd_esp_map classes[] = {
	{ "10", 0, SD_R_userunknown, 0 },  { "20", 0, -1, 1 },                 { "21", 0, SD_R_hostunknown, 1 },
	{ "22", 0, SD_R_mailboxfull, 1 },  { "23", 0, SD_R_emailtoolarge, 1 }, { "24", 0, SD_R_networkerror, 1 },
	{ "25", 0, SD_R_suppressed, 0 },   { "30", 0, SD_R_userunknown, 0 },   { "50", 0, SD_R_blocked, 0 },
	{ "51", 0, SD_R_blocked, 0 },      { "52", 0, SD_R_spamdetected, 0 },  { "53", 0, SD_R_contenterror, 0 },
	{ "54", 0, SD_R_norelaying, 0 },   { "70", 0, -1, 1 },                 { "100", 0, SD_R_filtered, 1 },
};

static int sparkpost_match(json_t *o)
{
	return json_is_string(json_object_get(o, "type")) &&
	       (sd_esp_has(o, "rcpt_to") || sd_esp_has(o, "raw_rcpt_to")) &&
	       (sd_esp_has(o, "message_id") || sd_esp_has(o, "transmission_id") || sd_esp_has(o, "event_id"));
}

static int sparkpost_read(sd_esp_ev *e, json_t *o)
{
	sd_str type = sd_esp_str(e, o, "type"), cls = sd_esp_str(e, o, "bounce_class");
	const sd_esp_map *k = SD_ESP_LOOKUP(types, type), *c = SD_ESP_LOOKUP(classes, cls);
	sd_esp_rec rec;

	e->kind = k ? k->kind : SD_ESP_OTHER;
	if (e->kind == SD_ESP_FAILURE && (sd_str_caseeq(cls, "60") || sd_str_caseeq(cls, "80") ||
					  sd_str_caseeq(cls, "90")))
		e->kind = SD_ESP_OTHER; /* auto-reply, subscribe, unsubscribe */
	e->time = sd_esp_time(sd_esp_get(o, "timestamp"));
	sd_esp_type(e, type, cls, e->kind == SD_ESP_COMPLAINT ? sd_esp_str(e, o, "fbtype") : SD_NULLSTR);
	sd_esp_origin(e, sd_esp_str(e, o, "msg_from"), sd_esp_str(e, o, "message_id"), sd_esp_str(e, o, "subject"));
	sd_esp_rec_init(&rec, sd_esp_str(e, o, sd_esp_has(o, "rcpt_to") ? "rcpt_to" : "raw_rcpt_to"));
	rec.text = sd_esp_str(e, o, "raw_reason");
	if (!rec.text.n)
		rec.text = sd_esp_str(e, o, "reason");
	rec.code = sd_esp_str(e, o, "error_code");
	sd_esp_rec_hint(&rec, c);
	rec.soft |= e->kind == SD_ESP_DEFERRAL;
	return sd_esp_add(e, &rec) ? 1 : 0;
}

const sd_esp sd_esp_sparkpost = { "sparkpost", sparkpost_match, sparkpost_read };
