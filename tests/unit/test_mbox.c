/* test_mbox.c - mbox detection, splitting and >From unquoting (cmocka). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "mime/mbox.h"

static const struct { const char *in; int yes; } detect_cases[] = {
	{ "From MAILER-DAEMON Thu Sep 18 17:54:04 2008\nSubject: x\n", 1 },
	{ "\r\n\nFrom a@b Mon Jan  1 00:00:00 2024\n", 1 },
	{ "From: a@b\n", 0 },
	{ "Received: from x\n", 0 },
	{ "From", 0 },
	{ "", 0 },
};

static void test_detect(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(detect_cases) / sizeof(detect_cases[0]); i++)
		if (sd_mbox_detect(detect_cases[i].in, strlen(detect_cases[i].in)) != detect_cases[i].yes)
			fail_msg("detect case %zu '%s'", i, detect_cases[i].in);
	assert_int_equal(sd_mbox_detect(NULL, 0), 0);
}

#define F1 "From a@b Thu Sep 18 17:54:04 2008"
#define F2 "From MAILER-DAEMON Fri Sep 19 01:02:03 2008"

static const struct split_case {
	const char *name, *in;
	const char *msgs[4];
} split_cases[] = {
	{ "two, blank separated", F1 "\nSubject: 1\n\nbody1\n\n" F2 "\nSubject: 2\n\nbody2\n",
	  { "Subject: 1\n\nbody1\n", "Subject: 2\n\nbody2\n" } },
	{ "crlf", F1 "\r\nSubject: 1\r\n\r\nb\r\n\r\n" F2 "\r\nSubject: 2\r\n",
	  { "Subject: 1\r\n\r\nb\r\n", "Subject: 2\r\n" } },
	{ "bare cr", F1 "\rS: 1\r\rb\r\r" F2 "\rS: 2\r", { "S: 1\r\rb\r", "S: 2\r" } },
	{ "no blank line before From_", F1 "\nS: 1\n\nb\n" F2 "\nS: 2\n",
	  { "S: 1\n\nb\n", "S: 2\n" } },
	{ "prose From line is not a split", F1 "\nS: 1\n\nFrom here on, text\nmore\n",
	  { "S: 1\n\nFrom here on, text\nmore\n" } },
	{ "dateless From_ after blank", F1 "\nS: 1\n\nb\n\nFrom someone\nSubject: 2\n",
	  { "S: 1\n\nb\n", "Subject: 2\n" } },
	{ "quoted From stays", F1 "\nS: 1\n\n>From x Thu 1 1:1\n", { "S: 1\n\n>From x Thu 1 1:1\n" } },
	{ "leading junk without From_", "S: 0\n\nb\n\n" F1 "\nS: 1\n", { "S: 0\n\nb\n", "S: 1\n" } },
	{ "empty", "", { NULL } },
	{ "blank lines only", "\n\r\n", { NULL } },
	{ "From_ only", F1, { "" } },
	{ "no final newline", F1 "\nS: 1\n\nb", { "S: 1\n\nb" } },
};

static void test_split(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(split_cases) / sizeof(split_cases[0]); i++) {
		const struct split_case *c = &split_cases[i];
		sd_mbox_iter it;
		sd_str msg;
		size_t k = 0;

		sd_mbox_init(&it, c->in, strlen(c->in));
		while (sd_mbox_next(&it, &msg)) {
			if (k >= 4 || !c->msgs[k])
				fail_msg("%s: extra message %zu '%.*s'", c->name, k, (int)msg.n, msg.p);
			if (msg.n != strlen(c->msgs[k]) || memcmp(msg.p, c->msgs[k], msg.n) != 0)
				fail_msg("%s: message %zu is '%.*s'", c->name, k, (int)msg.n, msg.p);
			k++;
			assert_int_equal(it.index, k);
		}
		if (k < 4 && c->msgs[k])
			fail_msg("%s: only %zu messages", c->name, k);
	}
}

static const struct { const char *in, *out; int copied; } unquote_cases[] = {
	{ "S: x\n\n>From a\nb\n", "S: x\n\nFrom a\nb\n", 1 },
	{ ">From top\r\n>>From two\r\n", "From top\r\n>From two\r\n", 1 },
	{ "a\r>From cr\r", "a\rFrom cr\r", 1 },
	{ "no quoting here >From mid-line\n", "no quoting here >From mid-line\n", 0 },
	{ "x>>From\n>Fro\n", "x>>From\n>Fro\n", 0 },
	{ "", "", 0 },
};

static void test_unquote(void **state)
{
	sd_arena a;

	(void)state;
	sd_arena_init(&a);
	for (size_t i = 0; i < sizeof(unquote_cases) / sizeof(unquote_cases[0]); i++) {
		sd_str in = { unquote_cases[i].in, strlen(unquote_cases[i].in) };
		sd_str r = sd_mbox_unquote(&a, in);
		if (r.n != strlen(unquote_cases[i].out) || memcmp(r.p, unquote_cases[i].out, r.n) != 0)
			fail_msg("unquote %zu: '%.*s'", i, (int)r.n, r.p);
		assert_int_equal(r.p != in.p, unquote_cases[i].copied);
	}
	sd_arena_free(&a);
}

/* Optional: the shared corpus mbox, when present (skipped otherwise). */
static void test_corpus_mbox(void **state)
{
	const char *path = "../shared/corpus/set-of-emails/mailbox/mbox-0";
	static char buf[1 << 18];
	FILE *fp = fopen(path, "rb");
	sd_mbox_iter it;
	sd_str msg;
	size_t n;

	(void)state;
	if (!fp) {
		fprintf(stderr, "test_corpus_mbox: %s absent, skipped\n", path);
		skip();
	}
	n = fread(buf, 1, sizeof(buf), fp);
	fclose(fp);
	assert_true(sd_mbox_detect(buf, n));
	sd_mbox_init(&it, buf, n);
	while (sd_mbox_next(&it, &msg))
		assert_true(msg.n > 0 && memcmp(msg.p, "From ", 5) != 0);
	assert_true(it.index > 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_unquote),
		cmocka_unit_test(test_corpus_mbox),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
