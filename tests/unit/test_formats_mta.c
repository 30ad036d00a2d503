/* test_formats_mta.c - the MTA format modules (Postfix, Sendmail, Exim, qmail,
 * Courier, OpenSMTPD, ...) on small hand-written bounces in tests/fixtures/mta
 * (cmocka, table-driven). Run from the repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "smtpdiag.h"
#include "bounce/dsnutil.h"

#define DIR "tests/fixtures/mta/"
#define FIXTURE_MAX (256u << 10)

/* What a verdict must say; NULL is not checked, "" must be empty. */
typedef struct expect {
	const char *file;
	int at;               /* index among the email's verdicts */
	const char *rcpt;
	const char *status;
	const char *code;     /* reply code */
	const char *text;     /* a piece of diagnosticcode */
	const char *command;
	const char *by;       /* decodedby */
} expect;

static const expect table[] = {
	{ "postfix-dsn.eml", 0, "bob@rcpt.example", "5.1.1", "550", "User unknown in virtual mailbox table", "RCPT", "postfix" },
	{ "postfix-dsn.eml", 1, "carol@rcpt.example", "5.2.2", "552", "Mailbox full", "RCPT", "postfix" },
	{ "postfix-text.eml", 0, "erin@far.example", NULL, "550", "said: 550 <erin@far.example>: User unknown", "DATA", "postfix" },
	{ "sendmail.eml", 0, "grace@rcpt.example", "5.7.1", "550", "Relaying denied", "RCPT", "sendmail" },
	{ "exim.eml", 0, "ivan@rcpt.example", "5.1.1", "550", "after RCPT TO:<ivan@rcpt.example>", "RCPT", "exim" },
	{ "exim-expired.eml", 0, "judy@slow.example", "4.4.7", "", "retry timeout exceeded", "", "exim" },
	{ "mxlogic.eml", 0, "leo@rcpt.example", "5.1.1", "550", "User unknown in local recipient table", NULL, "mxlogic" },
	{ "dragonfly.eml", 0, "nina@rcpt.example", "5.2.2", "550", "Mailbox full", "RCPT", "dragonfly" },
	{ "mfilter.eml", 0, "peggy@rcpt.example", "5.1.1", "550", "unknown user", "RCPT", "mfilter" },
	{ "qmail.eml", 0, "rupert@rcpt.example", "5.1.1", "550", "Remote host said: 550 5.1.1", "RCPT", "qmail" },
	{ "qmail.eml", 1, "sybil@gone.example", "5.1.2", "", "couldn't find any host named", NULL, "qmail" },
	{ "opensmtpd.eml", 0, "ursula@rcpt.example", "5.1.1", "550", "Recipient address rejected", NULL, "opensmtpd" },
	{ "opensmtpd.eml", 1, "victor@nowhere.example", NULL, "", "Domain does not exist", NULL, "opensmtpd" },
	{ "courier.eml", 0, "xavier@rcpt.example", "5.1.1", "550", "User Unknown", "RCPT", "courier" },
	{ "messagingserver.eml", 0, "zoe@rcpt.example", "5.1.1", "550", "User Unknown", NULL, "messagingserver" },
	{ "v5sendmail.eml", 0, "bea@rcpt.example", NULL, "550", "No such user here", "RCPT", "v5sendmail" },
	{ "x1.eml", 0, "dee@rcpt.example", NULL, "", "User unknown", NULL, "x1" },
	{ "x2.eml", 0, "fay@rcpt.example", NULL, "", "over quota", NULL, "x2" },
	{ "x3.eml", 0, "hal@rcpt.example", "5.1.1", "550", "No such user here", "RCPT", "x3" },
	{ "x6.eml", 0, "jon@rcpt.example", "5.1.1", "550", "rejected recipient", "RCPT", "x6" },
	{ "imailserver.eml", 0, "lou@rcpt.example", NULL, "", "Unknown user: lou@rcpt.example", NULL, "imailserver" },
	{ "activehunter.eml", 0, "ned@rcpt.example", NULL, "550", "no mailbox here by that name", NULL, "activehunter" },
	{ "apachejames.eml", 0, "pat@james.rcpt.example", NULL, "550", "no such user here", NULL, "apachejames" },
	{ "fml.eml", 0, "lists@ml.sender.example", NULL, "", "Duplicated Message-ID", NULL, "fml" },
	{ "mailmarshal.eml", 0, "sue@rcpt.example", "5.1.1", "550", "User unknown", NULL, "mailmarshal" },
	{ "mailfoundry.eml", 0, "uma@rcpt.example", "5.2.2", "552", "over quota", NULL, "mailfoundry" },
	{ "trendmicro.eml", 0, "walt@rcpt.example", "5.1.1", "550", "user unknown", "RCPT", "trendmicro" },
	{ "domino.eml", 0, "yuri@rcpt.example", NULL, "", "not listed in Domino Directory", NULL, "domino" },
	{ "notes.eml", 0, "amy@rcpt.example", NULL, "", "not listed in public Name & Address Book", NULL, "notes" },
};

