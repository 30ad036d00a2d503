/* listen.c - the listening socket, the open-file limit, and who the server
 * runs as: warnings when it listens beyond loopback or runs as root, and the
 * drop to --user after binding. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stddef.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "httpd_int.h"

#define LISTEN_BACKLOG 4096          /* the kernel caps it at net.core.somaxconn */
#define LISTEN_MAX_FILES (1ul << 20) /* the soft limit asked for when the hard one is unlimited */
#define LISTEN_PW_BUF 16384          /* getpwnam_r's buffer */


/* where gets "HOST:PORT", "[V6]:PORT", "unix:PATH" or "unix:@NAME" (abstract). */
static void listen_where(const struct sockaddr_storage *ss, socklen_t sl, char *where, size_t wcap)
{
	char h[INET6_ADDRSTRLEN];

	if (ss->ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)ss)->sin6_addr, h, sizeof(h));
		snprintf(where, wcap, "[%s]:%u", h, ntohs(((const struct sockaddr_in6 *)ss)->sin6_port));
	} else if (ss->ss_family == AF_INET) {
		inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr, h, sizeof(h));
		snprintf(where, wcap, "%s:%u", h, ntohs(((const struct sockaddr_in *)ss)->sin_port));
	} else {
		const struct sockaddr_un *un = (const struct sockaddr_un *)ss;
		size_t off = offsetof(struct sockaddr_un, sun_path), n = sl > off ? sl - off : 0;
		if (n && un->sun_path[0] == '\0')
			snprintf(where, wcap, "unix:@%.*s", (int)(n - 1), un->sun_path + 1);
		else
			snprintf(where, wcap, "unix:%.*s", (int)strnlen(un->sun_path, n), un->sun_path);
	}
}

/* "HOST:PORT", "[V6]:PORT", ":PORT" (all addresses) or "PORT" (loopback). */
static int split_listen(const char *spec, char *host, size_t hcap, char *port, size_t pcap)
{
	const char *colon;

	if (spec[0] == '[') {
		const char *end = strchr(spec, ']');
		if (!end || end[1] != ':' || (size_t)(end - spec) > hcap)
			return -1;
		snprintf(host, hcap, "%.*s", (int)(end - spec - 1), spec + 1);
		snprintf(port, pcap, "%s", end + 2);
	} else if ((colon = strrchr(spec, ':')) != NULL) {
		if ((size_t)(colon - spec) >= hcap || strchr(spec, ':') != colon)
			return -1;
		snprintf(host, hcap, "%.*s", (int)(colon - spec), spec);
		snprintf(port, pcap, "%s", colon + 1);
		if (!host[0])
			snprintf(host, hcap, "0.0.0.0");
	} else {
		snprintf(host, hcap, "127.0.0.1");
		snprintf(port, pcap, "%s", spec);
	}
	if (!port[0] || strspn(port, "0123456789") != strlen(port) || strlen(port) > 5 || strtoul(port, NULL, 10) > 65535)
		return -1;
	return 0;
}

int listen_open(const char *spec, char *err, size_t errlen, char *where, size_t wcap)
{
	char host[256], port[8];
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE | AI_NUMERICSERV }, *ai;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int fd, one = 1, rc;

	if (split_listen(spec, host, sizeof(host), port, sizeof(port)) < 0) {
		snprintf(err, errlen, "--listen: '%s' is not HOST:PORT, [IPV6]:PORT or PORT", spec);
		return -1;
	}
	if ((rc = getaddrinfo(host, port, &hints, &ai)) != 0) {
		snprintf(err, errlen, "--listen: %s: %s", host, gai_strerror(rc));
		return -1;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, LISTEN_BACKLOG) < 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &sl) < 0) {
		snprintf(err, errlen, "cannot listen on %s: %s", spec, strerror(errno));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return -1;
	}
	freeaddrinfo(ai);
	listen_where(&ss, sl, where, wcap);
	return fd;
}


/* Is the socket bound to a loopback address (127.0.0.0/8, ::1, ::ffff:127.x)? */
int listen_is_loopback(int fd)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	const unsigned char *a;

	if (getsockname(fd, (struct sockaddr *)&ss, &sl) < 0)
		return 0;
	if (ss.ss_family == AF_INET)
		return (ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr) >> 24) == 127;
	if (ss.ss_family != AF_INET6)
		return 0;
	a = ((struct sockaddr_in6 *)&ss)->sin6_addr.s6_addr;
	if (IN6_IS_ADDR_LOOPBACK((struct in6_addr *)a))
		return 1;
	return IN6_IS_ADDR_V4MAPPED((struct in6_addr *)a) && a[12] == 127;
}

/* Is the socket a Unix one (passed by systemd), reachable from this host only? */
static int listen_is_unix(int fd)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	return getsockname(fd, (struct sockaddr *)&ss, &sl) == 0 && ss.ss_family == AF_UNIX;
}

void listen_warn(int fd, const char *where, const char *user, int can_drop)
{
	if (!listen_is_loopback(fd) && !listen_is_unix(fd))
		fprintf(stderr, "smtpdiag: %s: warning: listening on %s, beyond loopback: anyone who can "
			"reach it can use it; prefer a reverse proxy in front%s\n", httpd_prog, where,
			can_drop ? ", and --max-conn-per-ip" : "");
	if (geteuid() == 0 && !user)
		fprintf(stderr, can_drop ? "smtpdiag: %s: warning: running as root; give --user NAME to drop "
			"root after binding\n" : "smtpdiag: %s: warning: running as root; a user that can "
			"read the logs (group adm) is enough\n", httpd_prog);
}

