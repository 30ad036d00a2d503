/* resend.c - Resend webhooks: {type, created_at, data}, as Resend documents
 * its event types. email.bounced (data.bounce: type Permanent, Transient or
 * Undetermined, subType as SES's, message), email.complained (a complaint),
 * email.delivery_delayed (a deferral), email.failed (Resend could not send:
 * data.failed.reason) are read; email.delivered, email.opened, email.clicked
 * only with --all-events; suppression.added is Resend's suppression of the
 * address (origin complaint: a complaint); email.sent, email.scheduled,
 * email.received, suppression.removed and the contact.* and domain.* events
 * are ignored by name. */
#include "esp/esp.h"

static const sd_esp_map types[] = {
	{ "email.bounced", SD_ESP_FAILURE, -1, 0 },  { "email.complained", SD_ESP_COMPLAINT, -1, 0 },
	{ "email.delivery_delayed", SD_ESP_DEFERRAL, -1, 1 },
	/* not sent: the sender's request (a quota, the domain, the API key) */
	{ "email.failed", SD_ESP_REJECT, SD_R_rejected, 0 },
	{ "email.delivered", SD_ESP_DELIVERY, -1, 0 }, { "email.opened", SD_ESP_ENGAGE, -1, 0 },
	{ "email.clicked", SD_ESP_ENGAGE, -1, 0 },
	/* no delivery failure */
	{ "email.sent", SD_ESP_OTHER, -1, 0 },       { "email.scheduled", SD_ESP_OTHER, -1, 0 },
	{ "email.received", SD_ESP_OTHER, -1, 0 },
	/* the address put on the account's suppression list: Resend will not send to it */
	{ "suppression.added", SD_ESP_REJECT, SD_R_suppressed, 0 },
	{ "suppression.removed", SD_ESP_OTHER, -1, 0 },
	{ "contact.created", SD_ESP_OTHER, -1, 0 },  { "contact.updated", SD_ESP_OTHER, -1, 0 },
	{ "contact.deleted", SD_ESP_OTHER, -1, 0 },  { "domain.created", SD_ESP_OTHER, -1, 0 },
	{ "domain.updated", SD_ESP_OTHER, -1, 0 },   { "domain.deleted", SD_ESP_OTHER, -1, 0 },
};

/* The families of Resend's event types; the others of these families are
 * of the account, not of a message. */
static const char *const families[] = { "email.", "contact.", "domain.", "suppression." };

static int resend_match(json_t *o)
{
	json_t *t = json_object_get(o, "type");

	if (!json_is_string(t) || !json_is_object(json_object_get(o, "data")) || json_object_get(o, "webhook_id"))
		return 0; /* MailerSend's envelope names its webhook */
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (!strncmp(json_string_value(t), families[i], strlen(families[i])))
			return 1;
	return 0;
}

/* An address added to the suppression list: after a complaint, that
 * complaint; after a bounce or by hand, Resend's suppression. */
static int read_suppression(sd_esp_ev *e, json_t *d)
{
	sd_str origin = sd_esp_str(e, d, "origin");
	sd_esp_rec rec;

	sd_esp_type(e, SD_STR("suppression.added"), origin, SD_NULLSTR);
	sd_esp_rec_init(&rec, sd_esp_str(e, d, "email"));
	if (sd_str_caseeq(origin, "complaint")) {
		e->kind = SD_ESP_COMPLAINT;
	} else {
		rec.hint = SD_R_suppressed;
		rec.sure = 1;
		rec.text = origin;
	}
	return sd_esp_add(e, &rec) ? 1 : 0;
}

static int resend_read(sd_esp_ev *e, json_t *o)
{
	json_t *d = json_object_get(o, "data"), *to = sd_esp_get(d, "to"), *x;
	sd_str type = sd_esp_str(e, o, "type"), bt = sd_esp_str(e, d, "bounce.type");
	sd_str sub = sd_esp_str(e, d, "bounce.subType");
	const sd_esp_map *k = SD_ESP_LOOKUP(types, type);
	size_t i;
	int n = 0;

	e->kind = k ? k->kind : SD_ESP_OTHER;
	e->time = sd_esp_time(sd_esp_get(o, "created_at"));
	sd_esp_type(e, type, bt, sub);
	if (e->kind == SD_ESP_OTHER)
		return 0;
	sd_esp_origin(e, sd_esp_str(e, d, "from"), sd_esp_str(e, d, "email_id"), sd_esp_str(e, d, "subject"));
	if (k->hint == SD_R_suppressed)
		return read_suppression(e, d);
	if (json_is_string(to))
		to = json_pack("[O]", to); /* one address: as a list of one */
	else
		json_incref(to);
	json_array_foreach(to, i, x) {
		sd_esp_rec rec;
		sd_esp_rec_init(&rec, (sd_str){ json_string_value(x), json_string_length(x) });
		rec.text = sd_esp_str(e, d, "bounce.message");
		if (!rec.text.n)
			rec.text = sd_esp_str(e, d, "failed.reason");
		rec.hint = e->kind == SD_ESP_REJECT ? k->hint : sd_esp_ses_subtype(sub);
		rec.sure = rec.hint == SD_R_suppressed || e->kind == SD_ESP_REJECT; /* Resend's own */
		rec.soft = sd_str_caseeq(bt, "Transient") || e->kind == SD_ESP_DEFERRAL;
		if (json_is_string(x) && sd_esp_add(e, &rec))
			n++;
	}
	json_decref(to);
	return n;
}

const sd_esp sd_esp_resend = { "resend", resend_match, resend_read };
