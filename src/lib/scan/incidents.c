/* incidents.c - failure records grouped into incidents (smtpdiag_incidents,
 * `scan --incidents`), and deferrals and bounces per destination domain and hour.
 *
 * The verdict of each record (its reason, status and who acts) says what kind of
 * incident it belongs to; this file only groups and names: the sending address
 * a reply quotes, the destination provider of the relay (one table below), the
 * MX, the sender's domain, and the block list the text names (blocklist.c).
 * Tables are open addressing with bounded sizes (SMTPDIAG_INCIDENTS_* in
 * smtpdiag.h); what does not fit is counted. docs/incidents.md describes it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "smtpdiag.h"
#include "core/util.h"
#include "scan/blocklist.h"
#include "verdict/verdict.h"

#define INC_FIRST_SLOTS 64
#define INC_NAME_MAX 256    /* bytes of an address, host, MX or domain key */
#define INC_HOUR 3600

enum { K_BLOCKLIST, K_RATELIMIT, K_DEFERRING, K_TLS, K_DNS, K_NETWORK, K_AUTH, K_BROKENCHECK, K_NKINDS };
enum { A_DEFERRED, A_BOUNCED, A_EXPIRED, A_REJECTED, A_N };

static const char *const kind_name[K_NKINDS] = {
	"blocklist", "ratelimit", "deferring", "tls", "dns", "network", "auth", "brokencheck"
};
static const char *const action_name[A_N] = { "deferred", "bounced", "expired", "rejected" };

/* What to do, by kind; a named list adds its own sentence (list_advice). */
static const char *const kind_advice[K_NKINDS] = {
	"The receiver refuses or defers mail from this sending address for its reputation or a block "
	"list: stop the cause (a compromised account, a bad list, a volume spike), then look the address "
	"up at the list named and ask for removal there; until then retries get the same answer.",
	"The provider throttles this sender: lower the connection and message rate to it (per-destination "
	"concurrency and rate limits), keep the mail queued and let the MTA retry with backoff.",
	"The provider defers mail for a reason of its own side: keep the mail queued and retry; if it "
	"lasts past a day, check the provider's status page or postmaster contact.",
	"TLS with this MX fails: check its certificate and the TLS policy for the destination (required "
	"TLS, DANE or MTA-STS), and the MTA's own TLS set-up; mail stays queued while it fails.",
	"DNS lookups for this destination fail: check the MTA's resolver (is it reachable, does it answer "
	"SERVFAIL), then the destination's MX and address records; mail stays queued while it fails.",
	"Connections to this MX fail or break off: check the route and the outbound port 25 from the "
	"sending host (firewall, provider blocking), then whether the MX is up; mail stays queued.",
	"The receiver's SPF, DKIM or DMARC checks fail for this sending domain: check that the SPF record "
	"names every sending address, that mail is DKIM-signed with a published key, and that the "
	"DMARC policy aligns with the From domain; then resend.",
	"A DNS block list answers the check with an error, not a listing (query through a public or "
	"open resolver, too many queries, or a misspelt zone): the checking server's own set-up is at "
	"fault. Query the list through a resolver of your own (a local recursive resolver) or the "
	"list's paid access, and treat its error answers as no listing.",
};

/* An incident's strings: its subject keys (as in subject), then the verdict and
 * reply of its earliest record. */
enum { F_IP, F_HOST, F_PROVIDER, F_LIST, F_MX, F_DOMAIN, F_REASON, F_FIXER, F_SAMPLE, F_REPLYCODE, F_STATUS, F_N };

typedef struct inc {
	char *key;                /* kind and subject, 0x1f between */
	int kind;
	char *f[F_N];             /* the subject keys, then what is written of the first record */
	const char *qerr;         /* static: the list's query error, brokencheck */
	int64_t first, last;
	unsigned long count, by[A_N];
	uint64_t *rcpt;           /* a set of recipient hashes (0: empty slot) */
	size_t nrcpt, caprcpt;
	int rcpt_capped;          /* more recipients than SMTPDIAG_INCIDENT_MAX_RECIPIENTS */
} inc;

typedef struct dom {
	char *name;
	unsigned long total;
} dom;

typedef struct cell {
	size_t dom;               /* index into domains + 1; 0: empty slot; ndom_max + 1: other */
	int64_t hour;
	unsigned long by[3];      /* deferred, bounced, expired */
} cell;

struct smtpdiag_incidents {
	inc *incs;                /* open addressing on key */
	size_t ninc, capinc;
	dom *doms;                /* open addressing on name */
	size_t ndom, capdom;
	cell *cells;              /* open addressing on (dom, hour) */
	size_t ncell, capcell;
	unsigned long records, grouped, ungrouped, dropped, cells_dropped, other_domain;
};

static uint64_t hash_bytes(uint64_t h, const char *s)
{
	return sd_fnv1a(h, s, strlen(s));
}

static uint64_t hash(const char *s)
{
	return hash_bytes(SD_FNV1A_BASIS, s);
}

static int full(size_t n, size_t cap)
{
	return cap == 0 || (n + 1) * 10 >= cap * 7;
}

static const char *nz(const char *s)
{
	return s ? s : "";
}

/* ---- the names a record is grouped by ---- */

/* The host of a relay as logged: "mx.example.com[192.0.2.5]:25" (Postfix),
 * "mx.example.com [192.0.2.5]" (Exim) -> the name, lowercased; "" for "none",
 * "local" and the like. */
static void relay_host(const char *relay, char *out)
{
	size_t n = strcspn(relay, " [:");

	out[0] = 0;
	if (!n || n >= INC_NAME_MAX || !strchr(relay, '.') || !strncmp(relay, "none", 4))
		return;
	for (size_t i = 0; i < n; i++)
		out[i] = (char)sd_tolower((unsigned char)relay[i]);
	out[n] = 0;
}

/* The host a text names where the record has no relay (Postfix's "connect to
 * H[ip]:25: ...", "name=H type=MX", Exim's "H=H [ip]"). */
