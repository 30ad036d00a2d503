/* mailersend.c - MailerSend webhooks: {type: "activity.<kind>", data: {type,
 * email: {recipient: {email}, from, subject}, morph: {reason}}}. */
#include "esp/esp.h"

static const sd_esp_map types[] = {
	{ "hard_bounced", SD_ESP_FAILURE, -1, 0 }, { "soft_bounced", SD_ESP_FAILURE, -1, 1 },
	{ "spam_complaint", SD_ESP_COMPLAINT, -1, 0 }, { "delivered", SD_ESP_DELIVERY, -1, 0 },
	{ "opened", SD_ESP_ENGAGE, -1, 0 },        { "clicked", SD_ESP_ENGAGE, -1, 0 },
	{ "opened_unique", SD_ESP_ENGAGE, -1, 0 }, { "clicked_unique", SD_ESP_ENGAGE, -1, 0 },
};

static int mailersend_match(json_t *o)
{
	json_t *t = json_object_get(o, "type");

	return json_is_string(t) && !strncmp(json_string_value(t), "activity.", 9) &&
	       json_is_object(json_object_get(o, "data"));
}

static int mailersend_read(sd_esp_ev *e, json_t *o)
{
	json_t *d = json_object_get(o, "data"), *em = sd_esp_get(d, "email");
	sd_str t = sd_esp_str(e, d, "type");
	const sd_esp_map *k;
	sd_esp_rec rec;

	if (!t.n) {
		t = sd_esp_str(e, o, "type");
		t = t.n > 9 ? (sd_str){ t.p + 9, t.n - 9 } : t;
	}
	k = SD_ESP_LOOKUP(types, t);
	e->kind = k ? k->kind : SD_ESP_OTHER;
	e->time = sd_esp_time(sd_esp_get(d, "created_at"));
	sd_esp_type(e, sd_esp_str(e, o, "type"), sd_esp_str(e, d, "morph.object"), SD_NULLSTR);
	sd_esp_origin(e, sd_esp_str(e, em, "from"), sd_esp_str(e, em, "message.id"), sd_esp_str(e, em, "subject"));
	sd_esp_rec_init(&rec, sd_esp_str(e, em, "recipient.email"));
	rec.text = sd_esp_str(e, d, "morph.reason");
	rec.soft = k && k->soft;
	return sd_esp_add(e, &rec) ? 1 : 0;
}

const sd_esp sd_esp_mailersend = { "mailersend", mailersend_match, mailersend_read };
