/* cmd_scan.c - smtpdiag scan: delivery failures and deferrals from MTA logs.
 *
 * Each input is read in large chunks (cmd_scan_input.c) and every line goes
 * to smtpdiag_scan_line(); records are written as JSON Lines or text, or only
 * counted (--summary, cmd_scan_sum.c). With -j N, N threads take the inputs in
 * turn; each input's output is spooled to a temporary file and copied out in
 * the order of the arguments, so every input's records stay together. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cmd_scan.h"

#define SCAN_MAX_JOBS 256          /* -j */
#define SCAN_OUT_FLUSH (256u << 10) /* bytes of output gathered before a write */
#define SCAN_POLL_MS 1000          /* --follow: how often a file is looked at */
#define SCAN_PROGRESS_MS 250       /* progress bar refresh */

static const char help[] =
	"usage: smtpdiag scan [OPTIONS] LOG...\n"
	"\n"
	"Read MTA logs and report every delivery attempt: sent, deferred, bounced or\n"
	"expired, with the remote's reply and the verdict decode would give for it.\n"
	"A LOG is a file, a gzip-compressed file, or '-' for standard input. Lines of\n"
	"Postfix, Exim (main log), Sendmail and OpenSMTPD are read, bare or in syslog\n"
	"form (RFC 3164, RFC 5424, RFC 3339 times); other lines are skipped and counted.\n"
	"\n"
	"options:\n"
	"  --format jsonl|text  JSON Lines (default) or one readable line per attempt\n"
	"  --summary            print only counts: lines read = delivery lines + skipped\n"
	"                       + malformed + over a limit; records by action, reason,\n"
	"                       recipient domain, relay and code; messages deferred past\n"
	"                       RFC 5321's give-up time (5 days); 4xx replies the MTA\n"
	"                       turned into bounces\n"
	"  --failures           write only deferred, bounced and expired attempts\n"
	"  --follow             keep reading files as they grow, like tail -F (survives\n"
	"                       rotation and truncation); stop with Ctrl-C or SIGTERM\n"
	"  -j, --jobs N         read N inputs at a time (threads; output stays per input)\n"
	"  --utc                read times without a zone as UTC (default: local time, TZ)\n"
	"  -h, --help           this help\n"
	"\n"
	"Times: JSON \"timestamp\" is Unix seconds and \"timezoneoffset\" the offset the\n"
	"line's time was read with: the line's own when it has one, else local time.\n"
	"RFC 3164 lines have no year: it is the year of the file's modification time\n"
	"(now for standard input), or the year before for months after that time's.\n"
	"Exit status: 0 every input read, 1 some inputs failed, 2 bad usage, 3 internal failure.\n";

typedef struct scan_opts {
	int text, summary, failures, follow, jobs;
	unsigned flags;
} scan_opts;

typedef struct worker {
	const scan_opts *o;
	smtpdiag_scanner *sc;
	smtpdiag_buf out;
	FILE *dst;
	scan_sum sum;
	int werr;
} worker;

static volatile sig_atomic_t scan_stop;

/* ---- progress bar (stderr is a terminal, every input a regular file) ---- */

static struct {
	int on;
	uint64_t total;
	_Atomic uint64_t done;
	double start, last;
} prog;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void progress_show(int final)
{
	double t = now_s(), mb = (double)atomic_load(&prog.done) / 1048576.0;
	int pct = prog.total ? (int)(atomic_load(&prog.done) * 100 / prog.total) : 0;

	if (!prog.on || (!final && t - prog.last < SCAN_PROGRESS_MS / 1000.0))
		return;
	prog.last = t;
	if (final) {
		fputs("\r\033[K", stderr);
		return;
	}
	if (pct > 100)
		pct = 100;
	fprintf(stderr, "\rscan [%-20.*s] %3d%%  %.0f / %.0f MB  %.0f MB/s\033[K", pct / 5,
		"####################", pct, mb, (double)prog.total / 1048576.0,
		t > prog.start ? mb / (t - prog.start) : 0.0);
}

