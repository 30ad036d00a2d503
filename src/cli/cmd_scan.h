/* cmd_scan.h - the parts of `smtpdiag scan`: reading logs (cmd_scan_input.c)
 * and the command (cmd_scan.c). --summary counts with the library's
 * smtpdiag_summary. */
#ifndef SMTPDIAG_CMD_SCAN_H
#define SMTPDIAG_CMD_SCAN_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <zlib.h>

#include "smtpdiag.h"

#define SCAN_READ_CHUNK ((size_t)1 << 20)   /* bytes asked of read() at a time */
#define SCAN_GZ_CHUNK ((size_t)256 << 10)   /* compressed bytes read at a time */
#define SCAN_MAX_LINE SMTPDIAG_SCAN_MAX_LINE /* longer lines are skipped and counted */
#define SCAN_TAIL 64                        /* --follow: bytes compared to see a rewrite */
#define SCAN_GZ_MEMBER_MIN ((size_t)1 << 20) /* first size of a gzip member's held output */
#define SCAN_GZ_MEMBER_MAX ((size_t)64 << 20) /* a gzip member's output held until its trailer checks */

/* ---- input: one log file, plain or gzip ---- */

typedef void (*scan_line_fn)(void *ctx, const char *p, size_t n);

typedef struct scan_src {
	const char *path;     /* "-" for standard input */
	int fd;
	int gz;               /* gzip stream (1f 8b), inflated as it is read */
	z_stream zs;
	unsigned char *zin;   /* raw bytes read ahead (gzip input, or the first read) */
	size_t zlen, zpos;
	int zend;             /* inflate reached the end of the data */
	char *member;         /* a gzip member's output, held until its CRC and length check */
	size_t mlen, mpos, mcap;  /* bytes inflated, handed over, room */
	int mchecked;         /* the member's trailer checked: its output may go */
	int munchecked;       /* the member outgrew SCAN_GZ_MEMBER_MAX: its output goes unchecked */
	int said_unchecked;   /* the caller told of it */
	int regular;          /* a regular file (for progress and --follow) */
	dev_t dev;
	ino_t ino;
	off_t off;            /* raw bytes read from fd (the offset in the file) */
	off_t end;            /* a piece: the offset where it ends; 0 for the whole file */
	unsigned char tail[SCAN_TAIL];  /* the last raw bytes read, to see a file rewritten */
	size_t ntail;
	off_t size;           /* size when opened (regular files) */
	int64_t mtime;
	char err[160];        /* why reading failed, "" when it did not */
	int errnum;           /* its errno, 0 when none */
	/* lines */
	char *buf;
	size_t len, cap;
	int skipping;         /* inside a line over SCAN_MAX_LINE */
	scan_line_fn on_line;
	void (*on_toolong)(void *ctx);
	void *ctx;
} scan_src;

/* Open path ("-": standard input). Returns 0, or -1 with src->err set.
 * gzip: a member's lines are handed over only once its trailer (CRC-32 and
 * length) checks; a corrupt member gives an error and none of its lines. A
 * member whose output exceeds SCAN_GZ_MEMBER_MAX cannot be held: its lines go
 * before the check and src->munchecked is set (the caller says so). */
int scan_src_open(scan_src *src, const char *path);
/* Open the piece [start, end) of a plain regular file that scan_split cut
 * (start 0, end 0: the whole input, as scan_src_open). */
int scan_src_open_piece(scan_src *src, const char *path, off_t start, off_t end);
/* Cut a plain (not gzip) regular file of at least 2 * min_piece bytes into at
 * most n pieces of at least min_piece bytes each, at line ends, so that every
 * line is in one piece whole: cuts[0..k] get the k + 1 boundaries (cuts[0] 0,
 * cuts[k] the size; cuts has room for n + 1). Returns k, the number of pieces;
 * 1 (the input whole, cuts unset past cuts[1]) for anything else. */
int scan_split(const char *path, int n, off_t min_piece, off_t *cuts);
/* Read what is there and hand over every complete line. Returns 1 while more
 * may come, 0 at the end of the data, -1 on a read error (src->err). */
int scan_src_pump(scan_src *src);
/* Hand over the last line when it has no line end. */
void scan_src_finish(scan_src *src);
/* --follow: has the file been truncated or rewritten under us (its bytes
 * before our offset differ from those we read)? */
int scan_src_rewritten(scan_src *src, off_t size);
/* Start over from byte 0 (the file was truncated), dropping a partial line. */
void scan_src_rewind(scan_src *src);
void scan_src_close(scan_src *src);

/* ---- the command's reading (cmd_scan.c), used by --follow ---- */

typedef struct worker worker;  /* one thread's scanner, output and counts */

extern atomic_int scan_stop;  /* SIGINT, SIGTERM or SIGHUP came, or the server beside it stops */

/* Open an input and count it. quiet (--follow looking again): a failure is
 * neither said nor counted. Returns 0 or -1. */
int scan_open_input(worker *w, scan_src *src, const char *path, int quiet);
/* Read to the end of what is there. Returns 0, or -1 after a read error
 * (said and counted as a failed input). */
int scan_drain(worker *w, scan_src *src, int single);
/* Write out the records gathered so far. */
void scan_flush(worker *w);
/* With /metrics: the count of incidents open now (their last record within
 * SMTPDIAG_INCIDENT_OPEN_SECONDS of the clock) goes to the gauge. */
void scan_tell_incidents(const worker *w);

/* ---- --follow (cmd_scan_follow.c) ---- */

/* Read the paths, then keep reading them as they grow until scan_stop.
 * Returns 0, or -1 when out of memory. */
int scan_follow(worker *w, char **paths, int n);

/* ---- following beside the HTTP server: serve --follow, scan --follow --metrics-listen ---- */

typedef struct scan_live {
	worker *w;
	char **paths;
	int n;
	pthread_t th;
	int started;
	int rc;          /* scan_follow's */
} scan_live;

/* httpd_config's side_start and side_stop (ctx: a scan_live): scan_follow on a
 * thread of its own until scan_live_stop. Returns 0, or -1 when no thread. */
int scan_live_start(void *live);
void scan_live_stop(void *live);
/* serve --follow: a worker whose records are only counted into /metrics, NULL
 * when out of memory. */
worker *scan_counter_new(const smtpdiag_rules *rules);
void scan_counter_free(worker *w);

#endif
