/* cmd_scan.c - smtpdiag scan: delivery failures and deferrals from MTA logs.
 *
 * Each input is read in large chunks (cmd_scan_input.c) and every line goes
 * to smtpdiag_scan_line(); records are written as JSON Lines or text, or only
 * counted (--summary, smtpdiag_summary). With -j N, N threads take the inputs in
 * turn; each input's output is spooled to a temporary file and copied out in
 * the order of the arguments, so every input's records stay together. With
 * --summary, a large plain file is cut into up to N pieces at line ends
 * (scan_split), each counted into a summary of its own, merged in file order. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_store.h"
#include "webhook.h"
#include "cmd_scan.h"
#include "opts.h"
#include "../httpd/httpd.h"

#define SCAN_MAX_JOBS 256          /* -j */
#define SCAN_OUT_FLUSH (256u << 10) /* bytes of output gathered before a write */
#define SCAN_PROGRESS_MS 250       /* progress bar refresh */
#define SCAN_PIECE_MIN ((off_t)8 << 20) /* -j --summary: bytes of a piece of one file, at least */

enum { S_FORMAT, S_SUMMARY, S_FAILURES, S_FOLLOW, S_JOBS, S_UTC, S_RULES, S_WHY, S_STORE, S_INCIDENTS,
       S_METRICS_LISTEN, S_MESSAGES, S_WINDOW, S_REJECTS, S_WEBHOOK, S_WEBHOOK_SECRET, S_WEBHOOK_EVENTS,
       S_WEBHOOK_FORMAT, S_WEBHOOK_WAIT, S_WEBHOOK_AUTH, S_END };

static const cli_opt opts[] = {
	[S_FORMAT] = { "format", 0, CLI_VALUE, "jsonl|text",
		       "JSON Lines (default) or one readable line per attempt (--summary: a "
		       "report, or with --format jsonl one JSON object)" },
	[S_SUMMARY] = { "summary", 0, CLI_FLAG, NULL,
			"print only counts: lines read = delivery lines + skipped + malformed + over "
			"a limit + reject lines; records by action, reason, recipient domain, relay and code; "
			"messages deferred past RFC 5321's give-up time (5 days); 4xx replies the "
			"MTA turned into bounces; rejects by reason, client network and block list" },
	[S_FAILURES] = { "failures", 0, CLI_FLAG, NULL, "write only deferred, bounced and expired attempts" },
	[S_FOLLOW] = { "follow", 'F', CLI_FLAG, NULL,
		       "keep reading files as they grow, like tail -F (survives rotation and "
		       "truncation); stop with Ctrl-C or SIGTERM" },
	[S_JOBS] = { "jobs", 'j', CLI_VALUE, "N",
		     "read N inputs at a time (threads; output stays per input); with --summary a "
		     "large plain file is also read as up to N pieces cut at line ends" },
	[S_UTC] = { "utc", 0, CLI_FLAG, NULL, "read times without a zone as UTC (default: local time, TZ)" },
	[S_RULES] = { "rules", 0, CLI_VALUE, "FILE",
		      "user rules asked before the built-in ones (format: docs/rules.md); default: the file named by $SMTPDIAG_RULES" },
	[S_WHY] = { "why", 0, CLI_FLAG, NULL,
		    "with --format text, print under each attempt the evidence trail (the rules and "
		    "rows that decided, in order), a user rule's label among them" },
	[S_STORE] = { "store", 0, CLI_VALUE, "URL",
		      "record the attempts in the store (sqlite:PATH or postgresql://...) instead of "
		      "printing them; with --follow each pause commits; the counts go to stderr" },
	[S_INCIDENTS] = { "incidents", 0, CLI_FLAG, NULL,
			  "print only the incidents the failures make (block lists, rate limits, provider "
			  "deferrals, TLS, DNS and network failures per MX, authentication failures per "
			  "sending domain, broken block list checks), then deferrals and bounces per "
			  "destination domain and hour: JSON Lines, or a report with --format text "
			  "(docs/incidents.md)" },
	[S_METRICS_LISTEN] = { "metrics-listen", 0, CLI_VALUE, "ADDR",
			       "with --follow, serve /metrics (Prometheus: docs/metrics.md) of the "
			       "followed logs on ADDR (HOST:PORT, [IPV6]:PORT, :PORT or PORT, as serve "
			       "--listen) and /healthz, nothing else" },
	[S_MESSAGES] = { "messages", 0, CLI_FLAG, NULL,
			 "write one JSON object per message instead of one per attempt: its lines "
			 "joined by queue id across all inputs (read in order, in one thread), each "
			 "recipient's final state; the counts go to stderr (docs/messages.md)" },
	[S_WINDOW] = { "message-window", 0, CLI_VALUE, "TIME",
		       "with --messages, write a message still open this long after its first line "
		       "(log time; seconds, or a number and s, m, h, d or w) as it is and forget it "
		       "(default 5d)" },
	[S_REJECTS] = { "rejects", 0, CLI_FLAG, NULL,
			"write only reject records: what this server refused a client (action "
			"\"rejected\"); with --failures, both" },
	HOOK_OPT_LINES(S_WEBHOOK, S_WEBHOOK_SECRET, S_WEBHOOK_EVENTS, S_WEBHOOK_FORMAT, S_WEBHOOK_WAIT, S_WEBHOOK_AUTH),
	[S_END] = { NULL, 0, 0, NULL, NULL }
};

