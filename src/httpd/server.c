/* server.c - smtpdiag serve on libmicrohttpd: limits, the request lifecycle,
 * responses with the security headers, the access log, start and shutdown.
 *
 * Threads: MHD's internal pool (cfg->threads, epoll) reads and writes the
 * connections and answers what is cheap; the handler pool (jobs.c, as many
 * threads) runs what calls the library; a watchdog (guard.c) cuts requests past
 * their deadline. Each request is one hreq, made when its request line arrives
 * (URI log callback) and released after its log line (completed callback).
 * Bodies are read into memory up to max_body, and all of them together up to
 * max_body_total; a Content-Length over either is answered before the body is
 * read. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "httpd_int.h"
#include "api_store.h"

#define HTTPD_DRAIN_MS 3000    /* how long shutdown waits for requests in flight */
#define HTTPD_FD_SPARE 64      /* descriptors kept for other uses than connections */

static const char csp[] = "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/* The command the server's messages name (httpd_config.prog). */
const char *httpd_prog = "serve";

void httpd_config_init(httpd_config *c)
{
	c->listen = HTTPD_LISTEN;
	c->prog = "serve";
	c->max_body = HTTPD_MAX_BODY;
	c->max_header = HTTPD_MAX_HEADER;
	c->max_conn = HTTPD_MAX_CONN;
	c->max_conn_per_ip = HTTPD_MAX_CONN_PER_IP;
	c->max_body_total = HTTPD_MAX_BODY_TOTAL;
	c->timeout = HTTPD_TIMEOUT;
	c->request_timeout = HTTPD_REQUEST_TIMEOUT;
	c->user = NULL;
	c->threads = HTTPD_THREADS;
	c->access_log = 1;
	c->access_log_format = HTTPD_LOG_COMMON;
	c->rules = NULL;
	c->allowed_hosts = c->cors_origins = NULL;
	c->n_allowed_hosts = c->n_cors_origins = 0;
	c->metrics_only = 0;
	c->side_start = NULL;
	c->side_stop = NULL;
	c->side_ctx = NULL;
}

/* ---- per-thread decoders ---- */

#define NDEC 32 /* one per combination of the five decode flags */
static pthread_key_t dec_key;
static const smtpdiag_rules *user_rules; /* set once before the threads start */

const smtpdiag_rules *serve_rules(void)
{
	return user_rules;
}

static void dec_free(void *p)
{
	smtpdiag_decoder **v = p;

	for (int i = 0; i < NDEC; i++)
		smtpdiag_decoder_free(v[i]);
	free(v);
}

smtpdiag_decoder *thread_decoder(unsigned flags)
{
	smtpdiag_decoder **v = pthread_getspecific(dec_key);

	flags &= NDEC - 1;
	if (!v) {
		v = calloc(NDEC, sizeof(*v));
		if (!v || pthread_setspecific(dec_key, v) != 0) {
			free(v);
			return NULL;
		}
	}
	if (!v[flags] && (v[flags] = smtpdiag_decoder_new(flags)) &&
	    smtpdiag_decoder_set_rules(v[flags], user_rules) < 0) {
		smtpdiag_decoder_free(v[flags]);
		v[flags] = NULL;
	}
	return v[flags];
}

/* ---- responses ---- */

void reply_headers(struct MHD_Response *resp, const char *ctype)
{
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	MHD_add_response_header(resp, "Content-Security-Policy", csp);
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(resp, "X-Frame-Options", "DENY");
}

enum MHD_Result reply_shared(hreq *r, int status, struct MHD_Response *resp, size_t len)
{
	r->status = status;
	r->bytes = len;
	if (r->in_job)
		return job_handover(r, status, resp);
	return MHD_queue_response(r->conn, (unsigned)status, resp);
}

