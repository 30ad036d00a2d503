/* resend.c - Resend webhooks: {type, created_at, data}: email.bounced
 * (data.bounce type/subType/message), email.complained,
 * email.delivery_delayed, email.failed, email.delivered, opened, clicked. */
#include "esp/esp.h"

static const sd_esp_map types[] = {
	{ "email.bounced", SD_ESP_FAILURE, -1, 0 },  { "email.complained", SD_ESP_COMPLAINT, -1, 0 },
	{ "email.delivery_delayed", SD_ESP_DEFERRAL, -1, 1 },
	{ "email.failed", SD_ESP_REJECT, -1, 0 },    { "email.delivered", SD_ESP_DELIVERY, -1, 0 },
	{ "email.opened", SD_ESP_ENGAGE, -1, 0 },    { "email.clicked", SD_ESP_ENGAGE, -1, 0 },
};

static int resend_match(json_t *o)
{
	json_t *t = json_object_get(o, "type");

	return json_is_string(t) && !strncmp(json_string_value(t), "email.", 6) &&
	       json_is_object(json_object_get(o, "data"));
}

static int resend_read(sd_esp_ev *e, json_t *o)
{
	json_t *d = json_object_get(o, "data"), *to = sd_esp_get(d, "to"), *x;
	sd_str type = sd_esp_str(e, o, "type"), bt = sd_esp_str(e, d, "bounce.type");
	sd_str sub = sd_esp_str(e, d, "bounce.subType");
	const sd_esp_map *k = SD_ESP_LOOKUP(types, type);
	size_t i;
	int n = 0;

	e->kind = k ? k->kind : SD_ESP_OTHER;
	e->time = sd_esp_time(sd_esp_get(o, "created_at"));
	sd_esp_type(e, type, bt, sub);
	sd_esp_origin(e, sd_esp_str(e, d, "from"), sd_esp_str(e, d, "email_id"), sd_esp_str(e, d, "subject"));
	if (json_is_string(to))
		to = json_pack("[O]", to); /* one address: as a list of one */
	else
		json_incref(to);
	json_array_foreach(to, i, x) {
		sd_esp_rec rec;
		sd_esp_rec_init(&rec, (sd_str){ json_string_value(x), json_string_length(x) });
		rec.text = sd_esp_str(e, d, "bounce.message");
		if (!rec.text.n)
			rec.text = sd_esp_str(e, d, "failed.reason");
		rec.hint = sd_esp_ses_subtype(sub);
		rec.sure = rec.hint == SD_R_suppressed;
		rec.soft = sd_str_caseeq(bt, "Transient") || e->kind == SD_ESP_DEFERRAL;
		if (json_is_string(x) && sd_esp_add(e, &rec))
			n++;
	}
	json_decref(to);
	return n;
}

const sd_esp sd_esp_resend = { "resend", resend_match, resend_read };
