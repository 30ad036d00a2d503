/* api_store.c - the store over HTTP (docs/store.md, "Over HTTP"):
 *   GET    /api/v1/suppressions?domain=&reason=&since=&limit=&cursor=
 *          {"results":[state...],"next":"CURSOR"|null}, by address; a page
 *          holds limit states (STORE_PAGE, STORE_MAX_PAGE at most); next is
 *          the cursor of the page after, null on the last
 *   GET    /api/v1/suppressions/{address}  {"state":{...},"history":[...],
 *          "history_omitted":N}: the newest STORE_MAX_HISTORY events, oldest
 *          first, and how many older ones are left out; 404 when the store
 *          does not know the address
 *   DELETE /api/v1/suppressions/{address}  release it, recorded with the
 *          token's name or "api"
 * and the recording of what POST /api/v1/events decodes. Who may read and
 * write: store_access.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>

#include "api_store.h"

#define STORE_PAGE 100          /* states a page holds unless ?limit= says */
#define STORE_MAX_PAGE 1000     /* ... at most */
#define STORE_MAX_HISTORY 1000  /* events of one address answered, the newest */
#define STORE_MAX_ARG 1000      /* bytes of ?domain=, ?reason=, ?cursor= and an address */
#define STORE_PREFIX "/api/v1/suppressions/"
#define STORE_MSG 256

/* ---- recording events ---- */

int store_rec_begin(hreq *r, int signed_ok, store_rec *sr)
{
	const char *who;
	int st;

	memset(sr, 0, sizeof(*sr));
	if (!store_on())
		return 0;
	if ((st = store_access(r, STORE_WRITE, signed_ok, &who, sr->why, sizeof(sr->why))) != 0)
		return st;
	if (!(sr->st = store_thread(sr->why, sizeof(sr->why)))) {
		r->retry_after = 1;
		return 503;
	}
	smtpdiag_store_counts_get(sr->st, &sr->before);
	return 0;
}

/* Store answers are per client and change with every record: never cached. */
static enum MHD_Result reply_store(hreq *r, smtpdiag_buf *b)
{
	enum MHD_Result ret;
	hbody *h;

	if (b->oom) {
		smtpdiag_buf_free(b);
		return reply_error(r, 500, "out of memory");
	}
	if (!(h = hbody_from_buf(b, "application/json", "no-store", HF_NO_ETAG)))
		return MHD_NO;
	ret = reply_body(r, 200, h);
	hbody_unref(h);
	return ret;
}

static void rec_failed(store_rec *sr, const smtpdiag_error *e)
{
	fprintf(stderr, "smtpdiag: serve: store: %s\n", e->message);
	sr->failed = 1;
	snprintf(sr->why, sizeof(sr->why), "the store failed: post again later");
}

void store_rec_fact(store_rec *sr, const smtpdiag_fact *f)
{
	smtpdiag_error e = { 0, "" };

	if (!sr->st || sr->failed)
		return;
	if (smtpdiag_store_add_fact(sr->st, f, &e) == SMTPDIAG_ESTORE)
		rec_failed(sr, &e);
}

int store_rec_end(store_rec *sr, smtpdiag_buf *b)
{
	smtpdiag_error e = { 0, "" };
	smtpdiag_store_counts c;

	if (!sr->st)
		return 0;
	if (!sr->failed && smtpdiag_store_flush(sr->st, &e) < 0)
		rec_failed(sr, &e);
	smtpdiag_store_counts_get(sr->st, &c);
	smtpdiag_buf_printf(b, ",\"store\":{\"recorded\":%llu,\"duplicates\":%llu,\"errors\":%llu",
			    (unsigned long long)(c.recorded - sr->before.recorded),
			    (unsigned long long)(c.duplicates - sr->before.duplicates),
			    (unsigned long long)(c.errors - sr->before.errors));
	if (sr->failed) {
		hb_puts(b, ",\"error\":");
		hb_json(b, sr->why);
		store_thread_drop();
	}
	hb_puts(b, "}");
	sr->st = NULL;
	return sr->failed ? 503 : 0;
}

/* ---- common ---- */

/* The store of this thread for a request that may do what; NULL after answering. */
static smtpdiag_store *store_for(hreq *r, int what, const char **who, enum MHD_Result *ret)
{
	char why[STORE_WHY];
	smtpdiag_store *s;
	int st;

	if (!store_on()) {
		*ret = reply_error(r, 404, "this server has no store (serve --store URL)");
		return NULL;
	}
	if ((st = store_access(r, what, 0, who, why, sizeof(why))) != 0) {
		*ret = store_refuse(r, st, why);
		return NULL;
	}
	if (!(s = store_thread(why, sizeof(why))))
		*ret = reply_busy(r, why);
	return s;
}