static void text_host(const char *t, char *out)
{
	static const char *const lead[] = { "connect to ", "name=", "H=", "host " };

	out[0] = 0;
	for (size_t k = 0; k < sizeof(lead) / sizeof(lead[0]); k++) {
		const char *p = strstr(t, lead[k]);
		size_t n;
		if (!p)
			continue;
		p += strlen(lead[k]);
		n = strcspn(p, "[]: ,;()");
		if (n && n < INC_NAME_MAX && memchr(p, '.', n)) {
			for (size_t i = 0; i < n; i++)
				out[i] = (char)sd_tolower((unsigned char)p[i]);
			out[n] = 0;
			return;
		}
	}
}

/* The domain of an address, lowercased ("" when it has none). */
static void addr_domain(const char *a, char *out)
{
	const char *at = strrchr(a, '@');
	size_t n;

	out[0] = 0;
	if (!at)
		return;
	n = strcspn(at + 1, ">] ,;");
	if (!n || n >= INC_NAME_MAX)
		return;
	for (size_t i = 0; i < n; i++)
		out[i] = (char)sd_tolower((unsigned char)at[1 + i]);
	out[n] = 0;
}

typedef struct prov_row {
	const char *suffix, *name;
} prov_row;

/* Destination providers by the relay's (MX) name, then by the recipient's
 * domain when there is no relay: a name equal to the suffix or ending in
 * "." and it. docs/incidents.md lists the table. */
static const prov_row mx_providers[] = {
	{ "google.com", "Google" },          { "googlemail.com", "Google" },
	{ "outlook.com", "Microsoft" },      { "hotmail.com", "Microsoft" },
	{ "yahoodns.net", "Yahoo" },         { "icloud.com", "Apple" },
	{ "pphosted.com", "Proofpoint" },    { "ppe-hosted.com", "Proofpoint" },
	{ "mimecast.com", "Mimecast" },      { "messagelabs.com", "Broadcom" },
	{ "iphmx.com", "Cisco" },            { "barracudanetworks.com", "Barracuda" },
	{ "zoho.com", "Zoho" },              { "zoho.eu", "Zoho" },
	{ "yandex.net", "Yandex" },          { "mail.ru", "Mail.ru" },
	{ "gmx.net", "GMX" },                { "web.de", "WEB.DE" },
	{ "comcast.net", "Comcast" },        { "secureserver.net", "GoDaddy" },
	{ "protonmail.ch", "Proton" },       { "messagingengine.com", "Fastmail" },
	{ "orange.fr", "Orange" },           { "t-online.de", "T-Online" },
	{ "qq.com", "Tencent" },             { "163.com", "NetEase" },
};

static const prov_row domain_providers[] = {
	{ "gmail.com", "Google" },    { "googlemail.com", "Google" }, { "outlook.com", "Microsoft" },
	{ "hotmail.com", "Microsoft" }, { "live.com", "Microsoft" }, { "msn.com", "Microsoft" },
	{ "yahoo.com", "Yahoo" },     { "aol.com", "Yahoo" },       { "ymail.com", "Yahoo" },
	{ "icloud.com", "Apple" },    { "me.com", "Apple" },        { "mac.com", "Apple" },
};

static const char *table_provider(const char *host, const prov_row *t, size_t k)
{
	size_t hn = strlen(host);

	for (size_t i = 0; i < k; i++) {
		size_t sn = strlen(t[i].suffix);
		if (hn >= sn && !strcmp(host + hn - sn, t[i].suffix) && (hn == sn || host[hn - sn - 1] == '.'))
			return t[i].name;
	}
	return NULL;
}

/* The provider: the table's name, else the host's last two labels (three
 * under a two-letter country code whose second label is short: "co.uk"). */
static void provider_of(const char *mx, const char *rdomain, char *out)
{
	const char *name = mx[0] ? table_provider(mx, mx_providers, sizeof(mx_providers) / sizeof(mx_providers[0]))
				 : NULL;
	const char *h = mx[0] ? mx : rdomain, *p;
	int labels = 2;
	size_t n;

	if (!name && !mx[0])
		name = table_provider(rdomain, domain_providers, sizeof(domain_providers) / sizeof(domain_providers[0]));
	if (name) {
		snprintf(out, INC_NAME_MAX, "%s", name);
		return;
	}
	n = strlen(h);
	if (n > 3 && h[n - 3] == '.') {
		const char *dot = h + n - 3;
		const char *prev = dot;
		while (prev > h && prev[-1] != '.')
			prev--;
		if (dot - prev <= 3)
			labels = 3;
	}
	for (p = h + n; p > h; p--)
		if (p[-1] == '.' && --labels == 0)
			break;
	snprintf(out, INC_NAME_MAX, "%s", p);
}

static int ipv4_at(const char *p, size_t *len)
{
	size_t i = 0;

	for (int part = 0; part < 4; part++) {
		size_t d = 0;
		while (sd_isdigit((unsigned char)p[i]) && d < 4)
			i++, d++;
		if (d == 0 || d > 3)
			return 0;
		if (part < 3) {
			if (p[i] != '.')
				return 0;
			i++;
		}
	}
	if (sd_isdigit((unsigned char)p[i]) || (p[i] == '.' && sd_isdigit((unsigned char)p[i + 1])))
		return 0;
	*len = i;
	return 1;
}

/* A bracketed IPv6 address "[2001:db8::1]" at p (after the bracket). */
static int ipv6_at(const char *p, size_t *len)
{
	size_t i = 0, colons = 0;

	while ((sd_isdigit((unsigned char)p[i]) || (sd_tolower((unsigned char)p[i]) >= 'a' &&
						     sd_tolower((unsigned char)p[i]) <= 'f') || p[i] == ':') && i < 45)
		colons += p[i++] == ':';
	if (colons < 2 || (p[i] != ']' && p[i] != ' '))
		return 0;
	*len = i;
	return 1;
}

/* The sending address a reply quotes: the first IPv4 address (or bracketed
 * IPv6) in the text that is not the relay's own and not in 127/8 (a list's
 * answer). */