/* Pages and GETs that answer 200 get an ETag and may be cached; the rest not. */
enum MHD_Result reply_buf(hreq *r, int status, const char *ctype, smtpdiag_buf *b)
{
	int get = (r->method == HM_GET || r->method == HM_HEAD) && status == 200;
	unsigned flags = (req_gzip_ok(r) ? HF_GZIP_NOW : 0) | (get ? 0 : HF_NO_ETAG);
	const char *cache = get ? HTTPD_PAGE_CACHE : r->method == HM_POST || req_is_api(r) ? "no-store" : NULL;
	enum MHD_Result ret;
	hbody *h;

	if (b->oom) {
		smtpdiag_buf_free(b);
		if (status == 500)
			return MHD_NO;
		return reply_error(r, 500, "out of memory");
	}
	if (!(h = hbody_from_buf(b, ctype, cache, flags)))
		return MHD_NO;
	ret = reply_body(r, status, h);
	hbody_unref(h);
	return ret;
}

int req_is_api(const hreq *r)
{
	return !strncmp(r->uri, "/api/", 5) || !strncmp(r->uri, "/healthz", 8);
}

enum MHD_Result reply_error(hreq *r, int status, const char *msg)
{
	smtpdiag_buf b = { 0 };

	if (req_is_api(r)) {
		hb_puts(&b, "{\"error\":");
		hb_json(&b, msg);
		smtpdiag_buf_printf(&b, ",\"status\":%d}\n", status);
		return reply_buf(r, status, "application/json", &b);
	}
	page_error(&b, status, msg);
	return reply_buf(r, status, "text/html; charset=utf-8", &b);
}

enum MHD_Result reply_busy(hreq *r, const char *msg)
{
	r->retry_after = 1;
	return reply_error(r, 503, msg);
}

void allow_list(char *out, size_t cap, unsigned methods)
{
	snprintf(out, cap, "%s%s%sOPTIONS", methods & HM_GET ? "GET, HEAD, " : "",
		 methods & HM_POST ? "POST, " : "", methods & HM_DELETE ? "DELETE, " : "");
}

enum MHD_Result reply_405(hreq *r, unsigned allowed)
{
	struct MHD_Response *resp;
	smtpdiag_buf b = { 0 };
	char allow[48] = "";
	enum MHD_Result ret;

	allow_list(allow, sizeof(allow), allowed);
	if (req_is_api(r)) {
		char msg[96];
		snprintf(msg, sizeof(msg), "method %s not allowed here; use %s", r->mname, allow);
		hb_puts(&b, "{\"error\":");
		hb_json(&b, msg); /* the method is the client's: escaped like any text */
		smtpdiag_buf_printf(&b, ",\"status\":405}\n");
	} else {
		char msg[96];
		snprintf(msg, sizeof(msg), "Method %s is not allowed here; use %s.", r->mname, allow);
		page_error(&b, 405, msg);
	}
	if (b.oom || !(resp = MHD_create_response_from_buffer_with_free_callback(b.len, b.data, free))) {
		smtpdiag_buf_free(&b);
		return MHD_NO;
	}
	reply_headers(resp, req_is_api(r) ? "application/json" : "text/html; charset=utf-8");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
	req_headers(r, resp);
	ret = reply_shared(r, 405, resp, b.len);
	MHD_destroy_response(resp);
	return ret;
}

const char *req_arg(hreq *r, const char *name)
{
	return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, name);
}

/* ---- the request lifecycle ---- */

static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
	hreq *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->cfg = cls;
	r->conn = conn;
	r->route = -1;
	atomic_init(&r->refs, 1);
	r->hc = guard_conn(conn);
	if (guard_wire(r->hc))
		guard_wire(r->hc)->started++;
	clock_gettime(CLOCK_MONOTONIC, &r->t0);
	snprintf(r->uri, sizeof(r->uri), "%s", uri ? uri : "");
	r->hsize = uri ? strlen(uri) + 16 : 16; /* the request line */
	metrics_in_flight(1);
	return r;
}

