/* test_call.c - smtpdiag_call(): each op, its errors, its limits, and answers
 * that are the library's own writers' bytes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "smtpdiag.h"

static char *ans;
static size_t alen;

static int call(const char *req)
{
	return smtpdiag_call(req, strlen(req), &ans, &alen);
}

static int teardown(void **state)
{
	(void)state;
	smtpdiag_call_free(ans);
	ans = NULL;
	return 0;
}

static void assert_error(int rc, int want, const char *code, const char *word)
{
	char pfx[64];

	assert_int_equal(rc, want);
	assert_non_null(ans);
	assert_int_equal(strlen(ans), alen);
	snprintf(pfx, sizeof(pfx), "{\"error\":{\"code\":\"%s\",\"message\":", code);
	assert_memory_equal(ans, pfx, strlen(pfx));
	if (word && !strstr(ans, word))
		fail_msg("no \"%s\" in %s", word, ans);
}

static void version(void **state)
{
	assert_int_equal(call("{\"op\":\"version\"}"), 0);
	assert_string_equal(ans, "{\"version\":\"" SMTPDIAG_VERSION "\",\"license\":\"BSD-2-Clause\"}");
	teardown(state);
	assert_error(call("{\"op\":\"version\",\"input\":\"x\"}"), SMTPDIAG_EINVAL, "invalid", "no input");
}

/* The answer is smtpdiag_explanation_json()'s, byte for byte. */
static void explain_same_bytes(void **state)
{
	static const char *const q[] = { "550 5.1.1 user unknown", "4.3.1", "552 4.3.1" };

	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		smtpdiag_explanation *e;
		smtpdiag_buf b = { 0 };
		char req[128];

		snprintf(req, sizeof(req), "{\"op\":\"explain\",\"input\":\"%s\",\"mode\":\"default\"}", q[i]);
		assert_int_equal(call(req), 0);
		assert_int_equal(smtpdiag_explain(q[i], strlen(q[i]), SMTPDIAG_EXPLAIN_AUTO, &e, NULL), 0);
		smtpdiag_explanation_json(e, &b);
		smtpdiag_explanation_free(e);
		assert_int_equal(alen, b.len);
		assert_memory_equal(ans, b.data, b.len);
		smtpdiag_buf_free(&b);
		teardown(state);
	}
	assert_int_equal(call("{\"op\":\"explain\",\"input\":\"550 5.1.1 user unknown\"}"), 0);
	assert_non_null(strstr(ans, "\"reason\":\"userunknown\""));
}

static void explain_errors(void **state)
{
	assert_error(call("{\"op\":\"explain\",\"input\":\"\"}"), SMTPDIAG_EINVAL, "invalid", NULL);
	teardown(state);
	assert_error(call("{\"op\":\"explain\",\"input\":\"the weather is fine\"}"), SMTPDIAG_ENOTFOUND,
		     "notfound", NULL);
	teardown(state);
	/* not a code: the code's own error, not the pasted text's */
	assert_error(call("{\"op\":\"explain\",\"input\":\"999 9.9.9\"}"), SMTPDIAG_EINVAL, "invalid", "not a reply code");
}

static char *read_sample(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *p = malloc(1 << 20);

	assert_non_null(f);
	assert_non_null(p);
	*n = fread(p, 1, 1 << 20, f);
	fclose(f);
	return p;
}

static const char b64tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* {"op":"decode","input_base64":"..."} for n bytes of p. */
static char *b64_request(const char *op, const char *p, size_t n)
{
	char *r = malloc(n / 3 * 4 + 64), *w;
	const unsigned char *u = (const unsigned char *)p;
	size_t i;

	assert_non_null(r);
	w = r + snprintf(r, 64, "{\"op\":\"%s\",\"input_base64\":\"", op);
	for (i = 0; i + 2 < n; i += 3) {
		unsigned v = (unsigned)u[i] << 16 | (unsigned)u[i + 1] << 8 | u[i + 2];
		*w++ = b64tab[v >> 18]; *w++ = b64tab[(v >> 12) & 63]; *w++ = b64tab[(v >> 6) & 63]; *w++ = b64tab[v & 63];
	}
	if (i < n) {
		unsigned v = (unsigned)u[i] << 16 | (i + 1 < n ? (unsigned)u[i + 1] << 8 : 0);
		*w++ = b64tab[v >> 18]; *w++ = b64tab[(v >> 12) & 63];
		*w++ = i + 1 < n ? b64tab[(v >> 6) & 63] : '=';
		*w++ = '=';
	}
	memcpy(w, "\"}", 3);
	return r;
}

