/* httpd_int.h - what the parts of the HTTP front end share. */
#ifndef SMTPDIAG_HTTPD_INT_H
#define SMTPDIAG_HTTPD_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include <microhttpd.h>

#include "smtpdiag.h"
#include "httpd.h"

/* Methods, as bits for route tables. HEAD is served wherever GET is. */
enum { HM_GET = 1, HM_HEAD = 2, HM_POST = 4, HM_OTHER = 8, HM_OPTIONS = 16, HM_DELETE = 32 };

/* Kinds of request body a route accepts (checked against Content-Type). */
enum { HB_NONE = 0, HB_TEXT, HB_FORM, HB_MAIL, HB_EVENTS };

#define HTTPD_LOG_URI 512 /* bytes of the request target kept for the log */
#define HTTPD_REQID_MAX 64 /* bytes of an X-Request-Id taken from a client */
#define HTTPD_RETRY_AFTER "5"  /* seconds, in a 503 */
#define HTTPD_PAGE_CACHE "public, max-age=300" /* pages and cacheable GETs */

/* One request, from the first byte of its request line to its log line. */
typedef struct hreq {
	struct MHD_Connection *conn;
	const httpd_config *cfg;
	const char *url;          /* decoded path; valid while the handler runs */
	unsigned method;          /* HM_* */
	int route;                /* index in the route table, -1 for none */
	int started;
	int over;                 /* body over max_body: discarded, answered 413 */
	int full;                 /* bodies over max_body_total: discarded, answered 503 */
	int close;                /* answer with Connection: close */
	int retry_after;          /* answer with Retry-After (seconds) */
	struct hconn *hc;         /* its connection (guard.c); NULL if untracked */
	/* the handler pool (jobs.c) */
	int job;                  /* sent to the pool: the next call takes the response */
	int in_job;               /* the handler runs on a pool thread */
	atomic_int refs;          /* the connection and, while it runs, the job */
	pthread_mutex_t lock;     /* pending, queued: between the job and the connection */
	pthread_cond_t cond;
	struct MHD_Response *pending; /* the response handed to the connection thread */
	int pstatus;
	int queued;               /* the connection thread queued it; qret is the result */
	enum MHD_Result qret;
	struct timespec tq;       /* when it was queued (CLOCK_MONOTONIC) */
	int status;               /* answered status, 0 before */
	uint64_t bytes;           /* body bytes answered */
	size_t hsize;             /* bytes of the request line and headers */
	char *body;               /* request body, NUL-terminated */
	size_t blen, bcap;
	struct timespec t0;
	char mname[16];
	char version[12];
	char uri[HTTPD_LOG_URI];
	char reqid[HTTPD_REQID_MAX + 1]; /* X-Request-Id: the client's, checked, or made */
} hreq;

/* ---- buffers (hbuf.c): appenders over smtpdiag_buf; oom is sticky ---- */
void hb_put(smtpdiag_buf *b, const char *p, size_t n);
void hb_puts(smtpdiag_buf *b, const char *s);
void hb_html(smtpdiag_buf *b, const char *p, size_t n); /* HTML-escaped text */
void hb_htmls(smtpdiag_buf *b, const char *s);
void hb_url(smtpdiag_buf *b, const char *s);            /* percent-encoded component */
void hb_json(smtpdiag_buf *b, const char *s);           /* quoted JSON string */
/* Decode one application/x-www-form-urlencoded field in place; NULL when absent. */
char *form_field(char *body, size_t len, const char *name, size_t *outlen);