static void progress_init(const scan_opts *o, char **paths, int n)
{
	struct stat st;

	prog.on = !o->follow && isatty(2);
	prog.total = 0;
	for (int i = 0; i < n && prog.on; i++) {
		if (!strcmp(paths[i], "-") || stat(paths[i], &st) < 0 || !S_ISREG(st.st_mode))
			prog.on = 0;
		else
			prog.total += (uint64_t)st.st_size;
	}
	prog.start = prog.last = now_s();
}

/* ---- output ---- */

static void flush_out(worker *w)
{
	if (w->out.len && fwrite(w->out.data, 1, w->out.len, w->dst) != w->out.len)
		w->werr = errno ? errno : EIO;
	w->out.len = 0;
}

static void when(const smtpdiag_logrec *r, char out[32])
{
	const char *z = r->timezoneoffset;
	long off = 0;
	time_t t;
	struct tm tm;

	if (!r->timestamp) {
		out[0] = '-';
		out[1] = 0;
		return;
	}
	if (strlen(z) == 5)
		off = (z[0] == '-' ? -1 : 1) * (((z[1] - '0') * 10 + (z[2] - '0')) * 3600L +
						 ((z[3] - '0') * 10 + (z[4] - '0')) * 60L);
	t = (time_t)(r->timestamp + off);
	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%d %H:%M:%S", &tm);
}

static void text_line(worker *w, const smtpdiag_logrec *r)
{
	char t[32];

	flush_out(w);
	when(r, t);
	if (cli_line(w->dst, "%-19s %-8s %-32s %-3s %-8s %-16s %-24s %-16s %.160s", t, r->action,
		    r->recipient[0] ? r->recipient : "-", r->replycode[0] ? r->replycode : "-",
		    r->status[0] ? r->status : "-", r->reason, r->advice, r->queueid[0] ? r->queueid : "-",
		    r->diagnosticcode) < 0)
		w->werr = errno ? errno : EIO;
}

static void emit(worker *w, const smtpdiag_logrec *r)
{
	if (w->o->summary) {
		scan_sum_rec(&w->sum, r);
		return;
	}
	if (w->o->failures && !strcmp(r->action, "sent"))
		return;
	if (w->o->text) {
		text_line(w, r);
		return;
	}
	smtpdiag_logrec_json(r, &w->out);
	if (w->out.oom) {
		w->werr = ENOMEM;
		w->out.oom = 0;
		w->out.len = 0;
		return;
	}
	w->out.data[w->out.len++] = '\n';
	if (w->out.len >= SCAN_OUT_FLUSH)
		flush_out(w);
}

/* ---- lines ---- */

static void on_line(void *ctx, const char *p, size_t n)
{
	worker *w = ctx;
	int rc = smtpdiag_scan_line(w->sc, p, n);

	w->sum.lines++;
	if (rc > 0) {
		w->sum.delivery++;
		for (int i = 0; i < rc; i++)
			emit(w, smtpdiag_scanner_rec(w->sc, (size_t)i));
	} else if (rc == 0) {
		w->sum.skipped++;
	} else if (rc == SMTPDIAG_EPARSE) {
		w->sum.malformed++;
	} else {
		w->sum.toolong++;
	}
}

static void on_toolong(void *ctx)
{
	worker *w = ctx;

	w->sum.lines++;
	w->sum.toolong++;
}

/* ---- one input ---- */

/* Open an input. quiet (--follow looking again): a failure is neither said
 * nor counted. A file --follow waits for is not a failure either. */
static int open_input(worker *w, scan_src *src, const char *path, int quiet)
{
	memset(src, 0, sizeof(*src));
	src->fd = -1;
	src->on_line = on_line;
	src->on_toolong = on_toolong;
	src->ctx = w;
	if (scan_src_open(src, path) == 0) {
		w->sum.inputs++;
		smtpdiag_scanner_reftime(w->sc, src->regular && !w->o->follow ? src->mtime : 0);
		return 0;
	}
	scan_src_close(src);
	if (quiet)
		return -1;
	if (w->o->follow && src->errnum == ENOENT) {
		cli_err("scan: %s: not there yet; waiting for it", path);
		return -1;
	}
	cli_err("scan: %s: %s", path, src->err);
	w->sum.inputs++;
	w->sum.failed_inputs++;
	return -1;
}

