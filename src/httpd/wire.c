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

enum {
	W_START,      /* before a request line (empty lines are skipped) */
	W_REQ,        /* the request line */
	W_LINE,       /* the first byte of a field line */
	W_NAME,       /* a field name */
	W_VALUE,      /* a field value */
	W_BODY,       /* Content-Length bytes */
	W_CSIZE,      /* a chunk-size */
	W_CEXT,       /* a chunk extension */
	W_CDATA,      /* chunk data */
	W_CEND,       /* the line end after chunk data */
	W_DEAD        /* found bad, or lost: nothing more is looked at */
};

enum { F_OTHER, F_HOST, F_LENGTH, F_CODING }; /* the fields the scanner reads */

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

static int bad(wire *w, const char *why)
{
	w->why = why;
	w->bad_at = w->blocks;
	w->state = W_DEAD;
	return -1;
}

static int is_tchar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* A new header block: its request line begins. */
static void block_begin(wire *w)
{
	w->blocks++;
	w->hosts = w->lengths = w->codings = 0;
	w->chunked = 0;
	w->length = 0;
	w->part = w->plen = 0;
	w->trailer = 0;
	w->state = W_REQ;
}

/* "METHOD SP TARGET SP HTTP/D.D": one byte of it, LF ends it. */
static int req_byte(wire *w, unsigned char c)
{
	static const char ver[] = "HTTP/d.d";

	if (c == '\n') {
		if (w->part != 2 || w->plen != 8)
			return bad(w, "the request line is not METHOD TARGET HTTP/VERSION");
		w->state = W_LINE;
		return 0;
	}
	if (c == ' ') {
		if (w->part == 2 || !w->plen)
			return bad(w, "the request line is not METHOD TARGET HTTP/VERSION");
		w->part++;
		w->plen = 0;
		return 0;
	}
	if (!c)
		return bad(w, "a NUL byte in the request line");
	if (w->part == 2) { /* the method and the target are MHD's to judge */
		if (w->plen >= 8 || (ver[w->plen] == 'd' ? c < '0' || c > '9' : c != (unsigned char)ver[w->plen]))
			return bad(w, "the request line is not METHOD TARGET HTTP/VERSION");
		if (w->plen == 7)
			w->http11 = w->vmajor == '1' && c >= '1';
		if (w->plen == 5)
			w->vmajor = (char)c;
	}
	w->plen++;
	return 0;
}

/* The empty line: the header block (or the trailer) is over. */
static int block_end(wire *w)
{
	if (w->trailer) {
		w->state = W_START;
		return 0;
	}
	if (w->http11 && w->hosts != 1)
		return bad(w, w->hosts ? "more than one Host" : "an HTTP/1.1 request without Host");
	if (w->lengths > 1 || (w->lengths && w->codings))
		return bad(w, "ambiguous framing (Content-Length twice, or with Transfer-Encoding)");
	if (w->codings && (w->codings > 1 || !w->chunked))
		return bad(w, "a Transfer-Encoding other than chunked");
	w->length = w->lengths ? w->clen : 0;
	w->state = w->codings ? W_CSIZE : w->length ? W_BODY : W_START;
	w->plen = 0;
	return 0;
}

/* The field name is read (at its colon): which field is it? */
static void name_end(wire *w)
{
	static const char *const names[] = { "host", "content-length", "transfer-encoding" };

	w->field = F_OTHER;
	for (int i = 0; i < 3; i++)
		if (w->plen == strlen(names[i]) && !strncasecmp(w->name, names[i], w->plen))
			w->field = F_HOST + i;
	if (w->trailer)
		w->field = F_OTHER; /* trailers frame nothing */
	w->hosts += w->field == F_HOST;
	w->lengths += w->field == F_LENGTH;
	w->codings += w->field == F_CODING;
	if (w->field == F_LENGTH)
		w->clen = 0, w->cdigits = 0; /* a second one is refused at the block's end */
	w->vlen = 0;
}

