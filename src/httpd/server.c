/* server.c - smtpdiag serve on libmicrohttpd: listening, limits, the request
 * lifecycle, responses with the security headers, the access log, shutdown.
 *
 * Threads: MHD's internal pool (cfg->threads, epoll). Each request is one hreq,
 * made when its request line arrives (URI log callback) and freed after its log
 * line (completed callback). Bodies are read into memory up to max_body; a
 * Content-Length over it is answered 413 before the body is read. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
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

#define HTTPD_DRAIN_MS 3000    /* how long shutdown waits for requests in flight */
#define HTTPD_BODY_DEADLINE 6u /* a body must arrive within this many idle timeouts */
#define HTTPD_BACKLOG 1024

static const char csp[] = "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

void httpd_config_init(httpd_config *c)
{
	c->listen = HTTPD_LISTEN;
	c->max_body = HTTPD_MAX_BODY;
	c->max_header = HTTPD_MAX_HEADER;
	c->max_conn = HTTPD_MAX_CONN;
	c->timeout = HTTPD_TIMEOUT;
	c->threads = HTTPD_THREADS;
	c->access_log = 1;
}

/* ---- per-thread decoders ---- */

#define NDEC 4 /* one per combination of the two decode flags */
static pthread_key_t dec_key;

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
	if (!v[flags])
		v[flags] = smtpdiag_decoder_new(flags);
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
	return MHD_queue_response(r->conn, (unsigned)status, resp);
}

struct MHD_Response *make_response(smtpdiag_buf *b, const char *ctype)
{
	struct MHD_Response *resp = NULL;

	if (!b->oom && b->len)
		resp = MHD_create_response_from_buffer_with_free_callback(b->len, b->data, free);
	if (!resp) {
		smtpdiag_buf_free(b);
		return NULL;
	}
	b->data = NULL;
	b->len = b->cap = 0;
	reply_headers(resp, ctype);
	return resp;
}

enum MHD_Result reply_buf(hreq *r, int status, const char *ctype, smtpdiag_buf *b)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;
	size_t len = b->len;

	if (b->oom) {
		smtpdiag_buf_free(b);
		if (status == 500)
			return MHD_NO;
		return reply_error(r, 500, "out of memory");
	}
	if (len)
		resp = MHD_create_response_from_buffer_with_free_callback(len, b->data, free);
	else
		resp = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
	if (!resp) {
		smtpdiag_buf_free(b);
		return MHD_NO;
	}
	if (!len)
		smtpdiag_buf_free(b);
	b->data = NULL;
	b->len = b->cap = 0;
	reply_headers(resp, ctype);
	if (r->method == HM_POST || req_is_api(r))
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	ret = reply_shared(r, status, resp, len);
	MHD_destroy_response(resp);
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

enum MHD_Result reply_405(hreq *r, unsigned allowed)
{
	struct MHD_Response *resp;
	smtpdiag_buf b = { 0 };
	char allow[32] = "";
	enum MHD_Result ret;

