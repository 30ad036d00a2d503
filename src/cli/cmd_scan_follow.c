/* cmd_scan_follow.c - scan --follow: keep reading logs as they grow, like tail -F.
 *
 * Each path has a queue of open files, oldest first: the one being read, the
 * files renamed away before it was done, and last the file the path names. A
 * file is opened as soon as it is seen at the path (held open, so that a second
 * rotation cannot take it away) but read only once the files before it are
 * done, and from its start, so lines keep their order and none is dropped.
 *
 * Rotation by rename: a file the path no longer names (renamed or deleted) is
 * read until it has not grown for SCAN_ROTATE_GRACE_MS after it was seen gone,
 * since the daemon writes to it until it reopens its log.
 * Truncation (copytruncate): the file at the path shrank below our offset, or
 * its bytes before our offset changed (truncated and refilled). The lines
 * between our offset and the end of the copy are read from the copy (a file
 * beside it whose name starts with the log's and that holds our last bytes at
 * our offset), then the file is read again from its start.
 * inotify wakes the loop when the files change or a name is made in their
 * directories; without it, or besides it, files are looked at every
 * SCAN_POLL_MS.
 * Each round tells the follower's health to /metrics (logmetrics.h): the files
 * held, the bytes not read yet, the rotations seen. serve --follow and scan
 * --follow --metrics-listen run it on a thread beside the HTTP server. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cmd_scan.h"
#include "../httpd/httpd.h"

#define SCAN_POLL_MS 250            /* files are looked at at least this often */
#define SCAN_ROTATE_GRACE_MS 2000   /* a file renamed away is read until quiet this long */
#define SCAN_FOLLOW_FILES 8         /* files held open per path (rotations not read yet) */
#define SCAN_COPY_NAMES 256         /* directory entries looked at to find a copytruncate copy */
#define SCAN_INOTIFY_BUF 4096       /* bytes of inotify events read at a time */
#define SCAN_FILE_EVENTS (IN_MODIFY | IN_MOVE_SELF | IN_DELETE_SELF | IN_ATTRIB)
#define SCAN_DIR_EVENTS (IN_CREATE | IN_MOVED_TO)

typedef struct held {
	scan_src src;
	int wd;            /* inotify watch on the file, -1 when none */
	off_t seen;        /* its size when last looked at */
	int64_t changed;   /* ms: when it was opened or last seen to change size */
	int64_t gone;      /* ms: when the path was seen to name another file or none; 0 before */
} held;

typedef struct followed {
	const char *path;
	char dir[PATH_MAX];
	const char *base;  /* the file's name in dir */
	held *f[SCAN_FOLLOW_FILES]; /* oldest (being read) first */
	int n;
	int bad;           /* the file bad_dev/bad_ino failed: not opened again */
	dev_t bad_dev;
	ino_t bad_ino;
	int full_said;
	int had;           /* a file was held for the path: the next one is a rotation */
} followed;

typedef struct follower {
	worker *w;
	followed *p;
	int n;
	int ifd;           /* inotify, -1 when not available */
} follower;

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int same_file(const struct stat *st, const scan_src *s)
{
	return st->st_ino == s->ino && st->st_dev == s->dev;
}

/* ---- inotify: only wakes the loop; what happened is read from stat ---- */

static int watch_fd(follower *fl, int fd)
{
	char proc[64];

	if (fl->ifd < 0)
		return -1;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd); /* this very file, not the path */
	return inotify_add_watch(fl->ifd, proc, SCAN_FILE_EVENTS);
}

static void unwatch(follower *fl, int wd)
{
	if (wd < 0)
		return;
	for (int i = 0; i < fl->n; i++)
		for (int k = 0; k < fl->p[i].n; k++)
			if (fl->p[i].f[k]->wd == wd)
				return; /* the same file is held for another path too */
	inotify_rm_watch(fl->ifd, wd);
}

static void wait_for_change(follower *fl)
{
	char ev[SCAN_INOTIFY_BUF] __attribute__((aligned(8)));
	struct pollfd pfd = { fl->ifd, POLLIN, 0 };
	struct timespec ts = { 0, (long)SCAN_POLL_MS * 1000000L };

	if (fl->ifd < 0) {
		nanosleep(&ts, NULL); /* a signal cuts it short */
		return;
	}
	if (poll(&pfd, 1, SCAN_POLL_MS) > 0)
		while (read(fl->ifd, ev, sizeof(ev)) > 0)
			;
}

/* ---- the files of a path ---- */

