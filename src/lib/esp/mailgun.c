/* mailgun.c - Mailgun webhooks: the JSON body (signature + event-data), Events
 * API items, and the legacy form-encoded posts (event=bounced|dropped|...), as
 * Mailgun documents its event types: failed (severity permanent: a failure;
 * temporary: a deferral) with its delivery-status, rejected (Mailgun refused
 * to send), complained are read; delivered, opened, clicked only with
 * --all-events; accepted, unsubscribed, stored and the mailing-list events are
 * ignored by name. */
#include "esp/esp.h"

static const sd_esp_map events[] = {
	{ "failed", SD_ESP_FAILURE, -1, 0 },
	/* Mailgun refused the request to send (a sandbox domain's unauthorised
	 * recipient, an unverified domain, a disabled account): the sender's set-up */
	{ "rejected", SD_ESP_REJECT, SD_R_rejected, 0 },
	{ "complained", SD_ESP_COMPLAINT, -1, 0 }, { "delivered", SD_ESP_DELIVERY, -1, 0 },
	{ "opened", SD_ESP_ENGAGE, -1, 0 },      { "clicked", SD_ESP_ENGAGE, -1, 0 },
	{ "accepted", SD_ESP_OTHER, -1, 0 },     { "unsubscribed", SD_ESP_OTHER, -1, 0 },
	{ "stored", SD_ESP_OTHER, -1, 0 },       { "list_member_uploaded", SD_ESP_OTHER, -1, 0 },
	{ "list_member_upload_error", SD_ESP_OTHER, -1, 0 },
	{ "list_uploaded", SD_ESP_OTHER, -1, 0 },
	/* legacy webhooks */
	{ "bounced", SD_ESP_FAILURE, -1, 0 },    { "dropped", SD_ESP_FAILURE, -1, 0 },
	{ "spam", SD_ESP_COMPLAINT, -1, 0 },
};

/* Mailgun's reason for a failure it decided itself. */
static const sd_esp_map reasons[] = {
	{ "suppress-bounce", 0, SD_R_suppressed, 0 },
	{ "suppress-unsubscribe", 0, SD_R_suppressed, 0 },
	{ "suppress-complaint", 0, SD_R_suppressed, 0 },
	{ "hardfail", 0, SD_R_suppressed, 0 },
	{ "old", 0, SD_R_expired, 1 },
};

static int mailgun_match(json_t *o)
{
	if (json_is_object(json_object_get(o, "event-data")))
		return 1;
	return json_is_string(json_object_get(o, "event")) && json_object_get(o, "recipient") &&
	       (sd_esp_has(o, "delivery-status") || sd_esp_has(o, "log-level") ||
		sd_esp_has(o, "signature") || sd_esp_has(o, "token"));
}

static sd_str header(sd_esp_ev *e, json_t *o, const char *name, const char *legacy)
{
	json_t *h = sd_esp_get(o, "message.headers");
	sd_str s = sd_esp_str(e, h, name);

	return s.n ? s : sd_esp_str(e, o, legacy);
}

/* delivery-status: code, enhanced-code, message, description, mx-host. */
static void read_text(sd_esp_ev *e, json_t *o, sd_esp_rec *rec)
{
	json_t *ds = sd_esp_get(o, "delivery-status");
	sd_str code = sd_esp_str(e, ds, "code");

	if (!code.n)
		code = sd_esp_str(e, o, "code");
	if (code.n && !(code.n == 1 && code.p[0] == '0'))
		rec->code = code;
	rec->status = sd_esp_str(e, ds, "enhanced-code");
	rec->rhost = sd_esp_str(e, ds, "mx-host");
	rec->text = sd_esp_join(e, sd_esp_str(e, ds, "message"), sd_esp_str(e, ds, "description"));
	rec->text = sd_esp_join(e, rec->text, sd_esp_str(e, o, "error"));
	rec->text = sd_esp_join(e, rec->text, sd_esp_str(e, o, "notification"));
	rec->text = sd_esp_join(e, rec->text, sd_esp_str(e, o, "description"));
	rec->text = sd_esp_join(e, rec->text, sd_esp_str(e, o, "reject.reason"));
	rec->text = sd_esp_join(e, rec->text, sd_esp_str(e, o, "reject.description"));
}

/* The recipients of an event that names none in "recipient" (a rejected
 * request): the message's To header, one record per address in it. */
static int add_to(sd_esp_ev *e, json_t *d, const sd_esp_rec *like)
{
	sd_str to = header(e, d, "to", "To");
	size_t i = 0, at;
	int n = 0;

	while (i < to.n) {
		sd_esp_rec rec = *like;
		for (at = i; i < to.n && to.p[i] != ','; i++)
			;
		rec.rcpt = sd_addr_clean(sd_trim((sd_str){ to.p + at, i - at }));
		i++;
		if (rec.rcpt.n && sd_esp_add(e, &rec))
			n++;
	}
	return n;
}

static int mailgun_read(sd_esp_ev *e, json_t *o)
{
	json_t *d = json_is_object(sd_esp_get(o, "event-data")) ? sd_esp_get(o, "event-data") : o;
	sd_str ev = sd_esp_str(e, d, "event"), sev = sd_esp_str(e, d, "severity");
	sd_str why = sd_esp_str(e, d, "reason");
	const sd_esp_map *k = SD_ESP_LOOKUP(events, ev), *r = SD_ESP_LOOKUP(reasons, why);
	sd_esp_rec rec;

	e->kind = k ? k->kind : SD_ESP_OTHER;
	if (e->kind == SD_ESP_FAILURE && sd_str_caseeq(sev, "temporary"))
		e->kind = SD_ESP_DEFERRAL;
	e->time = sd_esp_time(sd_esp_get(d, "timestamp"));
	sd_esp_type(e, ev, sev, why);
	if (e->kind == SD_ESP_OTHER)
		return 0;
	sd_esp_origin(e, header(e, d, "from", "sender"), header(e, d, "message-id", "Message-Id"),
		      header(e, d, "subject", "subject"));
	sd_esp_rec_init(&rec, sd_esp_str(e, d, "recipient"));
	read_text(e, d, &rec);
	rec.soft = e->kind == SD_ESP_DEFERRAL;
	sd_esp_rec_hint(&rec, r);
	if (e->kind == SD_ESP_REJECT) { /* the service's own decision */
		rec.hint = k->hint;
		rec.sure = 1;
	}
	if (!rec.rcpt.n)
		return add_to(e, d, &rec);
	return sd_esp_add(e, &rec) ? 1 : 0;
}

const sd_esp sd_esp_mailgun = { "mailgun", mailgun_match, mailgun_read };
