/* cmd_store.c - smtpdiag store: bounce history and suppression.
 *
 *	store ingest [FILE|-]...     verdict JSON Lines into the store
 *	store suppressed             suppressed addresses and why
 *	store show ADDRESS           one address's state and history
 *	store release ADDRESS        end a suppression (recorded with who and when)
 *	store stats                  counts by kind, reason, domain, day, sender;
 *	                             the complaint rate per sending domain and day
 *	store prune --older-than N   forget events older than N days
 *	store outbox                 the webhooks out: pending, failed, delivered
 *
 * One option table for all of them; each option says which subcommands take it. */
#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_store.h"
#include "opts.h"
#include "store_out.h"
#include "webhook.h"

enum { T_STORE, T_POLICY, T_SOFT_LIMIT, T_SOFT_WINDOW, T_SOFT_DAYS, T_HARD_DAYS, T_DOMAIN, T_REASON,
       T_SINCE, T_FORMAT, T_BY, T_OLDER, T_RETRY_FAILED, T_OUTBOX, T_END };

static const cli_opt opts[] = {
	[T_STORE] = { "store", 0, CLI_VALUE, "URL",
		      "sqlite:PATH or postgresql://... (default: $SMTPDIAG_STORE, else sqlite:smtpdiag.db)" },
	[T_POLICY] = { "policy", 0, CLI_VALUE, "FILE",
		       "suppression policy, key = value lines (default: $SMTPDIAG_POLICY; see docs/store.md)" },
	[T_SOFT_LIMIT] = { "soft-limit", 0, CLI_VALUE, "N", "soft bounces that suppress (default 5)" },
	[T_SOFT_WINDOW] = { "soft-window", 0, CLI_VALUE, "DAYS",
			    "... when they fall within DAYS days (default 14)" },
	[T_SOFT_DAYS] = { "soft-days", 0, CLI_VALUE, "DAYS", "... for DAYS days (default 30)" },
	[T_HARD_DAYS] = { "hard-days", 0, CLI_VALUE, "DAYS",
			  "a hard bounce suppresses for DAYS days (default 0: until released)" },
	[T_DOMAIN] = { "domain", 0, CLI_VALUE, "D", "suppressed: only addresses at domain D" },
	[T_REASON] = { "reason", 0, CLI_VALUE, "R", "suppressed: only those suppressed for reason R" },
	[T_SINCE] = { "since", 0, CLI_VALUE, "T",
		      "suppressed: only suppressions since T (Unix seconds, YYYY-MM-DD, or Nd: N days ago)" },
	[T_FORMAT] = { "format", 0, CLI_VALUE, "json|csv|text",
		       "output of suppressed, show and stats (default text; csv for suppressed only)" },
	[T_BY] = { "by", 0, CLI_VALUE, "NAME", "release: who releases (default: the user name)" },
	[T_OLDER] = { "older-than", 0, CLI_VALUE, "DAYS", "prune: forget events older than DAYS days" },
	[T_RETRY_FAILED] = { "retry-failed", 0, CLI_FLAG, NULL,
			     "outbox: make the items a receiver refused pending again, to be sent at once" },
	[T_OUTBOX] = { "outbox", 0, CLI_VALUE, "EVENTS",
		       "ingest, release: also write webhook items to the outbox: verdicts or suppressions "
		       "(sent by decode, scan --follow or serve with --webhook; docs/webhooks-out.md)" },
	[T_END] = { NULL, 0, 0, NULL, NULL }
};

static const cli_cmd store_cmd = {
	"store",
	"usage: smtpdiag store ingest [OPTIONS] [FILE|-]...\n"
	"       smtpdiag store suppressed [--domain D] [--reason R] [--since T] [--format F]\n"
	"       smtpdiag store show ADDRESS [--format json|text]\n"
	"       smtpdiag store release ADDRESS [--by NAME]\n"
	"       smtpdiag store stats [--format json|text]\n"
	"       smtpdiag store prune --older-than DAYS\n"
	"       smtpdiag store outbox [--retry-failed] [--format json|text]\n"
	"\n"
	"Bounce history and suppression. ingest records verdict JSON Lines (the output\n"
	"of decode and scan; standard input when no FILE is given); the same record\n"
	"twice changes nothing. A hard bounce or a complaint suppresses its address at\n"
	"once, 5 soft bounces within 14 days for 30 days; sender-side failures never\n"
	"suppress the recipient and are counted by sending domain. stats ends with the\n"
	"complaint rate per sending domain and day (complaints / deliveries; over 0.1%\n"
	"and 0.3% flagged; unknown when no delivery is recorded).\n",
	"ingest prints: read N = recorded N + duplicates N + errors N; bad lines are\n"
	"named on stderr as FILE:LINE. Every subcommand takes --store and the policy options.\n"
	"Exit status: 0 done, 1 some records were bad or ADDRESS is unknown, 2 bad usage,\n"
	"3 store failure.\n",
	opts, 0
};

