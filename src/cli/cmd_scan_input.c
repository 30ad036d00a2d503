/* cmd_scan_input.c - read a log (plain or gzip, file or stdin) line by line.
 *
 * Large reads into one buffer, line ends found with memchr, lines handed over
 * in place (no copy). What is left of a line at the end of a read moves to
 * the front of the buffer; a line longer than SCAN_MAX_LINE is skipped up to
 * its end and reported once. A plain regular file can be read as pieces cut
 * at line ends (scan_split), one reader per piece. gzip input (recognised by its magic bytes, not
 * its name; concatenated members too) is inflated as it is read. (Measured:
 * mapping the file instead costs more in page faults than read() in copies.) */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd_scan.h"

static void seterr(scan_src *s, const char *what, int e)
{
	size_t n = strlen(what);

	if (n >= sizeof(s->err))
		n = sizeof(s->err) - 1;
	memcpy(s->err, what, n);
	s->err[n] = 0;
	s->errnum = e;
	if (e && n + 3 < sizeof(s->err)) {
		const char *m = strerror(e);
		size_t k = strlen(m);
		if (k > sizeof(s->err) - n - 3)
			k = sizeof(s->err) - n - 3;
		memcpy(s->err + n, ": ", 2);
		memcpy(s->err + n + 2, m, k);
		s->err[n + 2 + k] = 0;
	}
}

/* Keep the last SCAN_TAIL bytes of the raw stream. */
static void keep_tail(scan_src *s, const unsigned char *p, size_t r)
{
	if (r >= SCAN_TAIL) {
		memcpy(s->tail, p + r - SCAN_TAIL, SCAN_TAIL);
		s->ntail = SCAN_TAIL;
		return;
	}
	if (s->ntail + r > SCAN_TAIL) {
		size_t drop = s->ntail + r - SCAN_TAIL;
		memmove(s->tail, s->tail + drop, s->ntail - drop);
		s->ntail -= drop;
	}
	memcpy(s->tail + s->ntail, p, r);
	s->ntail += r;
}

/* A signal only interrupts a read when --follow catches SIGINT/SIGTERM: then
 * "nothing for now" lets the caller see that it must stop. */
static ssize_t raw_read(scan_src *s, void *dst, size_t n)
{
	ssize_t r;

	if (s->end) { /* a piece of the file: nothing past its end */
		if (s->off >= s->end)
			return 0;
		if ((off_t)n > s->end - s->off)
			n = (size_t)(s->end - s->off);
	}
	r = read(s->fd, dst, n);

	if (r < 0)
		return errno == EINTR ? 0 : -1;
	s->off += r;
	keep_tail(s, dst, (size_t)r);
	return r;
}

static int stat_fd(scan_src *s)
{
	struct stat st;

	if (fstat(s->fd, &st) < 0)
		return -1;
	s->regular = S_ISREG(st.st_mode);
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	s->size = st.st_size;
	s->mtime = (int64_t)st.st_mtime;
	return 0;
}

/* The first read decides: gzip or plain. */
static int sniff(scan_src *s)
{
	ssize_t r = raw_read(s, s->zin, SCAN_GZ_CHUNK);

	if (r < 0) {
		seterr(s, "cannot read", errno);
		return -1;
	}
	s->zlen = (size_t)r;
	s->zpos = 0;
	if (s->zlen < 2 || s->zin[0] != 0x1f || s->zin[1] != 0x8b)
		return 0;
	s->gz = 1;
	memset(&s->zs, 0, sizeof(s->zs));
	if (inflateInit2(&s->zs, 15 + 32) != Z_OK) {
		seterr(s, "cannot start gzip decompression", 0);
		return -1;
	}
	return 0;
}

int scan_src_open(scan_src *s, const char *path)
{
	return scan_src_open_piece(s, path, 0, 0);
}

