/* test_userrules.c - user rules (docs/rules.md): a good file, each error with
 * its source:line, matching (literal, regex, the limits by code, status,
 * domain and host, first match wins) and what a rule's fields override. The
 * replies are shaped after Postfix's log lines and DSNs; hosts and addresses
 * are example ones. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "smtpdiag.h"

#define LINE_MAX_T 2048

static smtpdiag_rules *parse_ok(const char *text)
{
	smtpdiag_rules *r = NULL;
	smtpdiag_error err = { 0, "" };
	int rc = smtpdiag_rules_parse(text, strlen(text), "t.rules", &r, &err);

	if (rc != 0)
		print_message("unexpected error: %s\n", err.message);
	assert_int_equal(rc, 0);
	assert_non_null(r);
	return r;
}

/* ---- parsing ---- */

static void test_good_file(void **state)
{
	static const char text[] =
		"# rules of example.com\r\n"
		"\r\n"
		"   # an indented comment\n"
		"match \"over quota\" reason=mailboxfull label=quota\n"
		"regex /no (such|valid) (user|mailbox)/ code=550 status=5.1. reason=userunknown hard=yes\n"
		"match \"say \\\"hi\\\" \\\\ back\" domain=*.example.com host=mx.example.org advice=fix-message # tail\n"
		"\tmatch \"throttled\" code=4xx retry=yes\n"
		"regex /d\xc3\xa9j\xc3\xa0 utilis\xc3\xa9/ label=fr";
	smtpdiag_rules *r = parse_ok(text);

	(void)state;
	assert_int_equal(smtpdiag_rules_count(r), 5);
	smtpdiag_rules_free(r);
	r = parse_ok(""); /* no rules at all is a valid file */
	assert_int_equal(smtpdiag_rules_count(r), 0);
	smtpdiag_rules_free(r);
	smtpdiag_rules_free(NULL);
}

typedef struct bad {
	const char *text;
	int code;
	const char *msg; /* the message starts "t.rules:LINE: " then has this */
} bad;

static const bad bads[] = {
	{ "# c\nregex /foo(/ reason=userunknown\n", SMTPDIAG_EPARSE, "t.rules:2: bad regex" },
	{ "match \"x\" reason=nope\n", SMTPDIAG_EPARSE, "t.rules:1: unknown reason 'nope'" },
	{ "\n\nmatch \"x\" advice=maybe\n", SMTPDIAG_EPARSE, "t.rules:3: unknown advice 'maybe'" },
	{ "match \"x\" reason=filtered reason=suspend\n", SMTPDIAG_EPARSE, "t.rules:1: duplicate field 'reason'" },
	{ "match \"x\" colour=red\n", SMTPDIAG_EPARSE, "t.rules:1: unknown field 'colour'" },
	{ "match \"x\" reason\n", SMTPDIAG_EPARSE, "t.rules:1: bad field 'reason'" },
	{ "match \"x\" reason=\n", SMTPDIAG_EPARSE, "t.rules:1: field 'reason' has no value" },
	{ "match \"x\" code=650 reason=filtered\n", SMTPDIAG_EPARSE, "t.rules:1: bad code '650'" },
	{ "match \"x\" code=55 reason=filtered\n", SMTPDIAG_EPARSE, "t.rules:1: bad code '55'" },
	{ "match \"x\" status=5.7 reason=filtered\n", SMTPDIAG_EPARSE, "t.rules:1: bad status '5.7'" },
	{ "match \"x\" status=6.1.1 reason=filtered\n", SMTPDIAG_EPARSE, "t.rules:1: bad status '6.1.1'" },
	{ "match \"x\" domain=*. reason=filtered\n", SMTPDIAG_EPARSE, "t.rules:1: bad domain '*.'" },
	{ "match \"x\" host=a/b reason=filtered\n", SMTPDIAG_EPARSE, "t.rules:1: bad host 'a/b'" },
	{ "match \"x\" hard=maybe\n", SMTPDIAG_EPARSE, "t.rules:1: hard takes yes or no" },
	{ "match \"x\" label=a/b\n", SMTPDIAG_EPARSE, "t.rules:1: bad label 'a/b'" },
	{ "match \"x\" label=abcdefghijabcdefghijabcdefghijabc\n", SMTPDIAG_ELIMIT, "t.rules:1: label longer than 32" },
	{ "match \"x\"\n", SMTPDIAG_EPARSE, "t.rules:1: the rule sets nothing" },
	{ "match \"x\" code=550\n", SMTPDIAG_EPARSE, "t.rules:1: the rule sets nothing" },
	{ "match \"x reason=filtered\n", SMTPDIAG_EPARSE, "t.rules:1: no closing \"" },
	{ "match \"\" reason=filtered\n", SMTPDIAG_EPARSE, "t.rules:1: empty pattern" },
	{ "match x reason=filtered\n", SMTPDIAG_EPARSE, "t.rules:1: match takes a text in double quotes" },
	{ "regex \"x\" reason=filtered\n", SMTPDIAG_EPARSE, "t.rules:1: regex takes a pattern between slashes" },
	{ "regex /x/i reason=filtered\n", SMTPDIAG_EPARSE, "t.rules:1: a space must follow the closing /" },
	{ "regex /a*/ reason=filtered\n", SMTPDIAG_EPARSE, "t.rules:1: bad regex: it matches an empty text" },
	/* patterns that match an empty text somewhere in every reply, though not all of it */
	{ "regex /$/ reason=filtered\n", SMTPDIAG_EPARSE, "t.rules:1: bad regex: it matches an empty text" },
	{ "regex /^/ reason=filtered\n", SMTPDIAG_EPARSE, "t.rules:1: bad regex: it matches an empty text" },
	{ "match \"x\" reason=filtered\nregex /\\b/ reason=filtered\n", SMTPDIAG_EPARSE,
	  "t.rules:2: bad regex: it matches an empty text" },
	{ "regex /(?:user|)/ reason=filtered\n", SMTPDIAG_EPARSE, "t.rules:1: bad regex: it matches an empty text" },
	{ "hello \"x\" reason=filtered\n", SMTPDIAG_EPARSE, "t.rules:1: a rule starts with match" },
	{ "match \"x\" code=550 reason=filtered\nmatch \"X\" code=550 reason=suspend\n", SMTPDIAG_EPARSE,
	  "t.rules:2: duplicate: the same pattern and limits as line 1" },
};