typedef struct args {
	cli_store st;
	unsigned given;      /* bit per option */
	const char *domain, *reason, *by;
	int64_t since;
	long older;
	int format;          /* OUT_* */
	int outbox;          /* --outbox: SMTPDIAG_OUTBOX_* */
} args;

/* which subcommands take an option besides --store and the policy */
static const struct {
	const char *name;
	unsigned takes;
	int min_ops, max_ops;
} subs[] = {
	{ "ingest", 1u << T_OUTBOX, 0, 1 << 30 },
	{ "suppressed", 1u << T_DOMAIN | 1u << T_REASON | 1u << T_SINCE | 1u << T_FORMAT, 0, 0 },
	{ "show", 1u << T_FORMAT, 1, 1 },
	{ "release", 1u << T_BY | 1u << T_OUTBOX, 1, 1 },
	{ "stats", 1u << T_FORMAT, 0, 0 },
	{ "prune", 1u << T_OLDER, 0, 0 },
	{ "outbox", 1u << T_RETRY_FAILED | 1u << T_FORMAT, 0, 0 },
};
#define COMMON_OPTS (1u << T_STORE | 1u << T_POLICY | 1u << T_SOFT_LIMIT | 1u << T_SOFT_WINDOW | \
		     1u << T_SOFT_DAYS | 1u << T_HARD_DAYS)

/* T: Unix seconds, YYYY-MM-DD (UTC) or Nd; -1 when none of those. */
static int64_t parse_time(const char *v)
{
	struct tm tm;
	char *end;
	long long n;

	memset(&tm, 0, sizeof(tm));
	end = strptime(v, "%Y-%m-%d", &tm);
	if (end && !*end)
		return (int64_t)timegm(&tm);
	errno = 0;
	n = strtoll(v, &end, 10);
	if (errno || end == v || n < 0)
		return -1;
	if (!strcmp(end, "d"))
		return (int64_t)time(NULL) - (int64_t)n * 86400;
	return *end ? -1 : (int64_t)n;
}

static int on_opt(const cli_parse *p, int id, void *ctx)
{
	static const char *const keys[] = { [T_SOFT_LIMIT] = "soft_limit", [T_SOFT_WINDOW] = "soft_window_days",
					    [T_SOFT_DAYS] = "soft_days", [T_HARD_DAYS] = "hard_days" };
	args *a = ctx;
	size_t n;

	a->given |= 1u << id;
	switch (id) {
	case T_STORE: a->st.url = p->value; break;
	case T_POLICY: a->st.policy_file = p->value; break;
	case T_SOFT_LIMIT: case T_SOFT_WINDOW: case T_SOFT_DAYS: case T_HARD_DAYS:
		cli_store_set(&a->st, keys[id], p->value);
		break;
	case T_DOMAIN: a->domain = p->value; break;
	case T_REASON: a->reason = p->value; break;
	case T_SINCE:
		if ((a->since = parse_time(p->value)) < 0)
			return cli_bad_value(p, "Unix seconds, YYYY-MM-DD or Nd");
		break;
	case T_FORMAT:
		if ((a->format = out_format(p->value)) < 0)
			return cli_bad_value(p, "json, csv or text");
		break;
	case T_BY: a->by = p->value; break;
	case T_RETRY_FAILED: break;
	case T_OUTBOX:
		if ((a->outbox = hook_events(p->value)) < 0)
			return cli_bad_value(p, "verdicts or suppressions");
		break;
	case T_OLDER:
		if (!(n = cli_number(p->value, 1, 36500)) && strcmp(p->value, "0"))
			return cli_bad_value(p, "a number of days");
		a->older = (long)n;
		break;
	}
	return -1;
}

static const char *user_name(void)
{
	struct passwd *pw = getpwuid(getuid());
	const char *u = getenv("USER");

	return pw && pw->pw_name ? pw->pw_name : u && *u ? u : "unknown";
}

/* ---- the subcommands ---- */

static int do_ingest(args *a, char **ops, int n)
{
	int rc = EXIT_OK_, stop = 0;
	smtpdiag_store_counts c;

	for (int i = 0; i < (n ? n : 1) && !stop; i++) {
		int r = cli_store_ingest(&a->st, n ? ops[i] : "-");
		if (r < 0)
			rc = EXIT_SOME_;
		stop = r > 0;
	}
	smtpdiag_store_counts_get(a->st.st, &c);
	if (c.errors)
		rc = EXIT_SOME_;
	if (cli_store_finish(&a->st, "store ingest", stdout) || stop)
		rc = EXIT_FAIL_;
	return rc;
}

static int do_release(args *a, const char *addr)
{
	smtpdiag_error err = { 0, "" };
	const char *by = a->by ? a->by : user_name();
	int rc = smtpdiag_store_release(a->st.st, addr, by, 0, &err);

	if (rc == SMTPDIAG_ENOTFOUND) {
		cli_err("store release: %s", err.message);
		return EXIT_SOME_;
	}
	if (rc < 0) {
		cli_err("store release: %s", err.message);
		return EXIT_FAIL_;
	}
	printf(rc ? "released %s (by %s)\n" : "%s was not suppressed; release recorded (by %s)\n", addr, by);
	return EXIT_OK_;
}

