/* ses.c - Amazon SES event publishing and notifications (the event JSON, bare
 * or inside an SNS notification's Message), as SES documents its event types:
 * Bounce, Complaint, DeliveryDelay, Reject, Rendering Failure are read;
 * Delivery, Open, Click only with --all-events; Send and Subscription (a
 * change of the recipient's subscription preferences) are ignored by name. */
#include "esp/esp.h"

/* Bounce sub-types and delay types (SES: "Bounce types", "DeliveryDelay
 * object"), and the reason each one implies. */
static const sd_esp_map subtypes[] = {
	/* bounces */
	{ "Undetermined", 0, -1, 0 },               { "General", 0, -1, 0 },
	{ "NoEmail", 0, SD_R_userunknown, 0 },      { "Suppressed", 0, SD_R_suppressed, 0 },
	{ "OnAccountSuppressionList", 0, SD_R_suppressed, 0 },
	{ "MailboxFull", 0, SD_R_mailboxfull, 1 },  { "MessageTooLarge", 0, SD_R_emailtoolarge, 0 },
	{ "ContentRejected", 0, SD_R_contenterror, 0 },
	{ "AttachmentRejected", 0, SD_R_contenterror, 0 },
	/* delays (MailboxFull, General and Undetermined above) */
	{ "SpamDetected", 0, SD_R_spamdetected, 1 }, { "IPFailure", 0, SD_R_blocked, 1 },
	{ "RecipientServerError", 0, SD_R_systemerror, 1 },
	{ "TransientCommunicationFailure", 0, SD_R_networkerror, 1 },
	/* SES could not look up the DNS host name of the sender's own (BYOIP) addresses */
	{ "BYOIPHostNameLookupUnavailable", 0, SD_R_requireptr, 1 },
	{ "InternalFailure", 0, -1, 1 },            { "SendingDeferral", 0, -1, 1 },
};

