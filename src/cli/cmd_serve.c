/* cmd_serve.c - smtpdiag serve: the code reference and bounce analyzer over HTTP. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_store.h"
#include "cmd_scan.h"
#include "opts.h"
#include "webhook.h"
#include "../httpd/httpd.h"

enum {
	V_LISTEN, V_MAX_BODY, V_MAX_HEADER, V_MAX_BODY_TOTAL, V_MAX_CONN, V_MAX_CONN_PER_IP, V_TIMEOUT,
	V_REQUEST_TIMEOUT, V_THREADS, V_USER, V_QUIET, V_LOG_FORMAT, V_RULES, V_MAILGUN_KEY, V_POSTMARK_AUTH,
	V_SENDGRID_KEY, V_STORE, V_TOKEN_FILE, V_OPEN_READS, V_ALLOWED_HOST, V_CORS_ORIGIN, V_FOLLOW,
	V_SOCKETMAP, V_SOCKETMAP_NAME, V_SOCKETMAP_MODE, V_SOCKETMAP_HARDEN,
	V_WEBHOOK, V_WEBHOOK_SECRET, V_WEBHOOK_EVENTS, V_WEBHOOK_FORMAT, V_WEBHOOK_WAIT, V_WEBHOOK_AUTH, V_END
};

static const cli_opt opts[] = {
	[V_LISTEN] = { "listen", 0, CLI_VALUE, "ADDR",
		       "HOST:PORT, [IPV6]:PORT, :PORT (all addresses) or PORT (loopback); port 0 "
		       "picks a free one (default 127.0.0.1:8025)" },
	[V_MAX_BODY] = { "max-body", 0, CLI_VALUE, "BYTES", "largest request body; larger gets 413 (default 10M)" },
	[V_MAX_HEADER] = { "max-header", 0, CLI_VALUE, "BYTES",
			   "request line and headers; larger gets 431 (default 16K)" },
	[V_MAX_BODY_TOTAL] = { "max-body-total", 0, CLI_VALUE, "BYTES",
			       "request bodies held at once, all requests together; past it a request "
			       "gets 503 and Retry-After (default 64M)" },
	[V_MAX_CONN] = { "max-conn", 0, CLI_VALUE, "N",
			 "open connections at most, within the open-file limit (default 16384)" },
	[V_MAX_CONN_PER_IP] = { "max-conn-per-ip", 0, CLI_VALUE, "N",
				"open connections from one address; more are closed at once (default 0: "
				"no limit)" },
	[V_TIMEOUT] = { "timeout", 0, CLI_VALUE, "SECONDS", "close a connection idle this long (default 10)" },
	[V_REQUEST_TIMEOUT] = { "request-timeout", 0, CLI_VALUE, "SECONDS",
				"cut a request not fully sent (headers and body) this long after it "
				"began (default 30)" },
	[V_THREADS] = { "threads", 0, CLI_VALUE, "N", "connection threads, and as many handler threads (default 2)" },
	[V_USER] = { "user", 0, CLI_VALUE, "NAME", "after binding, drop root and run as this user" },
	[V_QUIET] = { "quiet", 0, CLI_FLAG, NULL, "no access log" },
	[V_LOG_FORMAT] = { "access-log-format", 0, CLI_VALUE, "common|combined|json",
			   "the access log's lines: common (default: Common Log Format, then the request "
			   "id, the time taken and how the request ended), combined (Combined Log Format) "
			   "or json (one object a line)" },
	[V_RULES] = { "rules", 0, CLI_VALUE, "FILE",
		      "user rules asked before the built-in ones, for the API and the pages (format: "
		      "docs/rules.md); default: the file named by $SMTPDIAG_RULES" },
	[V_MAILGUN_KEY] = { "mailgun-signing-key", 0, CLI_VALUE, "FILE",
			    "/api/v1/events: Mailgun posts must carry a signature made with the HTTP "
			    "webhook signing key in FILE, at most 15 minutes old; else 401" },
	[V_POSTMARK_AUTH] = { "postmark-basic-auth", 0, CLI_VALUE, "FILE",
			      "/api/v1/events: Postmark posts must carry the HTTP Basic credentials "
			      "user:password in FILE; else 401" },
	[V_SENDGRID_KEY] = { "sendgrid-public-key", 0, CLI_VALUE, "FILE",
			     "/api/v1/events: SendGrid posts must carry an ECDSA signature that the "
			     "public key in FILE (PEM or base64) verifies; else 401" },
	[V_STORE] = { "store", 0, CLI_VALUE, "URL",
		      "record what /api/v1/events decodes into this store (sqlite:PATH or "
		      "postgresql://...) and serve /api/v1/suppressions from it; default: "
		      "$SMTPDIAG_STORE, else no store" },
	[V_TOKEN_FILE] = { "token-file", 0, CLI_VALUE, "FILE",
			   "bearer tokens, one a line (TOKEN or NAME:TOKEN): writes to the store "
			   "(DELETE, recording events) need one, and one opens reads to any client; "
			   "without it the store takes no writes but signed webhook posts" },
	[V_OPEN_READS] = { "open-reads", 0, CLI_FLAG, NULL,
			   "store reads (/api/v1/suppressions) open to every client, not only "
			   "loopback ones (cross-site requests still need a token)" },
	[V_ALLOWED_HOST] = { "allowed-host", 0, CLI_VALUE, "NAME",
			     "answer requests whose Host is NAME (repeatable, 32 at most; a port in "
			     "Host is not compared); any other Host gets 421. Default: the listen "
			     "address, localhost, 127.0.0.1 and [::1] on loopback, the machine's names, "
			     "and on a wildcard address its interfaces' addresses" },
	[V_CORS_ORIGIN] = { "cors-origin", 0, CLI_VALUE, "ORIGIN",
			    "let pages of ORIGIN (SCHEME://HOST[:PORT]; repeatable, 32 at most) call "
			    "the store routes across origins, with a token (default: none; the "
			    "public API answers every origin)" },
	[V_FOLLOW] = { "follow", 0, CLI_FLAG, NULL,
		       "follow the LOG operands as scan --follow does (rotation, truncation) and count "
		       "them on /metrics: deliveries, rejects, the follower's health (docs/metrics.md); "
		       "they are opened after --user applies; SIGHUP then stops the server too" },
	[V_SOCKETMAP] = { "socketmap", 0, CLI_VALUE, "unix:PATH|tcp:ADDR",
			  "also answer Postfix's socketmap lookups there, for smtp_delivery_status_filter: "
			  "a 5XX the verdict says to retry becomes 4XX, so Postfix defers it "
			  "(docs/socketmap.md); tcp:PORT is on loopback, tcp:HOST:PORT where given; bound "
			  "before --user applies" },
	[V_SOCKETMAP_NAME] = { "socketmap-name", 0, CLI_VALUE, "NAME",
			       "the map name answered (socketmap:...:NAME); others get PERM (default status)" },
	[V_SOCKETMAP_MODE] = { "socketmap-mode", 0, CLI_VALUE, "MODE",
			       "the Unix socket's mode, octal (default 0660; its owner is --user's)" },
	[V_SOCKETMAP_HARDEN] = { "socketmap-harden", 0, CLI_FLAG, NULL,
				 "also make a 4XX 5XX where the verdict reads the text as a hard bounce "
				 "(no such user or domain)" },
	HOOK_OPT_LINES(V_WEBHOOK, V_WEBHOOK_SECRET, V_WEBHOOK_EVENTS, V_WEBHOOK_FORMAT, V_WEBHOOK_WAIT, V_WEBHOOK_AUTH),
	[V_END] = { NULL, 0, 0, NULL, NULL }
};

static const cli_cmd serve_cmd = {
	"serve",
	"usage: smtpdiag serve [OPTIONS] [--follow LOG...]\n"
	"\n"
	"Serve the code reference and the bounce analyzer as a web site and a JSON API:\n"
	"  /                  index of all codes, with search and filters\n"
	"  /code/CODE         a page per code or pair: /code/431, /code/4.3.1, /code/552-4.3.1\n"
	"  /analyze           paste a reply, a log fragment or a bounce; a verdict per recipient\n"
	"  /api/v1/explain    GET ?q=CODE or POST text: the explain object (JSON)\n"
	"  /api/v1/decode     POST a raw email or an mbox: {\"results\",\"counts\",\"errors\"}\n"
	"                     (JSON; results are the facts decode prints)\n"
	"  /api/v1/events     POST ESP webhook bodies: verdicts, counts, errors (JSON)\n"
	"  /api/v1/codes      the index (JSON)       /healthz   liveness (JSON)\n"
	"  /api/v1/suppressions[/ADDRESS]  with --store: GET suppressed addresses, one\n"
	"                     address's state and history; DELETE releases one\n"
	"  /api/v1/openapi.json  the API in OpenAPI 3.1   /api   the same as a page\n"
	"  /metrics           Prometheus text format: requests, latency, verdicts; with\n"
	"                     --follow the counts of the followed logs, with --socketmap\n"
	"                     its lookups and rewrites\n"
	"  /reasons           the bounce reasons, one anchor each\n"
	"  /static/FILE       the stylesheet, script and icon of the pages\n",
	"BYTES may end in K or M. One access-log line per request goes to stderr (Common\n"
	"Log Format, then the time taken, unless --access-log-format). SIGINT or SIGTERM stops the server after the\n"
	"requests in flight (at most 3 seconds; a handler still running then is left to\n"
	"the exit). A warning goes to stderr when the server listens beyond loopback or\n"
	"runs as root without --user. /api/v1/events takes a service's posts unchecked\n"
	"unless its key option is given; key files are read before --user applies.\n"
	"Store reads are open to loopback clients and to a token's holder; writes\n"
	"(DELETE, recording events) need a token of --token-file, or a post signed\n"
	"with a configured key: without either the store takes no writes, from\n"
	"loopback neither. A cross-site request to the store (an Origin not the\n"
	"server's own nor of --cors-origin) without a token is 403. Threat model and\n"
	"setup: docs/security.md. $SMTPDIAG_POLICY sets the suppression policy.\n"
	"Under systemd a passed listening socket (LISTEN_FDS) wins over --listen, and\n"
	"READY=1 and STOPPING=1 go to $NOTIFY_SOCKET; units and setup: docs/systemd.md.\n"
	"--socketmap answers Postfix's smtp_delivery_status_filter beside the server\n"
	"(socketmap_table(5)); main.cf lines, the rule and the limits: docs/socketmap.md.\n"
	"Exit status: 0 stopped by a signal, 2 bad usage or cannot listen, 3 internal failure.\n",
	opts, 0
};

/* A number option's value in [min, max] into *to; an exit status when it is none. */
static int set_size(const cli_parse *p, size_t *to, size_t min, size_t max, const char *takes)
{
	if (!(*to = cli_number(p->value, min, max)))
		return cli_bad_value(p, takes);
	return -1;
}

