/* chunks.h - a smtpdiag_read_fn over a buffer, a few bytes at a time, for the
 * tests and fuzz targets that check that reading in pieces changes nothing. */
#ifndef SMTPDIAG_TEST_CHUNKS_H
#define SMTPDIAG_TEST_CHUNKS_H

#include <stddef.h>
#include <string.h>

typedef struct chunks {
	const char *p;
	size_t n, off, step;
} chunks;

/* Up to step bytes (and cap) of what is left; 0 at the end. */
static inline long chunks_read(void *ctx, char *buf, size_t cap)
{
	chunks *s = ctx;
	size_t k = s->n - s->off;

	k = k < s->step ? k : s->step;
	k = k < cap ? k : cap;
	memcpy(buf, s->p + s->off, k);
	s->off += k;
	return (long)k;
}

#endif
