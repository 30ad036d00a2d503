/* input.c - files, directories (recursively), Maildirs, mbox files and stdin.
 *
 * Regular files are read with read() into one buffer (on a virtual machine a
 * page of a mapping costs more than copying it). An mbox is read and decoded
 * piece by piece, so memory stays flat however large it is; a file whose one
 * message is too large to hold, or a large file that is no mbox, is mapped
 * read-only instead (its decoded pages released as it goes). An mbox on
 * standard input streams the same way. Inputs are recognised by content: a
 * file starting "From " is an mbox. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input.h"
#include "cli.h"

#define MAX_DEPTH 32
#define STDIN_CHUNK ((size_t)1 << 20) /* read standard input 1 MiB at a time */
#define FILE_CHUNK ((size_t)64 << 10) /* read files 64 KiB at a time (stays in cache) */
#define FILE_HOLD ((size_t)4 << 20)   /* an mbox message longer than this: map the file */
#define RELEASE_EVERY ((size_t)16 << 20)
#define ORIGIN_MAX 4200               /* "path:N" */

/* The messages of a mapped mbox from offset from on; base messages came before. */
static void walk_mbox(const input_walker *w, const char *path, const char *p, size_t n,
		      size_t from, unsigned long base)
{
	const char *m;
	size_t mn, pos = from, released = 0;
	unsigned long index = 0;
	char origin[ORIGIN_MAX];
	long page = sysconf(_SC_PAGESIZE);

	while (smtpdiag_mbox_next(p, n, &pos, &m, &mn)) {
		snprintf(origin, sizeof(origin), "%s:%lu", path, base + ++index);
		if (mn == 0)
			w->on_err(w->ctx, origin, "empty message in mbox");
		else
			w->on_msg(w->ctx, origin, m, mn);
		/* give back what is behind us */
		size_t done = (size_t)(m - p);
		if (page > 0 && done - released >= RELEASE_EVERY) {
			size_t to = done & ~((size_t)page - 1);
			madvise((void *)(p + released), to - released, MADV_DONTNEED);
			released = to;
		}
	}
}

static void walk_buffer(const input_walker *w, const char *path, const char *p, size_t n)
{
	if (n == 0) {
		w->on_err(w->ctx, path, "empty file");
		return;
	}
	if (smtpdiag_mbox_detect(p, n))
		walk_mbox(w, path, p, n, 0, 0);
	else
		w->on_msg(w->ctx, path, p, n);
}

/* Read up to want more bytes into b (growing it); returns bytes read, 0 at EOF, -1 on error. */
static ssize_t fill(int fd, char **b, size_t *len, size_t *cap, size_t want)
{
	ssize_t r;

	if (*len + want > *cap) {
		size_t ncap = *cap ? *cap : want;
		char *nb;
		while (ncap < *len + want)
			ncap *= 2;
		if (!(nb = realloc(*b, ncap)))
			return -1;
		*b = nb;
		*cap = ncap;
	}
	do
		r = read(fd, *b + *len, want);
	while (r < 0 && errno == EINTR);
	if (r > 0)
		*len += (size_t)r;
	return r;
}

/* An mbox (or the start of an input) read piece by piece. */
typedef struct reader {
	const char *name;   /* the path, or "-" */
	int fd;
	char *buf;          /* unread messages start at buf[0] ... */
	size_t len, cap;
	size_t off;         /* ... which is at this offset of the input */
	unsigned long base; /* messages handed out before buf[0] */
	int eof;
} reader;

/* Read up to want more bytes; -1 on a read error (errno set). */
static int reader_fill(reader *r, size_t want)
{
	ssize_t n = fill(r->fd, &r->buf, &r->len, &r->cap, want);

	r->eof = n == 0;
	return n < 0 ? -1 : 0;
}

/* Decode every message of the buffer whose end has been seen (all of them at
 * the end of input) and keep the last, maybe incomplete, one at the front.
 * This splits as the whole input would be split: a From_ line is taken only
 * on bytes before the buffer's end, and no earlier candidate line is turned
 * down for want of the bytes that follow the buffer. */
static void reader_split(const input_walker *w, reader *r)
{
	const char *m;
	size_t mn, keep = 0, at = 0, pos = 0;
	unsigned long index = 0;
	char origin[ORIGIN_MAX];

	while ((at = pos, smtpdiag_mbox_next(r->buf, r->len, &pos, &m, &mn))) {
		index++;
		if (!r->eof && pos >= r->len) {
			keep = at; /* the last message may go on in the next read */
			break;
		}
		snprintf(origin, sizeof(origin), "%s:%lu", r->name, r->base + index);
		if (mn == 0)
			w->on_err(w->ctx, origin, "empty message in mbox");
		else
			w->on_msg(w->ctx, origin, m, mn);
		keep = r->len;
	}
	r->base += index ? index - (keep < r->len) : 0;
	memmove(r->buf, r->buf + keep, r->len - keep);
	r->len -= keep;
	r->off += keep;
}

/* Map size bytes of the file read-only; NULL (reported) on failure. */
static void *map_file(const input_walker *w, const char *path, int fd, size_t size)
{
	void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);

	if (map == MAP_FAILED) {
		w->on_err(w->ctx, path, strerror(errno));
		return NULL;
	}
	madvise(map, size, MADV_SEQUENTIAL);
	return map;
}

/* An mbox file, read piece by piece; a message that outgrows FILE_HOLD makes
 * the rest of the file (from the kept message on) be mapped instead. */
