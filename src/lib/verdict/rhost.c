/* rhost.c - reasons decided by who wrote the message: a local delivery agent
 * (procmail, dovecot, ...) or a remote host with its own vocabulary (Google,
 * Microsoft, Yahoo, ...). Small tables; each entry is checked with one
 * case-insensitive substring search, and only for the matching host. */
#include "verdict/verdict.h"

#include "verdict/rhost.h"

#include <pthread.h>
#include <stdlib.h>
#include <strings.h>

/* Does the lowercased text hold the lowercase literal? */
static int has(const char *lc, size_t n, const char *lit)
{
	return sd_memmem(lc, n, lit, strlen(lit)) != NULL;
}

/* ---- local delivery agents ---- */

typedef struct lda_msg {
	const char *agent; /* key of the agent below */
	int reason;
	const char *text;
} lda_msg;

static const struct {
	const char *agent, *sig1, *sig2;
} agents[] = {
	{ "dovecot", "your message to <", "> was automatically rejected:" },
	{ "mail.local", "mail.local: ", NULL },
	{ "procmail", "procmail: ", "/procmail " },
	{ "maildrop", "maildrop: ", NULL },
	{ "vpopmail", "vdelivermail: ", NULL },
	{ "vmailmgr", "vdeliver: ", NULL },
};

static const lda_msg lda_msgs[] = {
	{ "dovecot", SD_R_mailboxfull, "not enough disk space" },
	{ "dovecot", SD_R_mailboxfull, "quota exceeded" },
	{ "dovecot", SD_R_userunknown, "mailbox doesn't exist: " },
	{ "mail.local", SD_R_mailboxfull, "disc quota exceeded" },
	{ "mail.local", SD_R_mailboxfull, "mailbox full or quota exceeded" },
	{ "mail.local", SD_R_systemerror, "temporary file write error" },
	{ "mail.local", SD_R_userunknown, ": invalid mailbox path" },
	{ "mail.local", SD_R_userunknown, ": unknown user:" },
	{ "mail.local", SD_R_userunknown, ": user missing home directory" },
	{ "mail.local", SD_R_userunknown, ": user unknown" },
	{ "procmail", SD_R_mailboxfull, "quota exceeded while writing" },
	{ "procmail", SD_R_mailboxfull, "user over quota" },
	{ "procmail", SD_R_systemerror, "service unavailable" },
	{ "procmail", SD_R_systemfull, "no space left to finish writing" },
	{ "maildrop", SD_R_mailboxfull, "maildir over quota." },
	{ "maildrop", SD_R_userunknown, "cannot find system user" },
	{ "maildrop", SD_R_userunknown, "invalid user specified." },
	{ "vpopmail", SD_R_filtered, "user does not exist, but will deliver to " },
	{ "vpopmail", SD_R_mailboxfull, "domain is over quota" },
	{ "vpopmail", SD_R_mailboxfull, "user is over quota" },
	{ "vpopmail", SD_R_suspend, "account is locked email bounced" },
	{ "vpopmail", SD_R_userunknown, "sorry, no mailbox here by that name." },
	{ "vmailmgr", SD_R_mailboxfull, "delivery failed due to system quota violation" },
	{ "vmailmgr", SD_R_userunknown, "invalid or unknown base user or domain" },
	{ "vmailmgr", SD_R_userunknown, "invalid or unknown virtual user" },
	{ "vmailmgr", SD_R_userunknown, "user name does not refer to a virtual user" },
};

int sd_lda_reason(const char *lc, size_t n, const char *command)
{
	const char *agent = NULL;

	if (!lc || !n || (command[0] && strcmp(command, "DATA") != 0))
		return -1;
	for (size_t i = 0; i < sizeof(agents) / sizeof(agents[0]) && !agent; i++)
		if (has(lc, n, agents[i].sig1) || (agents[i].sig2 && has(lc, n, agents[i].sig2)))
			agent = agents[i].agent;
	if (!agent)
		return -1;
	for (size_t i = 0; i < sizeof(lda_msgs) / sizeof(lda_msgs[0]); i++)
		if (!strcmp(lda_msgs[i].agent, agent) && has(lc, n, lda_msgs[i].text))
			return lda_msgs[i].reason;
	return SD_R_mailererror;
}