/* ---- responses (server.c) ---- */
/* Headers every response carries: type, CSP, nosniff, referrer policy. */
void reply_headers(struct MHD_Response *resp, const char *ctype);
/* Answer with b's bytes (ownership moves to the response, even on failure). */
enum MHD_Result reply_buf(hreq *r, int status, const char *ctype, smtpdiag_buf *b);
/* Answer with a response kept elsewhere (static or cached); not destroyed here. */
enum MHD_Result reply_shared(hreq *r, int status, struct MHD_Response *resp, size_t len);
/* Error as JSON for the API, as a page otherwise. */
enum MHD_Result reply_error(hreq *r, int status, const char *msg);
/* "10 MB", "64 KB", "1000 bytes" */
void human_size(char *out, size_t cap, size_t n);
/* The 413 message for a body over max bytes, in words and bytes. */
void body_limit_msg(char *out, size_t cap, size_t max);
/* "GET, HEAD, POST, DELETE, OPTIONS" for the methods (HM_*) into out. */
void allow_list(char *out, size_t cap, unsigned methods);
/* 405 with an Allow header. */
enum MHD_Result reply_405(hreq *r, unsigned allowed);
/* Value of a query argument, or NULL. */
const char *req_arg(hreq *r, const char *name);
/* 503 with Retry-After: too much is held or queued right now. */
enum MHD_Result reply_busy(hreq *r, const char *msg);
/* Drop a reference to r; the last one frees it. */
void hreq_release(hreq *r);
/* Is this request for the JSON API? */
int req_is_api(const hreq *r);
/* A decoder of this thread for these flags, with the user rules (never freed
 * by the caller). */
smtpdiag_decoder *thread_decoder(unsigned flags);
/* The user rules of the server (--rules), NULL when none: shared read-only. */
const smtpdiag_rules *serve_rules(void);

/* ---- conventions (conv.c): bodies with ETags and gzip twins, 304, CORS, ids ---- */
enum { HF_NO_ETAG = 1, HF_GZIP_NOW = 2, HF_GZIP_KEEP = 4 };
/* A finished body, shared by reference: each answer is a response of its own
 * over the same bytes, so it can carry its request's id. */
typedef struct hbody {
	atomic_int refs;
	char *data;
	size_t len;
	int owned;              /* data is freed with the body */
	unsigned flags;         /* HF_* */
	const char *ctype, *cache; /* static strings; cache NULL for none */
	char etag[24];          /* strong, from the bytes; "" with HF_NO_ETAG */
	int gzip_able;          /* worth a gzip twin (text, big enough) */
	_Atomic(struct hbody *) gz; /* the gzip twin, made at the first answer that takes it */
} hbody;
/* One reference to a new body over data (freed with it when owned, even on
 * failure); HF_GZIP_NOW makes the gzip twin now (fast), HF_GZIP_KEEP when a
 * client first takes it (best). NULL on failure. */
hbody *hbody_new(char *data, size_t len, int owned, const char *ctype, const char *cache, unsigned flags);
/* The same over b's bytes (taken from b). */
hbody *hbody_from_buf(smtpdiag_buf *b, const char *ctype, const char *cache, unsigned flags);
void hbody_ref(hbody *h);
void hbody_unref(hbody *h);
/* Answer with h: 304 when If-None-Match names it, its gzip twin when accepted. */
enum MHD_Result reply_body(hreq *r, int status, hbody *h);
/* OPTIONS: 204, Allow; on the API with the CORS preflight headers. */
enum MHD_Result reply_options(hreq *r, unsigned methods);
/* Headers of this request's answer: its id, CORS on the API, close, Retry-After. */
void req_headers(hreq *r, struct MHD_Response *resp);
int req_gzip_ok(hreq *r);
void reqid_init(void);
/* Take the client's X-Request-Id if it is fit to echo and log, else make one. */
void reqid_take(hreq *r);

/* ---- routes (routes.c) ---- */
typedef enum MHD_Result (*route_fn)(hreq *r);
typedef struct route {
	const char *path;
	int prefix;       /* path is a prefix ("/code/") */
	unsigned methods; /* HM_* */
	int body;         /* HB_* for POST */
	route_fn fn;
	int store;        /* a store route: CORS only for --cors-origin (conv.c) */
} route;
#define HTTPD_ROUTES_MAX 32 /* entries of the route table (checked at build time) */
int route_find(const char *url);
const route *route_at(int i);
const route *route_at_or_null(int i); /* NULL past the end */
int route_for_metrics(int i); /* /metrics or /healthz: what --metrics-listen answers */
int routes_init(void);    /* build the static responses; 0 or -1 */
void routes_free(void);