unsigned long listen_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 1024;
	if (rl.rlim_cur < rl.rlim_max) {
		rlim_t want = rl.rlim_max == RLIM_INFINITY ? LISTEN_MAX_FILES : rl.rlim_max;
		if (want > rl.rlim_cur) {
			rlim_t old = rl.rlim_cur;
			rl.rlim_cur = want;
			if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
				rl.rlim_cur = old;
		}
	}
	return rl.rlim_cur == RLIM_INFINITY ? LISTEN_MAX_FILES : (unsigned long)rl.rlim_cur;
}

static int regains_root(void)
{
	return setuid(0) == 0 || seteuid(0) == 0 || setgid(0) == 0 || setegid(0) == 0;
}

int listen_drop(const char *user, char *err, size_t errlen)
{
	struct passwd pw, *p = NULL;
	char *buf = malloc(LISTEN_PW_BUF);
	int rc = -1;

	if (!buf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (getpwnam_r(user, &pw, buf, LISTEN_PW_BUF, &p) != 0 || !p) {
		snprintf(err, errlen, "--user: no such user: %s", user);
	} else if (geteuid() != 0 && p->pw_uid != geteuid()) {
		snprintf(err, errlen, "--user %s: only root can change user", user);
	} else if (geteuid() != 0) {
		rc = 0; /* already that user */
	} else if (initgroups(p->pw_name, p->pw_gid) < 0 || setgid(p->pw_gid) < 0 || setuid(p->pw_uid) < 0) {
		snprintf(err, errlen, "--user %s: cannot become that user: %s", user, strerror(errno));
	} else if (p->pw_uid != 0 && regains_root()) {
		snprintf(err, errlen, "--user %s: root privileges could be regained", user);
	} else {
		rc = 0;
	}
	free(buf);
	return rc;
}


/* ---- systemd: passed sockets and readiness (sd_listen_fds(3), sd_notify(3)) ---- */

/* The protocol is spoken here rather than through libsystemd: it is a few
 * environment variables and one datagram, and libsystemd's sd_* names would
 * share the prefix of the project's own internal symbols. */
#define LISTEN_FDS_START 3

/* Is the socket a listening stream socket of AF_INET, AF_INET6 or AF_UNIX? */
static int passed_ok(int fd, char *where, size_t wcap, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int type = 0, acc = 0;
	socklen_t tl = sizeof(type), al = sizeof(acc);

	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) < 0 || getsockname(fd, (struct sockaddr *)&ss, &sl) < 0) {
		snprintf(err, errlen, "passed file descriptor %d (LISTEN_FDS) is not a socket: %s", fd,
			 strerror(errno));
		return -1;
	}
	if (type != SOCK_STREAM || (ss.ss_family != AF_INET && ss.ss_family != AF_INET6 && ss.ss_family != AF_UNIX)) {
		snprintf(err, errlen, "passed file descriptor %d (LISTEN_FDS) is not a TCP or Unix stream socket",
			 fd);
		return -1;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &al) < 0 || !acc) {
		snprintf(err, errlen, "passed socket %d (LISTEN_FDS) is not listening", fd);
		return -1;
	}
	listen_where(&ss, sl, where, wcap);
	return 0;
}

int listen_passed(char *err, size_t errlen, char *where, size_t wcap)
{
	const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
	char *end;
	unsigned long n;
	int fl;

	if (!pid || !fds)
		return -2;
	errno = 0;
	if (strtoul(pid, &end, 10) != (unsigned long)getpid() || *end || errno)
		return -2; /* meant for another process */
	n = strtoul(fds, &end, 10);
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	if (*end || !fds[0] || n == 0)
		return -2;
	if (n != 1) {
		snprintf(err, errlen, "LISTEN_FDS=%s: serve takes one passed socket (give the .socket unit "
			 "one ListenStream=)", fds);
		return -1;
	}
	if (passed_ok(LISTEN_FDS_START, where, wcap, err, errlen) < 0)
		return -1;
	fl = fcntl(LISTEN_FDS_START, F_GETFL);
	if (fl < 0 || fcntl(LISTEN_FDS_START, F_SETFL, fl | O_NONBLOCK) < 0 ||
	    fcntl(LISTEN_FDS_START, F_SETFD, FD_CLOEXEC) < 0) {
		snprintf(err, errlen, "passed socket %d: %s", LISTEN_FDS_START, strerror(errno));
		return -1;
	}
	return LISTEN_FDS_START;
}

void listen_notify(const char *msg)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	size_t len;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@') || (len = strlen(path)) >= sizeof(un.sun_path))
		return;
	memcpy(un.sun_path, path, len);
	if (path[0] == '@')
		un.sun_path[0] = '\0'; /* abstract namespace */
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return;
	if (sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&un,
		   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0)
		fprintf(stderr, "smtpdiag: %s: warning: NOTIFY_SOCKET: %s\n", httpd_prog, strerror(errno));
	close(fd);
}