static void test_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		smtpdiag_rules *r = (smtpdiag_rules *)&r;
		smtpdiag_error err = { 0, "" };
		int rc = smtpdiag_rules_parse(bads[i].text, strlen(bads[i].text), "t.rules", &r, &err);
		if (rc != bads[i].code || strncmp(err.message, bads[i].msg, strlen(bads[i].msg)))
			print_message("%s-> %d %s\n", bads[i].text, rc, err.message);
		assert_int_equal(rc, bads[i].code);
		assert_int_equal(err.code, bads[i].code);
		assert_null(r);
		assert_memory_equal(err.message, bads[i].msg, strlen(bads[i].msg));
	}
}

/* Limits: line length, pattern length, rule count, file size. */
static void test_limits(void **state)
{
	size_t n = (SMTPDIAG_RULES_MAX + 1) * 32;
	char *text = malloc(n), line[SMTPDIAG_RULES_MAX_LINE + 64];
	smtpdiag_rules *r = NULL;
	smtpdiag_error err = { 0, "" };
	size_t k = 0;

	(void)state;
	assert_non_null(text);
	for (int i = 0; i <= SMTPDIAG_RULES_MAX; i++)
		k += (size_t)snprintf(text + k, n - k, "match \"t%d\" label=a\n", i);
	assert_int_equal(smtpdiag_rules_parse(text, k, "t.rules", &r, &err), SMTPDIAG_ELIMIT);
	assert_string_equal(err.message, "t.rules:1025: more than 1024 rules (SMTPDIAG_RULES_MAX)");
	memset(line, 'a', sizeof(line));
	memcpy(line, "match \"", 7);
	memcpy(line + 7 + SMTPDIAG_RULES_MAX_PATTERN + 1, "\" label=a", 9);
	assert_int_equal(smtpdiag_rules_parse(line, 7 + SMTPDIAG_RULES_MAX_PATTERN + 10, "t.rules", &r, &err),
			 SMTPDIAG_ELIMIT);
	assert_non_null(strstr(err.message, "t.rules:1: pattern longer than 1024 bytes"));
	assert_int_equal(smtpdiag_rules_parse(line, sizeof(line), "t.rules", &r, &err), SMTPDIAG_ELIMIT);
	assert_non_null(strstr(err.message, "t.rules:1: line longer than 4096 bytes"));
	free(text);
	text = calloc(1, SMTPDIAG_RULES_MAX_FILE + 1);
	assert_non_null(text);
	assert_int_equal(smtpdiag_rules_parse(text, SMTPDIAG_RULES_MAX_FILE + 1, "t.rules", &r, &err), SMTPDIAG_ELIMIT);
	free(text);
	assert_int_equal(smtpdiag_rules_load("/nonexistent/t.rules", &r, &err), SMTPDIAG_EIO);
	assert_non_null(strstr(err.message, "/nonexistent/t.rules: "));
}