	snprintf(allow, sizeof(allow), "%s%s", allowed & HM_GET ? "GET, HEAD" : "",
		 allowed & HM_POST ? (allowed & HM_GET ? ", POST" : "POST") : "");
	if (req_is_api(r)) {
		smtpdiag_buf_printf(&b, "{\"error\":\"method %s not allowed here; use %s\",\"status\":405}\n", r->mname, allow);
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
	clock_gettime(CLOCK_MONOTONIC, &r->t0);
	snprintf(r->uri, sizeof(r->uri), "%s", uri ? uri : "");
	r->hsize = uri ? strlen(uri) + 16 : 16; /* the request line */
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
	return HM_OTHER;
}

/* Does the request's Content-Type name one of the types of this body kind? */
static int type_ok(hreq *r, int kind)
{
	static const char *const text[] = { "text/plain", "application/x-www-form-urlencoded", NULL };
	static const char *const form[] = { "application/x-www-form-urlencoded", NULL };
	static const char *const mail[] = { "message/rfc822", "message/global", "application/mbox",
					    "text/plain", "application/octet-stream", NULL };
	const char *const *ok = kind == HB_FORM ? form : kind == HB_MAIL ? mail : text;
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

static enum MHD_Result start_body(hreq *r, const route *rt)
{
	const char *cl = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	char msg[128];

	if (cl && strtoull(cl, NULL, 10) > r->cfg->max_body) {
		snprintf(msg, sizeof(msg), "request body over the limit of %zu bytes", r->cfg->max_body);
		return reply_error(r, 413, msg);
	}
	if (!type_ok(r, rt->body))
		return reply_error(r, 415, rt->body == HB_FORM ? "send the form as application/x-www-form-urlencoded"
				   : rt->body == HB_MAIL ? "send the email as message/rfc822, application/mbox or text/plain"
				   : "send the text as text/plain");
	return MHD_YES;
}

static enum MHD_Result add_header_size(void *cls, enum MHD_ValueKind kind, const char *k, const char *v)
{
	hreq *r = cls;

	(void)kind;
	r->hsize += strlen(k) + (v ? strlen(v) : 0) + 4; /* "K: V\r\n" */
	return MHD_YES;
}

/* The first call, headers read: check what can be checked. MHD closes the
 * connection after a response queued now, so only a request whose body we
 * refuse (404, 405, 413, 415 to a POST) is answered at once; the rest waits for
 * the next call and keeps its connection alive. */
static enum MHD_Result start(hreq *r, const char *url, const char *method, const char *version)
{
	const route *rt;

	r->started = 1;
	snprintf(r->mname, sizeof(r->mname), "%s", method);
	snprintf(r->version, sizeof(r->version), "%s", version);
	r->method = method_bit(method);
	MHD_get_connection_values(r->conn, MHD_HEADER_KIND, add_header_size, r);
	r->route = route_find(url);
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

	if (r->hsize > r->cfg->max_header)
		return reply_error(r, 431, "request line and headers over the limit");
	if (r->route < 0)
		return reply_error(r, 404, "no such page");
	rt = route_at(r->route);
	if (!(rt->methods & (r->method == HM_HEAD ? HM_GET : r->method)))
		return reply_405(r, rt->methods);
	if (r->over) {
		snprintf(msg, sizeof(msg), "request body over the limit of %zu bytes", r->cfg->max_body);
		return reply_error(r, 413, msg);
	}
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

static enum MHD_Result take_body(hreq *r, const char *data, size_t *size)
{
	size_t n = *size, max = r->cfg->max_body;

	*size = 0;
	if (elapsed(r) > (double)r->cfg->timeout * HTTPD_BODY_DEADLINE) {
		r->status = 408; /* for the log: too slow, the connection is cut */
		return MHD_NO;
	}
	if (r->over || n > max - r->blen) {
		r->over = 1;
		return MHD_YES;
	}
	if (r->blen + n + 1 > r->bcap) {
		size_t cap = r->bcap ? r->bcap : 16384;
		char *p;
		while (cap < r->blen + n + 1)
			cap *= 2;
		if (cap > max + 1)
			cap = max + 1;
		if (!(p = realloc(r->body, cap)))
			return MHD_NO;
		r->body = p;
		r->bcap = cap;
	}
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
	if (!r->started)
		return start(r, url, method, version);
	if (*upsize)
		return take_body(r, upload, upsize);
	if (r->status)
		return MHD_YES; /* answered at the start (413, 415, ...) */
	r->url = url;
	return finish(r);
}

/* ---- the access log ---- */

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

/* Common Log Format, then the time taken and how the request ended if not well. */
static void log_line(hreq *r, enum MHD_RequestTerminationCode toe)
{
	char ip[INET6_ADDRSTRLEN], when[40], uri[HTTPD_LOG_URI * 4 + 1], line[HTTPD_LOG_URI * 4 + 512], st[8];
	char method[sizeof(r->mname) * 4 + 1], version[sizeof(r->version) * 4 + 1];
	time_t now = time(NULL);
	struct tm tm;
	int n;

	client_ip(r->conn, ip, sizeof(ip));
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%d/%b/%Y:%H:%M:%S +0000", &tm);
	log_escape(uri, sizeof(uri), r->uri);
	log_escape(method, sizeof(method), r->mname[0] ? r->mname : "-");
	log_escape(version, sizeof(version), r->version[0] ? r->version : "-");
	snprintf(st, sizeof(st), r->status ? "%d" : "-", r->status);
	n = snprintf(line, sizeof(line), "%s - - [%s] \"%s %s %s\" %s %llu %.3fms%s\n", ip, when,
		     method, uri, version, st,
		     (unsigned long long)r->bytes, elapsed(r) * 1e3, toe_name(toe));
	if (n > 0 && write(2, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1) < 0)
		return;
}

static void on_done(void *cls, struct MHD_Connection *conn, void **ptr, enum MHD_RequestTerminationCode toe)
{
	const httpd_config *cfg = cls;
	hreq *r = *ptr;

	(void)conn;
	if (!r)
		return;
	if (cfg->access_log)
		log_line(r, toe);
	free(r->body);
	free(r);
	*ptr = NULL;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];
	int n;

	(void)cls;
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	while (n > 0 && (size_t)n < sizeof(msg) && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		msg[--n] = '\0';
	fprintf(stderr, "smtpdiag: serve: %s\n", msg);
}

/* ---- listening ---- */

/* "HOST:PORT", "[V6]:PORT", ":PORT" (all addresses) or "PORT" (loopback). */
static int split_listen(const char *spec, char *host, size_t hcap, char *port, size_t pcap)
{
	const char *colon;

	if (spec[0] == '[') {
		const char *end = strchr(spec, ']');
		if (!end || end[1] != ':' || (size_t)(end - spec) > hcap)
			return -1;
		snprintf(host, hcap, "%.*s", (int)(end - spec - 1), spec + 1);
		snprintf(port, pcap, "%s", end + 2);
	} else if ((colon = strrchr(spec, ':')) != NULL) {
		if ((size_t)(colon - spec) >= hcap || strchr(spec, ':') != colon)
			return -1;
		snprintf(host, hcap, "%.*s", (int)(colon - spec), spec);
		snprintf(port, pcap, "%s", colon + 1);
		if (!host[0])
			snprintf(host, hcap, "0.0.0.0");
	} else {
		snprintf(host, hcap, "127.0.0.1");
		snprintf(port, pcap, "%s", spec);
	}
	if (!port[0] || strspn(port, "0123456789") != strlen(port) || strlen(port) > 5 || strtoul(port, NULL, 10) > 65535)
		return -1;
	return 0;
}

static int open_listener(const char *spec, char *err, size_t errlen, char *where, size_t wcap)
{
	char host[256], port[8], h[INET6_ADDRSTRLEN];
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE | AI_NUMERICSERV }, *ai;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int fd, one = 1, rc;

	if (split_listen(spec, host, sizeof(host), port, sizeof(port)) < 0) {
		snprintf(err, errlen, "--listen: '%s' is not HOST:PORT, [IPV6]:PORT or PORT", spec);
		return -1;
	}
	if ((rc = getaddrinfo(host, port, &hints, &ai)) != 0) {
		snprintf(err, errlen, "--listen: %s: %s", host, gai_strerror(rc));
		return -1;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, HTTPD_BACKLOG) < 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &sl) < 0) {
		snprintf(err, errlen, "cannot listen on %s: %s", spec, strerror(errno));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return -1;
	}
	freeaddrinfo(ai);
	if (ss.ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, h, sizeof(h));
		snprintf(where, wcap, "[%s]:%u", h, ntohs(((struct sockaddr_in6 *)&ss)->sin6_port));
	} else {
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, h, sizeof(h));
		snprintf(where, wcap, "%s:%u", h, ntohs(((struct sockaddr_in *)&ss)->sin_port));
	}
	return fd;
}