static void drop_first(follower *fl, followed *p)
{
	held *h = p->f[0];
	int wd = h->wd;

	scan_src_close(&h->src);
	free(h);
	p->n--;
	memmove(p->f, p->f + 1, (size_t)p->n * sizeof(p->f[0]));
	unwatch(fl, wd);
}

/* Open the file the path names now, behind the ones held. */
static void hold_new(follower *fl, followed *p, int64_t now)
{
	held *h;

	if (p->n == SCAN_FOLLOW_FILES) {
		if (!p->full_said)
			cli_err("scan: %s: rotated %d times before the oldest file was read; waiting",
				p->path, SCAN_FOLLOW_FILES);
		p->full_said = 1;
		return;
	}
	if (!(h = calloc(1, sizeof(*h))))
		return;
	if (scan_open_input(fl->w, &h->src, p->path, 1) < 0) {
		free(h);
		return;
	}
	if (p->n && h->src.ino == p->f[p->n - 1]->src.ino && h->src.dev == p->f[p->n - 1]->src.dev) {
		scan_src_close(&h->src); /* renamed back between stat and open */
		free(h);
		return;
	}
	h->wd = watch_fd(fl, h->src.fd);
	h->seen = h->src.size;
	h->changed = now;
	p->f[p->n++] = h;
	p->full_said = 0;
	if (p->had)
		logmetrics_rotation(LM_ROTATE_RENAME);
	p->had = 1;
}

/* Read the rest of the file from the copy copytruncate made: the file beside it,
 * named like it, that holds our last bytes just before our offset. Returns an
 * open descriptor at our offset, or -1. */