static int do_prune(args *a)
{
	smtpdiag_error err = { 0, "" };
	uint64_t ev = 0, ad = 0;
	int64_t before = (int64_t)time(NULL) - (int64_t)a->older * 86400;

	if (smtpdiag_store_prune(a->st.st, before, &ev, &ad, &err) < 0) {
		cli_err("store prune: %s", err.message);
		return EXIT_FAIL_;
	}
	printf("pruned %llu events and %llu addresses older than %ld days\n", (unsigned long long)ev,
	       (unsigned long long)ad, a->older);
	return EXIT_OK_;
}

static int do_outbox(args *a)
{
	smtpdiag_error err = { 0, "" };
	smtpdiag_outbox_counts c;
	uint64_t again = 0;

	if ((a->given & (1u << T_RETRY_FAILED)) && smtpdiag_store_outbox_retry(a->st.st, &again, &err) < 0) {
		cli_err("store outbox: %s", err.message);
		return EXIT_FAIL_;
	}
	if (smtpdiag_store_outbox_counts(a->st.st, 0, &c, &err) < 0) {
		cli_err("store outbox: %s", err.message);
		return EXIT_FAIL_;
	}
	if (a->format == OUT_JSON)
		printf("{\"pending\":%llu,\"due\":%llu,\"failed\":%llu,\"delivered\":%llu,\"next_at\":%lld,"
		       "\"retried\":%llu}\n", (unsigned long long)c.pending, (unsigned long long)c.due,
		       (unsigned long long)c.failed, (unsigned long long)c.delivered, (long long)c.next_at,
		       (unsigned long long)again);
	else
		printf("pending %llu (due %llu), failed %llu, delivered %llu; made pending again %llu\n",
		       (unsigned long long)c.pending, (unsigned long long)c.due, (unsigned long long)c.failed,
		       (unsigned long long)c.delivered, (unsigned long long)again);
	return EXIT_OK_;
}

static int dispatch(args *a, int sub, char **ops, int n)
{
	smtpdiag_store_filter f = { a->domain, a->reason, a->since, 0, NULL };

	switch (sub) {
	case 0: return do_ingest(a, ops, n);
	case 1: return out_suppressed(a->st.st, &f, a->format);
	case 2: return out_show(a->st.st, ops[0], a->format);
	case 3: return do_release(a, ops[0]);
	case 4: return out_stats(a->st.st, a->format);
	case 6: return do_outbox(a);
	default: return do_prune(a);
	}
}

static int check(const args *a, int sub, int nops)
{
	unsigned extra = a->given & ~(COMMON_OPTS | subs[sub].takes);

	for (int i = 0; i < T_END; i++)
		if (extra & (1u << i))
			return cli_usage(&store_cmd, "store %s does not take --%s", subs[sub].name, opts[i].name);
	if (nops < subs[sub].min_ops)
		return cli_usage(&store_cmd, "store %s needs an ADDRESS", subs[sub].name);
	if (nops > subs[sub].max_ops)
		return cli_usage(&store_cmd, "store %s takes no more operands", subs[sub].name);
	if (sub == 5 && !(a->given & (1u << T_OLDER)))
		return cli_usage(&store_cmd, "store prune needs --older-than DAYS");
	if (a->format == OUT_CSV && sub != 1)
		return cli_usage(&store_cmd, "--format csv is for store suppressed");
	return -1;
}

int cmd_store(int argc, char **argv)
{
	args a;
	int first = argc, rc, sub = -1;
	smtpdiag_error err = { 0, "" };

	memset(&a, 0, sizeof(a));
	a.format = OUT_TEXT;
	if ((rc = cli_parse_args(&store_cmd, argc, argv, on_opt, &a, &first)) >= 0)
		return rc;
	if (first >= argc)
		return cli_usage(&store_cmd, "no subcommand given (ingest, suppressed, show, release, stats, prune, outbox)");
	for (int i = 0; i < (int)(sizeof(subs) / sizeof(subs[0])); i++)
		if (!strcmp(argv[first], subs[i].name))
			sub = i;
	if (sub < 0)
		return cli_usage(&store_cmd, "unknown subcommand '%s'", argv[first]);
	if ((rc = check(&a, sub, argc - first - 1)) >= 0)
		return rc;
	a.st.read_only = sub == 1 || sub == 2 || sub == 4; /* suppressed, show, stats */
	if ((rc = cli_store_open(&a.st, "store")) >= 0)
		return rc;
	if (a.outbox && smtpdiag_store_outbox(a.st.st, a.outbox, &err) < 0) {
		cli_err("store: the outbox: %s", err.message);
		smtpdiag_store_close(a.st.st);
		return EXIT_FAIL_;
	}
	rc = dispatch(&a, sub, argv + first + 1, argc - first - 1);
	if (a.st.st)
		smtpdiag_store_close(a.st.st);
	return rc;
}
