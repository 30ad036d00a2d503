/* scan_m365.c - Microsoft 365 (Exchange Online) message trace exports (CSV).
 *
 * Three shapes, told apart by the header line:
 *  - Get-MessageTrace / Get-MessageTraceV2 | Export-Csv, and the admin
 *    center's summary report: Received, SenderAddress, RecipientAddress,
 *    Status (Delivered, Failed, Pending, Quarantined, FilteredAsSpam,
 *    Expanded, GettingStatus, None), ToIP, FromIP, MessageTraceId, ...
 *    (PowerShell quotes every field and may write "#TYPE ..." first);
 *  - the extended / enhanced summary report: origin_timestamp_utc,
 *    sender_address, recipient_status ("a@x##Receive, Send;b@y##Receive, Fail":
 *    each recipient with its events, the last one final), network_message_id, ...
 *  - Get-MessageTraceDetailV2 | Export-Csv: Date, Event (Receive, Send,
 *    Deliver, Fail, Defer, ...), Detail ("Reason: [{LED=550 5.1.10
 *    RESOLVER.ADR.RecipientNotFound; ...}]"), with RecipientAddress when
 *    exported with it.
 * Times are UTC: ISO 8601 or the en-US form PowerShell writes
 * ("1/12/2024 10:15:01 AM"). */
#include "scan/scan_formats.h"

enum { M_TIME, M_SENDER, M_RCPT, M_STATUS, M_RSTATUS, M_TRACEID, M_TOIP, M_EVENT, M_DETAIL, M_NKEYS };

static const char *const names[M_NKEYS] = {
	[M_TIME] = "Received|origin_timestamp_utc|date_time_utc|Date|Date (UTC)|Received (UTC)",
	[M_SENDER] = "SenderAddress|sender_address|Sender",
	[M_RCPT] = "RecipientAddress|recipient_address|Recipient",
	[M_STATUS] = "Status|Delivery status",
	[M_RSTATUS] = "recipient_status",
	[M_TRACEID] = "MessageTraceId|network_message_id|Message trace ID",
	[M_TOIP] = "ToIP|To IP",
	[M_EVENT] = "Event",
	[M_DETAIL] = "Detail",
};

static int status_of(sd_str s)
{
	if (sd_str_caseeq(s, "Delivered"))
		return SD_ACT_SENT;
	if (sd_str_caseeq(s, "Failed"))
		return SD_ACT_BOUNCED;
	if (sd_str_caseeq(s, "Pending"))
		return SD_ACT_DEFERRED;
	return 0; /* Quarantined, FilteredAsSpam, Expanded, GettingStatus, None, Resolved */
}

/* "1/12/2024 10:15:01 AM" (en-US, UTC). */
static int us_time(sd_str s, sd_logtime *t)
{
	unsigned long v[6];
	size_t i = 0, k;
	static const char seps[] = "// ::";

	memset(t, 0, sizeof(*t));
	for (int f = 0; f < 6; f++) {
		if (!(k = sd_parse_uint(s.p + i, s.n - i, f == 2 ? 4 : 2, &v[f])))
			return 0;
		i += k;
		if (f < 5) {
			if (i >= s.n || s.p[i] != seps[f])
				return 0;
			i++;
		}
	}
	if (v[0] < 1 || v[0] > 12 || v[1] < 1 || v[1] > 31 || v[2] < 1970 || v[3] > 23 || v[4] > 59 || v[5] > 60)
		return 0;
	t->mon = (int)v[0];
	t->day = (int)v[1];
	t->year = (int)v[2];
	t->hour = (int)v[3];
	t->min = (int)v[4];
	t->sec = (int)v[5];
	s = sd_trim(sd_sl_skip(s, i));
	if (sd_str_caseeq(s, "PM") && t->hour < 12)
		t->hour += 12;
	else if (sd_str_caseeq(s, "AM") && t->hour == 12)
		t->hour = 0;
	t->has_year = t->has_off = 1;
	return 1;
}

static int time_of(sd_str s, sd_logtime *t)
{
	if (sd_xf_time(s, t)) {
		if (!t->has_off) /* the service writes UTC */
			t->has_off = 1, t->off = 0;
		return 1;
	}
	return us_time(sd_trim(s), t);
}

