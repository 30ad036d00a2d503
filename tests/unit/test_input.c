/* test_input.c - decode's input walker (src/cli/input.c): files that change
 * while they are read, and mbox messages over the size limit. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/cli/input.h"
#include "smtpdiag.h"

#define MSG_MAX 8 /* messages a test looks at */

typedef struct seen {
	char path[64];
	int truncate_at;  /* truncate the file to 0 bytes when this message arrives */
	int nmsg, nerr;
	char origin[MSG_MAX][80];
	char err[160];
	unsigned sum;     /* of every byte of every message: the bytes stay readable */
} seen;

static void on_msg(void *ctx, const char *origin, const char *msg, size_t len)
{
	seen *s = ctx;

	if (s->nmsg < MSG_MAX)
		snprintf(s->origin[s->nmsg], sizeof(s->origin[0]), "%s", origin);
	if (++s->nmsg == s->truncate_at)
		assert_int_equal(truncate(s->path, 0), 0);
	for (size_t i = 0; i < len; i++)
		s->sum += (unsigned char)msg[i];
}

static void on_err(void *ctx, const char *origin, const char *why)
{
	seen *s = ctx;

	s->nerr++;
	snprintf(s->err, sizeof(s->err), "%s: %s", strrchr(origin, '/') + 1, why);
}

static FILE *temp_file(seen *s)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	snprintf(s->path, sizeof(s->path), "%s/smtpdiag-input-XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(s->path);
	assert_true(fd >= 0);
	return fdopen(fd, "w");
}

static void put_message(FILE *f, const char *from, size_t body_lines)
{
	fprintf(f, "From %s Thu Jan  2 03:04:05 2025\nFrom: <%s>\nSubject: test\n\n", from, from);
	for (size_t i = 0; i < body_lines; i++)
		fprintf(f, "%099zu\n", i);
	fputc('\n', f);
}

static void walk(seen *s)
{
	input_walker w = { on_msg, on_err, s, NULL };

	input_walk(&w, s->path);
	unlink(s->path);
}

/* An mbox of a short, a 10 MB (many reads) and a short message, walked. */
static void walk_three(seen *s)
{
	FILE *f = temp_file(s);

	put_message(f, "a@example.org", 10);
	put_message(f, "b@example.org", 100000);
	put_message(f, "c@example.org", 10);
	assert_int_equal(fclose(f), 0);
	walk(s);
}

/* An mbox cut short while its second message is being read: the first is
 * handed out, the rest is one error, and no partial message is decoded. */
static void test_mbox_shrinks(void **state)
{
	seen s = { .truncate_at = 1 };

	(void)state;
	walk_three(&s);
	assert_int_equal(s.nmsg, 1);
	assert_int_equal(s.nerr, 1);
	assert_non_null(strstr(s.err, "changed while reading"));
}

/* Cut short once a long message was handed out: what came before stays
 * readable (no SIGBUS), and every message is either handed out or the
 * input's error. */
static void test_mbox_shrinks_after_long(void **state)
{
	seen s = { .truncate_at = 2 };

	(void)state;
	walk_three(&s);
	assert_true((s.nmsg == 3 && s.nerr == 0) || (s.nmsg == 2 && s.nerr == 1));
}

/* One message, longer than a read: it stays readable when the file shrinks. */
static void test_message_outlives_file(void **state)
{
	seen s = { .truncate_at = 1 };
	FILE *f = temp_file(&s);

	(void)state;
	fputs("From: <a@example.org>\nSubject: one message\n\n", f);
	for (int i = 0; i < 20000; i++)
		fprintf(f, "%099d\n", i);
	assert_int_equal(fclose(f), 0);
	walk(&s);
	assert_int_equal(s.nmsg, 1);
	assert_int_equal(s.nerr, 0);
	assert_true(s.sum > 0);
}

/* A message over SMTPDIAG_MAX_MESSAGE in an mbox is one error, not read
 * whole, and the messages after it are found where the whole file has them
 * (a "From " line of prose at its end starts none). */
static void test_mbox_message_over_limit(void **state)
{
	seen s = { .truncate_at = 0 };
	FILE *f = temp_file(&s);

	(void)state;
	put_message(f, "a@example.org", 10);
	put_message(f, "b@example.org", SMTPDIAG_MAX_MESSAGE / 100 + 40000);
	fputs("From here on it is prose, no From_ line\nmore prose\n\n", f);
	put_message(f, "c@example.org", 10);
	put_message(f, "d@example.org", 10);
	assert_int_equal(fclose(f), 0);
	walk(&s);
	assert_int_equal(s.nmsg, 3);
	assert_int_equal(s.nerr, 1);
	assert_non_null(strstr(s.err, ":2: message larger than 64 MiB"));
	assert_non_null(strstr(s.origin[1], ":3"));
	assert_non_null(strstr(s.origin[2], ":4"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mbox_shrinks),
		cmocka_unit_test(test_mbox_shrinks_after_long),
		cmocka_unit_test(test_message_outlives_file),
		cmocka_unit_test(test_mbox_message_over_limit),
	};
	return cmocka_run_group_tests_name("input", tests, NULL, NULL);
}
