/* scan_reject.c - what the MTA's own server refused a client, inbound: reject
 * records (action "rejected"; docs/rejects.md).
 *
 * Postfix smtpd (smtpd_check.c log_whatsup(), smtpd.c's milter replies):
 *   QID|NOQUEUE: reject|reject_warning|milter-reject: STAGE from NAME[IP][:PORT]:
 *       REPLY; from=<s> to=<r> proto=P helo=<h>
 * with STAGE CONNECT, HELO, EHLO, MAIL, RCPT, DATA, "DATA content",
 * END-OF-MESSAGE, VRFY, ETRN, ...; the fields only when known.
 * cleanup's header and body checks (cleanup_message.c cleanup_act_log()):
 *   QID: reject: header|body|mime-header|nested-header CONTENT from NAME[IP];
 *       from=<s> to=<r> proto=P helo=<h>: 5.7.1 TEXT
 * postscreen: its enforced reply to RCPT ("NOQUEUE: reject: RCPT from
 * [IP]:PORT: 550 5.7.1 Service unavailable; client [IP] blocked using ZONE;
 * from=<s>, to=<r>, proto=ESMTP, helo=<h>") and what its tests found, logged
 * before it acts (PREGREET, DNSBL rank, COMMAND PIPELINING, NON-SMTP COMMAND,
 * BARE NEWLINE, HANGUP, COMMAND TIME/COUNT/LENGTH LIMIT, BLACKLISTED or
 * DENYLISTED by its access list): postscreen's action (ignore, enforce, drop) is not
 * on the line, so these are warnings; an enforced reject is its own line.
 * Exim (acl.c, smtp_in.c; main log and reject log):
 *   [ID ]H=[NAME ][(HELO) ][IP]:PORT [I=...] [U=...] [P=...] [F=<s>] [temporarily ]
 *       rejected RCPT <r>|MAIL <s>|after DATA|EHLO or HELO NAME|connection ...: TEXT
 *   SMTP protocol synchronization error (...): rejected connection from H=[IP] input="..."
 * Sendmail (its rulesets and milters):
 *   QID|NOQUEUE: ruleset=check_rcpt, arg1=<r>, relay=NAME [IP], reject=550 5.7.1 ...
 *   QID: Milter: to=<r>, reject=550 5.7.1 ...
 * "blocked using ZONE" in a reply names the block list zone. */
#include "scan/scan.h"

#define IS(s, lit) ((s).n == sizeof(lit) - 1 && !memcmp((s).p, lit, sizeof(lit) - 1))

/* The stage, one word for every MTA: the command or the point of the
 * dialogue the refusal answered. */
