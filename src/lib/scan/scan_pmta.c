/* scan_pmta.c - PowerMTA accounting files (CSV, RFC 4180).
 *
 * The file opens with a header line naming the columns ("type,timeLogged,
 * timeQueued,orig,rcpt,orcpt,dsnAction,dsnStatus,dsnDiag,dsnMta,bounceCat,...");
 * the first column is always the record type. Without a header (a file cut in
 * parts), the default field order of the d and b records is assumed. Records:
 *   d  delivered          -> sent
 *   b  bounced            -> bounced (expired when its status is 4.x.x: the
 *                            message timed out after transient failures)
 *   t  transient failure  -> deferred
 *   tq transient failure of a queue (no recipient) -> deferred
 *   rb remote bounce (an asynchronous DSN read back) -> bounced
 *   rs remote status      -> by its dsnAction (delivered, delayed, failed)
 *   r (received), f (feedback loop) and any other type: skipped.
 * dsnDiag is "smtp;550 5.1.1 ..." (the remote's reply after the diagnostic
 * type) or PowerMTA's own words; dsnStatus is "5.1.1 (bad destination mailbox
 * address)". Times are "yyyy-mm-dd hh:mm:ss-zzzz" or Unix seconds. */
#include "scan/scan_formats.h"

enum { P_TYPE, P_TLOG, P_TQUEUED, P_ORIG, P_RCPT, P_ORCPT, P_ACTION, P_STATUS, P_DIAG, P_MTA, P_DSTIP,
       P_ENVID, P_VMTA, P_NKEYS };

static const char *const names[P_NKEYS] = {
	[P_TYPE] = "type",
	[P_TLOG] = "timeLogged",
	[P_TQUEUED] = "timeQueued",
	[P_ORIG] = "orig",
	[P_RCPT] = "rcpt",
	[P_ORCPT] = "orcpt",
	[P_ACTION] = "dsnAction",
	[P_STATUS] = "dsnStatus",
	[P_DIAG] = "dsnDiag",
	[P_MTA] = "dsnMta",
	[P_DSTIP] = "dlvDestinationIp",
	[P_ENVID] = "envId",
	[P_VMTA] = "vmta",
};

/* The default order: type,timeLogged,timeQueued,orig,rcpt,orcpt,dsnAction,
 * dsnStatus,dsnDiag,dsnMta,bounceCat,srcType,srcMta,dlvType,dlvSourceIp,
 * dlvDestinationIp,dlvEsmtpAvailable,dlvSize,vmta,jobId,envId,queue,vmtaPool */
static const short default_col[P_NKEYS] = {
	[P_TYPE] = 0, [P_TLOG] = 1, [P_TQUEUED] = 2, [P_ORIG] = 3, [P_RCPT] = 4, [P_ORCPT] = 5,
	[P_ACTION] = 6, [P_STATUS] = 7, [P_DIAG] = 8, [P_MTA] = 9, [P_DSTIP] = 15, [P_VMTA] = 18,
	[P_ENVID] = 20,
};

/* The record type, short or long ("d" or "delivery"): an SD_ACT_*, 0 for a
 * record that is no attempt, -1 for a type this reader does not know. */
static int type_of(sd_str t, sd_str action, int *queue_level)
{
	static const struct { const char *s, *l; int act; } types[] = {
		{ "d", "delivery", SD_ACT_SENT },       { "b", "bounce", SD_ACT_BOUNCED },
		{ "t", "transient", SD_ACT_DEFERRED },  { "tq", "transient-queue", SD_ACT_DEFERRED },
		{ "rb", "remote-bounce", SD_ACT_BOUNCED }, { "rs", "remote-status", -2 },
		{ "r", "receipt", 0 },                  { "f", "feedback-loop", 0 },
	};

	*queue_level = 0;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if (!sd_str_caseeq(t, types[i].s) && !sd_str_caseeq(t, types[i].l))
			continue;
		*queue_level = i == 3;
		if (types[i].act != -2)
			return types[i].act;
		if (sd_str_casestarts(action, "deliver") || sd_str_casestarts(action, "relay"))
			return SD_ACT_SENT;
		if (sd_str_casestarts(action, "delay"))
			return SD_ACT_DEFERRED;
		return sd_str_casestarts(action, "fail") ? SD_ACT_BOUNCED : 0;
	}
	return -1;
}

