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
 * Store work has a pool of its own (JOB_STORE): a request that waited in its
 * queue longer than STORE_WAIT_MS is answered 503 with Retry-After without
 * touching the store, and the store's statements wait STORE_WAIT_MS for a lock.
 *
 * An hreq lives until both the connection (its completed callback) and the job
 * have let it go (hreq_release). */
#include <errno.h>
#include <stdlib.h>

#include "httpd_int.h"
#include "api_store.h"

#define JOB_QUEUE 1024         /* requests waiting for a handler thread; more get 503 */
#define JOB_HANDOVER_MS 5000   /* how long a job waits for its connection thread */
#define JOB_MAX_THREADS 64

/* A pool: its queue and its threads. JOB_MAIN runs what needs no store;
 * JOB_STORE (started only with a store) what reads or writes it, so a store
 * that is slow or locked holds its own threads only. */
typedef struct pool {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	hreq *queue[JOB_QUEUE];
	unsigned head, len, running;
	int closed, stop;
	pthread_t workers[JOB_MAX_THREADS];
	unsigned n;
} pool;

static pool pools[JOB_POOLS] = {
	{ PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, { 0 }, 0, 0, 0, 0, 0, { 0 }, 0 },
	{ PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, { 0 }, 0, 0, 0, 0, 0, { 0 }, 0 },
};

static long ms_since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (long)(now.tv_sec - t->tv_sec) * 1000 + (now.tv_nsec - t->tv_nsec) / 1000000;
}

static void run(pool *p, hreq *r)
{
	const route *rt = route_at(r->route);

	r->in_job = 1;
	if (p == &pools[JOB_STORE] && ms_since(&r->tq) > STORE_WAIT_MS)
		reply_busy(r, "the store is busy: try again shortly"); /* waited out its turn */
	else
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
	pool *p = arg;
	hreq *r;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->len && !p->stop)
			pthread_cond_wait(&p->cond, &p->lock);
		if (!p->len)
			break;
		r = p->queue[p->head];
		p->head = (p->head + 1) % JOB_QUEUE;
		p->len--;
		p->running++;
		pthread_mutex_unlock(&p->lock);
		run(p, r);
		pthread_mutex_lock(&p->lock);
		p->running--;
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static unsigned pool_start(pool *p, unsigned threads)
{
	p->head = p->len = p->running = 0;
	p->closed = p->stop = 0;
	if (threads > JOB_MAX_THREADS)
		threads = JOB_MAX_THREADS;
	for (p->n = 0; p->n < threads; p->n++)
		if (pthread_create(&p->workers[p->n], NULL, worker, p) != 0)
			break;
	return p->n;
}

int jobs_start(unsigned threads)
{
	if (!pool_start(&pools[JOB_MAIN], threads))
		return -1;
	if (store_on() && !pool_start(&pools[JOB_STORE], threads)) {
		jobs_stop();
		return -1;
	}
	return 0;
}

unsigned jobs_close(void)
{
	unsigned left = 0;

	for (int i = 0; i < JOB_POOLS; i++) {
		pthread_mutex_lock(&pools[i].lock);
		pools[i].closed = 1;
		left += pools[i].len + pools[i].running;
		pthread_mutex_unlock(&pools[i].lock);
	}
	return left;
}

void jobs_stop(void)
{
	for (int i = 0; i < JOB_POOLS; i++) {
		pool *p = &pools[i];
		pthread_mutex_lock(&p->lock);
		p->stop = 1;
		pthread_cond_broadcast(&p->cond);
		pthread_mutex_unlock(&p->lock);
		for (unsigned k = 0; k < p->n; k++)
			pthread_join(p->workers[k], NULL);
		p->n = 0;
	}
}

enum MHD_Result job_submit_to(hreq *r, int which)
{
	pool *p = &pools[which == JOB_STORE && pools[JOB_STORE].n ? JOB_STORE : JOB_MAIN];

	pthread_mutex_lock(&p->lock);
	if (p->closed || p->len >= JOB_QUEUE) {
		pthread_mutex_unlock(&p->lock);
		return reply_busy(r, p->closed ? "the server is stopping" : "too many requests waiting");
	}
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);
	r->job = 1;
	if (guard_wire(r->hc))
		atomic_store(&guard_wire(r->hc)->waiting, 1);
	clock_gettime(CLOCK_MONOTONIC, &r->tq);
	atomic_fetch_add(&r->refs, 1);
	MHD_suspend_connection(r->conn); /* before a worker can resume it */
	p->queue[(p->head + p->len) % JOB_QUEUE] = r;
	p->len++;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
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
