/* cmd_serve.c - smtpdiag serve: the code reference and bounce analyzer over HTTP. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "../httpd/httpd.h"

static const char help[] =
	"usage: smtpdiag serve [OPTIONS]\n"
	"\n"
	"Serve the code reference and the bounce analyzer as a web site and a JSON API:\n"
	"  /                  index of all codes, with search and filters\n"
	"  /code/CODE         a page per code or pair: /code/431, /code/4.3.1, /code/552-4.3.1\n"
	"  /analyze           paste a reply, a log fragment or a bounce; a verdict per recipient\n"
	"  /api/v1/explain    GET ?q=CODE or POST text: the explain object (JSON)\n"
	"  /api/v1/decode     POST a raw email or an mbox: an array of facts (JSON)\n"
	"  /api/v1/codes      the index (JSON)       /healthz   liveness (JSON)\n"
	"\n"
	"options:\n"
	"  --listen ADDR       HOST:PORT, [IPV6]:PORT, :PORT (all addresses) or PORT\n"
	"                      (loopback); port 0 picks a free one (default 127.0.0.1:8025)\n"
	"  --max-body BYTES    largest request body; larger gets 413 (default 10M)\n"
	"  --max-header BYTES  request line and headers; larger gets 431 (default 16K)\n"
	"  --max-body-total BYTES  request bodies held at once, all requests together;\n"
	"                      past it a request gets 503 and Retry-After (default 64M)\n"
	"  --max-conn N        open connections at most, within the open-file limit\n"
	"                      (default 16384)\n"
	"  --max-conn-per-ip N open connections from one address; more are closed at\n"
	"                      once (default 0: no limit)\n"
	"  --timeout SECONDS   close a connection idle this long (default 10)\n"
	"  --request-timeout SECONDS  cut a request not fully sent (headers and body)\n"
	"                      this long after it began (default 30)\n"
	"  --threads N         connection threads, and as many handler threads (default 2)\n"
	"  --user NAME         after binding, drop root and run as this user\n"
	"  --quiet             no access log\n"
	"  -h, --help          this help\n"
	"\n"
	"BYTES may end in K or M. One access-log line per request goes to stderr (Common\n"
	"Log Format, then the time taken). SIGINT or SIGTERM stops the server after the\n"
	"requests in flight (at most 3 seconds; a handler still running then is left to\n"
	"the exit). A warning goes to stderr when the server listens beyond loopback or\n"
	"runs as root without --user.\n"
	"Exit status: 0 stopped by a signal, 2 bad usage or cannot listen, 3 internal failure.\n";

static int usage_error(const char *msg, const char *arg)
{
	cli_err("serve: %s%s%s (try 'smtpdiag serve --help')", msg, arg ? " " : "", arg ? arg : "");
	return EXIT_USAGE_;
}

/* "10M", "512K", "1048576" -> bytes; 0 when invalid or out of [min, max]. */
static size_t parse_size(const char *s, size_t min, size_t max)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (!s || !(*s >= '0' && *s <= '9'))
		return 0;
	v = strtoull(s, &end, 10);
	if (errno || v > (1ull << 40))
		return 0;
	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	if (*end || v < min || v > max)
		return 0;
	return (size_t)v;
}

/* The value of "--name VALUE" or "--name=VALUE"; NULL when this is not that option. */
static const char *opt_value(int argc, char **argv, int *i, const char *name, int *missing)
{
	size_t n = strlen(name);
	const char *a = argv[*i];

	if (strncmp(a, name, n))
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (a[n])
		return NULL;
	if (*i + 1 >= argc) {
		*missing = 1;
		return NULL;
	}
	return argv[++*i];
}

int cmd_serve(int argc, char **argv)
{
	httpd_config c;
	char err[256] = "";

	httpd_config_init(&c);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		int missing = 0;
		size_t n;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(help, stdout);
			return EXIT_OK_;
		} else if (!strcmp(a, "--quiet")) {
			c.access_log = 0;
		} else if ((v = opt_value(argc, argv, &i, "--listen", &missing))) {
			c.listen = v;
		} else if ((v = opt_value(argc, argv, &i, "--max-body", &missing))) {
			if (!(c.max_body = parse_size(v, 1, (size_t)1 << 30)))
				return usage_error("--max-body wants a size from 1 to 1G, not", v);
		} else if ((v = opt_value(argc, argv, &i, "--max-header", &missing))) {
			if (!(c.max_header = parse_size(v, 1024, (size_t)1 << 20)))
				return usage_error("--max-header wants a size from 1K to 1M, not", v);
		} else if ((v = opt_value(argc, argv, &i, "--max-body-total", &missing))) {
			if (!(c.max_body_total = parse_size(v, 1024, (size_t)1 << 34)))
				return usage_error("--max-body-total wants a size from 1K to 16384M, not", v);
		} else if ((v = opt_value(argc, argv, &i, "--max-conn-per-ip", &missing))) {
			if (strcmp(v, "0") && !(c.max_conn_per_ip = (unsigned)parse_size(v, 1, 100000)))
				return usage_error("--max-conn-per-ip wants a number from 0 to 100000, not", v);
			if (!strcmp(v, "0"))
				c.max_conn_per_ip = 0;
		} else if ((v = opt_value(argc, argv, &i, "--max-conn", &missing))) {
			if (!(n = parse_size(v, 1, 100000)))
				return usage_error("--max-conn wants a number from 1 to 100000, not", v);
			c.max_conn = (unsigned)n;
		} else if ((v = opt_value(argc, argv, &i, "--timeout", &missing))) {
			if (!(n = parse_size(v, 1, 3600)))
				return usage_error("--timeout wants seconds from 1 to 3600, not", v);
			c.timeout = (unsigned)n;
		} else if ((v = opt_value(argc, argv, &i, "--request-timeout", &missing))) {
			if (!(n = parse_size(v, 1, 3600)))
				return usage_error("--request-timeout wants seconds from 1 to 3600, not", v);
			c.request_timeout = (unsigned)n;
		} else if ((v = opt_value(argc, argv, &i, "--user", &missing))) {
			if (!*v)
				return usage_error("--user wants a user name", NULL);
			c.user = v;
		} else if ((v = opt_value(argc, argv, &i, "--threads", &missing))) {
			if (!(n = parse_size(v, 1, 64)))
				return usage_error("--threads wants a number from 1 to 64, not", v);
			c.threads = (unsigned)n;
		} else if (missing) {
			return usage_error("missing value for", a);
		} else {
			return usage_error("unknown option", a);
		}
		if (missing)
			return usage_error("missing value for", a);
	}
	if (c.max_body_total < c.max_body)
		return usage_error("--max-body-total must be at least --max-body", NULL);
	if (httpd_mhd_load(err, sizeof(err)) < 0) {
		cli_err("serve: %s", err);
		return EXIT_FAIL_;
	}
	if (httpd_run(&c, err, sizeof(err)) < 0) {
		cli_err("serve: %s", err);
		return strstr(err, "memory") ? EXIT_FAIL_ : EXIT_USAGE_;
	}
	return EXIT_OK_;
}
