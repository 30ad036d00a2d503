/* wire_scan.c - the scanner of HTTP/1.1 framing that wire.c runs over the
 * bytes libmicrohttpd reads (what it refuses: wire.c). It knows nothing of
 * sockets: a connection's bytes go in, in pieces of any size, and the wire
 * says whether, and in which header block, they were found bad. Apart from
 * wire.c so that a fuzz target can drive it (fuzz/fuzz_wire.c). */
#include <string.h>

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
void wire_scan(wire *w, const unsigned char *p, size_t n)
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