/* ---- pages (pages.c, index.c, layout.c) ---- */
enum MHD_Result page_index(hreq *r);
enum MHD_Result page_code(hreq *r);
enum MHD_Result page_analyze(hreq *r);
void page_begin(smtpdiag_buf *b, const char *title, const char *code);
void page_end(smtpdiag_buf *b);
void page_error(smtpdiag_buf *b, int status, const char *msg);
void render_index(smtpdiag_buf *b, const char *q, const char *filter);
void index_init(void);
/* The index as a JSON array (/api/v1/codes). */
void codes_json(smtpdiag_buf *b);
/* Title of a code in the knowledge base ("4.3.1" falls back to "X.3.1"), or NULL. */
const char *index_title(const char *code);
/* The index row of exactly this code ("X.1.1", "550"), or NULL. */
const smtpdiag_code_info *index_info(const char *code);
/* A link to a code's page: <a href="/code/...">code</a>, escaped. */
void link_code(smtpdiag_buf *b, const char *code);
extern const char css_text[], js_text[], icon_svg[];
extern const size_t css_len, js_len, icon_len;

/* ---- the verdict banner (verdict.c) ---- */
typedef struct vview {
	const char *advice;             /* advice word ("retry", "suppress-recipient", ...) */
	const char *reason;             /* reason name; NULL, "" or "undefined": none known */
	int retry;
	smtpdiag_class klass;           /* of the reply or status; NONE when it has none */
	const char *allowed;            /* a status without a class: the classes the registry
					 * allows it ("5", "4,5", "any"); else NULL */
	const char *const *fixers;      /* who acts, as a list */
	const char *short_answer;       /* may be NULL */
	const char *headline;           /* NULL: from the fields */
} vview;
/* What the verdict says happened: nothing failed, a temporary or a permanent
 * failure, or a failure of either class (a status allowed in both). */
typedef enum { VK_OK, VK_TEMP, VK_PERM, VK_FAIL } vkind;
vkind verdict_kind(const vview *v);
void verdict_banner(smtpdiag_buf *b, const vview *v, const char *id);
const char *verdict_tone(const vview *v); /* "v-retry", "v-suppress", "v-fix", "v-none" */
const char *advice_text(const char *advice); /* the library's words, never NULL */
int advice_suppresses(const char *advice);
const char *advice_tone(const char *advice, int retry); /* of an advice word alone (the summary) */
/* Who acts, in plain words joined naturally ("the sender's mail admin");
 * with no one named, "nobody: nothing failed" when ok, else "not known". */
void fixers_words(smtpdiag_buf *b, const char *const *fixers, int ok);
/* A reason's meaning with its name linked to /reasons#name. */
void link_reason(smtpdiag_buf *b, const char *reason);
void render_reasons(smtpdiag_buf *b);

/* ---- the summary of an analysis (summary.c) ---- */
#define TALLY_KEYS 48 /* distinct advice words or reasons counted; more go to "other" */
#define TALLY_KEY 40
typedef struct tally {
	char key[TALLY_KEYS][TALLY_KEY];
	size_t n[TALLY_KEYS];
	size_t len, other;
} tally;
typedef struct summary {
	tally advice, reason;
	size_t facts;
} summary;
void summary_add(summary *s, const char *advice, const char *reason);
/* Counts first; shown: how many cards follow. */
void summary_html(smtpdiag_buf *b, const summary *s, size_t shown);

/* ---- metrics (metrics.c): GET /metrics ---- */
enum { M_TOO_LARGE, M_WRONG_TYPE, M_BUSY, M_BAD_FRAMING, M_REFUSED };
void metrics_request(int route, int status, double seconds);
void metrics_in_flight(int delta); /* +1 when a request line comes, -1 after its log line */
void metrics_verdict(const char *reason, const char *advice);
void metrics_decode_errors(size_t n);
void metrics_refused(int why); /* M_* */
void metrics_text(smtpdiag_buf *b);
enum MHD_Result page_metrics(hreq *r);

