/* messages.c - the lines of one message joined into one record (scan --messages).
 *
 * The joiner is fed every line after the scanner: the delivery records the
 * scanner made of it (attempts and their verdicts, taken as they are) and the
 * line itself, whose envelope is read again with sd_loghdr_parse() for the
 * lines that are no attempt (Postfix smtpd client=, cleanup message-id=, qmgr
 * from=/removed, bounce; Exim <= and Completed; Sendmail from= and DSN;
 * OpenSMTPD smtp connected/message/envelope).
 *
 * A message is keyed by (host, id); the table hashes the id alone, so a
 * relay's "queued as X" is looked up on any host. Open messages also stand
 * in a list in the order they were opened: the window (log time since the
 * first line, against the latest time read) and the open limit drop from its
 * head. A closed message whose last reply named a next hop's id waits (in
 * the same list, at most SD_JOIN_NEXT_WAIT of log time) for that id to show;
 * ids of messages already gone are remembered in a lossy direct-mapped cache.
 * Finished messages are written as JSON at once into a buffer the caller
 * takes. Strings of a message live in one pool of its own (offsets). */
#include "scan/scan.h"
#include "scan/messages.h"

#include <stdlib.h>

#define SD_JOIN_NEXT_WAIT 300       /* log seconds a closed message waits for its next hop */
#define SD_JOIN_SEEN (1u << 16)     /* ids of messages gone, remembered (direct-mapped) */
#define SD_JOIN_SESSIONS 4096       /* OpenSMTPD sessions' clients (direct-mapped) */
#define SD_JOIN_MAX_HOSTS 4096      /* distinct host names kept (more: "" ) */
#define SD_JOIN_ID_MAX 40           /* bytes of an id */
#define SD_JOIN_POOL_MAX (1u << 20) /* bytes of a message's strings */

enum { M_POSTFIX, M_EXIM, M_SENDMAIL, M_OPENSMTPD };
static const char *const mta_names[] = { "postfix", "exim", "sendmail", "opensmtpd" };

enum { F_UNKNOWN, F_SENT, F_DEFERRED, F_BOUNCED, F_EXPIRED };
static const char *const final_names[] = { "unknown", "sent", "deferred", "bounced", "expired" };

/* How a record ended. */
enum { E_NONE, E_REMOVED, E_COMPLETED, E_DELIVERED, E_REJECTED, E_WINDOW, E_INPUT };
static const char *const end_names[] = { "", "removed", "completed", "done", "rejected", "window", "input" };

typedef struct jrcpt {
	uint32_t addr;            /* pool offsets */
	uint32_t last_code, last_status, last_reason, last_advice; /* the last failure's verdict, copied */
	uint32_t attempts;
	uint8_t final, last_retry;
} jrcpt;

typedef struct jmsg jmsg;
struct jmsg {
	jmsg *hnext;              /* chain of the id table, or of the waiting table */
	jmsg *prev, *next;        /* the list by opening order */
	uint32_t hash;            /* of the id */
	uint16_t host;            /* interned */
	uint8_t mta, end;
	uint8_t waiting;          /* closed, waiting for its next hop's id */
	uint8_t qlen;             /* bytes of the id */
	uint32_t nhash;           /* hash of the next hop's id */
	uint32_t qid, messageid, sender, client, notification, nextq, nexthost; /* pool offsets */
	int64_t first, last, size;
	int64_t opened;           /* the latest log time when it was opened (for the window) */
	long nrcpt;               /* announced (qmgr nrcpt=, Sendmail nrcpts=), -1 unknown */
	uint32_t nr, rcap;
	jrcpt *r;                 /* &one, or an array of rcap */
	jrcpt one;                /* the first recipient: most messages have one */
	char *pool;
	uint32_t plen, pcap;
};

/* An id gone: its hash (a 32-bit hash in a slot chosen by 16 of its bits
 * stands for the id; a wrong host now and then is the price of 8 bytes) and
 * its host. */
typedef struct seen_id {
	uint32_t hash;
	uint16_t host;
	uint16_t used;
} seen_id;

typedef struct session {
	uint64_t id;
	char client[120];
} session;

struct smtpdiag_joiner {
	int64_t window, now;
	jmsg **tab;               /* by id; open messages */
	size_t tabsize, nopen;    /* tabsize a power of two */
	jmsg **wait;              /* by next hop id; waiting ones */
	size_t waitsize, nwait;
	jmsg *head, *tail;        /* open ones, oldest first */
	jmsg *whead, *wtail;      /* waiting ones, oldest first */
	char **hosts;
	size_t nhosts;
	uint16_t lasthost;        /* the host of the last line, and its length */
	size_t lasthostn;
	sd_logtime lasttm;        /* the last line's time as written, and as read */
	int64_t lastt;
	seen_id *seen;
	session *sess;
	sd_buf ready;             /* JSON Lines of the finished messages */
	unsigned long cnt[SMTPDIAG_JOIN_ATEND + 1];
	long ready_n;
};

/* ---- small things ---- */

static uint32_t hash_of(const char *p, size_t n)
{
	uint64_t h = sd_fnv1a(SD_FNV1A_BASIS, p, n);

	return (uint32_t)(h ^ (h >> 32));
}

static int isid(int c)
{
	return sd_isalnum(c);
}