static unsigned method_bit(const char *m)
{
	if (!strcmp(m, "GET"))
		return HM_GET;
	if (!strcmp(m, "HEAD"))
		return HM_HEAD;
	if (!strcmp(m, "POST"))
		return HM_POST;
	if (!strcmp(m, "DELETE"))
		return HM_DELETE;
	if (!strcmp(m, "OPTIONS"))
		return HM_OPTIONS;
	return HM_OTHER;
}

/* Does the request's Content-Type name one of the types of this body kind? */
static int type_ok(hreq *r, int kind)
{
	static const char *const text[] = { "text/plain", "application/x-www-form-urlencoded", "application/json", NULL };
	static const char *const form[] = { "application/x-www-form-urlencoded", NULL };
	static const char *const mail[] = { "message/rfc822", "message/global", "application/mbox",
					    "text/plain", "application/octet-stream", NULL };
	static const char *const events[] = { "application/json", "application/x-ndjson", "application/jsonl",
					      "application/x-www-form-urlencoded", "text/plain",
					      "application/octet-stream", NULL };
	const char *const *ok = kind == HB_FORM ? form : kind == HB_MAIL ? mail : kind == HB_EVENTS ? events : text;
	const char *ct = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);

	if (!ct || !*ct)
		return kind != HB_FORM;
	while (*ct == ' ')
		ct++;
	for (; *ok; ok++) {
		size_t n = strlen(*ok);
		if (!strncasecmp(ct, *ok, n) && (!ct[n] || ct[n] == ';' || ct[n] == ' '))
			return 1;
	}
	return 0;
}

/* "request body over the limit of 10 MB (10485760 bytes)" */
void body_limit_msg(char *out, size_t cap, size_t max)
{
	char words[32];

	human_size(words, sizeof(words), max);
	snprintf(out, cap, "request body over the limit of %s (%zu bytes)", words, max);
}

void human_size(char *out, size_t cap, size_t n)
{
	if (n >= ((size_t)1 << 20) && n % ((size_t)1 << 20) == 0)
		snprintf(out, cap, "%zu MB", n >> 20);
	else if (n >= 1024 && n % 1024 == 0)
		snprintf(out, cap, "%zu KB", n >> 10);
	else
		snprintf(out, cap, "%zu bytes", n);
}

static enum MHD_Result start_body(hreq *r, const route *rt)
{
	const char *cl = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	unsigned long long n = cl ? strtoull(cl, NULL, 10) : 0;
	char msg[128];

	if (rt->body == HB_FORM && n > r->cfg->max_body)
		n = r->cfg->max_body; /* a form keeps what fits: the page shows it again */
	if (n > r->cfg->max_body) {
		metrics_refused(M_TOO_LARGE);
		body_limit_msg(msg, sizeof(msg), r->cfg->max_body);
		return reply_error(r, 413, msg);
	}
	if (n && !guard_body_room((size_t)n)) {
		metrics_refused(M_BUSY);
		return reply_busy(r, "too many request bodies held right now; try again shortly");
	}
	if (!type_ok(r, rt->body) && (metrics_refused(M_WRONG_TYPE), 1))
		return reply_error(r, 415, rt->body == HB_FORM ? "send the form as application/x-www-form-urlencoded"
				   : rt->body == HB_MAIL ? "send the email as message/rfc822, application/mbox or text/plain"
				   : rt->body == HB_EVENTS ? "send the events as application/json or form-encoded"
				   : "send the text as text/plain, a form or JSON ({\"q\": \"...\"})");
	return MHD_YES;
}

static enum MHD_Result add_header_size(void *cls, enum MHD_ValueKind kind, const char *k, const char *v)
{
	hreq *r = cls;

	(void)kind;
	r->hsize += strlen(k) + (v ? strlen(v) : 0) + 4; /* "K: V\r\n" */
	return MHD_YES;
}

/* Why the bytes of this request's header block are bad (wire.c), or NULL. */
static const char *wire_bad(const hreq *r)
{
	const wire *w = guard_wire(r->hc);

	return w && w->bad_at && w->bad_at <= w->started ? w->why : NULL;
}

