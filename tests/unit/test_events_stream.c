/* test_events_stream.c - ESP event input cut into values: each element of a
 * top-level array read alone, the same results whether the input is given
 * whole or read a few bytes at a time, errors capped at
 * SMTPDIAG_MAX_EVENT_ERRORS with one "and N more", and an event over
 * SMTPDIAG_MAX_RECIPIENTS reported as an error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "smtpdiag.h"
#include "chunks.h"

#define SG(n) "{\"email\":\"u" #n "@mail.example.net\",\"event\":\"bounce\",\"reason\":\"550 5.1.1 no such user\"," \
	      "\"status\":\"5.1.1\",\"sg_event_id\":\"e" #n "\"}"

/* What a run gave: one line per fact ("F recipient") or error ("E message"). */
typedef struct transcript {
	smtpdiag_buf b;
	size_t errors_seen;
} transcript;

static void on_event(void *arg, const smtpdiag_fact *f, const smtpdiag_error *e)
{
	transcript *t = arg;

	if (f) {
		smtpdiag_buf_append(&t->b, "F ", 2);
		smtpdiag_buf_append(&t->b, f->recipient, strlen(f->recipient));
	} else {
		smtpdiag_buf_append(&t->b, "E ", 2);
		smtpdiag_buf_append(&t->b, e->message, strlen(e->message));
		t->errors_seen++;
	}
	smtpdiag_buf_append(&t->b, "\n", 1);
}

static char *cstr(const smtpdiag_buf *b)
{
	char *s = malloc(b->len + 1);

	assert_non_null(s);
	if (b->len)
		memcpy(s, b->data, b->len);
	s[b->len] = '\0';
	return s;
}

/* Decode body whole; check that reading it 1, 3, 64 and 65536 bytes at a time
 * gives the same transcript and counts. The transcript is returned (freed by the caller). */
static char *run(const char *body, size_t len, smtpdiag_event_counts *c)
{
	static const size_t steps[] = { 1, 3, 64, 65536 };
	smtpdiag_decoder *d = smtpdiag_decoder_new(0);
	transcript t;
	smtpdiag_error err;
	char *whole;

	assert_non_null(d);
	memset(&t, 0, sizeof(t));
	memset(c, 0, sizeof(*c));
	assert_true(smtpdiag_decode_events(d, body, len, "t", NULL, on_event, &t, c, &err) >= 0);
	whole = cstr(&t.b);
	smtpdiag_buf_free(&t.b);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		smtpdiag_event_counts c2;
		chunks s = { body, len, 0, steps[i] };
		char *got;
		memset(&t, 0, sizeof(t));
		memset(&c2, 0, sizeof(c2));
		assert_true(smtpdiag_decode_events_read(d, chunks_read, &s, "t", NULL, on_event, &t, &c2, &err) >= 0);
		got = cstr(&t.b);
		smtpdiag_buf_free(&t.b);
		if (strcmp(got, whole) || memcmp(&c2, c, sizeof(c2)))
			fail_msg("read %zu bytes at a time:\n%s\nwhole:\n%s", steps[i], got, whole);
		free(got);
	}
	smtpdiag_decoder_free(d);
	return whole;
}

static void expect(const char *body, size_t events, size_t decided, size_t errors, const char *const *lines)
{
	smtpdiag_event_counts c;
	char *got = run(body, strlen(body), &c);

	if (c.events != events || c.decided != decided || c.errors != errors ||
	    c.events != c.decided + c.ignored + c.errors)
		fail_msg("counts %zu %zu %zu %zu for %s\n%s", c.events, c.decided, c.ignored, c.errors, body, got);
	for (const char *const *l = lines; *l; l++)
		if (!strstr(got, *l))
			fail_msg("no '%s' in\n%s", *l, got);
	free(got);
}

/* A bad element of an array is that element's error; the others are read. */
static void test_array_elements(void **state)
{
	(void)state;
	expect("[" SG(1) ",{\"hello\":1}," SG(2) "]", 3, 2, 1,
	       (const char *const[]){ "F u1@", "F u2@", "E line 1: event 2: not an event of a known service", NULL });
	expect("[" SG(1) ",01," SG(2) "]", 3, 2, 1, (const char *const[]){ "F u1@", "F u2@", "E line 1, column", NULL });
	expect("[\n" SG(1) ",\n  \"text\",\n" SG(2) "\n]\n", 3, 2, 1,
	       (const char *const[]){ "F u2@", "E line 3: event 2: not an event object", NULL });
	expect("[]", 0, 0, 0, (const char *const[]){ NULL });
	/* a form-encoded post is read whole, however it is given */
	expect("event=bounced&recipient=carol%40mail.example.net&code=550&error=5.1.1+unknown&token=t&signature=s"
	       "&timestamp=1",
	       1, 1, 0, (const char *const[]){ "F carol@mail.example.net", NULL });
	expect("\xEF\xBB\xBF[" SG(1) "]", 1, 1, 0, (const char *const[]){ "F u1@", NULL });
	expect("[[" SG(1) "," SG(2) "]]", 2, 2, 0, (const char *const[]){ "F u1@", "F u2@", NULL });
}

