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

#include "mta/mtarec.h"

/* The default order: type,timeLogged,timeQueued,orig,rcpt,orcpt,dsnAction,
 * dsnStatus,dsnDiag,dsnMta,bounceCat,srcType,srcMta,dlvType,dlvSourceIp,
 * dlvDestinationIp,dlvEsmtpAvailable,dlvSize,vmta,jobId,envId,queue,vmtaPool */
static const short default_col[SD_PMTA_NKEYS] = {
	[SD_PMTA_TYPE] = 0, [SD_PMTA_TLOG] = 1, [SD_PMTA_TQUEUED] = 2, [SD_PMTA_ORIG] = 3, [SD_PMTA_RCPT] = 4, [SD_PMTA_ORCPT] = 5,
	[SD_PMTA_ACTION] = 6, [SD_PMTA_STATUS] = 7, [SD_PMTA_DIAG] = 8, [SD_PMTA_MTA] = 9, [SD_PMTA_DSTIP] = 15, [SD_PMTA_VMTA] = 18,
	[SD_PMTA_ENVID] = 20,
};

/* The record type as a scan action: 0 for a record that is no attempt, -1
 * for a type PowerMTA does not document (mta/pmta.c decides which is which). */
static int type_of(sd_str t, sd_str action, sd_str status, int *queue_level)
{
	switch (sd_pmta_type(t, action, status, queue_level)) {
	case SD_MTA_SENT: return SD_ACT_SENT;
	case SD_MTA_DEFERRED: return SD_ACT_DEFERRED;
	case SD_MTA_BOUNCED: case SD_MTA_OOB: case SD_MTA_ADMIN: return SD_ACT_BOUNCED;
	case SD_MTA_EXPIRED: return SD_ACT_EXPIRED;
	case SD_MTA_UNKNOWN: return -1;
	default: return 0; /* received, a feedback loop report: no attempt */
	}
}

static int is_header(sd_str first)
{
	return sd_str_caseeq(sd_trim(first), "type");
}

int sd_scan_pmta(sd_xfmt *x, sd_logline *l, const char *p, size_t n, int *mine)
{
	sd_logtime tq;
	sd_lograw *r;
	sd_str diag;
	int act, ql, rc;

	if (!sd_isalpha((unsigned char)p[0]) || (x->kind != SD_XF_NONE && x->kind != SD_XF_PMTA))
		return 0;
	if ((rc = sd_csv_split(x, p, n)) < 0 || x->nf < 2)
		return rc < 0 && x->kind == SD_XF_PMTA ? (*mine = 1, rc) : 0;
	if (is_header(x->f[0])) {
		*mine = 1;
		sd_csv_header(x, SD_XF_PMTA, sd_pmta_names, SD_PMTA_NKEYS);
		return 0;
	}
	if (x->kind == SD_XF_NONE) {
		if (type_of(sd_trim(x->f[0]), SD_NULLSTR, SD_NULLSTR, &ql) < 0 || x->nf < 5)
			return 0;
		for (int k = 0; k < SD_XF_KEYS; k++)
			x->col[k] = k < SD_PMTA_NKEYS ? default_col[k] : -1;
		x->col[SD_PMTA_TYPE] = 0;
		x->kind = SD_XF_PMTA;
	}
	act = type_of(sd_xf_get(x, SD_PMTA_TYPE), sd_xf_get(x, SD_PMTA_ACTION), sd_xf_get(x, SD_PMTA_STATUS), &ql);
	*mine = 1; /* a header or the default order is in force */
	if (act <= 0)
		return 0;
	sd_xf_envelope(l, "powermta", "pmta");
	l->h.has_time = sd_xf_time(sd_xf_get(x, SD_PMTA_TLOG), &l->h.time);
	if (!(r = sd_scan_add(l)))
		return SMTPDIAG_ELIMIT;
	r->recipient = sd_sl_unangle(sd_xf_get(x, SD_PMTA_RCPT));
	if (!r->recipient.n && !ql)
		return SMTPDIAG_EPARSE;
	r->orig = sd_xf_get(x, SD_PMTA_ORCPT);
	if (sd_str_casestarts(r->orig, "rfc822;"))
		r->orig = sd_trim(sd_sl_skip(r->orig, 7));
	r->sender = sd_sl_unangle(sd_xf_get(x, SD_PMTA_ORIG));
	r->queueid = sd_xf_get(x, SD_PMTA_ENVID);
	r->relay = sd_xf_get(x, SD_PMTA_MTA);
	if (!r->relay.n)
		r->relay = sd_xf_get(x, SD_PMTA_DSTIP);
	r->dsn = sd_pmta_status(sd_xf_get(x, SD_PMTA_STATUS));
	diag = sd_xf_get(x, SD_PMTA_DIAG);
	r->text = diag;
	r->reply = sd_pmta_reply(diag);
	r->action = act;
	if (l->h.has_time && sd_xf_time(sd_xf_get(x, SD_PMTA_TQUEUED), &tq)) {
		int64_t a = sd_xf_epoch(&tq), b = sd_xf_epoch(&l->h.time);
		if (a && b && b >= a)
			r->delay = b - a;
	}
	return 1;
}