static void text_ip(const char *t, const char *relay, char *out)
{
	const char *rb = strchr(relay, '[');
	size_t rn = rb ? strcspn(rb + 1, "]") : 0;

	out[0] = 0;
	for (const char *p = t; *p; p++) {
		size_t n;
		if (p > t && (sd_isalnum((unsigned char)p[-1]) || p[-1] == '.'))
			continue;
		if (!(ipv4_at(p, &n) || (p > t && p[-1] == '[' && ipv6_at(p, &n))))
			continue;
		if (n >= INC_NAME_MAX || !strncmp(p, "127.", 4) || (rb && rn == n && !strncmp(p, rb + 1, n))) {
			p += n - 1;
			continue;
		}
		memcpy(out, p, n);
		out[n] = 0;
		return;
	}
}

/* The sending domain of an authentication failure: the sender's, else the one
 * the reply names after "email from", "domain of", "sender" (Gmail's DMARC
 * refusal, SPF's "domain of X does not designate"). */
static void auth_domain(const smtpdiag_logrec *r, char *out)
{
	static const char *const lead[] = { "email from ", "domain of ", "sender ", "from domain ", "header.from=" };
	char lc[1024];
	size_t n = strlen(r->diagnosticcode);

	addr_domain(r->sender, out);
	if (out[0])
		return;
	if (n >= sizeof(lc))
		n = sizeof(lc) - 1;
	for (size_t i = 0; i < n; i++)
		lc[i] = (char)sd_tolower((unsigned char)r->diagnosticcode[i]);
	lc[n] = 0;
	for (size_t k = 0; k < sizeof(lead) / sizeof(lead[0]); k++) {
		const char *p = strstr(lc, lead[k]);
		size_t m;
		if (!p)
			continue;
		p += strlen(lead[k]);
		p += *p == '<';
		m = strcspn(p, " >,;()[]");
		while (m && p[m - 1] == '.')
			m--;
		if (m && m < INC_NAME_MAX && memchr(p, '.', m)) {
			const char *at = memchr(p, '@', m);
			if (at) {
				m -= (size_t)(at + 1 - p);
				p = at + 1;
			}
			memcpy(out, p, m);
			out[m] = 0;
			return;
		}
	}
}

static int has_fixer(const smtpdiag_logrec *r, const char *who)
{
	for (const char *const *f = r->fixer; f && *f; f++)
		if (!strcmp(*f, who))
			return 1;
	return 0;
}

/* The status's subject and detail: "4.4.3" -> 4, 3. */
static int status_is(const char *st, int subject, int detail)
{
	return st[0] && st[1] == '.' && st[2] == '0' + subject && st[3] == '.' &&
	       atoi(st + 4) == detail;
}

static int action_of(const char *a)
{
	for (int i = 0; i < A_N; i++)
		if (!strcmp(a, action_name[i]))
			return i;
	return -1;
}

/* The kind of incident the verdict makes of a record, or -1. */
static int kind_of(const smtpdiag_logrec *r, int act, const char **qerr)
{
	const char *rs = r->reason, *st = r->status;
	size_t tn = strlen(r->diagnosticcode);

	*qerr = NULL;
	if (!strcmp(rs, "systemerror") && (*qerr = sd_blocklist_query_error(r->diagnosticcode, tn)) != NULL)
		return K_BROKENCHECK;
	if (act == A_REJECTED)
		return -1; /* the server's own refusals: only its broken checks are incidents */
	if (!strcmp(rs, "blocked") || !strcmp(rs, "badreputation"))
		return K_BLOCKLIST;
	if (!strcmp(rs, "ratelimited"))
		return K_RATELIMIT;
	if (!strcmp(rs, "failedstarttls"))
		return K_TLS;
	if (!strcmp(rs, "authfailure"))
		return K_AUTH;
	if ((!strcmp(rs, "networkerror") || !strcmp(rs, "hostunknown") || !strcmp(rs, "systemerror")) &&
	    st[0] == '4' && (status_is(st, 4, 3) || (status_is(st, 4, 4) && !strcmp(rs, "hostunknown"))))
		return K_DNS;
	if (!strcmp(rs, "networkerror") && sd_vd_dns_failure(r->diagnosticcode, tn))
		return K_DNS;
	if (!strcmp(rs, "networkerror"))
		return K_NETWORK;
	if (act != A_BOUNCED && has_fixer(r, "recipient-admin") && strcmp(rs, "mailboxfull") != 0)
		return K_DEFERRING;
	return -1;
}

/* ---- incidents ---- */

/* The slot of key in a table of cap slots of size bytes each, whose first
 * member is the key (NULL: an empty slot): inc and dom. */
static size_t key_find(const void *t, size_t size, size_t cap, const char *key)
{
	size_t i = (size_t)hash(key) & (cap - 1);
	const char *const *k;

	while (*(k = (const char *const *)(const void *)((const char *)t + i * size)) && strcmp(*k, key))
		i = (i + 1) & (cap - 1);
	return i;
}

static size_t inc_find(const inc *t, size_t cap, const char *key)
{
	return key_find(t, sizeof(*t), cap, key);
}

static int inc_grow(smtpdiag_incidents *g)
{
	size_t cap = g->capinc ? g->capinc * 2 : INC_FIRST_SLOTS;
	inc *t = calloc(cap, sizeof(inc));

	if (!t)
		return -1;
	for (size_t i = 0; i < g->capinc; i++)
		if (g->incs[i].key)
			t[inc_find(t, cap, g->incs[i].key)] = g->incs[i];
	free(g->incs);
	g->incs = t;
	g->capinc = cap;
	return 0;
}

static void inc_clear(inc *e)
{
	free(e->key);
	for (int k = 0; k < F_N; k++)
		free(e->f[k]);
	free(e->rcpt);
	memset(e, 0, sizeof(*e));
}