/* An id at the start of m: alphanumerics (and '-' for Exim) up to stop. */
static size_t id_len(sd_str m, char stop)
{
	size_t i = 0;

	while (i < m.n && i <= SD_JOIN_ID_MAX && (isid((unsigned char)m.p[i]) || m.p[i] == '-'))
		i++;
	return i && i <= SD_JOIN_ID_MAX && i < m.n && m.p[i] == stop ? i : 0;
}

static uint16_t host_intern(smtpdiag_joiner *j, sd_str h)
{
	char **nh;

	if (j->lasthost && h.n == j->lasthostn && !memcmp(j->hosts[j->lasthost], h.p, h.n))
		return j->lasthost;
	for (size_t i = 1; i < j->nhosts; i++)
		if (strlen(j->hosts[i]) == h.n && !memcmp(j->hosts[i], h.p, h.n)) {
			j->lasthost = (uint16_t)i;
			j->lasthostn = h.n;
			return (uint16_t)i;
		}
	if (!h.n || j->nhosts >= SD_JOIN_MAX_HOSTS)
		return 0;
	if (!(nh = realloc(j->hosts, (j->nhosts + 1) * sizeof(*nh))))
		return 0;
	j->hosts = nh;
	if (!(nh[j->nhosts] = malloc(h.n + 1)))
		return 0;
	memcpy(nh[j->nhosts], h.p, h.n);
	nh[j->nhosts][h.n] = 0;
	return (uint16_t)j->nhosts++;
}

/* A string into the message's pool: its offset, 0 ("") when empty or full. */
static uint32_t put(jmsg *m, sd_str v)
{
	uint32_t at;

	if (!v.n || v.n >= SD_JOIN_POOL_MAX || m->plen + v.n + 1 > SD_JOIN_POOL_MAX)
		return 0;
	if (m->plen + v.n + 1 > m->pcap) {
		uint32_t cap = m->pcap ? m->pcap : 160;
		char *np;
		while (cap < m->plen + v.n + 1)
			cap *= 2;
		if (!(np = realloc(m->pool, cap)))
			return 0;
		m->pool = np;
		m->pcap = cap;
	}
	at = m->plen;
	memcpy(m->pool + at, v.p, v.n);
	m->pool[at + v.n] = 0;
	m->plen += (uint32_t)v.n + 1;
	return at;
}

static sd_str cs(const char *s)
{
	return (sd_str){ s, s ? strlen(s) : 0 };
}

static const char *str(const jmsg *m, uint32_t off)
{
	return off ? m->pool + off : "";
}

/* Set a field once: the first value given stays. */
static void set_once(jmsg *m, uint32_t *field, sd_str v)
{
	if (!*field)
		*field = put(m, v);
}

/* ---- the table ---- */

/* The id a message is chained by: its own, or (waiting) its next hop's. */
static uint32_t chain_hash(const jmsg *m, int by_next)
{
	return by_next ? m->nhash : m->hash;
}

/* Twice the buckets for a table of chains (*t, *size a power of two). */
static int rehash(jmsg ***t, size_t *size, int by_next)
{
	size_t n = *size * 2;
	jmsg **nt = calloc(n, sizeof(*nt));

	if (!nt)
		return -1;
	for (size_t i = 0; i < *size; i++)
		for (jmsg *m = (*t)[i], *nx; m; m = nx) {
			size_t w = chain_hash(m, by_next) & (n - 1);
			nx = m->hnext;
			m->hnext = nt[w];
			nt[w] = m;
		}
	free(*t);
	*t = nt;
	*size = n;
	return 0;
}

static jmsg *lookup(smtpdiag_joiner *j, uint16_t host, sd_str id, uint32_t h)
{
	for (jmsg *m = j->tab[h & (j->tabsize - 1)]; m; m = m->hnext)
		if (m->hash == h && m->host == host && m->qlen == id.n && !memcmp(m->pool + m->qid, id.p, id.n))
			return m;
	return NULL;
}

/* Any host's open message with this id, the given host's first. */
static jmsg *lookup_any(smtpdiag_joiner *j, sd_str id, uint32_t h)
{
	for (jmsg *m = j->tab[h & (j->tabsize - 1)]; m; m = m->hnext)
		if (m->hash == h && m->qlen == id.n && !memcmp(m->pool + m->qid, id.p, id.n))
			return m;
	return NULL;
}

static void tab_remove(smtpdiag_joiner *j, jmsg *m)
{
	jmsg **pp = &j->tab[m->hash & (j->tabsize - 1)];

	while (*pp && *pp != m)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = m->hnext;
	m->hnext = NULL;
	j->nopen--;
}

/* Out of its list: the open one, or the waiting one. */
static void list_remove(smtpdiag_joiner *j, jmsg *m)
{
	jmsg **head = m->waiting ? &j->whead : &j->head, **tail = m->waiting ? &j->wtail : &j->tail;

	if (m->prev)
		m->prev->next = m->next;
	else
		*head = m->next;
	if (m->next)
		m->next->prev = m->prev;
	else
		*tail = m->prev;
	m->prev = m->next = NULL;
}

/* At the end of its list (by m->waiting). */
static void list_append(smtpdiag_joiner *j, jmsg *m)
{
	jmsg **head = m->waiting ? &j->whead : &j->head, **tail = m->waiting ? &j->wtail : &j->tail;

	m->next = NULL;
	m->prev = *tail;
	if (*tail)
		(*tail)->next = m;
	else
		*head = m;
	*tail = m;
}