/* "smtp;550 5.1.1 ..." -> the reply; other diagnostic types give none. */
static sd_str reply_of(sd_str diag)
{
	const char *semi = diag.n ? memchr(diag.p, ';', diag.n) : NULL;
	sd_str r = semi ? sd_trim((sd_str){ semi + 1, (size_t)(diag.p + diag.n - semi - 1) }) : diag;

	if (semi && !sd_str_caseeq((sd_str){ diag.p, (size_t)(semi - diag.p) }, "smtp"))
		return SD_NULLSTR;
	return r.n >= 3 && sd_isdigit((unsigned char)r.p[0]) && sd_isdigit((unsigned char)r.p[1]) &&
			       sd_isdigit((unsigned char)r.p[2])
		       ? r
		       : SD_NULLSTR;
}

static int is_header(sd_str first)
{
	return sd_str_caseeq(sd_trim(first), "type");
}

int sd_scan_pmta(sd_xfmt *x, sd_logline *l, const char *p, size_t n, int *mine)
{
	sd_logtime tq;
	sd_lograw *r;
	sd_str diag, st;
	int act, ql, rc;

	if (!sd_isalpha((unsigned char)p[0]) || (x->kind != SD_XF_NONE && x->kind != SD_XF_PMTA))
		return 0;
	if ((rc = sd_csv_split(x, p, n)) < 0 || x->nf < 2)
		return rc < 0 && x->kind == SD_XF_PMTA ? (*mine = 1, rc) : 0;
	if (is_header(x->f[0])) {
		*mine = 1;
		sd_csv_header(x, SD_XF_PMTA, names, P_NKEYS);
		return 0;
	}
	if (x->kind == SD_XF_NONE) {
		if (type_of(sd_trim(x->f[0]), SD_NULLSTR, &ql) < 0 || x->nf < 5)
			return 0;
		for (int k = 0; k < SD_XF_KEYS; k++)
			x->col[k] = k < P_NKEYS ? default_col[k] : -1;
		x->col[P_TYPE] = 0;
		x->kind = SD_XF_PMTA;
	}
	act = type_of(sd_xf_get(x, P_TYPE), sd_xf_get(x, P_ACTION), &ql);
	*mine = 1; /* a header or the default order is in force */
	if (act <= 0)
		return 0;
	sd_xf_envelope(l, "powermta", "pmta");
	l->h.has_time = sd_xf_time(sd_xf_get(x, P_TLOG), &l->h.time);
	if (!(r = sd_scan_add(l)))
		return SMTPDIAG_ELIMIT;
	r->recipient = sd_sl_unangle(sd_xf_get(x, P_RCPT));
	if (!r->recipient.n && !ql)
		return SMTPDIAG_EPARSE;
	r->orig = sd_xf_get(x, P_ORCPT);
	if (sd_str_casestarts(r->orig, "rfc822;"))
		r->orig = sd_trim(sd_sl_skip(r->orig, 7));
	r->sender = sd_sl_unangle(sd_xf_get(x, P_ORIG));
	r->queueid = sd_xf_get(x, P_ENVID);
	r->relay = sd_xf_get(x, P_MTA);
	if (!r->relay.n)
		r->relay = sd_xf_get(x, P_DSTIP);
	st = sd_xf_get(x, P_STATUS);
	r->dsn = sd_sl_until(st, ' ');
	diag = sd_xf_get(x, P_DIAG);
	r->text = diag;
	r->reply = reply_of(diag);
	if (act == SD_ACT_BOUNCED && r->dsn.n && r->dsn.p[0] == '4')
		act = SD_ACT_EXPIRED;
	r->action = act;
	if (l->h.has_time && sd_xf_time(sd_xf_get(x, P_TQUEUED), &tq)) {
		int64_t a = sd_xf_epoch(&tq), b = sd_xf_epoch(&l->h.time);
		if (a && b && b >= a)
			r->delay = b - a;
	}
	return 1;
}
