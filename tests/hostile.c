/* hostile.c - HTTP clients that misbehave, for the tests and the soak bench of
 * `smtpdiag serve`. Loopback only: every connection goes to 127.0.0.1:PORT.
 * Every mode stops by itself after SECONDS at most.
 *
 *   hostile send PORT WAIT_MS [-h] < REQUEST
 *       send the bytes of stdin, print what comes back, then "= closed" if the
 *       server closed the connection within WAIT_MS, else "= open"; -h shuts
 *       down the sending side after the bytes (a half-close)
 *   hostile idle PORT N SECONDS [-r]
 *       open N connections that send nothing; print "ready open=A closed=B"
 *       once they are open (B: closed by the server at once), hold them, then
 *       print "cut C" (closed by the server meanwhile); -r reopens cut ones
 *   hostile trickle PORT N SECONDS INTERVAL_MS [-r]
 *       N requests whose header lines come one per INTERVAL_MS, never ending
 *   hostile slowbody PORT N SECONDS INTERVAL_MS LENGTH FIRST [-r]
 *       N POSTs of a LENGTH-byte body: FIRST bytes at once, then 16 bytes per
 *       INTERVAL_MS
 *   hostile load PORT CONNS SECONDS PATH [PAUSE_MS] [-n]
 *       CONNS clients GET PATH in a loop (keep-alive; -n: a new connection each
 *       time), PAUSE_MS apart; print the count, errors and latency percentiles
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONNS 60000      /* connections of one idle, trickle or slowbody run */
#define MAX_SECONDS 3600
#define MAX_THREADS 256      /* load clients */
#define MAX_SAMPLES (1 << 22) /* latencies kept by a load run */
#define IO_TIMEOUT_MS 5000   /* a load request not answered by then is a timeout */
#define BUF 65536
#define TICK_MS 100
#define QUIET_MS 500         /* idle before closing at the end of a run */

static unsigned short port;

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static long num(const char *s, long min, long max, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v < min || v > max) {
		fprintf(stderr, "hostile: %s wants a number from %ld to %ld, not %s\n", what, min, max, s);
		exit(2);
	}
	return v;
}

static int dial(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0)
		return -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int send_all(int fd, const char *p, size_t n)
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

/* Has the server closed fd? Reads and drops what it sent. */
static int closed_by_peer(int fd)
{
	struct pollfd p = { fd, POLLIN, 0 };
	char buf[4096];

	while (poll(&p, 1, 0) > 0) {
		ssize_t r = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
			return 1;
		if (r < 0)
			return 0;
	}
	return 0;
}

/* ---- send ---- */

static int mode_send(int argc, char **argv)
{
	static char buf[BUF];
	double until;
	size_t n = 0;
	ssize_t r;
	int fd, closed = 0;

	if (argc != 4 && (argc != 5 || strcmp(argv[4], "-h")))
		return 2;
	until = now_ms() + (double)num(argv[3], 1, MAX_SECONDS * 1000L, "WAIT_MS");
	while (n < sizeof(buf) && (r = read(0, buf + n, sizeof(buf) - n)) > 0)
		n += (size_t)r;
	if ((fd = dial()) < 0 || send_all(fd, buf, n) < 0) {
		fprintf(stderr, "hostile: cannot send to 127.0.0.1:%u: %s\n", port, strerror(errno));
		return 1;
	}
	if (argc == 5)
		shutdown(fd, SHUT_WR);
	for (double left; (left = until - now_ms()) > 0;) {
		struct pollfd p = { fd, POLLIN, 0 };
		if (poll(&p, 1, (int)left + 1) <= 0)
			continue;
		if ((r = recv(fd, buf, sizeof(buf), 0)) <= 0) {
			closed = 1;
			break;
		}
		fwrite(buf, 1, (size_t)r, stdout);
	}
	printf("\n= %s\n", closed ? "closed" : "open");
	close(fd);
	return 0;
}

/* ---- idle, trickle, slowbody: many connections on one thread ---- */

enum { M_IDLE, M_TRICKLE, M_SLOWBODY };

typedef struct hold {
	int mode, n, reopen;
	long interval, length, first;
	int *fd;
	long *sent; /* header lines or body bytes sent */
	unsigned long cut;
} hold;

static int hold_open(hold *h, int i)
{
	char head[256];
	int n = 0;

	h->sent[i] = 0;
	if ((h->fd[i] = dial()) < 0)
		return -1;
	if (h->mode == M_TRICKLE)
		n = snprintf(head, sizeof(head), "GET /healthz?trickle HTTP/1.1\r\nHost: 127.0.0.1\r\n");
	else if (h->mode == M_SLOWBODY)
		n = snprintf(head, sizeof(head), "POST /api/v1/explain HTTP/1.1\r\nHost: 127.0.0.1\r\n"
			     "Content-Type: text/plain\r\nContent-Length: %ld\r\n\r\n", h->length);
	if (n > 0 && send_all(h->fd[i], head, (size_t)n) < 0)
		return 0; /* counted as cut on the next look */
	if (h->mode == M_SLOWBODY && h->first > 0) {
		static char body[BUF];
		long k = h->first < (long)sizeof(body) ? h->first : (long)sizeof(body);
		memset(body, '5', (size_t)k);
		if (send_all(h->fd[i], body, (size_t)k) == 0)
			h->sent[i] = k;
	}
	return 0;
}