/* An email as base64: its facts are smtpdiag_fact_json()'s, in the decode envelope. */
static void decode_email(void **state)
{
	size_t n;
	char *msg = read_sample("samples/bounces/postfix-userunknown.eml", &n), *req = b64_request("decode", msg, n);
	smtpdiag_decoder *d = smtpdiag_decoder_new(0);
	smtpdiag_buf facts = { 0 }, want = { 0 };
	smtpdiag_decode_counts c = { 1, 1, 0, 0, 0 };
	int k;

	assert_int_equal(call(req), 0);
	k = smtpdiag_decode(d, msg, n, "input", NULL);
	assert_true(k > 0);
	for (int i = 0; i < k; i++) {
		smtpdiag_buf_append(&facts, "\n", 1);
		smtpdiag_fact_json(smtpdiag_decoder_fact(d, (size_t)i), &facts);
		c.results++;
	}
	smtpdiag_decode_answer_json(facts.data, facts.len, NULL, 0, &c, &want);
	assert_string_equal(ans, want.data);
	assert_non_null(strstr(ans, "nobody@example.org"));
	assert_non_null(strstr(ans, "\"counts\":{\"messages\":1,\"bounces\":1,\"not_bounces\":0,\"errors\":0,\"results\":1}"));
	smtpdiag_buf_free(&facts);
	smtpdiag_buf_free(&want);
	smtpdiag_decoder_free(d);
	free(msg);
	free(req);
	teardown(state);
	assert_int_equal(call("{\"op\":\"decode\",\"input\":\"Subject: hi\\n\\nhello\\n\",\"mode\":\"sisimai\"}"), 0);
	assert_non_null(strstr(ans, "\"messages\":1,\"bounces\":0,\"not_bounces\":1,"));
}

static void decode_mbox_and_events(void **state)
{
	size_t n;
	char *mb = read_sample("samples/two-bounces.mbox", &n), *req = b64_request("decode", mb, n);

	assert_int_equal(call(req), 0);
	assert_non_null(strstr(ans, "\"messages\":2,\"bounces\":2,"));
	assert_non_null(strstr(ans, "\"origin\":\"input:2\""));
	free(mb);
	free(req);
	teardown(state);
	assert_int_equal(call("{\"op\":\"decode\",\"input\":\"{\\\"notificationType\\\":\\\"Bounce\\\"}\"}"), 0);
	assert_non_null(strstr(ans, "\"errors\":1,"));
	assert_non_null(strstr(ans, "not an event of a known service"));
}

static void scan_lines(void **state)
{
	assert_int_equal(call("{\"op\":\"scan\",\"input\":\"Jan  1 00:00:00 mx postfix/smtp[1]: ABC: to=<a@b.example>, "
			      "relay=x[192.0.2.1]:25, delay=1, delays=1/0/0/0, dsn=5.1.1, status=bounced (host x said: "
			      "550 5.1.1 no such user (in reply to RCPT TO command))\\nnot a log line\\n\"}"), 0);
	assert_non_null(strstr(ans, "\"recipient\":\"a@b.example\""));
	assert_non_null(strstr(ans, "\"reason\":\"userunknown\""));
	assert_non_null(strstr(ans, "\"counts\":{\"lines\":2,\"records\":1,\"not_records\":1,\"errors\":0,\"results\":1}"));
}

static const struct {
	const char *req;
	int rc;
	const char *code, *word;
} bad[] = {
	{ "{\"op\":", SMTPDIAG_EPARSE, "parse", "not JSON" },
	{ "[1]", SMTPDIAG_EPARSE, "parse", "not a JSON object" },
	{ "{\"op\":\"frobnicate\",\"input\":\"x\"}", SMTPDIAG_EINVAL, "invalid", "frobnicate" },
	{ "{\"input\":\"x\"}", SMTPDIAG_EINVAL, "invalid", "no \\\"op\\\"" },
	{ "{\"op\":\"explain\",\"input\":\"550\",\"colour\":\"red\"}", SMTPDIAG_EINVAL, "invalid", "colour" },
	{ "{\"op\":\"explain\",\"input\":550}", SMTPDIAG_EINVAL, "invalid", "must be a string" },
	{ "{\"op\":\"explain\",\"input\":\"550\",\"mode\":\"fast\"}", SMTPDIAG_EINVAL, "invalid", "fast" },
	{ "{\"op\":\"decode\",\"input\":\"x\",\"input_base64\":\"eA==\"}", SMTPDIAG_EINVAL, "invalid", "exactly one" },
	{ "{\"op\":\"decode\"}", SMTPDIAG_EINVAL, "invalid", "exactly one" },
	{ "{\"op\":\"decode\",\"input_base64\":\"!!not base64\"}", SMTPDIAG_EPARSE, "parse", "base64" },
};

