/* kumo.c - KumoMTA's log record types and the reply of a record's response. */
#include "mta/mtarec.h"

#include <stdio.h>

/* The record types of KumoMTA's log record reference (and its RecordType). */
static const struct { const char *name; int out; } types[] = {
	{ "Delivery", SD_MTA_SENT },       { "TransientFailure", SD_MTA_DEFERRED },
	{ "Bounce", SD_MTA_BOUNCED },      { "Expiration", SD_MTA_EXPIRED },
	{ "AdminBounce", SD_MTA_ADMIN },   { "OOB", SD_MTA_OOB },
	{ "Feedback", SD_MTA_FEEDBACK },
	/* no attempt of a delivery: received, refused to a client (KumoMTA's own
	 * SMTP server), moved to another queue, held back, handed between nodes */
	{ "Reception", SD_MTA_NONE },      { "Rejection", SD_MTA_NONE },
	{ "AdminRebind", SD_MTA_NONE },    { "Delay", SD_MTA_NONE },
	{ "DeferredInjection", SD_MTA_NONE }, { "XferOut", SD_MTA_NONE },
	{ "XferIn", SD_MTA_NONE },         { "Any", SD_MTA_NONE },
};

int sd_kumo_type(sd_str t)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (t.n == strlen(types[i].name) && !memcmp(t.p, types[i].name, t.n))
			return types[i].out;
	return SD_MTA_UNKNOWN;
}

static int in_range(json_t *v, json_int_t lo, json_int_t hi)
{
	return json_is_integer(v) && json_integer_value(v) >= lo && json_integer_value(v) <= hi;
}

size_t sd_kumo_reply_head(json_t *resp, char head[SD_KUMO_HEAD_MAX])
{
	json_t *code = json_object_get(resp, "code"), *ec = json_object_get(resp, "enhanced_code");
	json_t *a = json_object_get(ec, "class"), *b = json_object_get(ec, "subject");
	json_t *d = json_object_get(ec, "detail");
	int k = 0;

	head[0] = '\0';
	if (in_range(code, 200, 599))
		k = snprintf(head, SD_KUMO_HEAD_MAX, "%d ", (int)json_integer_value(code));
	if (in_range(a, 2, 5) && in_range(b, 0, 999) && in_range(d, 0, 999))
		k += snprintf(head + k, SD_KUMO_HEAD_MAX - (size_t)k, "%d.%d.%d ", (int)json_integer_value(a),
			      (int)json_integer_value(b), (int)json_integer_value(d));
	return (size_t)k;
}
