/* vendor_words.h - the words a text must hold for a vendor row to match it.
 *
 * codes.c matches a row's pieces in order, case folded, a run of white space
 * matching any other and a folded continuation skipped only at white space, and
 * requires the first SD_VENDOR_MATCH_CAP characters of the pieces. Every run of
 * non-blank characters in that required part therefore stands in a matching
 * text as written, case aside. tools/vendorgen puts these words of every row in
 * one Vectorscan database at build time; codes.c scans a text once with it and
 * scores only the rows whose words are all there. Shared by both, so the words
 * the database holds are the words the matcher requires. */
#ifndef SD_KB_VENDOR_WORDS_H
#define SD_KB_VENDOR_WORDS_H

#include "kb/codes.h"

#include <string.h>

/* Shorter words are not worth a pattern: they stand in almost any text. */
#define SD_VWORD_MIN 3
/* Words kept per row: its longest ones (the rarest, as a rule). */
#define SD_VWORD_PER_ROW 2
/* Distinct words of all rows (vendorgen fails beyond it). */
#define SD_VWORDS_MAX 4096
/* Scratch spaces kept for reuse: callers scanning at the same time (more
 * allocate their own and free it after). */
#define SD_VWORD_SCRATCH 16
/* Vectorscan flags of every word: a caseless literal, reported once. */
#define SD_VWORD_FLAGS (HS_FLAG_CASELESS | HS_FLAG_SINGLEMATCH)

/* Made by tools/vendorgen: the sd_vwords_n words (ASCII lowercased), the
 * words of row r at sd_vrow_words[sd_vrow_start[r] .. sd_vrow_start[r + 1]),
 * and the serialized database whose pattern id is the word's index. */
extern const size_t sd_vwords_nrows;
extern const unsigned sd_vwords_n;
extern const char *const sd_vwords[];
extern const unsigned short sd_vrow_start[];
extern const unsigned short sd_vrow_words[];
extern const size_t sd_vwords_dblen;
extern const unsigned char sd_vwords_db[];

static inline int sd_vword_blank(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

/* The required words of pieces (NULL-terminated), at least SD_VWORD_MIN
 * bytes long, in order: at most max of them (start and length) into at and len;
 * returns how many. */
static inline size_t sd_vendor_words(const char *const *pieces, const char **at, size_t *len, size_t max)
{
	size_t budget = SD_VENDOR_MATCH_CAP, n = 0;

	for (; pieces && *pieces && budget; pieces++) {
		const char *p = *pieces;
		size_t pn = strlen(p), need = budget < pn ? budget : pn, i = 0;
		while (i < need) {
			size_t b;
			while (i < need && sd_vword_blank((unsigned char)p[i]))
				i++;
			for (b = i; i < need && !sd_vword_blank((unsigned char)p[i]); i++)
				;
			if (i - b >= SD_VWORD_MIN && n < max) {
				at[n] = p + b;
				len[n++] = i - b;
			}
		}
		budget -= need;
	}
	return n;
}

#endif
