/* tally.h - counts for --summary: inputs, results, and per-key counters. */
#ifndef SMTPDIAG_TALLY_H
#define SMTPDIAG_TALLY_H

#include <stdio.h>

typedef struct counter {
	char **keys;
	unsigned long *counts;
	size_t n, cap;
} counter;

typedef struct tally {
	unsigned long inputs, bounces, nonbounces, errors, results;
	unsigned long events, ev_decided, ev_ignored, ev_errors; /* ESP events */
	unsigned long over_rcpt; /* emails and events over SMTPDIAG_MAX_RECIPIENTS (among the errors) */
	counter reason, domain, advice;
} tally;

void counter_add(counter *c, const char *key);
void counter_print(const counter *c, const char *title, FILE *f);
void counter_free(counter *c);

void tally_init(tally *t);
void tally_fact(tally *t, const char *reason, const char *domain, const char *advice);
void tally_print(const tally *t, FILE *f);
void tally_free(tally *t);

#endif