static const char *stage_of(sd_str w)
{
	static const struct {
		const char *word, *stage;
	} map[] = {
		{ "CONNECT", "CONNECT" },   { "connection", "CONNECT" }, { "HELO", "HELO" },
		{ "EHLO", "HELO" },         { "MAIL", "MAIL" },          { "RCPT", "RCPT" },
		{ "DATA", "DATA" },         { "BDAT", "DATA" },          { "DATA content", "DATA" },
		{ "BDAT content", "DATA" }, { "END-OF-MESSAGE", "END-OF-DATA" },
		{ "END-OF-DATA", "END-OF-DATA" }, { "VRFY", "VRFY" },    { "ETRN", "ETRN" },
		{ "AUTH", "AUTH" },         { "STARTTLS", "STARTTLS" },  { "UNKNOWN", "UNKNOWN" },
		{ "XCLIENT", "XCLIENT" },   { "XFORWARD", "XFORWARD" },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (w.n == strlen(map[i].word) && !memcmp(w.p, map[i].word, w.n))
			return map[i].stage;
	return "";
}

/* "NAME[IP]", "NAME[IP]:PORT", "[IP]:PORT" at the start of s: the bytes read,
 * 0 when s does not start so. "IPv6:" before an address is dropped. */
static size_t name_addr(sd_str s, sd_lograw *r)
{
	const char *lb = s.n ? memchr(s.p, '[', s.n) : NULL, *rb;
	size_t end;

	if (!lb || memchr(s.p, ' ', (size_t)(lb - s.p)) || !(rb = memchr(lb, ']', (size_t)(s.p + s.n - lb))))
		return 0;
	r->client = (sd_str){ s.p, (size_t)(lb - s.p) };
	r->clientip = (sd_str){ lb + 1, (size_t)(rb - lb - 1) };
	if (sd_str_casestarts(r->clientip, "IPv6:"))
		r->clientip = sd_sl_skip(r->clientip, 5);
	end = (size_t)(rb + 1 - s.p);
	if (end + 1 < s.n && s.p[end] == ':' && sd_isdigit((unsigned char)s.p[end + 1]))
		for (end++; end < s.n && sd_isdigit((unsigned char)s.p[end]); end++)
			;
	return end;
}

/* The zone of "blocked using ZONE" (Postfix, postscreen, Sendmail's dnsbl
 * feature) or "is listed at ZONE" (Exim's dnslists default message), as
 * logged. */
static void list_of(sd_lograw *r, sd_str t)
{
	long k = sd_sl_find(t, "blocked using "); /* both leads are 14 bytes */
	size_t i = 0;
	sd_str z;

	if (k < 0)
		k = sd_sl_find(t, " is listed at ");
	if (k < 0)
		return;
	z = sd_sl_skip(t, (size_t)k + 14);
	while (i < z.n && z.p[i] != ' ' && z.p[i] != ';' && z.p[i] != ',' && z.p[i] != ')')
		i++;
	while (i && (z.p[i - 1] == '.' || z.p[i - 1] == ':'))
		i--;
	r->list = (sd_str){ z.p, i };
}

/* The reply a line quotes: the whole text, or from its code on. */
static void reply_of(sd_lograw *r, sd_str t)
{
	r->text = sd_trim(t);
	r->reply = r->text;
	list_of(r, r->text);
}

/* ---- Postfix ---- */

/* The fields "from=<s> to=<r> proto=P helo=<h>" (smtpd and cleanup: spaces;
 * postscreen: ", "), up to the end or to ": " (cleanup's text): the offset
 * where the walk stopped. */
static size_t pf_fields(sd_str f, sd_lograw *r)
{
	size_t i = 0;

	while (i < f.n) {
		size_t k, v, e;
		sd_str key, val;
		while (i < f.n && (f.p[i] == ' ' || f.p[i] == ','))
			i++;
		if (i < f.n && f.p[i] == ':')
			return i;
		for (k = i; k < f.n && f.p[k] != '=' && f.p[k] != ' ' && f.p[k] != ':'; k++)
			;
		if (k >= f.n || f.p[k] != '=')
			return i;
		key = (sd_str){ f.p + i, k - i };
		v = k + 1;
		if (v < f.n && f.p[v] == '<') {
			for (e = v; e < f.n && !(f.p[e] == '>' && (e + 1 == f.n || f.p[e + 1] == ' ' ||
							      f.p[e + 1] == ',' || f.p[e + 1] == ':'));
			     e++)
				;
			e = e < f.n ? e + 1 : e;
		} else {
			for (e = v; e < f.n && f.p[e] != ' ' && f.p[e] != ',' && !(f.p[e] == ':' && e + 1 < f.n && f.p[e + 1] == ' '); e++)
				;
		}
		val = (sd_str){ f.p + v, e - v };
		if (IS(key, "from"))
			r->sender = sd_sl_unangle(val);
		else if (IS(key, "to"))
			r->recipient = sd_sl_unangle(val);
		else if (IS(key, "helo"))
			r->helo = sd_sl_unangle(val);
		i = e;
	}
	return i;
}

/* Where the fields after a reply start: "; from=<", "; to=<", ... (the reply
 * may hold "; " of its own: "Service unavailable; client [IP] blocked ..."). */
static long pf_fields_at(sd_str t)
{
	static const char *const keys[] = { "; from=<", "; to=<", "; proto=", "; helo=<", "; sasl_method=" };
	long best = -1;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		long k = sd_sl_find(t, keys[i]);
		if (k >= 0 && (best < 0 || k < best))
			best = k;
	}
	return best;
}

