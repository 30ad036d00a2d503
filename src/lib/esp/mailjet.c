/* mailjet.c - Mailjet event API: bounce (hard_bounce, error_related_to,
 * error), blocked, spam, sent, open, click. */
#include "esp/esp.h"

static const sd_esp_map events[] = {
	{ "bounce", SD_ESP_FAILURE, -1, 0 }, { "blocked", SD_ESP_REJECT, -1, 0 },
	{ "spam", SD_ESP_COMPLAINT, -1, 0 }, { "sent", SD_ESP_DELIVERY, -1, 0 },
	{ "open", SD_ESP_ENGAGE, -1, 0 },    { "click", SD_ESP_ENGAGE, -1, 0 },
};

/* Mailjet's error words that name a reason of the service's own. */
static const sd_esp_map errors[] = {
	{ "user unknown", 0, SD_R_userunknown, 0 },  { "mailbox inactive", 0, SD_R_suspend, 0 },
	{ "quota exceeded", 0, SD_R_mailboxfull, 1 }, { "invalid domain", 0, SD_R_hostunknown, 0 },
	{ "no mail host", 0, SD_R_hostunknown, 0 },  { "relay/access denied", 0, SD_R_norelaying, 0 },
	{ "sender blocked", 0, SD_R_blocked, 0 },    { "content blocked", 0, SD_R_contenterror, 0 },
	{ "policy issue", 0, SD_R_policyviolation, 0 },
	{ "preblocked", 0, SD_R_suppressed, 0 },     { "spam preblocked", 0, SD_R_suppressed, 0 },
	{ "blacklisted", 0, SD_R_suppressed, 0 },    { "spam reporter", 0, SD_R_suppressed, 0 },
	{ "duplicate in campaign", 0, SD_R_suppressed, 0 },
};

static int mailjet_match(json_t *o)
{
	return json_is_string(json_object_get(o, "event")) &&
	       (sd_esp_has(o, "MessageID") || sd_esp_has(o, "mj_message_id") ||
		sd_esp_has(o, "Message_GUID") || sd_esp_has(o, "mj_campaign_id"));
}

static int mailjet_read(sd_esp_ev *e, json_t *o)
{
	sd_str ev = sd_esp_str(e, o, "event"), err = sd_esp_str(e, o, "error");
	const sd_esp_map *k = SD_ESP_LOOKUP(events, ev), *m = SD_ESP_LOOKUP(errors, err);
	sd_esp_rec rec;

	e->kind = k ? k->kind : SD_ESP_OTHER;
	e->time = sd_esp_time(sd_esp_get(o, "time"));
	sd_esp_type(e, ev, sd_esp_str(e, o, "error_related_to"), err);
	sd_esp_origin(e, SD_NULLSTR, sd_esp_str(e, o, "Message_GUID"), SD_NULLSTR);
	sd_esp_rec_init(&rec, sd_esp_str(e, o, "email"));
	/* the error words are Mailjet's classification, not reply text: a hint
	 * when they name a reason, part of the text when they do not */
	rec.text = sd_esp_str(e, o, "comment");
	if (!m)
		rec.text = sd_esp_join(e, rec.text, err);
	if (e->kind == SD_ESP_FAILURE && sd_esp_has(o, "hard_bounce"))
		rec.soft = !sd_esp_bool(o, "hard_bounce");
	sd_esp_rec_hint(&rec, m);
	return sd_esp_add(e, &rec) ? 1 : 0;
}

const sd_esp sd_esp_mailjet = { "mailjet", mailjet_match, mailjet_read };