/* ---- remote hosts ---- */

/* Hosts whose replies have their own vocabulary. A class is chosen by the
 * recipient's domain (a suffix of a class host), else by the remote host,
 * else by the reporting host (the class host is a suffix of theirs). */
#define H(c, h) { c, h, sizeof(h) - 1 }
static const struct {
	int cls;
	const char *host;
	size_t len;
} rh_hosts[] = {
	H(RH_AOL, ".mail.aol.com"), H(RH_AOL, ".mx.aol.com"),
	H(RH_APPLE, ".mail.icloud.com"), H(RH_APPLE, ".apple.com"), H(RH_APPLE, ".me.com"),
	H(RH_CLOUDFLARE, ".mx.cloudflare.net"), H(RH_COMCAST, ".comcast.net"), H(RH_COX, "cox.net"),
	H(RH_FRANCEPTT, ".laposte.net"), H(RH_FRANCEPTT, ".orange.fr"), H(RH_FRANCEPTT, ".wanadoo.fr"),
	H(RH_GODADDY, "smtp.secureserver.net"), H(RH_GODADDY, "mailstore1.secureserver.net"),
	H(RH_GOOGLE, "aspmx.l.google.com"), H(RH_GOOGLE, "gmail-smtp-in.l.google.com"),
	H(RH_GSUITE, "googlemail.com"), H(RH_IUA, ".email.ua"),
	H(RH_KDDI, ".ezweb.ne.jp"), H(RH_KDDI, "msmx.au.com"), H(RH_MESSAGELABS, ".messagelabs.com"),
	H(RH_MICROSOFT, ".prod.outlook.com"), H(RH_MICROSOFT, ".protection.outlook.com"),
	H(RH_MICROSOFT, ".onmicrosoft.com"), H(RH_MICROSOFT, ".exchangelabs.com"),
	H(RH_MIMECAST, ".mimecast.com"), H(RH_NTTDOCOMO, "mfsmax.docomo.ne.jp"),
	H(RH_OUTLOOK, ".hotmail.com"), H(RH_SPECTRUM, "charter.net"), H(RH_TENCENT, ".qq.com"),
	H(RH_YAHOOINC, ".yahoodns.net"), H(RH_ZOHO, ".zoho.com"), H(RH_ZOHO, ".zohomail.com"),
};
#undef H

/* Does s (n bytes) end with suffix (k bytes), ignoring ASCII case? */
static int ends_with(const char *s, size_t n, const char *suffix, size_t k)
{
	return n >= k && sd_memcaseeq(s + n - k, suffix, k);
}

/* Providers sign their replies: Google ends each with "- gsmtp", others quote
 * their own help pages. When no host names a provider (a reply pasted on its
 * own, a relay or a gateway in front of it, a host name the MTA did not log),
 * the signature in the text chooses the vocabulary. */
static const struct {
	int cls;
	const char *sig;
} rh_sigs[] = {
	{ RH_GOOGLE, "- gsmtp" }, { RH_GOOGLE, "support.google.com/" },
	{ RH_MICROSOFT, ".protection.outlook.com" }, { RH_MICROSOFT, "sender.office.com" },
	{ RH_MICROSOFT, "resolver.adr." }, { RH_MICROSOFT, "resolver.rst." }, { RH_MICROSOFT, "resolver.fwd." },
	{ RH_MICROSOFT, "storedrv." }, { RH_MICROSOFT, "smtpsend.dns.mxloopback" },
	{ RH_MICROSOFT, "approval.expired" }, { RH_MICROSOFT, "approval.invalidexpiry" },
	{ RH_MICROSOFT, "[lastattemptedservername=" }, { RH_MICROSOFT, "[message=infodomainnonexistent]" },
	{ RH_APPLE, "support.apple.com/" }, { RH_MIMECAST, "community.mimecast.com/" },
	{ RH_TENCENT, "service.mail.qq.com/" }, { RH_TENCENT, "service.exmail.qq.com/" },
	{ RH_ZOHO, "zoho.com/mail/" }, { RH_MESSAGELABS, ".messagelabs.com" },
};
#define RH_NSIGS (sizeof(rh_sigs) / sizeof(rh_sigs[0]))

