/* fuzz_scan.c - the log line scanner on arbitrary bytes: each line of the input
 * (and the whole input as one line), every record checked and written as JSON.
 * The lines of an input go through one scanner in turn, so a CSV header line
 * (PowerMTA, Exchange, Microsoft 365) is in force for the lines after it.
 * The lines also go to a message joiner and an incident aggregator: every
 * message record they write is a JSON object on a line of its own, and the
 * joiner's counts add up (emitted = closed + past the window + at the end). */
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "smtpdiag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const smtpdiag_logrec *r, smtpdiag_buf *b)
{
	const char *s[] = { r->format, r->timezoneoffset, r->host, r->program, r->queueid, r->recipient,
			    r->orig_recipient, r->sender, r->relay, r->action, r->replycode, r->status,
			    r->dsn, r->diagnosticcode, r->command, r->reason, r->advice };

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		if (!s[i])
			__builtin_trap();
	if (strlen(r->replycode) != 0 && strlen(r->replycode) != 3)
		__builtin_trap();
	if (r->delay < -1 || (r->hardbounce && r->retry))
		__builtin_trap();
	b->len = 0;
	smtpdiag_logrec_json(r, b);
	if (!b->oom && (b->len < 2 || b->data[0] != '{' || b->data[b->len - 1] != '}'))
		__builtin_trap();
}

/* JSON Lines: each line one object. */
static void check_lines(const smtpdiag_buf *o)
{
	size_t st = 0;

	for (size_t i = 0; !o->oom && i < o->len; i++)
		if (o->data[i] == '\n') {
			if (i - st < 2 || o->data[st] != '{' || o->data[i - 1] != '}')
				__builtin_trap();
			st = i + 1;
		}
	if (!o->oom && st != o->len)
		__builtin_trap();
}

static void line(smtpdiag_scanner *s, const char *p, size_t n, smtpdiag_buf *b, smtpdiag_joiner *j,
		 smtpdiag_incidents *g, smtpdiag_buf *o)
{
	int rc = smtpdiag_scan_line(s, p, n);

	if (rc > SMTPDIAG_SCAN_MAX_RECORDS || (rc < 0 && rc != SMTPDIAG_EPARSE && rc != SMTPDIAG_ELIMIT))
		__builtin_trap();
	for (int i = 0; i < rc; i++) {
		check(smtpdiag_scanner_rec(s, (size_t)i), b);
		if (g)
			(void)smtpdiag_incidents_add(g, smtpdiag_scanner_rec(s, (size_t)i));
	}
	if (smtpdiag_scanner_rec(s, rc > 0 ? (size_t)rc : 0))
		__builtin_trap();
	if (j) {
		(void)smtpdiag_joiner_line(j, s, rc, p, n);
		o->len = 0;
		(void)smtpdiag_joiner_take(j, o);
		check_lines(o);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static smtpdiag_scanner *utc, *local;
	smtpdiag_buf b = { NULL, 0, 0, 0 };
	const char *p = (const char *)data, *end = p + size, *nl;

	if (!utc) {
		utc = smtpdiag_scanner_new(SMTPDIAG_SCAN_UTC);
		local = smtpdiag_scanner_new(0);
		if (!utc || !local)
			__builtin_trap();
		smtpdiag_scanner_reftime(utc, 1717200000);
	}
	smtpdiag_scanner_reset(utc); /* each input is a file of its own: no CSV header from the last */
	smtpdiag_scanner_reset(local);
	smtpdiag_joiner *j = smtpdiag_joiner_new(3600);
	smtpdiag_incidents *g = smtpdiag_incidents_new();
	smtpdiag_buf o = { NULL, 0, 0, 0 };

	if (!j || !g)
		__builtin_trap();
	line(utc, p, size, &b, NULL, NULL, &o);
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		line(local, p, nl ? (size_t)(nl - p) : (size_t)(end - p), &b, j, g, &o);
		p = nl ? nl + 1 : end;
	}
	do {
		o.len = 0;
	} while (smtpdiag_joiner_finish(j, &o) > 0 && (check_lines(&o), 1));
	if (smtpdiag_joiner_count(j, SMTPDIAG_JOIN_OPEN) != 0 ||
	    smtpdiag_joiner_count(j, SMTPDIAG_JOIN_EMITTED) !=
		    smtpdiag_joiner_count(j, SMTPDIAG_JOIN_CLOSED) + smtpdiag_joiner_count(j, SMTPDIAG_JOIN_WINDOWED) +
			    smtpdiag_joiner_count(j, SMTPDIAG_JOIN_ATEND))
		__builtin_trap();
	o.len = 0;
	(void)smtpdiag_incidents_json(g, &o);
	check_lines(&o);
	o.len = 0;
	(void)smtpdiag_incidents_text(g, &o);
	smtpdiag_joiner_free(j);
	smtpdiag_incidents_free(g);
	smtpdiag_buf_free(&o);
	smtpdiag_buf_free(&b);
	return 0;
}
