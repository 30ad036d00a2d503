/* scan_exim.c - Exim main log delivery lines.
 *
 * After the time and the message id, a two-character flag says what happened
 * (Exim specification, "Log files"):
 *   =>  delivered          ->  another address of the same delivery
 *   >>  cutthrough delivery **  failed, the address bounced
 *   ==  deferred           *>  suppressed by -N (not a delivery: skipped)
 * then the address, the original address in <> for aliases, a parent in (),
 * and fields R= router, T= transport, H= host [ip], C="confirmation",
 * QT= time on queue, F=<sender>. Failure lines end in ": message", which for
 * a remote refusal reads "SMTP error from remote mail server after RCPT
 * TO:<a@b>: [host H [ip]: ]550 5.1.1 ...". Through syslog the line may keep
 * Exim's own time, and long lines are split as "[1/2] ...". */
#include "scan/scan.h"

static int action_of(const char *f)
{
	if ((f[0] == '=' || f[0] == '-' || f[0] == '>') && f[1] == '>')
		return SD_ACT_SENT;
	if (f[0] == '*' && f[1] == '*')
		return SD_ACT_BOUNCED;
	if (f[0] == '=' && f[1] == '=')
		return SD_ACT_DEFERRED;
	return 0;
}

/* "[1/3] " or "[1\3] " of a syslog line split by Exim: the first part is read,
 * the others skipped. Returns bytes to skip, or -1 for a later part. */
static long split_prefix(sd_str m)
{
	size_t i = 1;

	if (!m.n || m.p[0] != '[')
		return 0;
	while (i < m.n && sd_isdigit((unsigned char)m.p[i]))
		i++;
	if (i == 1 || i >= m.n || (m.p[i] != '/' && m.p[i] != '\\'))
		return 0;
	if (i != 2 || m.p[1] != '1')
		return -1;
	while (i < m.n && m.p[i] != ']')
		i++;
	return i + 1 < m.n && m.p[i + 1] == ' ' ? (long)i + 2 : -1;
}

/* First ": " outside double quotes; -1 when none. */
static long colon_sep(sd_str s)
{
	int q = 0;

	for (size_t i = 0; i + 1 < s.n; i++) {
		if (s.p[i] == '\\' && q)
			i++;
		else if (s.p[i] == '"')
			q = !q;
		else if (!q && s.p[i] == ':' && s.p[i + 1] == ' ')
			return (long)i;
	}
	return -1;
}

/* Value at v: quoted, or up to a space. For H= the "[ip]" after the name and
 * any ":port" or "*" after it belong to the value. */
static size_t value_len(sd_str v, int host)
{
	size_t i = 0;

	if (v.n && v.p[0] == '"') {
		for (i = 1; i < v.n && v.p[i] != '"'; i++)
			if (v.p[i] == '\\')
				i++;
		return i < v.n ? i + 1 : v.n;
	}
	while (i < v.n && v.p[i] != ' ')
		i++;
	if (host && v.n && v.p[0] != '[' && i + 1 < v.n && v.p[i + 1] == '[')
		for (i += 1; i < v.n && v.p[i] != ' '; i++)
			;
	return i;
}

static sd_str unquote(sd_str v)
{
	if (v.n >= 2 && v.p[0] == '"' && v.p[v.n - 1] == '"')
		return (sd_str){ v.p + 1, v.n - 2 };
	return v;
}

static void field(sd_lograw *r, sd_str key, sd_str v)
{
	if (sd_str_caseeq(key, "H"))
		r->relay = v;
	else if (sd_str_caseeq(key, "C"))
		r->reply = unquote(v);
	else if (sd_str_caseeq(key, "QT"))
		r->delay = sd_sl_duration(v);
	else if (sd_str_caseeq(key, "F"))
		r->sender = sd_sl_unangle(v);
}

