/* conformance.h - what tests/conformance.c and tests/conformance_extra.c share. */
#ifndef SD_TEST_CONFORMANCE_H
#define SD_TEST_CONFORMANCE_H

#include "smtpdiag.h"

#include <stddef.h>

#define MAX_FILES 4096
#define MAX_ROWS 64 /* verdicts kept per file */
#define FIELD 256

typedef struct row {
	char recipient[FIELD], status[16], replycode[8], reason[32], feedbacktype[32], by[32], action[16];
	char command[16];
	int hardbounce;
	int words; /* a word family decided (a "family:" step in the trail) */
	int provider; /* the remote host's vocabulary decided first (an "rhost:" step): provider-codes */
	int registry; /* the registry's reading decided (a "(registry" mark in the trail) */
} row;

typedef struct result {
	row rows[MAX_ROWS];
	int n, err, used[MAX_ROWS];
} result;

extern int verbose;

char *slurp(const char *path, size_t *len);
int list_dir(const char *dir, char **names, int max);
void copy(char *dst, const char *src, size_t cap);
int split_tabs(char *line, char **f, int max);
/* Decode one file (an mbox message by message) into res. */
void decode_file(smtpdiag_decoder *d, const char *path, const char *buf, size_t len, result *res);

/* Score decode on extra/ (expected.tsv): prints the figures; returns the
 * number of files read, or -1 when the folder is not there. */
int run_extra(const char *dir);

#endif