/* Read to the end of what is there. Returns 0, or -1 after a read error. */
static int drain(worker *w, scan_src *src, int single)
{
	int rc = 0;
	off_t before = src->off;

	while (!scan_stop && (rc = scan_src_pump(src)) > 0) {
		atomic_fetch_add(&prog.done, (uint64_t)(src->off - before));
		before = src->off;
		if (single)
			progress_show(0);
	}
	if (rc >= 0 || scan_stop)
		return 0;
	cli_err("scan: %s: %s", src->path, src->err);
	w->sum.failed_inputs++;
	return -1;
}

static void scan_one(worker *w, const char *path, int single)
{
	scan_src src;

	if (open_input(w, &src, path, 0) < 0)
		return;
	if (drain(w, &src, single) == 0)
		scan_src_finish(&src);
	flush_out(w);
	scan_src_close(&src);
}

/* ---- --follow ---- */

typedef struct followed {
	const char *path;
	scan_src src;
	int open;
} followed;

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL); /* a signal cuts it short */
}

/* Rotation: the path names another file now; truncation: the file shrank. */
static void follow_check(worker *w, followed *f)
{
	struct stat st;

	if (stat(f->path, &st) < 0)
		return; /* being rotated: keep reading the old file */
	if (f->open && (st.st_ino != f->src.ino || st.st_dev != f->src.dev)) {
		drain(w, &f->src, 1);
		scan_src_finish(&f->src);
		scan_src_close(&f->src);
		f->open = 0;
	} else if (f->open && scan_src_rewritten(&f->src, st.st_size)) {
		scan_src_rewind(&f->src);
	}
	if (!f->open)
		f->open = open_input(w, &f->src, f->path, 1) == 0;
}

static void follow(worker *w, char **paths, int n)
{
	followed *fs = calloc((size_t)n, sizeof(followed));

	if (!fs) {
		w->werr = ENOMEM;
		return;
	}
	for (int i = 0; i < n; i++) {
		fs[i].path = paths[i];
		fs[i].open = open_input(w, &fs[i].src, paths[i], 0) == 0;
	}
	while (!scan_stop) {
		for (int i = 0; i < n && !scan_stop; i++) {
			if (strcmp(paths[i], "-"))
				follow_check(w, &fs[i]);
			if (fs[i].open)
				drain(w, &fs[i].src, 1);
		}
		flush_out(w);
		fflush(w->dst);
		sleep_ms(SCAN_POLL_MS);
	}
	for (int i = 0; i < n; i++)
		if (fs[i].open)
			scan_src_close(&fs[i].src);
	free(fs);
}

static void on_signal(int sig)
{
	(void)sig;
	scan_stop = 1;
}

static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* ---- -j N ---- */

typedef struct pool {
	const scan_opts *o;
	char **paths;
	int n;
	int next;            /* next input to take */
	int head;            /* first input not yet written out */
	FILE **spool;        /* a temporary file per input, NULL when written directly */
	int *done;
	pthread_mutex_t mu;
	pthread_cond_t cv;
} pool;

typedef struct job {
	pool *p;
	worker *w;
} job;

/* The next input, and whether its records can go straight to stdout: only
 * the first input not written out yet can (nothing is written before it). */
static int pool_take(pool *p, int *direct)
{
	int i;

	pthread_mutex_lock(&p->mu);
	i = p->next < p->n ? p->next++ : -1;
	*direct = i >= 0 && i == p->head;
	pthread_mutex_unlock(&p->mu);
	return i;
}

static void *pool_run(void *arg)
{
	job *j = arg;
	pool *p = j->p;
	int i, direct;

	while ((i = pool_take(p, &direct)) >= 0) {
		FILE *t = direct ? NULL : tmpfile();
		j->w->dst = t ? t : stdout;
		if (!direct && !t)
			j->w->werr = errno ? errno : EIO;
		else
			scan_one(j->w, p->paths[i], 0);
		pthread_mutex_lock(&p->mu);
		p->spool[i] = t;
		p->done[i] = 1;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
	}
	return NULL;
}

