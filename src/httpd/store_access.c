/* store_access.c - who may read and write the store over HTTP, and the store
 * handle of each handler thread.
 *   Reads (GET /api/v1/suppressions...): any client with a valid bearer
 *   token; without one, loopback clients, or any client with --open-reads,
 *   unless the request is cross-site (origin.c): a page of another origin in
 *   a browser on this machine is a loopback client too.
 *   Writes (DELETE, recording events): a valid bearer token of --token-file,
 *   or HTTP Basic credentials whose password is such a token (for webhook
 *   senders that sign nothing but can post to https://user:TOKEN@host/...),
 *   or, for events, a webhook signature checked with a configured key.
 *   Basic credentials are not taken cross-site: a browser sends those it
 *   has cached to any page's requests, a bearer token only when told to.
 *   Loopback alone is never one: without --token-file and keys, no writes.
 * A bearer token that is sent but not valid is refused (401) even where no
 * token is needed. So a cross-site request without a token is refused,
 * which covers the text/plain and form posts a page may send to another
 * origin without asking first (a CORS simple request): to the events route
 * they are taken only signed. Tokens are compared in time that depends on the configured
 * token's length only, and every configured token is compared.
 *
 * A store handle is not thread-safe: each handler thread opens its own on
 * first use (an SQLite connection, or a PostgreSQL one) and closes it when
 * the thread ends. The SQLite file is shared through its WAL and busy timeout. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "api_store.h"
#include "events.h"

/* Set in the environment, every client is taken as remote: the tests check
 * the rules beyond loopback on a loopback-only machine. It only narrows. */
#define STORE_TEST_REMOTE_ENV "SMTPDIAG_SERVE_TEST_REMOTE"

typedef struct token {
	char name[STORE_TOKEN_NAME]; /* "" when the line names none */
	char tok[STORE_TOKEN_MAX];
	size_t len;
} token;

static struct {
	int on;
	char url[SMTPDIAG_STORE_MAX_URL];
	smtpdiag_policy pol;
	int open_reads;
	int outbox;
	int all_remote;
	pthread_key_t key;
	token tokens[STORE_MAX_TOKENS];
	size_t ntokens;
} sa;

int store_on(void)
{
	return sa.on;
}

/* ---- the token file ---- */

static int bad_token(const char *path, unsigned long no, const char *what, char *err, size_t errlen)
{
	snprintf(err, errlen, "--token-file: %s:%lu: %s", path, no, what);
	return -1;
}

static int printable(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] <= ' ' || p[i] == 0x7f)
			return 0;
	return 1;
}

/* One line: "TOKEN" or "NAME:TOKEN"; blank lines and '#' comments are skipped. */
static int token_line(const char *p, size_t n, const char *path, unsigned long no, char *err, size_t errlen)
{
	const char *colon;
	token *t = &sa.tokens[sa.ntokens];
	size_t nl = 0;

	while (n && isspace((unsigned char)p[n - 1]))
		n--;
	while (n && isspace((unsigned char)*p))
		p++, n--;
	if (!n || *p == '#')
		return 0;
	if (sa.ntokens == STORE_MAX_TOKENS)
		return bad_token(path, no, "more than 64 tokens", err, errlen);
	if ((colon = memchr(p, ':', n)) != NULL) {
		nl = (size_t)(colon - p);
		if (!nl || nl >= STORE_TOKEN_NAME || !printable(p, nl))
			return bad_token(path, no, "a token's name is 1 to 63 printable characters", err, errlen);
		memcpy(t->name, p, nl);
		t->name[nl] = '\0';
		p = colon + 1;
		n -= nl + 1;
	}
	if (n < STORE_TOKEN_MIN || n > STORE_TOKEN_MAX || !printable(p, n))
		return bad_token(path, no, "a token is 16 to 256 printable characters, no spaces", err, errlen);
	memcpy(t->tok, p, n);
	t->len = n;
	sa.ntokens++;
	return 0;
}

/* The whole file into a new buffer of at most STORE_TOKEN_FILE bytes. */
static char *slurp(const char *path, size_t *len, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf = fd >= 0 ? malloc(STORE_TOKEN_FILE) : NULL;
	ssize_t got = 0;

	*len = 0;
	while (buf && (got = read(fd, buf + *len, STORE_TOKEN_FILE - *len)) > 0 &&
	       (*len += (size_t)got) < STORE_TOKEN_FILE)
		;
	if (fd < 0 || !buf || got < 0 || *len >= STORE_TOKEN_FILE) {
		snprintf(err, errlen, "--token-file: %s: %s", path,
			 fd < 0 || got < 0 ? strerror(errno) : !buf ? "out of memory" : "over 64K");
		if (buf)
			explicit_bzero(buf, STORE_TOKEN_FILE);
		free(buf);
		buf = NULL;
	}
	if (fd >= 0)
		close(fd);
	return buf;
}