/* Pieces that several signatures hold: a text without one holds none of them,
 * and they are not looked for one by one. rh_gate[i]: the piece signature i
 * holds (an index into rh_gates), 0 for none; found at the first use. */
static const char *const rh_gates[] = { NULL, ".com", "resolver." };
#define RH_NGATES (sizeof(rh_gates) / sizeof(rh_gates[0]))
static unsigned char rh_gate[RH_NSIGS];
static pthread_once_t rh_gate_once = PTHREAD_ONCE_INIT;

static void rh_gates_init(void)
{
	for (size_t i = 0; i < RH_NSIGS; i++)
		for (size_t g = 1; g < RH_NGATES && !rh_gate[i]; g++)
			if (strstr(rh_sigs[i].sig, rh_gates[g]))
				rh_gate[i] = (unsigned char)g;
}

/* Signatures of the providers whose own codes decide where the reading takes
 * them (the default; the reference decoder reads their words only): their
 * help pages, quoted in every reply. */
static const struct {
	int cls;
	const char *sig;
} rh_code_sigs[] = {
	{ RH_YAHOOINC, "postmaster.yahooinc.com" }, { RH_YAHOOINC, "senders.yahooinc.com" },
	{ RH_COMCAST, "postmaster.comcast.net" },
};

static int rh_signed(const sd_vd_in *in)
{
	int open[RH_NGATES]; /* does the text hold the piece: 1, 0, -1 not yet looked for */

	pthread_once(&rh_gate_once, rh_gates_init);
	open[0] = 1;
	for (size_t g = 1; g < RH_NGATES; g++)
		open[g] = -1;
	for (size_t i = 0; i < RH_NSIGS; i++) {
		int g = rh_gate[i];
		if (open[g] < 0)
			open[g] = has(in->lc, in->diagn, rh_gates[g]);
		if (open[g] && has(in->lc, in->diagn, rh_sigs[i].sig))
			return rh_sigs[i].cls;
	}
	for (size_t i = 0; in->provider_codes && i < sizeof(rh_code_sigs) / sizeof(rh_code_sigs[0]); i++)
		if (has(in->lc, in->diagn, rh_code_sigs[i].sig))
			return rh_code_sigs[i].cls;
	return RH_NONE;
}

static int rh_class(const sd_vd_in *in)
{
	const size_t nh = sizeof(rh_hosts) / sizeof(rh_hosts[0]);
	size_t dn = strlen(in->destination);

	for (size_t i = 0; dn && i < nh; i++)
		if (ends_with(rh_hosts[i].host, rh_hosts[i].len, in->destination, dn))
			return rh_hosts[i].cls;
	for (int pass = 0; pass < 2; pass++) {
		const char *h = pass ? in->lhost : in->rhost;
		size_t hn = strlen(h);
		for (size_t i = 0; hn && i < nh; i++)
			if (ends_with(h, hn, rh_hosts[i].host, rh_hosts[i].len))
				return rh_hosts[i].cls;
	}
	return rh_signed(in);
}