/* Add a recipient's hash to the incident's set (h != 0). */
static void rcpt_add(inc *e, uint64_t h)
{
	size_t i;

	if (e->nrcpt >= SMTPDIAG_INCIDENT_MAX_RECIPIENTS) {
		if (!e->rcpt_capped) {
			size_t j = (size_t)h & (e->caprcpt - 1);
			while (e->rcpt[j] && e->rcpt[j] != h)
				j = (j + 1) & (e->caprcpt - 1);
			e->rcpt_capped = !e->rcpt[j];
		}
		return;
	}
	if (full(e->nrcpt, e->caprcpt)) {
		size_t cap = e->caprcpt ? e->caprcpt * 2 : 16;
		uint64_t *t = calloc(cap, sizeof(uint64_t));
		if (!t) {
			e->rcpt_capped = 1;
			return;
		}
		for (size_t k = 0; k < e->caprcpt; k++) {
			if (!e->rcpt[k])
				continue;
			i = (size_t)e->rcpt[k] & (cap - 1);
			while (t[i])
				i = (i + 1) & (cap - 1);
			t[i] = e->rcpt[k];
		}
		free(e->rcpt);
		e->rcpt = t;
		e->caprcpt = cap;
	}
	i = (size_t)h & (e->caprcpt - 1);
	while (e->rcpt[i] && e->rcpt[i] != h)
		i = (i + 1) & (e->caprcpt - 1);
	if (!e->rcpt[i]) {
		e->rcpt[i] = h;
		e->nrcpt++;
	}
}

static void join_fixer(const smtpdiag_logrec *r, char *out, size_t cap)
{
	size_t n = 0;

	out[0] = 0;
	for (const char *const *f = r->fixer; f && *f; f++)
		n += (size_t)snprintf(out + (n < cap ? n : cap - 1), n < cap ? cap - n : 1, "%s%s", n ? "," : "", *f);
}

typedef struct subject {
	char ip[INC_NAME_MAX], host[INC_NAME_MAX], provider[INC_NAME_MAX], list[INC_NAME_MAX];
	char mx[INC_NAME_MAX], domain[INC_NAME_MAX];
} subject;

/* The subject keys of a record of kind k. */
static void subject_of(const smtpdiag_logrec *r, int k, subject *s)
{
	char rdomain[INC_NAME_MAX];
	/* only the kinds that name a list look for one */
	const char *list = k == K_BLOCKLIST || k == K_RATELIMIT || k == K_BROKENCHECK
				   ? sd_blocklist_name(r->diagnosticcode, strlen(r->diagnosticcode))
				   : NULL;

	memset(s, 0, sizeof(*s));
	addr_domain(r->recipient, rdomain);
	relay_host(r->relay, s->mx);
	if (!s->mx[0])
		text_host(r->diagnosticcode, s->mx);
	provider_of(s->mx, rdomain, s->provider);
	snprintf(s->host, sizeof(s->host), "%s", r->host);
	switch (k) {
	case K_BLOCKLIST:
	case K_RATELIMIT:
		text_ip(r->diagnosticcode, r->relay, s->ip);
		snprintf(s->list, sizeof(s->list), "%s", list ? list : "");
		s->mx[0] = 0;
		break;
	case K_DEFERRING:
		s->mx[0] = 0;
		break;
	case K_TLS:
	case K_DNS:
	case K_NETWORK:
		if (!s->mx[0])
			snprintf(s->mx, sizeof(s->mx), "%s", rdomain);
		break;
	case K_AUTH:
		auth_domain(r, s->domain);
		s->mx[0] = 0;
		break;
	case K_BROKENCHECK:
		snprintf(s->list, sizeof(s->list), "%s", list ? list : "");
		s->mx[0] = 0;
		if (!strcmp(r->action, "rejected"))
			s->provider[0] = 0; /* the server's own check: its host is the subject */
		break;
	}
}

static void make_key(int k, const subject *s, char *key, size_t cap)
{
	/* every incident is one host's (its own queue); blocklist and ratelimit
	 * are the sending address's when the reply quotes it */
	const char *who = s->ip;

	snprintf(key, cap, "%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s", kind_name[k], s->host,
		 (k == K_BLOCKLIST || k == K_RATELIMIT) ? who : "", s->provider, s->list, s->mx, s->domain);
}

/* A new incident of key with the strings v (F_N of them, copied). */
static int inc_fill(inc *e, const char *key, int k, const char *const v[F_N], const char *qerr, int64_t t)
{
	int ok;

	e->key = strdup(key);
	e->kind = k;
	ok = e->key != NULL;
	for (int i = 0; i < F_N; i++)
		ok &= (e->f[i] = i == F_SAMPLE ? strndup(nz(v[i]), SMTPDIAG_INCIDENT_SAMPLE_MAX) : strdup(nz(v[i]))) != NULL;
	e->qerr = qerr;
	e->first = e->last = t;
	if (!ok) {
		inc_clear(e);
		return -1;
	}
	return 0;
}

/* The incident of key, made of (k, v, qerr, t) when new; NULL when the table
 * is full or memory ran out. */
static inc *inc_get(smtpdiag_incidents *g, const char *key, int k, const char *const v[F_N], const char *qerr,
		    int64_t t, int *oom)
{
	size_t i;

	*oom = 0;
	if (full(g->ninc, g->capinc) && g->ninc < SMTPDIAG_INCIDENTS_MAX && inc_grow(g) < 0) {
		*oom = 1;
		return NULL;
	}
	if (!g->capinc)
		return NULL;
	i = inc_find(g->incs, g->capinc, key);
	if (g->incs[i].key)
		return &g->incs[i];
	if (g->ninc >= SMTPDIAG_INCIDENTS_MAX)
		return NULL;
	if (inc_fill(&g->incs[i], key, k, v, qerr, t) < 0) {
		*oom = 1;
		return NULL;
	}
	g->ninc++;
	return &g->incs[i];
}

/* The sample is the earliest record's reply (kept as it was when memory ran out). */
static void inc_sample(inc *e, const char *text, const char *replycode, const char *status)
{
	char *smp = strndup(text, SMTPDIAG_INCIDENT_SAMPLE_MAX), *rc = strdup(nz(replycode)), *st = strdup(nz(status));

	if (smp && rc && st) {
		free(e->f[F_SAMPLE]);
		free(e->f[F_REPLYCODE]);
		free(e->f[F_STATUS]);
		e->f[F_SAMPLE] = smp, e->f[F_REPLYCODE] = rc, e->f[F_STATUS] = st;
		return;
	}
	free(smp);
	free(rc);
	free(st);
}

static void inc_time(inc *e, int64_t t)
{
	if (!t)
		return;
	if (!e->first || t < e->first)
		e->first = t;
	if (t > e->last)
		e->last = t;
}

/* ---- domains by hour ---- */