static int open_copy(const followed *p, const scan_src *s)
{
	DIR *d = opendir(p->dir);
	struct dirent *e;
	size_t blen = strlen(p->base);
	int fd = -1;

	for (int looked = 0; d && fd < 0 && looked < SCAN_COPY_NAMES && (e = readdir(d)); looked++) {
		unsigned char at[SCAN_TAIL];
		struct stat st;
		if (strncmp(e->d_name, p->base, blen) || !strchr(".-_", e->d_name[blen]) || !e->d_name[blen])
			continue;
		if ((fd = openat(dirfd(d), e->d_name, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || same_file(&st, s) || st.st_size < s->off ||
		    pread(fd, at, s->ntail, s->off - (off_t)s->ntail) != (ssize_t)s->ntail ||
		    memcmp(at, s->tail, s->ntail) || lseek(fd, s->off, SEEK_SET) != s->off) {
			close(fd);
			fd = -1;
		}
	}
	if (d)
		closedir(d);
	return fd;
}

/* The file at the path was truncated or rewritten: take what the copy kept
 * beyond our offset, then read the file again from its start. */
static void reread(follower *fl, followed *p, held *h)
{
	int fd = h->src.ntail && (off_t)h->src.ntail <= h->src.off ? open_copy(p, &h->src) : -1;

	logmetrics_rotation(LM_ROTATE_TRUNCATE);
	if (fd >= 0) {
		int own = h->src.fd;
		h->src.fd = fd;
		(void)scan_drain(fl->w, &h->src, 1);
		h->src.fd = own;
		close(fd);
	}
	scan_src_finish(&h->src);
	scan_src_rewind(&h->src);
}

/* What does the path name now? Another file: hold it, the last one is gone. */
static void look_at_path(follower *fl, followed *p, int64_t now)
{
	struct stat st;
	held *last = p->n ? p->f[p->n - 1] : NULL;

	if (stat(p->path, &st) < 0) {
		if (last && !last->gone)
			last->gone = now;
		return;
	}
	if (last && same_file(&st, &last->src)) {
		last->gone = 0; /* back, or never gone */
		if (p->n == 1 && scan_src_rewritten(&last->src, st.st_size)) {
			reread(fl, p, last);
			last->seen = st.st_size;
			last->changed = now;
		}
		return;
	}
	if (last && !last->gone)
		last->gone = now;
	if (!p->bad || st.st_dev != p->bad_dev || st.st_ino != p->bad_ino)
		hold_new(fl, p, now);
}

/* Note when each held file last changed size. */
static void look_at_files(followed *p, int64_t now)
{
	struct stat st;

	for (int i = 0; i < p->n; i++)
		if (fstat(p->f[i]->src.fd, &st) == 0 && st.st_size != p->f[i]->seen) {
			p->f[i]->seen = st.st_size;
			p->f[i]->changed = now;
		}
}

/* Gone, quiet for the grace period, and not grown while it was read last. */
static int done_with(held *h, int64_t now)
{
	int64_t since = h->changed > h->gone ? h->changed : h->gone;
	struct stat st;

	if (!h->gone || now - since < SCAN_ROTATE_GRACE_MS)
		return 0;
	if (fstat(h->src.fd, &st) == 0 && st.st_size != h->seen) {
		h->seen = st.st_size;
		h->changed = now;
		return 0;
	}
	return 1;
}

/* Read the oldest file; when it is gone and quiet, finish it and go on with the next. */
static void read_files(follower *fl, followed *p, int64_t now)
{
	while (p->n && !scan_stop) {
		held *h = p->f[0];
		if (scan_drain(fl->w, &h->src, 1) < 0) {
			p->bad = 1;
			p->bad_dev = h->src.dev;
			p->bad_ino = h->src.ino;
		} else if (!done_with(h, now)) {
			return;
		} else {
			scan_src_finish(&h->src);
		}
		drop_first(fl, p);
	}
}

static void follow_path(follower *fl, followed *p)
{
	int64_t now = now_ms();

	if (!strcmp(p->path, "-")) {
		if (p->n)
			scan_drain(fl->w, &p->f[0]->src, 1);
		return;
	}
	look_at_files(p, now);
	look_at_path(fl, p, now);
	read_files(fl, p, now);
}

/* ---- start and stop ---- */

static void split_path(followed *p)
{
	const char *slash = strrchr(p->path, '/');
	size_t n = slash ? (size_t)(slash - p->path) : 1;

	if (!slash || n >= sizeof(p->dir)) {
		memcpy(p->dir, ".", 2);
		p->base = slash ? slash + 1 : p->path;
		return;
	}
	if (n == 0)
		n = 1; /* "/file" */
	memcpy(p->dir, p->path, n);
	p->dir[n] = 0;
	p->base = slash + 1;
}

static void follow_start(follower *fl, followed *p, const char *path)
{
	held *h = calloc(1, sizeof(*h));

	p->path = path;
	split_path(p);
	if (fl->ifd >= 0 && strcmp(path, "-"))
		(void)inotify_add_watch(fl->ifd, p->dir, SCAN_DIR_EVENTS); /* else: polling */
	if (!h)
		return;
	if (scan_open_input(fl->w, &h->src, path, 0) < 0) {
		free(h);
		return;
	}
	h->wd = strcmp(path, "-") ? watch_fd(fl, h->src.fd) : -1;
	h->seen = h->src.size;
	h->changed = now_ms();
	p->f[p->n++] = h;
	p->had = 1;
}

/* The files held, and the bytes written to them that are not read yet. */
static void tell_health(const follower *fl)
{
	long files = 0;
	long long behind = 0;
	struct stat st;

	for (int i = 0; i < fl->n; i++)
		for (int k = 0; k < fl->p[i].n; k++) {
			const scan_src *s = &fl->p[i].f[k]->src;
			files++;
			if (s->regular && fstat(s->fd, &st) == 0 && st.st_size > s->off)
				behind += (long long)(st.st_size - s->off);
		}
	logmetrics_files(files, behind);
}

int scan_follow(worker *w, char **paths, int n)
{
	follower fl = { w, calloc((size_t)n, sizeof(followed)), n, -1 };

	if (!fl.p)
		return -1;
	fl.ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	for (int i = 0; i < n; i++)
		follow_start(&fl, &fl.p[i], paths[i]);
	while (!scan_stop) {
		for (int i = 0; i < n && !scan_stop; i++)
			follow_path(&fl, &fl.p[i]);
		scan_flush(w);
		tell_health(&fl);
		scan_tell_incidents(w);
		wait_for_change(&fl);
	}
	for (int i = 0; i < n; i++)
		while (fl.p[i].n)
			drop_first(&fl, &fl.p[i]);
	if (fl.ifd >= 0)
		close(fl.ifd);
	free(fl.p);
	return 0;
}

/* ---- beside the HTTP server ---- */

static void *live_run(void *arg)
{
	scan_live *l = arg;

	l->rc = scan_follow(l->w, l->paths, l->n);
	return NULL;
}

int scan_live_start(void *arg)
{
	scan_live *l = arg;

	scan_stop = 0;
	if (pthread_create(&l->th, NULL, live_run, l) != 0)
		return -1;
	l->started = 1;
	return 0;
}

void scan_live_stop(void *arg)
{
	scan_live *l = arg;

	scan_stop = 1;
	if (l->started)
		pthread_join(l->th, NULL);
	l->started = 0;
}