/* Does the entry's code agree with the verdict's status and reply code? */
static int code_ok(const rh_entry *e, const sd_vd_in *in)
{
	const char *st = in->status;
	char rc[4];

	if (e->reply) {
		if (!in->replycode)
			return 0;
		rc[0] = (char)('0' + in->replycode / 100 % 10); /* "%03d" of a valid code */
		rc[1] = (char)('0' + in->replycode / 10 % 10);
		rc[2] = (char)('0' + in->replycode % 10);
		rc[3] = '\0';
		if (e->cls == RH_MIMECAST ? strcmp(e->reply, rc) != 0 : !strstr(e->reply + 1, rc + 1))
			return 0;
	}
	if (!e->status)
		return 1;
	if (strlen(st) < 5)
		return 0;
	if (e->cls == RH_GOOGLE)
		return strstr(e->status + 2, st + 2) != NULL;
	if (!e->hi)
		return !strcmp(e->status, st);
	if (strncmp(st, e->status, strlen(e->status)) != 0)
		return 0;
	return rh_detail(st) >= e->lo && rh_detail(st) <= e->hi;
}

static int table_reason(int cls, const sd_vd_in *in, int *advice)
{
	for (size_t i = 0; i < sd_rh_nentries; i++) {
		const rh_entry *e = &sd_rh_entries[i];
		if (e->cls == cls && code_ok(e, in) && has(in->lc, in->diagn, e->text)) {
			*advice = e->advice ? e->advice - 1 : -1;
			return e->reason;
		}
	}
	return -1;
}

int sd_rhost_reason(const sd_vd_in *in)
{
	int advice;

	return sd_rhost_decide(in, &advice);
}

int sd_rhost_decide(const sd_vd_in *in, int *advice)
{
	int cls, r;

	*advice = -1;
	if (!in->diagn)
		return -1;
	cls = rh_class(in);
	if (cls == RH_NONE || (cls == RH_COMCAST && !in->provider_codes))
		return -1;
	if ((cls == RH_GOOGLE && (!in->replycode || !in->status[0])) ||
	    ((cls == RH_MICROSOFT) && !in->status[0]) || (cls == RH_MIMECAST && !in->replycode))
		return -1;
	r = rh_special(cls, in, 0);
	if (r >= 0 || r == RH_STOP)
		return r < 0 ? -1 : r;
	r = table_reason(cls, in, advice);
	if (r >= 0)
		return r;
	r = rh_special(cls, in, 1);
	return r < 0 ? -1 : r;
}

/* ---- rules that are not phrase lists ---- */

int rh_detail(const char *st)
{
	const char *dot = strrchr(st, '.');
	unsigned long v;

	if (!dot || !sd_parse_uint(dot + 1, strlen(dot + 1), 3, &v))
		return -1;
	return (int)v;
}

/* The token after lit in the text (up to a blank), copied to out. */
static int token_after(const sd_vd_in *in, const char *lit, char *out, size_t cap)
{
	const char *p = sd_memcasemem(in->diag, in->diagn, lit, strlen(lit)), *end = in->diag + in->diagn;
	size_t k = 0;

	if (!p)
		return 0;
	p += strlen(lit);
	while (p < end && k + 1 < cap && !sd_isspace((unsigned char)*p))
		out[k++] = *p++;
	out[k] = 0;
	return k > 0;
}

static int lookup(const char *code, const char *const *keys, const unsigned char *reasons, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcasecmp(code, keys[i]))
			return reasons[i];
	return -1;
}

/* Cox: "AUP#CXBL" and the like. */
static int cox(const sd_vd_in *in)
{
	static const char *const k[] = { "CXBL", "CXDNS", "CXSNDR", "CXSMTP", "CXCNCT", "CXMXRT", "CDRBL",
					 "CXTHRT", "CXMJ", "URLBL011", "URLBL101", "URLBL110", "URLBL1001" };
	static const unsigned char r[] = { SD_R_blocked, SD_R_requireptr, SD_R_authfailure, SD_R_rejected,
					   SD_R_ratelimited, SD_R_ratelimited, SD_R_blocked, SD_R_securityerror,
					   SD_R_securityerror, SD_R_spamdetected, SD_R_spamdetected,
					   SD_R_spamdetected, SD_R_spamdetected };
	char code[32];

	if (!token_after(in, "AUP#", code, sizeof(code)))
		return -1;
	if (!strncasecmp(code, "IPBL", 4))
		return SD_R_blocked;
	return lookup(code, k, r, sizeof(k) / sizeof(k[0]));
}

