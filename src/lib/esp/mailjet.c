/* mailjet.c - Mailjet Event API (one event or an array of them): bounce
 * (blocked, hard_bounce, error_related_to, error, comment), blocked, spam,
 * sent, open, click, unsub. */
#include "esp/esp.h"

static const sd_esp_map events[] = {
	{ "bounce", SD_ESP_FAILURE, -1, 0 }, { "blocked", SD_ESP_REJECT, -1, 0 },
	{ "spam", SD_ESP_COMPLAINT, -1, 0 }, { "sent", SD_ESP_DELIVERY, -1, 0 },
	{ "open", SD_ESP_ENGAGE, -1, 0 },    { "click", SD_ESP_ENGAGE, -1, 0 },
	{ "unsub", SD_ESP_OTHER, -1, 0 },    /* the recipient unsubscribed: no delivery failure */
};

/* Mailjet's table of errors ("Possible values for errors", by error_related_to):
 * the reason each one names, and soft where Mailjet calls it temporary. */
static const sd_esp_map errors[] = {
	/* recipient */
	{ "user unknown", 0, SD_R_userunknown, 0 },  { "mailbox inactive", 0, SD_R_suspend, 0 },
	{ "quota exceeded", 0, SD_R_mailboxfull, 1 }, { "blacklisted", 0, SD_R_suppressed, 0 },
	{ "spam reporter", 0, SD_R_suppressed, 0 },
	/* domain */
	{ "invalid domain", 0, SD_R_hostunknown, 0 }, { "no mail host", 0, SD_R_hostunknown, 0 },
	{ "relay/access denied", 0, SD_R_norelaying, 0 }, { "greylisted", 0, -1, 1 },
	{ "typofix", 0, SD_R_hostunknown, 0 },
	/* content: the sender's template */
	{ "bad or empty template", 0, SD_R_contenterror, 0 },
	{ "error in template language", 0, SD_R_contenterror, 0 },
	/* spam */
	{ "sender blocked", 0, SD_R_blocked, 0 },    { "content blocked", 0, SD_R_spamdetected, 0 },
	{ "policy issue", 0, SD_R_policyviolation, 0 },
	/* system: Mailjet's own, temporary */
	{ "system issue", 0, SD_R_systemerror, 1 },  { "protocol issue", 0, SD_R_networkerror, 1 },
	{ "connection issue", 0, SD_R_networkerror, 1 },
	/* mailjet: it did not send */
	{ "preblocked", 0, SD_R_suppressed, 0 },     { "spam preblocked", 0, SD_R_suppressed, 0 },
	{ "duplicate in campaign", 0, -1, 0 },
};

static int mailjet_match(json_t *o)
{
	return json_is_string(json_object_get(o, "event")) &&
	       (sd_esp_has(o, "MessageID") || sd_esp_has(o, "mj_message_id") ||
		sd_esp_has(o, "Message_GUID") || sd_esp_has(o, "mj_campaign_id"));
}

/* A bounce Mailjet will try again: hard_bounce false (a boolean, not the empty
 * string some posts carry), or an error it calls temporary; never one that put
 * the address on its block list. */
static int temporary(json_t *o, const sd_esp_map *m)
{
	json_t *hb = sd_esp_get(o, "hard_bounce");

	if (sd_esp_bool(o, "blocked") || sd_esp_bool(o, "hard_bounce"))
		return 0;
	return json_is_false(hb) || sd_esp_is(o, "hard_bounce", "false") || (m && m->soft);
}

static int mailjet_read(sd_esp_ev *e, json_t *o)
{
	sd_str ev = sd_esp_str(e, o, "event"), err = sd_esp_str(e, o, "error");
	const sd_esp_map *k = SD_ESP_LOOKUP(events, ev), *m = SD_ESP_LOOKUP(errors, err);
	sd_esp_rec rec;

	e->kind = k ? k->kind : SD_ESP_OTHER;
	if (e->kind == SD_ESP_FAILURE && temporary(o, m))
		e->kind = SD_ESP_DEFERRAL;
	/* the other copies of a deduplicated campaign: the first one was sent */
	if (e->kind == SD_ESP_REJECT && sd_str_caseeq(err, "duplicate in campaign"))
		e->kind = SD_ESP_OTHER;
	e->time = sd_esp_time(sd_esp_get(o, "time"));
	sd_esp_type(e, ev, sd_esp_str(e, o, "error_related_to"), err);
	sd_esp_origin(e, SD_NULLSTR, sd_esp_str(e, o, "Message_GUID"), SD_NULLSTR);
	sd_esp_rec_init(&rec, sd_esp_str(e, o, "email"));
	/* the error words are Mailjet's classification, not reply text: a hint
	 * when they name a reason, part of the text when they do not */
	rec.text = sd_esp_str(e, o, "comment");
	if (!m || m->hint < 0)
		rec.text = sd_esp_join(e, rec.text, err);
	sd_esp_rec_hint(&rec, m);
	rec.soft = e->kind == SD_ESP_DEFERRAL; /* hard_bounce true or blocked: final */
	return sd_esp_add(e, &rec) ? 1 : 0;
}

const sd_esp sd_esp_mailjet = { "mailjet", mailjet_match, mailjet_read };
