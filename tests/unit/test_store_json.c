/* test_store_json.c - the store's JSON Lines reader without a document
 * (store/jline.c) against jansson: for every line of a table, and for every
 * cut and many one-byte changes of each, the record (or the error) is the
 * same whether the fast reader answers or jansson does. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "store/store.h"

#define LINE_MAX_TEST 4096

static const char *const lines[] = {
	"{\"action\":\"failed\",\"addresser\":\"news@s0.example\",\"deliverystatus\":\"4.2.2\","
	"\"destination\":\"d37.example\",\"diagnosticcode\":\"452 4.2.2 <u@d.example>: full\","
	"\"hardbounce\":false,\"lhost\":\"\",\"origin\":\"gen:0\",\"reason\":\"mailboxfull\","
	"\"recipient\":\"User@D.example\",\"replycode\":\"452\",\"senderdomain\":\"s0.example\","
	"\"timestamp\":1794413470,\"token\":\"\",\"retry\":true,\"advice\":\"retry\"}",
	"{\"timestamp\":1772528402,\"host\":\"mx1\",\"program\":\"postfix/smtp\",\"queueid\":\"3F2A\","
	"\"recipient\":\"bob@example.org\",\"sender\":\"\",\"action\":\"bounced\",\"status\":\"5.1.1\","
	"\"delay\":2,\"dsn\":\"5.1.1\",\"issues\":[\"a\",[1,-2,true,null]],\"reason\":\"userunknown\","
	"\"hardbounce\":true,\"retry\":false,\"advice\":\"suppress-recipient\"}",
	" { \"recipient\" : null , \"reason\" : \"x\\\"y\\\\z\\/\\n\\t\\r\\b\\f\" , \"token\" : \"abc9\" } ",
	"{\"recipient\":\"a@b\",\"reason\":\"r\",\"diagnosticcode\":\"\\u00e9t\\u00e9 \\ud83d\\ude00\"}",
	"{\"recipient\":\"a@b\",\"reason\":\"r\",\"diagnosticcode\":\"\xc3\xa9t\xc3\xa9 \xf0\x9f\x98\x80\"}",
	"{\"recipient\":\"a@b\",\"reason\":\"r\",\"diagnosticcode\":\"bad \xc3 utf-8\"}",
	"{\"recipient\":\"a@b\",\"reason\":\"r\",\"diagnosticcode\":\"surrogate \xed\xa0\x80\"}",
	"{\"recipient\":\"a@b\",\"reason\":\"r\",\"reason\":\"again\"}",
	"{\"recipient\":\"a@b\",\"reason\":\"r\",\"x\":1,\"x\":2}",
	"{\"recipient\":\"a@b\",\"reason\":\"r\",\"x\":{\"y\":1,\"y\":2}}",
	"{\"recipient\":\"a@b\",\"reason\":\"r\",\"x\":{\"y\":[1,{\"z\":null}]}}",
	"{\"recipient\":\"a@b\",\"reason\":\"r\",\"timestamp\":-0,\"n\":123456789012345678901234}",
	"{\"recipient\":\"a@b\",\"reason\":\"r\",\"timestamp\":1.5e9}",
	"{\"recipient\":\"a@b\",\"reason\":\"r\",\"timestamp\":9223372036854775807}",
	"{\"recipient\":\"a@b\",\"reason\":\"r\",\"timestamp\":\"1700000000\"}",
	"{\"recipient\":\"a@b\",\"reason\":\"r\",\"hardbounce\":\"yes\"}",
	"{\"recipient\":\"a@b\",\"reason\":\"r\",\"hardbounce\":null,\"retry\":null,\"timestamp\":null}",
	"{\"recipient\":\"a@b\",\"reason\":\"r\",\"addresser\":\"\",\"sender\":\"s@x.example\"}",
	"{\"recipient\":\"a@b\",\"reason\":\"r\",\"addresser\":\"a@x.example\",\"sender\":5}",
	"{\"recipient\":\"a@b\",\"reason\":\"r\",\"lhost\":[],\"e\":1e400,\"f\":-0.5E-3}",
	"{\"recipient\":\"a@b\",\"reason\":\"r\",\"k\\u0065y\":1,\"k\\ney\":2}",
	"{\"recipient\":\"a@b\",\"reason\":\"r\",\"\xc3\xa9\":1}",
	"{\"recipient\":\"a@b\",\"reason\":\"r\",\"z\":\"\\u0000\"}",
	"{\"recipient\":\"a@b\"}",
	"{\"reason\":\"r\"}",
	"{}",
	"[\"an\",\"array\"]",
	"\"a string\"",
	"this line is no JSON",
	"{\"recipient\":\"a@b\",\"reason\":\"r\"} {}",
	"{\"recipient\":\"a@b\",\"reason\":\"r\",}",
	"{\"recipient\":\"a@b\",\"reason\":\"r\",\"n\":01}",
	"{\"recipient\":\"a@b\",\"reason\":\"r\",\"n\":tru}",
	"{\"recipient\":\"a@b\",\"reason\":\"r\",\"t\":\"tab\there\"}",
};

/* A record and its result as text, to compare the two readers. */
static void describe(char *out, size_t cap, int rc, const st_rec *r, const smtpdiag_error *err)
{
	if (rc < 0) {
		snprintf(out, cap, "error %d %s", rc, err->message);
		return;
	}
	snprintf(out, cap, "%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%lld|%d|%d|%c", r->key, r->recipient,
		 r->domain, r->addresser, r->senderdomain, r->reason, r->status, r->replycode, r->action,
		 r->advice, r->origin, r->ip, r->diag, (long long)r->ts, r->hardbounce, r->retry, r->kind);
}