static int read_tokens(const char *path, char *err, size_t errlen)
{
	size_t len = 0, at = 0;
	unsigned long no = 0;
	char *text = slurp(path, &len, err, errlen);
	int rc = 0;

	if (!text)
		return -1;
	while (at < len && rc == 0) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
		rc = token_line(text + at, n, path, ++no, err, errlen);
		at += n + 1;
	}
	explicit_bzero(text, STORE_TOKEN_FILE);
	free(text);
	if (rc == 0 && !sa.ntokens)
		return bad_token(path, no, "no token in the file", err, errlen);
	return rc;
}

static void close_store(void *p)
{
	smtpdiag_store_close(p);
}

int httpd_store_init(const httpd_store_opts *o, char *err, size_t errlen)
{
	const char *t = getenv(STORE_TEST_REMOTE_ENV);

	sa.all_remote = t && *t && strcmp(t, "0");
	sa.open_reads = o->open_reads;
	sa.outbox = o->outbox;
	sa.pol = o->policy;
	if (o->token_file && (read_tokens(o->token_file, err, errlen) < 0 || crypto_load(err, errlen) < 0))
		return -1;
	if (!o->url)
		return 0;
	if (strlen(o->url) >= sizeof(sa.url)) {
		snprintf(err, errlen, "--store: the URL is over %d bytes", SMTPDIAG_STORE_MAX_URL - 1);
		return -1;
	}
	memcpy(sa.url, o->url, strlen(o->url) + 1);
	if (pthread_key_create(&sa.key, close_store) != 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	sa.on = 1;
	return 0;
}

/* ---- the handles ---- */

int store_start(char *err, size_t errlen)
{
	smtpdiag_error e = { 0, "" };
	smtpdiag_store *s;
	int rc;

	if (!sa.on)
		return 0;
	if ((rc = smtpdiag_store_open(sa.url, &sa.pol, &s, &e)) < 0) {
		snprintf(err, errlen, "store %s: %s", sa.url, e.message[0] ? e.message : smtpdiag_strerror(rc));
		return -1;
	}
	smtpdiag_store_close(s);
	return 0;
}

smtpdiag_store *store_thread(char *err, size_t errlen)
{
	smtpdiag_store *s = pthread_getspecific(sa.key);
	smtpdiag_store_options o = { 0, STORE_WAIT_MS };
	smtpdiag_error e = { 0, "" };
	int rc;

	if (s)
		return s;
	if ((rc = smtpdiag_store_open_with(sa.url, &sa.pol, &o, &s, &e)) < 0) {
		fprintf(stderr, "smtpdiag: serve: store: %s\n", e.message[0] ? e.message : smtpdiag_strerror(rc));
		snprintf(err, errlen, "the store cannot be opened now");
		return NULL;
	}
	if (sa.outbox && (rc = smtpdiag_store_outbox(s, sa.outbox, &e)) < 0) { /* --webhook */
		fprintf(stderr, "smtpdiag: serve: store: the outbox: %s\n", e.message);
		smtpdiag_store_close(s);
		snprintf(err, errlen, "the store cannot be opened now");
		return NULL;
	}
	if (pthread_setspecific(sa.key, s) != 0) {
		smtpdiag_store_close(s);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	return s;
}

void store_thread_drop(void)
{
	smtpdiag_store *s = pthread_getspecific(sa.key);

	if (s) {
		pthread_setspecific(sa.key, NULL);
		smtpdiag_store_close(s);
	}
}

/* ---- who may ---- */

static int is_loopback(hreq *r)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *a = ci ? ci->client_addr : NULL;

	if (sa.all_remote || !a)
		return 0;
	if (a->sa_family == AF_INET)
		return ntohl(((const struct sockaddr_in *)(const void *)a)->sin_addr.s_addr) >> 24 == 127;
	if (a->sa_family == AF_INET6) {
		const struct in6_addr *v6 = &((const struct sockaddr_in6 *)(const void *)a)->sin6_addr;
		return IN6_IS_ADDR_LOOPBACK(v6) || (IN6_IS_ADDR_V4MAPPED(v6) && v6->s6_addr[12] == 127);
	}
	return 0;
}

/* Equal to t's token, in time that depends on t's length only. */
static int token_equal(const token *t, const char *v, size_t n)
{
	volatile unsigned char d = (unsigned char)(n != t->len);

	for (size_t i = 0; i < t->len; i++)
		d |= (unsigned char)(t->tok[i] ^ (i < n ? v[i] : 0));
	return d == 0;
}

/* The token of credentials v (n bytes): every configured token is compared;
 * 1 valid (*hit its entry), -1 not valid. */
static int token_find(const char *v, size_t n, const token **hit)
{
	*hit = NULL;
	for (size_t i = 0; i < sa.ntokens; i++)
		if (token_equal(&sa.tokens[i], v, n) && !*hit)
			*hit = &sa.tokens[i];
	return *hit ? 1 : -1;
}

/* HTTP Basic credentials (RFC 7617) whose password is a token: for webhook
 * senders that can put credentials in the URL they post to but sign nothing.
 * The user name is not compared. 1 valid, -1 not valid. */
static int basic(const char *v, const token **hit)
{
	uint8_t raw[STORE_BASIC_MAX];
	const char *colon;
	long n;

	while (*v == ' ')
		v++;
	n = crypto_base64(v, strcspn(v, " "), raw, sizeof(raw) - 1);
	if (n <= 0 || !(colon = memchr(raw, ':', (size_t)n)))
		return -1;
	n = token_find(colon + 1, (size_t)n - (size_t)(colon + 1 - (const char *)raw), hit);
	explicit_bzero(raw, sizeof(raw));
	return n;
}

/* The request's credentials: 0 none (or no tokens configured, or Basic
 * credentials that are no token: a service's own are checked with its
 * signature), 1 a valid bearer token, 2 valid Basic credentials (*hit its
 * entry), -1 a bearer token that is not valid. */
static int bearer(hreq *r, const token **hit)
{
	const char *v = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	size_t n;

	*hit = NULL;
	if (!sa.ntokens || !v)
		return 0;
	if (!strncasecmp(v, "Basic ", 6))
		return basic(v + 6, hit) > 0 ? 2 : 0; /* else maybe a service's own (Postmark) */
	if (strncasecmp(v, "Bearer ", 7))
		return 0;
	for (v += 7; *v == ' '; v++)
		;
	n = strlen(v);
	while (n && v[n - 1] == ' ')
		n--;
	return token_find(v, n, hit);
}

int store_access(hreq *r, int what, int signed_ok, const char **who, char *why, size_t whylen)
{
	const token *t;
	int b = bearer(r, &t);

	*who = STORE_BY_API;
	if (b < 0) {
		snprintf(why, whylen, "the token is not one of the server's");
		return 401;
	}
	if (b == 1 || (b == 2 && !req_cross_site(r))) {
		*who = t->name[0] ? t->name : STORE_BY_API;
		return 0;
	}
	if (what == STORE_WRITE && signed_ok)
		return 0;
	if (b == 2 || req_cross_site(r)) { /* a browser sends Basic credentials it has cached to any site */
		snprintf(why, whylen, "a cross-site request without a token is refused (serve --cors-origin "
			 "names the origins that may ask, with a token)");
		return 403;
	}
	if (what == STORE_READ && (sa.open_reads || is_loopback(r)))
		return 0;
	if (sa.ntokens) {
		snprintf(why, whylen, "send Authorization: Bearer TOKEN, a token of the server's --token-file");
		return 401;
	}
	snprintf(why, whylen, what == STORE_WRITE
		 ? "writes need a token: start serve with --token-file FILE and send Authorization: Bearer TOKEN"
		 : "reads are open to loopback clients only (serve --open-reads or --token-file opens them)");
	return 403;
}

enum MHD_Result store_refuse(hreq *r, int status, const char *why)
{
	return reply_refuse(r, status, why, status == 401 ? "Bearer realm=\"smtpdiag\"" : NULL);
}

enum MHD_Result reply_refuse(hreq *r, int status, const char *why, const char *challenge)
{
	struct MHD_Response *resp;
	smtpdiag_buf b = { 0 };
	enum MHD_Result ret;
	size_t len;

	hb_puts(&b, "{\"error\":");
	hb_json(&b, why);
	smtpdiag_buf_printf(&b, ",\"status\":%d}\n", status);
	len = b.len;
	if (b.oom || !(resp = MHD_create_response_from_buffer_with_free_callback(b.len, b.data, free))) {
		smtpdiag_buf_free(&b);
		return reply_error(r, 503, "out of memory");
	}
	reply_headers(resp, "application/json");
	req_headers(r, resp);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	if (challenge)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, challenge);
	ret = reply_shared(r, status, resp, len);
	MHD_destroy_response(resp);
	return ret;
}