static void bad_requests(void **state)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_error(call(bad[i].req), bad[i].rc, bad[i].code, bad[i].word);
		teardown(state);
	}
	assert_int_equal(smtpdiag_call("{}", 2, NULL, &alen), SMTPDIAG_EINVAL);
	assert_int_equal(smtpdiag_call("{}", 2, &ans, NULL), SMTPDIAG_EINVAL);
	smtpdiag_call_free(NULL);
}

static void over_limit(void **state)
{
	size_t n = SMTPDIAG_CALL_MAX_REQUEST + 1;
	char *big = malloc(n);

	assert_non_null(big);
	memset(big, ' ', n);
	assert_error(smtpdiag_call(big, n, &ans, &alen), SMTPDIAG_ELIMIT, "limit", "request over");
	teardown(state);
	/* a text input over SMTPDIAG_MAX_MESSAGE, inside a request under its limit */
	n = SMTPDIAG_MAX_MESSAGE + 64;
	big = realloc(big, n);
	assert_non_null(big);
	memcpy(big, "{\"op\":\"decode\",\"input\":\"", 24);
	memset(big + 24, 'a', n - 26);
	memcpy(big + n - 2, "\"}", 2);
	assert_error(smtpdiag_call(big, n, &ans, &alen), SMTPDIAG_ELIMIT, "limit", "input over");
	free(big);
}

static void count_fact(void *arg, const smtpdiag_fact *f, const smtpdiag_error *e)
{
	(void)e;
	if (f)
		(*(int *)arg)++;
}

/* smtpdiag_decode_answer(): an mbox with an unreadable message is answered (the
 * message an error record, the counts adding up); a body of which nothing could
 * be read returns that error with the answer written all the same. */
static void decode_answer_counts(void **state)
{
	static const char mbox[] = "From a@example.net Thu Jan  1 00:00:00 2026\n"
				   "Subject: hello\n\njust a note\n\n"
				   "From a@example.net Thu Jan  1 00:00:00 2026\n\n";
	size_t n;
	char *mb = read_sample("samples/two-bounces.mbox", &n);
	smtpdiag_decoder *d = smtpdiag_decoder_new(0);
	smtpdiag_decode_counts c;
	smtpdiag_error err = { 0, "" };
	smtpdiag_buf b = { 0 };
	int facts = 0;

	(void)state;
	assert_int_equal(smtpdiag_decode_answer(d, mb, n, "in", count_fact, &facts, &c, &b, &err), 0);
	assert_int_equal(c.messages, 2);
	assert_int_equal(c.bounces, 2);
	assert_int_equal(c.results, (size_t)facts);
	assert_non_null(strstr(b.data, "\"origin\":\"in:1\""));
	smtpdiag_buf_free(&b);

	assert_int_equal(smtpdiag_decode_answer(d, mbox, sizeof(mbox) - 1, "in", NULL, NULL, &c, &b, &err), 0);
	assert_int_equal(c.messages, c.bounces + c.not_bounces + c.errors);
	assert_int_equal(c.messages, 2);
	smtpdiag_buf_free(&b);

	assert_true(smtpdiag_decode_answer(d, "", 0, "in", NULL, NULL, &c, &b, &err) < 0);
	assert_int_equal(c.errors, 1);
	assert_int_equal(c.messages, 1);
	assert_non_null(strstr(b.data, "\"errors\":[\n{\"origin\":\"in\",\"error\":"));
	assert_true(err.message[0] != '\0');
	smtpdiag_buf_free(&b);

	assert_int_equal(smtpdiag_decode_answer(NULL, "x", 1, "in", NULL, NULL, &c, &b, &err), SMTPDIAG_EINVAL);
	assert_int_equal(smtpdiag_decode_answer(d, "x", 1, NULL, NULL, NULL, &c, &b, &err), SMTPDIAG_EINVAL);
	assert_int_equal(b.len, 0);
	smtpdiag_decoder_free(d);
	free(mb);
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test_teardown(version, teardown),
		cmocka_unit_test_teardown(explain_same_bytes, teardown),
		cmocka_unit_test_teardown(explain_errors, teardown),
		cmocka_unit_test_teardown(decode_email, teardown),
		cmocka_unit_test_teardown(decode_mbox_and_events, teardown),
		cmocka_unit_test_teardown(scan_lines, teardown),
		cmocka_unit_test_teardown(bad_requests, teardown),
		cmocka_unit_test_teardown(over_limit, teardown),
		cmocka_unit_test(decode_answer_counts),
	};
	return cmocka_run_group_tests(t, NULL, NULL);
}