static void msg_free(jmsg *m)
{
	if (m->r != &m->one)
		free(m->r);
	free(m->pool);
	free(m);
}

static void wake(smtpdiag_joiner *j, const jmsg *o);

static jmsg *msg_open(smtpdiag_joiner *j, int mta, uint16_t host, sd_str id, uint32_t h, int64_t t)
{
	jmsg *m;

	if (j->nopen >= j->tabsize && rehash(&j->tab, &j->tabsize, 0) < 0)
		return NULL;
	if (!(m = calloc(1, sizeof(*m))))
		return NULL;
	m->plen = 1; /* offset 0 is "" */
	if (!(m->qid = put(m, id))) {
		msg_free(m);
		return NULL;
	}
	m->pool[0] = 0;
	m->qlen = (uint8_t)id.n;
	m->hash = h;
	m->host = host;
	m->mta = (uint8_t)mta;
	m->first = m->last = t;
	m->opened = j->now > t ? j->now : t;
	m->size = -1;
	m->nrcpt = -1;
	m->hnext = j->tab[h & (j->tabsize - 1)];
	j->tab[h & (j->tabsize - 1)] = m;
	list_append(j, m);
	j->nopen++;
	if (j->nwait)
		wake(j, m);
	return m;
}

static jmsg *msg_get(smtpdiag_joiner *j, int mta, uint16_t host, sd_str id, int64_t t)
{
	uint32_t h = hash_of(id.p, id.n);
	jmsg *m = lookup(j, host, id, h);

	if (!m)
		m = msg_open(j, mta, host, id, h, t);
	if (m && t) {
		if (!m->first || t < m->first)
			m->first = t;
		if (t > m->last)
			m->last = t;
	}
	return m;
}

/* ---- ids of messages gone ---- */

static void seen_add(smtpdiag_joiner *j, const jmsg *m)
{
	seen_id *e = &j->seen[m->hash & (SD_JOIN_SEEN - 1)];

	e->hash = m->hash;
	e->host = m->host;
	e->used = 1;
}

static const seen_id *seen_find(const smtpdiag_joiner *j, uint32_t h)
{
	const seen_id *e = &j->seen[h & (SD_JOIN_SEEN - 1)];

	return e->used && e->hash == h ? e : NULL;
}

/* ---- the record ---- */

static void jstr(sd_buf *b, const char *key, size_t kn, const jmsg *m, uint32_t off)
{
	sd_buf_json_member(b, key, kn, str(m, off));
}
#define MSTR(b, key, m, off) jstr((b), ",\"" key "\":", sizeof(",\"" key "\":") - 1, (m), (off))

static void put_num(sd_buf *b, int64_t v)
{
	if (v >= 0)
		sd_buf_put_int(b, v);
	else
		sd_buf_put(b, "null", 4);
}

static void write_msg(smtpdiag_joiner *j, const jmsg *m)
{
	sd_buf *b = &j->ready;

	sd_buf_put(b, "{\"queueid\":", 11);
	sd_buf_json_cstr(b, str(m, m->qid));
	SD_JSTR(b, "mta", mta_names[m->mta]);
	SD_JSTR(b, "host", j->hosts[m->host]);
	MSTR(b, "messageid", m, m->messageid);
	MSTR(b, "sender", m, m->sender);
	MSTR(b, "client", m, m->client);
	SD_JKEY(b, "size");
	put_num(b, m->size);
	SD_JKEY(b, "nrcpt");
	put_num(b, m->nrcpt);
	SD_JKEY(b, "first");
	sd_buf_put_int(b, m->first);
	SD_JKEY(b, "last");
	sd_buf_put_int(b, m->last);
	SD_JBOOL(b, "closed", m->end < E_WINDOW);
	SD_JSTR(b, "end", end_names[m->end]);
	SD_JKEY(b, "recipients");
	sd_buf_putc(b, '[');
	for (uint32_t i = 0; i < m->nr; i++) {
		const jrcpt *r = &m->r[i];
		sd_buf_put(b, i ? ",{\"recipient\":" : "{\"recipient\":", i ? 14 : 13);
		sd_buf_json_cstr(b, str(m, r->addr));
		SD_JSTR(b, "final", final_names[r->final]);
		SD_JKEY(b, "attempts");
		sd_buf_put_int(b, r->attempts);
		MSTR(b, "replycode", m, r->last_code);
		MSTR(b, "deliverystatus", m, r->last_status);
		MSTR(b, "reason", m, r->last_reason);
		SD_JBOOL(b, "retry", r->last_retry);
		MSTR(b, "advice", m, r->last_advice);
		sd_buf_putc(b, '}');
	}
	sd_buf_putc(b, ']');
	MSTR(b, "notification", m, m->notification);
	SD_JKEY(b, "next");
	if (m->nextq) {
		sd_buf_put(b, "{\"queueid\":", 11);
		sd_buf_json_cstr(b, str(m, m->nextq));
		MSTR(b, "host", m, m->nexthost);
		sd_buf_putc(b, '}');
	} else {
		sd_buf_put(b, "null", 4);
	}
	sd_buf_put(b, "}\n", 2);
	j->ready_n++;
	j->cnt[SMTPDIAG_JOIN_EMITTED]++;
	j->cnt[m->end == E_WINDOW ? SMTPDIAG_JOIN_WINDOWED : m->end == E_INPUT ? SMTPDIAG_JOIN_ATEND
									       : SMTPDIAG_JOIN_CLOSED]++;
}