/* ---- start and stop ---- */

static struct MHD_Daemon *start_daemon(const httpd_config *c, int fd)
{
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC | MHD_USE_ERROR_LOG | MHD_USE_TURBO;
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
		{ c->threads > 1 ? MHD_OPTION_THREAD_POOL_SIZE : MHD_OPTION_END, c->threads, NULL },
		{ MHD_OPTION_END, 0, NULL },
	};

#ifdef __linux__
	flags |= MHD_USE_EPOLL;
#endif
	return MHD_start_daemon(flags, 0, NULL, NULL, on_request, (void *)c,
				MHD_OPTION_ARRAY, ops, MHD_OPTION_END);
}

/* Stop taking connections, let the ones in flight finish (a second signal or
 * HTTPD_DRAIN_MS cuts it short), then stop. */
static void stop_daemon(struct MHD_Daemon *d, const sigset_t *sigs)
{
	struct timespec tick = { 0, 50 * 1000 * 1000 };
	int fd = MHD_quiesce_daemon(d);

	if (fd >= 0)
		close(fd);
	for (int ms = 0; ms < HTTPD_DRAIN_MS; ms += 50) {
		const union MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
		if (!di || di->num_connections == 0 || sigtimedwait(sigs, NULL, &tick) > 0)
			break;
	}
	MHD_stop_daemon(d);
}

int httpd_run(const httpd_config *c, char *err, size_t errlen)
{
	struct MHD_Daemon *d;
	char where[INET6_ADDRSTRLEN + 16];
	sigset_t sigs;
	int fd, sig = 0;

	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL); /* the pool's threads inherit the mask */
	if (pthread_key_create(&dec_key, dec_free) != 0 || routes_init() < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if ((fd = open_listener(c->listen, err, errlen, where, sizeof(where))) < 0) {
		routes_free();
		return -1;
	}
	if (!(d = start_daemon(c, fd))) {
		snprintf(err, errlen, "cannot start the HTTP server on %s", where);
		close(fd);
		routes_free();
		return -1;
	}
	fprintf(stderr, "smtpdiag: serve: listening on http://%s/ (%u threads, pid %ld)\n", where,
		c->threads, (long)getpid());
	while (sigwait(&sigs, &sig) != 0)
		;
	fprintf(stderr, "smtpdiag: serve: %s: stopping\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
	stop_daemon(d, &sigs);
	cache_clear();
	routes_free();
	fprintf(stderr, "smtpdiag: serve: stopped\n");
	return 0;
}