static int copy_spool(FILE *t)
{
	char buf[1 << 16];
	size_t k;

	rewind(t);
	while ((k = fread(buf, 1, sizeof(buf), t)) > 0)
		if (fwrite(buf, 1, k, stdout) != k)
			return -1;
	return ferror(t) ? -1 : 0;
}

/* Copy each input's output out in order, showing progress while waiting. */
static int pool_collect(pool *p)
{
	int rc = 0;

	for (int i = 0; i < p->n; i++) {
		pthread_mutex_lock(&p->mu);
		while (!p->done[i]) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += SCAN_PROGRESS_MS * 1000000L;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&p->cv, &p->mu, &ts);
			progress_show(0);
		}
		pthread_mutex_unlock(&p->mu);
		if (p->spool[i]) {
			if (copy_spool(p->spool[i]) < 0)
				rc = -1;
			fclose(p->spool[i]);
		}
		pthread_mutex_lock(&p->mu);
		p->head = i + 1;
		pthread_mutex_unlock(&p->mu);
	}
	return rc;
}

static int worker_init(worker *w, const scan_opts *o)
{
	memset(w, 0, sizeof(*w));
	w->o = o;
	w->dst = stdout;
	scan_sum_init(&w->sum);
	w->sc = smtpdiag_scanner_new(o->flags);
	return w->sc ? 0 : -1;
}

static void worker_free(worker *w)
{
	smtpdiag_scanner_free(w->sc);
	smtpdiag_buf_free(&w->out);
	scan_sum_free(&w->sum);
}

static int run_pool(const scan_opts *o, char **paths, int n, worker *ws, int nw)
{
	pool p;
	job jobs[SCAN_MAX_JOBS];
	pthread_t th[SCAN_MAX_JOBS];
	int started = 0, rc;

	memset(&p, 0, sizeof(p));
	p.o = o;
	p.paths = paths;
	p.n = n;
	p.spool = calloc((size_t)n, sizeof(FILE *));
	p.done = calloc((size_t)n, sizeof(int));
	if (!p.spool || !p.done) {
		free(p.spool);
		free(p.done);
		return -1;
	}
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.cv, NULL);
	for (int i = 0; i < nw; i++) {
		jobs[i] = (job){ &p, &ws[i] };
		if (pthread_create(&th[i], NULL, pool_run, &jobs[i]) == 0)
			started++;
	}
	if (!started)
		pool_run(&jobs[0]);
	rc = pool_collect(&p);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&p.mu);
	pthread_cond_destroy(&p.cv);
	free(p.spool);
	free(p.done);
	return rc;
}

/* ---- options ---- */

static int usage_error(const char *msg, const char *arg)
{
	cli_err("scan: %s%s%s (try 'smtpdiag scan --help')", msg, arg ? " " : "", arg ? arg : "");
	return EXIT_USAGE_;
}

static int opt_value(int argc, char **argv, int *i, const char *name, const char **v)
{
	size_t k = strlen(name);
	const char *a = argv[*i];

	if (strncmp(a, name, k) != 0 || (a[k] != 0 && a[k] != '='))
		return 0;
	*v = a[k] == '=' ? a + k + 1 : (*i + 1 < argc ? argv[++*i] : NULL);
	return 1;
}

static int parse_jobs(const char *v, int *jobs)
{
	char *end;
	long n;

	if (!v)
		return -1;
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || *end || n < 1 || n > SCAN_MAX_JOBS)
		return -1;
	*jobs = (int)n;
	return 0;
}

