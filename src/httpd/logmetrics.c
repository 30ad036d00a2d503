/* logmetrics.c - the metrics of the followed logs, written by /metrics after the
 * HTTP ones (metrics.c), and the reason and advice vocabularies both use.
 *
 * Counters are atomics in fixed tables. Recipient domains: LM_DOMAINS of them
 * get a label of their own, the first ones to reach LM_DOMAIN_MIN records among
 * LM_CANDIDATES counted (when the candidates are full, the one with the fewest
 * records makes room); a label, once given, is kept for the life of the process,
 * so every counter only grows. A domain's records before its label, and every
 * other domain's, count under "other". Only the follower thread changes the
 * candidates (under a mutex); a label's name is written before the count of
 * labels that shows it (release), so a reader never sees a name being written. */
#include <ctype.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "logmetrics.h"

/* ---- vocabularies ---- */

size_t metrics_reason_slot(const char *reason)
{
	size_t n = smtpdiag_reason_count();

	for (size_t i = 0; reason && i < n && i < M_REASONS; i++)
		if (!strcmp(reason, smtpdiag_reason_name(i)))
			return i;
	return M_REASONS;
}

const char *metrics_reason_label(size_t r)
{
	return r < smtpdiag_reason_count() && r < M_REASONS ? smtpdiag_reason_name(r) : "other";
}

/* The words of smtpdiag_advice_name(), then "" (no advice) and "other" (a word
 * outside the vocabulary) in the last two slots. */
size_t metrics_advice_slot(const char *advice)
{
	if (advice && !*advice)
		return M_ADVICE - 2;
	for (size_t i = 0; advice && i < M_ADVICE - 2 && smtpdiag_advice_name(i); i++)
		if (!strcmp(advice, smtpdiag_advice_name(i)))
			return i;
	return M_ADVICE - 1;
}

const char *metrics_advice_label(size_t a)
{
	const char *w = a < M_ADVICE - 2 ? smtpdiag_advice_name(a) : NULL;

	return w ? w : a == M_ADVICE - 1 ? "other" : a == M_ADVICE - 2 ? "" : NULL;
}

void metrics_head(smtpdiag_buf *b, const char *name, const char *type, const char *help)
{
	smtpdiag_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* ---- the counters ---- */

static const char *const actions[] = { "sent", "deferred", "bounced", "expired", "other" };
#define LM_ACTIONS (sizeof(actions) / sizeof(actions[0]))
static const char *const rotations[] = { "rename", "truncate" };
#define LM_ROTATIONS (sizeof(rotations) / sizeof(rotations[0]))
#define STR(x) #x
#define XSTR(x) STR(x)

static atomic_int enabled;
static atomic_ulong lines_read, lines[4]; /* all, and by LM_LINE_* */
static atomic_ulong deliveries[LM_ACTIONS][M_REASONS + 1][M_ADVICE];
static atomic_ulong rejects[M_REASONS + 1];
static atomic_ulong by_domain[LM_DOMAINS + 1][LM_ACTIONS]; /* the last: "other" */
static atomic_ulong rotated[LM_ROTATIONS];
static atomic_long files_open;
static atomic_llong bytes_behind;
static _Atomic int64_t newest;   /* log time of the newest record, 0 before one */
static atomic_long incidents;
static atomic_int incidents_wired;

static char labels[LM_DOMAINS][LM_DOMAIN_MAX + 1];
static atomic_int nlabels;
static struct cand {
	char name[LM_DOMAIN_MAX + 1];
	unsigned long count;
} cands[LM_CANDIDATES];
static int ncands;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void bump(atomic_ulong *v)
{
	atomic_fetch_add_explicit(v, 1, memory_order_relaxed);
}

static unsigned long get(atomic_ulong *v)
{
	return atomic_load_explicit(v, memory_order_relaxed);
}

void logmetrics_enable(void)
{
	atomic_store(&enabled, 1);
}

void logmetrics_line(int kind)
{
	bump(&lines_read);
	if (kind >= 0 && kind < 4)
		bump(&lines[kind]);
}

static size_t action_slot(const char *a)
{
	for (size_t i = 0; a && i < LM_ACTIONS - 1; i++)
		if (!strcmp(a, actions[i]))
			return i;
	return LM_ACTIONS - 1;
}

/* The recipient's domain, lower case, into out; 0 when it has none, or one that
 * is no host name (letters, digits, '.', '-', '_') of LM_DOMAIN_MAX bytes at most. */
static size_t domain_of(const char *rcpt, char out[LM_DOMAIN_MAX + 1])
{
	const char *at = rcpt ? strrchr(rcpt, '@') : NULL;
	size_t n = 0;

	if (!at)
		return 0;
	for (const char *p = at + 1; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (n == LM_DOMAIN_MAX || !(isalnum(c) || c == '.' || c == '-' || c == '_'))
			return 0;
		out[n++] = (char)tolower(c);
	}
	out[n] = 0;
	return n;
}

static int label_of(const char *d, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(labels[i], d))
			return i;
	return -1;
}

