/* socketmap.c - serve --socketmap: Postfix's socketmap protocol for
 * smtp_delivery_status_filter (docs/socketmap.md).
 *
 * One thread accepts; each connection has a thread of its own (Postfix keeps a
 * connection per delivery process and sends request after request on it), at
 * most SM_MAX_CONN at once. A request and a reply are one netstring each
 * ("LEN:DATA,"); a request is "NAME KEY". A malformed netstring, a request
 * over SM_MAX_REQUEST, a read that waits over SM_IDLE_TIMEOUT or a write over
 * SM_WRITE_TIMEOUT closes the connection (the first two with a log line).
 * What a status means is the verdict engine's alone: smtpdiag_explain on the
 * key, and the rule below reads only what it decided. */
#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "httpd_int.h"
#include "socketmap.h"

/* ---- counters ---- */

enum { R_REWRITTEN, R_KEPT, R_INVALID, R_UNKNOWN_MAP, R_ERROR, R_MALFORMED, R_N };
static const char *const results[R_N] = { "rewritten", "kept", "invalid", "unknown_map", "error", "malformed" };
enum { D_SOFTEN, D_HARDEN, D_N }; /* 5 -> 4, 4 -> 5 */
static atomic_ulong requests[R_N];
static atomic_ulong rewrites[D_N][M_REASONS + 1];
static atomic_ulong conns_accepted, conns_refused;
static atomic_long conns_open;
static atomic_int enabled;

static void count(atomic_ulong *v)
{
	atomic_fetch_add_explicit(v, 1, memory_order_relaxed);
}

static unsigned long get(atomic_ulong *v)
{
	return atomic_load_explicit(v, memory_order_relaxed);
}

static size_t result_slot(const char *label)
{
	for (size_t i = 0; i < R_N; i++)
		if (!strcmp(label, results[i]))
			return i;
	return R_ERROR;
}

void sm_metrics_text(smtpdiag_buf *b)
{
	if (!atomic_load(&enabled))
		return;
	metrics_head(b, "smtpdiag_socketmap_requests_total", "counter",
		     "Socketmap requests answered, by result (malformed: the connection was closed).");
	for (size_t i = 0; i < R_N; i++)
		smtpdiag_buf_printf(b, "smtpdiag_socketmap_requests_total{result=\"%s\"} %lu\n", results[i], get(&requests[i]));
	metrics_head(b, "smtpdiag_socketmap_rewrites_total", "counter",
		     "Delivery statuses rewritten, by class before and after and the verdict's reason.");
	for (size_t d = 0; d < D_N; d++)
		for (size_t r = 0; r <= M_REASONS; r++) {
			unsigned long v = get(&rewrites[d][r]);
			if (v)
				smtpdiag_buf_printf(b, "smtpdiag_socketmap_rewrites_total{from_class=\"%c\",to_class=\"%c\","
						    "reason=\"%s\"} %lu\n", d == D_SOFTEN ? '5' : '4',
						    d == D_SOFTEN ? '4' : '5', metrics_reason_label(r), v);
		}
	metrics_head(b, "smtpdiag_socketmap_connections_total", "counter",
		     "Socketmap connections, by outcome (refused: over the connection limit).");
	smtpdiag_buf_printf(b, "smtpdiag_socketmap_connections_total{outcome=\"accepted\"} %lu\n", get(&conns_accepted));
	smtpdiag_buf_printf(b, "smtpdiag_socketmap_connections_total{outcome=\"refused\"} %lu\n", get(&conns_refused));
	metrics_head(b, "smtpdiag_socketmap_connections", "gauge", "Socketmap connections open now.");
	smtpdiag_buf_printf(b, "smtpdiag_socketmap_connections %ld\n", atomic_load(&conns_open));
}

/* ---- the rule ---- */

/* The key as the engine would see it had the server said 5: the leading
 * status, the first reply code of that class and the same status inside. */
static void as_permanent(char *q, size_t n, size_t slen)
{
	int code_done = 0;

	q[0] = '5';
	for (size_t i = slen; i + 3 < n; i++) {
		int start = q[i - 1] == ' ' || q[i - 1] == ':';
		if (!start || q[i] != '4')
			continue;
		if (!code_done && isdigit((unsigned char)q[i + 1]) && isdigit((unsigned char)q[i + 2]) &&
		    (q[i + 3] == ' ' || q[i + 3] == '-')) {
			q[i] = '5';
			code_done = 1;
		} else if (i + slen <= n && !memcmp(q + i + 1, q + 1, slen - 1)) {
			q[i] = '5';
		}
	}
}

