/* mailersend.c - MailerSend webhooks: {type, domain_id, created_at,
 * webhook_id, data}, as MailerSend documents its events. The activity events
 * (data.type, data.email.recipient.email, data.morph.reason): hard_bounced,
 * soft_bounced and spam_complaint (a complaint) are read; delivered, opened,
 * opened_unique, clicked, clicked_unique only with --all-events; sent,
 * unsubscribed, survey_opened and survey_submitted are ignored. The events of
 * the account and its services (maintenance.*, inbound_forward.failed, the
 * verification and bulk email events) are ignored by name. */
#include "esp/esp.h"

#define ACTIVITY "activity."

static const sd_esp_map types[] = {
	{ "hard_bounced", SD_ESP_FAILURE, -1, 0 }, { "soft_bounced", SD_ESP_FAILURE, -1, 1 },
	{ "spam_complaint", SD_ESP_COMPLAINT, -1, 0 }, { "delivered", SD_ESP_DELIVERY, -1, 0 },
	{ "opened", SD_ESP_ENGAGE, -1, 0 },        { "clicked", SD_ESP_ENGAGE, -1, 0 },
	{ "opened_unique", SD_ESP_ENGAGE, -1, 0 }, { "clicked_unique", SD_ESP_ENGAGE, -1, 0 },
	/* sent by MailerSend (not yet delivered), the recipient's choices: no
	 * delivery failure */
	{ "sent", SD_ESP_OTHER, -1, 0 },           { "unsubscribed", SD_ESP_OTHER, -1, 0 },
	{ "survey_opened", SD_ESP_OTHER, -1, 0 },
	{ "survey_submitted", SD_ESP_OTHER, -1, 0 },
};

/* The other event types: of the service and the account, not of a message. */
static const sd_esp_map others[] = {
	{ "maintenance.start", SD_ESP_OTHER, -1, 0 },  { "maintenance.end", SD_ESP_OTHER, -1, 0 },
	{ "inbound_forward.failed", SD_ESP_OTHER, -1, 0 },
	{ "email_single.verified", SD_ESP_OTHER, -1, 0 }, { "email_list.verified", SD_ESP_OTHER, -1, 0 },
	{ "bulk_email.completed", SD_ESP_OTHER, -1, 0 },
};

static sd_str str_of(json_t *v)
{
	return json_is_string(v) ? (sd_str){ json_string_value(v), json_string_length(v) } : SD_NULLSTR;
}

static int mailersend_match(json_t *o)
{
	sd_str t = str_of(json_object_get(o, "type"));

	if (!json_is_object(json_object_get(o, "data")))
		return 0;
	if (sd_str_casestarts(t, ACTIVITY))
		return 1;
	return SD_ESP_LOOKUP(others, t) != NULL ||
	       (json_object_get(o, "webhook_id") && sd_str_casestarts(t, "maintenance."));
}

static int mailersend_read(sd_esp_ev *e, json_t *o)
{
	json_t *d = json_object_get(o, "data"), *em = sd_esp_get(d, "email");
	sd_str type = sd_esp_str(e, o, "type"), t = sd_esp_str(e, d, "type");
	const sd_esp_map *k = NULL;
	sd_esp_rec rec;

	if (sd_str_casestarts(type, ACTIVITY)) {
		if (!t.n)
			t = (sd_str){ type.p + strlen(ACTIVITY), type.n - strlen(ACTIVITY) };
		k = SD_ESP_LOOKUP(types, t);
	}
	e->kind = k ? k->kind : SD_ESP_OTHER;
	e->time = sd_esp_time(sd_esp_get(d, "created_at"));
	sd_esp_type(e, type, sd_esp_str(e, d, "morph.object"), SD_NULLSTR);
	if (e->kind == SD_ESP_OTHER)
		return 0;
	sd_esp_origin(e, sd_esp_str(e, em, "from"), sd_esp_str(e, em, "message.id"), sd_esp_str(e, em, "subject"));
	sd_esp_rec_init(&rec, sd_esp_str(e, em, "recipient.email"));
	rec.text = sd_esp_str(e, d, "morph.reason");
	rec.soft = k->soft;
	return sd_esp_add(e, &rec) ? 1 : 0;
}

const sd_esp sd_esp_mailersend = { "mailersend", mailersend_match, mailersend_read };
