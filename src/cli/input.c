/* input.c - files, directories (recursively), Maildirs, mbox files and stdin.
 *
 * Regular files are mapped read-only; an mbox is split in place and the pages
 * already decoded are released, so memory stays flat however large it is. An
 * mbox on standard input is read 1 MiB at a time and decoded as it streams.
 * Inputs are recognised by content: a file starting "From " is an mbox. */
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
#include "../lib/mbox.h"
#include "../lib/sd_limits.h"

#define MAX_DEPTH 32
#define STDIN_CHUNK ((size_t)1 << 20) /* read standard input 1 MiB at a time */
#define RELEASE_EVERY ((size_t)16 << 20)

static void walk_mbox(const input_walker *w, const char *path, const char *p, size_t n)
{
	sd_mbox_iter it;
	sd_str m;
	char origin[4200];
	size_t released = 0;
	long page = sysconf(_SC_PAGESIZE);

	sd_mbox_init(&it, p, n);
	while (sd_mbox_next(&it, &m)) {
		snprintf(origin, sizeof(origin), "%s:%lu", path, it.index);
		if (m.n == 0)
			w->on_err(w->ctx, origin, "empty message in mbox");
		else
			w->on_msg(w->ctx, origin, m.p, m.n);
		/* give back what is behind us */
		size_t done = (size_t)(m.p - p);
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
	if (sd_mbox_detect(p, n))
		walk_mbox(w, path, p, n);
	else
		w->on_msg(w->ctx, path, p, n);
}

static void walk_file(const input_walker *w, const char *path, const struct stat *sb)
{
	int fd;
	void *map;

	if (sb->st_size == 0) {
		w->on_err(w->ctx, path, "empty file");
		return;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		w->on_err(w->ctx, path, strerror(errno));
		return;
	}
	map = mmap(NULL, (size_t)sb->st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		w->on_err(w->ctx, path, strerror(errno));
		return;
	}
	madvise(map, (size_t)sb->st_size, MADV_SEQUENTIAL);
	walk_buffer(w, path, map, (size_t)sb->st_size);
	munmap(map, (size_t)sb->st_size);
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

/* An mbox on standard input, in bounded memory: decode every message whose end
 * has been seen, keep the last (maybe incomplete) one, read on. */
static void stream_mbox(const input_walker *w, char **buf, size_t *len, size_t *cap, int eof)
{
	unsigned long base = 0;
	char origin[64];

	for (;;) {
		sd_mbox_iter it;
		sd_str m;
		size_t keep = 0, at = 0;
		int more = !eof;

		sd_mbox_init(&it, *buf, *len);
		while ((at = it.pos, sd_mbox_next(&it, &m))) {
			if (more && it.pos >= *len) {
				keep = at; /* the last message may go on in the next read */
				break;
			}
			snprintf(origin, sizeof(origin), "-:%lu", base + it.index);
			if (m.n == 0)
				w->on_err(w->ctx, origin, "empty message in mbox");
			else
				w->on_msg(w->ctx, origin, m.p, m.n);
			keep = *len;
		}
		if (!more)
			return;
		base += it.index ? it.index - (keep < *len) : 0;
		memmove(*buf, *buf + keep, *len - keep);
		*len -= keep;
		if (*len > SD_MAX_MESSAGE + (size_t)(1 << 20)) {
			w->on_err(w->ctx, "-", "an mbox message on standard input is larger than 64 MiB; stopped reading");
			return;
		}
		ssize_t r = fill(0, buf, len, cap, STDIN_CHUNK);
		if (r < 0) {
			w->on_err(w->ctx, "-", strerror(errno));
			return;
		}
		eof = r == 0;
	}
}

static void walk_stdin(const input_walker *w)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	ssize_t r;

	/* the first chunk tells an mbox from a single message */
	while ((r = fill(0, &buf, &len, &cap, STDIN_CHUNK)) > 0 && len < 5)
		;
	if (r < 0) {
		w->on_err(w->ctx, "-", strerror(errno));
	} else if (len == 0) {
		w->on_err(w->ctx, "-", "empty input");
	} else if (sd_mbox_detect(buf, len)) {
		stream_mbox(w, &buf, &len, &cap, r == 0);
	} else {
		while (r > 0 && len <= SD_MAX_MESSAGE)
			r = fill(0, &buf, &len, &cap, STDIN_CHUNK);
		if (r < 0)
			w->on_err(w->ctx, "-", strerror(errno));
		else if (len > SD_MAX_MESSAGE)
			w->on_err(w->ctx, "-", "message on standard input larger than 64 MiB (SD_MAX_MESSAGE)");
		else
			w->on_msg(w->ctx, "-", buf, len);
	}
	free(buf);
}

void input_walk(const input_walker *w, const char *path)
{
	if (strcmp(path, "-"))
		walk_path(w, path, 0);
	else
		walk_stdin(w);
}
