/* events_split.h - the byte ranges of the values in an events input, found
 * without building them: each top-level value of a body or of JSON Lines, and
 * each element of a top-level array on its own, so that jansson only ever
 * holds one event (or one body) in memory, whatever the size of the input.
 *
 * The splitter follows the JSON grammar at the level of tokens (strings,
 * brackets, commas, colons; numbers and literals are left to jansson), so a
 * broken value is seen where jansson would see it. After a broken value,
 * reading goes on at the first line after its start that starts with '{' or
 * '[' (as JSON Lines are written). A value longer than SD_EV_MAX_VALUE is
 * reported and skipped, not held.
 *
 * Input is given piece by piece: sd_evsplit_scan() reads what it is given
 * and returns how many bytes from the start of the buffer are no longer needed;
 * the caller drops them and gives the rest again with more after it. */
#ifndef SD_EVENTS_SPLIT_H
#define SD_EVENTS_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "core/sd_limits.h"

#define SD_EV_MAX_VALUE SD_MAX_MESSAGE /* bytes of one body, or one element of a top-level array */
#define SD_EV_MAX_NEST 512             /* arrays and objects nested in one value */

/* Where a value starts, and whether it is an element of a top-level array
 * (any JSON value) or a top-level value (an object or an array). */
typedef struct sd_evat {
	long line;   /* 1-based */
	long col;    /* bytes before it on its line */
	int elem;
} sd_evat;

typedef struct sd_evsplit_cb {
	/* A whole value p[0..n). */
	void (*value)(void *arg, const char *p, size_t n, const sd_evat *at);
	/* A broken value: p[0..n) its bytes up to and including the one that
	 * breaks it (n is 0 when they were not kept: a value over the limit), or
	 * why: the splitter's own words, at line/col (1-based column). */
	void (*broken)(void *arg, const char *p, size_t n, const sd_evat *at, long line, long col,
		       const char *why);
	void *arg;
} sd_evsplit_cb;

typedef struct sd_evsplit {
	uint64_t base;          /* input offset of buf[0] */
	uint64_t pos;           /* input offset of the next byte to read */
	int mode;               /* between values, in an array, in a value, looking for a line */
	int astate;             /* in a top-level array: what may come next */
	/* the value being read */
	uint64_t vstart;
	sd_evat at;
	int gstate;             /* what the grammar takes next */
	int in_str, esc, in_tok, key;
	unsigned depth;
	uint64_t kinds[SD_EV_MAX_NEST / 64]; /* bit set: that level is an object */
	int skip;               /* over SD_EV_MAX_VALUE: read to its end, not kept */
	uint64_t resume;        /* first line after vstart that starts with '{' or '[', 0 none */
	long resume_line;
	/* lines */
	long line;
	uint64_t line_start;    /* input offset of the line's first byte */
	sd_evat arr;            /* where the top-level array being read starts */
} sd_evsplit;

void sd_evsplit_init(sd_evsplit *s);
/* Read buf[0..len), which starts at input offset s->base and holds every byte
 * not yet dropped. eof: nothing follows. Returns the bytes at the start of buf
 * that are no longer needed (s->base is moved past them). */
size_t sd_evsplit_scan(sd_evsplit *s, const char *buf, size_t len, int eof, const sd_evsplit_cb *cb);

#endif