/* Write a message out and free it (it is out of the id table already when waiting). */
static void emit(smtpdiag_joiner *j, jmsg *m)
{
	if (!m->waiting)
		tab_remove(j, m);
	else
		for (jmsg **pp = &j->wait[chain_hash(m, 1) & (j->waitsize - 1)];
		     *pp; pp = &(*pp)->hnext)
			if (*pp == m) {
				*pp = m->hnext;
				break;
			}
	list_remove(j, m);
	if (m->waiting)
		j->nwait--;
	write_msg(j, m);
	msg_free(m);
}

/* The next hop's host when its id is known: open now, or gone. */
static int resolve_next(smtpdiag_joiner *j, jmsg *m)
{
	sd_str id = cs(str(m, m->nextq));
	uint32_t h = m->nhash;
	const jmsg *o = lookup_any(j, id, h);
	const seen_id *e;

	if (o && o != m) {
		m->nexthost = put(m, cs(j->hosts[o->host]));
		return 1;
	}
	if ((e = seen_find(j, h)) != NULL) {
		m->nexthost = put(m, cs(j->hosts[e->host]));
		return 1;
	}
	return 0;
}

/* The message's MTA says it is done. */
static void close_msg(smtpdiag_joiner *j, jmsg *m, int end)
{
	size_t w;

	m->end = (uint8_t)end;
	seen_add(j, m);
	if (!m->nextq || resolve_next(j, m)) {
		emit(j, m);
		return;
	}
	tab_remove(j, m); /* wait for the next hop, out of the id table and the open list */
	list_remove(j, m);
	w = chain_hash(m, 1) & (j->waitsize - 1);
	m->hnext = j->wait[w];
	j->wait[w] = m;
	m->waiting = 1;
	m->opened = j->now;
	list_append(j, m);
	j->nwait++;
	if (j->nwait > j->waitsize)
		(void)rehash(&j->wait, &j->waitsize, 1); /* longer chains when out of memory */
}

/* A message opened with this id: the messages waiting for it learn its host. */
static void wake(smtpdiag_joiner *j, const jmsg *o)
{
	const char *id = str(o, o->qid);
	jmsg **pp = &j->wait[o->hash & (j->waitsize - 1)];

	while (*pp) {
		jmsg *m = *pp;
		if (m->nhash == o->hash && !strcmp(str(m, m->nextq), id)) {
			*pp = m->hnext;
			list_remove(j, m);
			m->waiting = 0;
			j->nwait--;
			m->hnext = NULL;
			m->nexthost = put(m, cs(j->hosts[o->host]));
			write_msg(j, m);
			msg_free(m);
			continue;
		}
		pp = &m->hnext;
	}
}

/* Drop what the window, the wait for a next hop and the open limit say. */
static void expire(smtpdiag_joiner *j)
{
	jmsg *m;

	while ((m = j->whead) != NULL && m->opened + SD_JOIN_NEXT_WAIT < j->now)
		emit(j, m);
	while ((m = j->head) != NULL && (m->opened + j->window < j->now || j->nopen > SMTPDIAG_JOIN_MAX_OPEN)) {
		m->end = E_WINDOW;
		emit(j, m);
	}
}

/* ---- recipients ---- */

static jrcpt *rcpt_get(jmsg *m, sd_str addr)
{
	jrcpt *r;

	for (uint32_t i = 0; i < m->nr; i++)
		if (!strncmp(str(m, m->r[i].addr), addr.p, addr.n) && !str(m, m->r[i].addr)[addr.n])
			return &m->r[i];
	if (m->nr >= SMTPDIAG_JOIN_MAX_RCPTS)
		return NULL;
	if (!m->rcap) {
		m->r = &m->one;
		m->rcap = 1;
	} else if (m->nr == m->rcap) {
		uint32_t cap = m->rcap * 2;
		jrcpt *nr = realloc(m->r == &m->one ? NULL : m->r, cap * sizeof(*nr));
		if (!nr)
			return NULL;
		if (m->r == &m->one)
			nr[0] = m->one;
		m->r = nr;
		m->rcap = cap;
	}
	r = &m->r[m->nr++];
	memset(r, 0, sizeof(*r));
	r->addr = put(m, addr);
	return r;
}

static int final_of(const char *action)
{
	switch (action[0]) {
	case 's':
		return F_SENT;
	case 'd':
		return F_DEFERRED;
	case 'b':
		return F_BOUNCED;
	case 'e':
		return F_EXPIRED;
	}
	return F_UNKNOWN;
}

/* Every recipient with no final state yet: expired (a message-level expiry). */
static void expire_rcpts(jmsg *m)
{
	for (uint32_t i = 0; i < m->nr; i++)
		if (m->r[i].final == F_UNKNOWN || m->r[i].final == F_DEFERRED)
			m->r[i].final = F_EXPIRED;
}

/* Every recipient is done (none deferred or unknown) and all announced are seen. */
static int all_done(const jmsg *m)
{
	if (!m->nr || (m->nrcpt > 0 && (long)m->nr < m->nrcpt))
		return 0;
	for (uint32_t i = 0; i < m->nr; i++)
		if (m->r[i].final == F_UNKNOWN || m->r[i].final == F_DEFERRED)
			return 0;
	return 1;
}

/* Sendmail writes the notification's line ("QID: NEWQID: DSN: ...") after the
 * failed recipient's: a message with a failure and a sender waits for it. */