/* "ACTION: STAGE from NAME[IP]: REPLY; FIELDS" (smtpd, postscreen, a
 * milter's reply logged by cleanup). */
static int pf_whatsup(sd_lograw *r, sd_str m)
{
	long k = sd_sl_find(m, " from "), f;
	size_t a;
	sd_str t;

	if (k <= 0)
		return 0;
	r->stage = stage_of((sd_str){ m.p, (size_t)k });
	m = sd_sl_skip(m, (size_t)k + 6);
	if (!(a = name_addr(m, r)) || a + 2 > m.n || m.p[a] != ':' || m.p[a + 1] != ' ')
		return 0;
	t = sd_sl_skip(m, a + 2);
	if ((f = pf_fields_at(t)) >= 0) {
		pf_fields(sd_sl_skip(t, (size_t)f + 2), r);
		t.n = (size_t)f;
	} else if (t.n && t.p[t.n - 1] == ';') {
		t.n--;
	}
	reply_of(r, t);
	return 1;
}

/* cleanup: "CLASS CONTENT from ORIGIN; FIELDS: TEXT". The origin ends at the
 * first ';' that fields, ": " or the end follow (a header may hold ';'). */
static int pf_cleanup(sd_lograw *r, sd_str m)
{
	sd_str cls = sd_sl_until(m, ' '), rest;
	size_t i, stop;

	if (IS(cls, "body") || IS(cls, "content"))
		r->stage = "BODY";
	else if (IS(cls, "header") || IS(cls, "mime-header") || IS(cls, "nested-header"))
		r->stage = "HEADER";
	else
		return 0;
	for (i = cls.n; i < m.n; i++) {
		sd_str after;
		long f;
		if (m.p[i] != ';')
			continue;
		after = sd_sl_skip(m, i);
		f = pf_fields_at(after);
		if (f == 0 || i + 1 == m.n || m.p[i + 1] == ':')
			break;
	}
	if (i >= m.n)
		return 0;
	rest = (sd_str){ m.p, i };
	for (size_t j = rest.n; j-- > cls.n + 6;) {
		if (!memcmp(rest.p + j - 6, " from ", 6)) {
			name_addr(sd_sl_skip(rest, j), r);
			break;
		}
	}
	rest = sd_sl_skip(m, i + 1);
	stop = pf_fields(rest, r);
	rest = sd_sl_skip(rest, stop);
	if (rest.n && rest.p[0] == ':')
		rest = sd_sl_skip(rest, 1);
	reply_of(r, rest);
	return 1;
}

/* postscreen's findings: each logged before its action; only its enforced
 * reply (a "reject:" line) refuses. The reason its test implies. */
static int pf_postscreen(sd_lograw *r, sd_str m)
{
	static const struct {
		const char *lead, *hint;
	} kinds[] = {
		{ "PREGREET ", "syntaxerror" },         { "DNSBL rank ", "blocked" },
		{ "COMMAND PIPELINING ", "syntaxerror" }, { "NON-SMTP COMMAND ", "syntaxerror" },
		{ "BARE NEWLINE ", "syntaxerror" },      { "HANGUP ", NULL },
		{ "COMMAND LENGTH LIMIT ", "syntaxerror" }, { "COMMAND COUNT LIMIT ", NULL },
		{ "COMMAND TIME LIMIT ", NULL },          { "BLACKLISTED ", "blocked" },
		{ "DENYLISTED ", "blocked" },
	};
	long k;

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (!sd_sl_starts(m, kinds[i].lead))
			continue;
		k = sd_sl_find(m, "[");
		if (k < 0)
			return SMTPDIAG_EPARSE;
		/* "from [IP]:PORT" or "for [IP]:PORT" */
		name_addr(sd_sl_skip(m, (size_t)k), r);
		r->client = SD_NULLSTR;
		r->stage = "POSTSCREEN";
		r->warning = 1;
		r->hint = kinds[i].hint;
		r->text = m;
		r->log_words = 1; /* the reason is the kind's; "after EHLO" names no refused command */
		return 1;
	}
	return 0;
}

