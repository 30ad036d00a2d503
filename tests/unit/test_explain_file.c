/* test_explain_file.c - explain --file and decode give one verdict for a bounce.
 *
 * Every file under tests/fixtures and under the shared corpus
 * (../shared/corpus, read in place; skipped with a note when absent) that
 * decode reads as a bounce goes through smtpdiag_explain(FILE) too. The
 * explanation must be decode's fact that matters most (the first failure,
 * else the first fact): the same reason, retry, hard bounce, advice, status,
 * reply code, recipient and trail of evidence. Any difference fails, with the
 * file and the fields named. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "smtpdiag.h"

#define FIXTURES "tests/fixtures"
#define CORPUS "../shared/corpus"
#define PATH_LEN 1024

typedef struct walk {
	smtpdiag_decoder *d;
	int files, bounces, differ;
} walk;

static char *slurp(const char *path, size_t *n)
{
	FILE *fp = fopen(path, "rb");
	char *p = NULL;
	long sz;

	*n = 0;
	if (!fp)
		return NULL;
	if (fseek(fp, 0, SEEK_END) == 0 && (sz = ftell(fp)) > 0 && sz <= SMTPDIAG_MAX_QUERY &&
	    fseek(fp, 0, SEEK_SET) == 0 && (p = malloc((size_t)sz)) != NULL) {
		*n = fread(p, 1, (size_t)sz, fp);
		if (*n != (size_t)sz) {
			free(p);
			p = NULL;
			*n = 0;
		}
	}
	fclose(fp);
	return p;
}

static int same_list(const char *const *a, const char *const *b)
{
	for (; a && b && *a && *b; a++, b++)
		if (strcmp(*a, *b))
			return 0;
	return (!a || !*a) && (!b || !*b);
}

static const char *first(const char *const *l)
{
	return l && l[0] ? l[0] : "";
}

/* The fact explain --file shows: the first failure, else the first. */
static const smtpdiag_fact *main_fact(const smtpdiag_decoder *d, int n)
{
	for (int i = 0; i < n; i++)
		if (smtpdiag_decoder_fact(d, (size_t)i)->deliverystatus[0] >= '4')
			return smtpdiag_decoder_fact(d, (size_t)i);
	return smtpdiag_decoder_fact(d, 0);
}

static void differs(walk *w, const char *path, const char *field, const char *dec, const char *exp)
{
	w->differ++;
	print_message("%s: %s: decode '%s', explain --file '%s'\n", path, field, dec, exp);
}

static void compare(walk *w, const char *path)
{
	smtpdiag_error err = { 0, "" };
	smtpdiag_explanation *e = NULL;
	const smtpdiag_fact *f;
	char rc[8];
	size_t n;
	char *p = slurp(path, &n);
	int k;

	w->files++;
	if (!p)
		return;
	k = smtpdiag_decode(w->d, p, n, NULL, &err);
	if (k <= 0) {
		free(p);
		return;
	}
	w->bounces++;
	f = main_fact(w->d, k);
	if (smtpdiag_explain(p, n, SMTPDIAG_EXPLAIN_FILE, &e, &err) != 0) {
		differs(w, path, "explained", "yes", err.message);
		free(p);
		return;
	}
	snprintf(rc, sizeof(rc), "%03d", e->replycode);
	if (!e->replycode)
		rc[0] = 0;
	/* explain shows no reason for a fact of no failure class (a report) */
	if (strcmp(f->reason, e->reason) && !(!e->reason[0] && (!strcmp(f->reason, "undefined") || !e->bounce)))
		differs(w, path, "reason", f->reason, e->reason);
	if (e->bounce && f->retry != e->retry)
		differs(w, path, "retry", f->retry ? "true" : "false", e->retry ? "true" : "false");
	if (e->bounce && f->hardbounce != e->hardbounce)
		differs(w, path, "hardbounce", f->hardbounce ? "true" : "false", e->hardbounce ? "true" : "false");
	if (e->bounce && strcmp(f->advice, e->advice))
		differs(w, path, "advice", f->advice, e->advice);
	if (strcmp(f->deliverystatus, e->status))
		differs(w, path, "status", f->deliverystatus, e->status);
	if (strcmp(f->replycode, rc))
		differs(w, path, "replycode", f->replycode, rc);
	if (strcmp(f->recipient, e->recipient))
		differs(w, path, "recipient", f->recipient, e->recipient);
	if (!same_list(f->evidence, e->evidence))
		differs(w, path, "evidence", first(f->evidence), first(e->evidence));
	smtpdiag_explanation_free(e);
	free(p);
}

static void walk_dir(walk *w, const char *dir)
{
	DIR *dp = opendir(dir);
	struct dirent *de;

	if (!dp)
		return;
	while ((de = readdir(dp)) != NULL) {
		char path[PATH_LEN];
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path))
			continue;
		if (stat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode))
			walk_dir(w, path);
		else if (S_ISREG(st.st_mode))
			compare(w, path);
	}
	closedir(dp);
}

static void run(const char *dir, int min_bounces)
{
	walk w = { smtpdiag_decoder_new(0), 0, 0, 0 };

	assert_non_null(w.d);
	walk_dir(&w, dir);
	smtpdiag_decoder_free(w.d);
	print_message("%s: %d files, %d bounces, %d differences between explain --file and decode\n", dir, w.files,
		      w.bounces, w.differ);
	assert_true(w.bounces >= min_bounces);
	assert_int_equal(w.differ, 0);
}

static void test_fixtures(void **state)
{
	(void)state;
	run(FIXTURES, 50);
}

static void test_corpus(void **state)
{
	struct stat st;

	(void)state;
	if (stat(CORPUS, &st) != 0) {
		print_message("# SKIP %s is absent\n", CORPUS);
		return;
	}
	run(CORPUS, 500);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_corpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
