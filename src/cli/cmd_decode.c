/* cmd_decode.c - smtpdiag decode: bounce emails to one verdict per recipient. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "input.h"
#include "tally.h"

static const char help[] =
	"usage: smtpdiag decode [OPTIONS] PATH...\n"
	"\n"
	"Decode bounce emails into one verdict per recipient. A PATH is a file holding\n"
	"one email, an mbox, a Maildir, any directory (read recursively), or '-' for\n"
	"standard input. LF, CRLF and CR line ends are accepted; inputs are recognised\n"
	"by content, not by name.\n"
	"\n"
	"options:\n"
	"  --format jsonl|text  JSON Lines (default; Sisimai's field names) or a table\n"
	"  --summary            print only counts: by reason, recipient domain and\n"
	"                       advice, and inputs read = bounces + non-bounces + errors\n"
	"  --delivered          also report successful-delivery notifications\n"
	"  --vacation           also report auto-replies (RFC 3834)\n"
	"  -h, --help           this help\n"
	"\n"
	"Inputs that cannot be decoded (empty, truncated, not mail, over a limit) are\n"
	"reported on stderr, one line each, and counted; they never stop the run.\n"
	"Exit status: 0 every input read, 1 some inputs failed, 2 bad usage, 3 internal failure.\n";

typedef struct run {
	smtpdiag_decoder *dec;
	smtpdiag_buf out;
	int text;
	int summary;
	tally t;
} run;

/* The buffer of standard output when it is no terminal (glibc takes a size
 * only with a buffer); it must outlive the stream, hence static. */
static char outbuf[(size_t)64 << 10];

static void print_text(run *r, const smtpdiag_fact *f)
{
	cli_line(stdout, "%-32.32s %-16s %-7s %-3s %-5s %-24s %s", f->recipient, f->reason,
		f->deliverystatus, f->replycode[0] ? f->replycode : "-", f->hardbounce ? "hard" : "soft",
		f->advice, f->origin);
	(void)r;
}

/* JSON Lines are collected in r->out and written OUT_CHUNK bytes at a time. */
#define OUT_CHUNK ((size_t)64 << 10)

static void out_flush(run *r)
{
	if (r->out.len)
		fwrite(r->out.data, 1, r->out.len, stdout);
	r->out.len = 0;
}

static void on_msg(void *ctx, const char *origin, const char *msg, size_t len)
{
	run *r = ctx;
	smtpdiag_error err = { 0, "" };
	int n = smtpdiag_decode(r->dec, msg, len, origin, &err);
	size_t mark;

	r->t.inputs++;
	if (n < 0) {
		r->t.errors++;
		cli_err("decode: %s: %s", origin, err.message[0] ? err.message : smtpdiag_strerror(n));
		return;
	}
	if (n == 0) {
		r->t.nonbounces++;
		return;
	}
	r->t.bounces++;
	for (int i = 0; i < n; i++) {
		const smtpdiag_fact *f = smtpdiag_decoder_fact(r->dec, (size_t)i);
		if (r->summary) {
			tally_fact(&r->t, f->reason, f->destination, f->advice);
			continue;
		}
		if (r->text) {
			print_text(r, f);
			continue;
		}
		mark = r->out.len;
		smtpdiag_fact_json(f, &r->out);
		if (r->out.oom) {
			cli_err("decode: %s: out of memory writing JSON", origin);
			r->out.oom = 0;
			r->out.len = mark;
			continue;
		}
		r->out.data[r->out.len++] = '\n';
		if (r->out.len >= OUT_CHUNK)
			out_flush(r);
	}
}

static void on_err(void *ctx, const char *origin, const char *why)
{
	run *r = ctx;

	r->t.inputs++;
	r->t.errors++;
	cli_err("decode: %s: %s", origin, why);
}

static int usage_error(const char *msg, const char *arg)
{
	cli_err("decode: %s%s%s (try 'smtpdiag decode --help')", msg, arg ? " " : "", arg ? arg : "");
	return EXIT_USAGE_;
}

int cmd_decode(int argc, char **argv)
{
	run r;
	unsigned flags = 0;
	int npaths = 0, rc;
	input_walker w;

	memset(&r, 0, sizeof(r));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(help, stdout);
			return EXIT_OK_;
		} else if (!strcmp(a, "--delivered")) {
			flags |= SMTPDIAG_DECODE_DELIVERED;
		} else if (!strcmp(a, "--vacation")) {
			flags |= SMTPDIAG_DECODE_VACATION;
		} else if (!strcmp(a, "--summary")) {
			r.summary = 1;
		} else if (!strcmp(a, "--format") || !strncmp(a, "--format=", 9)) {
			const char *v = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
			if (!v)
				return usage_error("--format needs jsonl or text", NULL);
			if (!strcmp(v, "text"))
				r.text = 1;
			else if (strcmp(v, "jsonl") && strcmp(v, "json"))
				return usage_error("unknown format", v);
		} else if (a[0] == '-' && a[1]) {
			return usage_error("unknown option", a);
		} else {
			argv[++npaths] = argv[i];
		}
	}
	if (!npaths)
		return usage_error("no input given", NULL);
	r.dec = smtpdiag_decoder_new(flags);
	if (!r.dec) {
		cli_err("decode: cannot create a decoder (out of memory, or the rule database failed to load)");
		return EXIT_FAIL_;
	}
	tally_init(&r.t);
	if (!isatty(STDOUT_FILENO)) /* fewer, larger writes: one per 64 KiB of JSON Lines */
		setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	if (r.text && !r.summary)
		printf("%-32s %-16s %-7s %-3s %-5s %-24s %s\n", "RECIPIENT", "REASON", "STATUS", "RC", "BOUNCE", "ADVICE", "ORIGIN");
	w.on_msg = on_msg;
	w.on_err = on_err;
	w.ctx = &r;
	for (int i = 1; i <= npaths; i++)
		input_walk(&w, argv[i]);
	if (r.summary)
		tally_print(&r.t, stdout);
	rc = r.t.errors ? EXIT_SOME_ : EXIT_OK_;
	out_flush(&r);
	if (fflush(stdout) != 0) {
		cli_err("decode: writing output: %s", strerror(errno));
		rc = EXIT_FAIL_;
	}
	tally_free(&r.t);
	smtpdiag_buf_free(&r.out);
	smtpdiag_decoder_free(r.dec);
	return rc;
}