static void read_line(const char *line, size_t len, int fast, char *out, size_t cap)
{
	static char scratch[ST_JLINE_SCRATCH(LINE_MAX_TEST)];
	smtpdiag_error err = { 0, "" };
	st_rec r;
	void *hold;
	int rc = st_rec_json(&r, line, len, fast ? scratch : NULL, &hold, &err);

	describe(out, cap, rc, &r, &err);
	st_rec_release(hold);
}

static void same(const char *line, size_t len)
{
	static char a[8192], b[8192];

	read_line(line, len, 1, a, sizeof(a));
	read_line(line, len, 0, b, sizeof(b));
	if (strcmp(a, b))
		fail_msg("line %.*s\nfast:    %s\njansson: %s", (int)len, line, a, b);
}

static void test_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		same(lines[i], strlen(lines[i]));
}

/* Every cut of every line, and every byte changed to a few that matter. */
static void test_mutations(void **state)
{
	static const char subst[] = "\"\\{}[],:0-.e \x01\x80\xc3";
	char buf[LINE_MAX_TEST];

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		size_t n = strlen(lines[i]);
		assert_true(n < sizeof(buf));
		for (size_t cut = 0; cut < n; cut++)
			same(lines[i], cut);
		for (size_t at = 0; at < n; at++)
			for (size_t k = 0; k < sizeof(subst) - 1; k++) {
				memcpy(buf, lines[i], n);
				buf[at] = subst[k];
				same(buf, n);
			}
	}
}

/* The fast reader answers for the lines decode and scan write. */
static void test_answers(void **state)
{
	static char scratch[ST_JLINE_SCRATCH(LINE_MAX_TEST)];
	st_jfields f;

	(void)state;
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(st_jline(&f, lines[i], strlen(lines[i]), scratch), i == 3 ? -1 : 0);
	assert_string_equal(f.s[ST_JF_DIAG], "\xc3\xa9t\xc3\xa9 \xf0\x9f\x98\x80");
	assert_int_equal(st_jline(&f, lines[2], strlen(lines[2]), scratch), 0);
	assert_string_equal(f.s[ST_JF_REASON], "x\"y\\z/\n\t\r\b\f");
	assert_true(f.present & (1u << ST_JF_RECIPIENT));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_mutations),
		cmocka_unit_test(test_answers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
