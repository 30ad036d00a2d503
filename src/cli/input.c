/* input.c - files, directories (recursively), Maildirs, mbox files and stdin.
 *
 * Regular files are read with read(), never mapped: on a virtual machine a
 * page of a mapping costs more than copying it, and a mapped file that shrinks
 * kills the reader with SIGBUS. A file of one message is read whole (up to
 * SMTPDIAG_MAX_MESSAGE). An mbox is read and decoded piece by piece, so memory
 * stays flat however large it is; a message over the limit is reported and
 * skipped. An mbox on standard input streams the same way. A file that ends
 * before the size it had when opened is reported as changed while reading.
 * Inputs are recognised by content: a file starting "From " is an mbox. A
 * file (or standard input) of JSON is handed to on_stream, when there is one,
 * to be read a piece at a time: a file of events can be much larger than one
 * message, and is never held whole. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input.h"
#include "cli.h"

#define MAX_DEPTH 32
#define STDIN_CHUNK ((size_t)1 << 20) /* read standard input 1 MiB at a time */
#define FILE_CHUNK ((size_t)64 << 10) /* read files 64 KiB at a time (stays in cache) */
/* an mbox message held longer than this is over the limit: dropped, not read whole */
#define HOLD_MAX ((size_t)SMTPDIAG_MAX_MESSAGE + STDIN_CHUNK)
#define INPUT_MAX_EVENTS ((size_t)1 << 30) /* a JSON events file, read whole */
#define SKIP_TAIL ((size_t)64 << 10) /* bytes kept of a dropped message: the next From_ line may start there */
#define SKIP_CONTEXT 3               /* bytes before a From_ line the splitter looks at */
#define PATH_LIMIT 4096              /* longest path read; a longer one is an error */
#define MAX_DIRS ((size_t)1 << 16)   /* directories read under one input */
#define ORIGIN_MAX (PATH_LIMIT + 32) /* "path:N" */
#define SHRANK "changed while reading (the file shrank)"

static void walk_buffer(const input_walker *w, const char *path, const char *p, size_t n)
{
	if (n == 0)
		w->on_err(w->ctx, path, "empty file");
	else
		w->on_msg(w->ctx, path, p, n);
}

/* "name:N" into out (ORIGIN_MAX bytes, NUL-terminated), cut as snprintf
 * would cut it: the origin of every message of an mbox, so without printf. */
static void origin_of(char *out, const char *name, unsigned long n)
{
	char d[24];
	size_t k = sizeof(d), len = strlen(name), o;

	do
		d[--k] = (char)('0' + n % 10);
	while ((n /= 10) != 0);
	d[--k] = ':';
	o = len < ORIGIN_MAX - 1 ? len : ORIGIN_MAX - 1;
	memcpy(out, name, o);
	len = sizeof(d) - k < ORIGIN_MAX - 1 - o ? sizeof(d) - k : ORIGIN_MAX - 1 - o;
	memcpy(out + o, d + k, len);
	out[o + len] = '\0';
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
	size_t size;        /* of the file when opened; 0 for standard input */
	char *buf;          /* unread messages start at buf[0] ... */
	size_t len, cap;
	size_t off;         /* ... which is at this offset of the input */
	unsigned long base; /* messages handed out before buf[0] */
	int eof;
	int skip;           /* buf[0..) is the rest of a message over the limit */
} reader;

/* Read up to want more bytes; -1 on a read error (errno set). */
static int reader_fill(reader *r, size_t want)
{
	ssize_t n = fill(r->fd, &r->buf, &r->len, &r->cap, want);

	r->eof = n == 0;
	return n < 0 ? -1 : 0;
}

/* Hand out every message of the buffer whose end has been seen (all of them
 * at the end of input) and keep the last, maybe incomplete, one at the front.
 * This splits as the whole input would be split: a From_ line is taken only
 * on bytes before the buffer's end, and no earlier candidate line is turned
 * down for want of the bytes that follow the buffer. The rest of a message
 * over the limit is dropped, not handed out. */
static void reader_split(const input_walker *w, reader *r)
{
	const char *m;
	size_t mn, keep = 0, at, pos = r->skip ? SKIP_CONTEXT : 0;
	char origin[ORIGIN_MAX];

	while ((at = pos, smtpdiag_mbox_next(r->buf, r->len, &pos, &m, &mn))) {
		if (!r->eof && pos >= r->len) {
			keep = r->skip ? 0 : at; /* the last message may go on in the next read */
			break;
		}
		keep = r->len;
		if (r->skip) {
			r->skip = 0;
			continue;
		}
		origin_of(origin, r->name, ++r->base);
		if (mn == 0)
			w->on_err(w->ctx, origin, "empty message in mbox");
		else
			w->on_msg(w->ctx, origin, m, mn);
	}
	if (r->eof)
		keep = r->len;
	memmove(r->buf, r->buf + keep, r->len - keep);
	r->len -= keep;
	r->off += keep;
}

