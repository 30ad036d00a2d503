/* mbox.h - split an mbox (From_ lines) into messages, zero-copy. */
#ifndef SD_MBOX_H
#define SD_MBOX_H

#include "core/util.h"

/* Does this buffer start like an mbox ("From " line)? */
int sd_mbox_detect(const char *p, size_t n);

typedef struct sd_mbox_iter {
	const char *p;
	size_t n, pos;
	unsigned long index; /* 1-based number of the last message returned */
} sd_mbox_iter;

void sd_mbox_init(sd_mbox_iter *it, const char *p, size_t n);
/* Next message, without its From_ line. Messages still hold ">From " quoting;
 * the decoder unquotes where it reads body lines. Returns 0 at the end. */
int sd_mbox_next(sd_mbox_iter *it, sd_str *msg);

/* Undo mboxrd quoting: a line starting with one or more '>' followed by "From " loses
 * one '>'. Returns msg itself when nothing is quoted (no copy), else an arena copy
 * (SD_NULLSTR on allocation failure). */
sd_str sd_mbox_unquote(sd_arena *a, sd_str msg);

#endif