static void stream_file(const input_walker *w, reader *r, size_t size)
{
	char *map;

	for (;;) {
		reader_split(w, r);
		if (r->eof)
			return;
		if (r->len > FILE_HOLD)
			break;
		/* reading as much as is held keeps re-splitting a long message linear */
		if (reader_fill(r, r->len > FILE_CHUNK ? r->len : FILE_CHUNK) < 0) {
			w->on_err(w->ctx, r->name, strerror(errno));
			return;
		}
	}
	if (r->off < size && (map = map_file(w, r->name, r->fd, size)) != NULL) {
		walk_mbox(w, r->name, map, size, r->off, r->base);
		munmap(map, size);
	}
}

static void walk_file(const input_walker *w, const char *path, const struct stat *sb)
{
	size_t size = (size_t)sb->st_size;
	reader r = { path, -1, NULL, 0, 0, 0, 0, 0 };
	char *map;

	if (size == 0) {
		w->on_err(w->ctx, path, "empty file");
		return;
	}
	r.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r.fd < 0) {
		w->on_err(w->ctx, path, strerror(errno));
		return;
	}
	if (reader_fill(&r, FILE_CHUNK) < 0) {
		w->on_err(w->ctx, path, strerror(errno));
	} else if (r.len >= size || r.eof) {
		walk_buffer(w, path, r.buf, r.len < size ? r.len : size); /* the whole file */
	} else if (smtpdiag_mbox_detect(r.buf, r.len)) {
		stream_file(w, &r, size);
	} else if ((map = map_file(w, path, r.fd, size)) != NULL) {
		walk_buffer(w, path, map, size);
		munmap(map, size);
	}
	close(r.fd);
	free(r.buf);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void walk_path(const input_walker *w, const char *path, int depth);

static void walk_dir(const input_walker *w, const char *path, int depth)
{
	DIR *d = opendir(path);
	struct dirent *e;
	char **names = NULL, full[4096];
	size_t n = 0, cap = 0;

	if (!d) {
		w->on_err(w->ctx, path, strerror(errno));
		return;
	}
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue; /* ., .., hidden files and Maildir's dot-folders are not inputs */
		if (n == cap) {
			char **nn = realloc(names, sizeof(char *) * (cap = cap ? cap * 2 : 64));
			if (!nn)
				break;
			names = nn;
		}
		if (!(names[n] = strdup(e->d_name)))
			break;
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof(char *), cmp_names);
	for (size_t i = 0; i < n; i++) {
		/* Maildir: messages live in cur/ and new/; tmp/ holds unfinished deliveries */
		if (!strcmp(names[i], "tmp")) {
			char probe[4096];
			struct stat sb;
			snprintf(probe, sizeof(probe), "%s/cur", path);
			if (stat(probe, &sb) == 0 && S_ISDIR(sb.st_mode)) {
				free(names[i]);
				continue;
			}
		}
		snprintf(full, sizeof(full), "%s/%s", path, names[i]);
		walk_path(w, full, depth + 1);
		free(names[i]);
	}
	free(names);
}

static void walk_path(const input_walker *w, const char *path, int depth)
{
	struct stat sb;

	if (stat(path, &sb) < 0) {
		w->on_err(w->ctx, path, strerror(errno));
		return;
	}
	if (S_ISDIR(sb.st_mode)) {
		if (depth >= MAX_DEPTH)
			w->on_err(w->ctx, path, "directories nested deeper than 32 levels");
		else
			walk_dir(w, path, depth);
	} else if (S_ISREG(sb.st_mode)) {
		walk_file(w, path, &sb);
	} else {
		w->on_err(w->ctx, path, "not a regular file or directory");
	}
}

/* An mbox on standard input, in bounded memory. */
static void stream_stdin(const input_walker *w, reader *r)
{
	for (;;) {
		reader_split(w, r);
		if (r->eof)
			return;
		if (r->len > SMTPDIAG_MAX_MESSAGE + (size_t)(1 << 20)) {
			w->on_err(w->ctx, "-", "an mbox message on standard input is larger than 64 MiB; stopped reading");
			return;
		}
		if (reader_fill(r, STDIN_CHUNK) < 0) {
			w->on_err(w->ctx, "-", strerror(errno));
			return;
		}
	}
}

static void walk_stdin(const input_walker *w)
{
	reader r = { "-", 0, NULL, 0, 0, 0, 0, 0 };
	int rc;

	/* the first chunk tells an mbox from a single message */
	while ((rc = reader_fill(&r, STDIN_CHUNK)) == 0 && !r.eof && r.len < 5)
		;
	if (rc < 0) {
		w->on_err(w->ctx, "-", strerror(errno));
	} else if (r.len == 0) {
		w->on_err(w->ctx, "-", "empty input");
	} else if (smtpdiag_mbox_detect(r.buf, r.len)) {
		stream_stdin(w, &r);
	} else {
		ssize_t n = r.eof ? 0 : 1;
		while (n > 0 && r.len <= SMTPDIAG_MAX_MESSAGE)
			n = fill(0, &r.buf, &r.len, &r.cap, STDIN_CHUNK);
		if (n < 0)
			w->on_err(w->ctx, "-", strerror(errno));
		else if (r.len > SMTPDIAG_MAX_MESSAGE)
			w->on_err(w->ctx, "-", "message on standard input larger than 64 MiB (SMTPDIAG_MAX_MESSAGE)");
		else
			w->on_msg(w->ctx, "-", r.buf, r.len);
	}
	free(r.buf);
}

void input_walk(const input_walker *w, const char *path)
{
	if (strcmp(path, "-"))
		walk_path(w, path, 0);
	else
		walk_stdin(w);
}