static size_t dom_find(const dom *t, size_t cap, const char *name)
{
	return key_find(t, sizeof(*t), cap, name);
}

static int dom_grow(smtpdiag_incidents *g)
{
	size_t cap = g->capdom ? g->capdom * 2 : INC_FIRST_SLOTS;
	dom *t = calloc(cap, sizeof(dom));
	size_t *map;

	if (!t)
		return -1;
	/* cells name a domain by its slot: renumber them */
	map = calloc(g->capdom + 1, sizeof(size_t));
	if (!map) {
		free(t);
		return -1;
	}
	for (size_t i = 0; i < g->capdom; i++)
		if (g->doms[i].name) {
			size_t j = dom_find(t, cap, g->doms[i].name);
			t[j] = g->doms[i];
			map[i] = j;
		}
	for (size_t i = 0; i < g->capcell; i++)
		if (g->cells[i].dom && g->cells[i].dom <= g->capdom)
			g->cells[i].dom = map[g->cells[i].dom - 1] + 1;
	free(map);
	free(g->doms);
	g->doms = t;
	g->capdom = cap;
	return 0;
}

/* The slot + 1 of a domain, or 0 when it is not kept ("other"). */
static size_t dom_get(smtpdiag_incidents *g, const char *name)
{
	size_t i;

	if (full(g->ndom, g->capdom) && g->ndom < SMTPDIAG_INCIDENTS_MAX_DOMAINS && dom_grow(g) < 0)
		return 0;
	if (!g->capdom)
		return 0;
	i = dom_find(g->doms, g->capdom, name);
	if (g->doms[i].name)
		return i + 1;
	if (g->ndom >= SMTPDIAG_INCIDENTS_MAX_DOMAINS || !(g->doms[i].name = strdup(name)))
		return 0;
	g->ndom++;
	return i + 1;
}

#define CELL_OTHER ((size_t)-1) /* the cell of the domains past the limit */

static uint64_t cell_hash(const char *dname, int64_t hour)
{
	return hash_bytes(hash(dname), "") ^ ((uint64_t)hour * 0x9e3779b97f4a7c15ull);
}

static const char *cell_dname(const smtpdiag_incidents *g, size_t d)
{
	return d && d <= g->capdom ? g->doms[d - 1].name : "other";
}

static size_t cell_find(const smtpdiag_incidents *g, const cell *t, size_t cap, size_t d, int64_t hour)
{
	size_t i = (size_t)cell_hash(cell_dname(g, d), hour) & (cap - 1);

	while (t[i].dom && !(t[i].dom == d && t[i].hour == hour))
		i = (i + 1) & (cap - 1);
	return i;
}

static int cell_grow(smtpdiag_incidents *g)
{
	size_t cap = g->capcell ? g->capcell * 2 : INC_FIRST_SLOTS;
	cell *t = calloc(cap, sizeof(cell));

	if (!t)
		return -1;
	for (size_t i = 0; i < g->capcell; i++)
		if (g->cells[i].dom)
			t[cell_find(g, t, cap, g->cells[i].dom, g->cells[i].hour)] = g->cells[i];
	free(g->cells);
	g->cells = t;
	g->capcell = cap;
	return 0;
}

/* Count by in the cell of (domain slot + 1 or CELL_OTHER, hour). */
static void cell_put(smtpdiag_incidents *g, size_t d, int64_t hour, const unsigned long by[3])
{
	unsigned long n = by[0] + by[1] + by[2];
	size_t i;

	if (full(g->ncell, g->capcell) && g->ncell < SMTPDIAG_INCIDENTS_MAX_CELLS && cell_grow(g) < 0) {
		g->cells_dropped += n;
		return;
	}
	i = cell_find(g, g->cells, g->capcell, d, hour);
	if (!g->cells[i].dom) {
		if (g->ncell >= SMTPDIAG_INCIDENTS_MAX_CELLS) {
			g->cells_dropped += n;
			return;
		}
		g->cells[i].dom = d;
		g->cells[i].hour = hour;
		g->ncell++;
	}
	for (int k = 0; k < 3; k++)
		g->cells[i].by[k] += by[k];
}

static void cell_add(smtpdiag_incidents *g, const char *dname, int64_t hour, const unsigned long by[3])
{
	size_t d = dom_get(g, dname);
	unsigned long n = by[0] + by[1] + by[2];

	if (!d) {
		d = CELL_OTHER;
		g->other_domain += n;
	} else {
		g->doms[d - 1].total += n;
	}
	cell_put(g, d, hour, by);
}

/* ---- the API ---- */

smtpdiag_incidents *smtpdiag_incidents_new(void)
{
	return calloc(1, sizeof(smtpdiag_incidents));
}

void smtpdiag_incidents_free(smtpdiag_incidents *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->capinc; i++)
		if (g->incs[i].key)
			inc_clear(&g->incs[i]);
	for (size_t i = 0; i < g->capdom; i++)
		free(g->doms[i].name);
	free(g->incs);
	free(g->doms);
	free(g->cells);
	free(g);
}

static void domain_hour(smtpdiag_incidents *g, const smtpdiag_logrec *r, int act)
{
	char d[INC_NAME_MAX];
	unsigned long by[3] = { 0, 0, 0 };
	int64_t t = r->timestamp;

	if (act < 0 || act == A_REJECTED)
		return;
	by[act] = 1;
	addr_domain(r->recipient, d);
	cell_add(g, d, t - ((t % INC_HOUR) + INC_HOUR) % INC_HOUR, by);
}