/* ---- matching, through the scanner ---- */

/* A Postfix bounce of rcpt at relay: "550 5.1.1 <rcpt>: Recipient address rejected: TEXT". */
static void postfix_line(char *out, const char *rcpt, const char *relay, const char *reply)
{
	snprintf(out, LINE_MAX_T,
		 "Mar  3 09:00:02 mx1 postfix/smtp[2103]: 3F2A1B2C3D: to=<%s>, relay=%s[203.0.113.5]:25, "
		 "delay=0.61, delays=0.01/0.01/0/0.6, dsn=%.5s, status=%s (host %s[203.0.113.5] said: %s "
		 "(in reply to RCPT TO command))",
		 rcpt, relay, reply + 4, reply[0] == '4' ? "deferred" : "bounced", relay, reply);
}

typedef struct got {
	char reason[32], advice[32], label[40], first[96], last[96];
	int hard, retry;
} got;

static void scan_with(const smtpdiag_rules *r, const char *rcpt, const char *relay, const char *reply, got *g)
{
	smtpdiag_scanner *s = smtpdiag_scanner_new(SMTPDIAG_SCAN_UTC);
	char line[LINE_MAX_T];
	const smtpdiag_logrec *rec;
	int n = 0;

	assert_non_null(s);
	assert_int_equal(smtpdiag_scanner_set_rules(s, r), 0);
	postfix_line(line, rcpt, relay, reply);
	assert_int_equal(smtpdiag_scan_line(s, line, strlen(line)), 1);
	rec = smtpdiag_scanner_rec(s, 0);
	snprintf(g->reason, sizeof(g->reason), "%s", rec->reason);
	snprintf(g->advice, sizeof(g->advice), "%s", rec->advice);
	snprintf(g->label, sizeof(g->label), "%s", rec->label);
	g->hard = rec->hardbounce;
	g->retry = rec->retry;
	while (rec->evidence[n])
		n++;
	snprintf(g->first, sizeof(g->first), "%s", n ? rec->evidence[0] : "");
	snprintf(g->last, sizeof(g->last), "%s", n ? rec->evidence[n - 1] : "");
	smtpdiag_scanner_free(s);
}

#define UNKNOWN "550 5.1.1 <bob@example.org>: Recipient address rejected: User unknown in virtual mailbox table"

typedef struct match_case {
	const char *rules;
	const char *rcpt, *relay, *reply;
	const char *reason, *label; /* label "" when no rule must match */
} match_case;