static int dsn_due(const jmsg *m)
{
	if (m->mta != M_SENDMAIL || m->notification || !m->sender)
		return 0;
	for (uint32_t i = 0; i < m->nr; i++)
		if (m->r[i].final == F_BOUNCED || m->r[i].final == F_EXPIRED)
			return 1;
	return 0;
}

/* The next hop's id in a success reply: "queued as X" (Postfix and others),
 * "OK id=X" (Exim), "X Message accepted for delivery" (Sendmail). */
static sd_str next_hop(sd_str t)
{
	long k;
	sd_str id;

	if ((k = sd_sl_find(t, "queued as ")) >= 0)
		id = sd_sl_skip(t, (size_t)k + 10);
	else if ((k = sd_sl_find(t, " id=")) >= 0)
		id = sd_sl_skip(t, (size_t)k + 4);
	else if ((k = sd_sl_find(t, " Message accepted for delivery")) >= 0) {
		size_t e = (size_t)k, s = e;
		while (s > 0 && isid((unsigned char)t.p[s - 1]))
			s--;
		return e - s >= 6 ? (sd_str){ t.p + s, e - s } : SD_NULLSTR;
	} else
		return SD_NULLSTR;
	for (k = 0; (size_t)k < id.n && (isid((unsigned char)id.p[k]) || id.p[k] == '-'); k++)
		;
	id.n = (size_t)k;
	return id.n >= 5 && id.n <= SD_JOIN_ID_MAX ? id : SD_NULLSTR;
}

static int mta_of(const char *format)
{
	switch (format[0]) {
	case 'e':
		return M_EXIM;
	case 's':
		return M_SENDMAIL;
	case 'o':
		return M_OPENSMTPD;
	}
	return M_POSTFIX;
}

/* One delivery record of the scanner. */
static int attempt(smtpdiag_joiner *j, const smtpdiag_logrec *r)
{
	int mta = mta_of(r->format);
	sd_str id = cs(r->queueid);
	jmsg *m;
	jrcpt *rc;
	int f = final_of(r->action);

	if (mta == M_OPENSMTPD && id.n == 16)
		id.n = 8; /* the envelope id's first half is the message's */
	if (!id.n || id.n > SD_JOIN_ID_MAX)
		return 0;
	if (!(m = msg_get(j, mta, host_intern(j, cs(r->host)), id, r->timestamp)))
		return SMTPDIAG_ENOMEM;
	if (!m->sender && r->sender[0])
		m->sender = put(m, cs(r->sender));
	if (!r->recipient[0]) {
		if (f == F_EXPIRED) {
			expire_rcpts(m);
			if (mta == M_SENDMAIL)
				close_msg(j, m, E_DELIVERED);
		}
		return 0;
	}
	if (!(rc = rcpt_get(m, cs(r->recipient))))
		return 0;
	rc->attempts++;
	rc->final = (uint8_t)f;
	if (f != F_SENT) {
		rc->last_code = put(m, cs(r->replycode));
		rc->last_status = put(m, cs(r->status));
		rc->last_reason = put(m, cs(r->reason));
		rc->last_advice = put(m, cs(r->advice));
		rc->last_retry = (uint8_t)(r->retry != 0);
	} else if (!m->nextq) {
		sd_str nx = next_hop(cs(r->diagnosticcode));
		if ((m->nextq = put(m, nx)) != 0)
			m->nhash = hash_of(nx.p, nx.n);
	}
	if ((mta == M_SENDMAIL || mta == M_OPENSMTPD) && all_done(m) && !dsn_due(m))
		close_msg(j, m, E_DELIVERED);
	return 0;
}

/* ---- lines that are no attempt ---- */

/* The program's last part ("postfix/smtpd" -> "smtpd"). */
static sd_str agent_of(sd_str prog)
{
	const char *slash = prog.n ? memrchr(prog.p, '/', prog.n) : NULL;

	return slash ? (sd_str){ slash + 1, (size_t)(prog.p + prog.n - slash - 1) } : SD_NULLSTR;
}

static long number(sd_str v)
{
	unsigned long x;

	return sd_parse_uint(v.p, v.n, 18, &x) ? (long)x : -1;
}

/* A field "key=value" of a space-separated list (Exim, OpenSMTPD): the value up to a space. */
static sd_str word_field(sd_str s, const char *key)
{
	size_t kn = strlen(key);

	for (size_t i = 0; i + kn < s.n; i++)
		if ((i == 0 || s.p[i - 1] == ' ') && !memcmp(s.p + i, key, kn)) {
			sd_str v = sd_sl_skip(s, i + kn);
			return sd_sl_until(v, ' ');
		}
	return SD_NULLSTR;
}

/* The Postfix programs whose lines with a queue id are no attempt but ours. */
static int postfix_ours(sd_str a)
{
	switch (a.n) {
	case 4:
		return !memcmp(a.p, "qmgr", 4);
	case 5:
		return !memcmp(a.p, "smtpd", 5) || !memcmp(a.p, "oqmgr", 5);
	case 6:
		return !memcmp(a.p, "pickup", 6) || !memcmp(a.p, "bounce", 6);
	case 7:
		return !memcmp(a.p, "cleanup", 7);
	case 9:
		return !memcmp(a.p, "postsuper", 9);
	}
	return 0;
}