/* Count d among the candidates; its label when this record gives it one, else -1. */
static int candidate(const char *d, size_t len)
{
	int i, min = 0, n = atomic_load_explicit(&nlabels, memory_order_relaxed);

	for (i = 0; i < ncands && strcmp(cands[i].name, d); i++)
		if (cands[i].count < cands[min].count)
			min = i;
	if (i == ncands) {
		if (ncands < LM_CANDIDATES)
			min = ncands++;
		i = min; /* the one with the fewest records makes room */
		memcpy(cands[i].name, d, len + 1);
		cands[i].count = 0;
	}
	if (++cands[i].count < LM_DOMAIN_MIN || n == LM_DOMAINS)
		return -1;
	memcpy(labels[n], d, len + 1);
	cands[i] = cands[--ncands];
	atomic_store_explicit(&nlabels, n + 1, memory_order_release);
	return n;
}

static void count_domain(const char *rcpt, size_t a)
{
	char d[LM_DOMAIN_MAX + 1];
	size_t len = domain_of(rcpt, d);
	int slot = -1;

	if (len) {
		pthread_mutex_lock(&mu);
		if ((slot = label_of(d, atomic_load_explicit(&nlabels, memory_order_relaxed))) < 0)
			slot = candidate(d, len);
		pthread_mutex_unlock(&mu);
	}
	bump(&by_domain[slot < 0 ? LM_DOMAINS : slot][a]);
}

void logmetrics_record(const smtpdiag_logrec *r)
{
	int64_t t = r->timestamp, seen = atomic_load(&newest);
	size_t a;

	while (t > seen && !atomic_compare_exchange_weak(&newest, &seen, t))
		;
	if (r->action && !strcmp(r->action, "rejected")) {
		bump(&rejects[metrics_reason_slot(r->reason)]);
		return;
	}
	a = action_slot(r->action);
	bump(&deliveries[a][metrics_reason_slot(r->reason)][metrics_advice_slot(r->advice)]);
	count_domain(r->recipient, a);
}

void logmetrics_files(long files, long long behind)
{
	atomic_store_explicit(&files_open, files, memory_order_relaxed);
	atomic_store_explicit(&bytes_behind, behind, memory_order_relaxed);
}

void logmetrics_rotation(int kind)
{
	if (kind >= 0 && (size_t)kind < LM_ROTATIONS)
		bump(&rotated[kind]);
}

void logmetrics_incidents_open(long n)
{
	atomic_store(&incidents, n);
	atomic_store(&incidents_wired, 1);
}

/* ---- the text ---- */

static void counter(smtpdiag_buf *b, const char *name, const char *help, atomic_ulong *v)
{
	metrics_head(b, name, "counter", help);
	smtpdiag_buf_printf(b, "%s %lu\n", name, get(v));
}

static void records_text(smtpdiag_buf *b)
{
	int n = atomic_load_explicit(&nlabels, memory_order_acquire);

	metrics_head(b, "smtpdiag_log_deliveries_total", "counter",
		     "Delivery attempts in the followed logs, by action, reason and advice.");
	for (size_t a = 0; a < LM_ACTIONS; a++)
		for (size_t r = 0; r <= M_REASONS; r++)
			for (size_t v = 0; v < M_ADVICE; v++) {
				unsigned long k = get(&deliveries[a][r][v]);
				if (k && metrics_advice_label(v))
					smtpdiag_buf_printf(b, "smtpdiag_log_deliveries_total{action=\"%s\",reason=\"%s\","
							    "advice=\"%s\"} %lu\n", actions[a], metrics_reason_label(r),
							    metrics_advice_label(v), k);
			}
	metrics_head(b, "smtpdiag_log_domain_deliveries_total", "counter",
		     "Delivery attempts in the followed logs, by recipient domain (the first " XSTR(LM_DOMAINS)
		     " to reach " XSTR(LM_DOMAIN_MIN) " records; the rest \"other\") and action.");
	for (int d = 0; d <= LM_DOMAINS; d++)
		for (size_t a = 0; a < LM_ACTIONS; a++) {
			unsigned long k = get(&by_domain[d][a]);
			if (k && (d == LM_DOMAINS || d < n))
				smtpdiag_buf_printf(b, "smtpdiag_log_domain_deliveries_total{domain=\"%s\",action=\"%s\"} %lu\n",
						    d < LM_DOMAINS ? labels[d] : "other", actions[a], k);
		}
	metrics_head(b, "smtpdiag_log_rejects_total", "counter",
		     "Messages or recipients the server refused (records with action \"rejected\"), by reason.");
	for (size_t r = 0; r <= M_REASONS; r++)
		if (get(&rejects[r]))
			smtpdiag_buf_printf(b, "smtpdiag_log_rejects_total{reason=\"%s\"} %lu\n", metrics_reason_label(r),
					    get(&rejects[r]));
	if (atomic_load(&incidents_wired)) {
		metrics_head(b, "smtpdiag_incidents_open", "gauge", "Incidents open now.");
		smtpdiag_buf_printf(b, "smtpdiag_incidents_open %ld\n", atomic_load(&incidents));
	}
}