static const match_case cases[] = {
	/* literal, any case */
	{ "match \"USER UNKNOWN in virtual\" reason=filtered label=a\n", "bob@example.org", "mx.example.org", UNKNOWN,
	  "filtered", "a" },
	/* a literal's metacharacters are plain text */
	{ "match \"rejected: user.*table\" reason=filtered label=a\n", "bob@example.org", "mx.example.org", UNKNOWN,
	  "userunknown", "" },
	/* regex */
	{ "regex /user (unknown|not found) in (virtual|local)/ reason=suspend label=b\n", "bob@example.org",
	  "mx.example.org", UNKNOWN, "suspend", "b" },
	/* code: exact, with x, and another one */
	{ "match \"user unknown\" code=550 reason=suspend label=c\n", "bob@example.org", "mx.example.org", UNKNOWN,
	  "suspend", "c" },
	{ "match \"user unknown\" code=5x0 reason=suspend label=c\n", "bob@example.org", "mx.example.org", UNKNOWN,
	  "suspend", "c" },
	{ "match \"user unknown\" code=551 reason=suspend label=c\n", "bob@example.org", "mx.example.org", UNKNOWN,
	  "userunknown", "" },
	/* status: exact, prefix, another one */
	{ "match \"user unknown\" status=5.1.1 reason=suspend label=d\n", "bob@example.org", "mx.example.org", UNKNOWN,
	  "suspend", "d" },
	{ "match \"user unknown\" status=5.1. reason=suspend label=d\n", "bob@example.org", "mx.example.org", UNKNOWN,
	  "suspend", "d" },
	{ "match \"user unknown\" status=5.7. reason=suspend label=d\n", "bob@example.org", "mx.example.org", UNKNOWN,
	  "userunknown", "" },
	{ "match \"user unknown\" status=5.1.10 reason=suspend label=d\n", "bob@example.org", "mx.example.org", UNKNOWN,
	  "userunknown", "" },
	/* domain: exact (any case), a subdomain pattern, another one */
	{ "match \"user unknown\" domain=EXAMPLE.org reason=suspend label=e\n", "bob@example.org", "mx.example.org",
	  UNKNOWN, "suspend", "e" },
	{ "match \"user unknown\" domain=*.example.org reason=suspend label=e\n", "bob@eu.example.org",
	  "mx.example.org", UNKNOWN, "suspend", "e" },
	{ "match \"user unknown\" domain=*.example.org reason=suspend label=e\n", "bob@example.org", "mx.example.org",
	  UNKNOWN, "userunknown", "" },
	{ "match \"user unknown\" domain=example.net reason=suspend label=e\n", "bob@example.org", "mx.example.org",
	  UNKNOWN, "userunknown", "" },
	/* host: the relay's name, its address, a subdomain pattern, another one */
	{ "match \"user unknown\" host=mx.example.org reason=suspend label=f\n", "bob@example.org", "mx.example.org",
	  UNKNOWN, "suspend", "f" },
	{ "match \"user unknown\" host=203.0.113.5 reason=suspend label=f\n", "bob@example.org", "mx.example.org",
	  UNKNOWN, "suspend", "f" },
	{ "match \"user unknown\" host=*.protection.outlook.com reason=suspend label=f\n", "bob@example.org",
	  "example-org.mail.protection.outlook.com", UNKNOWN, "suspend", "f" },
	{ "match \"user unknown\" host=*.outlook.com reason=suspend label=f\n", "bob@example.org", "mx.example.org",
	  UNKNOWN, "userunknown", "" },
	/* first match in file order wins, whatever the pattern's position */
	{ "match \"virtual mailbox table\" reason=suspend label=first\nmatch \"user unknown\" reason=filtered label=second\n",
	  "bob@example.org", "mx.example.org", UNKNOWN, "suspend", "first" },
	/* a first rule whose limits fail lets the next decide */
	{ "match \"user unknown\" code=551 reason=suspend label=first\nmatch \"user unknown\" reason=filtered label=second\n",
	  "bob@example.org", "mx.example.org", UNKNOWN, "filtered", "second" },
	/* UTF-8: a pattern with non-ASCII letters */
	{ "regex /utilisateur inconnu: d\xc3\xa9j\xc3\xa0 parti/ reason=hasmoved label=fr\n", "bob@example.org",
	  "mx.example.org", "550 5.1.1 utilisateur inconnu: D\xc3\xa9j\xc3\xa0 parti", "hasmoved", "fr" },
};

static void test_matching(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const match_case *c = &cases[i];
		smtpdiag_rules *r = parse_ok(c->rules);
		got g;
		scan_with(r, c->rcpt, c->relay, c->reply, &g);
		if (strcmp(g.reason, c->reason) || strcmp(g.label, c->label))
			print_message("case %zu: %s -> %s label '%s' (%s)\n", i, c->rules, g.reason, g.label, g.first);
		assert_string_equal(g.reason, c->reason);
		assert_string_equal(g.label, c->label);
		if (c->label[0])
			assert_memory_equal(g.first, "user:t.rules:", 13);
		else
			assert_null(strstr(g.first, "user:"));
		smtpdiag_rules_free(r);
	}
}

