/* scan_exchange.c - Microsoft Exchange Server message tracking logs
 * (MSGTRK*.LOG: CSV, Exchange 2013 to Subscription Edition).
 *
 *   #Software: Microsoft Exchange Server
 *   #Version: 15.02.1544.004
 *   #Log-type: Message Tracking Log
 *   #Date: 2024-01-12T10:00:02.145Z
 *   #Fields: date-time,client-ip,client-hostname,server-ip,server-hostname,...
 *   2024-01-12T10:15:01.123Z,10.0.0.5,EX01,192.0.2.10,mx1.example.org,...
 *
 * The columns are those of #Fields:, else Exchange's default order. One event
 * per line; the event-id decides: DELIVER (to a mailbox) and SEND (to another
 * server) are sent, DEFER deferred, FAIL bounced (expired when Exchange gave
 * up on a message it could not deliver in time, "4.4.7" or "QUEUE.Expired");
 * RECEIVE, SUBMIT, DSN, EXPAND, RESOLVE, REDIRECT, TRANSFER, BADMAIL, AGENTINFO
 * and any other event are no attempt. recipient-address lists recipients
 * split by ';', recipient-status their statuses ("550 5.1.1
 * RESOLVER.ADR.RecipNotFound; not found", or "[{LRT=...};{LED=441 4.4.1
 * ...};{FQDN=...};{IP=...}]" on a deferral, whose LED is the last error). */
#include "scan/scan_formats.h"

enum { E_TIME, E_SERVERIP, E_SERVERHOST, E_SOURCE, E_EVENT, E_INTERNALID, E_RCPT, E_STATUS, E_SENDER,
       E_RETURNPATH, E_NKEYS };

static const char *const names[E_NKEYS] = {
	[E_TIME] = "date-time",
	[E_SERVERIP] = "server-ip",
	[E_SERVERHOST] = "server-hostname",
	[E_SOURCE] = "source",
	[E_EVENT] = "event-id",
	[E_INTERNALID] = "internal-message-id",
	[E_RCPT] = "recipient-address",
	[E_STATUS] = "recipient-status",
	[E_SENDER] = "sender-address",
	[E_RETURNPATH] = "return-path",
};

/* date-time,client-ip,client-hostname,server-ip,server-hostname,source-context,
 * connector-id,source,event-id,internal-message-id,message-id,network-message-id,
 * recipient-address,recipient-status,total-bytes,recipient-count,
 * related-recipient-address,reference,message-subject,sender-address,return-path,
 * message-info,directionality,tenant-id,original-client-ip,original-server-ip,
 * custom-data,transport-traffic-type,log-id,schema-version */
static const short default_col[E_NKEYS] = {
	[E_TIME] = 0, [E_SERVERIP] = 3, [E_SERVERHOST] = 4, [E_SOURCE] = 7, [E_EVENT] = 8, [E_INTERNALID] = 9,
	[E_RCPT] = 12, [E_STATUS] = 13, [E_SENDER] = 19, [E_RETURNPATH] = 20,
};

int sd_xf_event(sd_str e)
{
	if (sd_str_caseeq(e, "DELIVER") || sd_str_caseeq(e, "SEND"))
		return SD_ACT_SENT;
	if (sd_str_caseeq(e, "DEFER"))
		return SD_ACT_DEFERRED;
	if (sd_str_caseeq(e, "FAIL"))
		return SD_ACT_BOUNCED;
	return 0;
}

/* A line of the file's head: #Fields: maps the columns, the others are skipped. */
static int head_line(sd_xfmt *x, const char *p, size_t n, int *mine)
{
	static const char *const heads[] = { "#Software:", "#Version:", "#Log-type:", "#Date:", "#TYPE " };
	sd_str s = { p, n };

	if (sd_str_casestarts(s, "#Fields:")) {
		int rc = sd_csv_split(x, p + 8, n - 8);
		if (rc < 0)
			return 0;
		if (sd_csv_header(x, SD_XF_EXCHANGE, names, E_NKEYS) < 3) {
			sd_xfmt_reset(x);
			return 0;
		}
		*mine = 1;
		return 0;
	}
	for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]); i++)
		if (sd_str_casestarts(s, heads[i]))
			*mine = 1;
	return 0;
}

/* The next status of a recipient-status list: up to a ';' that starts
 * another status (a reply code or a '['), so "RecipNotFound; not found" stays. */