/* Orange / La Poste: "OFR_416", "LPN007_426", "OUK_513". */
static int franceptt(const sd_vd_in *in)
{
	static const char *const k[] = { "101", "102", "103", "104", "305", "401", "402", "403", "405",
					 "415", "416", "417", "420", "421", "426", "505", "506", "510",
					 "514", "517", "630", "999" };
	static const unsigned char r[] = { SD_R_blocked, SD_R_blocked, SD_R_blocked, SD_R_ratelimited,
		SD_R_securityerror, SD_R_authfailure, SD_R_securityerror, SD_R_rejected, SD_R_rejected,
		SD_R_rejected, SD_R_userunknown, SD_R_mailboxfull, SD_R_suspend, SD_R_rejected, SD_R_suspend,
		SD_R_systemerror, SD_R_spamdetected, SD_R_blocked, SD_R_emailtoolarge, SD_R_authfailure,
		SD_R_policyviolation, SD_R_blocked };
	static const char *const labels[] = { "lpn", "ofr", "ouk" };
	const char *best = NULL, *q, *end = in->diag + in->diagn, *e;

	for (size_t i = 0; i < 3 && !best; i++)
		for (q = in->diag; (q = sd_memcasemem(q, (size_t)(end - q), labels[i], 3)) != NULL; q += 3)
			best = q;
	if (!best)
		return -1;
	for (e = best; e < end && !sd_isspace((unsigned char)*e); e++)
		;
	if (e - best < 6)
		return -1;
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (!memcmp(e - 3, k[i], 3))
			return r[i];
	return -1;
}

/* GoDaddy: " IB401" and the like. */
static int godaddy(const sd_vd_in *in)
{
	static const char *const k[] = { "IB401", "IB501", "IB502", "IB506", "IB508", "IB108", "IB212",
					 "IB705", "IB605", "IB007", "IB101", "IB110", "IB111", "IB112",
					 "IB113", "IB504", "IB510", "IB607", "IB103", "IB104", "IB105", "IB106" };
	static const unsigned char r[] = { SD_R_securityerror, SD_R_notcompliantrfc, SD_R_notcompliantrfc,
		SD_R_rejected, SD_R_authfailure, SD_R_requireptr, SD_R_spamdetected, SD_R_virusdetected,
		SD_R_ratelimited, SD_R_ratelimited, SD_R_ratelimited, SD_R_blocked, SD_R_blocked, SD_R_blocked,
		SD_R_blocked, SD_R_ratelimited, SD_R_ratelimited, SD_R_ratelimited, SD_R_badreputation,
		SD_R_blocked, SD_R_blocked, SD_R_blocked };
	char code[16] = "IB";

	if (!token_after(in, " IB", code + 2, sizeof(code) - 2))
		return -1;
	return lookup(code, k, r, sizeof(k) / sizeof(k[0]));
}

/* i.ua: "http://mail.i.ua/err/3/". */
static int iua(const sd_vd_in *in)
{
	static const unsigned char r[] = { 0, SD_R_norelaying, SD_R_userunknown, SD_R_suspend,
					   SD_R_mailboxfull, SD_R_ratelimited, SD_R_norelaying, SD_R_blocked,
					   SD_R_rejected, SD_R_blocked, SD_R_filtered };
	const char *p = sd_memcasemem(in->diag, in->diagn, ".i.ua/err/", 10);
	unsigned long v;
	size_t k;

	if (!p)
		return RH_STOP;
	p += 10;
	k = sd_parse_uint(p, (size_t)(in->diag + in->diagn - p), 2, &v);
	if (!k || v < 1 || v > 10 || p + k >= in->diag + in->diagn || p[k] != '/')
		return RH_STOP;
	return r[v];
}

