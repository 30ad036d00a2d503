/* postmark.c - Postmark webhooks, as Postmark documents its record types:
 * Bounce (Type/TypeCode, Details, Email), SpamComplaint and SubscriptionChange
 * (a suppression list change: SuppressSending, SuppressionReason) are read;
 * Delivery, Open, Click only with --all-events; Inbound is ignored by name. */
#include "esp/esp.h"

static const sd_esp_map records[] = {
	{ "Bounce", SD_ESP_FAILURE, -1, 0 },   { "SpamComplaint", SD_ESP_COMPLAINT, -1, 0 },
	{ "SubscriptionChange", SD_ESP_REJECT, SD_R_suppressed, 0 },
	{ "Delivery", SD_ESP_DELIVERY, -1, 0 }, { "Open", SD_ESP_ENGAGE, -1, 0 },
	{ "Click", SD_ESP_ENGAGE, -1, 0 },      { "Inbound", SD_ESP_OTHER, -1, 0 },
};

/* Bounce types (Postmark's API reference, "Bounce types"): what each one is,
 * and the reason its name alone implies. */
static const sd_esp_map types[] = {
	{ "HardBounce", SD_ESP_FAILURE, -1, 0 },
	/* "Message delayed": Postmark still tries */
	{ "Transient", SD_ESP_DEFERRAL, -1, 1 },
	{ "SoftBounce", SD_ESP_FAILURE, -1, 1 },     { "Unknown", SD_ESP_FAILURE, -1, 0 },
	{ "DnsError", SD_ESP_FAILURE, SD_R_networkerror, 1 },
	{ "SpamNotification", SD_ESP_FAILURE, SD_R_spamdetected, 0 },
	{ "VirusNotification", SD_ESP_FAILURE, SD_R_virusdetected, 0 },
	{ "ChallengeVerification", SD_ESP_FAILURE, SD_R_filtered, 1 },
	{ "BadEmailAddress", SD_ESP_REJECT, SD_R_userunknown, 0 },
	{ "SpamComplaint", SD_ESP_COMPLAINT, -1, 0 },
	{ "ManuallyDeactivated", SD_ESP_REJECT, SD_R_suppressed, 0 },
	{ "Blocked", SD_ESP_FAILURE, SD_R_blocked, 0 },
	/* the sender's SMTP submission to Postmark failed */
	{ "SMTPApiError", SD_ESP_REJECT, SD_R_rejected, 0 },
	{ "DMARCPolicy", SD_ESP_FAILURE, SD_R_authfailure, 0 },
	/* the sender's template did not render: nothing was sent */
	{ "TemplateRenderingFailed", SD_ESP_REJECT, SD_R_contenterror, 0 },
	/* no delivery failure: requests, auto-replies, tests, inbound */
	{ "Unsubscribe", SD_ESP_OTHER, -1, 0 },      { "Subscribe", SD_ESP_OTHER, -1, 0 },
	{ "AutoResponder", SD_ESP_OTHER, -1, 0 },    { "AddressChange", SD_ESP_OTHER, -1, 0 },
	{ "OpenRelayTest", SD_ESP_OTHER, -1, 0 },    { "Unconfirmed", SD_ESP_OTHER, -1, 0 },
	{ "InboundError", SD_ESP_OTHER, -1, 0 },
};

static int postmark_match(json_t *o)
{
	return json_is_string(json_object_get(o, "RecordType")) ||
	       (sd_esp_has(o, "TypeCode") && sd_esp_has(o, "BouncedAt"));
}

/* A suppression list change: SuppressSending false is a reactivation
 * (nothing to say); a suppression after a spam complaint is the complaint,
 * after a hard bounce or by hand a suppression. */
static int read_change(sd_esp_ev *e, json_t *o, sd_esp_rec *rec)
{
	sd_str why = sd_esp_str(e, o, "SuppressionReason");

	sd_esp_type(e, SD_STR("SubscriptionChange"), why, sd_esp_str(e, o, "Origin"));
	e->time = sd_esp_time(sd_esp_get(o, "ChangedAt"));
	if (!sd_esp_bool(o, "SuppressSending")) {
		e->kind = SD_ESP_OTHER;
		return 0;
	}
	if (sd_str_caseeq(why, "SpamComplaint")) {
		e->kind = SD_ESP_COMPLAINT;
	} else {
		rec->hint = SD_R_suppressed;
		rec->sure = 1;
		rec->text = why;
	}
	return sd_esp_add(e, rec) ? 1 : 0;
}

static int postmark_read(sd_esp_ev *e, json_t *o)
{
	sd_str rt = sd_esp_str(e, o, "RecordType"), type = sd_esp_str(e, o, "Type");
	const sd_esp_map *k = rt.n ? SD_ESP_LOOKUP(records, rt) : &records[0];
	const sd_esp_map *t = SD_ESP_LOOKUP(types, type);
	sd_esp_rec rec;

	e->kind = k ? k->kind : SD_ESP_OTHER;
	if (e->kind == SD_ESP_FAILURE)
		e->kind = t ? t->kind : SD_ESP_OTHER;
	sd_esp_origin(e, sd_esp_str(e, o, "From"), sd_esp_str(e, o, "MessageID"), sd_esp_str(e, o, "Subject"));
	sd_esp_rec_init(&rec, sd_esp_str(e, o, sd_esp_has(o, "Email") ? "Email" : "Recipient"));
	if (k && k->kind == SD_ESP_REJECT) /* SubscriptionChange */
		return read_change(e, o, &rec);
	sd_esp_type(e, rt.n ? rt : SD_STR("Bounce"), type, sd_esp_str(e, o, "TypeCode"));
	if (e->kind == SD_ESP_OTHER)
		return 0;
	e->time = sd_esp_time(sd_esp_get(o, "BouncedAt"));
	if (!e->time)
		e->time = sd_esp_time(sd_esp_get(o, sd_esp_has(o, "DeliveredAt") ? "DeliveredAt" : "ReceivedAt"));
	rec.text = sd_esp_str(e, o, "Details");
	if (e->kind != SD_ESP_COMPLAINT)
		sd_esp_rec_hint(&rec, t);
	if (t && t->kind == SD_ESP_REJECT && t->hint == SD_R_contenterror)
		rec.sure = 1; /* Postmark's own finding: its renderer failed */
	return sd_esp_add(e, &rec) ? 1 : 0;
}

const sd_esp sd_esp_postmark = { "postmark", postmark_match, postmark_read };