/* The first call, headers read: check what can be checked. MHD closes the
 * connection after a response queued now, so only a request whose body we
 * refuse (ambiguous framing, 404, 405, 413, 415, 503 to a POST) is answered at
 * once; the rest waits for the next call and keeps its connection alive.
 * A Host the server does not answer to (origin.c) is 421 at once, whatever
 * the method: a rebound name gets nothing. */
static enum MHD_Result start(hreq *r, const char *url, const char *method, const char *version)
{
	const route *rt;
	const char *bad;

	r->started = 1;
	snprintf(r->mname, sizeof(r->mname), "%s", method);
	snprintf(r->version, sizeof(r->version), "%s", version);
	r->method = method_bit(method);
	reqid_take(r);
	if ((bad = wire_bad(r)) != NULL || (bad = guard_framing(r->conn)) != NULL) {
		char msg[128];
		snprintf(msg, sizeof(msg), "%s: %s", wire_bad(r) ? "malformed request" : "ambiguous request framing", bad);
		metrics_refused(M_BAD_FRAMING);
		r->close = 1;
		return reply_error(r, 400, msg);
	}
	if (!host_allowed(r)) {
		metrics_refused(M_REFUSED);
		r->close = 1;
		return reply_error(r, 421, "this server does not answer to that Host name (serve --allowed-host "
				   "names the ones it does)");
	}
	MHD_get_connection_values(r->conn, MHD_HEADER_KIND, add_header_size, r);
	r->route = route_find(url);
	if (r->cfg->metrics_only && !route_for_metrics(r->route))
		r->route = -1;
	if (r->method != HM_POST && r->method != HM_OTHER)
		return MHD_YES;
	r->url = url;
	if (r->hsize > r->cfg->max_header)
		return reply_error(r, 431, "request line and headers over the limit");
	if (r->route < 0)
		return reply_error(r, 404, "no such page");
	rt = route_at(r->route);
	if (!(rt->methods & r->method))
		return reply_405(r, rt->methods);
	return start_body(r, rt);
}

/* The last call, the body read: answer. */
static enum MHD_Result finish(hreq *r)
{
	const route *rt;
	char msg[128];

	guard_request_read(r->hc);
	if (r->hsize > r->cfg->max_header)
		return reply_error(r, 431, "request line and headers over the limit");
	if (r->route < 0)
		return reply_error(r, 404, "no such page");
	rt = route_at(r->route);
	if (r->method == HM_OPTIONS)
		return reply_options(r, rt->methods);
	if (!(rt->methods & (r->method == HM_HEAD ? HM_GET : r->method)))
		return reply_405(r, rt->methods);
	if (r->over)
		metrics_refused(M_TOO_LARGE);
	if (r->over && rt->body != HB_FORM) {
		body_limit_msg(msg, sizeof(msg), r->cfg->max_body);
		return reply_error(r, 413, msg);
	}
	if (r->full && (metrics_refused(M_BUSY), 1))
		return reply_busy(r, "too many request bodies held right now; try again shortly");
	if (!r->body && !(r->body = calloc(1, 1)))
		return MHD_NO;
	return rt->fn(r);
}

static double elapsed(const hreq *r)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - r->t0.tv_sec) + (double)(now.tv_nsec - r->t0.tv_nsec) / 1e9;
}

/* Room for n more body bytes, within max_body (checked by the caller) and the
 * bytes all requests may hold; 0 or -1. */
static int body_grow(hreq *r, size_t n)
{
	size_t cap = r->bcap ? r->bcap : 16384, max = r->cfg->max_body;
	char *p;

	if (r->blen + n + 1 <= r->bcap)
		return 0;
	while (cap < r->blen + n + 1)
		cap *= 2;
	if (cap > max + 1)
		cap = max + 1;
	if (guard_body_take(cap - r->bcap) < 0) {
		r->full = 1;
		return 0;
	}
	if (!(p = realloc(r->body, cap))) {
		guard_body_give(cap - r->bcap);
		return -1;
	}
	r->body = p;
	r->bcap = cap;
	return 0;
}

