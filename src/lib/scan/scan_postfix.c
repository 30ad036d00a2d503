/* scan_postfix.c - Postfix delivery lines.
 *
 * The delivery agents (smtp, lmtp, local, virtual, error, retry, discard,
 * pipe) log one line per recipient and attempt, written by log_adhoc():
 *   QID: to=<rcpt>[, orig_to=<orig>], relay=host[ip]:port[, conn_use=N],
 *        delay=D, delays=a/b/c/d[, tls=...], dsn=X.Y.Z, status=WORD (TEXT)
 * with WORD sent, deferred, bounced (SOFTBOUNCE with soft_bounce=yes), and
 * TEXT for a remote refusal "host H[ip] said: REPLY (in reply to CMD command)".
 * qmgr logs the end of a message that stayed queued too long:
 *   QID: from=<sender>, status=expired, returned to sender
 * The program is any syslog name ending in one of these agents
 * ("postfix/smtp", "postfix-out/smtp", "postfix/relay/smtp"). */
#include "scan/scan.h"

/* Is agent (the last part of the program name) a Postfix delivery agent, or
 * a server whose refusals are reject records (smtpd, postscreen, cleanup)?
 * Called for every line of a Postfix log: lengths first, then bytes. */
int sd_scan_postfix_agent(sd_str agent)
{
	static const struct {
		const char *name;
		size_t n;
	} agents[] = {
		{ "smtp", 4 }, { "qmgr", 4 }, { "lmtp", 4 }, { "pipe", 4 }, { "local", 5 }, { "error", 5 },
		{ "retry", 5 }, { "oqmgr", 5 }, { "virtual", 7 }, { "discard", 7 },
		{ "smtpd", 5 }, { "cleanup", 7 }, { "postscreen", 10 },
	};

	if (agent.n < 4 || agent.n > 10)
		return 0;
	for (size_t i = 0; i < sizeof(agents) / sizeof(agents[0]); i++)
		if (agent.n == agents[i].n && agent.p[0] == agents[i].name[0] && !memcmp(agent.p, agents[i].name, agent.n))
			return 1;
	return 0;
}

/* Does the slice equal the literal (case-sensitive; lengths first)? */
#define IS(s, lit) ((s).n == sizeof(lit) - 1 && !memcmp((s).p, lit, sizeof(lit) - 1))

/* "QID: " at the start of the message; the id's length or 0. */
static size_t queue_id(sd_str m)
{
	size_t i = 0;

	while (i < m.n && i < 32 && sd_isalnum((unsigned char)m.p[i]))
		i++;
	return i && i + 1 < m.n && m.p[i] == ':' && m.p[i + 1] == ' ' ? i : 0;
}

static int action_of(sd_str w)
{
	static const struct {
		const char *word;
		int action;
	} map[] = {
		{ "sent", SD_ACT_SENT }, { "deferred", SD_ACT_DEFERRED }, { "bounced", SD_ACT_BOUNCED },
		{ "expired", SD_ACT_EXPIRED }, { "SOFTBOUNCE", SD_ACT_DEFERRED },
		{ "deliverable", -1 }, { "undeliverable", -1 }, /* address verification probes */
	};

	if (IS(w, "sent"))
		return SD_ACT_SENT;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (sd_str_caseeq(w, map[i].word))
			return map[i].action;
	return 0;
}

static void assign(sd_lograw *r, sd_str key, sd_str v)
{
	if (IS(key, "to"))
		r->recipient = sd_sl_unangle(v);
	else if (IS(key, "relay"))
		r->relay = v;
	else if (IS(key, "delay"))
		r->delay = sd_sl_duration(v);
	else if (IS(key, "dsn"))
		r->dsn = v;
	else if (IS(key, "orig_to"))
		r->orig = sd_sl_unangle(v);
	else if (IS(key, "from"))
		r->sender = sd_sl_unangle(v);
}

/* End of a value at v: after the '>' of an address, else at the next ", ". */
static const char *value_end(const char *v, const char *end)
{
	const char *q;

	if (v < end && *v == '<' && (q = memchr(v, '>', (size_t)(end - v))) != NULL)
		return q + 1;
	for (q = v; q < end && (q = memchr(q, ',', (size_t)(end - q))) != NULL; q++)
		if (q + 1 < end && q[1] == ' ')
			return q;
	return end;
}

/* Walk "k=v, k=v, ..., status=..." once; *status gets what follows "status=". */
static int walk(sd_str rest, sd_lograw *r, sd_str *status)
{
	const char *p = rest.p, *end = rest.p + rest.n;

	while (p < end) {
		const char *eq = memchr(p, '=', (size_t)(end - p)), *ve;
		sd_str key;
		if (!eq)
			return 0;
		key = (sd_str){ p, (size_t)(eq - p) };
		if (IS(key, "status")) {
			*status = (sd_str){ eq + 1, (size_t)(end - eq - 1) };
			return 1;
		}
		ve = value_end(eq + 1, end);
		assign(r, key, (sd_str){ eq + 1, (size_t)(ve - eq - 1) });
		p = ve;
		if (p + 2 <= end && p[0] == ',' && p[1] == ' ')
			p += 2;
		else if (p < end)
			return 0;
	}
	return 0;
}

