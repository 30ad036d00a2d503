/* scan_sendmail.c - Sendmail delivery lines.
 *
 * One line per delivery attempt, fields "name=value" joined by ", ":
 *   QID: to=<a@b>[,<c@d>...], [ctladdr=<x> (uid/gid), ]delay=HH:MM:SS|D+HH:MM:SS,
 *        xdelay=..., mailer=esmtp, pri=N, relay=host. [ip], dsn=X.Y.Z, stat=TEXT
 * stat is last: "Sent (250 2.0.0 ...)", "Deferred: 450 4.2.0 ...", "User
 * unknown", ... A to= list names every recipient of one transaction: one
 * record each. When a message stays queued too long, the line creating the
 * notification reads "QID: NEWQID: DSN: Cannot send message for 5 days" (or
 * "return to sender: ..."): an expiry record without a recipient. */
#include "scan/scan.h"

static size_t queue_id(sd_str m)
{
	size_t i = 0;

	while (i < m.n && i < 40 && sd_isalnum((unsigned char)m.p[i]))
		i++;
	return i && i + 1 < m.n && m.p[i] == ':' && m.p[i + 1] == ' ' ? i : 0;
}

static int action_of(sd_str dsn, sd_str stat)
{
	if (dsn.n && (dsn.p[0] == '2' || dsn.p[0] == '4' || dsn.p[0] == '5'))
		return dsn.p[0] == '2' ? SD_ACT_SENT : dsn.p[0] == '4' ? SD_ACT_DEFERRED : SD_ACT_BOUNCED;
	if (sd_str_casestarts(stat, "queued"))
		return -1; /* queued without an attempt */
	if (sd_str_casestarts(stat, "Sent"))
		return SD_ACT_SENT;
	if (sd_str_casestarts(stat, "Deferred"))
		return SD_ACT_DEFERRED;
	return SD_ACT_BOUNCED;
}

static int code_first(sd_str t)
{
	return t.n >= 4 && sd_isdigit((unsigned char)t.p[0]) && sd_isdigit((unsigned char)t.p[1]) &&
	       sd_isdigit((unsigned char)t.p[2]) && (t.p[3] == ' ' || t.p[3] == '-');
}

/* The remote's reply: reply= when logged, else inside stat. */
static sd_str reply_of(sd_str fields, sd_str stat)
{
	sd_str v = sd_sl_field(fields, "reply");
	long k;

	if (v.n)
		return v;
	if (sd_str_casestarts(stat, "Deferred: ") && code_first(sd_sl_skip(stat, 10)))
		return sd_sl_skip(stat, 10);
	if ((k = sd_sl_find(stat, "(")) >= 0 && code_first(sd_sl_skip(stat, (size_t)k + 1))) {
		v = sd_sl_skip(stat, (size_t)k + 1);
		if (v.n && v.p[v.n - 1] == ')')
			v.n--;
		return v;
	}
	return code_first(stat) ? stat : SD_NULLSTR;
}

/* Next address of a to= list ("<a@b>,<c@d>" or "a,b"); *pos moves on. */
static sd_str next_rcpt(sd_str list, size_t *pos)
{
	size_t i = *pos, s;
	int angle = 0;

	while (i < list.n && (list.p[i] == ',' || list.p[i] == ' '))
		i++;
	s = i;
	for (; i < list.n && (angle || list.p[i] != ','); i++)
		if (list.p[i] == '<' || list.p[i] == '>')
			angle = list.p[i] == '<';
	*pos = i;
	return sd_sl_unangle((sd_str){ list.p + s, i - s });
}

static int expiry(sd_logline *l, sd_str qid, sd_str rest)
{
	sd_lograw *r;
	long k = sd_sl_find(rest, "Cannot send message for ");

	if (k < 0 || (sd_sl_find(rest, "DSN: ") < 0 && sd_sl_find(rest, "return to sender: ") < 0))
		return 0;
	if (!(r = sd_scan_add(l)))
		return SMTPDIAG_ELIMIT;
	r->action = SD_ACT_EXPIRED;
	r->queueid = qid;
	r->text = sd_sl_skip(rest, (size_t)k);
	return 1;
}

/* One record per address of to=, sharing the other fields. */
static int recipients(sd_logline *l, const sd_lograw *tmpl, sd_str list)
{
	size_t pos = 0;
	int n = 0;

	while (pos < list.n) {
		sd_str a = next_rcpt(list, &pos);
		sd_lograw *r;
		if (!a.n)
			continue;
		if (!(r = sd_scan_add(l)))
			return SMTPDIAG_ELIMIT;
		*r = *tmpl;
		r->recipient = a;
		n++;
	}
	return n ? n : SMTPDIAG_EPARSE;
}

int sd_scan_sendmail(sd_logline *l)
{
	sd_str m = l->h.msg, rest, fields, stat;
	size_t q = queue_id(m);
	sd_lograw t;
	long k;

	if (!q && sd_sl_starts(m, "ruleset="))
		return sd_scan_sendmail_reject(l, SD_NULLSTR, m);
	if (!q)
		return sd_memmem(m.p, m.n, "stat=", 5) ? SMTPDIAG_EPARSE : 0;
	rest = sd_sl_skip(m, q + 2);
	if (sd_memmem(rest.p, rest.n, "reject=", 7))
		return sd_scan_sendmail_reject(l, (sd_str){ m.p, q }, rest);
	if (!sd_sl_starts(rest, "to="))
		return expiry(l, (sd_str){ m.p, q }, rest);
	if ((k = sd_sl_find(rest, ", stat=")) < 0)
		return SMTPDIAG_EPARSE;
	fields = (sd_str){ rest.p, (size_t)k };
	stat = sd_trim(sd_sl_skip(rest, (size_t)k + 7));
	memset(&t, 0, sizeof(t));
	t.queueid = (sd_str){ m.p, q };
	t.dsn = sd_trim(sd_sl_field(fields, "dsn"));
	if ((t.action = action_of(t.dsn, stat)) < 0)
		return 0;
	t.relay = sd_trim(sd_sl_field(fields, "relay"));
	t.delay = sd_sl_duration(sd_sl_field(fields, "delay"));
	t.text = stat;
	t.reply = reply_of(fields, stat);
	t.local = sd_str_caseeq(sd_trim(sd_sl_field(fields, "mailer")), "prog");
	return recipients(l, &t, sd_trim(sd_sl_field(fields, "to")));
}