/* Is the split line a header of ours? */
static int is_header(sd_xfmt *x)
{
	sd_xfmt probe;
	int known;

	if (x->nf < 3)
		return 0;
	memcpy(probe.f, x->f, x->nf * sizeof(x->f[0]));
	probe.nf = x->nf;
	known = sd_csv_header(&probe, SD_XF_M365, names, M_NKEYS);
	if (known < 3 || probe.col[M_TIME] < 0 ||
	    (probe.col[M_RSTATUS] < 0 && (probe.col[M_STATUS] < 0 && probe.col[M_EVENT] < 0)))
		return 0;
	memcpy(x->col, probe.col, sizeof(x->col));
	x->kind = SD_XF_M365;
	return 1;
}

static sd_lograw *one(sd_xfmt *x, sd_logline *l, int act, sd_str rcpt)
{
	sd_lograw *r = sd_scan_add(l);

	if (!r)
		return NULL;
	r->action = act;
	r->recipient = rcpt;
	r->sender = sd_xf_get(x, M_SENDER);
	r->queueid = sd_xf_get(x, M_TRACEID);
	r->relay = sd_xf_get(x, M_TOIP);
	r->text = sd_xf_get(x, M_DETAIL);
	if (r->text.n) {
		long k = sd_sl_find(r->text, "{LED=");
		r->reply = k >= 0 ? sd_trim(sd_sl_until(sd_sl_skip(r->text, (size_t)k + 5), '}')) : SD_NULLSTR;
	}
	return r;
}

/* recipient_status: "a@x##Receive, Send;b@y##Receive, Fail". */
static int extended(sd_xfmt *x, sd_logline *l, sd_str list)
{
	size_t pos = 0;
	int n = 0;

	while (pos < list.n) {
		sd_str item = sd_sl_until(sd_sl_skip(list, pos), ';'), addr, ev;
		long h = sd_sl_find(item, "##");
		const char *comma;
		int act;
		pos += item.n + 1;
		if (h < 0)
			continue;
		addr = sd_trim((sd_str){ item.p, (size_t)h });
		ev = sd_sl_skip(item, (size_t)h + 2);
		comma = ev.n ? memrchr(ev.p, ',', ev.n) : NULL;
		if (comma)
			ev = sd_sl_skip(ev, (size_t)(comma - ev.p) + 1);
		if (!addr.n || !(act = sd_xf_event(sd_trim(ev))))
			continue;
		if (!one(x, l, act, addr))
			return SMTPDIAG_ELIMIT;
		n++;
	}
	return n;
}

int sd_scan_m365(sd_xfmt *x, sd_logline *l, const char *p, size_t n, int *mine)
{
	sd_str st;
	int act, rc;

	if (x->kind != SD_XF_NONE && x->kind != SD_XF_M365)
		return 0;
	if ((rc = sd_csv_split(x, p, n)) < 0) {
		*mine = x->kind == SD_XF_M365;
		return *mine ? rc : 0;
	}
	if (x->kind == SD_XF_M365 && time_of(sd_xf_get(x, M_TIME), &l->h.time)) {
		/* a record of the header in force */
	} else if (is_header(x)) {
		*mine = 1;
		return 0;
	} else {
		*mine = x->kind == SD_XF_M365;
		return *mine ? SMTPDIAG_EPARSE : 0;
	}
	*mine = 1;
	sd_xf_envelope(l, "m365", "");
	l->h.has_time = time_of(sd_xf_get(x, M_TIME), &l->h.time);
	if (x->col[M_RSTATUS] >= 0 && x->col[M_RCPT] < 0)
		return extended(x, l, sd_xf_get(x, M_RSTATUS));
	st = sd_xf_get(x, M_STATUS);
	act = x->col[M_STATUS] >= 0 && st.n ? status_of(st) : sd_xf_event(sd_xf_get(x, M_EVENT));
	if (!act)
		return 0;
	if (!sd_xf_get(x, M_RCPT).n && x->col[M_RCPT] >= 0)
		return SMTPDIAG_EPARSE; /* a detail export names no recipient: "" */
	return one(x, l, act, sd_xf_get(x, M_RCPT)) ? 1 : SMTPDIAG_ELIMIT;
}