/* Reasons the formats themselves state (their own sentences). */
static const struct {
	const char *file;
	int at;
	const char *reason;
} stated[] = {
	{ "exim-expired.eml", 0, "expired" },   { "qmail.eml", 1, "hostunknown" },
	{ "opensmtpd.eml", 1, "hostunknown" },  { "imailserver.eml", 0, "userunknown" },
	{ "fml.eml", 0, "systemerror" },        { "domino.eml", 0, "userunknown" },
	{ "notes.eml", 0, "userunknown" },      { "dragonfly.eml", 0, "mailboxfull" },
};

static const struct {
	const char *file;
	int n;
} counts[] = {
	{ "postfix-dsn.eml", 2 }, { "qmail.eml", 2 }, { "opensmtpd.eml", 2 }, { "sendmail.eml", 1 },
	{ "exim.eml", 1 }, { "not-failure-notice.eml", 0 }, { "not-postfix.eml", 0 },
};

static char *load(const char *name, size_t *n)
{
	char path[256];
	char *buf = malloc(FIXTURE_MAX);
	FILE *f;

	snprintf(path, sizeof(path), DIR "%s", name);
	f = fopen(path, "rb");
	if (!f || !buf) {
		free(buf);
		if (f)
			fclose(f);
		fail_msg("cannot read %s", path);
		return NULL;
	}
	*n = fread(buf, 1, FIXTURE_MAX, f);
	fclose(f);
	return buf;
}

/* Decode a fixture; returns the verdict count (the decoder keeps the facts). */
static int decode_file(smtpdiag_decoder *d, const char *name)
{
	size_t n = 0;
	char *msg = load(name, &n);
	smtpdiag_error err;
	int rc = smtpdiag_decode(d, msg, n, name, &err);

	free(msg);
	if (rc < 0)
		fail_msg("%s: error %d (%s)", name, rc, err.message);
	return rc;
}

static void check_str(const char *file, const char *what, const char *want, const char *got)
{
	if (want && strcmp(want, got) != 0)
		fail_msg("%s: %s: want \"%s\", got \"%s\"", file, what, want, got);
}

static void test_table(void **state)
{
	smtpdiag_decoder *d = smtpdiag_decoder_new(0);

	(void)state;
	assert_non_null(d);
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		const expect *e = &table[i];
		int n = decode_file(d, e->file);
		const smtpdiag_fact *f;

		if (n <= e->at)
			fail_msg("%s: %d verdicts, want #%d", e->file, n, e->at);
		f = smtpdiag_decoder_fact(d, (size_t)e->at);
		check_str(e->file, "recipient", e->rcpt, f->recipient);
		check_str(e->file, "status", e->status, f->deliverystatus);
		check_str(e->file, "replycode", e->code, f->replycode);
		check_str(e->file, "command", e->command, f->command);
		check_str(e->file, "decodedby", e->by, f->decodedby);
		if (e->text && !strstr(f->diagnosticcode, e->text))
			fail_msg("%s: diagnosticcode \"%s\" lacks \"%s\"", e->file, f->diagnosticcode, e->text);
	}
	smtpdiag_decoder_free(d);
}