/* One byte of a field value; LF ends it. */
static int value_byte(wire *w, unsigned char c)
{
	if (c == '\n') {
		if (w->field == F_LENGTH && !w->cdigits)
			return bad(w, "a Content-Length that is not a number");
		if (w->field == F_CODING)
			w->chunked = w->vlen == 7 && !strncasecmp(w->value, "chunked", 7);
		w->state = W_LINE;
		return 0;
	}
	if (!c)
		return bad(w, "a NUL byte in a header field");
	if (w->field == F_LENGTH && c != ' ' && c != '\t') {
		if (c < '0' || c > '9' || w->cdone)
			return bad(w, "a Content-Length that is not a number");
		if (w->clen > (UINT64_MAX - 9) / 10)
			return bad(w, "a Content-Length too large");
		w->clen = w->clen * 10 + (uint64_t)(c - '0');
		w->cdigits++;
	} else if (w->field == F_LENGTH && w->cdigits) {
		w->cdone = 1; /* trailing whitespace: no digit may follow */
	} else if (w->field == F_CODING && c != ' ' && c != '\t') {
		if (w->vgap || w->vlen >= sizeof(w->value))
			w->vlen = sizeof(w->value); /* not "chunked" */
		else
			w->value[w->vlen++] = (char)c;
	} else if (w->field == F_CODING && w->vlen) {
		w->vgap = 1;
	}
	return 0;
}

/* One byte of the header section (or of a trailer), CR already checked. */
static int head_byte(wire *w, unsigned char c)
{
	switch (w->state) {
	case W_START:
		if (c == '\n')
			return 0;
		block_begin(w);
		/* fall through */
	case W_REQ:
		return req_byte(w, c);
	case W_LINE:
		if (c == '\n')
			return block_end(w);
		if (c == ' ' || c == '\t')
			return bad(w, "a folded header line (obs-fold)");
		w->state = W_NAME;
		w->plen = 0;
		w->cdone = w->vgap = 0;
		/* fall through */
	case W_NAME:
		if (c == ':') {
			if (!w->plen)
				return bad(w, "an empty header field name");
			name_end(w);
			w->state = W_VALUE;
			return 0;
		}
		if (c == ' ' || c == '\t')
			return bad(w, "whitespace before the colon of a header field");
		if (c == '\n')
			return bad(w, "a header line without a colon");
		if (!is_tchar(c))
			return bad(w, "a header field name that is not a token");
		if (w->plen < sizeof(w->name))
			w->name[w->plen] = (char)c;
		w->plen++;
		return 0;
	default:
		return value_byte(w, c);
	}
}

/* One byte of the chunked framing lines; LF ends each. */
static int chunk_byte(wire *w, unsigned char c)
{
	int v;

	if (w->state == W_CEND)
		return c == '\n' ? (w->state = W_CSIZE, w->plen = 0, 0) : bad(w, "chunk data not followed by CRLF");
	if (w->state == W_CEXT) {
		if (c == '\n')
			goto size_done;
		return c ? 0 : bad(w, "a NUL byte in a chunk extension");
	}
	if (c == ';' && w->plen) {
		w->state = W_CEXT;
		return 0;
	}
	if (c == '\n' && w->plen)
		goto size_done;
	if ((v = hexval(c)) < 0)
		return bad(w, "a chunk size that is not hexadecimal");
	if (w->length > (UINT64_MAX >> 4))
		return bad(w, "a chunk size too large");
	w->length = w->length << 4 | (uint64_t)v;
	w->plen++;
	return 0;
size_done:
	if (!w->length) {
		w->trailer = 1; /* the last chunk: trailer fields, then the empty line */
		w->state = W_LINE;
		return 0;
	}
	w->state = W_CDATA;
	return 0;
}

/* Run the bytes a recv() got through the scanner. */
static void scan(wire *w, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n && w->state != W_DEAD; i++) {
		unsigned char c = p[i];
		if (w->state == W_BODY || w->state == W_CDATA) {
			size_t k = n - i < w->length ? n - i : (size_t)w->length;
			w->length -= k;
			i += k - 1;
			if (!w->length)
				w->state = w->state == W_BODY ? W_START : (w->plen = 0, W_CEND);
			continue;
		}
		if (w->cr && c != '\n') {
			bad(w, "a CR not followed by LF");
			break;
		}
		w->cr = c == '\r';
		if (w->cr)
			continue;
		if (w->state >= W_CSIZE && w->state <= W_CEND)
			chunk_byte(w, c);
		else
			head_byte(w, c);
	}
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
	if (got > 0 && w->state != W_DEAD)
		scan(w, buf, (size_t)got);
	return got;
}