/* Returns -1 when done with options, else an exit status to return. */
static int parse_opt(int argc, char **argv, int *i, scan_opts *o)
{
	const char *a = argv[*i], *v;

	if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
		fputs(help, stdout);
		return EXIT_OK_;
	}
	if (!strcmp(a, "--summary"))
		o->summary = 1;
	else if (!strcmp(a, "--follow") || !strcmp(a, "-F"))
		o->follow = 1;
	else if (!strcmp(a, "--failures"))
		o->failures = 1;
	else if (!strcmp(a, "--utc"))
		o->flags |= SMTPDIAG_SCAN_UTC;
	else if (opt_value(argc, argv, i, "--format", &v)) {
		if (v && !strcmp(v, "text"))
			o->text = 1;
		else if (!v || (strcmp(v, "jsonl") && strcmp(v, "json")))
			return usage_error("--format takes jsonl or text, not", v ? v : "nothing");
	} else if (opt_value(argc, argv, i, "--jobs", &v) || opt_value(argc, argv, i, "-j", &v) ||
		   (!strncmp(a, "-j", 2) && (v = a + 2))) {
		if (parse_jobs(v, &o->jobs) < 0)
			return usage_error("--jobs takes a number from 1 to 256, not", v ? v : "nothing");
	} else {
		return usage_error("unknown option", a);
	}
	return -1;
}

static int parse_args(int argc, char **argv, scan_opts *o, int *npaths)
{
	int rc;

	memset(o, 0, sizeof(*o));
	o->jobs = 1;
	*npaths = 0;
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-' && argv[i][1]) {
			if ((rc = parse_opt(argc, argv, &i, o)) >= 0)
				return rc;
			continue;
		}
		argv[++*npaths] = argv[i];
	}
	if (!*npaths)
		return usage_error("no log given", NULL);
	if (o->follow && o->jobs > 1)
		return usage_error("--follow reads in one thread; leave out", "-j");
	return -1;
}

/* ---- the command ---- */

static int finish(const scan_opts *o, worker *ws, int nw, int outerr)
{
	scan_sum *t = &ws[0].sum;
	int werr = outerr;

	for (int i = 1; i < nw; i++)
		scan_sum_merge(t, &ws[i].sum);
	for (int i = 0; i < nw; i++)
		werr = werr ? werr : ws[i].werr;
	progress_show(1);
	if (o->summary)
		scan_sum_print(t, stdout);
	else if (t->malformed || t->toolong)
		cli_err("scan: %lu malformed line%s and %lu over a limit skipped (of %lu read)", t->malformed,
			t->malformed == 1 ? "" : "s", t->toolong, t->lines);
	if (fflush(stdout) != 0 && !werr)
		werr = errno ? errno : EIO;
	if (werr) {
		cli_err("scan: writing output: %s", strerror(werr));
		return EXIT_FAIL_;
	}
	return t->failed_inputs ? EXIT_SOME_ : EXIT_OK_;
}

int cmd_scan(int argc, char **argv)
{
	scan_opts o;
	worker *ws;
	int npaths, nw, rc, outerr = 0;

	if ((rc = parse_args(argc, argv, &o, &npaths)) >= 0)
		return rc;
	nw = o.jobs < npaths ? o.jobs : npaths;
	if (!(ws = calloc((size_t)nw, sizeof(worker)))) {
		cli_err("scan: out of memory");
		return EXIT_FAIL_;
	}
	for (int i = 0; i < nw; i++)
		if (worker_init(&ws[i], &o) < 0) {
			cli_err("scan: cannot create a scanner (out of memory, or the rule database failed to load)");
			for (int k = 0; k <= i; k++)
				worker_free(&ws[k]);
			free(ws);
			return EXIT_FAIL_;
		}
	progress_init(&o, argv + 1, npaths);
	if (o.text && !o.summary)
		printf("%-19s %-8s %-32s %-3s %-8s %-16s %-24s %-16s %s\n", "TIME", "ACTION", "RECIPIENT", "RC",
		       "STATUS", "REASON", "ADVICE", "QUEUEID", "REPLY");
	if (o.follow) {
		catch_signals();
		follow(&ws[0], argv + 1, npaths);
	} else if (nw == 1) {
		for (int i = 1; i <= npaths; i++)
			scan_one(&ws[0], argv[i], 1);
	} else if (run_pool(&o, argv + 1, npaths, ws, nw) < 0) {
		outerr = errno ? errno : EIO;
	}
	rc = finish(&o, ws, nw, outerr);
	for (int i = 0; i < nw; i++)
		worker_free(&ws[i]);
	free(ws);
	return rc;
}
