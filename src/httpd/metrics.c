/* metrics.c - GET /metrics in the Prometheus text format (0.0.4): requests by
 * route and status, requests in flight, a latency histogram, verdicts by reason
 * and advice, decode errors, refused bodies, the build, and the process_*
 * metrics of Prometheus' client libraries (read from /proc/self on Linux).
 * Counters are atomics in fixed tables: nothing is allocated on the request path. */
#include <dirent.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "httpd_int.h"
#include "logmetrics.h"
#include "socketmap.h"

#define M_ROUTES (HTTPD_ROUTES_MAX + 1) /* the last one: no route */

static const int statuses[] = { 200, 204, 304, 400, 404, 405, 408, 413, 415, 431, 500, 503 };
#define M_STATUS (sizeof(statuses) / sizeof(statuses[0]) + 2) /* + other, + none */

static const double bounds[] = { 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10 };
#define M_BUCKETS (sizeof(bounds) / sizeof(bounds[0]) + 1)

static const char *const refusals[M_REFUSED] = { "too_large", "wrong_type", "busy", "bad_framing" };

static atomic_ulong requests[M_ROUTES][M_STATUS];
static atomic_ulong buckets[M_BUCKETS];
static atomic_ulong usec_sum, count;
static atomic_ulong verdicts[M_REASONS + 1][M_ADVICE];
static atomic_ulong decode_errors, refused[M_REFUSED];
static atomic_long in_flight;

static size_t status_slot(int status)
{
	if (!status)
		return M_STATUS - 1;
	for (size_t i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++)
		if (statuses[i] == status)
			return i;
	return M_STATUS - 2;
}

void metrics_request(int ri, int status, double seconds)
{
	size_t r = ri >= 0 && ri < HTTPD_ROUTES_MAX ? (size_t)ri : M_ROUTES - 1, b = 0;

	atomic_fetch_add_explicit(&requests[r][status_slot(status)], 1, memory_order_relaxed);
	while (b < M_BUCKETS - 1 && seconds > bounds[b])
		b++;
	atomic_fetch_add_explicit(&buckets[b], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&usec_sum, (unsigned long)(seconds * 1e6), memory_order_relaxed);
	atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
}

void metrics_in_flight(int delta)
{
	atomic_fetch_add_explicit(&in_flight, delta, memory_order_relaxed);
}

void metrics_verdict(const char *reason, const char *advice)
{
	atomic_fetch_add_explicit(&verdicts[metrics_reason_slot(reason)][metrics_advice_slot(advice)], 1,
				  memory_order_relaxed);
}

void metrics_decode_errors(size_t n)
{
	atomic_fetch_add_explicit(&decode_errors, n, memory_order_relaxed);
}

void metrics_refused(int why)
{
	if (why >= 0 && why < M_REFUSED)
		atomic_fetch_add_explicit(&refused[why], 1, memory_order_relaxed);
}

static unsigned long get(atomic_ulong *v)
{
	return atomic_load_explicit(v, memory_order_relaxed);
}

static void requests_text(smtpdiag_buf *b)
{
	metrics_head(b, "smtpdiag_http_requests_total", "counter", "Requests answered, by route and status.");
	for (size_t r = 0; r < M_ROUTES; r++) {
		const route *rt = r < M_ROUTES - 1 ? route_at_or_null((int)r) : NULL;
		for (size_t s = 0; s < M_STATUS; s++) {
			unsigned long v = get(&requests[r][s]);
			if (!v)
				continue;
			smtpdiag_buf_printf(b, "smtpdiag_http_requests_total{route=\"%s\",status=\"", rt ? rt->path : "none");
			if (s < M_STATUS - 2)
				smtpdiag_buf_printf(b, "%d", statuses[s]);
			else
				hb_puts(b, s == M_STATUS - 2 ? "other" : "none");
			smtpdiag_buf_printf(b, "\"} %lu\n", v);
		}
	}
}

static void latency_text(smtpdiag_buf *b)
{
	unsigned long cum = 0;

	metrics_head(b, "smtpdiag_http_request_duration_seconds", "histogram", "Time from the request line to the last byte.");
	for (size_t i = 0; i < M_BUCKETS; i++) {
		cum += get(&buckets[i]);
		if (i < M_BUCKETS - 1)
			smtpdiag_buf_printf(b, "smtpdiag_http_request_duration_seconds_bucket{le=\"%g\"} %lu\n", bounds[i], cum);
		else
			smtpdiag_buf_printf(b, "smtpdiag_http_request_duration_seconds_bucket{le=\"+Inf\"} %lu\n", cum);
	}
	smtpdiag_buf_printf(b, "smtpdiag_http_request_duration_seconds_sum %.6f\n", (double)get(&usec_sum) / 1e6);
	smtpdiag_buf_printf(b, "smtpdiag_http_request_duration_seconds_count %lu\n", get(&count));
}

static void verdicts_text(smtpdiag_buf *b)
{
	metrics_head(b, "smtpdiag_verdicts_total", "counter", "Verdicts made (decode, analyze, explain; answers from the cache not counted), by reason and advice.");
	for (size_t r = 0; r <= M_REASONS; r++)
		for (size_t a = 0; a < M_ADVICE; a++) {
			unsigned long v = get(&verdicts[r][a]);
			if (!v || !metrics_advice_label(a))
				continue;
			smtpdiag_buf_printf(b, "smtpdiag_verdicts_total{reason=\"%s\",advice=\"%s\"} %lu\n",
					    metrics_reason_label(r), metrics_advice_label(a), v);
		}
}