/* The message held is over the limit: say so once, and keep only the tail in
 * which the From_ line after it may start. The splitter resumes SKIP_CONTEXT
 * bytes into the tail, on a byte that starts no line and no "From ", so every
 * From_ line after it is judged on the bytes the whole file would show. */
static void reader_skip(const input_walker *w, reader *r)
{
	size_t c = r->len - SKIP_TAIL, stop = c - SKIP_TAIL;
	char origin[ORIGIN_MAX];

	if (!r->skip) {
		origin_of(origin, r->name, ++r->base);
		w->on_err(w->ctx, origin, "message larger than 64 MiB (SMTPDIAG_MAX_MESSAGE)");
		r->skip = 1;
	}
	while (c > stop && (r->buf[c + SKIP_CONTEXT] == '\n' || r->buf[c + SKIP_CONTEXT] == '\r' ||
			    r->buf[c + SKIP_CONTEXT] == 'F'))
		c--;
	memmove(r->buf, r->buf + c, r->len - c);
	r->len -= c;
	r->off += c;
}

/* An mbox read piece by piece: memory stays flat whatever its size. A file
 * that ends before the size it had when opened changed while being read: the
 * message cut short is not handed out. */
static void stream(const input_walker *w, reader *r, size_t chunk)
{
	for (;;) {
		if (r->eof && r->size && r->off + r->len < r->size) {
			w->on_err(w->ctx, r->name, SHRANK);
			return;
		}
		reader_split(w, r);
		if (r->eof)
			return;
		if (r->len > HOLD_MAX)
			reader_skip(w, r);
		/* reading as much as is held keeps re-splitting a long message linear */
		size_t want = r->len > chunk ? r->len : chunk;
		if (r->len + want > HOLD_MAX + chunk)
			want = HOLD_MAX + chunk - r->len;
		if (reader_fill(r, want) < 0) {
			w->on_err(w->ctx, r->name, strerror(errno));
			return;
		}
	}
}

/* Does the buffer start, after white space, like JSON ('{' or '[')? ESP
 * webhook events come in large JSON Lines files. */
static int looks_json(const char *p, size_t n)
{
	size_t i = 0;

	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n'))
		i++;
	return i < n && (p[i] == '{' || p[i] == '[');
}

/* A JSON input handed out a piece at a time: what the reader holds, then the rest of the file. */
typedef struct in_src {
	reader *r;
	size_t given;   /* bytes of r->buf handed out */
	uint64_t total; /* bytes handed out */
	const char *why;
} in_src;

long input_src_read(void *src, char *buf, size_t cap)
{
	in_src *s = src;
	size_t n = s->r->len - s->given;
	ssize_t got;

	if (n) {
		n = n < cap ? n : cap;
		memcpy(buf, s->r->buf + s->given, n);
		s->given += n;
		s->total += n;
		return (long)n;
	}
	if (s->r->eof)
		got = 0;
	else
		do
			got = read(s->r->fd, buf, cap);
		while (got < 0 && errno == EINTR);
	if (got < 0)
		s->why = strerror(errno);
	else if (got == 0 && s->r->size && s->total < s->r->size)
		s->why = SHRANK;
	if (s->why)
		return -1;
	s->total += (size_t)got;
	return (long)got;
}

const char *input_src_error(const void *src)
{
	const in_src *s = src;

	return s->why ? s->why : "read error";
}

static void walk_json(const input_walker *w, reader *r)
{
	in_src s = { r, 0, 0, NULL };

	w->on_stream(w->ctx, r->name, &s);
}

/* A file of one message, read whole (it is at most SMTPDIAG_MAX_MESSAGE), or
 * a file of JSON events: streamed (on_stream), or read whole up to INPUT_MAX_EVENTS. */
static void read_whole(const input_walker *w, reader *r)
{
	int json = looks_json(r->buf, r->len);

	if (json && w->on_stream) {
		walk_json(w, r);
		return;
	}
	if (json && r->size > INPUT_MAX_EVENTS) {
		w->on_err(w->ctx, r->name, "events file larger than 1 GiB (INPUT_MAX_EVENTS): split it");
		return;
	}
	if (!json && r->size > SMTPDIAG_MAX_MESSAGE) {
		w->on_err(w->ctx, r->name, "message larger than 64 MiB (SMTPDIAG_MAX_MESSAGE)");
		return;
	}
	while (!r->eof && r->len < r->size)
		if (reader_fill(r, r->size - r->len) < 0) {
			w->on_err(w->ctx, r->name, strerror(errno));
			return;
		}
	if (r->len < r->size)
		w->on_err(w->ctx, r->name, SHRANK);
	else
		walk_buffer(w, r->name, r->buf, r->size);
}