/* text for a log line: at most SM_LOG_TEXT bytes, unprintable bytes as '?' */
static void log_text(char *to, size_t cap, const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n && i + 1 < cap && i < SM_LOG_TEXT; i++)
		to[i] = (unsigned char)p[i] < 0x20 || p[i] == 0x7f ? '?' : p[i];
	to[i] = '\0';
}

static void log_rewrite(const char *key, size_t n, size_t slen, char to, const smtpdiag_explanation *e)
{
	char text[SM_LOG_TEXT + 1], ev[512] = "";
	size_t at = 0;

	log_text(text, sizeof(text), key + slen + 1, n - slen - 1);
	for (size_t i = 0; e->evidence && e->evidence[i] && at < sizeof(ev); i++)
		at += (size_t)snprintf(ev + at, sizeof(ev) - at, "%s%s", i ? "; " : "", e->evidence[i]);
	fprintf(stderr, "smtpdiag: socketmap: rewrote %.*s -> %c%.*s (reason %s, evidence: %s): %s\n", (int)slen,
		key, to, (int)slen - 1, key + 1, e->reason[0] ? e->reason : "none", ev, text);
}

/* Ask the engine about q; NULL when it finds nothing to explain (or fails:
 * *failed). */
static smtpdiag_explanation *ask(const sm_config *c, const char *q, size_t n, int *failed)
{
	smtpdiag_explanation *e = NULL;
	smtpdiag_error err;
	int rc = smtpdiag_explain_with_rules(q, n, SMTPDIAG_EXPLAIN_TEXT, c->rules, &e, &err);

	*failed = rc < 0 && rc != SMTPDIAG_ENOTFOUND && rc != SMTPDIAG_EINVAL;
	return rc < 0 ? NULL : e;
}

/* The verdict's answer to a status key: 'rewritten' with the reply in out,
 * else 'kept' (or 'error' when the engine failed). */
static const char *decide(const sm_config *c, const char *key, size_t n, size_t slen, char *out, size_t cap)
{
	smtpdiag_explanation *e = NULL;
	int failed = 0, dir = -1;
	char *q;

	if (key[0] == '5') {
		if ((e = ask(c, key, n, &failed)) && e->retry && e->klass != SMTPDIAG_CLASS_SUCCESS)
			dir = D_SOFTEN;
	} else if (key[0] == '4' && c->harden) {
		if (!(q = malloc(n)))
			return "error";
		memcpy(q, key, n);
		as_permanent(q, n, slen);
		if ((e = ask(c, q, n, &failed)) && e->hardbounce && !e->retry)
			dir = D_HARDEN;
		free(q);
	}
	if (dir >= 0) {
		char to = dir == D_SOFTEN ? '4' : '5';
		snprintf(out, cap, "OK %c%.*s", to, (int)(n - 1 > cap - 8 ? cap - 8 : n - 1), key + 1);
		log_rewrite(key, n, slen, to, e);
		count(&rewrites[dir][metrics_reason_slot(e->reason)]);
	}
	smtpdiag_explanation_free(e);
	if (failed)
		return snprintf(out, cap, "TEMP the verdict engine failed (out of memory?)"), "error";
	return dir >= 0 ? "rewritten" : (snprintf(out, cap, "NOTFOUND "), "kept");
}

const char *sm_answer(const sm_config *c, const char *req, size_t n, char *out, size_t cap)
{
	const char *sp = memchr(req, ' ', n);
	size_t nl, slen;

	if (!sp || memchr(req, '\0', n)) {
		snprintf(out, cap, "PERM a request is NAME SPACE KEY, without NUL bytes");
		return "invalid";
	}
	nl = (size_t)(sp - req);
	if (nl != strlen(c->name) || memcmp(req, c->name, nl)) {
		snprintf(out, cap, "PERM unknown map '%.*s' (this server answers '%s')", (int)(nl > SM_NAME_MAX ? SM_NAME_MAX : nl),
			 req, c->name);
		return "unknown_map";
	}
	req = sp + 1;
	n -= nl + 1;
	if (!(slen = sm_key_status(req, n)) || slen + 1 >= n) {
		snprintf(out, cap, "NOTFOUND ");
		return "invalid";
	}
	return decide(c, req, n, slen, out, cap);
}

/* ---- listening ---- */

static sm_config conf;
static int lfd = -1;
static char unix_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
static pthread_t acceptor;
static int acceptor_started;
static int stop_pipe[2] = { -1, -1 };
static pthread_mutex_t conns_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t conns_cv = PTHREAD_COND_INITIALIZER;
static int conn_fds[SM_MAX_CONN];
static atomic_int stopping;