/* Spectrum: "AUP#I1000" ... four digits. */
static int spectrum(const sd_vd_in *in)
{
	static const struct {
		int lo, hi, reason;
	} t[] = { { 1000, 1000, SD_R_blocked }, { 1010, 1010, SD_R_rejected }, { 1020, 1080, SD_R_rejected },
		  { 1090, 1090, SD_R_systemerror }, { 1100, 1150, SD_R_requireptr },
		  { 1160, 1190, SD_R_policyviolation }, { 1200, 1210, SD_R_blocked },
		  { 1260, 1260, SD_R_networkerror }, { 1300, 1340, SD_R_ratelimited },
		  { 1350, 1490, SD_R_ratelimited }, { 1500, 1500, SD_R_rejected }, { 1520, 1520, SD_R_rejected },
		  { 1530, 1530, SD_R_emailtoolarge }, { 1540, 1550, SD_R_ratelimited },
		  { 1560, 1560, SD_R_policyviolation }, { 1580, 1580, SD_R_ratelimited } };
	const char *p = sd_memcasemem(in->diag, in->diagn, "AUP#", 4), *end = in->diag + in->diagn;
	int code = 0, nd = 0;

	if (!p)
		return RH_STOP;
	for (p += 4; p < end && nd < 4; p++) {
		if (sd_isdigit((unsigned char)*p)) {
			code = code * 10 + (*p - '0');
			nd++;
		} else {
			code = nd = 0;
		}
	}
	if (nd != 4)
		return RH_STOP;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (code >= t[i].lo && code <= t[i].hi)
			return t[i].reason;
	return RH_STOP;
}

/* NTT docomo decides by the status and the SMTP command. */
static int docomo(const sd_vd_in *in, int after)
{
	if (!after) {
		if (!strcmp(in->status, "5.1.1"))
			return SD_R_userunknown;
		if (!strcmp(in->status, "5.2.0"))
			return SD_R_filtered;
		return -1;
	}
	if (strcmp(in->status, "5.0.0") != 0)
		return RH_STOP;
	if (!strcmp(in->command, "RCPT"))
		return SD_R_userunknown;
	if (!strcmp(in->command, "DATA"))
		return SD_R_rejected;
	return RH_STOP;
}

/* The code of n bytes at p is a whole token: no letter or digit around it. */
static int whole_token(const char *start, const char *end, const char *p, size_t n)
{
	return (p == start || !sd_isalnum((unsigned char)p[-1])) &&
	       (p + n == end || !sd_isalnum((unsigned char)p[n]));
}

/* Yahoo Inc.'s bracketed codes (Sender Hub, "SMTP error codes"): [TS01] ...
 * [TSS11] defer mail for the sending IP's or domain's complaints, volume or
 * unverified standing, [TS03] and [TSS09] defer it for good, [TSS11] after
 * many unknown recipients, [BLnn] for a Spamhaus listing. The code says why,
 * whatever phrase follows it. */
static int yahoo_codes(const sd_vd_in *in)
{
	static const struct {
		const char *code;
		int reason;
	} t[] = { { "[ts01]", SD_R_badreputation }, { "[ts02]", SD_R_badreputation },
		  { "[tss01]", SD_R_badreputation }, { "[tss02]", SD_R_badreputation },
		  { "[tss04]", SD_R_badreputation }, { "[tss05]", SD_R_badreputation },
		  { "[tss07]", SD_R_badreputation }, { "[ts03]", SD_R_blocked },
		  { "[ts06]", SD_R_blocked }, { "[tss09]", SD_R_blocked }, { "[tss11]", SD_R_blocked } };
	const char *p;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (has(in->lc, in->diagn, t[i].code))
			return t[i].reason;
	p = sd_memmem(in->lc, in->diagn, "[bl", 3);
	if (p && p + 5 < in->lc + in->diagn && sd_isdigit((unsigned char)p[3]) && sd_isdigit((unsigned char)p[4]) &&
	    p[5] == ']')
		return SD_R_blocked;
	return -1;
}

