/* sparkpost.c - SparkPost webhooks: arrays of {"msys": {"message_event": ...}}
 * with bounce_class, raw_reason and error_code, as SparkPost documents its
 * event types: bounce, out_of_band, delay, spam_complaint, policy_rejection,
 * generation_failure and generation_rejection are read; delivery and the
 * engagement events only with --all-events; injection, the unsubscribes, the
 * relay (inbound) events, A/B test and ingest events are ignored by name. */
#include "esp/esp.h"

static const sd_esp_map types[] = {
	{ "bounce", SD_ESP_FAILURE, -1, 0 },       { "out_of_band", SD_ESP_FAILURE, -1, 0 },
	{ "delay", SD_ESP_DEFERRAL, -1, 1 },       { "spam_complaint", SD_ESP_COMPLAINT, -1, 0 },
	/* no delivery attempt: SparkPost's policy (limits, an unconfigured sending
	 * domain, a suppressed recipient: the text and bounce_class say which) */
	{ "policy_rejection", SD_ESP_REJECT, -1, 0 },
	{ "generation_rejection", SD_ESP_REJECT, -1, 0 },
	/* no delivery attempt: the sender's template did not render */
	{ "generation_failure", SD_ESP_REJECT, SD_R_contenterror, 0 },
	{ "delivery", SD_ESP_DELIVERY, -1, 0 },    { "open", SD_ESP_ENGAGE, -1, 0 },
	{ "initial_open", SD_ESP_ENGAGE, -1, 0 },  { "amp_open", SD_ESP_ENGAGE, -1, 0 },
	{ "amp_initial_open", SD_ESP_ENGAGE, -1, 0 },
	{ "click", SD_ESP_ENGAGE, -1, 0 },         { "amp_click", SD_ESP_ENGAGE, -1, 0 },
	{ "injection", SD_ESP_OTHER, -1, 0 },      { "list_unsubscribe", SD_ESP_OTHER, -1, 0 },
	{ "link_unsubscribe", SD_ESP_OTHER, -1, 0 }, { "relay_injection", SD_ESP_OTHER, -1, 0 },
	{ "relay_rejection", SD_ESP_OTHER, -1, 0 }, { "relay_delivery", SD_ESP_OTHER, -1, 0 },
	{ "relay_tempfail", SD_ESP_OTHER, -1, 0 }, { "relay_permfail", SD_ESP_OTHER, -1, 0 },
	{ "ab_test_completed", SD_ESP_OTHER, -1, 0 }, { "ab_test_cancelled", SD_ESP_OTHER, -1, 0 },
	{ "ingest_success", SD_ESP_OTHER, -1, 0 }, { "ingest_error", SD_ESP_OTHER, -1, 0 },
};

/* SparkPost's bounce classification codes and what each one says; kind
 * SD_ESP_OTHER: no delivery failure (an auto-reply, a subscribe or
 * unsubscribe request), SD_ESP_FAILURE the others. */