static void test_stated_reasons(void **state)
{
	smtpdiag_decoder *d = smtpdiag_decoder_new(0);

	(void)state;
	for (size_t i = 0; i < sizeof(stated) / sizeof(stated[0]); i++) {
		int n = decode_file(d, stated[i].file);
		assert_true(n > stated[i].at);
		check_str(stated[i].file, "reason", stated[i].reason,
			  smtpdiag_decoder_fact(d, (size_t)stated[i].at)->reason);
	}
	smtpdiag_decoder_free(d);
}

static void test_counts(void **state)
{
	smtpdiag_decoder *d = smtpdiag_decoder_new(0);

	(void)state;
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		int n = decode_file(d, counts[i].file);
		if (n != counts[i].n)
			fail_msg("%s: %d verdicts, want %d", counts[i].file, n, counts[i].n);
	}
	smtpdiag_decoder_free(d);
}

/* OpenSMTPD's delay notice, asked for: the record of its text. */
static void test_delay_notice(void **state)
{
	smtpdiag_decoder *d = smtpdiag_decoder_new(0);
	const smtpdiag_fact *f;

	(void)state;
	assert_int_equal(decode_file(d, "opensmtpd-delay.eml"), 1);
	f = smtpdiag_decoder_fact(d, 0);
	check_str("opensmtpd-delay.eml", "recipient", "wendy@busy.example", f->recipient);
	check_str("opensmtpd-delay.eml", "replycode", "421", f->replycode);
	check_str("opensmtpd-delay.eml", "status", "4.3.2", f->deliverystatus);
	smtpdiag_decoder_free(d);
	/* a delay notice is left out when asked to */
	d = smtpdiag_decoder_new(SMTPDIAG_DECODE_NO_DELAYED);
	assert_int_equal(decode_file(d, "opensmtpd-delay.eml"), 0);
	smtpdiag_decoder_free(d);
}

/* The same email with CRLF and with bare CR line ends gives the same verdicts. */
static char *with_eol(const char *s, size_t n, const char *eol, size_t *out)
{
	size_t el = strlen(eol), k = 0;
	char *o = malloc(n * 2 + 1);

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n') {
			memcpy(o + k, eol, el);
			k += el;
		} else {
			o[k++] = s[i];
		}
	}
	*out = k;
	return o;
}

static void same_verdicts(const char *file, const char *eol)
{
	smtpdiag_decoder *a = smtpdiag_decoder_new(0), *b = smtpdiag_decoder_new(0);
	size_t n = 0, m = 0;
	char *msg = load(file, &n), *alt = with_eol(msg, n, eol, &m);
	int na = smtpdiag_decode(a, msg, n, NULL, NULL), nb = smtpdiag_decode(b, alt, m, NULL, NULL);

	if (na != nb)
		fail_msg("%s: %d verdicts with LF, %d with other line ends", file, na, nb);
	for (int i = 0; i < na; i++) {
		const smtpdiag_fact *x = smtpdiag_decoder_fact(a, (size_t)i), *y = smtpdiag_decoder_fact(b, (size_t)i);
		check_str(file, "recipient", x->recipient, y->recipient);
		check_str(file, "status", x->deliverystatus, y->deliverystatus);
		check_str(file, "replycode", x->replycode, y->replycode);
		check_str(file, "decodedby", x->decodedby, y->decodedby);
	}
	free(msg);
	free(alt);
	smtpdiag_decoder_free(a);
	smtpdiag_decoder_free(b);
}

