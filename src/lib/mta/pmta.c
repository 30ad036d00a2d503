/* pmta.c - PowerMTA's accounting record types, field names and diagnostics. */
#include "mta/mtarec.h"

const char *const sd_pmta_names[SD_PMTA_NKEYS] = {
	[SD_PMTA_TYPE] = "type",
	[SD_PMTA_TLOG] = "timeLogged",
	[SD_PMTA_TQUEUED] = "timeQueued",
	[SD_PMTA_ORIG] = "orig",
	[SD_PMTA_RCPT] = "rcpt",
	[SD_PMTA_ORCPT] = "orcpt",
	[SD_PMTA_ACTION] = "dsnAction",
	[SD_PMTA_STATUS] = "dsnStatus",
	[SD_PMTA_DIAG] = "dsnDiag",
	[SD_PMTA_MTA] = "dsnMta",
	[SD_PMTA_DSTIP] = "dlvDestinationIp",
	[SD_PMTA_ENVID] = "envId",
	[SD_PMTA_VMTA] = "vmta",
};

/* The record types of the User's Guide ("Accounting records"), short and long. */
static const struct { const char *s, *l; int out; } types[] = {
	{ "d", "delivery", SD_MTA_SENT },        { "b", "bounce", SD_MTA_BOUNCED },
	{ "t", "transient", SD_MTA_DEFERRED },   { "tq", "transient-queue", SD_MTA_DEFERRED },
	{ "rb", "remote-bounce", SD_MTA_OOB },   { "rs", "remote-status", SD_MTA_UNKNOWN },
	{ "r", "receipt", SD_MTA_NONE },         { "f", "feedback-loop", SD_MTA_FEEDBACK },
};

/* A remote status: what its DSN action says. */
static int remote_status(sd_str action)
{
	if (sd_str_casestarts(action, "deliver") || sd_str_casestarts(action, "relay"))
		return SD_MTA_SENT;
	if (sd_str_casestarts(action, "delay"))
		return SD_MTA_DEFERRED;
	return sd_str_casestarts(action, "fail") ? SD_MTA_OOB : SD_MTA_NONE;
}

int sd_pmta_type(sd_str t, sd_str action, sd_str status, int *queue_level)
{
	*queue_level = 0;
	t = sd_trim(t);
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if (!sd_str_caseeq(t, types[i].s) && !sd_str_caseeq(t, types[i].l))
			continue;
		*queue_level = i == 3;
		if (i == 5)
			return remote_status(action);
		status = sd_trim(status);
		if (types[i].out == SD_MTA_BOUNCED && status.n && status.p[0] == '4')
			return SD_MTA_EXPIRED;
		return types[i].out;
	}
	return SD_MTA_UNKNOWN;
}

sd_str sd_pmta_reply(sd_str diag)
{
	const char *semi = diag.n ? memchr(diag.p, ';', diag.n) : NULL;
	sd_str r = semi ? sd_trim((sd_str){ semi + 1, (size_t)(diag.p + diag.n - semi - 1) }) : sd_trim(diag);

	if (semi && !sd_str_caseeq(sd_trim((sd_str){ diag.p, (size_t)(semi - diag.p) }), "smtp"))
		return SD_NULLSTR;
	return r.n >= 3 && sd_isdigit((unsigned char)r.p[0]) && sd_isdigit((unsigned char)r.p[1]) &&
			       sd_isdigit((unsigned char)r.p[2])
		       ? r
		       : SD_NULLSTR;
}

sd_str sd_pmta_status(sd_str st)
{
	size_t i = 0;

	st = sd_trim(st);
	while (i < st.n && st.p[i] != ' ')
		i++;
	return (sd_str){ st.p, i };
}