static size_t pf_queue_id(sd_str m)
{
	size_t i = 0;

	while (i < m.n && i < 32 && sd_isalnum((unsigned char)m.p[i]))
		i++;
	return i && i + 1 < m.n && m.p[i] == ':' && m.p[i + 1] == ' ' ? i : 0;
}

int sd_scan_postfix_reject(sd_logline *l, sd_str agent)
{
	sd_str m = l->h.msg, act;
	size_t q = pf_queue_id(m);
	sd_lograw *r;
	int ok, cleanup = IS(agent, "cleanup");

	if (!q) {
		if (!IS(agent, "postscreen") || !m.n || m.p[0] < 'A' || m.p[0] > 'Z')
			return 0;
		if (!(r = sd_scan_add(l)))
			return SMTPDIAG_ELIMIT;
		r->action = SD_ACT_REJECTED;
		if ((ok = pf_postscreen(r, m)) <= 0)
			l->n--;
		return ok;
	}
	m = sd_sl_skip(m, q + 2);
	act = sd_sl_until(m, ':');
	if (act.n >= m.n || !(IS(act, "reject") || IS(act, "reject_warning") || IS(act, "milter-reject")))
		return 0; /* "client=", "message-id=", "warning: header ...", "hold:", "discard:" */
	if (!(r = sd_scan_add(l)))
		return SMTPDIAG_ELIMIT;
	r->action = SD_ACT_REJECTED;
	r->warning = IS(act, "reject_warning");
	if (!(q == 7 && !memcmp(l->h.msg.p, "NOQUEUE", 7)))
		r->queueid = (sd_str){ l->h.msg.p, q };
	m = sd_sl_skip(m, act.n + 2);
	ok = cleanup && !sd_sl_starts(m, "END-OF-MESSAGE ") ? pf_cleanup(r, m) : pf_whatsup(r, m);
	return ok ? 1 : SMTPDIAG_EPARSE;
}

/* ---- Exim ---- */

/* The fields before the verdict: H= (name, (helo), [ip]:port), F=<s>, and the
 * others skipped; returns the offset of what follows them. */
static size_t ex_fields(sd_str m, sd_lograw *r)
{
	size_t i = 0;

	while (i < m.n) {
		size_t k = i, e;
		while (k < m.n && sd_isalnum((unsigned char)m.p[k]))
			k++;
		if (k == i || k >= m.n || m.p[k] != '=')
			return i;
		if (k - i == 1 && m.p[i] == 'H') {
			/* "NAME (HELO) [IP]:PORT": tokens while they are a name first, then (..) or [..] */
			int first = 1;
			e = k + 1;
			while (e < m.n) {
				size_t s = e, a;
				if (m.p[s] == '(') {
					const char *c = memchr(m.p + s, ')', m.n - s);
					if (!c)
						break;
					r->helo = (sd_str){ m.p + s + 1, (size_t)(c - m.p - s - 1) };
					e = (size_t)(c - m.p) + 1;
				} else if (m.p[s] == '[') {
					if (!(a = name_addr(sd_sl_skip(m, s), r)))
						break;
					r->client = SD_NULLSTR;
					e = s + a;
				} else if (first) {
					while (e < m.n && m.p[e] != ' ')
						e++;
					r->relay = (sd_str){ m.p + s, e - s }; /* the name, kept below */
				} else {
					break;
				}
				first = 0;
				if (e < m.n && m.p[e] == ' ' && e + 1 < m.n && (m.p[e + 1] == '(' || m.p[e + 1] == '['))
					e++;
				else
					break;
			}
			if (r->relay.n) {
				r->client = r->relay;
				r->relay = SD_NULLSTR;
			}
		} else {
			sd_str v = sd_sl_skip(m, k + 1);
			e = k + 1;
			if (v.n && v.p[0] == '"') {
				const char *c = v.n > 1 ? memchr(v.p + 1, '"', v.n - 1) : NULL;
				e = c ? (size_t)(c - m.p) + 1 : m.n;
			} else {
				while (e < m.n && m.p[e] != ' ')
					e++;
			}
			if (k - i == 1 && m.p[i] == 'F')
				r->sender = sd_sl_unangle((sd_str){ m.p + k + 1, e - k - 1 });
		}
		i = e;
		while (i < m.n && m.p[i] == ' ')
			i++;
	}
	return i;
}

