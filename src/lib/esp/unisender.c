/* unisender.c - UniSender Go webhooks: {"auth", "events_by_user": [{user_id,
 * project_id, "events": [{"event_name": "transactional_email_status",
 * "event_data": {job_id, email, status, event_time, delivery_info:
 * {delivery_status, destination_response}}}, {"event_name":
 * "transactional_spam_block", ...}]}]}. */
#include "esp/esp.h"

/* event_data.status: UniSender Go's nine standard statuses */
static const sd_esp_map statuses[] = {
	{ "hard_bounced", SD_ESP_FAILURE, -1, 0 }, { "soft_bounced", SD_ESP_DEFERRAL, -1, 1 },
	{ "spam", SD_ESP_COMPLAINT, -1, 0 },       { "delivered", SD_ESP_DELIVERY, -1, 0 },
	{ "opened", SD_ESP_ENGAGE, -1, 0 },        { "clicked", SD_ESP_ENGAGE, -1, 0 },
	/* no delivery failure */
	{ "sent", SD_ESP_OTHER, -1, 0 },           { "unsubscribed", SD_ESP_OTHER, -1, 0 },
	{ "subscribed", SD_ESP_OTHER, -1, 0 },
};

/* event_name: only the status of an email speaks of a recipient; a spam block
 * is of the sending servers (block_type, domain, SMTP_blocks_count) */
static const sd_esp_map names[] = {
	{ "transactional_email_status", SD_ESP_FAILURE, -1, 0 },
	{ "transactional_spam_block", SD_ESP_OTHER, -1, 0 },
};

/* delivery_info.delivery_status */
static const sd_esp_map details[] = {
	{ "err_user_unknown", 0, SD_R_userunknown, 0 },  { "err_user_inactive", 0, SD_R_suspend, 0 },
	{ "err_mailbox_full", 0, SD_R_mailboxfull, 1 },  { "err_spam_rejected", 0, SD_R_spamdetected, 0 },
	{ "err_too_large", 0, SD_R_emailtoolarge, 0 },   { "err_domain_inactive", 0, SD_R_hostunknown, 0 },
	{ "err_blacklisted", 0, SD_R_blocked, 0 },       { "err_unsubscribed", 0, SD_R_suppressed, 0 },
	{ "err_destination_misconfigured", 0, SD_R_systemerror, 1 },
	{ "err_mailbox_discarded", 0, SD_R_userunknown, 0 }, { "err_no_dns", 0, SD_R_hostunknown, 0 },
	{ "err_no_smtp", 0, SD_R_hostunknown, 0 },
	/* tagged unreachable by UniSender Go after repeated failures: its own list */
	{ "err_unreachable", 0, SD_R_suppressed, 0 },
};

static int unisender_match(json_t *o)
{
	json_t *d = json_object_get(o, "event_data");

	return json_is_object(d) &&
	       (json_is_string(json_object_get(o, "event_name")) ||
		(json_is_string(json_object_get(d, "status")) && json_object_get(d, "email")));
}

static int unisender_read(sd_esp_ev *e, json_t *o)
{
	json_t *d = json_object_get(o, "event_data");
	sd_str name = sd_esp_str(e, o, "event_name"), st = sd_esp_str(e, d, "status");
	sd_str ds = sd_esp_str(e, d, "delivery_info.delivery_status");
	const sd_esp_map *k = SD_ESP_LOOKUP(statuses, st), *m = SD_ESP_LOOKUP(details, ds);
	const sd_esp_map *n = SD_ESP_LOOKUP(names, name);
	sd_esp_rec rec;

	/* without an event_name, an event_data with a status is an email's status */
	e->kind = k && (n ? n->kind != SD_ESP_OTHER : !name.n) ? k->kind : SD_ESP_OTHER;
	e->time = sd_esp_time(sd_esp_get(d, "event_time"));
	sd_esp_type(e, name, st, ds);
	sd_esp_origin(e, SD_NULLSTR, sd_esp_str(e, d, "job_id"), SD_NULLSTR);
	sd_esp_rec_init(&rec, sd_esp_str(e, d, "email"));
	rec.text = sd_esp_str(e, d, "delivery_info.destination_response");
	sd_esp_rec_hint(&rec, m);
	rec.soft = e->kind == SD_ESP_DEFERRAL;
	return sd_esp_add(e, &rec) ? 1 : 0;
}

const sd_esp sd_esp_unisender = { "unisender", unisender_match, unisender_read };
