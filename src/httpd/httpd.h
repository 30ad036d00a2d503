/* httpd.h - smtpdiag serve: the code reference and bounce analyzer over HTTP.
 * The front end the CLI calls; everything below it goes through smtpdiag.h. */
#ifndef SMTPDIAG_HTTPD_H
#define SMTPDIAG_HTTPD_H

#include <stddef.h>

#include "smtpdiag.h"
/* what /metrics counts of followed logs: the follower tells it (serve --follow,
 * scan --follow --metrics-listen) */
#include "logmetrics.h"
/* serve --socketmap: Postfix's socketmap protocol beside the server */
#include "socketmap.h"

#define HTTPD_LISTEN "127.0.0.1:8025"
#define HTTPD_MAX_BODY ((size_t)10 << 20)  /* request body */
#define HTTPD_MAX_HEADER ((size_t)16 << 10) /* request line and headers */
#define HTTPD_MAX_CONN 16384u               /* open connections (less if the fd limit is lower) */
#define HTTPD_MAX_CONN_PER_IP 0u            /* open connections from one address; 0: no limit */
#define HTTPD_MAX_BODY_TOTAL ((size_t)64 << 20) /* request bodies held at once, all requests */
#define HTTPD_TIMEOUT 10u                   /* seconds a connection may idle */
#define HTTPD_REQUEST_TIMEOUT 30u           /* seconds to send a whole request (headers and body) */
#define HTTPD_THREADS 2u                    /* connection threads, and as many handler threads */
/* --access-log-format: common (the Common Log Format, then the request id, the
 * time taken and how the request ended), combined (the Combined Log Format) or json */
enum { HTTPD_LOG_COMMON, HTTPD_LOG_COMBINED, HTTPD_LOG_JSON };
#define HTTPD_CACHE_SLOTS 512u              /* rendered pages kept */
#define HTTPD_MAX_HOSTS 64                  /* Host names answered to, --allowed-host or the defaults */
#define HTTPD_MAX_ORIGINS 32                /* --cors-origin values */
#define HTTPD_NAME_MAX 255                  /* bytes of a host name */

typedef struct httpd_config {
	const char *listen;  /* "HOST:PORT", "[V6]:PORT" or "PORT"; port 0 picks a free one */
	size_t max_body;
	size_t max_header;
	unsigned max_conn;
	unsigned max_conn_per_ip; /* 0: no limit */
	size_t max_body_total; /* bytes of request bodies held at once, all requests */
	unsigned timeout;    /* idle seconds */
	unsigned request_timeout; /* seconds from the first byte of a request to its last */
	unsigned threads;
	const char *user;    /* drop root for this user after binding; NULL: stay */
	const char *prog;    /* the command its messages name ("serve", "scan"): "smtpdiag: PROG: ..." */
	int access_log;      /* one line per request on stderr */
	int access_log_format; /* HTTPD_LOG_*: how that line is written */
	const smtpdiag_rules *rules; /* user rules for every verdict, NULL when none;
				      * the caller keeps them until httpd_run returns */
	const char *const *allowed_hosts; /* Host names answered to; none: the defaults
					   * (docs/security.md); kept by the caller */
	size_t n_allowed_hosts;
	const char *const *cors_origins;  /* origins the store routes answer across
					   * origins; kept by the caller */
	size_t n_cors_origins;
	int metrics_only;    /* answer /metrics and /healthz only, the rest 404 (scan --metrics-listen) */
	/* Work beside the server (following logs): side_start runs once the server
	 * listens, on the thread of httpd_run with SIGINT and SIGTERM blocked (threads
	 * it starts inherit that), and returns 0 or -1 (the server stops); side_stop
	 * runs after a signal stopped the server. NULL: none. */
	int (*side_start)(void *ctx);
	void (*side_stop)(void *ctx);
	void *side_ctx;
} httpd_config;

void httpd_config_init(httpd_config *c);

/* Serve until SIGINT or SIGTERM, then finish the requests in flight (for at most
 * a few seconds; a handler still running then is left to the process exit) and
 * return 0. Returns -1 when the server cannot start; the
 * reason is in err. Log lines go to stderr. */
int httpd_run(const httpd_config *c, char *err, size_t errlen);

/* Open libmicrohttpd (mhd_load.c); call once before httpd_run. Returns 0, or -1
 * with the reason in err. */
int httpd_mhd_load(char *err, size_t errlen);

/* Files of the webhook keys of /api/v1/events; NULL: that service's posts are
 * taken unchecked. */
typedef struct httpd_events_keys {
	const char *mailgun;  /* Mailgun's HTTP webhook signing key */
	const char *postmark; /* user:password of Postmark's webhook URL */
	const char *sendgrid; /* SendGrid's signed event webhook public key (PEM or base64) */
} httpd_events_keys;

/* Read the keys and open the crypto library when one is given (events_auth.c);
 * call once before httpd_run. Returns 0, or -1 with the reason in err. */
int httpd_events_init(const httpd_events_keys *k, char *err, size_t errlen);

/* The store behind /api/v1/suppressions and the recording of /api/v1/events
 * (docs/store.md, "Over HTTP"). */
typedef struct httpd_store_opts {
	const char *url;          /* NULL: no store, those routes answer 404 */
	smtpdiag_policy policy;   /* for each handler thread's handle */
	const char *token_file;   /* bearer tokens, "[NAME:]TOKEN" a line; NULL: none, and
				   * no writes but signed webhook posts */
	int open_reads;           /* reads open to any client, not only loopback */
	int outbox;               /* SMTPDIAG_OUTBOX_* items each handle writes (--webhook), or 0 */
} httpd_store_opts;

/* Read the tokens (before --user applies) and keep the options (copied); call
 * once before httpd_run. Returns 0, or -1 with the reason in err. */
int httpd_store_init(const httpd_store_opts *o, char *err, size_t errlen);

#endif