static int set_unsigned(const cli_parse *p, unsigned *to, size_t min, size_t max, const char *takes)
{
	size_t n;
	int rc = set_size(p, &n, min, max, takes);

	*to = (unsigned)n;
	return rc;
}

typedef struct serve_args {
	httpd_config c;
	const char *rules; /* --rules */
	httpd_events_keys keys; /* --mailgun-signing-key, --postmark-basic-auth, --sendgrid-public-key */
	httpd_store_opts store; /* --store, --token-file, --open-reads */
	const char *hosts[HTTPD_MAX_HOSTS / 2]; /* --allowed-host */
	const char *origins[HTTPD_MAX_ORIGINS]; /* --cors-origin */
	int follow;        /* --follow */
	sm_config sm;      /* --socketmap (sm.addr NULL: none), --socketmap-* */
	int smon;          /* the socketmap is open */
	hook hook;         /* --webhook */
	scan_live *live;   /* --follow, beside the server */
} serve_args;

/* A repeatable option's value into list (of cap); an exit status when full. */
static int add_value(const cli_parse *p, const char **list, size_t *n, size_t cap)
{
	char takes[64];

	if (*n == cap) {
		snprintf(takes, sizeof(takes), "at most %zu of them", cap);
		return cli_bad_value(p, takes);
	}
	list[(*n)++] = p->value;
	return -1;
}