/* Read a small file of /proc into buf (NUL-terminated); its length, or -1. */
static ssize_t proc_read(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, len = 0;

	if (fd < 0)
		return -1;
	while ((size_t)len < cap - 1 && (n = read(fd, buf + len, cap - 1 - (size_t)len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	return len;
}

/* The boot time (btime of /proc/stat, seconds since the epoch), 0 when unknown. */
static unsigned long long boot_time(void)
{
	static char st[16384]; /* /proc/stat grows with the CPUs; btime follows their lines */
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	static unsigned long long bt;
	const char *p;

	pthread_mutex_lock(&mu);
	if (!bt && proc_read("/proc/stat", st, sizeof(st)) > 0 && (p = strstr(st, "\nbtime ")))
		bt = strtoull(p + 7, NULL, 10);
	pthread_mutex_unlock(&mu);
	return bt;
}

static long open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	long n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* The process_* metrics as Prometheus' client libraries name them on Linux
 * (proc(5): utime, stime, starttime, vsize, rss of /proc/self/stat); none where
 * /proc/self/stat cannot be read. */
static void process_text(smtpdiag_buf *b)
{
	char st[1024];
	const char *p;
	unsigned long ut, sy, vsize;
	unsigned long long start;
	long rss, tck = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE), fds;
	unsigned long long bt;
	struct rlimit rl;

	if (proc_read("/proc/self/stat", st, sizeof(st)) <= 0 || !(p = strrchr(st, ')')) || tck <= 0 || page <= 0 ||
	    sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu %*d %*d %*d %*d %*d %*d %llu %lu %ld",
		   &ut, &sy, &start, &vsize, &rss) != 5)
		return;
	metrics_head(b, "process_cpu_seconds_total", "counter", "User and system CPU time the process has used, in seconds.");
	smtpdiag_buf_printf(b, "process_cpu_seconds_total %.2f\n", (double)(ut + sy) / (double)tck);
	if ((fds = open_fds()) >= 0) {
		metrics_head(b, "process_open_fds", "gauge", "File descriptors the process has open.");
		smtpdiag_buf_printf(b, "process_open_fds %ld\n", fds);
	}
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		metrics_head(b, "process_max_fds", "gauge", "The most file descriptors the process may open (the soft limit).");
		if (rl.rlim_cur == RLIM_INFINITY)
			hb_puts(b, "process_max_fds +Inf\n");
		else
			smtpdiag_buf_printf(b, "process_max_fds %llu\n", (unsigned long long)rl.rlim_cur);
	}
	metrics_head(b, "process_virtual_memory_bytes", "gauge", "Size of the process's virtual memory, in bytes.");
	smtpdiag_buf_printf(b, "process_virtual_memory_bytes %lu\n", vsize);
	metrics_head(b, "process_resident_memory_bytes", "gauge", "Resident memory of the process, in bytes.");
	smtpdiag_buf_printf(b, "process_resident_memory_bytes %llu\n", (unsigned long long)(rss > 0 ? rss : 0) * (unsigned long long)page);
	if ((bt = boot_time())) {
		metrics_head(b, "process_start_time_seconds", "gauge", "When the process started, in seconds since the Unix epoch.");
		smtpdiag_buf_printf(b, "process_start_time_seconds %.2f\n", (double)bt + (double)start / (double)tck);
	}
}

void metrics_text(smtpdiag_buf *b)
{
	requests_text(b);
	metrics_head(b, "smtpdiag_http_requests_in_flight", "gauge", "Requests being answered now (this one included).");
	smtpdiag_buf_printf(b, "smtpdiag_http_requests_in_flight %ld\n", atomic_load_explicit(&in_flight, memory_order_relaxed));
	latency_text(b);
	verdicts_text(b);
	metrics_head(b, "smtpdiag_decode_errors_total", "counter", "Messages that could not be read (an mbox goes on past them).");
	smtpdiag_buf_printf(b, "smtpdiag_decode_errors_total %lu\n", get(&decode_errors));
	metrics_head(b, "smtpdiag_http_bodies_refused_total", "counter", "Request bodies refused, by why.");
	for (size_t i = 0; i < M_REFUSED; i++)
		smtpdiag_buf_printf(b, "smtpdiag_http_bodies_refused_total{why=\"%s\"} %lu\n", refusals[i], get(&refused[i]));
	metrics_head(b, "smtpdiag_build_info", "gauge", "The build: always 1, its version a label.");
	smtpdiag_buf_printf(b, "smtpdiag_build_info{version=\"%s\"} 1\n", smtpdiag_version());
	process_text(b);
	logmetrics_text(b, (int64_t)time(NULL));
	sm_metrics_text(b);
}

enum MHD_Result page_metrics(hreq *r)
{
	smtpdiag_buf b = { 0 };
	enum MHD_Result ret;
	hbody *h;

	metrics_text(&b);
	if (!(h = hbody_from_buf(&b, "text/plain; version=0.0.4; charset=utf-8", "no-store", HF_NO_ETAG)))
		return MHD_NO;
	ret = reply_body(r, 200, h);
	hbody_unref(h);
	return ret;
}