/* ---- OpenAPI (openapi.c) ---- */
void openapi_json(smtpdiag_buf *b);
void render_api(smtpdiag_buf *b);

/* ---- JSON API (api.c) ---- */
enum MHD_Result api_explain(hreq *r);
enum MHD_Result api_decode(hreq *r);
enum MHD_Result api_codes(hreq *r);
enum MHD_Result api_health(hreq *r);
enum MHD_Result api_events(hreq *r); /* api_events.c */
/* Explain with mode "auto" (a code first, then any text), "code", "text" or "file". */
int explain_query(const char *q, size_t n, const char *mode, smtpdiag_explanation **e,
		  smtpdiag_error *err);
/* A reference's link into out ("RFC 5321 section 4.2.3" -> rfc-editor.org); 0 when none. */
int ref_url(const char *ref, char *out, size_t cap);
/* HTTP status for a library error code. */
int status_of(int rc);

/* ---- cache (cache.c): a bounded table of finished responses ---- */
/* 1: answered from the cache, 0: not there, -1: found but queueing failed. */
int cache_reply(hreq *r, const char *key);
/* Keep h under key (takes the caller's reference) and answer r with it. */
enum MHD_Result cache_put_reply(hreq *r, const char *key, int status, hbody *h);
void cache_clear(void);

/* ---- Host and Origin (origin.c) ---- */
/* Check --cors-origin and --allowed-host, and make the host names (the
 * defaults for the socket fd when none is given); 0 or -1 with why in err. */
int origin_start(const httpd_config *c, int fd, char *err, size_t errlen);
/* Does the request's Host name this server (or is there none, HTTP/1.0)? */
int host_allowed(hreq *r);
/* Is o one of the --cors-origin values (NULL: no)? */
int origin_allowed(const char *o);
/* The request's Origin, or NULL. */
const char *req_origin(hreq *r);
/* Cross-site: an Origin neither the server's own nor allowed, or a
 * Sec-Fetch-Site of cross-site or same-site from an origin not allowed. */
int req_cross_site(hreq *r);

/* ---- the wire (wire.c): the bytes MHD reads, checked before it parses them ---- */
typedef struct wire {
	int state, cr;             /* the scanner: where it is; a CR was the last byte */
	int part;                  /* of the request line: method, target, version */
	size_t plen;               /* bytes of the current part, name or chunk-size */
	char name[20];             /* the start of a field name (the longest looked for has 17) */
	char value[8];             /* the start of a Transfer-Encoding value */
	size_t vlen;
	int vgap, cdone, cdigits;  /* a space inside a coding; after a length's digits */
	int field;                 /* which field the value is of */
	int hosts, lengths, codings, chunked, trailer, http11;
	char vmajor;
	uint64_t clen, length;     /* the Content-Length read; body or chunk bytes left */
	unsigned long blocks;      /* header blocks begun on this connection */
	unsigned long bad_at;      /* the first one found bad, 0 for none */
	const char *why;           /* why it is bad (static) */
	unsigned long started;     /* requests MHD began (server.c) */
	atomic_int waiting;        /* a job holds the answer (jobs.c) */
	atomic_int eof;            /* the client ended its side meanwhile */
} wire;
/* Scan n more bytes of a connection (wire_scan.c); once bad, the rest is not
 * looked at. A wire starts zeroed. */
void wire_scan(wire *w, const unsigned char *p, size_t n);
/* Look up recv() and make the table of sockets up to max_fd; 0 or -1. */
int wire_start(unsigned long max_fd);
/* Scan what fd receives into w (reset here) / no longer. */
void wire_track(int fd, wire *w);
void wire_untrack(int fd);

