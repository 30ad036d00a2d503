/* sendgrid.c - SendGrid Event Webhook: a JSON array of events, as SendGrid's
 * Event Webhook Reference documents them. Delivery events: bounce (type bounce
 * or blocked, with bounce_classification), deferred (a deferral), dropped
 * (SendGrid did not send: its reason names its suppression lists or the
 * sender's request), delivered (only with --all-events), processed (ignored);
 * engagement events: open and click (only with --all-events), spamreport (a
 * complaint), unsubscribe, group_unsubscribe and group_resubscribe (ignored);
 * account events: account_status_change (ignored). */
#include "esp/esp.h"

static const sd_esp_map events[] = {
	{ "bounce", SD_ESP_FAILURE, -1, 0 },      { "dropped", SD_ESP_REJECT, -1, 0 },
	{ "deferred", SD_ESP_DEFERRAL, -1, 1 },   { "spamreport", SD_ESP_COMPLAINT, -1, 0 },
	{ "delivered", SD_ESP_DELIVERY, -1, 0 },  { "open", SD_ESP_ENGAGE, -1, 0 },
	{ "click", SD_ESP_ENGAGE, -1, 0 },
	/* no delivery failure: accepted for sending, the recipient's choices, the account */
	{ "processed", SD_ESP_OTHER, -1, 0 },     { "unsubscribe", SD_ESP_OTHER, -1, 0 },
	{ "group_unsubscribe", SD_ESP_OTHER, -1, 0 }, { "group_resubscribe", SD_ESP_OTHER, -1, 0 },
	{ "account_status_change", SD_ESP_OTHER, -1, 0 },
};

/* Why SendGrid dropped a message (the reason's first words): its suppression
 * lists, an address it will not take, or the sender's own request. */
static const sd_esp_map dropped[] = {
	{ "Bounced Address", 0, SD_R_suppressed, 0 },
	{ "Unsubscribed Address", 0, SD_R_suppressed, 0 },
	{ "Unsubscribed Group", 0, SD_R_suppressed, 0 },
	{ "Spam Reporting Address", 0, SD_R_suppressed, 0 },
	{ "Invalid", 0, SD_R_syntaxerror, 0 },
	{ "Invalid SMTPAPI header", 0, SD_R_rejected, 0 },
	{ "Spam Content", 0, SD_R_spamdetected, 0 },
	{ "Recipient List over Package Quota", 0, SD_R_rejected, 0 },
};

/* bounce_classification: a hint where the reason gives no reply text */
static const sd_esp_map classes[] = {
	{ "Invalid Address", 0, SD_R_userunknown, 0 }, { "Technical", 0, SD_R_systemerror, 0 },
	{ "Content", 0, SD_R_contenterror, 0 },        { "Reputation", 0, SD_R_blocked, 0 },
	{ "Frequency or Volume", 0, SD_R_ratelimited, 1 },
	{ "Mailbox Unavailable", 0, -1, 0 },           { "Unclassified", 0, -1, 0 },
};

static int sendgrid_match(json_t *o)
{
	if (!json_is_string(json_object_get(o, "event")))
		return 0;
	if (sd_esp_is(o, "event", "account_status_change"))
		return sd_esp_has(o, "sg_event_id") || sd_esp_has(o, "type");
	return json_object_get(o, "email") &&
	       (sd_esp_has(o, "sg_event_id") || sd_esp_has(o, "sg_message_id") || sd_esp_has(o, "smtp-id"));
}

/* The drop reason: the longest entry the reason starts with ("Spam Content
 * (if spam checker app enabled)" is Spam Content). */
static const sd_esp_map *drop_reason(sd_str why)
{
	const sd_esp_map *best = NULL;

	why = sd_trim(why);
	for (size_t i = 0; i < sizeof(dropped) / sizeof(dropped[0]); i++) {
		size_t n = strlen(dropped[i].word);
		if (why.n >= n && sd_str_casestarts(why, dropped[i].word) &&
		    (why.n == n || why.p[n] == ' ' || why.p[n] == '(') && (!best || n > strlen(best->word)))
			best = &dropped[i];
	}
	return best;
}

static int sendgrid_read(sd_esp_ev *e, json_t *o)
{
	sd_str ev = sd_esp_str(e, o, "event"), type = sd_esp_str(e, o, "type");
	sd_str cls = sd_esp_str(e, o, "bounce_classification");
	const sd_esp_map *k = SD_ESP_LOOKUP(events, ev), *d;
	sd_esp_rec rec;

	e->kind = k ? k->kind : SD_ESP_OTHER;
	e->time = sd_esp_time(sd_esp_get(o, "timestamp"));
	sd_esp_type(e, ev, type, cls);
	if (e->kind == SD_ESP_OTHER)
		return 0;
	sd_esp_origin(e, SD_NULLSTR, sd_esp_str(e, o, "smtp-id"), SD_NULLSTR);
	sd_esp_rec_init(&rec, sd_esp_str(e, o, "email"));
	rec.status = sd_esp_str(e, o, "status");
	rec.text = sd_esp_str(e, o, "reason");
	if (!rec.text.n)
		rec.text = sd_esp_str(e, o, "response");
	/* blocked: the receiver would not take it now; SendGrid keeps no
	 * suppression of the address for it */
	rec.soft = (k && k->soft) || sd_str_caseeq(type, "blocked");
	if (e->kind == SD_ESP_REJECT && (d = drop_reason(rec.text)) != NULL) {
		rec.hint = d->hint; /* SendGrid's own decision */
		rec.sure = 1;
	} else if (e->kind == SD_ESP_FAILURE) {
		sd_esp_rec_hint(&rec, SD_ESP_LOOKUP(classes, cls));
		rec.soft |= sd_str_caseeq(type, "blocked");
	}
	return sd_esp_add(e, &rec) ? 1 : 0;
}

const sd_esp sd_esp_sendgrid = { "sendgrid", sendgrid_match, sendgrid_read };