static int postfix_line(smtpdiag_joiner *j, const sd_loghdr *h, int64_t t)
{
	sd_str agent = agent_of(h->program), m = h->msg, id, rest;
	size_t q;
	jmsg *g;

	if (!agent.n || !(q = id_len(m, ':')) || q + 2 > m.n || m.p[q + 1] != ' ')
		return 0;
	id = (sd_str){ m.p, q };
	rest = sd_sl_skip(m, q + 2);
	if (!postfix_ours(agent))
		return 0;
	if (!(g = msg_get(j, M_POSTFIX, host_intern(j, h->host), id, t)))
		return SMTPDIAG_ENOMEM;
	if (sd_sl_starts(rest, "client=")) {
		set_once(g, &g->client, sd_sl_until(sd_sl_skip(rest, 7), ','));
	} else if (sd_sl_starts(rest, "message-id=")) {
		set_once(g, &g->messageid, sd_sl_unangle(sd_trim(sd_sl_skip(rest, 11))));
	} else if (sd_sl_starts(rest, "uid=")) {
		sd_str f = word_field(rest, "from=");
		set_once(g, &g->sender, sd_sl_unangle(f));
		set_once(g, &g->client, SD_STR("local"));
	} else if (sd_sl_starts(rest, "from=")) {
		sd_str f = sd_sl_field(rest, "from"), size = sd_sl_field(rest, "size"), nr = sd_sl_field(rest, "nrcpt");
		set_once(g, &g->sender, sd_sl_unangle(sd_trim(f)));
		if (size.n)
			g->size = number(size);
		if (nr.n)
			g->nrcpt = number(nr);
	} else if (sd_sl_starts(rest, "sender non-delivery notification: ")) {
		set_once(g, &g->notification, sd_sl_until(sd_sl_skip(rest, 34), ' '));
	} else if (sd_sl_starts(rest, "removed")) {
		close_msg(j, g, E_REMOVED);
	} else if ((sd_str_caseeq(agent, "cleanup") &&
		    (sd_sl_starts(rest, "reject:") || sd_sl_starts(rest, "milter-reject:") ||
		     sd_sl_starts(rest, "discard:"))) ||
		   (sd_sl_starts(rest, "milter-reject: END-OF-MESSAGE") || sd_sl_starts(rest, "milter-discard:"))) {
		close_msg(j, g, E_REJECTED);
	}
	return 0;
}

/* Exim: "ID <= sender H=... S=... id=...", "ID Completed". */
static int exim_line(smtpdiag_joiner *j, smtpdiag_scanner *s, const sd_loghdr *h, int64_t t)
{
	sd_str m = h->msg, id, rest;
	sd_logtime it;
	size_t k;
	jmsg *g;
	uint16_t host = host_intern(j, h->host);

	if (!h->exim && m.n >= 19 && sd_isdigit((unsigned char)m.p[0]) && (k = sd_exim_prefix(m.p, m.n, &it))) {
		t = sd_scanner_time(s, &it);
		m = sd_sl_skip(m, k);
	}
	if (!(k = sd_exim_id(m.p, m.n)))
		return 0;
	id = (sd_str){ m.p, k };
	rest = sd_sl_skip(m, k + 1);
	if (sd_sl_starts(rest, "<= ")) {
		sd_str snd = sd_sl_until(sd_sl_skip(rest, 3), ' '), r, hv, f;
		long hk;
		if (!(g = msg_get(j, M_EXIM, host, id, t)))
			return SMTPDIAG_ENOMEM;
		set_once(g, &g->sender, snd.n == 2 && snd.p[0] == '<' ? SD_STR("") : snd);
		if ((hk = sd_sl_find(rest, " H=")) >= 0) {
			/* "H=name (helo) [ip]:port" up to the next " X=" field */
			hv = sd_sl_skip(rest, (size_t)hk + 3);
			for (k = 0; k < hv.n; k++) {
				size_t e = k + 1;
				if (hv.p[k] != ' ')
					continue;
				while (e < hv.n && sd_isalnum((unsigned char)hv.p[e]))
					e++;
				if (e < hv.n && hv.p[e] == '=' && e > k + 1)
					break;
			}
			set_once(g, &g->client, (sd_str){ hv.p, k });
		} else if ((f = word_field(rest, "U=")).n) {
			set_once(g, &g->client, SD_STR("local"));
		}
		if ((f = word_field(rest, "S=")).n)
			g->size = number(f);
		if ((f = word_field(rest, "id=")).n)
			set_once(g, &g->messageid, f);
		r = word_field(rest, "R=");
		if (r.n == 16 || r.n == 23) {
			jmsg *o = lookup(j, host, r, hash_of(r.p, r.n));
			if (o)
				set_once(o, &o->notification, id);
		}
		return 0;
	}
	if (sd_sl_starts(rest, "Completed")) {
		if (!(g = msg_get(j, M_EXIM, host, id, t)))
			return SMTPDIAG_ENOMEM;
		close_msg(j, g, E_COMPLETED);
	}
	return 0;
}

/* Sendmail: "QID: from=<s>, size=N, ..., nrcpts=N, msgid=<m>, ..., relay=..."
 * and "QID: NEWQID: DSN: ..." (the notification). */