/* "(in reply to X command)" at the end of t: X, and t without it. */
static sd_str in_reply_to(sd_str *t)
{
	long k = sd_sl_find(*t, " (in reply to ");
	sd_str cmd;

	if (k < 0)
		return SD_NULLSTR;
	cmd = sd_sl_skip(*t, (size_t)k + 14);
	t->n = (size_t)k;
	k = sd_sl_find(cmd, " command)");
	if (k >= 0)
		cmd.n = (size_t)k;
	return cmd;
}

static int code_first(sd_str t)
{
	return t.n >= 3 && sd_isdigit((unsigned char)t.p[0]) && sd_isdigit((unsigned char)t.p[1]) &&
	       sd_isdigit((unsigned char)t.p[2]) && (t.n == 3 || t.p[3] == ' ' || t.p[3] == '-');
}

/* The remote's words inside the explanation: a sent line's text starts with
 * the reply; a refusal names the host first ("host H said: 550 ..."). */
static void split_text(sd_lograw *r)
{
	sd_str t = r->text;
	long k;

	if (code_first(t)) {
		r->reply = t;
		if (r->action == SD_ACT_SENT)
			return;
	} else if ((k = sd_sl_find(t, " said: ")) >= 0) {
		r->reply = sd_sl_skip(t, (size_t)k + 7);
	} else if ((k = sd_sl_find(t, " refused to talk to me: ")) >= 0) {
		r->reply = sd_sl_skip(t, (size_t)k + 24);
		r->command = SD_STR("greeting");
	}
	if (r->reply.n) {
		sd_str cmd = in_reply_to(&r->reply);
		if (cmd.n)
			r->command = cmd;
	} else if (sd_sl_find(t, "initial server greeting") >= 0) {
		r->command = SD_STR("greeting");
	}
}

/* "bounced (TEXT)" or "expired, returned to sender". */
static int status_value(sd_str v, sd_lograw *r)
{
	size_t i = 0;

	while (i < v.n && v.p[i] != ' ' && v.p[i] != ',' && v.p[i] != '(')
		i++;
	r->action = action_of((sd_str){ v.p, i });
	v = sd_trim(sd_sl_skip(v, i));
	if (v.n && v.p[0] == ',')
		v = sd_trim(sd_sl_skip(v, 1));
	if (v.n && v.p[0] == '(') {
		v = sd_sl_skip(v, 1);
		if (v.n && v.p[v.n - 1] == ')')
			v.n--;
	}
	r->text = v;
	return r->action;
}

/* A delivery line: "to=<...>, ..., status=WORD (TEXT)". */
static int delivery(sd_logline *l, sd_lograw *r, sd_str rest, sd_str agent)
{
	sd_str st;
	int a;

	if (!walk(rest, r, &st))
		return SMTPDIAG_EPARSE;
	if ((a = status_value(st, r)) < 0) {
		l->n--;
		return 0;
	}
	if (!a || !r->recipient.n)
		return SMTPDIAG_EPARSE;
	split_text(r);
	r->local = IS(agent, "pipe");
	r->own_words = r->local || IS(agent, "local") || IS(agent, "virtual");
	return 1;
}

/* qmgr's "from=<s>, status=expired, returned to sender"; its other lines
 * ("from=<s>, size=N, nrcpt=N (queue active)") are no attempt. */
static int expiry(sd_logline *l, sd_lograw *r, sd_str rest)
{
	sd_str st;

	if (!walk(rest, r, &st) || status_value(st, r) != SD_ACT_EXPIRED) {
		l->n--;
		return 0;
	}
	return 1;
}

int sd_scan_postfix(sd_logline *l, sd_str agent)
{
	size_t q = queue_id(l->h.msg);
	sd_str rest;
	sd_lograw *r;
	int to;

	if (IS(agent, "smtpd") || IS(agent, "cleanup") || IS(agent, "postscreen"))
		return sd_scan_postfix_reject(l, agent);
	if (!q)
		return 0; /* "warning: ...", "connect to ...", "statistics: ..." */
	rest = sd_sl_skip(l->h.msg, q + 2);
	to = rest.n > 3 && !memcmp(rest.p, "to=", 3);
	if (!to && !(rest.n > 5 && !memcmp(rest.p, "from=", 5)))
		return 0; /* "QID: removed", "QID: status=deferred (bounce failed)", ... */
	if (!(r = sd_scan_add(l)))
		return SMTPDIAG_ELIMIT;
	r->queueid = (sd_str){ l->h.msg.p, q };
	return to ? delivery(l, r, rest, agent) : expiry(l, r, rest);
}