static enum MHD_Result take_body(hreq *r, const char *data, size_t *size)
{
	size_t n = *size, max = r->cfg->max_body, all = n;

	*size = 0;
	if (elapsed(r) > (double)r->cfg->request_timeout) {
		r->status = 408; /* for the log: too slow, the connection is cut */
		return MHD_NO;
	}
	if (!r->over && !r->full && n > max - r->blen && r->route >= 0 && route_at(r->route)->body == HB_FORM)
		n = max - r->blen; /* keep the start of a form: the page shows it again */
	else if (r->over || r->full || n > max - r->blen) {
		r->over |= !r->full;
		return MHD_YES;
	}
	r->over = n < all;
	if (body_grow(r, n) < 0)
		return MHD_NO;
	if (r->full)
		return MHD_YES; /* discarded: answered 503 */
	memcpy(r->body + r->blen, data, n);
	r->blen += n;
	r->body[r->blen] = '\0';
	return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upsize, void **ptr)
{
	hreq *r = *ptr;

	if (!r) {
		if (!(r = on_uri(cls, url, conn)))
			return MHD_NO;
		*ptr = r;
	}
	if (r->job)
		return job_resumed(r);
	if (!r->started)
		return start(r, url, method, version);
	if (*upsize)
		return take_body(r, upload, upsize);
	if (r->status)
		return MHD_YES; /* answered at the start (413, 415, ...) */
	r->url = url;
	return finish(r);
}

static size_t log_escape(char *out, size_t cap, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	for (; *s && o + 5 < cap; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
		} else {
			out[o++] = (char)c;
		}
	}
	out[o] = '\0';
	return o;
}

static void client_ip(struct MHD_Connection *conn, char *ip, size_t cap)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;

	snprintf(ip, cap, "-");
	if (sa && sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, ip, (socklen_t)cap);
	else if (sa && sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, ip, (socklen_t)cap);
}

static const char *toe_name(enum MHD_RequestTerminationCode toe)
{
	switch (toe) {
	case MHD_REQUEST_TERMINATED_COMPLETED_OK: return "";
	case MHD_REQUEST_TERMINATED_TIMEOUT_REACHED: return " timeout";
	case MHD_REQUEST_TERMINATED_DAEMON_SHUTDOWN: return " shutdown";
	case MHD_REQUEST_TERMINATED_CLIENT_ABORT: return " aborted";
	default: return " error";
	}
}

/* How the request ended, after a blank, "" when well (the common format's tail). */
static const char *end_suffix(hreq *r, enum MHD_RequestTerminationCode toe)
{
	return toe != MHD_REQUEST_TERMINATED_COMPLETED_OK && guard_was_cut(r->hc) ? " deadline" : toe_name(toe);
}

/* How the request ended, as the JSON log names it ("completed" when well). */
static const char *end_word(hreq *r, enum MHD_RequestTerminationCode toe)
{
	const char *w = end_suffix(r, toe);

	return *w ? w + 1 : "completed";
}

static void log_write(const char *line, int n, size_t cap)
{
	if (n > 0 && write(2, line, (size_t)n < cap ? (size_t)n : cap - 1) < 0)
		return;
}

/* A request header's first HTTPD_LOG_URI bytes, as the log keeps the request
 * target, in cut; NULL when it was not sent. */
static const char *req_header(hreq *r, const char *name, char cut[HTTPD_LOG_URI + 1])
{
	const char *v = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, name);

	if (!v)
		return NULL;
	snprintf(cut, HTTPD_LOG_URI + 1, "%s", v);
	return cut;
}

/* A JSON string, or null for a header not sent */
static void json_or_null(smtpdiag_buf *b, const char *s)
{
	if (s)
		hb_json(b, s);
	else
		hb_puts(b, "null");
}

/* One JSON object a line: the fields of the combined format, the request id,
 * the time taken and how the request ended. */