/* A regular file open at fd (closed by the caller). Read, never mapped: a
 * mapping of a file that shrinks kills the reader with SIGBUS. */
static void walk_file(const input_walker *w, const char *path, int fd, size_t size)
{
	reader r = { path, fd, size, NULL, 0, 0, 0, 0, 0, 0 };

	if (size == 0) {
		w->on_err(w->ctx, path, "empty file");
		return;
	}
	if (reader_fill(&r, FILE_CHUNK) < 0) {
		w->on_err(w->ctx, path, strerror(errno));
	} else if (r.eof) { /* not a byte left */
		w->on_err(w->ctx, path, SHRANK);
	} else {
		r.eof = r.len >= size; /* the whole file: no read to see its end */
		if (smtpdiag_mbox_detect(r.buf, r.len))
			stream(w, &r, FILE_CHUNK);
		else
			read_whole(w, &r);
	}
	free(r.buf);
}

/* ---- directories ----
 * Directories are opened relative to their parent (openat), so a path is only
 * a name for messages; each is known by (device, inode) and read once per
 * input, which ends the loops that symbolic links can make. */

/* A directory's identity, in an open-addressing set of the ones already read. */
typedef struct dir_id {
	dev_t dev;
	ino_t ino;
	int used;
} dir_id;

/* The directories above the one being read, for naming a loop. */
typedef struct frame {
	dir_id id;
	size_t plen; /* its path is walk.path[0..plen) */
	const struct frame *up;
} frame;

/* Walking one argument. */
typedef struct walk {
	const input_walker *w;
	dir_id *seen;
	size_t nseen, cap;
	char path[PATH_LIMIT + 1];
	size_t plen;
} walk;

static size_t id_slot(const dir_id *set, size_t cap, dev_t dev, ino_t ino)
{
	size_t i = ((size_t)ino * 0x9e3779b97f4a7c15ull ^ (size_t)dev) & (cap - 1);

	while (set[i].used && (set[i].dev != dev || set[i].ino != ino))
		i = (i + 1) & (cap - 1);
	return i;
}

/* Add a directory: 1 added, 0 already there, -1 over MAX_DIRS or out of memory. */
static int seen_add(walk *k, dev_t dev, ino_t ino)
{
	size_t i;

	if (k->nseen * 2 >= k->cap) {
		size_t ncap = k->cap ? k->cap * 2 : 64;
		dir_id *n;
		if (k->nseen >= MAX_DIRS || !(n = calloc(ncap, sizeof(*n))))
			return -1;
		for (size_t j = 0; j < k->cap; j++)
			if (k->seen[j].used)
				n[id_slot(n, ncap, k->seen[j].dev, k->seen[j].ino)] = k->seen[j];
		free(k->seen);
		k->seen = n;
		k->cap = ncap;
	}
	i = id_slot(k->seen, k->cap, dev, ino);
	if (k->seen[i].used)
		return 0;
	k->seen[i] = (dir_id){ dev, ino, 1 };
	k->nseen++;
	return 1;
}

/* Why a directory is not read again: a loop names the directory it leads back to. */
static void report_seen(walk *k, const struct stat *sb, const frame *up)
{
	char why[PATH_LIMIT + 64];

	for (; up; up = up->up)
		if (up->id.dev == sb->st_dev && up->id.ino == sb->st_ino) {
			snprintf(why, sizeof(why), "directory loop: leads back to %.*s", (int)up->plen, k->path);
			k->w->on_err(k->w->ctx, k->path, why);
			return;
		}
	k->w->on_err(k->w->ctx, k->path, "directory already read through another link");
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in d, sorted, without hidden ones; *n of them (freed by the caller). */
static char **read_names(DIR *d, size_t *n)
{
	struct dirent *e;
	char **names = NULL;
	size_t cap = 0;

	*n = 0;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue; /* ., .., hidden files and Maildir's dot-folders are not inputs */
		if (*n == cap) {
			char **nn = realloc(names, sizeof(char *) * (cap = cap ? cap * 2 : 64));
			if (!nn)
				break;
			names = nn;
		}
		if (!(names[*n] = strdup(e->d_name)))
			break;
		(*n)++;
	}
	if (*n)
		qsort(names, *n, sizeof(char *), cmp_names);
	return names;
}

/* Maildir: messages live in cur/ and new/; tmp/ holds unfinished deliveries. */
static int maildir_tmp(int dfd, const char *name)
{
	struct stat sb;

	return !strcmp(name, "tmp") && fstatat(dfd, "cur", &sb, 0) == 0 && S_ISDIR(sb.st_mode);
}

static void walk_entry(walk *k, int dfd, const char *name, const frame *up, int depth);

