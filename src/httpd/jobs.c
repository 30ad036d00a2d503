/* jobs.c - the handler pool.
 *
 * Requests that call the library (explain, decode, analyze, pages not in the
 * cache) run on threads of their own, so a slow or stuck handler never holds
 * a connection thread: those keep accepting, reading, and answering /healthz,
 * static files and cached pages. The connection waits suspended; MHD lets only
 * its connection thread queue a response, so the job hands its response over
 * (job_handover), resumes the connection and waits until it is queued; the
 * connection thread queues it in job_resumed.
 *
 * While a job holds the answer, an end of stream read on the connection is
 * kept for after it (wire.c): a client that half-closed after its request
 * gets the answer, with Connection: close.
 *
 * An hreq lives until both the connection (its completed callback) and the job
 * have let it go (hreq_release). */
#include <errno.h>
#include <stdlib.h>

#include "httpd_int.h"

#define JOB_QUEUE 1024         /* requests waiting for a handler thread; more get 503 */
#define JOB_HANDOVER_MS 5000   /* how long a job waits for its connection thread */
#define JOB_MAX_THREADS 64

static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_cond = PTHREAD_COND_INITIALIZER;
static hreq *queue[JOB_QUEUE];
static unsigned q_head, q_len, running;
static int q_closed, q_stop;
static pthread_t workers[JOB_MAX_THREADS];
static unsigned nworkers;

static void run(hreq *r)
{
	const route *rt = route_at(r->route);

	r->in_job = 1;
	rt->fn(r);
	pthread_mutex_lock(&r->lock);
	if (!r->queued && !r->pending) {
		/* the handler gave no response: resume to close the connection */
		pthread_mutex_unlock(&r->lock);
		MHD_resume_connection(r->conn);
	} else {
		pthread_mutex_unlock(&r->lock);
	}
	hreq_release(r);
}

static void *worker(void *arg)
{
	hreq *r;

	(void)arg;
	pthread_mutex_lock(&q_lock);
	for (;;) {
		while (!q_len && !q_stop)
			pthread_cond_wait(&q_cond, &q_lock);
		if (!q_len)
			break;
		r = queue[q_head];
		q_head = (q_head + 1) % JOB_QUEUE;
		q_len--;
		running++;
		pthread_mutex_unlock(&q_lock);
		run(r);
		pthread_mutex_lock(&q_lock);
		running--;
	}
	pthread_mutex_unlock(&q_lock);
	return NULL;
}

int jobs_start(unsigned threads)
{
	q_head = q_len = running = 0;
	q_closed = q_stop = 0;
	if (threads > JOB_MAX_THREADS)
		threads = JOB_MAX_THREADS;
	for (nworkers = 0; nworkers < threads; nworkers++)
		if (pthread_create(&workers[nworkers], NULL, worker, NULL) != 0)
			break;
	return nworkers ? 0 : -1;
}

unsigned jobs_close(void)
{
	unsigned left;

	pthread_mutex_lock(&q_lock);
	q_closed = 1;
	left = q_len + running;
	pthread_mutex_unlock(&q_lock);
	return left;
}

void jobs_stop(void)
{
	pthread_mutex_lock(&q_lock);
	q_stop = 1;
	pthread_cond_broadcast(&q_cond);
	pthread_mutex_unlock(&q_lock);
	for (unsigned i = 0; i < nworkers; i++)
		pthread_join(workers[i], NULL);
	nworkers = 0;
}

enum MHD_Result job_submit(hreq *r)
{
	pthread_mutex_lock(&q_lock);
	if (q_closed || q_len >= JOB_QUEUE) {
		pthread_mutex_unlock(&q_lock);
		return reply_busy(r, q_closed ? "the server is stopping" : "too many requests waiting");
	}
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);
	r->job = 1;
	if (guard_wire(r->hc))
		atomic_store(&guard_wire(r->hc)->waiting, 1);
	atomic_fetch_add(&r->refs, 1);
	MHD_suspend_connection(r->conn); /* before a worker can resume it */
	queue[(q_head + q_len) % JOB_QUEUE] = r;
	q_len++;
	pthread_cond_signal(&q_cond);
	pthread_mutex_unlock(&q_lock);
	return MHD_YES;
}

enum MHD_Result job_resumed(hreq *r)
{
	enum MHD_Result ret = MHD_NO;
	wire *w = guard_wire(r->hc);

	pthread_mutex_lock(&r->lock);
	if (r->pending && !r->queued) {
		if (w && atomic_load(&w->eof)) /* the client half-closed: answer, then close */
			MHD_add_response_header(r->pending, MHD_HTTP_HEADER_CONNECTION, "close");
		ret = r->qret = MHD_queue_response(r->conn, (unsigned)r->pstatus, r->pending);
		r->queued = 1;
		pthread_cond_signal(&r->cond);
	}
	pthread_mutex_unlock(&r->lock);
	if (w)
		atomic_store(&w->waiting, 0);
	return ret; /* MHD_NO without a response: the connection is closed */
}

void job_conn_gone(hreq *r)
{
	if (!r->job)
		return;
	pthread_mutex_lock(&r->lock);
	if (!r->queued) {
		r->queued = 1; /* nothing will queue it now: the job stops waiting */
		r->qret = MHD_NO;
		pthread_cond_signal(&r->cond);
	}
	pthread_mutex_unlock(&r->lock);
}

static void deadline_in(struct timespec *t, long ms)
{
	clock_gettime(CLOCK_REALTIME, t);
	t->tv_sec += ms / 1000;
	t->tv_nsec += (ms % 1000) * 1000000L;
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

enum MHD_Result job_handover(hreq *r, int status, struct MHD_Response *resp)
{
	struct timespec until;
	enum MHD_Result ret;

	pthread_mutex_lock(&r->lock);
	if (r->pending || r->queued) { /* one response per request */
		pthread_mutex_unlock(&r->lock);
		return MHD_NO;
	}
	r->pending = resp;
	r->pstatus = status;
	pthread_mutex_unlock(&r->lock);
	MHD_resume_connection(r->conn);
	deadline_in(&until, JOB_HANDOVER_MS);
	pthread_mutex_lock(&r->lock);
	while (!r->queued)
		if (pthread_cond_timedwait(&r->cond, &r->lock, &until) == ETIMEDOUT)
			break;
	ret = r->queued ? r->qret : MHD_NO;
	r->queued = 1; /* taken or given up: the connection thread must not queue it later */
	pthread_mutex_unlock(&r->lock);
	return ret;
}

void hreq_release(hreq *r)
{
	if (atomic_fetch_sub(&r->refs, 1) != 1)
		return;
	if (r->job) {
		pthread_mutex_destroy(&r->lock);
		pthread_cond_destroy(&r->cond);
	}
	if (r->bcap)
		guard_body_give(r->bcap);
	free(r->body);
	free(r);
}