/* One step of a connection: the next header line or body bytes. */
static void hold_step(hold *h, int i)
{
	char line[64];
	int n;

	if (h->mode == M_TRICKLE) {
		n = snprintf(line, sizeof(line), "X-Slow-%ld: a\r\n", h->sent[i]++);
		send_all(h->fd[i], line, (size_t)n);
	} else if (h->mode == M_SLOWBODY && h->sent[i] + 16 < h->length) {
		send_all(h->fd[i], "5555555555555555", 16);
		h->sent[i] += 16;
	}
}

static void hold_look(hold *h)
{
	for (int i = 0; i < h->n; i++) {
		if (h->fd[i] < 0 || !closed_by_peer(h->fd[i]))
			continue;
		close(h->fd[i]);
		h->fd[i] = -1;
		h->cut++;
		if (h->reopen)
			hold_open(h, i);
	}
}

static int hold_run(hold *h, double seconds)
{
	double end = now_ms() + seconds * 1e3, next = now_ms() + (double)h->interval;
	int open = 0, closed = 0;

	h->fd = calloc((size_t)h->n, sizeof(int));
	h->sent = calloc((size_t)h->n, sizeof(long));
	if (!h->fd || !h->sent)
		return 1;
	for (int i = 0; i < h->n; i++)
		if (hold_open(h, i) < 0)
			h->fd[i] = -1;
	usleep(300 * 1000);
	for (int i = 0; i < h->n; i++) {
		if (h->fd[i] < 0)
			continue;
		if (closed_by_peer(h->fd[i])) {
			close(h->fd[i]);
			h->fd[i] = -1;
			closed++;
		} else {
			open++;
		}
	}
	printf("ready open=%d closed=%d\n", open, closed);
	fflush(stdout);
	while (now_ms() < end) {
		usleep(TICK_MS * 1000);
		hold_look(h);
		if (!h->reopen && h->cut + (unsigned long)closed >= (unsigned long)h->n)
			break; /* the server closed them all */
		/* nothing sent in the last QUIET_MS: libmicrohttpd 0.9.75 may miss a close
		 * that comes in the same read as data, until its idle timeout */
		if (h->mode != M_IDLE && now_ms() >= next && now_ms() < end - QUIET_MS) {
			for (int i = 0; i < h->n; i++)
				if (h->fd[i] >= 0)
					hold_step(h, i);
			next += (double)h->interval;
		}
	}
	printf("cut %lu\n", h->cut);
	for (int i = 0; i < h->n; i++)
		if (h->fd[i] >= 0)
			close(h->fd[i]);
	free(h->fd);
	free(h->sent);
	return 0;
}

static int mode_hold(int mode, int argc, char **argv)
{
	hold h = { mode, 0, 0, 1000, 0, 0, NULL, NULL, 0 };
	int need = mode == M_IDLE ? 5 : mode == M_TRICKLE ? 6 : 8;

	if (argc < need || argc > need + 1)
		return 2;
	h.n = (int)num(argv[3], 1, MAX_CONNS, "N");
	h.reopen = argc == need + 1 && !strcmp(argv[need], "-r");
	if (mode != M_IDLE)
		h.interval = num(argv[5], 10, 60000, "INTERVAL_MS");
	if (mode == M_SLOWBODY) {
		h.length = num(argv[6], 1, 1L << 30, "LENGTH");
		h.first = num(argv[7], 0, h.length, "FIRST");
	}
	return hold_run(&h, (double)num(argv[4], 1, MAX_SECONDS, "SECONDS"));
}

/* ---- load ---- */

typedef struct loader {
	const char *path;
	double end;
	long pause;
	int fresh; /* a new connection per request */
	unsigned long ok, errors, timeouts;
	double *lat;
	size_t nlat, cap;
} loader;

