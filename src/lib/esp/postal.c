/* postal.c - Postal webhooks: {event, timestamp, uuid, payload}. The message
 * status events (MessageSent, MessageDelayed, MessageDeliveryFailed,
 * MessageHeld: status, details, output, message), MessageBounced
 * (original_message and the bounce message Postal received for it),
 * MessageLoaded, MessageLinkClicked, and the server's own DomainDNSError,
 * SendLimitApproaching and SendLimitExceeded. */
#include "esp/esp.h"

#include <string.h>

static const sd_esp_map events[] = {
	{ "MessageDeliveryFailed", SD_ESP_FAILURE, -1, 0 }, { "MessageDelayed", SD_ESP_DEFERRAL, -1, 1 },
	{ "MessageHeld", SD_ESP_REJECT, -1, 0 },            { "MessageSent", SD_ESP_DELIVERY, -1, 0 },
	/* a bounce message came back for a message Postal had delivered */
	{ "MessageBounced", SD_ESP_FAILURE, -1, 0 },
	{ "MessageLoaded", SD_ESP_ENGAGE, -1, 0 },          { "MessageLinkClicked", SD_ESP_ENGAGE, -1, 0 },
	/* of the server, not of a message */
	{ "DomainDNSError", SD_ESP_OTHER, -1, 0 },          { "SendLimitApproaching", SD_ESP_OTHER, -1, 0 },
	{ "SendLimitExceeded", SD_ESP_OTHER, -1, 0 },
};

/* A status event's payload.status: what the delivery attempt came to. Any
 * other status (Pending, Queued ...) is no failure. */
static const sd_esp_map statuses[] = {
	{ "Sent", SD_ESP_DELIVERY, -1, 0 }, { "SoftFail", SD_ESP_DEFERRAL, -1, 1 },
	{ "HardFail", SD_ESP_FAILURE, -1, 0 }, { "Held", SD_ESP_REJECT, -1, 0 },
};

static int postal_match(json_t *o)
{
	return json_is_string(json_object_get(o, "event")) && json_is_object(json_object_get(o, "payload"));
}

/* A held message is Postal's refusal only when its recipient is on the
 * server's suppression list; held for the sender's side (development mode,
 * a credential set to hold, the send limit, a suspended server) it waits to
 * be released: not the recipient's failure. */
static int held_kind(sd_str details, sd_esp_rec *rec)
{
	if (sd_esp_mentions(details, "suppression list")) {
		rec->hint = SD_R_suppressed;
		rec->sure = 1;
		return SD_ESP_REJECT;
	}
	rec->soft = 1;
	return SD_ESP_DEFERRAL;
}

static int postal_read(sd_esp_ev *e, json_t *o)
{
	json_t *p = json_object_get(o, "payload"), *m = sd_esp_get(p, "message");
	sd_str ev = sd_esp_str(e, o, "event"), st = sd_esp_str(e, p, "status");
	sd_str details = sd_esp_str(e, p, "details");
	const sd_esp_map *k = SD_ESP_LOOKUP(events, ev), *s = SD_ESP_LOOKUP(statuses, st);
	int bounced = k && !strcmp(k->word, "MessageBounced");
	sd_esp_rec rec;

	if (!m)
		m = sd_esp_get(p, "original_message");
	e->kind = k ? k->kind : SD_ESP_OTHER;
	/* a status event is what its status says; a status of no failure is nothing */
	if (k && !bounced && k->kind != SD_ESP_ENGAGE && k->kind != SD_ESP_OTHER && st.n)
		e->kind = s ? s->kind : SD_ESP_OTHER;
	e->time = sd_esp_time(sd_esp_get(o, "timestamp"));
	if (bounced && sd_esp_has(p, "bounce.timestamp"))
		e->time = sd_esp_time(sd_esp_get(p, "bounce.timestamp"));
	sd_esp_type(e, ev, st, SD_NULLSTR);
	sd_esp_origin(e, sd_esp_str(e, m, "from"), sd_esp_str(e, m, "message_id"), sd_esp_str(e, m, "subject"));
	sd_esp_rec_init(&rec, sd_esp_str(e, m, "to"));
	/* a bounce carries no reply text of its own: only the bounce message's
	 * envelope and subject, which are not the receiver's words */
	if (!bounced)
		rec.text = sd_esp_join(e, sd_esp_str(e, p, "output"), details);
	if (e->kind == SD_ESP_REJECT)
		e->kind = held_kind(details, &rec);
	rec.soft |= e->kind == SD_ESP_DEFERRAL;
	return sd_esp_add(e, &rec) ? 1 : 0;
}

const sd_esp sd_esp_postal = { "postal", postal_match, postal_read };