int smtpdiag_incidents_add(smtpdiag_incidents *g, const smtpdiag_logrec *r)
{
	char key[7 * INC_NAME_MAX + 16], fx[256];
	const char *qerr;
	subject s;
	inc *e;
	int act, k, oom;

	if (!g || !r || !r->action || !r->reason || !r->diagnosticcode)
		return SMTPDIAG_EINVAL;
	if ((act = action_of(r->action)) < 0)
		return 0;
	g->records++;
	domain_hour(g, r, act);
	if ((k = kind_of(r, act, &qerr)) < 0) {
		g->ungrouped++;
		return 0;
	}
	subject_of(r, k, &s);
	make_key(k, &s, key, sizeof(key));
	join_fixer(r, fx, sizeof(fx));
	{
		const char *const v[F_N] = { s.ip, s.host, s.provider, s.list, s.mx, s.domain, r->reason,
					     fx, r->diagnosticcode, r->replycode, r->status };
		e = inc_get(g, key, k, v, qerr, r->timestamp, &oom);
	}
	if (!e) {
		g->dropped++;
		return oom ? SMTPDIAG_ENOMEM : 0;
	}
	g->grouped++;
	if (r->timestamp && e->count && r->timestamp < e->first)
		inc_sample(e, r->diagnosticcode, r->replycode, r->status);
	e->count++;
	e->by[act]++;
	inc_time(e, r->timestamp);
	if (r->recipient[0]) {
		uint64_t h = hash(r->recipient);
		rcpt_add(e, h ? h : 1);
	}
	return 1;
}

int smtpdiag_incidents_merge(smtpdiag_incidents *into, const smtpdiag_incidents *from)
{
	int rc = 0;

	if (!into || !from || into == from)
		return SMTPDIAG_EINVAL;
	for (size_t i = 0; i < from->capinc; i++) {
		const inc *f = &from->incs[i];
		inc *e;
		int oom;
		if (!f->key)
			continue;
		e = inc_get(into, f->key, f->kind, (const char *const *)f->f, f->qerr, f->first, &oom);
		if (!e) {
			into->dropped += f->count;
			rc = oom ? SMTPDIAG_ENOMEM : rc;
			continue;
		}
		if (!e->f[F_FIXER][0] && f->f[F_FIXER][0]) {
			char *fx = strdup(f->f[F_FIXER]);
			if (fx) {
				free(e->f[F_FIXER]);
				e->f[F_FIXER] = fx;
			}
		}
		if (f->first && (!e->first || f->first < e->first))
			inc_sample(e, f->f[F_SAMPLE], f->f[F_REPLYCODE], f->f[F_STATUS]);
		inc_time(e, f->first);
		inc_time(e, f->last);
		e->count += f->count;
		for (int a = 0; a < A_N; a++)
			e->by[a] += f->by[a];
		for (size_t j = 0; j < f->caprcpt; j++)
			if (f->rcpt[j])
				rcpt_add(e, f->rcpt[j]);
		e->rcpt_capped |= f->rcpt_capped;
	}
	for (size_t i = 0; i < from->capcell; i++) {
		const cell *c = &from->cells[i];
		if (!c->dom)
			continue;
		if (c->dom == CELL_OTHER) {
			/* kept as "other" there: stays "other" here */
			into->other_domain += c->by[0] + c->by[1] + c->by[2];
			cell_put(into, CELL_OTHER, c->hour, c->by);
			continue;
		}
		cell_add(into, cell_dname(from, c->dom), c->hour, c->by);
	}
	into->records += from->records;
	into->grouped += from->grouped;
	into->ungrouped += from->ungrouped;
	into->dropped += from->dropped;
	into->cells_dropped += from->cells_dropped;
	return rc;
}

size_t smtpdiag_incidents_count(const smtpdiag_incidents *g)
{
	return g ? g->ninc : 0;
}

size_t smtpdiag_incidents_open(const smtpdiag_incidents *g, int64_t now)
{
	size_t n = 0;

	if (!g)
		return 0;
	for (size_t i = 0; i < g->capinc; i++)
		if (g->incs[i].key && g->incs[i].last + SMTPDIAG_INCIDENT_OPEN_SECONDS >= now)
			n++;
	return n;
}

/* ---- writing ---- */

static int inc_cmp(const void *a, const void *b)
{
	const inc *x = *(const inc *const *)a, *y = *(const inc *const *)b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return strcmp(x->key, y->key);
}

static const inc **inc_rows(const smtpdiag_incidents *g)
{
	const inc **v = malloc((g->ninc + 1) * sizeof(*v));
	size_t n = 0;

	if (!v)
		return NULL;
	for (size_t i = 0; i < g->capinc; i++)
		if (g->incs[i].key)
			v[n++] = &g->incs[i];
	qsort(v, n, sizeof(*v), inc_cmp);
	return v;
}

/* A sentence of a named list's own removal path (the lists' pages). */
static const char *list_advice(const char *list)
{
	static const struct {
		const char *prefix, *words;
	} t[] = {
		{ "Spamhaus PBL", "The PBL lists end-user address ranges that should not send mail directly: send "
				  "through your provider's relay, or, for a server of your own, remove the address "
				  "at check.spamhaus.org." },
		{ "Spamhaus", "Look the address up at check.spamhaus.org and follow the removal steps of the list "
			      "it names (SBL, XBL/CBL, PBL, DBL)." },
		{ "Barracuda", "Ask for removal at barracudacentral.org (its removal request form)." },
		{ "SpamCop", "SpamCop listings expire on their own about a day after the last report: stop the "
			     "mail that is reported; look it up at spamcop.net." },
		{ "UCEPROTECT", "UCEPROTECT level 1 expires about a week after the last spam; levels 2 and 3 list "
				"the provider's network: ask the provider." },
		{ "SORBS", "SORBS was shut down in 2024: a receiver that still refuses by it has a stale check; "
			   "tell the receiver's admin." },
		{ "Microsoft", "Ask for mitigation at Microsoft's sender support (sender.office.com) and watch the "
			       "address in SNDS; S3150/S3140 name Outlook.com's own block list." },
		{ "Yahoo", "Yahoo defers for unexpected volume or user complaints: slow down, check complaints "
			   "(the complaint feedback loop) and retry after some hours (postmaster.yahooinc.com)." },
		{ "Gmail", "Follow Gmail's sender guidelines (authentication, low spam rate, one-click "
			   "unsubscribe) and watch the address and domain in Postmaster Tools." },
		{ "Proofpoint", "Look the address up and ask for delisting at ipcheck.proofpoint.com." },
		{ "Cloudmark", "Ask for a reputation reset at Cloudmark's sender intelligence portal "
			       "(csi.cloudmark.com)." },
		{ "Mimecast", "Follow the link in Mimecast's refusal (its error-code page) and contact the "
			      "recipient's admin, who can allow the address." },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strncmp(list, t[i].prefix, strlen(t[i].prefix)))
			return t[i].words;
	return NULL;
}