static void follower_text(smtpdiag_buf *b, int64_t now)
{
	int64_t t = atomic_load(&newest);

	counter(b, "smtpdiag_follow_lines_read_total", "Lines read from the followed logs.", &lines_read);
	counter(b, "smtpdiag_follow_lines_skipped_total", "Lines read that are no delivery attempt or reject.",
		&lines[LM_LINE_SKIPPED]);
	counter(b, "smtpdiag_follow_lines_malformed_total", "Lines of an MTA that could not be read.",
		&lines[LM_LINE_MALFORMED]);
	counter(b, "smtpdiag_follow_lines_over_limit_total", "Lines over a limit (length, recipients), skipped.",
		&lines[LM_LINE_OVERLIMIT]);
	metrics_head(b, "smtpdiag_follow_rotations_total", "counter", "Rotations of the followed logs seen, by kind.");
	for (size_t i = 0; i < LM_ROTATIONS; i++)
		smtpdiag_buf_printf(b, "smtpdiag_follow_rotations_total{kind=\"%s\"} %lu\n", rotations[i], get(&rotated[i]));
	metrics_head(b, "smtpdiag_follow_files", "gauge",
		     "Files held open: the followed ones, and rotated ones not read to their end yet.");
	smtpdiag_buf_printf(b, "smtpdiag_follow_files %ld\n", atomic_load(&files_open));
	metrics_head(b, "smtpdiag_follow_lag_bytes", "gauge", "Bytes written to the followed files and not read yet.");
	smtpdiag_buf_printf(b, "smtpdiag_follow_lag_bytes %lld\n", atomic_load(&bytes_behind));
	if (!t)
		return;
	metrics_head(b, "smtpdiag_follow_last_record_timestamp_seconds", "gauge",
		     "Log time of the newest record read, in seconds since the Unix epoch.");
	smtpdiag_buf_printf(b, "smtpdiag_follow_last_record_timestamp_seconds %lld\n", (long long)t);
	metrics_head(b, "smtpdiag_follow_lag_seconds", "gauge",
		     "Seconds from the log time of the newest record read to now (grows while the logs are quiet).");
	smtpdiag_buf_printf(b, "smtpdiag_follow_lag_seconds %lld\n", (long long)(now > t ? now - t : 0));
}

void logmetrics_text(smtpdiag_buf *b, int64_t now)
{
	if (!atomic_load(&enabled))
		return;
	records_text(b);
	follower_text(b, now);
}

void logmetrics_reset(void)
{
	pthread_mutex_lock(&mu);
	atomic_store(&enabled, 0);
	memset(cands, 0, sizeof(cands));
	ncands = 0;
	atomic_store(&nlabels, 0);
	atomic_store(&lines_read, 0);
	for (size_t i = 0; i < 4; i++)
		atomic_store(&lines[i], 0);
	for (size_t a = 0; a < LM_ACTIONS; a++)
		for (size_t r = 0; r <= M_REASONS; r++)
			for (size_t v = 0; v < M_ADVICE; v++)
				atomic_store(&deliveries[a][r][v], 0);
	for (size_t r = 0; r <= M_REASONS; r++)
		atomic_store(&rejects[r], 0);
	for (size_t d = 0; d <= LM_DOMAINS; d++)
		for (size_t a = 0; a < LM_ACTIONS; a++)
			atomic_store(&by_domain[d][a], 0);
	for (size_t i = 0; i < LM_ROTATIONS; i++)
		atomic_store(&rotated[i], 0);
	atomic_store(&files_open, 0);
	atomic_store(&bytes_behind, 0);
	atomic_store(&newest, 0);
	atomic_store(&incidents, 0);
	atomic_store(&incidents_wired, 0);
	pthread_mutex_unlock(&mu);
}
