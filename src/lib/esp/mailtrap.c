/* mailtrap.c - Mailtrap Email Sending webhooks: {"events": [{event, email,
 * message_id, timestamp, response, response_code, bounce_category, reason
 * ...}]} with delivery, open, click, unsubscribe, spam, soft bounce, bounce,
 * suspension, reject, and the account's activity_log.* events. */
#include "esp/esp.h"

static const sd_esp_map events[] = {
	{ "bounce", SD_ESP_FAILURE, -1, 0 },
	/* retried by Mailtrap, then delivered or bounced */
	{ "soft bounce", SD_ESP_DEFERRAL, -1, 1 }, { "soft_bounce", SD_ESP_DEFERRAL, -1, 1 },
	/* held for the sender's account or domain (not verified, a sending
	 * limit), re-checked by Mailtrap, then delivered or rejected: not the
	 * recipient's failure */
	{ "suspension", SD_ESP_DEFERRAL, -1, 1 },
	{ "reject", SD_ESP_REJECT, -1, 0 },        { "spam", SD_ESP_COMPLAINT, -1, 0 },
	{ "delivery", SD_ESP_DELIVERY, -1, 0 },    { "open", SD_ESP_ENGAGE, -1, 0 },
	{ "click", SD_ESP_ENGAGE, -1, 0 },
	{ "unsubscribe", SD_ESP_OTHER, -1, 0 },    /* the recipient unsubscribed: no delivery failure */
};

#define ACTIVITY "activity_log." /* the account's audit events: nothing of a message */

static int activity(json_t *o)
{
	json_t *ev = json_object_get(o, "event");

	return json_is_string(ev) &&
	       sd_str_casestarts((sd_str){ json_string_value(ev), json_string_length(ev) }, ACTIVITY);
}

static int mailtrap_match(json_t *o)
{
	if (activity(o) && json_is_object(json_object_get(o, "actor")))
		return 1;
	return json_is_string(json_object_get(o, "event")) && json_object_get(o, "email") &&
	       (sd_esp_has(o, "sending_stream") || sd_esp_has(o, "sending_domain_name") ||
		(sd_esp_has(o, "event_id") && sd_esp_has(o, "message_id")));
}

static int mailtrap_read(sd_esp_ev *e, json_t *o)
{
	sd_str ev = sd_esp_str(e, o, "event"), why = sd_esp_str(e, o, "reason");
	const sd_esp_map *k = activity(o) ? NULL : SD_ESP_LOOKUP(events, ev);
	sd_esp_rec rec;

	e->kind = k ? k->kind : SD_ESP_OTHER;
	e->time = sd_esp_time(sd_esp_get(o, "timestamp"));
	sd_esp_type(e, ev, sd_esp_str(e, o, "bounce_category"), SD_NULLSTR);
	sd_esp_origin(e, SD_NULLSTR, sd_esp_str(e, o, "message_id"), SD_NULLSTR);
	sd_esp_rec_init(&rec, sd_esp_str(e, o, "email"));
	rec.text = sd_esp_str(e, o, "response");
	if (!rec.text.n)
		rec.text = why;
	rec.code = sd_esp_str(e, o, "response_code");
	sd_esp_rec_hint(&rec, k);
	/* a reject names its cause in reason: the recipient on the domain's
	 * suppression list, or a suspension that was not lifted in time */
	if (e->kind == SD_ESP_REJECT && sd_esp_mentions(why, "suppression list")) {
		rec.hint = SD_R_suppressed;
		rec.sure = 1;
	}
	return sd_esp_add(e, &rec) ? 1 : 0;
}

const sd_esp sd_esp_mailtrap = { "mailtrap", mailtrap_match, mailtrap_read };