/* JSON Lines: a broken line is reported where it breaks and reading goes on
 * at the next line that starts a value, as before. */
static void test_lines(void **state)
{
	(void)state;
	expect(SG(1) "\n{\"email\":\"x@mail.example.net\",\"event\":\"bounce\",\n{\"hello\": \"world\"}\n" SG(2) "\n",
	       4, 2, 2,
	       (const char *const[]){ "F u1@", "F u2@", "E line 3, column 1: ", "E line 3: event 3: not an event", NULL });
	expect(SG(1) " junk\n" SG(2), 3, 2, 1, (const char *const[]){ "E line 1, column 123: '[' or '{' expected near 'junk'", NULL });
	expect("{\"a\":\"unterminated\n" SG(2), 2, 1, 1, (const char *const[]){ "E line 1, column", "F u2@", NULL });
	expect("[" SG(1) ",", 2, 1, 1, (const char *const[]){ "F u1@", "E ", NULL });
	expect("[" SG(1) "}\n" SG(2), 3, 2, 1, (const char *const[]){ "',' or ']' expected", "F u2@", NULL });
}

/* Thousands of bad values: each counted, the first 100 reported, then one line. */
static void test_error_cap(void **state)
{
	size_t n = 5000, len = 2 + 3 * n;
	char *body = malloc(len + 1), *p = body;
	smtpdiag_event_counts c;
	char *got;
	size_t lines = 0;

	(void)state;
	assert_non_null(body);
	*p++ = '[';
	for (size_t i = 0; i < n; i++, p += 3)
		memcpy(p, i ? ",{}" : " {}", 3);
	*p++ = ']';
	*p = '\0';
	got = run(body, len, &c);
	for (const char *q = got; (q = strchr(q, '\n')) != NULL; q++)
		lines++;
	assert_int_equal(c.events, n);
	assert_int_equal(c.errors, n);
	assert_int_equal(lines, SMTPDIAG_MAX_EVENT_ERRORS + 1);
	assert_non_null(strstr(got, "E and 4900 more errors (only the first 100 are listed: SMTPDIAG_MAX_EVENT_ERRORS)"));
	free(got);
	free(body);
}

/* An SES bounce for 1,100 recipients: the first 1,024 facts and an error that names the limit. */
static void test_recipient_limit(void **state)
{
	smtpdiag_buf b = { 0 };
	smtpdiag_event_counts c;
	char one[96], *body, *got;
	size_t facts = 0;

	(void)state;
	smtpdiag_buf_printf(&b, "{\"notificationType\":\"Bounce\",\"mail\":{\"source\":\"s@shop.example.com\"},"
			       "\"bounce\":{\"bounceType\":\"Permanent\",\"bounceSubType\":\"General\",\"bouncedRecipients\":[");
	for (int i = 0; i < 1100; i++) {
		snprintf(one, sizeof(one), "%s{\"emailAddress\":\"r%d@mail.example.net\"}", i ? "," : "", i);
		smtpdiag_buf_append(&b, one, strlen(one));
	}
	smtpdiag_buf_append(&b, "]}}", 3);
	body = cstr(&b);
	got = run(body, b.len, &c);
	for (const char *q = got; (q = strstr(q, "F r")) != NULL; q++)
		facts++;
	assert_int_equal(facts, SMTPDIAG_MAX_RECIPIENTS);
	assert_int_equal(c.facts, SMTPDIAG_MAX_RECIPIENTS);
	assert_int_equal(c.events, 1);
	assert_int_equal(c.errors, 1);
	assert_int_equal(c.decided, 0);
	assert_non_null(strstr(got, "E line 1: event 1: more than 1024 recipients (SMTPDIAG_MAX_RECIPIENTS)"));
	free(got);
	free(body);
	smtpdiag_buf_free(&b);
}

static void test_count(void **state)
{
	static const char two[] = "{\"signature\":{\"token\":\"t\"},\"events\":[{\"event\":\"failed\",\"recipient\":\"a@b\","
				  "\"delivery-status\":{}},{\"event\":\"failed\",\"recipient\":\"c@d\",\"delivery-status\":{}}]}";
	static const char one[] = "{\"signature\":{\"token\":\"t\"},\"event-data\":{\"event\":\"failed\"}}";

	(void)state;
	assert_int_equal(smtpdiag_events_count(two, strlen(two), NULL), 2);
	assert_int_equal(smtpdiag_events_count(one, strlen(one), NULL), 1);
	assert_int_equal(smtpdiag_events_count(one, strlen(one), "nosuch"), 0);
	assert_int_equal(smtpdiag_events_count("[{},{},{}]", 10, NULL), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_array_elements),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_error_cap),
		cmocka_unit_test(test_recipient_limit),
		cmocka_unit_test(test_count),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