/* A Unix socket at path already: remove it when nobody listens on it. */
static int clear_stale(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd, rc;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : (snprintf(err, errlen, "--socketmap: %s: %s", path, strerror(errno)), -1);
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen, "--socketmap: %s exists and is not a socket; not removed", path);
		return -1;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return snprintf(err, errlen, "--socketmap: %s", strerror(errno)), -1;
	rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	close(fd);
	if (rc == 0) {
		snprintf(err, errlen, "--socketmap: %s: a server is listening on it already", path);
		return -1;
	}
	if (errno != ECONNREFUSED || unlink(path) < 0) {
		snprintf(err, errlen, "--socketmap: %s: cannot remove a stale socket: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int owner_of(const char *user, uid_t *uid, gid_t *gid)
{
	struct passwd *pw = getpwnam(user);

	if (!pw)
		return -1;
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	return 0;
}

static int open_unix(const char *path, unsigned mode, const char *user, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	mode_t old;
	uid_t uid;
	gid_t gid;
	int fd, rc;

	if (!path[0] || strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, errlen, "--socketmap: unix:PATH needs a path of 1 to %zu bytes", sizeof(sa.sun_path) - 1);
		return -1;
	}
	if (clear_stale(path, err, errlen) < 0)
		return -1;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	/* non-blocking, as listen_open's: a client gone between poll and accept
	 * makes accept fail, not wait */
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0)
		return snprintf(err, errlen, "--socketmap: %s", strerror(errno)), -1;
	old = umask(0177); /* no one else can connect before the chmod below */
	rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (rc < 0 || listen(fd, 64) < 0 || chmod(path, (mode_t)mode) < 0 ||
	    (user && (owner_of(user, &uid, &gid) < 0 || chown(path, uid, gid) < 0))) {
		snprintf(err, errlen, "--socketmap: cannot listen on %s: %s", path, errno ? strerror(errno) : "no such user");
		if (rc == 0)
			unlink(path);
		close(fd);
		return -1;
	}
	snprintf(unix_path, sizeof(unix_path), "%s", path);
	return fd;
}

int sm_open(const sm_config *c, const char *user, char *err, size_t errlen)
{
	char where[300];
	int fd;

	conf = *c;
	if (!strncmp(c->addr, "unix:", 5)) {
		fd = open_unix(c->addr + 5, c->mode, user, err, errlen);
	} else if (!strncmp(c->addr, "tcp:", 4)) {
		if ((fd = listen_open(c->addr + 4, err, errlen, where, sizeof(where))) >= 0) {
			if (!listen_is_loopback(fd))
				fprintf(stderr, "smtpdiag: serve: warning: socketmap on %s, beyond loopback: anyone "
					"who can reach it can ask it\n", where);
		} else {
			char why[256];
			snprintf(why, sizeof(why), "%s", err);
			snprintf(err, errlen, "--socketmap: %s", strncmp(why, "--listen: ", 10) ? why : why + 10);
		}
	} else {
		snprintf(err, errlen, "--socketmap: '%s' is not unix:PATH or tcp:[HOST:]PORT", c->addr);
		return -1;
	}
	if (fd < 0)
		return -1;
	lfd = fd;
	fprintf(stderr, "smtpdiag: serve: socketmap '%s' on %s%s\n", c->name,
		unix_path[0] ? "unix:" : "tcp:", unix_path[0] ? unix_path : where);
	atomic_store(&enabled, 1);
	return 0;
}

/* ---- connections ---- */

static int conn_add(int fd)
{
	int ok = 0;

	pthread_mutex_lock(&conns_mu);
	for (size_t i = 0; i < SM_MAX_CONN && !ok; i++)
		if (conn_fds[i] < 0) {
			conn_fds[i] = fd;
			ok = 1;
		}
	pthread_mutex_unlock(&conns_mu);
	return ok ? 0 : -1;
}