/* Append "/name" to the path; 0, or -1 (reported) when it would pass PATH_LIMIT. */
static int path_push(walk *k, const char *name)
{
	size_t nl = strlen(name);

	if (k->plen + 1 + nl > PATH_LIMIT) {
		char *full = malloc(k->plen + nl + 2);
		if (full)
			snprintf(full, k->plen + nl + 2, "%.*s/%s", (int)k->plen, k->path, name);
		k->w->on_err(k->w->ctx, full ? full : k->path, "path longer than 4096 bytes; not read");
		free(full);
		return -1;
	}
	k->path[k->plen] = '/';
	memcpy(k->path + k->plen + 1, name, nl + 1);
	k->plen += 1 + nl;
	return 0;
}

/* The directory open at fd (taken over), whose path is k->path. */
static void walk_dir(walk *k, int fd, const struct stat *sb, const frame *up, int depth)
{
	frame here = { { sb->st_dev, sb->st_ino, 1 }, k->plen, up };
	DIR *d = fdopendir(fd);
	char **names;
	size_t n, plen = k->plen;

	if (!d) {
		k->w->on_err(k->w->ctx, k->path, strerror(errno));
		close(fd);
		return;
	}
	names = read_names(d, &n);
	for (size_t i = 0; i < n; i++) {
		if (!maildir_tmp(dirfd(d), names[i]) && path_push(k, names[i]) == 0) {
			walk_entry(k, dirfd(d), names[i], &here, depth + 1);
			k->plen = plen;
			k->path[plen] = '\0';
		}
		free(names[i]);
	}
	free(names);
	closedir(d);
}

/* A directory to enter: once, and not deeper than MAX_DEPTH. */
static void enter_dir(walk *k, int dfd, const char *name, const frame *up, int depth)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat sb;
	int added;

	if (fd < 0 || fstat(fd, &sb) < 0) {
		k->w->on_err(k->w->ctx, k->path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	if (depth >= MAX_DEPTH) {
		k->w->on_err(k->w->ctx, k->path, "directories nested deeper than 32 levels");
	} else if ((added = seen_add(k, sb.st_dev, sb.st_ino)) < 0) {
		k->w->on_err(k->w->ctx, k->path, "more than 65536 directories in one input (or out of memory); not read");
	} else if (!added) {
		report_seen(k, &sb, up);
	} else {
		walk_dir(k, fd, &sb, up, depth);
		return;
	}
	close(fd);
}

/* name, relative to dfd, whose path is k->path: a directory, a file or neither. */
static void walk_entry(walk *k, int dfd, const char *name, const frame *up, int depth)
{
	struct stat sb;
	int fd;

	if (fstatat(dfd, name, &sb, 0) < 0) {
		k->w->on_err(k->w->ctx, k->path, strerror(errno));
	} else if (S_ISDIR(sb.st_mode)) {
		enter_dir(k, dfd, name, up, depth);
	} else if (!S_ISREG(sb.st_mode)) {
		k->w->on_err(k->w->ctx, k->path, "not a regular file or directory");
	} else if ((fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0 ||
		   fstat(fd, &sb) < 0) {
		k->w->on_err(k->w->ctx, k->path, strerror(errno));
		if (fd >= 0)
			close(fd);
	} else {
		if (S_ISREG(sb.st_mode))
			walk_file(k->w, k->path, fd, (size_t)sb.st_size);
		else
			k->w->on_err(k->w->ctx, k->path, "not a regular file or directory");
		close(fd);
	}
}

static void walk_path(const input_walker *w, const char *path)
{
	walk *k;
	size_t n = strlen(path);

	if (n > PATH_LIMIT) {
		w->on_err(w->ctx, path, "path longer than 4096 bytes; not read");
		return;
	}
	if (!(k = calloc(1, sizeof(*k)))) {
		w->on_err(w->ctx, path, strerror(ENOMEM));
		return;
	}
	k->w = w;
	memcpy(k->path, path, n + 1);
	k->plen = n;
	walk_entry(k, AT_FDCWD, path, NULL, 0);
	free(k->seen);
	free(k);
}

static void walk_stdin(const input_walker *w)
{
	reader r = { "-", 0, 0, NULL, 0, 0, 0, 0, 0, 0 };
	int rc;

	/* the first chunk tells an mbox from a single message */
	while ((rc = reader_fill(&r, STDIN_CHUNK)) == 0 && !r.eof && r.len < 5)
		;
	if (rc < 0) {
		w->on_err(w->ctx, "-", strerror(errno));
	} else if (r.len == 0) {
		w->on_err(w->ctx, "-", "empty input");
	} else if (smtpdiag_mbox_detect(r.buf, r.len)) {
		stream(w, &r, STDIN_CHUNK);
	} else if (w->on_stream && looks_json(r.buf, r.len)) {
		walk_json(w, &r);
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
		walk_path(w, path);
	else
		walk_stdin(w);
}