/* A rule's fields replace the engine's for those fields only. */
static void test_override(void **state)
{
	smtpdiag_rules *r;
	got g;

	(void)state;
	/* only the reason: mailboxfull's advice and retry come from the policy */
	r = parse_ok("\n\nmatch \"user unknown\" reason=mailboxfull\n");
	scan_with(r, "bob@example.org", "mx.example.org", UNKNOWN, &g);
	assert_string_equal(g.reason, "mailboxfull");
	assert_string_equal(g.advice, "retry");
	assert_int_equal(g.retry, 1);
	assert_int_equal(g.hard, 0);
	assert_string_equal(g.first, "user:t.rules:3 -> mailboxfull");
	assert_string_equal(g.label, "");
	smtpdiag_rules_free(r);
	/* only the advice and a label: the reason stays the engine's */
	r = parse_ok("match \"user unknown\" advice=contact-recipient-admin label=vip\n");
	scan_with(r, "bob@example.org", "mx.example.org", UNKNOWN, &g);
	assert_string_equal(g.reason, "userunknown");
	assert_string_equal(g.advice, "contact-recipient-admin");
	assert_int_equal(g.hard, 1);
	assert_string_equal(g.last, "user:t.rules:1 -> advice=contact-recipient-admin label=vip");
	smtpdiag_rules_free(r);
	/* hard=no alone; retry=yes makes it no hard bounce; hard=yes is not retried */
	r = parse_ok("match \"user unknown\" hard=no\n");
	scan_with(r, "bob@example.org", "mx.example.org", UNKNOWN, &g);
	assert_int_equal(g.hard, 0);
	assert_string_equal(g.advice, "suppress-recipient");
	smtpdiag_rules_free(r);
	r = parse_ok("match \"user unknown\" retry=yes\n");
	scan_with(r, "bob@example.org", "mx.example.org", UNKNOWN, &g);
	assert_int_equal(g.hard, 0);
	assert_int_equal(g.retry, 1);
	smtpdiag_rules_free(r);
	r = parse_ok("match \"mailbox full\" hard=yes reason=userunknown\n");
	scan_with(r, "bob@example.org", "mx.example.org", "452 4.2.2 <bob@example.org>: mailbox full", &g);
	assert_string_equal(g.reason, "userunknown");
	assert_int_equal(g.hard, 1);
	assert_int_equal(g.retry, 0);
	smtpdiag_rules_free(r);
}

/* The same rules through explain and decode; detached rules no longer count. */
static void test_explain_decode(void **state)
{
	static const char dsn[] =
		"From: MAILER-DAEMON@mx1.example.com\nTo: alice@example.com\nSubject: Undelivered Mail\n"
		"MIME-Version: 1.0\nContent-Type: multipart/report; report-type=delivery-status; boundary=\"b\"\n\n"
		"--b\nContent-Type: text/plain\n\nnot delivered\n\n--b\nContent-Type: message/delivery-status\n\n"
		"Reporting-MTA: dns; mx1.example.com\n\nFinal-Recipient: rfc822; bob@example.org\nAction: failed\n"
		"Status: 5.1.1\nRemote-MTA: dns; mx.example.org\nDiagnostic-Code: smtp; " UNKNOWN "\n\n--b--\n";
	smtpdiag_rules *r = parse_ok("match \"user unknown\" domain=example.org reason=filtered label=x\n");
	smtpdiag_decoder *d = smtpdiag_decoder_new(0);
	smtpdiag_explanation *e;
	smtpdiag_error err = { 0, "" };
	smtpdiag_buf b = { 0 };

	(void)state;
	assert_int_equal(smtpdiag_explain_with_rules(UNKNOWN, strlen(UNKNOWN), SMTPDIAG_EXPLAIN_TEXT, r, &e, &err), 0);
	assert_string_equal(e->reason, "filtered");
	assert_string_equal(e->label, "x");
	assert_string_equal(e->evidence[0], "user:t.rules:1 -> filtered");
	smtpdiag_explanation_json(e, &b);
	assert_non_null(strstr(b.data, ",\"label\":\"x\"}"));
	smtpdiag_buf_free(&b);
	smtpdiag_explanation_free(e);
	assert_non_null(d);
	assert_int_equal(smtpdiag_decoder_set_rules(d, r), 0);
	assert_int_equal(smtpdiag_decode(d, dsn, strlen(dsn), NULL, &err), 1);
	assert_string_equal(smtpdiag_decoder_fact(d, 0)->reason, "filtered");
	assert_string_equal(smtpdiag_decoder_fact(d, 0)->label, "x");
	assert_int_equal(smtpdiag_decoder_set_rules(d, NULL), 0);
	assert_int_equal(smtpdiag_decode(d, dsn, strlen(dsn), NULL, &err), 1);
	assert_string_equal(smtpdiag_decoder_fact(d, 0)->reason, "userunknown");
	smtpdiag_fact_json(smtpdiag_decoder_fact(d, 0), &b);
	assert_null(strstr(b.data, "\"label\""));
	smtpdiag_buf_free(&b);
	smtpdiag_decoder_free(d);
	smtpdiag_rules_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_file),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_matching),
		cmocka_unit_test(test_override),
		cmocka_unit_test(test_explain_decode),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
