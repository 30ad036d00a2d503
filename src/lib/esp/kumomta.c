/* kumomta.c - KumoMTA's log records as its log hook posts them (the
 * policy-extras.log_hooks webhook: one JSON record a post, or an array of
 * them in batch mode). The record type decides, by mta/kumo.c's table (the
 * one scan's reader of KumoMTA's log files asks): Bounce, OOB (a bounce
 * received back) and Expiration are failures, TransientFailure a deferral,
 * AdminBounce the operator's decision, Feedback a complaint of the recipient
 * its report names; Delivery only with --all-events; Reception, Rejection
 * and the other types no delivery attempt, ignored by name. */
#include "esp/esp.h"
#include "mta/mtarec.h"

/* bounce_classification (KumoMTA's bounce classifier): a hint where the
 * response has no text. Kind SD_ESP_OTHER: no failure of delivery (an
 * auto-reply, a list request read back as a bounce). */
static const sd_esp_map classes[] = {
	{ "InvalidRecipient", SD_ESP_FAILURE, SD_R_userunknown, 0 },
	{ "DNSFailure", SD_ESP_FAILURE, SD_R_hostunknown, 1 },
	{ "SpamBlock", SD_ESP_FAILURE, SD_R_blocked, 0 },
	{ "SpamContent", SD_ESP_FAILURE, SD_R_spamdetected, 0 },
	{ "ProhibitedAttachment", SD_ESP_FAILURE, SD_R_contenterror, 0 },
	{ "RelayDenied", SD_ESP_FAILURE, SD_R_norelaying, 0 },
	{ "TransientFailure", SD_ESP_FAILURE, -1, 1 },
	{ "ChallengeResponse", SD_ESP_FAILURE, SD_R_filtered, 1 },
	{ "BadConfiguration", SD_ESP_FAILURE, SD_R_systemerror, 0 },
	{ "BadConnection", SD_ESP_FAILURE, SD_R_networkerror, 1 },
	{ "BadDomain", SD_ESP_FAILURE, SD_R_hostunknown, 0 },
	{ "ContentRelated", SD_ESP_FAILURE, SD_R_contenterror, 0 },
	{ "InactiveMailbox", SD_ESP_FAILURE, SD_R_suspend, 0 },
	{ "InvalidSender", SD_ESP_FAILURE, SD_R_rejected, 0 },
	{ "MessageExpired", SD_ESP_FAILURE, SD_R_expired, 1 },
	{ "NoAnswerFromHost", SD_ESP_FAILURE, SD_R_networkerror, 1 },
	{ "PolicyRelated", SD_ESP_FAILURE, SD_R_policyviolation, 0 },
	{ "ProtocolErrors", SD_ESP_FAILURE, -1, 0 },
	{ "QuotaIssues", SD_ESP_FAILURE, SD_R_mailboxfull, 1 },
	{ "RelayingIssues", SD_ESP_FAILURE, SD_R_norelaying, 0 },
	{ "RoutingErrors", SD_ESP_FAILURE, -1, 0 },
	{ "SpamRelated", SD_ESP_FAILURE, SD_R_spamdetected, 0 },
	{ "VirusRelated", SD_ESP_FAILURE, SD_R_virusdetected, 0 },
	{ "AuthenticationFailed", SD_ESP_FAILURE, SD_R_authfailure, 0 },
	{ "TooManyRecipients", SD_ESP_FAILURE, SD_R_ratelimited, 1 },
	{ "Uncategorized", SD_ESP_FAILURE, -1, 0 },
	{ "AutoReply", SD_ESP_OTHER, -1, 0 },
	{ "Subscribe", SD_ESP_OTHER, -1, 0 },
	{ "Unsubscribe", SD_ESP_OTHER, -1, 0 },
};

static sd_str str_of(json_t *v)
{
	return json_is_string(v) ? (sd_str){ json_string_value(v), json_string_length(v) } : SD_NULLSTR;
}

static int kumomta_match(json_t *o)
{
	return sd_kumo_type(str_of(json_object_get(o, "type"))) != SD_MTA_UNKNOWN &&
	       json_is_object(json_object_get(o, "response")) && json_object_get(o, "recipient");
}