/* ---- guard (guard.c): deadlines, framing, the body account ---- */
struct hconn;
/* MHD_OPTION_NOTIFY_CONNECTION: track each connection and its request deadline. */
void guard_on_conn(void *cls, struct MHD_Connection *conn, void **ctx, enum MHD_ConnectionNotificationCode code);
/* Start the watchdog that cuts requests past request_timeout; 0 or -1. */
int guard_start(const httpd_config *c);
void guard_stop(void);
struct hconn *guard_conn(struct MHD_Connection *conn);
/* The request is read (no deadline now) / answered (the next one has one). */
void guard_request_read(struct hconn *h);
void guard_request_done(struct hconn *h);
/* The wire of a connection, NULL if untracked. */
wire *guard_wire(struct hconn *h);
/* Was this connection cut by the watchdog? */
int guard_was_cut(const struct hconn *h);
/* NULL when Content-Length and Transfer-Encoding frame the body unambiguously,
 * else why not. */
const char *guard_framing(struct MHD_Connection *conn);
/* Reserve n more body bytes against max_body_total: 0, or -1 when full. */
int guard_body_take(size_t n);
void guard_body_give(size_t n);
/* Would n more bytes fit now? */
int guard_body_room(size_t n);

/* ---- the handler pools (jobs.c) ---- */
enum { JOB_MAIN, JOB_STORE, JOB_POOLS };
/* Both pools, as many threads each (the store's only when there is a store). */
int jobs_start(unsigned threads);
/* No new jobs from now on; how many are still queued or running. */
unsigned jobs_close(void);
/* Stop and join the pool; only when jobs_close() said 0. */
void jobs_stop(void);
/* On a connection thread: suspend the connection, run the handler on pool
 * which (JOB_MAIN when JOB_STORE has no threads). */
enum MHD_Result job_submit_to(hreq *r, int which);
/* On a connection thread, after the resume: queue the response the job handed over. */
enum MHD_Result job_resumed(hreq *r);
/* The connection is done (answered, closed by the client, cut): a job still
 * waiting to hand its response over gives up at once instead of after
 * JOB_HANDOVER_MS, which would hold a pool thread per closed connection. */
void job_conn_gone(hreq *r);
/* On a pool thread: hand resp to the connection thread and wait until it is queued. */
enum MHD_Result job_handover(hreq *r, int status, struct MHD_Response *resp);
/* In a handler, before the work that calls the library: on a connection thread
 * send the request to the pool, where the handler runs again from its start
 * (what comes before OFFLOAD must not change the request). */
#define OFFLOAD(r) OFFLOAD_TO(r, JOB_MAIN)
/* The same on pool which: JOB_STORE for the work that reads or writes the store. */
#define OFFLOAD_TO(r, which) do { if (!(r)->in_job) return job_submit_to(r, which); } while (0)

/* ---- listening and privileges (listen.c) ---- */
/* Open, bind and listen; where gets "HOST:PORT". Returns the socket or -1. */
int listen_open(const char *spec, char *err, size_t errlen, char *where, size_t wcap);
/* Raise the soft limit of open files to the hard one; returns the soft limit. */
unsigned long listen_fd_limit(void);
/* A socket passed by systemd (LISTEN_PID, LISTEN_FDS): the socket, -2 when none
 * was passed, -1 (err says why) when it is not one listening stream socket. */
int listen_passed(char *err, size_t errlen, char *where, size_t wcap);
/* Tell systemd (NOTIFY_SOCKET) a state such as "READY=1"; nothing without it. */
void listen_notify(const char *msg);
/* Is the socket bound to a loopback address (127.0.0.0/8, ::1, ::ffff:127.x)? */
int listen_is_loopback(int fd);
/* Warn on stderr about what an operator should know: beyond loopback, root. */
/* can_drop: the command has --user (serve), so the root warning names it */
void listen_warn(int fd, const char *where, const char *user, int can_drop);
extern const char *httpd_prog; /* "serve", or httpd_config.prog of the running server */
/* Become user (groups, gid, uid) and check root cannot come back; 0 or -1. */
int listen_drop(const char *user, char *err, size_t errlen);

/* FNV-1a, 64 bits (the library's core/util.h has its own; a front end
 * includes only the public header): for the ETag and the page cache. */
static inline uint64_t httpd_fnv1a(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * UINT64_C(0x100000001b3);
	return h;
}

#endif
