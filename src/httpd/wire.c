/* wire.c - the bytes libmicrohttpd reads, checked before it parses them.
 *
 * MHD parses the request line and the header fields itself and shows only
 * what it made of them: a folded line (obs-fold) is glued onto the field
 * name, "Content-Length : 3" becomes a field named "Content-Length " that
 * frames nothing (its body is then read as the next request), and a second
 * Host is kept but never seen. So the server reads what MHD reads: this file
 * defines recv(), which the library (opened at run time, mhd_load.c) binds
 * to, and for the sockets of MHD's connections (tracked from their first
 * byte to their close, guard.c) runs each received byte range through a
 * scanner of the HTTP/1.1 framing before MHD sees it. The scanner follows
 * every request of a keep-alive or pipelined connection: request line,
 * fields, then the body by Content-Length or chunked (with its trailer
 * fields), then the next request. The first header block it finds bad is
 * marked with why; the request MHD makes of it is answered 400 with
 * Connection: close (server.c) and nothing after it on that connection is
 * read. Every other socket of the process (libpq's, say) passes through.
 *
 * Bad: a field line that begins with SP or HTAB (obs-fold, RFC 9112 5.2); a
 * field name that is not a token (RFC 9110 5.1), whitespace before the colon
 * included (RFC 9112 5.1); a line without a colon; NUL or a CR not followed
 * by LF in the header section; an HTTP/1.1 request without Host or with more
 * than one (RFC 9112 3.2); a request line that is not three parts apart by
 * single spaces, the last HTTP/D.D; a Content-Length that is not digits; framing that guard.c
 * refuses too (two lengths, a length with Transfer-Encoding, a coding other
 * than chunked); a chunk-size that is not hex.
 *
 * The end of the stream, read while a handler thread holds the request's
 * answer (jobs.c), is kept for after that answer: MHD would take it for the
 * client's going away and drop the answer of a client that half-closed
 * after its request (shutdown(SHUT_WR)). The answer then carries
 * Connection: close. */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "httpd_int.h"

typedef ssize_t (*recv_fn)(int, void *, size_t, int);
static recv_fn real_recv;
static pthread_once_t real_once = PTHREAD_ONCE_INIT;
static _Atomic(wire *) *by_fd;
static size_t nfd;

/* The next recv() in the lookup order: libc's (or a sanitizer's). */
static void find_recv(void)
{
	void *p = dlsym(RTLD_NEXT, "recv");

	if (p)
		memcpy(&real_recv, &p, sizeof(p));
}

int wire_start(unsigned long max_fd)
{
	pthread_once(&real_once, find_recv);
	if (!real_recv)
		return -1;
	if (!by_fd) {
		nfd = max_fd;
		by_fd = calloc(nfd, sizeof(*by_fd));
	}
	return by_fd ? 0 : -1;
}

void wire_track(int fd, wire *w)
{
	memset(w, 0, sizeof(*w));
	if (by_fd && fd >= 0 && (size_t)fd < nfd)
		atomic_store(&by_fd[fd], w);
}

void wire_untrack(int fd)
{
	if (by_fd && fd >= 0 && (size_t)fd < nfd)
		atomic_store(&by_fd[fd], NULL);
}

__attribute__((visibility("default"))) ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	wire *w = by_fd && fd >= 0 && (size_t)fd < nfd ? atomic_load(&by_fd[fd]) : NULL;
	ssize_t got;

	pthread_once(&real_once, find_recv); /* recv() is called in other commands too (libpq) */
	if (!real_recv) {
		errno = ENOSYS;
		return -1;
	}
	got = real_recv(fd, buf, len, flags);
	if (!w || (flags & MSG_PEEK))
		return got;
	if (got == 0 && atomic_load(&w->waiting)) {
		atomic_store(&w->eof, 1); /* for after the answer (jobs.c) */
		errno = EAGAIN;
		return -1;
	}
	if (got > 0)
		wire_scan(w, buf, (size_t)got);
	return got;
}