/* Comcast's postmaster codes (its "mail error codes" page): BL... the
 * sending IP is on a block list or sent like a spammer, ES... it is in
 * dynamic or residential space, RL... it is rate limited. The code names
 * the cause, whatever words the reply puts beside it. */
static int comcast(const sd_vd_in *in)
{
	static const struct {
		const char *prefix;
		int reason;
	} t[] = { { "bl0", SD_R_blocked }, { "es0", SD_R_blocked }, { "rl0", SD_R_ratelimited } };
	const char *start = in->lc, *end = in->lc + in->diagn;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		for (const char *p = start; (p = sd_memmem(p, (size_t)(end - p), t[i].prefix, 3)) != NULL; p += 3) {
			size_t n = 3;
			while (p + n < end && sd_isdigit((unsigned char)p[n]))
				n++;
			if (n >= 5 && whole_token(start, end, p, n))
				return t[i].reason;
		}
	return -1;
}

/* Google Workspace's delivery notices. */
static int gsuite(const sd_vd_in *in)
{
	int sc = in->status[0], rc = in->replycode ? '0' + in->replycode / 100 : 0;

	if (has(in->lc, in->diagn, "null mx"))
		return SD_R_notaccept;
	if (has(in->lc, in->diagn, "because the address couldn't be found. check for typos or unnecessary spaces and try again."))
		return SD_R_userunknown;
	if (has(in->lc, in->diagn, "responded with code nxdomain") || has(in->lc, in->diagn, "domain name not found")) {
		if (sc == '5' && rc == '5')
			return SD_R_hostunknown;
		if (sc != '5' && rc != '5')
			return SD_R_networkerror;
	}
	if (has(in->lc, in->diagn, " had no relevant answers.") && sc != '5' && rc != '5')
		return SD_R_networkerror;
	return RH_STOP;
}

/* Outlook.com's postmaster codes (after the status table). */
static int microsoft_codes(const sd_vd_in *in)
{
	static const struct {
		const char *code;
		int reply, reason;
	} t[] = { { "RP-001", 421, SD_R_badreputation }, { "RP-002", 421, SD_R_badreputation },
		  { "RP-003", 421, SD_R_badreputation }, { "SC-001", 550, SD_R_badreputation },
		  { "SC-002", 550, SD_R_policyviolation }, { "SC-003", 550, SD_R_blocked },
		  { "SC-004", 550, SD_R_blocked }, { "DY-001", 550, SD_R_blocked },
		  { "DY-002", 550, SD_R_virusdetected }, { "OU-001", 550, SD_R_blocked },
		  { "OU-002", 550, SD_R_badreputation } };

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (sd_memmem(in->diag, in->diagn, t[i].code, 6) && in->replycode == t[i].reply)
			return t[i].reason;
	return RH_STOP;
}

int rh_special(int cls, const sd_vd_in *in, int after)
{
	switch (cls) {
	case RH_COMCAST: return after ? RH_STOP : comcast(in);
	case RH_YAHOOINC: return after ? RH_STOP : in->provider_codes ? yahoo_codes(in) : -1;
	case RH_COX: return after ? RH_STOP : cox(in);
	case RH_FRANCEPTT: return after ? RH_STOP : franceptt(in);
	case RH_GODADDY: return after ? RH_STOP : godaddy(in);
	case RH_IUA: return iua(in);
	case RH_SPECTRUM: return spectrum(in);
	case RH_NTTDOCOMO: return docomo(in, after);
	case RH_GSUITE: return gsuite(in);
	case RH_MICROSOFT: return after ? microsoft_codes(in) : -1;
	default: return after ? RH_STOP : -1;
	}
}