static int sendmail_line(smtpdiag_joiner *j, const sd_loghdr *h, int64_t t)
{
	sd_str m = h->msg, id, rest, f;
	size_t q = id_len(m, ':'), q2;
	jmsg *g;

	if (!q || q + 2 > m.n || m.p[q + 1] != ' ')
		return 0;
	id = (sd_str){ m.p, q };
	rest = sd_sl_skip(m, q + 2);
	if (sd_sl_starts(rest, "from=")) {
		if (!(g = msg_get(j, M_SENDMAIL, host_intern(j, h->host), id, t)))
			return SMTPDIAG_ENOMEM;
		set_once(g, &g->sender, sd_sl_unangle(sd_trim(sd_sl_field(rest, "from"))));
		if ((f = sd_sl_field(rest, "size")).n)
			g->size = number(f);
		if ((f = sd_sl_field(rest, "nrcpts")).n)
			g->nrcpt = number(f);
		set_once(g, &g->messageid, sd_sl_unangle(sd_trim(sd_sl_field(rest, "msgid"))));
		set_once(g, &g->client, sd_trim(sd_sl_field(rest, "relay")));
		return 0;
	}
	if ((q2 = id_len(rest, ':')) && (sd_sl_starts(sd_sl_skip(rest, q2), ": DSN: ") ||
					 sd_sl_starts(sd_sl_skip(rest, q2), ": return to sender: ") ||
					 sd_sl_starts(sd_sl_skip(rest, q2), ": postmaster notify: "))) {
		uint16_t host = host_intern(j, h->host);
		if (!(g = lookup(j, host, id, hash_of(id.p, id.n))))
			return 0;
		set_once(g, &g->notification, (sd_str){ rest.p, q2 });
		if (t > g->last)
			g->last = t;
		if (all_done(g))
			close_msg(j, g, E_DELIVERED);
	}
	return 0;
}

/* The session id at the start of an OpenSMTPD line: 16 hex digits and a space. */
static int osmtpd_session(sd_str m, uint64_t *sid)
{
	uint64_t v = 0;

	if (m.n < 17 || m.p[16] != ' ')
		return 0;
	for (int i = 0; i < 16; i++) {
		int c = (unsigned char)m.p[i], d = sd_isdigit(c) ? c - '0' : (c | 32) >= 'a' && (c | 32) <= 'f' ? (c | 32) - 'a' + 10 : -1;
		if (d < 0)
			return 0;
		v = v << 4 | (uint64_t)d;
	}
	*sid = v;
	return 1;
}

/* OpenSMTPD: "S smtp connected address=IP host=NAME", "S smtp message msgid=M
 * size=N nrcpt=N ...", "S smtp envelope evpid=E from=<s> to=<r>". */
static int opensmtpd_line(smtpdiag_joiner *j, const sd_loghdr *h, int64_t t)
{
	sd_str m = h->msg, rest, f;
	uint64_t sid;
	session *se;
	jmsg *g;

	if (!osmtpd_session(m, &sid))
		return 0;
	rest = sd_sl_skip(m, 17);
	se = &j->sess[sid % SD_JOIN_SESSIONS];
	if (sd_sl_starts(rest, "smtp connected ")) {
		sd_str ip = word_field(rest, "address="), name = word_field(rest, "host=");
		char *c = se->client;
		size_t cap = sizeof(se->client), k;
		se->id = sid;
		k = sd_strlcpy(c, name.p ? name.p : "", name.n, cap);
		if (k + 2 < cap && ip.n) {
			c[k++] = '[';
			k += sd_strlcpy(c + k, ip.p, ip.n, cap - k - 1);
			c[k++] = ']';
			c[k] = 0;
		}
		return 0;
	}
	if (sd_sl_starts(rest, "smtp message ")) {
		f = word_field(rest, "msgid=");
		if (f.n != 8)
			return 0;
		if (!(g = msg_get(j, M_OPENSMTPD, host_intern(j, h->host), f, t)))
			return SMTPDIAG_ENOMEM;
		if ((f = word_field(rest, "size=")).n)
			g->size = number(f);
		if ((f = word_field(rest, "nrcpt=")).n)
			g->nrcpt = number(f);
		if (se->id == sid && se->client[0])
			set_once(g, &g->client, cs(se->client));
		return 0;
	}
	if (sd_sl_starts(rest, "smtp envelope ")) {
		f = word_field(rest, "evpid=");
		if (f.n != 16)
			return 0;
		if (!(g = msg_get(j, M_OPENSMTPD, host_intern(j, h->host), (sd_str){ f.p, 8 }, t)))
			return SMTPDIAG_ENOMEM;
		set_once(g, &g->sender, sd_sl_unangle(word_field(rest, "from=")));
		f = sd_sl_unangle(word_field(rest, "to="));
		if (f.n)
			(void)rcpt_get(g, f);
		if (se->id == sid && se->client[0])
			set_once(g, &g->client, cs(se->client));
	}
	return 0;
}

/* ---- the API ---- */

static char no_host[1];

smtpdiag_joiner *smtpdiag_joiner_new(int64_t window)
{
	smtpdiag_joiner *j;

	if (window < 0 || !(j = calloc(1, sizeof(*j))))
		return NULL;
	j->window = window ? window : SMTPDIAG_JOIN_WINDOW;
	j->tabsize = 1024;
	j->waitsize = 1024;
	j->tab = calloc(j->tabsize, sizeof(*j->tab));
	j->wait = calloc(j->waitsize, sizeof(*j->wait));
	j->seen = calloc(SD_JOIN_SEEN, sizeof(*j->seen));
	j->sess = calloc(SD_JOIN_SESSIONS, sizeof(*j->sess));
	j->hosts = malloc(sizeof(*j->hosts));
	sd_buf_init(&j->ready);
	if (!j->tab || !j->wait || !j->seen || !j->sess || !j->hosts) {
		smtpdiag_joiner_free(j);
		return NULL;
	}
	j->hosts[0] = no_host;
	j->nhosts = 1;
	return j;
}