static void advice(const inc *e, sd_buf *b)
{
	const char *la = e->kind == K_BLOCKLIST || e->kind == K_RATELIMIT ? list_advice(e->f[F_LIST]) : NULL;

	if (e->kind == K_BROKENCHECK && !strcmp(e->f[F_FIXER], "recipient-admin") && e->by[A_REJECTED] == 0) {
		sd_buf_puts(b, "The receiver's block list check answers with an error, not a listing: tell the "
			       "receiver's admin (their DNSBL is queried through a public or open resolver); "
			       "nothing on the sending side fixes it.");
		return;
	}
	sd_buf_puts(b, kind_advice[e->kind]);
	if (la) {
		sd_buf_putc(b, ' ');
		sd_buf_puts(b, la);
	}
}

static void fixer_json(sd_buf *b, const char *fx)
{
	sd_buf_putc(b, '[');
	for (const char *p = fx; *p;) {
		size_t n = strcspn(p, ",");
		if (p != fx)
			sd_buf_putc(b, ',');
		sd_buf_json_str(b, p, n);
		p += n + (p[n] == ',');
	}
	sd_buf_putc(b, ']');
}

/* ,"key":N for each of the n keys and values. */
static void counts_json(sd_buf *b, const char *const *keys, const unsigned long *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sd_buf_printf(b, ",\"%s\":%lu", keys[i], v[i]);
}

static void inc_json(const inc *e, sd_buf *b)
{
	sd_buf t;

	sd_buf_puts(b, "{\"type\":\"incident\"");
	SD_JSTR(b, "kind", kind_name[e->kind]);
	SD_JSTR(b, "ip", e->f[F_IP]);
	SD_JSTR(b, "host", e->f[F_HOST]);
	SD_JSTR(b, "provider", e->f[F_PROVIDER]);
	SD_JSTR(b, "list", e->f[F_LIST]);
	SD_JSTR(b, "mx", e->f[F_MX]);
	SD_JSTR(b, "domain", e->f[F_DOMAIN]);
	SD_JSTR(b, "queryerror", e->qerr ? e->qerr : "");
	SD_JSTR(b, "reason", e->f[F_REASON]);
	SD_JKEY(b, "fixer");
	fixer_json(b, e->f[F_FIXER]);
	SD_JKEY(b, "first");
	sd_buf_put_int(b, e->first);
	SD_JKEY(b, "last");
	sd_buf_put_int(b, e->last);
	SD_JKEY(b, "count");
	sd_buf_put_int(b, (long long)e->count);
	counts_json(b, action_name, e->by, A_N);
	SD_JKEY(b, "recipients");
	sd_buf_put_int(b, (long long)e->nrcpt);
	SD_JBOOL(b, "recipients_capped", e->rcpt_capped);
	SD_JSTR(b, "replycode", e->f[F_REPLYCODE]);
	SD_JSTR(b, "status", e->f[F_STATUS]);
	SD_JSTR(b, "sample", e->f[F_SAMPLE]);
	sd_buf_init(&t);
	advice(e, &t);
	SD_JSTR(b, "advice", t.oom ? "" : sd_buf_cstr(&t));
	if (t.oom)
		b->oom = 1;
	sd_buf_free(&t);
	sd_buf_puts(b, "}\n");
}

typedef struct hrow {
	const char *domain;       /* static "other" or a kept domain's name */
	int64_t hour;
	unsigned long by[3];
	int other;
} hrow;

static int dom_total_cmp(const void *a, const void *b)
{
	const dom *x = *(const dom *const *)a, *y = *(const dom *const *)b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int hrow_cmp(const void *a, const void *b)
{
	const hrow *x = a, *y = b;

	if (x->hour != y->hour)
		return x->hour < y->hour ? -1 : 1;
	if (x->other != y->other)
		return x->other - y->other;
	return strcmp(x->domain, y->domain);
}

/* The rows of the domain-hour view: the SMTPDIAG_INCIDENTS_TOP_DOMAINS domains
 * with most failures by name, the rest summed per hour as "other"; by hour. */
static hrow *hour_rows(const smtpdiag_incidents *g, size_t *nrows)
{
	const dom **top = malloc((g->ndom + 1) * sizeof(*top));
	hrow *v = malloc((g->ncell + 1) * sizeof(*v));
	unsigned char *is_top = calloc(g->capdom + 1, 1);
	size_t n = 0, nd = 0, out = 0;

	*nrows = 0;
	if (!top || !v || !is_top) {
		free(top);
		free(v);
		free(is_top);
		return NULL;
	}
	for (size_t i = 0; i < g->capdom; i++)
		if (g->doms[i].name)
			top[nd++] = &g->doms[i];
	qsort(top, nd, sizeof(*top), dom_total_cmp);
	for (size_t i = 0; i < nd && i < SMTPDIAG_INCIDENTS_TOP_DOMAINS; i++)
		is_top[(size_t)(top[i] - g->doms)] = 1;
	for (size_t i = 0; i < g->capcell; i++) {
		const cell *c = &g->cells[i];
		int keep;
		if (!c->dom)
			continue;
		keep = c->dom != CELL_OTHER && is_top[c->dom - 1];
		v[n].domain = keep ? g->doms[c->dom - 1].name : "other";
		v[n].other = !keep;
		v[n].hour = c->hour;
		memcpy(v[n].by, c->by, sizeof(c->by));
		n++;
	}
	qsort(v, n, sizeof(*v), hrow_cmp);
	for (size_t i = 0; i < n; i++) {
		if (out && v[out - 1].other && v[i].other && v[out - 1].hour == v[i].hour) {
			for (int k = 0; k < 3; k++)
				v[out - 1].by[k] += v[i].by[k];
			continue;
		}
		v[out++] = v[i];
	}
	free(top);
	free(is_top);
	*nrows = out;
	return v;
}

static void totals_json(const smtpdiag_incidents *g, sd_buf *b)
{
	static const char *const keys[] = { "records", "grouped", "ungrouped", "incidents",
					    "dropped", "domains", "other_domain", "cells_dropped" };
	const unsigned long v[] = { g->records, g->grouped, g->ungrouped, (unsigned long)g->ninc,
				    g->dropped, (unsigned long)g->ndom, g->other_domain, g->cells_dropped };

	sd_buf_puts(b, "{\"type\":\"incident_totals\"");
	counts_json(b, keys, v, sizeof(v) / sizeof(v[0]));
	sd_buf_puts(b, "}\n");
}

/* The sorted incidents and hour rows both writers write; SMTPDIAG_EINVAL,
 * SMTPDIAG_ENOMEM (b->oom) or 0, the caller frees *v and *h. */
static int both_rows(const smtpdiag_incidents *g, sd_buf *b, const inc ***v, hrow **h, size_t *nh)
{
	if (!g || !b)
		return SMTPDIAG_EINVAL;
	*h = NULL;
	if (!(*v = inc_rows(g)) || !(*h = hour_rows(g, nh))) {
		free(*v);
		b->oom = 1;
		return SMTPDIAG_ENOMEM;
	}
	return 0;
}

static void json_body(const smtpdiag_incidents *g, sd_buf *b, const inc **v, const hrow *h, size_t nh)
{
	for (size_t i = 0; i < g->ninc; i++)
		inc_json(v[i], b);
	for (size_t i = 0; i < nh; i++) {
		sd_buf_puts(b, "{\"type\":\"domain_hour\"");
		SD_JSTR(b, "domain", h[i].domain);
		SD_JKEY(b, "hour");
		sd_buf_put_int(b, h[i].hour);
		counts_json(b, action_name, h[i].by, 3);
		sd_buf_puts(b, "}\n");
	}
	totals_json(g, b);
}

static void utc(int64_t t, char out[32])
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!t || !gmtime_r(&tt, &tm)) {
		snprintf(out, 32, "-");
		return;
	}
	strftime(out, 32, "%Y-%m-%d %H:%M:%S", &tm);
}