int scan_src_open_piece(scan_src *s, const char *path, off_t start, off_t end)
{
	s->path = path;
	s->end = end;
	s->err[0] = 0;
	s->gz = s->zend = s->skipping = 0;
	s->len = s->zlen = s->zpos = s->ntail = 0;
	s->mlen = s->mpos = 0;
	s->mchecked = s->munchecked = s->said_unchecked = 0;
	s->off = 0;
	s->fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	if (s->fd < 0) {
		seterr(s, "cannot open", errno);
		return -1;
	}
	if (stat_fd(s) < 0) {
		seterr(s, "cannot stat", errno);
		return -1;
	}
	s->cap = SCAN_READ_CHUNK + SCAN_MAX_LINE + 1;
	if (!s->buf)
		s->buf = malloc(s->cap);
	if (!s->zin)
		s->zin = malloc(SCAN_GZ_CHUNK);
	if (!s->buf || !s->zin) {
		seterr(s, "out of memory", 0);
		return -1;
	}
	if (start) { /* a later piece of a plain file (scan_split saw its first bytes) */
		if (lseek(s->fd, start, SEEK_SET) != start) {
			seterr(s, "cannot seek", errno);
			return -1;
		}
		s->off = start;
		return 0;
	}
	return sniff(s);
}

/* The first line end at or after pos (the offset after it), or size. */
static off_t line_end_from(int fd, off_t pos, off_t size)
{
	char b[1 << 16];

	while (pos < size) {
		ssize_t r = pread(fd, b, sizeof(b), pos);
		const char *nl;
		if (r <= 0)
			return size;
		if ((nl = memchr(b, '\n', (size_t)r)) != NULL)
			return pos + (nl - b) + 1;
		pos += r;
	}
	return size;
}

int scan_split(const char *path, int n, off_t min_piece, off_t *cuts)
{
	unsigned char magic[2];
	struct stat st;
	int fd, k = 0;

	cuts[0] = 0;
	cuts[1] = 0;
	if (n < 2 || min_piece < 1 || !strcmp(path, "-") || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size / min_piece < 2 ||
	    pread(fd, magic, 2, 0) != 2 || (magic[0] == 0x1f && magic[1] == 0x8b)) {
		close(fd);
		return 1;
	}
	if (st.st_size / min_piece < n)
		n = (int)(st.st_size / min_piece);
	for (int i = 1; i < n; i++) {
		/* cut after the line end that the byte before the even share ends */
		off_t c = line_end_from(fd, st.st_size / n * i - 1, st.st_size);
		if (c > cuts[k] && c < st.st_size)
			cuts[++k] = c;
	}
	cuts[++k] = st.st_size;
	close(fd);
	return k;
}

/* After a member's output went out: another member, or the end of the data
 * (bytes that are no gzip member, such as padding, end it too). */
static void next_member(scan_src *s)
{
	s->mchecked = s->munchecked = 0;
	s->mlen = s->mpos = 0;
	if (s->zpos == s->zlen) {
		ssize_t r = raw_read(s, s->zin, SCAN_GZ_CHUNK);
		s->zlen = r > 0 ? (size_t)r : 0;
		s->zpos = 0;
	}
	if (s->zpos == s->zlen || s->zin[s->zpos] != 0x1f || inflateReset(&s->zs) != Z_OK)
		s->zend = 1;
}

/* More compressed input; -1 on a read error or when the data stops mid-member. */
static int gz_refill(scan_src *s)
{
	ssize_t r = raw_read(s, s->zin, SCAN_GZ_CHUNK);

	if (r <= 0) {
		seterr(s, r < 0 ? "cannot read" : "truncated gzip data", r < 0 ? errno : 0);
		return -1;
	}
	s->zlen = (size_t)r;
	s->zpos = 0;
	return 0;
}

/* Room for more of the member's output: 0, 1 when there is none until what is
 * held goes out unchecked (the member outgrew its limit), -1 out of memory. */
static int member_room(scan_src *s)
{
	size_t cap = s->mcap ? s->mcap * 2 : SCAN_GZ_MEMBER_MIN;
	char *p;

	if (s->munchecked && s->mpos == s->mlen)
		s->mlen = s->mpos = 0;
	if (s->mlen < s->mcap)
		return 0;
	if (s->mcap >= SCAN_GZ_MEMBER_MAX) {
		s->munchecked = 1;
		return 1;
	}
	if (!(p = realloc(s->member, cap < SCAN_GZ_MEMBER_MAX ? cap : SCAN_GZ_MEMBER_MAX))) {
		seterr(s, "out of memory", 0);
		return -1;
	}
	s->member = p;
	s->mcap = cap < SCAN_GZ_MEMBER_MAX ? cap : SCAN_GZ_MEMBER_MAX;
	return 0;
}