/* "550 5.1.1 content" of the response, as scan's reader composes it. */
static sd_str reply_of(sd_esp_ev *e, json_t *resp)
{
	char head[SD_KUMO_HEAD_MAX];
	size_t k = sd_kumo_reply_head(resp, head);
	sd_str content = sd_trim(str_of(json_object_get(resp, "content")));
	char *d;

	if (!k)
		return content;
	if (!(d = sd_arena_alloc(e->c->a, k + content.n + 1)))
		return content;
	memcpy(d, head, k);
	if (content.n)
		memcpy(d + k, content.p, content.n);
	d[k + content.n] = '\0';
	return sd_trim((sd_str){ d, k + content.n });
}

/* A feedback report's recipient: KumoMTA's decoded trace header, else the
 * report's Original-Rcpt-To, else the record's recipient. */
static sd_str complainer(sd_esp_ev *e, json_t *o, json_t *fb)
{
	json_t *to = json_object_get(fb, "original_rcpto_to");
	sd_str r = sd_esp_str(e, fb, "supplemental_trace.recipient");

	if (!json_is_array(to))
		to = json_object_get(fb, "original_rcpt_to");
	if (!r.n && json_is_array(to))
		r = sd_addr_clean(sd_trim(str_of(json_array_get(to, 0))));
	return r.n ? r : sd_esp_str(e, o, "recipient");
}

static int add_all(sd_esp_ev *e, json_t *rcpt, const sd_esp_rec *like)
{
	size_t i;
	json_t *x;
	int n = 0;

	if (!json_is_array(rcpt)) {
		sd_esp_rec rec = *like;
		rec.rcpt = str_of(rcpt);
		return sd_esp_add(e, &rec) ? 1 : 0;
	}
	json_array_foreach(rcpt, i, x) {
		sd_esp_rec rec = *like;
		rec.rcpt = str_of(x);
		if (rec.rcpt.n && sd_esp_add(e, &rec))
			n++;
	}
	return n;
}

static int kumomta_read(sd_esp_ev *e, json_t *o)
{
	json_t *resp = json_object_get(o, "response"), *fb = json_object_get(o, "feedback_report");
	sd_str type = str_of(json_object_get(o, "type")), cls = sd_esp_str(e, o, "bounce_classification");
	const sd_esp_map *c = SD_ESP_LOOKUP(classes, cls);
	sd_esp_rec rec;
	int out = sd_kumo_type(type);

	sd_esp_rec_init(&rec, SD_NULLSTR);
	e->kind = sd_esp_mta_kind(out, &rec);
	if (e->kind == SD_ESP_FAILURE && out != SD_MTA_EXPIRED && c && c->kind == SD_ESP_OTHER)
		e->kind = SD_ESP_OTHER; /* an auto-reply or a list request read back */
	e->time = sd_esp_time(sd_esp_get(o, "timestamp"));
	sd_esp_type(e, type, e->kind == SD_ESP_COMPLAINT ? sd_esp_str(e, fb, "feedback_type") : cls, SD_NULLSTR);
	if (e->kind == SD_ESP_COMPLAINT && sd_esp_is(fb, "feedback_type", "not-spam"))
		e->kind = SD_ESP_OTHER;
	if (e->kind == SD_ESP_OTHER)
		return 0;
	sd_esp_origin(e, sd_esp_str(e, o, "sender"), sd_esp_str(e, o, "headers.Message-ID"),
		      sd_esp_str(e, o, "headers.Subject"));
	if (e->kind == SD_ESP_COMPLAINT) {
		rec.rcpt = complainer(e, o, fb);
		rec.feedback = sd_esp_str(e, fb, "feedback_type");
		return sd_esp_add(e, &rec) ? 1 : 0;
	}
	rec.text = reply_of(e, resp);
	rec.rhost = sd_esp_str(e, o, "peer_address.name");
	if (rec.hint < 0)
		sd_esp_rec_hint(&rec, c);
	rec.soft |= e->kind == SD_ESP_DEFERRAL;
	return add_all(e, json_object_get(o, "recipient"), &rec);
}

const sd_esp sd_esp_kumomta = { "kumomta", kumomta_match, kumomta_read };