/* Read one response: headers, then Content-Length bytes. 0, or -1 on error. */
static int read_response(int fd, double deadline, int *status)
{
	static __thread char buf[BUF];
	size_t have = 0, body = 0, need = 0;
	char *eoh = NULL;

	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		double left = deadline - now_ms();
		ssize_t r;
		if (left <= 0 || poll(&p, 1, (int)left + 1) <= 0)
			return -2;
		if ((r = recv(fd, buf + have, sizeof(buf) - have - 1, 0)) <= 0)
			return -1;
		have += (size_t)r;
		buf[have] = '\0';
		if (!eoh && (eoh = strstr(buf, "\r\n\r\n")) != NULL) {
			const char *cl = strcasestr(buf, "\r\nContent-Length:");
			*status = (int)strtol(buf + 9, NULL, 10);
			need = cl ? strtoul(cl + 17, NULL, 10) : 0;
			body = have - (size_t)(eoh + 4 - buf);
		} else if (eoh) {
			body += (size_t)r;
		}
		if (eoh && body >= need)
			return 0;
		if (eoh) { /* keep only what counts: the body is not kept */
			have = 0;
			eoh = buf;
		} else if (have >= sizeof(buf) - 1) {
			return -1;
		}
	}
}

static void *load_client(void *arg)
{
	loader *l = arg;
	char req[512];
	int n = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%s\r\n", l->path,
			 l->fresh ? "Connection: close\r\n" : "");
	int fd = -1, st = 0, rc;

	while (now_ms() < l->end) {
		double t0 = now_ms();
		if (fd < 0 && (fd = dial()) < 0) {
			l->errors++;
			usleep(10000);
			continue;
		}
		rc = send_all(fd, req, (size_t)n) < 0 ? -1 : read_response(fd, t0 + IO_TIMEOUT_MS, &st);
		if (rc == 0 && st == 200) {
			l->ok++;
			if (l->nlat < l->cap)
				l->lat[l->nlat++] = now_ms() - t0;
		} else {
			rc == -2 ? l->timeouts++ : l->errors++;
		}
		if (rc != 0 || l->fresh) {
			close(fd);
			fd = -1;
		}
		if (l->pause)
			usleep((useconds_t)l->pause * 1000);
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double pct(const double *v, size_t n, double p)
{
	return n ? v[(size_t)((double)(n - 1) * p)] : 0;
}

static int load_report(loader *l, int conns, double secs)
{
	unsigned long ok = 0, err = 0, to = 0;
	size_t n = 0;
	double *all = malloc(sizeof(double) * MAX_SAMPLES);

	if (!all)
		return 1;
	for (int i = 0; i < conns; i++) {
		ok += l[i].ok;
		err += l[i].errors;
		to += l[i].timeouts;
		for (size_t k = 0; k < l[i].nlat && n < MAX_SAMPLES; k++)
			all[n++] = l[i].lat[k];
		free(l[i].lat);
	}
	qsort(all, n, sizeof(double), cmp_double);
	printf("load %s: %lu ok (%.0f/s), %lu errors, %lu timeouts; ms p50 %.2f p90 %.2f p99 %.2f max %.2f\n",
	       l[0].path, ok, (double)ok / secs, err, to, pct(all, n, 0.5), pct(all, n, 0.9), pct(all, n, 0.99),
	       n ? all[n - 1] : 0);
	free(all);
	return 0;
}

static int mode_load(int argc, char **argv)
{
	static loader l[MAX_THREADS];
	static pthread_t t[MAX_THREADS];
	int conns, fresh = argc > 6 && !strcmp(argv[argc - 1], "-n");
	double secs;

	if (argc < 6 || argc > 8)
		return 2;
	conns = (int)num(argv[3], 1, MAX_THREADS, "CONNS");
	secs = (double)num(argv[4], 1, MAX_SECONDS, "SECONDS");
	for (int i = 0; i < conns; i++) {
		l[i].path = argv[5];
		l[i].end = now_ms() + secs * 1e3;
		l[i].pause = argc > 6 && strcmp(argv[6], "-n") ? num(argv[6], 0, 60000, "PAUSE_MS") : 0;
		l[i].fresh = fresh;
		l[i].cap = MAX_SAMPLES / (size_t)conns;
		if (!(l[i].lat = malloc(sizeof(double) * l[i].cap)) ||
		    pthread_create(&t[i], NULL, load_client, &l[i]) != 0)
			return 1;
	}
	for (int i = 0; i < conns; i++)
		pthread_join(t[i], NULL);
	return load_report(l, conns, secs);
}

int main(int argc, char **argv)
{
	struct rlimit rl;
	int rc = 2;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (argc >= 3) {
		port = (unsigned short)num(argv[2], 1, 65535, "PORT");
		if (!strcmp(argv[1], "send"))
			rc = mode_send(argc, argv);
		else if (!strcmp(argv[1], "idle"))
			rc = mode_hold(M_IDLE, argc, argv);
		else if (!strcmp(argv[1], "trickle"))
			rc = mode_hold(M_TRICKLE, argc, argv);
		else if (!strcmp(argv[1], "slowbody"))
			rc = mode_hold(M_SLOWBODY, argc, argv);
		else if (!strcmp(argv[1], "load"))
			rc = mode_load(argc, argv);
	}
	if (rc == 2)
		fprintf(stderr, "usage: hostile send|idle|trickle|slowbody|load PORT ... (see the top of hostile.c)\n");
	return rc;
}
