/* brevo.c - Brevo (Sendinblue) webhooks, as Brevo documents them.
 * Transactional: hard_bounce, soft_bounce, blocked (Brevo's block list: it did
 * not send), invalid_email, error (Brevo could not send), spam (a complaint)
 * and deferred (a deferral) are read; delivered, opened, unique_opened,
 * proxy_open, unique_proxy_open and click only with --all-events; request
 * (sent) and unsubscribed are ignored. Marketing: hardBounce, softBounce,
 * spam, delivered, opened, click, and unsubscribe, listAddition,
 * contact_updated, contact_deleted (ignored); both spellings are taken. */
#include "esp/esp.h"

static const sd_esp_map events[] = {
	{ "hard_bounce", SD_ESP_FAILURE, -1, 0 },  { "hardBounce", SD_ESP_FAILURE, -1, 0 },
	{ "soft_bounce", SD_ESP_FAILURE, -1, 1 },  { "softBounce", SD_ESP_FAILURE, -1, 1 },
	/* Brevo did not send: the address is on its block list */
	{ "blocked", SD_ESP_REJECT, SD_R_suppressed, 0 },
	{ "invalid_email", SD_ESP_REJECT, SD_R_userunknown, 0 },
	{ "invalid", SD_ESP_REJECT, SD_R_userunknown, 0 },
	/* Brevo could not send the request: the sender's side, the text says why */
	{ "error", SD_ESP_REJECT, SD_R_rejected, 0 },
	{ "spam", SD_ESP_COMPLAINT, -1, 0 },       { "complaint", SD_ESP_COMPLAINT, -1, 0 },
	{ "deferred", SD_ESP_DEFERRAL, -1, 1 },    { "delivered", SD_ESP_DELIVERY, -1, 0 },
	{ "opened", SD_ESP_ENGAGE, -1, 0 },        { "unique_opened", SD_ESP_ENGAGE, -1, 0 },
	{ "proxy_open", SD_ESP_ENGAGE, -1, 0 },    { "unique_proxy_open", SD_ESP_ENGAGE, -1, 0 },
	{ "click", SD_ESP_ENGAGE, -1, 0 },
	/* no delivery failure: sent, the recipient's or the list's changes */
	{ "request", SD_ESP_OTHER, -1, 0 },        { "unsubscribed", SD_ESP_OTHER, -1, 0 },
	{ "unsubscribe", SD_ESP_OTHER, -1, 0 },    { "listAddition", SD_ESP_OTHER, -1, 0 },
	{ "list_addition", SD_ESP_OTHER, -1, 0 },  { "contact_updated", SD_ESP_OTHER, -1, 0 },
	{ "contact_deleted", SD_ESP_OTHER, -1, 0 },
};

static int brevo_match(json_t *o)
{
	return json_is_string(json_object_get(o, "event")) && json_object_get(o, "email") &&
	       (sd_esp_has(o, "message-id") || sd_esp_has(o, "ts_event") || sd_esp_has(o, "ts_epoch") ||
		sd_esp_has(o, "camp_id"));
}

static int brevo_read(sd_esp_ev *e, json_t *o)
{
	sd_str ev = sd_esp_str(e, o, "event");
	const sd_esp_map *k = SD_ESP_LOOKUP(events, ev);
	sd_esp_rec rec;

	e->kind = k ? k->kind : SD_ESP_OTHER;
	e->time = sd_esp_time(sd_esp_get(o, "ts_event"));
	if (!e->time)
		e->time = sd_esp_time(sd_esp_get(o, sd_esp_has(o, "ts") ? "ts" : "date"));
	if (!e->time)
		e->time = sd_esp_time(sd_esp_get(o, "date_event"));
	sd_esp_type(e, ev, SD_NULLSTR, SD_NULLSTR);
	if (e->kind == SD_ESP_OTHER)
		return 0;
	sd_esp_origin(e, sd_esp_str(e, o, "sender_email"), sd_esp_str(e, o, "message-id"),
		      sd_esp_str(e, o, "subject"));
	sd_esp_rec_init(&rec, sd_esp_str(e, o, "email"));
	rec.text = sd_esp_str(e, o, "reason");
	sd_esp_rec_hint(&rec, k);
	return sd_esp_add(e, &rec) ? 1 : 0;
}

const sd_esp sd_esp_brevo = { "brevo", brevo_match, brevo_read };