static void conn_remove(int fd)
{
	pthread_mutex_lock(&conns_mu);
	for (size_t i = 0; i < SM_MAX_CONN; i++)
		if (conn_fds[i] == fd)
			conn_fds[i] = -1;
	close(fd);
	atomic_fetch_sub(&conns_open, 1);
	pthread_cond_broadcast(&conns_cv);
	pthread_mutex_unlock(&conns_mu);
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

#define SM_ACCEPT_PAUSE_MS 100 /* after an accept that failed for want of files or memory */
#define SM_HEAD (SM_LENGTH_DIGITS + 1) /* room for a reply's "LEN:" */

/* Answer every whole request in buf; the bytes used, or -1 to close. */
static long serve_buffered(int fd, char *buf, size_t have, char *reply)
{
	size_t used = 0, off, n;
	int rc;

	while ((rc = sm_netstring(buf + used, have - used, SM_MAX_REQUEST, &off, &n)) == 1) {
		/* the data at reply + SM_HEAD, its "LEN:" written just before it */
		const char *label = sm_answer(&conf, buf + used + off, n, reply + SM_HEAD, SM_MAX_REPLY + 1);
		size_t rl = strlen(reply + SM_HEAD);
		char head[SM_HEAD + 1];
		int hl = snprintf(head, sizeof(head), "%zu:", rl);
		count(&requests[result_slot(label)]);
		memcpy(reply + SM_HEAD - hl, head, (size_t)hl);
		reply[SM_HEAD + rl] = ',';
		if (write_all(fd, reply + SM_HEAD - hl, (size_t)hl + rl + 1) < 0)
			return -1;
		used += off + n + 1;
	}
	if (rc < 0) {
		count(&requests[R_MALFORMED]);
		fprintf(stderr, "smtpdiag: socketmap: closing a connection: malformed netstring or a request over "
			"%u bytes\n", SM_MAX_REQUEST);
		return -1;
	}
	return (long)used;
}

static void *conn_run(void *arg)
{
	int fd = (int)(intptr_t)arg;
	size_t cap = SM_MAX_REQUEST + SM_LENGTH_DIGITS + 2, have = 0;
	char *buf = malloc(cap), *reply = malloc(SM_HEAD + SM_MAX_REPLY + 2);
	struct timeval rt = { .tv_sec = SM_IDLE_TIMEOUT }, wt = { .tv_sec = SM_WRITE_TIMEOUT };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &rt, sizeof(rt));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wt, sizeof(wt));
	while (buf && reply && !atomic_load(&stopping)) {
		ssize_t r = recv(fd, buf + have, cap - have, 0);
		long used;
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		have += (size_t)r;
		if ((used = serve_buffered(fd, buf, have, reply)) < 0)
			break;
		memmove(buf, buf + used, have - (size_t)used);
		have -= (size_t)used;
	}
	free(buf);
	free(reply);
	conn_remove(fd);
	return NULL;
}

static void accept_one(void)
{
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	pthread_attr_t at;
	pthread_t th;
	int ok;

	if (fd < 0) {
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
			poll(NULL, 0, SM_ACCEPT_PAUSE_MS); /* out of files: not a busy loop */
		return;
	}
	atomic_fetch_add(&conns_open, 1);
	if (conn_add(fd) < 0) {
		count(&conns_refused);
		fprintf(stderr, "smtpdiag: socketmap: refusing a connection: %u open already\n", SM_MAX_CONN);
		close(fd);
		atomic_fetch_sub(&conns_open, 1);
		return;
	}
	count(&conns_accepted);
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&at, 256u << 10);
	ok = pthread_create(&th, &at, conn_run, (void *)(intptr_t)fd) == 0;
	pthread_attr_destroy(&at);
	if (!ok)
		conn_remove(fd);
}

static void *accept_run(void *arg)
{
	struct pollfd p[2] = { { .fd = lfd, .events = POLLIN }, { .fd = stop_pipe[0], .events = POLLIN } };

	(void)arg;
	while (!atomic_load(&stopping)) {
		if (poll(p, 2, -1) < 0)
			continue;
		if (p[1].revents)
			break;
		if (p[0].revents & POLLIN)
			accept_one();
	}
	return NULL;
}

int sm_start(void)
{
	for (size_t i = 0; i < SM_MAX_CONN; i++)
		conn_fds[i] = -1;
	if (lfd < 0 || pipe(stop_pipe) < 0)
		return -1;
	if (pthread_create(&acceptor, NULL, accept_run, NULL) != 0)
		return -1;
	acceptor_started = 1;
	return 0;
}

void sm_stop(void)
{
	atomic_store(&stopping, 1);
	if (acceptor_started && write(stop_pipe[1], "x", 1) == 1)
		pthread_join(acceptor, NULL);
	acceptor_started = 0;
	pthread_mutex_lock(&conns_mu);
	for (size_t i = 0; i < SM_MAX_CONN; i++)
		if (conn_fds[i] >= 0)
			shutdown(conn_fds[i], SHUT_RDWR);
	while (atomic_load(&conns_open) > 0)
		pthread_cond_wait(&conns_cv, &conns_mu);
	pthread_mutex_unlock(&conns_mu);
	if (lfd >= 0)
		close(lfd);
	lfd = -1;
	if (unix_path[0])
		unlink(unix_path);
	unix_path[0] = '\0';
}