static const cli_cmd scan_cmd = {
	"scan",
	"usage: smtpdiag scan [OPTIONS] LOG...\n"
	"\n"
	"Read MTA logs and report every delivery attempt: sent, deferred, bounced or\n"
	"expired, with the remote's reply and the verdict decode would give for it,\n"
	"and every refusal of this server's own (action \"rejected\": Postfix smtpd,\n"
	"postscreen and cleanup, Exim's rejected lines, Sendmail's reject=), with the\n"
	"client, its HELO, the stage and the verdict from the receiving side.\n"
	"A LOG is a file, a gzip-compressed file, or '-' for standard input. Lines of\n"
	"Postfix, Exim (main and reject log), Sendmail and OpenSMTPD are read, bare or in syslog\n"
	"form (RFC 3164, RFC 5424, RFC 3339 times); other lines are skipped and counted.\n"
	"Also read: PowerMTA accounting files, Exchange message tracking logs and\n"
	"Microsoft 365 message trace exports (CSV; a header line names the columns, for\n"
	"its own input), and KumoMTA JSON log records.\n",
	"Times: JSON \"timestamp\" is Unix seconds and \"timezoneoffset\" the offset the\n"
	"line's time was read with: the line's own when it has one, else local time.\n"
	"RFC 3164 lines have no year: it is the year of the file's modification time\n"
	"(now for standard input), or the year before for months after that time's.\n"
	"Exit status: 0 every input read, 1 some inputs failed, 2 bad usage, 3 internal failure.\n",
	opts, 0
};

/* --store: one store for all threads */
typedef struct scan_store {
	cli_store cs;
	pthread_mutex_t mu;
	int dead;        /* the store failed: record no more */
} scan_store;

typedef struct scan_opts {
	int text, json, summary, failures, follow, jobs, why, rejects;
	int incidents;   /* --incidents */
	int messages;
	int64_t window;  /* --message-window, seconds; 0 when not given */
	unsigned flags;
	const char *rules_path;
	smtpdiag_rules *rules; /* shared read-only by the workers' scanners */
	const char *store_url;
	scan_store *st;  /* NULL without --store */
	const char *metrics_listen; /* --metrics-listen */
	int metrics;     /* count lines and records into /metrics (logmetrics.h) */
	int count_only;  /* serve --follow: write no records */
	hook hook;       /* --webhook */
} scan_opts;

/* What one thread reads at a time: an input, or a piece of one (-j over a
 * large plain file with --summary). end 0: the input whole. */
typedef struct scan_task {
	const char *path;
	off_t start, end;
} scan_task;

struct worker {
	const scan_opts *o;
	smtpdiag_scanner *sc;
	smtpdiag_buf out;
	FILE *dst;
	smtpdiag_summary *sum;
	smtpdiag_incidents *inc; /* --incidents */
	smtpdiag_joiner *join; /* --messages */
	int werr;
};

atomic_int scan_stop;

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

static void store_rec(worker *w, const smtpdiag_logrec *r)
{
	scan_store *st = w->o->st;
	smtpdiag_error err = { 0, "" };
	int rc;

	pthread_mutex_lock(&st->mu);
	if (!st->dead && (rc = smtpdiag_store_add_logrec(st->cs.st, r, &err)) < 0)
		st->dead = cli_store_bad(&st->cs, "scan", r->queueid[0] ? r->queueid : "-", 0, rc, &err);
	pthread_mutex_unlock(&st->mu);
}

static void store_flush(worker *w)
{
	scan_store *st = w->o->st;
	smtpdiag_error err = { 0, "" };

	pthread_mutex_lock(&st->mu);
	if (!st->dead && smtpdiag_store_flush(st->cs.st, &err) < 0)
		st->dead = cli_store_bad(&st->cs, "scan", "-", 0, SMTPDIAG_ESTORE, &err);
	pthread_mutex_unlock(&st->mu);
}