static int on_opt(const cli_parse *p, int id, void *ctx)
{
	serve_args *a = ctx;
	httpd_config *c = &a->c;

	switch (id) {
	case V_LISTEN:
		c->listen = p->value;
		break;
	case V_MAX_BODY:
		return set_size(p, &c->max_body, 1, (size_t)1 << 30, "a size from 1 to 1G");
	case V_MAX_HEADER:
		return set_size(p, &c->max_header, 1024, (size_t)1 << 20, "a size from 1K to 1M");
	case V_MAX_BODY_TOTAL:
		return set_size(p, &c->max_body_total, 1024, (size_t)1 << 34, "a size from 1K to 16384M");
	case V_MAX_CONN:
		return set_unsigned(p, &c->max_conn, 1, 100000, "a number from 1 to 100000");
	case V_MAX_CONN_PER_IP:
		if (!strcmp(p->value, "0")) {
			c->max_conn_per_ip = 0;
			break;
		}
		return set_unsigned(p, &c->max_conn_per_ip, 1, 100000, "a number from 0 to 100000");
	case V_TIMEOUT:
		return set_unsigned(p, &c->timeout, 1, 3600, "seconds from 1 to 3600");
	case V_REQUEST_TIMEOUT:
		return set_unsigned(p, &c->request_timeout, 1, 3600, "seconds from 1 to 3600");
	case V_USER:
		if (!p->value[0])
			return cli_bad_value(p, "a user name");
		c->user = p->value;
		break;
	case V_THREADS:
		return set_unsigned(p, &c->threads, 1, 64, "a number from 1 to 64");
	case V_QUIET:
		c->access_log = 0;
		break;
	case V_LOG_FORMAT:
		if (!strcmp(p->value, "common"))
			c->access_log_format = HTTPD_LOG_COMMON;
		else if (!strcmp(p->value, "combined"))
			c->access_log_format = HTTPD_LOG_COMBINED;
		else if (!strcmp(p->value, "json"))
			c->access_log_format = HTTPD_LOG_JSON;
		else
			return cli_bad_value(p, "common, combined or json");
		break;
	case V_RULES:
		a->rules = p->value;
		break;
	case V_MAILGUN_KEY:
		a->keys.mailgun = p->value;
		break;
	case V_POSTMARK_AUTH:
		a->keys.postmark = p->value;
		break;
	case V_SENDGRID_KEY:
		a->keys.sendgrid = p->value;
		break;
	case V_STORE:
		if (!p->value[0])
			return cli_bad_value(p, "a store URL (sqlite:PATH or postgresql://...)");
		a->store.url = p->value;
		break;
	case V_TOKEN_FILE:
		a->store.token_file = p->value;
		break;
	case V_OPEN_READS:
		a->store.open_reads = 1;
		break;
	case V_ALLOWED_HOST:
		c->allowed_hosts = a->hosts;
		return add_value(p, a->hosts, &c->n_allowed_hosts, sizeof(a->hosts) / sizeof(a->hosts[0]));
	case V_CORS_ORIGIN:
		c->cors_origins = a->origins;
		return add_value(p, a->origins, &c->n_cors_origins, sizeof(a->origins) / sizeof(a->origins[0]));
	case V_FOLLOW:
		a->follow = 1;
		break;
	case V_SOCKETMAP:
		a->sm.addr = p->value;
		break;
	case V_SOCKETMAP_NAME:
		if (!p->value[0] || strlen(p->value) > SM_NAME_MAX || strchr(p->value, ' '))
			return cli_bad_value(p, "a name of 1 to 64 bytes without spaces");
		a->sm.name = p->value;
		break;
	case V_SOCKETMAP_MODE: {
		char *end;
		unsigned long m;
		errno = 0;
		m = strtoul(p->value, &end, 8);
		if (errno || end == p->value || *end || m > 0777)
			return cli_bad_value(p, "an octal mode from 0 to 0777");
		a->sm.mode = (unsigned)m;
		break;
	}
	case V_SOCKETMAP_HARDEN:
		a->sm.harden = 1;
		break;
	case V_WEBHOOK: case V_WEBHOOK_SECRET: case V_WEBHOOK_EVENTS: case V_WEBHOOK_FORMAT:
	case V_WEBHOOK_WAIT: case V_WEBHOOK_AUTH:
		return hook_opt(&a->hook, p, id - V_WEBHOOK);
	}
	return -1;
}

