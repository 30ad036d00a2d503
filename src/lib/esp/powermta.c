/* powermta.c - PowerMTA's accounting records as its accounting webhook posts
 * them: JSON (an array of records, each the CSV record's fields by their
 * record-fields names, values as strings) or one form-encoded record. The
 * record type decides, by mta/pmta.c's table (the one scan's reader of the
 * accounting files asks): b (bounce), rb (a bounce received back) and rs
 * failed are failures, b of a 4.x.x status expired, t (transient) and rs
 * delayed deferrals, f (a feedback loop report) a complaint; d and rs
 * delivered only with --all-events; r (received) and tq (a whole queue's
 * failure, no recipient) are ignored by name. */
#include "esp/esp.h"
#include "mta/mtarec.h"

/* bounceCat, PowerMTA's bounce categories: a hint where dsnDiag gives no reply */
static const sd_esp_map cats[] = {
	{ "bad-mailbox", 0, SD_R_userunknown, 0 },       { "bad-domain", 0, SD_R_hostunknown, 0 },
	{ "inactive-mailbox", 0, SD_R_suspend, 0 },      { "quota-issues", 0, SD_R_mailboxfull, 1 },
	{ "content-related", 0, SD_R_contenterror, 0 },  { "spam-related", 0, SD_R_spamdetected, 0 },
	{ "virus-related", 0, SD_R_virusdetected, 0 },   { "policy-related", 0, SD_R_policyviolation, 0 },
	{ "bad-configuration", 0, SD_R_systemerror, 0 }, { "bad-connection", 0, SD_R_networkerror, 1 },
	{ "no-answer-from-host", 0, SD_R_networkerror, 1 }, { "message-expired", 0, SD_R_expired, 1 },
	{ "invalid-sender", 0, SD_R_rejected, 0 },       { "relaying-issues", 0, SD_R_norelaying, 0 },
	{ "protocol-errors", 0, -1, 0 },                 { "routing-errors", 0, -1, 0 },
	{ "other", 0, -1, 0 },
};

static sd_str field(sd_esp_ev *e, json_t *o, int k)
{
	return sd_trim(sd_esp_str(e, o, sd_pmta_names[k]));
}

static int powermta_match(json_t *o)
{
	json_t *t = json_object_get(o, sd_pmta_names[SD_PMTA_TYPE]);
	int ql;

	return json_is_string(t) &&
	       sd_pmta_type((sd_str){ json_string_value(t), json_string_length(t) }, SD_NULLSTR, SD_NULLSTR, &ql) !=
		       SD_MTA_UNKNOWN &&
	       (json_object_get(o, sd_pmta_names[SD_PMTA_RCPT]) || json_object_get(o, sd_pmta_names[SD_PMTA_TLOG])) &&
	       (json_object_get(o, sd_pmta_names[SD_PMTA_TLOG]) || json_object_get(o, sd_pmta_names[SD_PMTA_STATUS]) ||
		json_object_get(o, sd_pmta_names[SD_PMTA_DIAG]) || json_object_get(o, sd_pmta_names[SD_PMTA_ORIG]));
}

static int powermta_read(sd_esp_ev *e, json_t *o)
{
	sd_str type = field(e, o, SD_PMTA_TYPE), action = field(e, o, SD_PMTA_ACTION);
	sd_str st = field(e, o, SD_PMTA_STATUS), diag = field(e, o, SD_PMTA_DIAG);
	sd_str cat = sd_trim(sd_esp_str(e, o, "bounceCat"));
	int ql, out = sd_pmta_type(type, action, st, &ql);
	sd_esp_rec rec;

	sd_esp_rec_init(&rec, sd_addr_clean(field(e, o, SD_PMTA_RCPT)));
	e->kind = sd_esp_mta_kind(out, &rec);
	e->time = sd_esp_time(sd_esp_get(o, sd_pmta_names[SD_PMTA_TLOG]));
	sd_esp_type(e, type, e->kind == SD_ESP_COMPLAINT ? sd_esp_str(e, o, "feedbackType") : action,
		    e->kind == SD_ESP_COMPLAINT ? SD_NULLSTR : cat);
	if (e->kind == SD_ESP_OTHER || ql || !rec.rcpt.n) /* tq names no recipient */
		return 0;
	sd_esp_origin(e, sd_addr_clean(field(e, o, SD_PMTA_ORIG)), sd_esp_str(e, o, "header_Message-Id"),
		      sd_esp_str(e, o, "header_Subject"));
	if (e->kind == SD_ESP_COMPLAINT) {
		rec.feedback = sd_esp_str(e, o, "feedbackType");
		return sd_esp_add(e, &rec) ? 1 : 0;
	}
	rec.status = sd_pmta_status(st);
	rec.text = sd_pmta_reply(diag);
	if (!rec.text.n)
		rec.text = diag; /* PowerMTA's own words */
	rec.rhost = field(e, o, SD_PMTA_MTA);
	if (rec.hint < 0)
		sd_esp_rec_hint(&rec, SD_ESP_LOOKUP(cats, cat));
	rec.soft |= e->kind == SD_ESP_DEFERRAL;
	return sd_esp_add(e, &rec) ? 1 : 0;
}

const sd_esp sd_esp_powermta = { "powermta", powermta_match, powermta_read };