/* The address, <original>, (parent), then K=V fields and words. */
static void head(sd_str h, sd_lograw *r)
{
	sd_str v = sd_sl_until(h, ' ');

	r->recipient = v;
	h = sd_trim(sd_sl_skip(h, v.n));
	while (h.n) {
		size_t k = 0, len;
		while (k < h.n && sd_isalnum((unsigned char)h.p[k]))
			k++;
		if (k && k < h.n && h.p[k] == '=') {
			v = sd_sl_skip(h, k + 1);
			len = value_len(v, k == 1 && h.p[0] == 'H');
			field(r, (sd_str){ h.p, k }, (sd_str){ v.p, len });
			h = sd_trim(sd_sl_skip(v, len));
			continue;
		}
		len = value_len(h, 0);
		if (h.p[0] == '<' && !r->orig.n && !r->relay.n)
			r->orig = sd_sl_unangle((sd_str){ h.p, len });
		h = sd_trim(sd_sl_skip(h, len));
	}
}

/* "SMTP error from remote mail server after CMD: [host H [ip]: ]REPLY". */
static void message(sd_str m, sd_lograw *r)
{
	static const char *const lead[] = { "SMTP error from remote mail server after ",
					    "SMTP error from remote mailer after " };
	long k;

	r->text = m;
	for (size_t i = 0; i < 2; i++) {
		if (!sd_sl_starts(m, lead[i]))
			continue;
		m = sd_sl_skip(m, strlen(lead[i]));
		if ((k = sd_sl_find(m, ": ")) < 0)
			return;
		r->command = (sd_str){ m.p, (size_t)k };
		m = sd_sl_skip(m, (size_t)k + 2);
		if (sd_sl_starts(m, "host ") && (k = sd_sl_find(m, "]: ")) >= 0) {
			if (!r->relay.n)
				r->relay = (sd_str){ m.p + 5, (size_t)k - 4 };
			m = sd_sl_skip(m, (size_t)k + 3);
		}
		r->reply = m;
		return;
	}
}

static int expired_text(sd_str t)
{
	return sd_memcasemem(t.p, t.n, "retry timeout exceeded", 22) ||
	       sd_memcasemem(t.p, t.n, "after a long failure period", 27) ||
	       sd_memcasemem(t.p, t.n, "failing for a long time", 23);
}

/* Not an attempt: an address skipped until its retry time, or discarded. */
static int no_attempt(const sd_lograw *r)
{
	return (r->action == SD_ACT_DEFERRED && sd_str_casestarts(r->text, "retry time not reached")) ||
	       sd_str_caseeq(r->recipient, ":blackhole:") || sd_str_caseeq(r->recipient, "discarded");
}

/* The message after Exim's own time inside a syslog line. */
static sd_str inner_time(sd_logline *l, sd_str m)
{
	size_t at;

	if (l->h.exim || m.n < 19 || !sd_isdigit((unsigned char)m.p[0]))
		return m;
	at = sd_exim_prefix(m.p, m.n, &l->inner);
	if (!at)
		return m;
	l->has_inner = 1;
	return sd_sl_skip(m, at);
}

int sd_scan_exim(sd_logline *l)
{
	sd_str m = l->h.msg, rest;
	long k = split_prefix(m);
	size_t id;
	sd_lograw *r;
	int a;

	if (k < 0)
		return 0;
	m = inner_time(l, sd_sl_skip(m, (size_t)k));
	if (!(id = sd_exim_id(m.p, m.n)) || m.n < id + 4 || m.p[id + 3] != ' ')
		return sd_scan_exim_reject(l, m);
	if (!(a = action_of(m.p + id + 1)))
		return sd_scan_exim_reject(l, m);
	if (!(r = sd_scan_add(l)))
		return SMTPDIAG_ELIMIT;
	r->action = a;
	r->queueid = (sd_str){ m.p, id };
	l->arrival = sd_exim_id_time(m.p);
	rest = sd_trim(sd_sl_skip(m, id + 4));
	k = a == SD_ACT_SENT ? -1 : colon_sep(rest);
	head(k < 0 ? rest : (sd_str){ rest.p, (size_t)k }, r);
	if (k >= 0)
		message(sd_trim(sd_sl_skip(rest, (size_t)k + 2)), r);
	if (!r->recipient.n)
		return SMTPDIAG_EPARSE;
	if (no_attempt(r)) {
		l->n--;
		return 0;
	}
	if (a == SD_ACT_BOUNCED && expired_text(r->text))
		r->action = SD_ACT_EXPIRED;
	return 1;
}