/* The library failed: 404, 400, or 503 (and the handle dropped when the store did). */
static enum MHD_Result store_error(hreq *r, int rc, const smtpdiag_error *e)
{
	if (rc == SMTPDIAG_ENOTFOUND)
		return reply_error(r, 404, e->message[0] ? e->message : "the store does not know the address");
	if (rc != SMTPDIAG_ESTORE && rc != SMTPDIAG_ENOMEM)
		return reply_error(r, status_of(rc), e->message[0] ? e->message : smtpdiag_strerror(rc));
	fprintf(stderr, "smtpdiag: serve: store: %s\n", e->message[0] ? e->message : smtpdiag_strerror(rc));
	store_thread_drop();
	return reply_busy(r, "the store failed; try again shortly");
}

/* ---- GET /api/v1/suppressions ---- */

typedef struct page {
	smtpdiag_buf b;
	size_t limit, n;
	char last[STORE_MAX_ARG + 1]; /* the last address on the page */
	int more;
} page;

static int on_state(void *ctx, const smtpdiag_addr_state *a)
{
	page *p = ctx;

	if (p->n == p->limit) {
		p->more = 1;
		return 1;
	}
	hb_puts(&p->b, p->n++ ? ",\n" : "\n");
	smtpdiag_addr_state_json(a, &p->b);
	snprintf(p->last, sizeof(p->last), "%s", a->address);
	return 0;
}

/* A whole decimal number in [min, max], or -1. */
static long long whole(const char *s, long long min, long long max)
{
	char *end;
	long long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	v = strtoll(s, &end, 10);
	return *end || v < min || v > max ? -1 : v;
}

/* ?since=: Unix seconds or YYYY-MM-DD (UTC); -1 when neither. */
static int64_t since_arg(const char *s)
{
	struct tm tm = { 0 };
	long long y, m, d;
	char buf[11];

	if (!s || !*s)
		return 0;
	if (strlen(s) != 10 || s[4] != '-' || s[7] != '-')
		return whole(s, 0, INT64_C(253402300799));
	memcpy(buf, s, sizeof(buf));
	buf[4] = buf[7] = '\0';
	if ((y = whole(buf, 1970, 9999)) < 0 || (m = whole(buf + 5, 1, 12)) < 0 || (d = whole(buf + 8, 1, 31)) < 0)
		return -1;
	tm.tm_year = (int)y - 1900;
	tm.tm_mon = (int)m - 1;
	tm.tm_mday = (int)d;
	return (int64_t)timegm(&tm);
}

/* Valid UTF-8 (jansson's check: a JSON string must be)? Store texts are UTF-8,
 * so a filter or an address that is not could match nothing: 400, not 503. */
static int utf8_ok(const char *s)
{
	json_t *j = json_string(s);

	json_decref(j);
	return j != NULL;
}

/* The filter and the page size from the query; an error message, or NULL. */
static const char *list_args(hreq *r, smtpdiag_store_filter *f, size_t *limit)
{
	const char *l = req_arg(r, "limit");
	const char *arg[3] = { req_arg(r, "domain"), req_arg(r, "reason"), req_arg(r, "cursor") };
	long long v;

	for (int i = 0; i < 3; i++)
		if (arg[i] && strlen(arg[i]) > STORE_MAX_ARG)
			return "?domain=, ?reason= and ?cursor= are 1000 bytes at most";
		else if (arg[i] && !utf8_ok(arg[i]))
			return "?domain=, ?reason= and ?cursor= must be UTF-8 (percent-encoded): this one has a byte that is not";
	*f = (smtpdiag_store_filter){ arg[0], arg[1], since_arg(req_arg(r, "since")), 0, arg[2] };
	if (f->since < 0)
		return "?since= takes Unix seconds or YYYY-MM-DD";
	*limit = STORE_PAGE;
	if (l && (v = whole(l, 1, STORE_MAX_PAGE)) < 0)
		return "?limit= takes a number from 1 to 1000";
	if (l)
		*limit = (size_t)v;
	return NULL;
}

enum MHD_Result api_suppressions(hreq *r)
{
	smtpdiag_error e = { 0, "" };
	smtpdiag_store_filter f;
	enum MHD_Result ret = MHD_NO;
	page p = { .b = { 0 } };
	const char *who, *msg;
	smtpdiag_store *s;
	int rc;

	if ((msg = list_args(r, &f, &p.limit)) != NULL)
		return reply_error(r, 400, msg);
	OFFLOAD_TO(r, JOB_STORE);
	if (!(s = store_for(r, STORE_READ, &who, &ret)))
		return ret;
	hb_puts(&p.b, "{\"results\":[");
	if ((rc = smtpdiag_store_suppressed(s, &f, on_state, &p, &e)) < 0) {
		smtpdiag_buf_free(&p.b);
		return store_error(r, rc, &e);
	}
	hb_puts(&p.b, p.n ? "\n],\"next\":" : "],\"next\":");
	if (p.more)
		hb_json(&p.b, p.last);
	else
		hb_puts(&p.b, "null");
	hb_puts(&p.b, "}\n");
	return reply_store(r, &p.b);
}