void smtpdiag_joiner_free(smtpdiag_joiner *j)
{
	if (!j)
		return;
	for (jmsg *m = j->head, *nx; m; m = nx) {
		nx = m->next;
		msg_free(m);
	}
	for (jmsg *m = j->whead, *nx; m; m = nx) {
		nx = m->next;
		msg_free(m);
	}
	for (size_t i = 1; i < j->nhosts; i++)
		free(j->hosts[i]);
	free(j->hosts);
	free(j->tab);
	free(j->wait);
	free(j->seen);
	free(j->sess);
	sd_buf_free(&j->ready);
	free(j);
}

/* The line's own lines that are no attempt, by family. */
static int other_line(smtpdiag_joiner *j, smtpdiag_scanner *s, const char *line, size_t len)
{
	const sd_loghdr *seen = sd_scanner_hdr(s, line);
	sd_loghdr h;
	sd_str prog;
	int64_t t;

	if (seen)
		h = *seen; /* the scanner's reading of this very line */
	else if (!sd_loghdr_parse(line, len, &h))
		return 0;
	prog = h.program;
	t = 0;
	if (h.has_time && !memcmp(&h.time, &j->lasttm, sizeof(h.time))) {
		t = j->lastt;
	} else if (h.has_time) {
		t = j->lastt = sd_scanner_time(s, &h.time);
		j->lasttm = h.time;
	}
	if (t > j->now)
		j->now = t;
	if (h.exim || sd_str_casestarts(prog, "exim"))
		return exim_line(j, s, &h, t);
	if (prog.n && memchr(prog.p, '/', prog.n))
		return postfix_line(j, &h, t);
	if (sd_str_caseeq(prog, "smtpd"))
		return opensmtpd_line(j, &h, t);
	if (sd_str_casestarts(prog, "sendmail") || sd_str_casestarts(prog, "sm-mta") ||
	    sd_str_casestarts(prog, "sm-msp"))
		return sendmail_line(j, &h, t);
	return 0;
}

int sd_joiner_recs(smtpdiag_joiner *j, smtpdiag_scanner *s, const smtpdiag_logrec *const *recs, int nrec,
		   const char *line, size_t len)
{
	int err = 0, attempts = 0;

	/* a Sendmail DSN line is an expiry record and names the notification */
	if (nrec > 0 && !strcmp(recs[0]->format, "sendmail"))
		err = other_line(j, s, line, len);
	for (int i = 0; i < nrec && !err; i++) {
		const smtpdiag_logrec *r = recs[i];
		if (!strcmp(r->action, "rejected"))
			continue; /* a refusal of our own, inbound: no attempt (the line is read below) */
		if (r->timestamp > j->now)
			j->now = r->timestamp;
		err = attempt(j, r);
		attempts++;
	}
	if (!err && !attempts && (nrec == 0 || strcmp(recs[0]->format, "sendmail")))
		err = other_line(j, s, line, len);
	expire(j);
	return err;
}

int smtpdiag_joiner_line(smtpdiag_joiner *j, smtpdiag_scanner *s, int rc, const char *line, size_t len)
{
	const smtpdiag_logrec *recs[SMTPDIAG_SCAN_MAX_RECORDS];
	int n = 0;

	if (!j || !s || (!line && len))
		return SMTPDIAG_EINVAL;
	j->cnt[SMTPDIAG_JOIN_LINES]++;
	if (!line || len > SMTPDIAG_SCAN_MAX_LINE || rc < 0)
		return 0;
	if (len && line[len - 1] == '\r')
		len--;
	while (n < rc && n < SMTPDIAG_SCAN_MAX_RECORDS && (recs[n] = smtpdiag_scanner_rec(s, (size_t)n)) != NULL)
		n++;
	return sd_joiner_recs(j, s, recs, n, line, len);
}

long smtpdiag_joiner_take(smtpdiag_joiner *j, smtpdiag_buf *out)
{
	long n;

	if (!j)
		return 0;
	n = j->ready_n;
	if (out && j->ready.len)
		smtpdiag_buf_append(out, j->ready.data, j->ready.len);
	j->ready.len = 0;
	j->ready_n = 0;
	return n;
}

long smtpdiag_joiner_finish(smtpdiag_joiner *j, smtpdiag_buf *out)
{
	jmsg *m;

	if (!j)
		return 0;
	while (j->ready_n < SMTPDIAG_JOIN_BATCH && (m = j->whead) != NULL)
		emit(j, m);
	while (j->ready_n < SMTPDIAG_JOIN_BATCH && (m = j->head) != NULL) {
		m->end = E_INPUT;
		emit(j, m);
	}
	return smtpdiag_joiner_take(j, out);
}

unsigned long smtpdiag_joiner_count(const smtpdiag_joiner *j, smtpdiag_join_counter which)
{
	if (!j || (unsigned)which > SMTPDIAG_JOIN_ATEND)
		return 0;
	if (which == SMTPDIAG_JOIN_OPEN)
		return (unsigned long)j->nopen;
	return j->cnt[which];
}
