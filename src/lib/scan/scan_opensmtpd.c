/* scan_opensmtpd.c - OpenSMTPD delivery lines (program "smtpd").
 *
 * OpenSMTPD 6 and later (mta.c mta_log(), mda.c mda_log()):
 *   SESSION mta delivery evpid=E from=<s> to=<r> rcpt=<o|-> source="ip"
 *           relay="ip (name)" delay=1d2h3m4s result="Ok|TempFail|PermFail|Loop" stat="TEXT"
 *   SESSION mda delivery evpid=E from=<s> to=<r> [rcpt=<o> ]user=u delay=0s result=Ok stat=TEXT
 * Older releases and the queue's own lines (expiry, removal):
 *   delivery: Ok for E: from=<s>, to=<r>, [rcpt=<o>, ]delay=2s, stat=TEXT
 *   relay: Expire for E: from=<s>, to=<r>, rcpt=<->, delay=4d, stat=Envelope expired */
#include "scan/scan.h"

static int action_of(sd_str w)
{
	static const struct {
		const char *word;
		int action;
	} map[] = {
		{ "Ok", SD_ACT_SENT }, { "TempFail", SD_ACT_DEFERRED }, { "PermFail", SD_ACT_BOUNCED },
		{ "Loop", SD_ACT_BOUNCED }, { "Expire", SD_ACT_EXPIRED }, { "Remove", -1 },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (sd_str_caseeq(w, map[i].word))
			return map[i].action;
	return 0;
}

static int code_first(sd_str t)
{
	return t.n >= 4 && sd_isdigit((unsigned char)t.p[0]) && sd_isdigit((unsigned char)t.p[1]) &&
	       sd_isdigit((unsigned char)t.p[2]) && (t.p[3] == ' ' || t.p[3] == '-');
}

static sd_str strip_quotes(sd_str v)
{
	if (v.n >= 2 && v.p[0] == '"' && v.p[v.n - 1] == '"')
		return (sd_str){ v.p + 1, v.n - 2 };
	if (v.n && v.p[0] == '"')
		return (sd_str){ v.p + 1, v.n - 1 };
	return v;
}

static sd_str rcpt_value(sd_str v)
{
	v = sd_sl_unangle(v);
	return v.n == 1 && v.p[0] == '-' ? (sd_str){ v.p, 0 } : v;
}

static void assign(sd_lograw *r, sd_str key, sd_str v, sd_str *result)
{
	if (sd_str_caseeq(key, "evpid"))
		r->queueid = v;
	else if (sd_str_caseeq(key, "from"))
		r->sender = sd_sl_unangle(v);
	else if (sd_str_caseeq(key, "to"))
		r->recipient = sd_sl_unangle(v);
	else if (sd_str_caseeq(key, "rcpt"))
		r->orig = rcpt_value(v);
	else if (sd_str_caseeq(key, "relay"))
		r->relay = strip_quotes(v);
	else if (sd_str_caseeq(key, "delay"))
		r->delay = sd_sl_duration(v);
	else if (sd_str_caseeq(key, "result"))
		*result = strip_quotes(v);
}

/* Length of the value at v: "quoted", <angled> or up to a space. */
static size_t value_len(sd_str v)
{
	const char *q;

	if (v.n && v.p[0] == '"' && (q = memchr(v.p + 1, '"', v.n - 1)) != NULL)
		return (size_t)(q - v.p) + 1;
	if (v.n && v.p[0] == '<' && (q = memchr(v.p, '>', v.n)) != NULL)
		return (size_t)(q - v.p) + 1;
	q = memchr(v.p, ' ', v.n);
	return q ? (size_t)(q - v.p) : v.n;
}

/* "k=v k=\"v\" ... stat=TEXT" (stat last: the rest of the line). */
static int walk_new(sd_str s, sd_lograw *r, sd_str *result)
{
	while (s.n) {
		sd_str key = sd_sl_until(s, '='), v;
		size_t len;
		if (key.n == s.n || memchr(key.p, ' ', key.n))
			return 0;
		v = sd_sl_skip(s, key.n + 1);
		if (sd_str_caseeq(key, "stat")) {
			r->text = strip_quotes(sd_trim(v));
			return 1;
		}
		len = value_len(v);
		assign(r, key, (sd_str){ v.p, len }, result);
		s = sd_trim(sd_sl_skip(v, len));
	}
	return 0;
}

static int walk_old(sd_str s, sd_lograw *r)
{
	long k = sd_sl_find(s, ", stat=");
	sd_str fields, dummy;

	if (k < 0)
		return 0;
	fields = (sd_str){ s.p, (size_t)k };
	r->text = sd_trim(sd_sl_skip(s, (size_t)k + 7));
	assign(r, SD_STR("from"), sd_sl_field(fields, "from"), &dummy);
	assign(r, SD_STR("to"), sd_sl_field(fields, "to"), &dummy);
	assign(r, SD_STR("rcpt"), sd_sl_field(fields, "rcpt"), &dummy);
	assign(r, SD_STR("delay"), sd_sl_field(fields, "delay"), &dummy);
	return 1;
}

/* "delivery: WORD for EVPID: fields" (or "relay: ..."). */
static int old_form(sd_str m, sd_lograw *r, sd_str *result)
{
	long k, e;

	if (sd_sl_starts(m, "delivery: "))
		m = sd_sl_skip(m, 10);
	else if (sd_sl_starts(m, "relay: "))
		m = sd_sl_skip(m, 7);
	else
		return 0;
	if ((k = sd_sl_find(m, " for ")) < 0)
		return 0;
	*result = (sd_str){ m.p, (size_t)k };
	m = sd_sl_skip(m, (size_t)k + 5);
	if ((e = sd_sl_find(m, ": ")) < 0)
		return -1;
	r->queueid = (sd_str){ m.p, (size_t)e };
	return walk_old(sd_sl_skip(m, (size_t)e + 2), r) ? 1 : -1;
}

/* "SESSION mta delivery " or "SESSION mda delivery ": the fields after it. */
static int new_form(sd_str m, sd_lograw *r, sd_str *result)
{
	size_t i = 0;

	while (i < m.n && sd_isalnum((unsigned char)m.p[i]))
		i++;
	m = sd_sl_skip(m, i + 1);
	if (!i || (!sd_sl_starts(m, "mta delivery ") && !sd_sl_starts(m, "mda delivery ")))
		return 0;
	return walk_new(sd_sl_skip(m, 13), r, result) ? 1 : -1;
}

int sd_scan_opensmtpd(sd_logline *l)
{
	sd_str m = l->h.msg, result = SD_NULLSTR;
	sd_lograw *r;
	int rc, a;

	if (!sd_memmem(m.p, m.n, "delivery", 8) && !sd_sl_starts(m, "relay: "))
		return 0;
	if (!(r = sd_scan_add(l)))
		return SMTPDIAG_ELIMIT;
	rc = new_form(m, r, &result);
	if (!rc)
		rc = old_form(m, r, &result);
	a = rc > 0 ? action_of(result) : 0;
	if (rc == 0 || a < 0) {
		l->n--;
		return 0;
	}
	if (rc < 0 || !a || !r->queueid.n || !r->recipient.n)
		return SMTPDIAG_EPARSE;
	r->action = a;
	if (code_first(r->text))
		r->reply = r->text;
	return 1;
}
