/* cmd_decode.c - smtpdiag decode: bounce emails to one verdict per recipient. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_store.h"
#include "input.h"
#include "opts.h"
#include "tally.h"

enum { D_FORMAT, D_SUMMARY, D_DELIVERED, D_VACATION, D_STORE, D_END };

static const cli_opt opts[] = {
	[D_FORMAT] = { "format", 0, CLI_VALUE, "jsonl|text",
		       "JSON Lines (default; Sisimai's names) or a table" },
	[D_SUMMARY] = { "summary", 0, CLI_FLAG, NULL,
			"print only counts: by reason, recipient domain and advice, and inputs "
			"read = bounces + non-bounces + errors" },
	[D_DELIVERED] = { "delivered", 0, CLI_FLAG, NULL, "also report successful-delivery notifications" },
	[D_VACATION] = { "vacation", 0, CLI_FLAG, NULL, "also report auto-replies (RFC 3834)" },
	[D_STORE] = { "store", 0, CLI_VALUE, "URL",
		      "record the verdicts in the store (sqlite:PATH or postgresql://...) instead of "
		      "printing them; the counts go to stderr" },
	[D_END] = { NULL, 0, 0, NULL, NULL }
};

static const cli_cmd decode_cmd = {
	"decode",
	"usage: smtpdiag decode [OPTIONS] PATH...\n"
	"\n"
	"Decode bounce emails into one verdict per recipient. A PATH is a file holding\n"
	"one email, an mbox, a Maildir, any directory (read recursively), or '-' for\n"
	"standard input. LF, CRLF and CR line ends are accepted; inputs are recognised\n"
	"by content, not by name.\n",
	"Inputs that cannot be decoded (empty, truncated, not mail, over a limit) are\n"
	"reported on stderr, one line each, and counted; they never stop the run.\n"
	"Exit status: 0 every input read, 1 some inputs failed, 2 bad usage, 3 internal failure.\n",
	opts, 0
};

typedef struct run {
	smtpdiag_decoder *dec;
	smtpdiag_buf out;
	unsigned flags;  /* SMTPDIAG_DECODE_* */
	int text;
	int summary;
	int store;       /* --store given */
	int store_dead;  /* the store failed: stop recording */
	cli_store st;
	tally t;
} run;

/* The buffer of standard output when it is no terminal (glibc takes a size
 * only with a buffer); it must outlive the stream, hence static. */
static char outbuf[(size_t)64 << 10];

static void print_text(run *r, const smtpdiag_fact *f)
{
	fprintf(stdout, "%-32.32s %-16s %-7s %-3s %-5s %-24s %s\n", f->recipient, f->reason,
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

static void to_store(run *r, const smtpdiag_fact *f, const char *origin)
{
	smtpdiag_error err = { 0, "" };
	int rc;

	if (r->store_dead)
		return;
	if ((rc = smtpdiag_store_add_fact(r->st.st, f, &err)) < 0)
		r->store_dead = cli_store_bad(&r->st, "decode", origin, 0, rc, &err);
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
		if (r->store) {
			to_store(r, f, origin);
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

static int on_opt(const cli_parse *p, int id, void *ctx)
{
	run *r = ctx;

	switch (id) {
	case D_FORMAT:
		return cli_format_text(p, &r->text);
	case D_SUMMARY:
		r->summary = 1;
		break;
	case D_DELIVERED:
		r->flags |= SMTPDIAG_DECODE_DELIVERED;
		break;
	case D_VACATION:
		r->flags |= SMTPDIAG_DECODE_VACATION;
		break;
	case D_STORE:
		r->store = 1;
		r->st.url = p->value;
		break;
	}
	return -1;
}

int cmd_decode(int argc, char **argv)
{
	run r;
	int first = argc, rc;
	input_walker w;

	memset(&r, 0, sizeof(r));
	if ((rc = cli_parse_args(&decode_cmd, argc, argv, on_opt, &r, &first)) >= 0)
		return rc;
	if (first == argc)
		return cli_usage(&decode_cmd, "no input given");
	if (r.store && !r.summary && (rc = cli_store_open(&r.st, "decode")) >= 0)
		return rc;
	r.store = r.store && !r.summary;
	r.dec = smtpdiag_decoder_new(r.flags);
	if (!r.dec) {
		cli_err("decode: cannot create a decoder (out of memory, or the rule database failed to load)");
		if (r.store)
			smtpdiag_store_close(r.st.st);
		return EXIT_FAIL_;
	}
	tally_init(&r.t);
	if (!isatty(STDOUT_FILENO)) /* fewer, larger writes: one per 64 KiB of JSON Lines */
		setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	if (r.text && !r.summary && !r.store)
		printf("%-32s %-16s %-7s %-3s %-5s %-24s %s\n", "RECIPIENT", "REASON", "STATUS", "RC", "BOUNCE", "ADVICE", "ORIGIN");
	w.on_msg = on_msg;
	w.on_err = on_err;
	w.ctx = &r;
	for (int i = first; i < argc; i++)
		input_walk(&w, argv[i]);
	if (r.summary)
		tally_print(&r.t, stdout);
	rc = r.t.errors ? EXIT_SOME_ : EXIT_OK_;
	if (r.store) {
		smtpdiag_store_counts c;
		smtpdiag_store_counts_get(r.st.st, &c);
		rc = c.errors && rc == EXIT_OK_ ? EXIT_SOME_ : rc;
		if (cli_store_finish(&r.st, "decode", stderr) || r.store_dead)
			rc = EXIT_FAIL_;
	}
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