/* The store's URL ($SMTPDIAG_STORE when no --store; none when neither), its
 * policy, the tokens. Returns -1, or an exit status after saying why. */
static int store_setup(serve_args *a)
{
	const char *env = getenv("SMTPDIAG_STORE");
	cli_store o = { .url = NULL };
	char err[256] = "";
	int rc;

	if (!a->store.url && env && *env)
		a->store.url = env;
	if ((rc = cli_store_policy(&o, &a->store.policy, "serve")) >= 0)
		return rc;
	if (httpd_store_init(&a->store, err, sizeof(err)) < 0)
		return cli_usage(&serve_cmd, "%s", err);
	return -1;
}

/* Beside the server, once --user applies: the followed logs, the socketmap and
 * the webhook sender. */
static int side_start(void *ctx)
{
	serve_args *a = ctx;

	if (a->smon && sm_start() < 0)
		return -1;
	if (a->live && scan_live_start(a->live) < 0) {
		if (a->smon)
			sm_stop();
		return -1;
	}
	if (hook_start(&a->hook, a->store.url, &a->store.policy, "serve") < 0) {
		if (a->live)
			scan_live_stop(a->live);
		if (a->smon)
			sm_stop();
		return -1;
	}
	return 0;
}

static void side_stop(void *ctx)
{
	serve_args *a = ctx;

	hook_stop(&a->hook);
	if (a->live)
		scan_live_stop(a->live);
	if (a->smon)
		sm_stop();
}