/* After "rejected ": the stage and its argument, then ": TEXT". */
static int ex_what(sd_str m, sd_lograw *r)
{
	static const struct {
		const char *lead, *stage;
		int arg; /* 1 recipient, 2 sender, 3 helo name */
	} what[] = {
		{ "RCPT ", "RCPT", 1 },   { "MAIL ", "MAIL", 2 },           { "after DATA", "END-OF-DATA", 0 },
		{ "DATA", "DATA", 0 },    { "EHLO or HELO ", "HELO", 3 },   { "EHLO ", "HELO", 0 },
		{ "HELO ", "HELO", 0 },   { "connection", "CONNECT", 0 },  { "VRFY ", "VRFY", 0 },
		{ "ETRN ", "ETRN", 0 },   { "AUTH ", "AUTH", 0 },           { "after MIME", "END-OF-DATA", 0 },
	};
	long k = sd_sl_find(m, ": ");
	sd_str head = k >= 0 ? (sd_str){ m.p, (size_t)k } : m;

	for (size_t i = 0; i < sizeof(what) / sizeof(what[0]); i++) {
		sd_str arg;
		if (!sd_sl_starts(head, what[i].lead))
			continue;
		r->stage = what[i].stage;
		arg = sd_trim(sd_sl_skip(head, strlen(what[i].lead)));
		if (what[i].arg == 1)
			r->recipient = sd_sl_unangle(arg);
		else if (what[i].arg == 2 && !r->sender.n)
			r->sender = sd_sl_unangle(arg);
		else if (what[i].arg == 3 && !r->helo.n)
			r->helo = arg;
		break;
	}
	reply_of(r, k >= 0 ? sd_sl_skip(m, (size_t)k + 2) : SD_NULLSTR);
	if (!r->text.n)
		reply_of(r, m);
	return r->stage != NULL;
}

/* " rejected " or " refused " after the fields: its offset (the verb's). */
static long ex_verb(sd_str m, size_t at, int *cls)
{
	static const struct {
		const char *w;
		int cls;
	} verbs[] = { { "temporarily rejected ", 4 }, { "rejected ", 5 }, { "refused ", 5 } };
	sd_str t = sd_sl_skip(m, at);

	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (sd_sl_starts(t, verbs[i].w)) {
			*cls = verbs[i].cls;
			return (long)(at + strlen(verbs[i].w));
		}
	return -1;
}

/* smtp_in.c: a client that talks before its turn ("SMTP protocol
 * synchronization error (input sent without waiting for greeting): rejected
 * connection from H=[IP] input=..."). */
#define EX_SYNC "SMTP protocol synchronization error ("

int sd_exim_reject_at(const char *p, size_t n)
{
	if (n > sizeof(EX_SYNC) && !memcmp(p, EX_SYNC, sizeof(EX_SYNC) - 1))
		return 1;
	return n > 3 && p[0] == 'H' && p[1] == '=' && sd_memmem(p, n, "rejected ", 9) != NULL;
}

static int ex_sync(sd_logline *l, sd_str m)
{
	long k = sd_sl_find(m, "rejected connection from ");
	sd_lograw *r;

	if (k < 0)
		return 0;
	if (!(r = sd_scan_add(l)))
		return SMTPDIAG_ELIMIT;
	r->action = SD_ACT_REJECTED;
	r->cls = 5;
	r->stage = "CONNECT";
	r->hint = "syntaxerror";
	ex_fields(sd_sl_skip(m, (size_t)k + 25), r);
	r->text = m;
	return 1;
}

