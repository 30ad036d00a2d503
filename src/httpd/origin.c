/* origin.c - who a request says it is for and where it comes from: the Host
 * names the server answers to (--allowed-host; else the listen address,
 * localhost, the loopback addresses on loopback, the machine's names, and on
 * a wildcard address the addresses of its interfaces), so that a name of an
 * attacker's that resolves to this machine (DNS rebinding) gets 421; the
 * origins allowed to ask across origins (--cors-origin, none by default);
 * and whether a request is cross-site (an Origin that is neither the
 * server's own nor allowed, or Sec-Fetch-Site cross-site or same-site), which
 * the store refuses without a token (store_access.c). See docs/security.md. */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "httpd_int.h"

static struct {
	char host[HTTPD_MAX_HOSTS][HTTPD_NAME_MAX + 3]; /* IPv6 in brackets, as Host has it */
	size_t nhost;
	const char *const *origin; /* the caller's --cors-origin values */
	size_t norigin;
} og;

static void add_host(const char *name, size_t n)
{
	while (n && name[n - 1] == '.')
		n--; /* "localhost." is "localhost" */
	if (!n || n > HTTPD_NAME_MAX)
		return;
	for (size_t i = 0; i < og.nhost; i++)
		if (strlen(og.host[i]) == n && !strncasecmp(og.host[i], name, n))
			return;
	if (og.nhost == HTTPD_MAX_HOSTS) {
		fprintf(stderr, "smtpdiag: serve: warning: more than %d host names: %.*s is not allowed "
			"(give --allowed-host)\n", HTTPD_MAX_HOSTS, (int)n, name);
		return;
	}
	memcpy(og.host[og.nhost], name, n);
	og.host[og.nhost++][n] = '\0';
}

static void add_addr(const struct sockaddr *sa)
{
	char ip[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN + 2];

	if (sa->sa_family == AF_INET) {
		inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, ip, sizeof(ip));
		add_host(ip, strlen(ip));
	} else if (sa->sa_family == AF_INET6) {
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, ip, sizeof(ip));
		snprintf(b, sizeof(b), "[%s]", ip);
		add_host(b, strlen(b));
	}
}

/* The machine's name and its canonical name (FQDN). */
static void add_names(void)
{
	struct addrinfo hints = { .ai_flags = AI_CANONNAME }, *ai = NULL;
	char name[HTTPD_NAME_MAX + 1];

	if (gethostname(name, sizeof(name)) < 0)
		return;
	name[sizeof(name) - 1] = '\0';
	add_host(name, strlen(name));
	if (getaddrinfo(name, NULL, &hints, &ai) == 0 && ai && ai->ai_canonname)
		add_host(ai->ai_canonname, strlen(ai->ai_canonname));
	if (ai)
		freeaddrinfo(ai);
}

static int is_any(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ((const struct sockaddr_in *)(const void *)ss)->sin_addr.s_addr == htonl(INADDR_ANY);
	return ss->ss_family == AF_INET6 &&
	       IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)(const void *)ss)->sin6_addr);
}

/* The defaults for the socket fd listens on. */
static void default_hosts(int fd)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct ifaddrs *ifs = NULL;

	add_host("localhost", 9);
	add_names();
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) < 0)
		return;
	if (!is_any(&ss)) {
		add_addr((struct sockaddr *)&ss);
		if (listen_is_loopback(fd)) {
			add_host("127.0.0.1", 9);
			add_host("[::1]", 5);
		}
		return;
	}
	if (getifaddrs(&ifs) < 0)
		return;
	for (struct ifaddrs *i = ifs; i; i = i->ifa_next)
		if (i->ifa_addr)
			add_addr(i->ifa_addr);
	freeifaddrs(ifs);
}

/* "http://host[:port]" or "https://...": no path, no user, no trailing slash. */
static int origin_valid(const char *o)
{
	const char *h = !strncasecmp(o, "http://", 7) ? o + 7 : !strncasecmp(o, "https://", 8) ? o + 8 : NULL;

	if (!h || !*h || strlen(o) > HTTPD_NAME_MAX + 16)
		return 0;
	for (; *h; h++)
		if (*h <= ' ' || *h >= 0x7f || strchr("/?#@\\\"", *h))
			return 0;
	return 1;
}

int origin_start(const httpd_config *c, int fd, char *err, size_t errlen)
{
	og.nhost = 0;
	for (size_t i = 0; i < c->n_cors_origins; i++)
		if (!origin_valid(c->cors_origins[i])) {
			snprintf(err, errlen, "--cors-origin: '%s' is not SCHEME://HOST[:PORT] (http or https, "
				 "no path)", c->cors_origins[i]);
			return -1;
		}
	og.origin = c->cors_origins;
	og.norigin = c->n_cors_origins;
	for (size_t i = 0; i < c->n_allowed_hosts; i++) {
		const char *h = c->allowed_hosts[i];
		if (!*h || strlen(h) > HTTPD_NAME_MAX || (strpbrk(h, " /:@") && h[0] != '[')) {
			snprintf(err, errlen, "--allowed-host: '%s' is not a host name or address (no port)", h);
			return -1;
		}
		add_host(h, strlen(h));
	}
	if (!c->n_allowed_hosts)
		default_hosts(fd);
	return 0;
}

/* The host part of a Host value: "[v6]" with its brackets, else up to the port. */
static size_t host_part(const char *v)
{
	const char *end;

	if (*v == '[')
		return (end = strchr(v, ']')) ? (size_t)(end - v) + 1 : strlen(v);
	return strcspn(v, ":");
}

int host_allowed(hreq *r)
{
	const char *v = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
	size_t n;

	if (!v)
		return 1; /* HTTP/1.0 (an HTTP/1.1 request without one is 400, wire.c) */
	n = host_part(v);
	while (n && v[n - 1] == '.')
		n--;
	for (size_t i = 0; i < og.nhost; i++)
		if (strlen(og.host[i]) == n && !strncasecmp(og.host[i], v, n))
			return 1;
	return 0;
}

int origin_allowed(const char *o)
{
	for (size_t i = 0; o && i < og.norigin; i++)
		if (!strcasecmp(o, og.origin[i]))
			return 1;
	return 0;
}

/* Is o this server's own origin: the scheme and the Host the request names? */
static int origin_own(hreq *r, const char *o)
{
	const char *host = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
	const char *h = !strncasecmp(o, "http://", 7) ? o + 7 : !strncasecmp(o, "https://", 8) ? o + 8 : NULL;

	return h && host && !strcasecmp(h, host);
}

const char *req_origin(hreq *r)
{
	return MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Origin");
}

int req_cross_site(hreq *r)
{
	const char *o = req_origin(r);
	const char *site = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Sec-Fetch-Site");
	int allowed = o && origin_allowed(o);

	if (o && !allowed && !origin_own(r, o))
		return 1;
	return site && !allowed && (!strcasecmp(site, "cross-site") || !strcasecmp(site, "same-site"));
}