static void inc_text(const inc *e, sd_buf *b)
{
	char f[32], l[32];
	sd_buf t;

	utc(e->first, f);
	utc(e->last, l);
	sd_buf_text_line(b, "%s%s%s", kind_name[e->kind], e->f[F_LIST][0] ? ": " : "", e->f[F_LIST]);
	if (e->f[F_IP][0])
		sd_buf_text_line(b, "  sending:    ip %s (logged by %s)", e->f[F_IP], e->f[F_HOST][0] ? e->f[F_HOST] : "-");
	else if (e->f[F_HOST][0])
		sd_buf_text_line(b, "  sending:    host %s", e->f[F_HOST]);
	if (e->f[F_PROVIDER][0])
		sd_buf_text_line(b, "  provider:   %s", e->f[F_PROVIDER]);
	if (e->f[F_MX][0])
		sd_buf_text_line(b, "  mx:         %s", e->f[F_MX]);
	if (e->f[F_DOMAIN][0])
		sd_buf_text_line(b, "  domain:     %s", e->f[F_DOMAIN]);
	if (e->qerr)
		sd_buf_text_line(b, "  list error: %s", e->qerr);
	sd_buf_text_line(b, "  reason:     %s (who acts: %s)", e->f[F_REASON], e->f[F_FIXER][0] ? e->f[F_FIXER] : "-");
	sd_buf_text_line(b, "  seen:       %lu time%s, %zu%s recipient%s, %s .. %s UTC", e->count, e->count == 1 ? "" : "s",
		  e->nrcpt, e->rcpt_capped ? "+" : "", e->nrcpt == 1 ? "" : "s", f, l);
	sd_buf_text_line(b, "  sample:     %s", e->f[F_SAMPLE]);
	sd_buf_init(&t);
	advice(e, &t);
	sd_buf_text_line(b, "  advice:     %s", t.oom ? "" : sd_buf_cstr(&t));
	sd_buf_free(&t);
	sd_buf_putc(b, '\n');
}

static void text_body(const smtpdiag_incidents *g, sd_buf *b, const inc **v, const hrow *h, size_t nh)
{
	sd_buf_printf(b, "incidents: %zu (failure records %lu: %lu grouped, %lu of no incident, %lu past the "
			 "limit of %d incidents)\n\n",
		      g->ninc, g->records, g->grouped, g->ungrouped, g->dropped, SMTPDIAG_INCIDENTS_MAX);
	for (size_t i = 0; i < g->ninc; i++)
		inc_text(v[i], b);
	sd_buf_printf(b, "deferrals and bounces by destination domain and hour (UTC; top %d domains, the rest "
			 "as other):\n",
		      SMTPDIAG_INCIDENTS_TOP_DOMAINS);
	sd_buf_printf(b, "  %-16s %-32s %8s %8s %8s\n", "HOUR", "DOMAIN", "DEFERRED", "BOUNCED", "EXPIRED");
	for (size_t i = 0; i < nh; i++) {
		char t[32];
		utc(h[i].hour, t);
		t[16] = 0;
		sd_buf_text_line(b, "  %-16s %-32s %8lu %8lu %8lu", t, h[i].domain[0] ? h[i].domain : "(none)", h[i].by[0],
			  h[i].by[1], h[i].by[2]);
	}
	if (g->cells_dropped)
		sd_buf_printf(b, "  (%lu failures past the limit of %d domain-hour cells)\n", g->cells_dropped,
			      SMTPDIAG_INCIDENTS_MAX_CELLS);
}

/* Write with one of the bodies above. */
static int write_with(const smtpdiag_incidents *g, smtpdiag_buf *out,
		      void (*body)(const smtpdiag_incidents *, sd_buf *, const inc **, const hrow *, size_t))
{
	sd_buf *b = (sd_buf *)out;
	const inc **v;
	hrow *h;
	size_t nh;
	int rc = both_rows(g, b, &v, &h, &nh);

	if (rc)
		return rc;
	body(g, b, v, h, nh);
	free(v);
	free(h);
	return b->oom ? SMTPDIAG_ENOMEM : 0;
}

int smtpdiag_incidents_json(const smtpdiag_incidents *g, smtpdiag_buf *out)
{
	return write_with(g, out, json_body);
}

int smtpdiag_incidents_text(const smtpdiag_incidents *g, smtpdiag_buf *out)
{
	return write_with(g, out, text_body);
}