static void log_json(hreq *r, enum MHD_RequestTerminationCode toe, const char *ip, const struct tm *tm)
{
	smtpdiag_buf b = { 0 };
	char when[32], cut[HTTPD_LOG_URI + 1];

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", tm);
	smtpdiag_buf_printf(&b, "{\"time\":\"%s\",\"remote_addr\":", when);
	hb_json(&b, ip);
	hb_puts(&b, ",\"method\":");
	hb_json(&b, r->mname);
	hb_puts(&b, ",\"uri\":");
	hb_json(&b, r->uri);
	hb_puts(&b, ",\"protocol\":");
	hb_json(&b, r->version);
	if (r->status)
		smtpdiag_buf_printf(&b, ",\"status\":%d", r->status);
	else
		hb_puts(&b, ",\"status\":null");
	smtpdiag_buf_printf(&b, ",\"bytes\":%llu,\"referer\":", (unsigned long long)r->bytes);
	json_or_null(&b, req_header(r, MHD_HTTP_HEADER_REFERER, cut));
	hb_puts(&b, ",\"user_agent\":");
	json_or_null(&b, req_header(r, MHD_HTTP_HEADER_USER_AGENT, cut));
	hb_puts(&b, ",\"request_id\":");
	hb_json(&b, r->reqid);
	smtpdiag_buf_printf(&b, ",\"duration_ms\":%.3f,\"end\":\"%s\"}\n", elapsed(r) * 1e3, end_word(r, toe));
	if (!b.oom)
		log_write(b.data, (int)b.len, b.len + 1);
	smtpdiag_buf_free(&b);
}

/* common (the default): Common Log Format, then the request id, the time taken
 * and how the request ended if not well. combined: the Combined Log Format
 * (Common, then the Referer and User-Agent), nothing after. json: log_json. */
static void log_line(hreq *r, enum MHD_RequestTerminationCode toe)
{
	/* the line holds the request target, the Referer and the User-Agent at
	 * their escaped bounds (HTTPD_LOG_URI bytes, 4 a byte), and the rest */
	char ip[INET6_ADDRSTRLEN], when[40], uri[HTTPD_LOG_URI * 4 + 1], line[HTTPD_LOG_URI * 13 + 512], st[8];
	char method[sizeof(r->mname) * 4 + 1], version[sizeof(r->version) * 4 + 1];
	char ref[HTTPD_LOG_URI * 4 + 1], ua[HTTPD_LOG_URI * 4 + 1], cut[HTTPD_LOG_URI + 1];
	const char *v;
	time_t now = time(NULL);
	struct tm tm;
	int n;

	client_ip(r->conn, ip, sizeof(ip));
	gmtime_r(&now, &tm);
	if (r->cfg->access_log_format == HTTPD_LOG_JSON) {
		log_json(r, toe, ip, &tm);
		return;
	}
	strftime(when, sizeof(when), "%d/%b/%Y:%H:%M:%S +0000", &tm);
	log_escape(uri, sizeof(uri), r->uri);
	log_escape(method, sizeof(method), r->mname[0] ? r->mname : "-");
	log_escape(version, sizeof(version), r->version[0] ? r->version : "-");
	snprintf(st, sizeof(st), r->status ? "%d" : "-", r->status);
	n = snprintf(line, sizeof(line), "%s - - [%s] \"%s %s %s\" %s %llu", ip, when, method, uri, version, st,
		     (unsigned long long)r->bytes);
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	if (r->cfg->access_log_format == HTTPD_LOG_COMBINED) {
		log_escape(ref, sizeof(ref), (v = req_header(r, MHD_HTTP_HEADER_REFERER, cut)) ? v : "-");
		log_escape(ua, sizeof(ua), (v = req_header(r, MHD_HTTP_HEADER_USER_AGENT, cut)) ? v : "-");
		n += snprintf(line + n, sizeof(line) - (size_t)n, " \"%s\" \"%s\"\n", ref, ua);
	} else {
		n += snprintf(line + n, sizeof(line) - (size_t)n, " id=%s %.3fms%s\n", r->reqid[0] ? r->reqid : "-",
			      elapsed(r) * 1e3, end_suffix(r, toe));
	}
	log_write(line, n, sizeof(line));
}