int cmd_serve(int argc, char **argv)
{
	serve_args a = { .rules = NULL };
	httpd_config *c = &a.c;
	char err[256] = "";
	int first = argc, rc;
	smtpdiag_rules *rules = NULL;
	scan_live live = { .w = NULL };

	a.sm.name = SM_NAME;
	a.sm.mode = SM_MODE;
	httpd_config_init(c);
	if ((rc = cli_parse_args(&serve_cmd, argc, argv, on_opt, &a, &first)) >= 0)
		return rc;
	if (first < argc && !a.follow)
		return cli_usage(&serve_cmd, "unexpected operand '%s' (logs to follow go after --follow)", argv[first]);
	if (a.follow && first >= argc)
		return cli_usage(&serve_cmd, "--follow needs the logs to follow");
	if (c->max_body_total < c->max_body)
		return cli_usage(&serve_cmd, "--max-body-total must be at least --max-body");
	if (httpd_events_init(&a.keys, err, sizeof(err)) < 0)
		return cli_usage(&serve_cmd, "%s", err);
	if ((rc = hook_ready(&a.hook, &serve_cmd, a.store.url || (getenv("SMTPDIAG_STORE") &&
								 *getenv("SMTPDIAG_STORE")))) >= 0)
		return rc;
	a.store.outbox = a.hook.url ? a.hook.events : 0;
	if ((rc = store_setup(&a)) >= 0)
		return rc;
	if ((rc = cli_rules_load("serve", a.rules, &rules)) >= 0)
		return rc;
	c->rules = rules;
	rc = EXIT_OK_;
	if (a.follow && !(live.w = scan_counter_new(rules))) {
		cli_err("serve: cannot create a scanner (out of memory, or the rule database failed to load)");
		smtpdiag_rules_free(rules);
		return EXIT_FAIL_;
	}
	if (a.follow) {
		live.paths = argv + first;
		live.n = argc - first;
		a.live = &live;
		logmetrics_enable();
	}
	a.sm.rules = rules;
	if (a.sm.addr && rc == EXIT_OK_) {
		if (sm_open(&a.sm, c->user, err, sizeof(err)) < 0) {
			cli_err("serve: %s", err);
			scan_counter_free(live.w);
			smtpdiag_rules_free(rules);
			return EXIT_USAGE_;
		}
		a.smon = 1;
	}
	if (a.follow || a.hook.url || a.smon) {
		c->side_start = side_start;
		c->side_stop = side_stop;
		c->side_ctx = &a;
	}
	if (httpd_mhd_load(err, sizeof(err)) < 0) {
		cli_err("serve: %s", err);
		rc = EXIT_FAIL_;
	} else if (httpd_run(c, err, sizeof(err)) < 0) {
		cli_err("serve: %s", err);
		rc = strstr(err, "memory") ? EXIT_FAIL_ : EXIT_USAGE_;
	}
	if (a.smon)
		sm_stop(); /* the socket made, also when the server did not start */
	scan_counter_free(live.w);
	smtpdiag_rules_free(rules);
	return rc;
}
