/* guard.c - what keeps hostile clients from taking the server down.
 *
 * Every open connection is in one list with the deadline of the request it is
 * sending: request_timeout from accept for the first request, from the end of
 * the previous answer for the next ones. A watchdog thread shuts down the
 * socket of a connection past its deadline, whatever it trickles (MHD's own
 * timeout only counts idle time). MHD then reads the end of the stream and
 * closes the connection in its own thread: the watchdog never closes a
 * descriptor, and it touches only connections still in the list, which MHD
 * leaves before it closes them.
 *
 * Also here: strict request framing (one Content-Length, or Transfer-Encoding
 * chunked alone) and the account of request-body bytes held by all requests
 * (max_body_total). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "httpd_int.h"

#define GUARD_TICK_MS 250 /* how often the watchdog looks */

typedef struct hconn {
	struct hconn *prev, *next;
	int fd;
	atomic_llong deadline; /* monotonic ms; 0 while no request is being read */
	atomic_int cut;
	wire w;                /* what it sends, scanned (wire.c) */
} hconn;

static pthread_mutex_t conns_lock = PTHREAD_MUTEX_INITIALIZER;
static hconn *conns;
static long long request_ms;

static pthread_t watcher;
static int watching;
static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t watch_cond = PTHREAD_COND_INITIALIZER;
static int watch_stop;

static atomic_size_t body_total;
static size_t body_cap;

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* ---- the connection list ---- */

static void conn_add(struct MHD_Connection *conn, void **ctx)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	hconn *h = calloc(1, sizeof(*h));

	if (!h || !ci) {
		free(h); /* the connection has no deadline; MHD's idle timeout still holds */
		return;
	}
	h->fd = ci->connect_fd;
	wire_track(h->fd, &h->w);
	atomic_store(&h->deadline, now_ms() + request_ms);
	pthread_mutex_lock(&conns_lock);
	h->next = conns;
	if (conns)
		conns->prev = h;
	conns = h;
	pthread_mutex_unlock(&conns_lock);
	*ctx = h;
}

static void conn_remove(hconn *h)
{
	pthread_mutex_lock(&conns_lock);
	if (h->prev)
		h->prev->next = h->next;
	else
		conns = h->next;
	if (h->next)
		h->next->prev = h->prev;
	pthread_mutex_unlock(&conns_lock);
	wire_untrack(h->fd);
	free(h);
}

void guard_on_conn(void *cls, struct MHD_Connection *conn, void **ctx, enum MHD_ConnectionNotificationCode code)
{
	(void)cls;
	if (code == MHD_CONNECTION_NOTIFY_STARTED)
		conn_add(conn, ctx);
	else if (*ctx) {
		conn_remove(*ctx);
		*ctx = NULL;
	}
}

struct hconn *guard_conn(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

void guard_request_read(struct hconn *h)
{
	if (h)
		atomic_store(&h->deadline, 0);
}

void guard_request_done(struct hconn *h)
{
	if (h)
		atomic_store(&h->deadline, now_ms() + request_ms);
}

wire *guard_wire(struct hconn *h)
{
	return h ? &h->w : NULL;
}

int guard_was_cut(const struct hconn *h)
{
	return h && atomic_load(&h->cut);
}

/* ---- the watchdog ---- */

static void sweep(void)
{
	long long now = now_ms(), d;

	pthread_mutex_lock(&conns_lock);
	for (hconn *h = conns; h; h = h->next) {
		d = atomic_load(&h->deadline);
		if (d && now > d && !atomic_exchange(&h->cut, 1))
			shutdown(h->fd, SHUT_RDWR);
	}
	pthread_mutex_unlock(&conns_lock);
}

static void *watch(void *arg)
{
	struct timespec until;

	(void)arg;
	pthread_mutex_lock(&watch_lock);
	while (!watch_stop) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += GUARD_TICK_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&watch_cond, &watch_lock, &until);
		pthread_mutex_unlock(&watch_lock);
		sweep();
		pthread_mutex_lock(&watch_lock);
	}
	pthread_mutex_unlock(&watch_lock);
	return NULL;
}

int guard_start(const httpd_config *c)
{
	request_ms = (long long)c->request_timeout * 1000;
	body_cap = c->max_body_total;
	watch_stop = 0;
	if (pthread_create(&watcher, NULL, watch, NULL) != 0)
		return -1;
	watching = 1;
	return 0;
}

void guard_stop(void)
{
	if (!watching)
		return;
	pthread_mutex_lock(&watch_lock);
	watch_stop = 1;
	pthread_cond_signal(&watch_cond);
	pthread_mutex_unlock(&watch_lock);
	pthread_join(watcher, NULL);
	watching = 0;
}

/* ---- framing ---- */

typedef struct framing {
	int cl;     /* Content-Length values */
	int te;     /* Transfer-Encoding fields */
	int te_bad; /* a Transfer-Encoding other than chunked */
} framing;

static int is_chunked(const char *v)
{
	size_t n;

	if (!v)
		return 0;
	v += strspn(v, " \t");
	n = strlen(v);
	while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	return n == 7 && !strncasecmp(v, "chunked", 7);
}

static enum MHD_Result count_framing(void *cls, enum MHD_ValueKind kind, const char *k, const char *v)
{
	framing *f = cls;

	(void)kind;
	if (!strcasecmp(k, MHD_HTTP_HEADER_CONTENT_LENGTH)) {
		f->cl += 1 + (v && strchr(v, ',') != NULL);
	} else if (!strcasecmp(k, MHD_HTTP_HEADER_TRANSFER_ENCODING)) {
		f->te++;
		f->te_bad |= !is_chunked(v);
	}
	return MHD_YES;
}

const char *guard_framing(struct MHD_Connection *conn)
{
	framing f = { 0, 0, 0 };

	MHD_get_connection_values(conn, MHD_HEADER_KIND, count_framing, &f);
	if (f.cl && f.te)
		return "Content-Length and Transfer-Encoding together";
	if (f.cl > 1)
		return "more than one Content-Length";
	if (f.te > 1 || f.te_bad)
		return "a Transfer-Encoding other than chunked";
	return NULL;
}

/* ---- the body account ---- */

int guard_body_take(size_t n)
{
	size_t cur = atomic_load(&body_total);

	do {
		if (cur > body_cap || n > body_cap - cur)
			return -1;
	} while (!atomic_compare_exchange_weak(&body_total, &cur, cur + n));
	return 0;
}

void guard_body_give(size_t n)
{
	atomic_fetch_sub(&body_total, n);
}

int guard_body_room(size_t n)
{
	size_t cur = atomic_load(&body_total);

	return cur <= body_cap && n <= body_cap - cur;
}
