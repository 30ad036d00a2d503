/* unisender.c - UniSender Go webhooks: {"events_by_user": [{"events":
 * [{"event_name": "transactional_email_status", "event_data": {email, status,
 * event_time, delivery_info: {delivery_status, destination_response}}}]}]}. */
#include "esp/esp.h"

static const sd_esp_map statuses[] = {
	{ "hard_bounced", SD_ESP_FAILURE, -1, 0 }, { "soft_bounced", SD_ESP_DEFERRAL, -1, 1 },
	{ "spam", SD_ESP_COMPLAINT, -1, 0 },       { "delivered", SD_ESP_DELIVERY, -1, 0 },
	{ "opened", SD_ESP_ENGAGE, -1, 0 },        { "clicked", SD_ESP_ENGAGE, -1, 0 },
};

/* delivery_info.delivery_status */
static const sd_esp_map details[] = {
	{ "err_user_unknown", 0, SD_R_userunknown, 0 },  { "err_user_inactive", 0, SD_R_suspend, 0 },
	{ "err_mailbox_full", 0, SD_R_mailboxfull, 1 },  { "err_spam_rejected", 0, SD_R_spamdetected, 0 },
	{ "err_too_large", 0, SD_R_emailtoolarge, 0 },   { "err_domain_inactive", 0, SD_R_hostunknown, 0 },
	{ "err_blacklisted", 0, SD_R_blocked, 0 },       { "err_unsubscribed", 0, SD_R_suppressed, 0 },
	{ "err_destination_misconfigured", 0, SD_R_systemerror, 1 },
};

static int unisender_match(json_t *o)
{
	return json_is_string(json_object_get(o, "event_name")) && json_is_object(json_object_get(o, "event_data"));
}

static int unisender_read(sd_esp_ev *e, json_t *o)
{
	json_t *d = json_object_get(o, "event_data");
	sd_str st = sd_esp_str(e, d, "status"), ds = sd_esp_str(e, d, "delivery_info.delivery_status");
	const sd_esp_map *k = SD_ESP_LOOKUP(statuses, st), *m = SD_ESP_LOOKUP(details, ds);
	sd_esp_rec rec;

	e->kind = k ? k->kind : SD_ESP_OTHER;
	if (!sd_esp_is(o, "event_name", "transactional_email_status"))
		e->kind = SD_ESP_OTHER;
	e->time = sd_esp_time(sd_esp_get(d, "event_time"));
	sd_esp_type(e, sd_esp_str(e, o, "event_name"), st, ds);
	sd_esp_origin(e, SD_NULLSTR, sd_esp_str(e, d, "job_id"), SD_NULLSTR);
	sd_esp_rec_init(&rec, sd_esp_str(e, d, "email"));
	rec.text = sd_esp_str(e, d, "delivery_info.destination_response");
	rec.soft = k && k->soft;
	sd_esp_rec_hint(&rec, m);
	return sd_esp_add(e, &rec) ? 1 : 0;
}

const sd_esp sd_esp_unisender = { "unisender", unisender_match, unisender_read };
