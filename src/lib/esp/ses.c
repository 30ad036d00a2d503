/* ses.c - Amazon SES event publishing and notifications (the event JSON, bare
 * or inside an SNS notification's Message): Bounce, Complaint, Delivery,
 * DeliveryDelay, Reject, Send, Open, Click. */
#include "esp/esp.h"

static const sd_esp_map subtypes[] = {
	{ "NoEmail", 0, SD_R_userunknown, 0 },      { "Suppressed", 0, SD_R_suppressed, 0 },
	{ "OnAccountSuppressionList", 0, SD_R_suppressed, 0 },
	{ "MailboxFull", 0, SD_R_mailboxfull, 1 },  { "MessageTooLarge", 0, SD_R_emailtoolarge, 0 },
	{ "ContentRejected", 0, SD_R_contenterror, 0 },
	{ "AttachmentRejected", 0, SD_R_contenterror, 0 },
	{ "SpamDetected", 0, SD_R_spamdetected, 1 }, { "IPFailure", 0, SD_R_blocked, 1 },
	{ "RecipientServerError", 0, SD_R_systemerror, 1 },
	{ "TransientCommunicationFailure", 0, SD_R_networkerror, 1 },
};

static const sd_esp_map kinds[] = {
	{ "Bounce", SD_ESP_FAILURE, -1, 0 },     { "Complaint", SD_ESP_COMPLAINT, -1, 0 },
	{ "DeliveryDelay", SD_ESP_DEFERRAL, -1, 1 }, { "Reject", SD_ESP_REJECT, SD_R_virusdetected, 0 },
	{ "Delivery", SD_ESP_DELIVERY, -1, 0 },  { "Open", SD_ESP_ENGAGE, -1, 0 },
	{ "Click", SD_ESP_ENGAGE, -1, 0 },
};

int sd_esp_ses_subtype(sd_str st)
{
	const sd_esp_map *m = SD_ESP_LOOKUP(subtypes, st);

	return m ? m->hint : -1;
}

static int ses_match(json_t *o)
{
	if (json_is_string(json_object_get(o, "Type")) && sd_esp_has(o, "TopicArn"))
		return 1; /* an SNS message of another type: a subscription confirmation */
	return json_is_object(json_object_get(o, "mail")) &&
	       (sd_esp_has(o, "eventType") || sd_esp_has(o, "notificationType"));
}

/* Records for a list of recipients: objects with emailAddress, or strings. */
static int add_list(sd_esp_ev *e, json_t *list, int hint, int soft, sd_str text)
{
	size_t i;
	json_t *x;
	int n = 0;

	json_array_foreach(list, i, x) {
		sd_esp_rec rec;
		sd_esp_rec_init(&rec, json_is_string(x) ? (sd_str){ json_string_value(x), json_string_length(x) }
						       : sd_esp_str(e, x, "emailAddress"));
		rec.status = sd_esp_str(e, x, "status");
		rec.text = json_is_object(x) ? sd_esp_str(e, x, "diagnosticCode") : SD_NULLSTR;
		if (!rec.text.n)
			rec.text = text;
		rec.hint = hint;
		rec.sure = hint == SD_R_suppressed || e->kind == SD_ESP_REJECT;
		rec.soft = soft;
		if (sd_esp_add(e, &rec))
			n++;
	}
	return n;
}

static int read_failure(sd_esp_ev *e, json_t *o, const sd_esp_map *k)
{
	json_t *b = sd_esp_get(o, "bounce");
	sd_str type = sd_esp_str(e, b, "bounceType"), sub = sd_esp_str(e, b, "bounceSubType");
	int soft = sd_str_caseeq(type, "Transient");

	sd_esp_type(e, SD_STR("bounce"), type, sub);
	e->time = sd_esp_time(sd_esp_get(b, "timestamp"));
	return add_list(e, sd_esp_get(b, "bouncedRecipients"), sd_esp_ses_subtype(sub), soft, SD_NULLSTR);
}

static int read_other(sd_esp_ev *e, json_t *o, const sd_esp_map *k)
{
	json_t *x;
	sd_str sub;

	switch (k->kind) {
	case SD_ESP_COMPLAINT:
		x = sd_esp_get(o, "complaint");
		sub = sd_esp_str(e, x, "complaintFeedbackType");
		sd_esp_type(e, SD_STR("complaint"), sub, sd_esp_str(e, x, "complaintSubType"));
		e->time = sd_esp_time(sd_esp_get(x, "timestamp"));
		return add_list(e, sd_esp_get(x, "complainedRecipients"), -1, 0, SD_NULLSTR);
	case SD_ESP_DEFERRAL:
		x = sd_esp_get(o, "deliveryDelay");
		sub = sd_esp_str(e, x, "delayType");
		sd_esp_type(e, SD_STR("deliverydelay"), sub, SD_NULLSTR);
		e->time = sd_esp_time(sd_esp_get(x, "timestamp"));
		return add_list(e, sd_esp_get(x, "delayedRecipients"), sd_esp_ses_subtype(sub), 1, SD_NULLSTR);
	case SD_ESP_REJECT:
		sub = sd_esp_str(e, o, "reject.reason");
		sd_esp_type(e, SD_STR("reject"), sub, SD_NULLSTR);
		return add_list(e, sd_esp_get(o, "mail.destination"), k->hint, 0, sub);
	case SD_ESP_DELIVERY:
		x = sd_esp_get(o, "delivery");
		sd_esp_type(e, SD_STR("delivery"), SD_NULLSTR, SD_NULLSTR);
		e->time = sd_esp_time(sd_esp_get(x, "timestamp"));
		return add_list(e, sd_esp_get(x, "recipients"), -1, 0, sd_esp_str(e, x, "smtpResponse"));
	default:
		sd_esp_type(e, (sd_str){ k->word, strlen(k->word) }, SD_NULLSTR, SD_NULLSTR);
		return add_list(e, sd_esp_get(o, "mail.destination"), -1, 0, SD_NULLSTR);
	}
}

static int ses_read(sd_esp_ev *e, json_t *o)
{
	sd_str t = sd_esp_str(e, o, "eventType");
	const sd_esp_map *k;

	if (!t.n)
		t = sd_esp_str(e, o, "notificationType");
	k = SD_ESP_LOOKUP(kinds, t);
	sd_esp_origin(e, sd_esp_str(e, o, "mail.source"), sd_esp_str(e, o, "mail.messageId"),
		      sd_esp_str(e, o, "mail.commonHeaders.subject"));
	e->time = sd_esp_time(sd_esp_get(o, "mail.timestamp"));
	if (!k) {
		e->kind = SD_ESP_OTHER;
		sd_esp_type(e, t.n ? t : sd_esp_str(e, o, "Type"), SD_NULLSTR, SD_NULLSTR);
		return 0;
	}
	e->kind = k->kind;
	if (k->kind == SD_ESP_FAILURE)
		return read_failure(e, o, k);
	return read_other(e, o, k);
}

const sd_esp sd_esp_ses = { "ses", ses_match, ses_read };