void scan_flush(worker *w)
{
	if (w->o->st)
		store_flush(w);
	flush_out(w);
	if (fflush(w->dst) != 0 && !w->werr)
		w->werr = errno ? errno : EIO;
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
	if (w->o->why)
		cli_why(w->dst, r->evidence, 4);
}

static void emit(worker *w, const smtpdiag_logrec *r)
{
	if (w->o->metrics) {
		logmetrics_record(r);
		if (w->inc && !w->o->incidents)
			(void)smtpdiag_incidents_add(w->inc, r); /* past its bounds it counts, as documented */
	}
	if (w->o->count_only)
		return;
	if (w->o->summary) {
		(void)smtpdiag_summary_add(w->sum, r); /* a key not stored is counted as "other" */
		return;
	}
	if (w->o->incidents) {
		if (smtpdiag_incidents_add(w->inc, r) == SMTPDIAG_ENOMEM)
			w->werr = ENOMEM;
		return;
	}
	if (w->o->failures || w->o->rejects) { /* --failures: deferred, bounced, expired; --rejects */
		int rej = !strcmp(r->action, "rejected");
		if (!(rej ? w->o->rejects : w->o->failures && strcmp(r->action, "sent")))
			return;
	}
	if (w->o->st) {
		store_rec(w, r);
		return;
	}
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

/* --messages: the line to the joiner, the messages it finished to the output. */
static void join_line(worker *w, int rc, const char *p, size_t n)
{
	if (smtpdiag_joiner_line(w->join, w->sc, rc, p, n) == SMTPDIAG_ENOMEM)
		w->werr = ENOMEM;
	if (smtpdiag_joiner_take(w->join, &w->out) && w->out.len >= SCAN_OUT_FLUSH)
		flush_out(w);
}

static void on_line(void *ctx, const char *p, size_t n)
{
	worker *w = ctx;
	int rc = smtpdiag_scan_line(w->sc, p, n);

	smtpdiag_summary_count(w->sum, SMTPDIAG_SUM_LINES, 1);
	if (w->o->metrics)
		logmetrics_line(rc > 0 ? LM_LINE_RECORD : rc == 0 ? LM_LINE_SKIPPED :
				rc == SMTPDIAG_EPARSE ? LM_LINE_MALFORMED : LM_LINE_OVERLIMIT);
	if (w->join)
		join_line(w, rc, p, n);
	if (rc > 0) {
		smtpdiag_summary_count(w->sum, strcmp(smtpdiag_scanner_rec(w->sc, 0)->action, "rejected")
					       ? SMTPDIAG_SUM_DELIVERY : SMTPDIAG_SUM_REJECT, 1);
		if (!w->join) /* --messages writes messages, not attempts */
			for (int i = 0; i < rc; i++)
				emit(w, smtpdiag_scanner_rec(w->sc, (size_t)i));
	} else if (rc == 0) {
		smtpdiag_summary_count(w->sum, SMTPDIAG_SUM_SKIPPED, 1);
	} else if (rc == SMTPDIAG_EPARSE) {
		smtpdiag_summary_count(w->sum, SMTPDIAG_SUM_MALFORMED, 1);
	} else {
		smtpdiag_summary_count(w->sum, SMTPDIAG_SUM_OVERLIMIT, 1);
	}
}

static void on_toolong(void *ctx)
{
	worker *w = ctx;

	smtpdiag_summary_count(w->sum, SMTPDIAG_SUM_LINES, 1);
	smtpdiag_summary_count(w->sum, SMTPDIAG_SUM_OVERLIMIT, 1);
	if (w->o->metrics)
		logmetrics_line(LM_LINE_OVERLIMIT);
	if (w->join)
		join_line(w, SMTPDIAG_ELIMIT, NULL, 0);
}

/* ---- one input ---- */

#define SCAN_PRIME_MAX (64u << 10) /* bytes of a file's start read again for a later piece */

/* A later piece of a file starts with the scanner as it is after the file's
 * first lines: the lines up to the first record (a CSV or #Fields: header of
 * PowerMTA, Exchange or Microsoft 365) are given to the scanner again, unread
 * by the counts, so the columns they name hold in every piece. */
static void prime_piece(worker *w, const char *path, off_t start)
{
	char *buf = malloc(SCAN_PRIME_MAX);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got = -1;

	if (buf && fd >= 0)
		got = pread(fd, buf, start < (off_t)SCAN_PRIME_MAX ? (size_t)start : SCAN_PRIME_MAX, 0);
	for (size_t p = 0; got > 0 && p < (size_t)got;) {
		const char *nl = memchr(buf + p, '\n', (size_t)got - p);
		if (!nl || smtpdiag_scan_line(w->sc, buf + p, (size_t)(nl - (buf + p))) > 0)
			break;
		p = (size_t)(nl - buf) + 1;
	}
	if (fd >= 0)
		close(fd);
	free(buf);
}

/* Open an input, or (piece) the piece [start, end) of one: only its first
 * piece counts as an input. quiet (--follow looking again): a failure is
 * neither said nor counted. A file --follow waits for is not a failure either. */
static int open_piece(worker *w, scan_src *src, const char *path, const scan_task *piece, int quiet)
{
	memset(src, 0, sizeof(*src));
	src->fd = -1;
	src->on_line = on_line;
	src->on_toolong = on_toolong;
	src->ctx = w;
	if (scan_src_open_piece(src, path, piece ? piece->start : 0, piece ? piece->end : 0) == 0) {
		if (!piece || !piece->start)
			smtpdiag_summary_count(w->sum, SMTPDIAG_SUM_INPUTS, 1);
		smtpdiag_scanner_reftime(w->sc, src->regular && !w->o->follow ? src->mtime : 0);
		smtpdiag_scanner_reset(w->sc); /* a new input: no CSV header in force */
		if (piece && piece->start)
			prime_piece(w, path, piece->start);
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
	if (!piece || !piece->start)
		smtpdiag_summary_count(w->sum, SMTPDIAG_SUM_INPUTS, 1);
	smtpdiag_summary_count(w->sum, SMTPDIAG_SUM_FAILED_INPUTS, 1);
	return -1;
}

int scan_open_input(worker *w, scan_src *src, const char *path, int quiet)
{
	return open_piece(w, src, path, NULL, quiet);
}

/* Read to the end of what is there. Returns 0, or -1 after a read error. */
int scan_drain(worker *w, scan_src *src, int single)
{
	int rc = 0;
	off_t before = src->off;

	while (!scan_stop && (rc = scan_src_pump(src)) > 0) {
		if (src->munchecked && !src->said_unchecked) {
			cli_err("scan: %s: a gzip member holds over %zu MiB: its lines are read before its "
				"checksum is checked", src->path, SCAN_GZ_MEMBER_MAX >> 20);
			src->said_unchecked = 1;
		}
		atomic_fetch_add(&prog.done, (uint64_t)(src->off - before));
		before = src->off;
		if (single)
			progress_show(0);
	}
	if (rc >= 0 || scan_stop)
		return 0;
	cli_err("scan: %s: %s", src->path, src->err);
	smtpdiag_summary_count(w->sum, SMTPDIAG_SUM_FAILED_INPUTS, 1);
	return -1;
}

static void scan_one(worker *w, const scan_task *t, int single)
{
	scan_src src;

	if (open_piece(w, &src, t->path, t->end ? t : NULL, 0) < 0)
		return;
	if (scan_drain(w, &src, single) == 0)
		scan_src_finish(&src);
	flush_out(w);
	scan_src_close(&src);
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
	const scan_task *tasks;
	int n;
	int next;            /* next task to take */
	int head;            /* first task not yet written out */
	FILE **spool;        /* a temporary file per task, NULL when written directly */
	smtpdiag_summary **sums; /* --summary: each task's counts, merged in task order */
	smtpdiag_summary *total; /* what they are merged into */
	int *done;
	pthread_mutex_t mu;
	pthread_cond_t cv;
} pool;

typedef struct job {
	pool *p;
	worker *w;
} job;

/* The next task, and whether its records can go straight to stdout: only
 * the first task not written out yet can (nothing is written before it). */
static int pool_take(pool *p, int *direct)
{
	int i;

	pthread_mutex_lock(&p->mu);
	i = p->next < p->n ? p->next++ : -1;
	*direct = i >= 0 && i == p->head;
	pthread_mutex_unlock(&p->mu);
	return i;
}

/* --summary: a task counts into a summary of its own, so that merging them in
 * the order of the tasks gives the counts of one thread reading them in turn. */
static void pool_count(pool *p, worker *w, int i)
{
	smtpdiag_summary *own = w->sum;

	if (!(w->sum = smtpdiag_summary_new())) {
		w->sum = own;
		w->werr = ENOMEM;
		return;
	}
	scan_one(w, &p->tasks[i], 0);
	p->sums[i] = w->sum;
	w->sum = own;
}

static void *pool_run(void *arg)
{
	job *j = arg;
	pool *p = j->p;
	int i, direct;

	while ((i = pool_take(p, &direct)) >= 0) {
		FILE *t = direct || p->o->summary ? NULL : tmpfile();
		j->w->dst = t ? t : stdout;
		if (p->o->summary)
			pool_count(p, j->w, i);
		else if (!direct && !t)
			j->w->werr = errno ? errno : EIO;
		else
			scan_one(j->w, &p->tasks[i], 0);
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
		if (p->sums[i]) {
			(void)smtpdiag_summary_merge(p->total, p->sums[i]); /* keys not stored: "other" */
			smtpdiag_summary_free(p->sums[i]);
		}
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
	w->sum = smtpdiag_summary_new();
	w->sc = smtpdiag_scanner_new(o->flags);
	if ((o->incidents || o->metrics) && !(w->inc = smtpdiag_incidents_new()))
		return -1;
	if (o->messages && !(w->join = smtpdiag_joiner_new(o->window)))
		return -1;
	return w->sc && w->sum && smtpdiag_scanner_set_rules(w->sc, o->rules) == 0 ? 0 : -1;
}

static void worker_free(worker *w)
{
	smtpdiag_scanner_free(w->sc);
	smtpdiag_joiner_free(w->join);
	smtpdiag_buf_free(&w->out);
	smtpdiag_summary_free(w->sum);
	smtpdiag_incidents_free(w->inc);
}

void scan_tell_incidents(const worker *w)
{
	if (w->o->metrics && w->inc)
		logmetrics_incidents_open((long)smtpdiag_incidents_open(w->inc, (int64_t)time(NULL)));
}

worker *scan_counter_new(const smtpdiag_rules *rules)
{
	scan_opts *o = calloc(1, sizeof(*o));
	worker *w = calloc(1, sizeof(*w));

	if (o && w) {
		o->follow = o->metrics = o->count_only = 1;
		o->jobs = 1;
		if (worker_init(w, o) == 0 && smtpdiag_scanner_set_rules(w->sc, rules) == 0)
			return w;
		worker_free(w);
	}
	free(o);
	free(w);
	return NULL;
}

void scan_counter_free(worker *w)
{
	if (!w)
		return;
	free((scan_opts *)w->o);
	worker_free(w);
	free(w);
}

static int run_pool(const scan_opts *o, const scan_task *tasks, int n, worker *ws, int nw)
{
	pool p;
	job jobs[SCAN_MAX_JOBS];
	pthread_t th[SCAN_MAX_JOBS];
	int started = 0, rc;

	memset(&p, 0, sizeof(p));
	p.o = o;
	p.tasks = tasks;
	p.n = n;
	p.total = ws[0].sum;
	p.spool = calloc((size_t)n, sizeof(FILE *));
	p.sums = calloc((size_t)n, sizeof(smtpdiag_summary *));
	p.done = calloc((size_t)n, sizeof(int));
	if (!p.spool || !p.sums || !p.done) {
		free(p.spool);
		free(p.sums);
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
	free(p.sums);
	free(p.done);
	return rc;
}

/* ---- options ---- */

/* "3600", "90m", "12h", "5d", "1w": seconds (at most ten years), or 0. */
static int64_t scan_duration(const char *v)
{
	int64_t x = 0, unit = 1;
	const char *p = v;

	while (*p >= '0' && *p <= '9' && x < 400000000)
		x = x * 10 + (*p++ - '0');
	if (p == v)
		return 0;
	switch (*p) {
	case 0:
		break;
	case 's':
		break;
	case 'm':
		unit = 60;
		break;
	case 'h':
		unit = 3600;
		break;
	case 'd':
		unit = 86400;
		break;
	case 'w':
		unit = 7 * 86400;
		break;
	default:
		return 0;
	}
	if (*p && p[1])
		return 0;
	x *= unit;
	return x > 0 && x <= 3650LL * 86400 ? x : 0;
}

static int on_opt(const cli_parse *p, int id, void *ctx)
{
	scan_opts *o = ctx;
	size_t n;

	switch (id) {
	case S_FORMAT:
		o->json = !strcmp(p->value, "json") || !strcmp(p->value, "jsonl");
		return cli_format_text(p, &o->text);
	case S_SUMMARY:
		o->summary = 1;
		break;
	case S_FAILURES:
		o->failures = 1;
		break;
	case S_FOLLOW:
		o->follow = 1;
		break;
	case S_JOBS:
		if (!(n = cli_number(p->value, 1, SCAN_MAX_JOBS)))
			return cli_bad_value(p, "a number from 1 to 256");
		o->jobs = (int)n;
		break;
	case S_UTC:
		o->flags |= SMTPDIAG_SCAN_UTC;
		break;
	case S_RULES:
		o->rules_path = p->value;
		break;
	case S_WHY:
		o->why = 1;
		break;
	case S_STORE:
		o->store_url = p->value;
		break;
	case S_INCIDENTS:
		o->incidents = 1;
		break;
	case S_METRICS_LISTEN:
		o->metrics_listen = p->value;
		o->metrics = 1;
		break;
	case S_MESSAGES:
		o->messages = 1;
		break;
	case S_WINDOW:
		if ((o->window = scan_duration(p->value)) <= 0)
			return cli_bad_value(p, "a time of log: seconds, or a number and s, m, h, d or w (5d)");
		break;
	case S_REJECTS:
		o->rejects = 1;
		break;
	case S_WEBHOOK: case S_WEBHOOK_SECRET: case S_WEBHOOK_EVENTS: case S_WEBHOOK_FORMAT:
	case S_WEBHOOK_WAIT: case S_WEBHOOK_AUTH:
		return hook_opt(&o->hook, p, id - S_WEBHOOK);
	}
	return -1;
}

/* Returns -1 to go on with the logs from argv[*first], else an exit status. */
static int parse_args(int argc, char **argv, scan_opts *o, int *first)
{
	int rc;

	memset(o, 0, sizeof(*o));
	o->jobs = 1;
	if ((rc = cli_parse_args(&scan_cmd, argc, argv, on_opt, o, first)) >= 0)
		return rc;
	if (*first >= argc)
		return cli_usage(&scan_cmd, "no log given");
	if (o->follow && o->jobs > 1)
		return cli_usage(&scan_cmd, "--follow reads in one thread; leave out -j");
	if (o->store_url && o->summary)
		return cli_usage(&scan_cmd, "--store records the attempts; leave out --summary");
	if (o->incidents && (o->summary || o->store_url))
		return cli_usage(&scan_cmd, "--incidents prints only the incidents; leave out --summary and --store");
	if (o->metrics_listen && !o->follow)
		return cli_usage(&scan_cmd, "--metrics-listen serves the counts of followed logs; add --follow");
	if (o->window && !o->messages)
		return cli_usage(&scan_cmd, "--message-window goes with --messages");
	if (o->messages && (o->jobs > 1 || o->follow || o->summary || o->store_url || o->text || o->failures ||
			    o->rejects || o->incidents))
		return cli_usage(&scan_cmd, "--messages joins all inputs in one thread into JSON Lines; leave out "
					    "-j, --follow, --summary, --incidents, --store, --failures, --rejects and --format text");
	if ((rc = hook_ready(&o->hook, &scan_cmd, o->store_url != NULL)) >= 0)
		return rc;
	return cli_rules_load("scan", o->rules_path, &o->rules);
}

/* ---- the command ---- */

/* --incidents: the threads' incidents merged into the first, written as JSON
 * Lines or the report. Returns 0 or an errno. */
static int print_incidents(const scan_opts *o, worker *ws, int nw)
{
	smtpdiag_buf b = { 0 };
	int rc = 0;

	for (int i = 1; i < nw; i++)
		if (smtpdiag_incidents_merge(ws[0].inc, ws[i].inc) < 0)
			rc = ENOMEM;
	if (o->text ? smtpdiag_incidents_text(ws[0].inc, &b) : smtpdiag_incidents_json(ws[0].inc, &b))
		rc = ENOMEM;
	if (!b.oom && b.len)
		fwrite(b.data, 1, b.len, stdout);
	smtpdiag_buf_free(&b);
	return rc;
}

/* --metrics-listen: follow on a thread beside a server of /metrics and /healthz.
 * Returns -1 when it ran and stopped, else the exit status of a server that
 * could not start. */
static int follow_serving(const scan_opts *o, worker *w, char **paths, int n, int *outerr)
{
	scan_live live = { .w = w, .paths = paths, .n = n };
	httpd_config c;
	char err[256] = "";

	httpd_config_init(&c);
	c.listen = o->metrics_listen;
	c.metrics_only = 1;
	c.prog = "scan";
	c.access_log = 0;
	c.threads = 1;
	c.side_start = scan_live_start;
	c.side_stop = scan_live_stop;
	c.side_ctx = &live;
	logmetrics_enable();
	if (httpd_mhd_load(err, sizeof(err)) < 0 || httpd_run(&c, err, sizeof(err)) < 0) {
		cli_err("scan: --metrics-listen: %s", err);
		return strstr(err, "memory") || strstr(err, "libmicrohttpd") ? EXIT_FAIL_ : EXIT_USAGE_;
	}
	if (live.rc < 0)
		*outerr = ENOMEM;
	return -1;
}

/* --messages at the end of input: the messages still open, then the counts. */
static void join_finish(worker *w)
{
	smtpdiag_joiner *j = w->join;

	while (smtpdiag_joiner_finish(j, &w->out) > 0) {
		if (w->out.oom)
			w->werr = ENOMEM;
		flush_out(w);
	}
	flush_out(w);
	cli_err("scan: %lu lines, %lu messages: %lu closed, %lu open past the window, %lu open at the end",
		smtpdiag_joiner_count(j, SMTPDIAG_JOIN_LINES), smtpdiag_joiner_count(j, SMTPDIAG_JOIN_EMITTED),
		smtpdiag_joiner_count(j, SMTPDIAG_JOIN_CLOSED), smtpdiag_joiner_count(j, SMTPDIAG_JOIN_WINDOWED),
		smtpdiag_joiner_count(j, SMTPDIAG_JOIN_ATEND));
}

/* --summary: the report, or one JSON object with --format json. Returns 0 or an errno. */
static int print_summary(const scan_opts *o, const smtpdiag_summary *t)
{
	smtpdiag_buf b = { 0 };
	int rc = o->json ? smtpdiag_summary_json(t, &b) : smtpdiag_summary_text(t, &b);

	if (o->json)
		smtpdiag_buf_append(&b, "\n", 1);
	if (rc == 0 && !b.oom && b.len)
		fwrite(b.data, 1, b.len, stdout);
	rc = rc < 0 || b.oom ? ENOMEM : 0;
	smtpdiag_buf_free(&b);
	return rc;
}

static int finish(const scan_opts *o, worker *ws, int nw, int outerr)
{
	smtpdiag_summary *t = ws[0].sum;
	unsigned long bad;
	int werr = outerr;

	if (o->messages)
		join_finish(&ws[0]);
	for (int i = 1; i < nw; i++)
		(void)smtpdiag_summary_merge(t, ws[i].sum); /* keys not stored are counted as "other" */
	for (int i = 0; i < nw; i++)
		werr = werr ? werr : ws[i].werr;
	progress_show(1);
	bad = smtpdiag_summary_get(t, SMTPDIAG_SUM_MALFORMED);
	if (o->incidents) {
		int perr = print_incidents(o, ws, nw);
		werr = werr ? werr : perr;
	}
	if (o->summary) {
		int perr = print_summary(o, t);
		werr = werr ? werr : perr;
	} else if (bad || smtpdiag_summary_get(t, SMTPDIAG_SUM_OVERLIMIT)) {
		cli_err("scan: %lu malformed line%s and %lu over a limit skipped (of %lu read)", bad,
			bad == 1 ? "" : "s", smtpdiag_summary_get(t, SMTPDIAG_SUM_OVERLIMIT),
			smtpdiag_summary_get(t, SMTPDIAG_SUM_LINES));
	}
	if (fflush(stdout) != 0 && !werr)
		werr = errno ? errno : EIO;
	if (werr) {
		cli_err("scan: writing output: %s", strerror(werr));
		return EXIT_FAIL_;
	}
	return smtpdiag_summary_get(t, SMTPDIAG_SUM_FAILED_INPUTS) ? EXIT_SOME_ : EXIT_OK_;
}

static int store_open(scan_opts *o)
{
	smtpdiag_error err = { 0, "" };
	int rc;

	if (!(o->st = calloc(1, sizeof(*o->st)))) {
		cli_err("scan: out of memory");
		return EXIT_FAIL_;
	}
	o->st->cs.url = o->store_url;
	if ((rc = cli_store_open(&o->st->cs, "scan")) >= 0) {
		free(o->st);
		o->st = NULL;
		return rc;
	}
	pthread_mutex_init(&o->st->mu, NULL);
	if (o->hook.url && smtpdiag_store_outbox(o->st->cs.st, o->hook.events, &err) < 0) {
		cli_err("scan: the store's outbox: %s", err.message);
		smtpdiag_store_close(o->st->cs.st);
		pthread_mutex_destroy(&o->st->mu);
		free(o->st);
		o->st = NULL;
		return EXIT_FAIL_;
	}
	/* --follow sends beside the follower; else at the end, as decode does */
	if (o->hook.url && o->follow && hook_start(&o->hook, o->store_url, NULL, "scan") < 0) {
		smtpdiag_store_close(o->st->cs.st);
		pthread_mutex_destroy(&o->st->mu);
		free(o->st);
		o->st = NULL;
		return EXIT_FAIL_;
	}
	return -1;
}

/* The exit status after the last batch is written and the counts printed. */
static int store_close(scan_opts *o, int rc)
{
	smtpdiag_store_counts c;

	smtpdiag_store_counts_get(o->st->cs.st, &c);
	if (c.errors && rc == EXIT_OK_)
		rc = EXIT_SOME_;
	hook_stop(&o->hook);
	if (o->follow && !o->hook.wait_set)
		o->hook.wait = 0; /* stopping: one pass, the rest waits in the outbox */
	if (o->hook.url) {
		smtpdiag_error err = { 0, "" };
		int left = 0;
		if (smtpdiag_store_flush(o->st->cs.st, &err) < 0)
			o->st->dead = cli_store_bad(&o->st->cs, "scan", "-", 0, SMTPDIAG_ESTORE, &err);
		else if ((left = hook_finish(&o->hook, o->st->cs.st, "scan")) < 0)
			o->st->dead = 1;
		rc = left > 0 && rc == EXIT_OK_ ? EXIT_SOME_ : rc;
	}
	if (cli_store_finish(&o->st->cs, "scan", stderr) || o->st->dead)
		rc = EXIT_FAIL_;
	pthread_mutex_destroy(&o->st->mu);
	free(o->st);
	o->st = NULL;
	return rc;
}

/* The smallest piece -j cuts a file into: SCAN_PIECE_MIN, or $SMTPDIAG_SCAN_PIECE_MIN bytes. */
static off_t piece_min(void)
{
	const char *e = getenv("SMTPDIAG_SCAN_PIECE_MIN");
	char *end;
	long long v;

	if (!e || !*e)
		return SCAN_PIECE_MIN;
	errno = 0;
	v = strtoll(e, &end, 10);
	return !errno && !*end && v > 0 ? (off_t)v : SCAN_PIECE_MIN;
}

/* What the threads read: each input whole; with --summary and -j N, a plain
 * regular file of two pieces or more is read as up to N pieces cut at line
 * ends (the counts do not depend on the order of the lines, and each piece's
 * summary is merged in file order). Sets *n; NULL when out of memory. */
static scan_task *make_tasks(const scan_opts *o, char **paths, int npaths, int *n)
{
	int split = o->summary && o->jobs > 1 && !o->follow;
	size_t cap = (size_t)npaths * (split ? (size_t)o->jobs : 1);
	scan_task *t = calloc(cap, sizeof(*t));
	off_t *cuts = calloc((size_t)o->jobs + 1, sizeof(off_t));
	off_t min = piece_min();

	*n = 0;
	if (!t || !cuts) {
		free(t);
		free(cuts);
		return NULL;
	}
	for (int i = 0; i < npaths; i++) {
		int k = split ? scan_split(paths[i], o->jobs, min, cuts) : 1;
		if (k < 2) {
			t[(*n)++] = (scan_task){ paths[i], 0, 0 };
			continue;
		}
		for (int j = 0; j < k; j++)
			t[(*n)++] = (scan_task){ paths[i], cuts[j], cuts[j + 1] };
	}
	free(cuts);
	return t;
}

int cmd_scan(int argc, char **argv)
{
	scan_opts o;
	worker *ws;
	int first = argc, npaths, ntasks, nw, rc, outerr = 0;
	char **paths;
	scan_task *tasks;

	if ((rc = parse_args(argc, argv, &o, &first)) >= 0)
		return rc;
	if (o.store_url && (rc = store_open(&o)) >= 0) {
		smtpdiag_rules_free(o.rules);
		return rc;
	}
	paths = argv + first;
	npaths = argc - first;
	tasks = make_tasks(&o, paths, npaths, &ntasks);
	nw = o.jobs < ntasks ? o.jobs : ntasks > 1 ? ntasks : 1;
	if (!tasks || !(ws = calloc((size_t)nw, sizeof(worker)))) {
		cli_err("scan: out of memory");
		free(tasks);
		smtpdiag_rules_free(o.rules);
		return EXIT_FAIL_;
	}
	for (int i = 0; i < nw; i++)
		if (worker_init(&ws[i], &o) < 0) {
			cli_err("scan: cannot create a scanner (out of memory, or the rule database failed to load)");
			for (int k = 0; k <= i; k++)
				worker_free(&ws[k]);
			free(ws);
			free(tasks);
			smtpdiag_rules_free(o.rules);
			return EXIT_FAIL_;
		}
	progress_init(&o, paths, npaths);
	if (o.text && !o.summary && !o.incidents)
		printf("%-19s %-8s %-32s %-3s %-8s %-16s %-24s %-16s %s\n", "TIME", "ACTION", "RECIPIENT", "RC",
		       "STATUS", "REASON", "ADVICE", "QUEUEID", "REPLY");
	if (o.follow && o.metrics_listen) {
		rc = follow_serving(&o, &ws[0], paths, npaths, &outerr);
	} else if (o.follow) {
		catch_signals();
		if (scan_follow(&ws[0], paths, npaths) < 0)
			outerr = ENOMEM;
	} else if (nw == 1) {
		for (int i = 0; i < ntasks; i++)
			scan_one(&ws[0], &tasks[i], 1);
	} else if (run_pool(&o, tasks, ntasks, ws, nw) < 0) {
		outerr = errno ? errno : EIO;
	}
	rc = rc >= 0 ? rc : finish(&o, ws, nw, outerr);
	if (o.st)
		rc = store_close(&o, rc);
	for (int i = 0; i < nw; i++)
		worker_free(&ws[i]);
	free(ws);
	free(tasks);
	smtpdiag_rules_free(o.rules);
	return rc;
}
