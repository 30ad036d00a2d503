/* simple.h - the phrase table of the reader of human-readable bounces. */
#ifndef SD_FORMATS_SIMPLE_H
#define SD_FORMATS_SIMPLE_H

#include <stddef.h>

enum sd_simple_kind { SP_FAIL, SP_WARN, SP_DELAY, SP_END, SP_SUBJ, SP_AUTO, SP_CHAL };

typedef struct sd_simple_phrase {
	const char *text;
	unsigned char kind;
} sd_simple_phrase;

extern const sd_simple_phrase sd_simple_phrases[];
extern const size_t sd_simple_nphrases;

#endif