static const sd_esp_map kinds[] = {
	{ "Bounce", SD_ESP_FAILURE, -1, 0 },     { "Complaint", SD_ESP_COMPLAINT, -1, 0 },
	{ "DeliveryDelay", SD_ESP_DEFERRAL, -1, 1 },
	/* "Bad content": SES found a virus and did not try to deliver */
	{ "Reject", SD_ESP_REJECT, SD_R_virusdetected, 0 },
	/* the sender's template and data do not render: nothing was sent */
	{ "Rendering Failure", SD_ESP_REJECT, SD_R_contenterror, 0 },
	{ "Delivery", SD_ESP_DELIVERY, -1, 0 },  { "Open", SD_ESP_ENGAGE, -1, 0 },
	{ "Click", SD_ESP_ENGAGE, -1, 0 },
	{ "Send", SD_ESP_OTHER, -1, 0 },         { "Subscription", SD_ESP_OTHER, -1, 0 },
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
static int add_list(sd_esp_ev *e, json_t *list, const sd_esp_rec *like)
{
	size_t i;
	json_t *x;
	int n = 0;

	json_array_foreach(list, i, x) {
		sd_esp_rec rec = *like;
		rec.rcpt = json_is_string(x) ? (sd_str){ json_string_value(x), json_string_length(x) }
					     : sd_esp_str(e, x, "emailAddress");
		rec.status = sd_esp_str(e, x, "status");
		if (json_is_object(x) && sd_esp_str(e, x, "diagnosticCode").n)
			rec.text = sd_esp_str(e, x, "diagnosticCode");
		if (sd_esp_add(e, &rec))
			n++;
	}
	return n;
}

/* What every record of the event shares: the sub-type's hint, softness, text. */
static void like_init(sd_esp_rec *like, int hint, int soft, sd_str text, int sure)
{
	sd_esp_rec_init(like, SD_NULLSTR);
	like->hint = hint;
	like->soft = soft;
	like->text = text;
	like->sure = sure || hint == SD_R_suppressed;
}

/* The event's own object (bounce, complaint ...); its timestamp, when it has
 * one, is the event's time. */
static json_t *part(sd_esp_ev *e, json_t *o, const char *name)
{
	json_t *x = sd_esp_get(o, name);
	int64_t t = sd_esp_time(sd_esp_get(x, "timestamp"));

	if (t)
		e->time = t;
	return x;
}

static int read_failure(sd_esp_ev *e, json_t *o)
{
	json_t *b = part(e, o, "bounce");
	sd_str type = sd_esp_str(e, b, "bounceType"), sub = sd_esp_str(e, b, "bounceSubType");
	sd_esp_rec like;

	sd_esp_type(e, SD_STR("bounce"), type, sub);
	like_init(&like, sd_esp_ses_subtype(sub), sd_str_caseeq(type, "Transient"), SD_NULLSTR, 0);
	return add_list(e, sd_esp_get(b, "bouncedRecipients"), &like);
}

/* A complaint, as SES documents its sub-type and feedback types: sub-type
 * OnAccountSuppressionList is no complaint but a message SES did not send
 * (the address is on the account's suppression list); feedback type
 * not-spam says the message was no spam: nothing to say. */
static int read_complaint(sd_esp_ev *e, json_t *o)
{
	json_t *x = part(e, o, "complaint");
	sd_str fb = sd_esp_str(e, x, "complaintFeedbackType"), sub = sd_esp_str(e, x, "complaintSubType");
	sd_esp_rec like;

	sd_esp_type(e, SD_STR("complaint"), fb, sub);
	if (sd_str_caseeq(sub, "OnAccountSuppressionList")) {
		e->kind = SD_ESP_REJECT;
		like_init(&like, SD_R_suppressed, 0, SD_NULLSTR, 1);
	} else if (sd_str_caseeq(fb, "not-spam")) {
		e->kind = SD_ESP_OTHER;
		return 0;
	} else {
		like_init(&like, -1, 0, SD_NULLSTR, 0);
		like.feedback = fb;
	}
	return add_list(e, sd_esp_get(x, "complainedRecipients"), &like);
}

static int read_other(sd_esp_ev *e, json_t *o, const sd_esp_map *k)
{
	json_t *x;
	sd_str sub;
	sd_esp_rec like;

	switch (k->kind) {
	case SD_ESP_COMPLAINT:
		return read_complaint(e, o);
	case SD_ESP_DEFERRAL:
		x = part(e, o, "deliveryDelay");
		sub = sd_esp_str(e, x, "delayType");
		sd_esp_type(e, SD_STR("deliverydelay"), sub, SD_NULLSTR);
		like_init(&like, sd_esp_ses_subtype(sub), 1, SD_NULLSTR, 0);
		return add_list(e, sd_esp_get(x, "delayedRecipients"), &like);
	case SD_ESP_REJECT:
		if (sd_esp_has(o, "failure")) { /* Rendering Failure */
			x = sd_esp_get(o, "failure");
			sub = sd_esp_str(e, x, "errorMessage");
			sd_esp_type(e, SD_STR("renderingfailure"), sd_esp_str(e, x, "templateName"), SD_NULLSTR);
		} else {
			sub = sd_esp_str(e, o, "reject.reason");
			sd_esp_type(e, SD_STR("reject"), sub, SD_NULLSTR);
		}
		like_init(&like, k->hint, 0, sub, 1);
		return add_list(e, sd_esp_get(o, "mail.destination"), &like);
	case SD_ESP_DELIVERY:
		x = part(e, o, "delivery");
		sd_esp_type(e, SD_STR("delivery"), SD_NULLSTR, SD_NULLSTR);
		like_init(&like, -1, 0, sd_esp_str(e, x, "smtpResponse"), 0);
		return add_list(e, sd_esp_get(x, "recipients"), &like);
	default:
		sd_esp_type(e, (sd_str){ k->word, strlen(k->word) }, SD_NULLSTR, SD_NULLSTR);
		like_init(&like, -1, 0, SD_NULLSTR, 0);
		return add_list(e, sd_esp_get(o, "mail.destination"), &like);
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
	if (!k || k->kind == SD_ESP_OTHER) { /* Send, Subscription, an SNS confirmation ... */
		e->kind = SD_ESP_OTHER;
		sd_esp_type(e, t.n ? t : sd_esp_str(e, o, "Type"), SD_NULLSTR, SD_NULLSTR);
		return 0;
	}
	e->kind = k->kind;
	if (k->kind == SD_ESP_FAILURE)
		return read_failure(e, o);
	return read_other(e, o, k);
}

const sd_esp sd_esp_ses = { "ses", ses_match, ses_read };