/* ---- /api/v1/suppressions/{address} ---- */

/* The newest STORE_MAX_HISTORY events: each is ",\n{...}" in ev at off[i];
 * at twice the window the older half is dropped. */
typedef struct hist {
	smtpdiag_buf st, ev;
	size_t off[2 * STORE_MAX_HISTORY];
	size_t n;
	uint64_t total;
} hist;

static int on_addr(void *ctx, const smtpdiag_addr_state *a)
{
	smtpdiag_addr_state_json(a, &((hist *)ctx)->st);
	return 0;
}

static int on_hist(void *ctx, const smtpdiag_store_event *ev)
{
	hist *h = ctx;

	if (h->ev.oom)
		return 1; /* answered 500 */
	if (h->n == 2 * STORE_MAX_HISTORY) {
		size_t cut = h->off[STORE_MAX_HISTORY];
		memmove(h->ev.data, h->ev.data + cut, h->ev.len - cut);
		h->ev.len -= cut;
		for (size_t i = 0; i < STORE_MAX_HISTORY; i++)
			h->off[i] = h->off[i + STORE_MAX_HISTORY] - cut;
		h->n = STORE_MAX_HISTORY;
	}
	h->off[h->n++] = h->ev.len;
	h->total++;
	hb_puts(&h->ev, ",\n");
	smtpdiag_store_event_json(ev, &h->ev);
	return 0;
}

static enum MHD_Result show(hreq *r, smtpdiag_store *s, const char *addr)
{
	smtpdiag_error e = { 0, "" };
	hist *h = calloc(1, sizeof(*h));
	smtpdiag_buf b = { 0 };
	size_t keep, from;
	int rc;

	if (!h)
		return reply_error(r, 503, "out of memory");
	if ((rc = smtpdiag_store_show(s, addr, 0, on_addr, on_hist, h, &e)) < 0) {
		smtpdiag_buf_free(&h->st);
		smtpdiag_buf_free(&h->ev);
		free(h);
		return store_error(r, rc, &e);
	}
	keep = h->n < STORE_MAX_HISTORY ? h->n : STORE_MAX_HISTORY;
	from = keep ? h->off[h->n - keep] + 1 : 0; /* past the first comma */
	hb_puts(&b, "{\"state\":");
	hb_put(&b, h->st.data, h->st.len);
	hb_puts(&b, ",\"history\":[");
	if (keep && !h->ev.oom)
		hb_put(&b, h->ev.data + from, h->ev.len - from);
	smtpdiag_buf_printf(&b, "%s],\"history_omitted\":%llu}\n", keep ? "\n" : "",
			    (unsigned long long)(h->total - keep));
	b.oom |= h->st.oom | h->ev.oom;
	smtpdiag_buf_free(&h->st);
	smtpdiag_buf_free(&h->ev);
	free(h);
	return reply_store(r, &b);
}

static enum MHD_Result release(hreq *r, smtpdiag_store *s, const char *addr, const char *who)
{
	smtpdiag_error e = { 0, "" };
	smtpdiag_buf b = { 0 };
	int rc;

	if ((rc = smtpdiag_store_release(s, addr, who, 0, &e)) < 0)
		return store_error(r, rc, &e);
	hb_puts(&b, "{\"address\":");
	hb_json(&b, addr);
	smtpdiag_buf_printf(&b, ",\"released\":true,\"was_suppressed\":%s,\"by\":", rc ? "true" : "false");
	hb_json(&b, who);
	hb_puts(&b, "}\n");
	return reply_store(r, &b);
}

enum MHD_Result api_suppression(hreq *r)
{
	const char *addr = r->url + strlen(STORE_PREFIX), *who;
	int write = r->method == HM_DELETE;
	enum MHD_Result ret = MHD_NO;
	smtpdiag_store *s;

	if (!*addr || strchr(addr, '/'))
		return reply_error(r, 404, "no such page: /api/v1/suppressions/ADDRESS");
	if (strlen(addr) > STORE_MAX_ARG)
		return reply_error(r, 400, "the address is over 1000 bytes");
	if (!utf8_ok(addr))
		return reply_error(r, 400, "the address must be UTF-8 (percent-encoded): it has a byte that is not; "
				   "the store keys such a byte as U+FFFD and its two hex digits (docs/store.md)");
	OFFLOAD_TO(r, JOB_STORE);
	if (!(s = store_for(r, write ? STORE_WRITE : STORE_READ, &who, &ret)))
		return ret;
	return write ? release(r, s, addr, who) : show(r, s, addr);
}