static const sd_esp_map classes[] = {
	{ "1", SD_ESP_FAILURE, -1, 0 },                  /* Undetermined */
	{ "10", SD_ESP_FAILURE, SD_R_userunknown, 0 },   /* Invalid Recipient */
	{ "20", SD_ESP_FAILURE, -1, 1 },                 /* Soft Bounce */
	{ "21", SD_ESP_FAILURE, SD_R_hostunknown, 1 },   /* DNS Failure */
	{ "22", SD_ESP_FAILURE, SD_R_mailboxfull, 1 },   /* Mailbox Full */
	{ "23", SD_ESP_FAILURE, SD_R_emailtoolarge, 1 }, /* Too Large */
	{ "24", SD_ESP_FAILURE, SD_R_networkerror, 1 },  /* Timeout */
	{ "25", SD_ESP_FAILURE, SD_R_suppressed, 0 },    /* Admin Failure: SparkPost's configured policies */
	{ "30", SD_ESP_FAILURE, SD_R_userunknown, 0 },   /* Generic Bounce: No RCPT */
	{ "40", SD_ESP_FAILURE, -1, 1 },                 /* Generic Bounce: unspecified */
	{ "50", SD_ESP_FAILURE, SD_R_blocked, 0 },       /* Mail Block */
	{ "51", SD_ESP_FAILURE, SD_R_blocked, 0 },       /* Spam Block: a known spam source */
	{ "52", SD_ESP_FAILURE, SD_R_spamdetected, 0 },  /* Spam Content */
	{ "53", SD_ESP_FAILURE, SD_R_contenterror, 0 },  /* Prohibited Attachment */
	{ "54", SD_ESP_FAILURE, SD_R_norelaying, 0 },    /* Relaying Denied */
	{ "60", SD_ESP_OTHER, -1, 0 },                   /* Auto-Reply */
	{ "70", SD_ESP_FAILURE, -1, 1 },                 /* Transient Failure */
	{ "80", SD_ESP_OTHER, -1, 0 },                   /* Subscribe */
	{ "90", SD_ESP_OTHER, -1, 0 },                   /* Unsubscribe */
	{ "100", SD_ESP_FAILURE, SD_R_filtered, 1 },     /* Challenge-Response */
};

static int sparkpost_match(json_t *o)
{
	return json_is_string(json_object_get(o, "type")) &&
	       (sd_esp_has(o, "rcpt_to") || sd_esp_has(o, "raw_rcpt_to")) &&
	       (sd_esp_has(o, "message_id") || sd_esp_has(o, "transmission_id") || sd_esp_has(o, "event_id"));
}

static int sparkpost_read(sd_esp_ev *e, json_t *o)
{
	sd_str type = sd_esp_str(e, o, "type"), cls = sd_esp_str(e, o, "bounce_class");
	const sd_esp_map *k = SD_ESP_LOOKUP(types, type), *c = SD_ESP_LOOKUP(classes, cls);
	sd_esp_rec rec;

	e->kind = k ? k->kind : SD_ESP_OTHER;
	if ((e->kind == SD_ESP_FAILURE || e->kind == SD_ESP_REJECT) && c && c->kind == SD_ESP_OTHER)
		e->kind = SD_ESP_OTHER;
	e->time = sd_esp_time(sd_esp_get(o, "timestamp"));
	sd_esp_type(e, type, cls, e->kind == SD_ESP_COMPLAINT ? sd_esp_str(e, o, "fbtype") : SD_NULLSTR);
	if (e->kind == SD_ESP_OTHER)
		return 0;
	sd_esp_origin(e, sd_esp_str(e, o, "msg_from"), sd_esp_str(e, o, "message_id"), sd_esp_str(e, o, "subject"));
	sd_esp_rec_init(&rec, sd_esp_str(e, o, sd_esp_has(o, "rcpt_to") ? "rcpt_to" : "raw_rcpt_to"));
	rec.text = sd_esp_str(e, o, "raw_reason");
	if (!rec.text.n)
		rec.text = sd_esp_str(e, o, "reason");
	rec.code = sd_esp_str(e, o, "error_code");
	if (e->kind == SD_ESP_COMPLAINT)
		rec.feedback = sd_esp_str(e, o, "fbtype");
	else
		sd_esp_rec_hint(&rec, c);
	if (k->hint >= 0) { /* the event type itself says why (generation_failure) */
		rec.hint = k->hint;
		rec.sure = 1;
	} else if (c && c->hint == SD_R_suppressed) {
		rec.sure = 0; /* class 25 is any of SparkPost's policies: the text says which */
	}
	rec.soft |= e->kind == SD_ESP_DEFERRAL;
	return sd_esp_add(e, &rec) ? 1 : 0;
}

const sd_esp sd_esp_sparkpost = { "sparkpost", sparkpost_match, sparkpost_read };