/* Inflate more of the member; zlib checks the trailer at its end. */
static int gz_inflate(scan_src *s)
{
	char what[sizeof(s->err)];
	int rc;

	if (s->zpos == s->zlen && gz_refill(s) < 0)
		return -1;
	s->zs.next_in = s->zin + s->zpos;
	s->zs.avail_in = (uInt)(s->zlen - s->zpos);
	s->zs.next_out = (Bytef *)s->member + s->mlen;
	s->zs.avail_out = (uInt)(s->mcap - s->mlen);
	rc = inflate(&s->zs, Z_NO_FLUSH);
	s->zpos = s->zlen - s->zs.avail_in;
	s->mlen = s->mcap - s->zs.avail_out;
	if (rc == Z_STREAM_END)
		s->mchecked = 1;
	if (rc == Z_STREAM_END || rc == Z_OK || rc == Z_BUF_ERROR)
		return 0;
	snprintf(what, sizeof(what), "corrupt gzip data (%s)", s->zs.msg ? s->zs.msg : "inflate failed");
	seterr(s, what, 0);
	s->mlen = s->mpos = 0; /* none of the member's lines */
	return -1;
}

/* Hand over the member's output once it checked (or goes unchecked). */
static ssize_t gz_fill(scan_src *s, char *dst, size_t n)
{
	for (;;) {
		int rc;
		if (s->mpos < s->mlen && (s->mchecked || s->munchecked)) {
			size_t k = s->mlen - s->mpos < n ? s->mlen - s->mpos : n;
			memcpy(dst, s->member + s->mpos, k);
			s->mpos += k;
			return (ssize_t)k;
		}
		if (s->mchecked)
			next_member(s);
		if (s->zend)
			return 0;
		if ((rc = member_room(s)) < 0 || (rc == 0 && gz_inflate(s) < 0))
			return -1;
	}
}

static ssize_t fill(scan_src *s, char *dst, size_t n)
{
	ssize_t r;

	if (s->gz)
		return gz_fill(s, dst, n);
	if (s->zpos < s->zlen) {
		size_t k = s->zlen - s->zpos < n ? s->zlen - s->zpos : n;
		memcpy(dst, s->zin + s->zpos, k);
		s->zpos += k;
		return (ssize_t)k;
	}
	r = raw_read(s, dst, n);
	if (r < 0)
		seterr(s, "cannot read", errno);
	return r;
}

static void lines(scan_src *s)
{
	char *p = s->buf, *end = s->buf + s->len, *nl;
	size_t rest;

	if (s->skipping) {
		if (!(nl = memchr(p, '\n', (size_t)(end - p)))) {
			s->len = 0;
			return;
		}
		p = nl + 1;
		s->skipping = 0;
	}
	while ((nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		s->on_line(s->ctx, p, (size_t)(nl - p));
		p = nl + 1;
	}
	rest = (size_t)(end - p);
	if (rest > SCAN_MAX_LINE) {
		s->on_toolong(s->ctx);
		s->skipping = 1;
		rest = 0;
	}
	if (rest && p != s->buf)
		memmove(s->buf, p, rest);
	s->len = rest;
}

int scan_src_pump(scan_src *s)
{
	ssize_t r = fill(s, s->buf + s->len, s->cap - 1 - s->len);
	if (r < 0)
		return -1;
	if (r == 0)
		return 0;
	s->len += (size_t)r;
	lines(s);
	return 1;
}

void scan_src_finish(scan_src *s)
{
	if (s->len && !s->skipping)
		s->on_line(s->ctx, s->buf, s->len);
	s->len = 0;
	s->skipping = 0;
}

int scan_src_rewritten(scan_src *s, off_t size)
{
	unsigned char now[SCAN_TAIL];

	if (s->gz || !s->regular)
		return 0;
	if (size < s->off)
		return 1;
	if (!s->ntail || (off_t)s->ntail > s->off)
		return 0;
	return pread(s->fd, now, s->ntail, s->off - (off_t)s->ntail) != (ssize_t)s->ntail ||
	       memcmp(now, s->tail, s->ntail) != 0;
}

void scan_src_rewind(scan_src *s)
{
	if (lseek(s->fd, 0, SEEK_SET) == 0)
		s->off = 0;
	s->len = s->zlen = s->zpos = s->ntail = 0;
	s->skipping = 0;
}

void scan_src_close(scan_src *s)
{
	if (s->gz)
		inflateEnd(&s->zs);
	s->gz = 0;
	if (s->fd > 0)
		close(s->fd);
	s->fd = -1;
	free(s->buf);
	free(s->zin);
	free(s->member);
	s->buf = NULL;
	s->zin = NULL;
	s->member = NULL;
	s->mlen = s->mpos = s->mcap = 0;
}