static void test_line_ends(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (i && !strcmp(table[i].file, table[i - 1].file))
			continue;
		same_verdicts(table[i].file, "\r\n");
		same_verdicts(table[i].file, "\r");
	}
}

/* Every prefix of a bounce decodes, or is refused as no email, without a crash. */
static void test_truncated(void **state)
{
	static const char *const files[] = { "postfix-dsn.eml", "exim.eml", "qmail.eml", "courier.eml",
					     "messagingserver.eml", "v5sendmail.eml" };
	smtpdiag_decoder *d = smtpdiag_decoder_new(0);

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		size_t n = 0;
		char *msg = load(files[i], &n);
		for (size_t k = 1; k < n; k += 7) {
			char *cut = malloc(k);
			memcpy(cut, msg, k); /* exact length: no NUL after the input */
			int rc = smtpdiag_decode(d, cut, k, NULL, NULL);
			/* a prefix too short to hold one header field is no email: an error */
			assert_true(rc >= 0 || rc == SMTPDIAG_EPARSE);
			free(cut);
		}
		free(msg);
	}
	smtpdiag_decoder_free(d);
}

/* A Postfix bounce with more recipients than SD_MAX_RECIPIENTS stops at the
 * limit instead of failing. */
static void test_many_recipients(void **state)
{
	smtpdiag_decoder *d = smtpdiag_decoder_new(0);
	size_t cap = 1u << 20, k = 0;
	char *m = malloc(cap);
	int n;

	(void)state;
	k += (size_t)snprintf(m + k, cap - k,
			      "From: MAILER-DAEMON@mx.example (Mail Delivery System)\n"
			      "Subject: Undelivered Mail Returned to Sender\n\n"
			      "This is the mail system at host mx.example.\n\n"
			      "                   The mail system\n\n");
	for (int i = 0; i < 1500; i++)
		k += (size_t)snprintf(m + k, cap - k, "<u%d@rcpt.example>: host mx.rcpt.example[192.0.2.1] said: "
				      "550 5.1.1 User unknown (in reply to RCPT TO command)\n\n", i);
	n = smtpdiag_decode(d, m, k, NULL, NULL);
	assert_int_equal(n, 1024);
	assert_string_equal(smtpdiag_decoder_fact(d, 0)->recipient, "u0@rcpt.example");
	free(m);
	smtpdiag_decoder_free(d);
}

/* dsn_sweep returns the text itself exactly when it holds no tab, line end,
 * double blank or " --": each of them, and the look-alikes "\f" and " -x",
 * at every place of texts of 3-40 bytes. */
static void test_sweep_places(void **state)
{
	static const struct { const char *ins; int sweeps; } ins[] = {
		{ "\t", 1 }, { "\r", 1 }, { "\n", 1 }, { "  ", 1 }, { " --", 1 }, { " -x", 0 }, { "\f", 0 }, { " x", 0 },
	};
	sd_arena a;
	char t[64];

	(void)state;
	sd_arena_init(&a);
	for (size_t n = 3; n <= 40; n++)
		for (size_t k = 0; k < sizeof(ins) / sizeof(ins[0]); k++)
			for (size_t at = 1; at + strlen(ins[k].ins) < n; at++) {
				sd_str out;
				for (size_t i = 0; i < n; i++)
					t[i] = (char)('a' + i % 26);
				memcpy(t + at, ins[k].ins, strlen(ins[k].ins));
				out = dsn_sweep(&a, (sd_str){ t, n });
				if ((out.p == t) != !ins[k].sweeps)
					print_message("n %zu at %zu \"%s\": swept %d\n", n, at, ins[k].ins, out.p != t);
				assert_int_equal(out.p == t, !ins[k].sweeps);
			}
	sd_arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_stated_reasons),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_delay_notice),
		cmocka_unit_test(test_line_ends),
		cmocka_unit_test(test_sweep_places),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_many_recipients),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