static void on_done(void *cls, struct MHD_Connection *conn, void **ptr, enum MHD_RequestTerminationCode toe)
{
	const httpd_config *cfg = cls;
	hreq *r = *ptr;

	(void)conn;
	if (!r)
		return;
	job_conn_gone(r);
	metrics_request(r->route, r->status, elapsed(r));
	if (cfg->access_log)
		log_line(r, toe);
	metrics_in_flight(-1);
	guard_request_done(r->hc);
	hreq_release(r);
	*ptr = NULL;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];
	int n;

	(void)cls;
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	if (n > 0 && strstr(msg, "detected connection closure"))
		return; /* a client gone, or cut at its deadline: the access log says which */
	while (n > 0 && (size_t)n < sizeof(msg) && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		msg[--n] = '\0';
	fprintf(stderr, "smtpdiag: %s: %s\n", httpd_prog, msg);
}

/* ---- start and stop ---- */

static struct MHD_Daemon *start_daemon(const httpd_config *c, int fd)
{
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC | MHD_USE_ERROR_LOG | MHD_USE_TURBO |
			 MHD_ALLOW_SUSPEND_RESUME;
	/* MHD's own limit (the pool also holds the parsed headers and the response
	 * headers) sits well above ours, which start() checks and answers with 431 */
	size_t mem = c->max_header * 2 + 4096;
	struct MHD_OptionItem ops[] = {
		{ MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)mhd_log, NULL },
		{ MHD_OPTION_LISTEN_SOCKET, fd, NULL },
		{ MHD_OPTION_CONNECTION_LIMIT, c->max_conn, NULL },
		{ MHD_OPTION_CONNECTION_TIMEOUT, c->timeout, NULL },
		{ MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)mem, NULL },
		{ MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)on_uri, (void *)c },
		{ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_done, (void *)c },
		{ MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)guard_on_conn, NULL },
		{ MHD_OPTION_END, 0, NULL }, { MHD_OPTION_END, 0, NULL }, { MHD_OPTION_END, 0, NULL },
	};
	size_t n = 8; /* the first MHD_OPTION_END */

	if (c->max_conn_per_ip)
		ops[n++] = (struct MHD_OptionItem){ MHD_OPTION_PER_IP_CONNECTION_LIMIT, c->max_conn_per_ip, NULL };
	if (c->threads > 1)
		ops[n++] = (struct MHD_OptionItem){ MHD_OPTION_THREAD_POOL_SIZE, c->threads, NULL };
#ifdef __linux__
	flags |= MHD_USE_EPOLL;
#endif
	return MHD_start_daemon(flags, 0, NULL, NULL, on_request, (void *)c,
				MHD_OPTION_ARRAY, ops, MHD_OPTION_END);
}

/* Stop taking connections, let the ones in flight finish (a second signal or
 * HTTPD_DRAIN_MS cuts it short), then stop. A handler still running then
 * (stuck in a loop, say) cannot be stopped: say so and leave it to the exit. */
static void stop_daemon(struct MHD_Daemon *d, const sigset_t *sigs)
{
	struct timespec tick = { 0, 50 * 1000 * 1000 };
	int fd = MHD_quiesce_daemon(d);
	unsigned left;

	if (fd >= 0)
		close(fd);
	for (int ms = 0; ms < HTTPD_DRAIN_MS; ms += 50) {
		const union MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
		if (!di || di->num_connections == 0 || sigtimedwait(sigs, NULL, &tick) > 0)
			break;
	}
	if ((left = jobs_close()) > 0) {
		fprintf(stderr, "smtpdiag: %s: %u request%s still running after the drain: exiting anyway\n", httpd_prog,
			left, left == 1 ? "" : "s");
		return;
	}
	MHD_stop_daemon(d);
	jobs_stop();
	cache_clear();
	routes_free();
}