static sd_str next_status(sd_str list, size_t *pos)
{
	size_t i = *pos, s = i;

	for (; i < list.n; i++) {
		const char *q = list.p + i + 1;
		size_t left = list.n - i - 1;
		if (list.p[i] != ';')
			continue;
		if ((left >= 4 && sd_isdigit((unsigned char)q[0]) && sd_isdigit((unsigned char)q[1]) &&
		     sd_isdigit((unsigned char)q[2]) && q[3] == ' ') ||
		    (left && q[0] == '['))
			break;
	}
	*pos = i < list.n ? i + 1 : i;
	return sd_trim((sd_str){ list.p + s, i - s });
}

/* The reply in a status: LED= of a deferral's list, else the status itself. */
static sd_str reply_of(sd_str st)
{
	long k = sd_sl_find(st, "{LED=");

	if (k >= 0) {
		sd_str v = sd_sl_skip(st, (size_t)k + 5);
		return sd_trim(sd_sl_until(v, '}'));
	}
	return st;
}

static int records(sd_xfmt *x, sd_logline *l, int act)
{
	sd_str rcpts = sd_xf_get(x, E_RCPT), stats = sd_xf_get(x, E_STATUS), host = sd_xf_get(x, E_SERVERHOST);
	sd_str ip = sd_xf_get(x, E_SERVERIP), relay = host;
	size_t rp = 0, sp = 0, nrcpt = 0, nstat = 0;
	int n = 0;

	if (host.n && ip.n) {
		char *d = sd_xf_alloc(x, host.n + ip.n + 2);
		if (d) {
			memcpy(d, host.p, host.n);
			d[host.n] = '[';
			memcpy(d + host.n + 1, ip.p, ip.n);
			d[host.n + 1 + ip.n] = ']';
			relay = (sd_str){ d, host.n + ip.n + 2 };
		}
	} else if (!host.n) {
		relay = ip;
	}
	for (size_t i = 0; i < rcpts.n; i++)
		nrcpt += rcpts.p[i] == ';';
	nrcpt++;
	for (size_t p = 0; p < stats.n;) {
		next_status(stats, &p);
		nstat++;
	}
	while (rp < rcpts.n) {
		sd_str a = sd_trim(sd_sl_until(sd_sl_skip(rcpts, rp), ';')), st;
		sd_lograw *r;
		rp = (size_t)(a.p + a.n - rcpts.p) + 1;
		if (!a.n)
			continue;
		/* statuses pair with recipients when there are as many; else each gets all */
		st = nstat == nrcpt ? next_status(stats, &sp) : stats;
		if (!(r = sd_scan_add(l)))
			return SMTPDIAG_ELIMIT;
		r->action = act;
		r->recipient = a;
		r->queueid = sd_xf_get(x, E_INTERNALID);
		r->sender = sd_xf_get(x, E_SENDER);
		if (!r->sender.n)
			r->sender = sd_xf_get(x, E_RETURNPATH);
		r->relay = relay;
		r->text = st;
		r->reply = reply_of(st);
		if (act == SD_ACT_BOUNCED && (sd_sl_find(st, "4.4.7") >= 0 || sd_sl_find(st, "QUEUE.Expired") >= 0))
			r->action = SD_ACT_EXPIRED;
		n++;
	}
	return n ? n : SMTPDIAG_EPARSE;
}

int sd_scan_exchange(sd_xfmt *x, sd_logline *l, const char *p, size_t n, int *mine)
{
	int act, rc;

	if (p[0] == '#')
		return head_line(x, p, n, mine);
	if (!sd_isdigit((unsigned char)p[0]) || (x->kind != SD_XF_NONE && x->kind != SD_XF_EXCHANGE))
		return 0;
	if (x->kind == SD_XF_NONE) {
		/* no #Fields: the default order, for a line that starts with its time */
		const char *c = memchr(p, ',', n < 40 ? n : 40);
		sd_logtime t;
		if (!c || !sd_logtime_iso(p, (size_t)(c - p), &t))
			return 0;
	}
	if ((rc = sd_csv_split(x, p, n)) < 0) {
		*mine = x->kind == SD_XF_EXCHANGE;
		return *mine ? rc : 0;
	}
	if (x->kind == SD_XF_NONE) {
		if (x->nf < 14)
			return 0;
		for (int k = 0; k < SD_XF_KEYS; k++)
			x->col[k] = k < E_NKEYS ? default_col[k] : -1;
		x->kind = SD_XF_EXCHANGE;
	}
	if (!sd_xf_time(sd_xf_get(x, E_TIME), &l->h.time))
		return 0; /* no record of ours (an Exim line, say) */
	*mine = 1;
	act = sd_xf_event(sd_xf_get(x, E_EVENT));
	if (!act)
		return 0;
	sd_xf_envelope(l, "exchange", "");
	l->h.program = sd_xf_get(x, E_SOURCE);
	l->h.has_time = sd_xf_time(sd_xf_get(x, E_TIME), &l->h.time);
	return records(x, l, act);
}