int sd_scan_exim_reject(sd_logline *l, sd_str m)
{
	size_t id = sd_exim_id(m.p, m.n), at;
	sd_lograw t, *r;
	long v;
	int cls = 0;

	memset(&t, 0, sizeof(t));
	t.delay = -1;
	if (id && m.n > id && m.p[id] == ' ') {
		t.queueid = (sd_str){ m.p, id };
		m = sd_sl_skip(m, id + 1);
	}
	if (sd_sl_starts(m, EX_SYNC))
		return ex_sync(l, m);
	if (!sd_sl_starts(m, "H=") || !sd_memmem(m.p, m.n, "rejected ", 9))
		return 0;
	at = ex_fields(m, &t);
	if ((v = ex_verb(m, at, &cls)) < 0)
		return 0;
	t.action = SD_ACT_REJECTED;
	t.cls = cls;
	if (!ex_what(sd_sl_skip(m, (size_t)v), &t))
		t.stage = "";
	if (!(r = sd_scan_add(l)))
		return SMTPDIAG_ELIMIT;
	*r = t;
	return 1;
}

/* ---- Sendmail ---- */

int sd_scan_sendmail_reject(sd_logline *l, sd_str qid, sd_str f)
{
	static const struct {
		const char *ruleset, *stage;
		int arg1; /* 1 recipient, 2 sender */
	} rulesets[] = {
		{ "check_rcpt", "RCPT", 1 }, { "check_mail", "MAIL", 2 }, { "check_relay", "CONNECT", 0 },
		{ "check_eoh", "HEADER", 0 }, { "check_data", "DATA", 0 }, { "check_etrn", "ETRN", 0 },
		{ "check_vrfy", "VRFY", 0 }, { "check_expn", "VRFY", 0 }, { "check_eom", "END-OF-DATA", 0 },
	};
	sd_str rej = sd_trim(sd_sl_field(f, "reject")), rs, relay;
	sd_lograw *r;
	size_t a;

	if (!rej.n)
		return 0;
	if (!(r = sd_scan_add(l)))
		return SMTPDIAG_ELIMIT;
	r->action = SD_ACT_REJECTED;
	if (!(qid.n == 7 && !memcmp(qid.p, "NOQUEUE", 7)))
		r->queueid = qid;
	r->stage = "";
	rs = sd_trim(sd_sl_field(f, "ruleset"));
	for (size_t i = 0; i < sizeof(rulesets) / sizeof(rulesets[0]); i++) {
		sd_str arg1;
		if (rs.n != strlen(rulesets[i].ruleset) || memcmp(rs.p, rulesets[i].ruleset, rs.n))
			continue;
		r->stage = rulesets[i].stage;
		arg1 = sd_trim(sd_sl_field(f, "arg1"));
		if (rulesets[i].arg1 == 1)
			r->recipient = sd_sl_unangle(arg1);
		else if (rulesets[i].arg1 == 2)
			r->sender = sd_sl_unangle(arg1);
		break;
	}
	if (!rs.n && sd_sl_starts(f, "Milter: ")) { /* "Milter: to=<r>, reject=...", "Milter: data, reject=..." */
		sd_str w = sd_trim(sd_sl_skip(f, 8));
		if (sd_sl_starts(w, "to="))
			r->stage = "RCPT", r->recipient = sd_sl_unangle(sd_sl_until(sd_sl_skip(w, 3), ','));
		else if (sd_sl_starts(w, "from="))
			r->stage = "MAIL", r->sender = sd_sl_unangle(sd_sl_until(sd_sl_skip(w, 5), ','));
		else if (sd_sl_starts(w, "data") || sd_sl_starts(w, "eom"))
			r->stage = "END-OF-DATA";
		else if (sd_sl_starts(w, "helo"))
			r->stage = "HELO";
		else if (sd_sl_starts(w, "connect"))
			r->stage = "CONNECT";
	}
	/* relay=NAME [IP] (may be forged), relay=[IP], relay=NAME */
	relay = sd_trim(sd_sl_field(f, "relay"));
	if (relay.n && relay.p[0] == '[') {
		name_addr(relay, r);
	} else if (relay.n) {
		long k = sd_sl_find(relay, " [");
		if (k > 0 && (a = name_addr(sd_sl_skip(relay, (size_t)k + 1), r)) != 0)
			r->client = (sd_str){ relay.p, (size_t)k };
		else
			r->client = sd_sl_until(relay, ' ');
	}
	if (r->client.n && r->client.p[r->client.n - 1] == '.')
		r->client.n--;
	reply_of(r, rej);
	return 1;
}