/* Connections MHD may hold: what was asked, within the open-file limit. */
static unsigned conn_limit(unsigned want)
{
	unsigned long files = listen_fd_limit();
	unsigned long room = files > 2 * HTTPD_FD_SPARE ? files - HTTPD_FD_SPARE : HTTPD_FD_SPARE;

	if (want <= room)
		return want;
	fprintf(stderr, "smtpdiag: %s: warning: %lu open files at most (ulimit -n): %lu connections, "
		"not %u\n", httpd_prog, files, room, want);
	return (unsigned)room;
}

/* Listen, become --user, start the watchdog, the handler pool and MHD. */
static struct MHD_Daemon *start_all(httpd_config *c, char *err, size_t errlen)
{
	struct MHD_Daemon *d = NULL;
	char where[INET6_ADDRSTRLEN + 16];
	int fd;

	c->max_conn = conn_limit(c->max_conn);
	if (wire_start(listen_fd_limit()) < 0) {
		snprintf(err, errlen, "cannot start: out of memory");
		return NULL;
	}
	fd = listen_passed(err, errlen, where, sizeof(where)); /* a passed socket wins over --listen */
	if (fd == -1 || (fd == -2 && (fd = listen_open(c->listen, err, errlen, where, sizeof(where))) < 0))
		return NULL;
	listen_warn(fd, where, c->user, !c->metrics_only);
	if (origin_start(c, fd, err, errlen) < 0) {
		close(fd);
		return NULL;
	}
	if ((c->user && listen_drop(c->user, err, errlen) < 0) || store_start(err, errlen) < 0) {
		close(fd);
		return NULL;
	}
	if (guard_start(c) < 0 || jobs_start(c->threads) < 0)
		snprintf(err, errlen, "cannot start threads: out of memory");
	else if (!(d = start_daemon(c, fd)))
		snprintf(err, errlen, "cannot start the HTTP server on %s", where);
	if (!d) {
		jobs_stop();
		guard_stop();
		close(fd);
		return NULL;
	}
	fprintf(stderr, "smtpdiag: %s: listening on http://%s/ (%u threads, pid %ld%s%s)\n", httpd_prog, where,
		c->threads, (long)getpid(), c->user ? ", user " : "", c->user ? c->user : "");
	{
		char st[sizeof(where) + 32];
		snprintf(st, sizeof(st), "READY=1\nSTATUS=listening on %s", where);
		listen_notify(st);
	}
	return d;
}

int httpd_run(const httpd_config *conf, char *err, size_t errlen)
{
	httpd_config c = *conf;
	struct MHD_Daemon *d;
	sigset_t sigs;
	int sig = 0;

	if (c.prog)
		httpd_prog = c.prog;
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	if (c.side_start)
		sigaddset(&sigs, SIGHUP); /* stops following logs cleanly, as it stops scan --follow */
	pthread_sigmask(SIG_BLOCK, &sigs, NULL); /* the pool's threads inherit the mask */
	user_rules = c.rules;
	reqid_init();
	if (pthread_key_create(&dec_key, dec_free) != 0 || routes_init() < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (!(d = start_all(&c, err, errlen))) {
		routes_free();
		return -1;
	}
	if (c.side_start && c.side_start(c.side_ctx) < 0) {
		snprintf(err, errlen, "cannot start the work beside the server (following logs, the socketmap): out of memory");
		stop_daemon(d, &sigs);
		guard_stop();
		return -1;
	}
	while (sigwait(&sigs, &sig) != 0)
		;
	fprintf(stderr, "smtpdiag: %s: %s: stopping\n", httpd_prog, sig == SIGINT ? "SIGINT" : sig == SIGHUP ? "SIGHUP" : "SIGTERM");
	listen_notify("STOPPING=1\nSTATUS=stopping");
	stop_daemon(d, &sigs);
	guard_stop();
	if (c.side_stop)
		c.side_stop(c.side_ctx);
	fprintf(stderr, "smtpdiag: %s: stopped\n", httpd_prog);
	return 0;
}
