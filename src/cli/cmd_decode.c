/* cmd_decode.c - smtpdiag decode: bounce emails to one verdict per recipient. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_store.h"
#include "input.h"
#include "opts.h"
#include "tally.h"
#include "webhook.h"

enum { D_FORMAT, D_SUMMARY, D_DELIVERED, D_VACATION, D_DELAYED, D_RULES, D_WHY, D_ESP, D_ALL_EVENTS, D_TAXONOMY, D_REASONS, D_STORE,
       D_WEBHOOK, D_WEBHOOK_SECRET, D_WEBHOOK_EVENTS, D_WEBHOOK_FORMAT, D_WEBHOOK_WAIT, D_END };

#define MAX_TAXONOMIES 8 /* --taxonomy options kept */

static const cli_opt opts[] = {
	[D_FORMAT] = { "format", 0, CLI_VALUE, "jsonl|text",
		       "JSON Lines (default; Sisimai's names) or a table" },
	[D_SUMMARY] = { "summary", 0, CLI_FLAG, NULL,
			"print only counts: by reason, recipient domain and advice, and inputs "
			"read = bounces + non-bounces + errors" },
	[D_DELIVERED] = { "delivered", 0, CLI_FLAG, NULL, "also report successful-delivery notifications" },
	[D_VACATION] = { "vacation", 0, CLI_FLAG, NULL, "also report auto-replies (RFC 3834)" },
	[D_DELAYED] = { "no-delayed", 0, CLI_FLAG, NULL,
			"leave out delay warnings (the MTA still retries; reported by default)" },
	[D_RULES] = { "rules", 0, CLI_VALUE, "FILE",
		      "user rules asked before the built-in ones (format: docs/rules.md); default: the file named by $SMTPDIAG_RULES" },
	[D_WHY] = { "why", 0, CLI_FLAG, NULL,
		    "with --format text, print under each verdict the evidence trail (the rules and "
		    "rows that decided, in order), a user rule's label among them" },
	[D_ESP] = { "esp", 0, CLI_VALUE, "NAME",
		    "read every input as webhook events of this sending service (ses, sendgrid, mailgun, "
		    "postmark, sparkpost, mandrill, brevo, mailjet, postal, resend, mailersend, mailtrap, "
		    "unisender; the MTAs' webhooks kumomta, powermta); without it, JSON and form-encoded inputs are read as events and each "
		    "event's service is recognised from its content" },
	[D_ALL_EVENTS] = { "all-events", 0, CLI_FLAG, NULL,
			   "ESP events: also report deliveries, opens and clicks, not only bounces, deferrals, "
			   "complaints and rejections" },
	[D_TAXONOMY] = { "taxonomy", 0, CLI_VALUE, "NAME",
			 "add the verdict's category in another system's vocabulary to each JSON record "
			 "(ses, sparkpost, postmark, kumomta, powermta; repeatable)" },
	[D_REASONS] = { "reasons", 0, CLI_VALUE, "MODE",
			"default: the one verdict explain and scan give; sisimai: keep the reference "
			"decoder's readings where they differ (docs/reasons.md, Modes); default: "
			"$SMTPDIAG_REASONS, else default" },
	[D_STORE] = { "store", 0, CLI_VALUE, "URL",
		      "record the verdicts in the store (sqlite:PATH or postgresql://...) instead of "
		      "printing them; the counts go to stderr" },
	HOOK_OPT_LINES(D_WEBHOOK, D_WEBHOOK_SECRET, D_WEBHOOK_EVENTS, D_WEBHOOK_FORMAT, D_WEBHOOK_WAIT),
	[D_END] = { NULL, 0, 0, NULL, NULL }
};

static const cli_cmd decode_cmd = {
	"decode",
	"usage: smtpdiag decode [OPTIONS] PATH...\n"
	"\n"
	"Decode bounce emails into one verdict per recipient. A PATH is a file holding\n"
	"one email, an mbox, a Maildir, any directory (read recursively), or '-' for\n"
	"standard input. LF, CRLF and CR line ends are accepted; inputs are recognised\n"
	"by content, not by name. Webhook bodies of email sending services (JSON: one\n"
	"body, an array, or JSON Lines; or a form-encoded post) give one verdict per\n"
	"recipient of each bounce, deferral, complaint or rejection, with esp and\n"
	"esp_event set.\n",
	"Inputs that cannot be decoded (empty, truncated, not mail, over a limit) are\n"
	"reported on stderr, one line each, and counted; they never stop the run.\n"
	"Exit status: 0 every input read, 1 some inputs failed, 2 bad usage, 3 internal failure.\n",
	opts, 0
};

typedef struct run {
	smtpdiag_decoder *dec;
	smtpdiag_buf out;
	unsigned flags;  /* SMTPDIAG_DECODE_* */
	const char *esp; /* --esp NAME */
	const char *origin; /* of the events being read */
	const char *tax[MAX_TAXONOMIES]; /* --taxonomy NAMEs */
	int reasons_set;                 /* --reasons given: $SMTPDIAG_REASONS is not read */
	int ntax;
	int text, why;
	const char *rules_path;
	smtpdiag_rules *rules;
	int summary;
	int store;       /* --store given */
	int store_dead;  /* the store failed: stop recording */
	cli_store st;
	hook hook;       /* --webhook */
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
	if (r->why)
		cli_why(stdout, f->evidence, 4);
}

/* JSON Lines are collected in r->out and written OUT_CHUNK bytes at a time. */
#define OUT_CHUNK ((size_t)64 << 10)

static void out_flush(run *r)
{
	if (r->out.len)
		fwrite(r->out.data, 1, r->out.len, stdout);
	r->out.len = 0;
}

/* ,"taxonomy":{"ses":"Permanent/NoEmail",...} before the record's closing brace. */
static void put_taxonomies(run *r, const smtpdiag_fact *f)
{
	if (!r->out.len || r->out.data[r->out.len - 1] != '}')
		return;
	r->out.len--;
	smtpdiag_buf_append(&r->out, ",\"taxonomy\":{", 13);
	for (int i = 0; i < r->ntax; i++) {
		const char *v = smtpdiag_taxonomy(r->tax[i], f);
		if (i)
			smtpdiag_buf_append(&r->out, ",", 1);
		smtpdiag_buf_json(&r->out, r->tax[i], strlen(r->tax[i]));
		smtpdiag_buf_append(&r->out, ":", 1);
		smtpdiag_buf_json(&r->out, v ? v : "", v ? strlen(v) : 0);
	}
	smtpdiag_buf_append(&r->out, "}}", 2);
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

static void put_fact(run *r, const smtpdiag_fact *f, const char *origin)
{
	size_t mark;

	if (r->summary) {
		tally_fact(&r->t, f->reason, f->destination, f->advice);
		return;
	}
	if (r->store) {
		to_store(r, f, origin);
		return;
	}
	if (r->text) {
		print_text(r, f);
		return;
	}
	mark = r->out.len;
	smtpdiag_fact_json(f, &r->out);
	if (r->ntax)
		put_taxonomies(r, f);
	if (r->out.oom) {
		cli_err("decode: %s: out of memory writing JSON", origin);
		r->out.oom = 0;
		r->out.len = mark;
		return;
	}
	r->out.data[r->out.len++] = '\n';
	if (r->out.len >= OUT_CHUNK)
		out_flush(r);
}

static void on_event(void *ctx, const smtpdiag_fact *f, const smtpdiag_error *e)
{
	run *r = ctx;

	if (e && strstr(e->message, "(SMTPDIAG_MAX_RECIPIENTS)"))
		r->t.over_rcpt++;
	if (e)
		cli_err("decode: %s: %s", r->origin, e->message);
	else
		put_fact(r, f, r->origin);
}

/* One input of ESP webhook events, read: n from smtpdiag_decode_events*(). */
static void events_done(run *r, const char *origin, int n, const smtpdiag_event_counts *c,
			const smtpdiag_error *err)
{
	r->t.inputs++;
	r->t.events += c->events;
	r->t.ev_decided += c->decided;
	r->t.ev_ignored += c->ignored;
	r->t.ev_errors += c->errors;
	if (n < 0 || c->errors) {
		r->t.errors++;
		if (n < 0)
			cli_err("decode: %s: %s", origin, err->message);
	} else if (c->facts) {
		r->t.bounces++;
	} else {
		r->t.nonbounces++;
	}
}

/* A JSON input, read a piece at a time (input.c). */
static void on_stream(void *ctx, const char *origin, void *src)
{
	run *r = ctx;
	smtpdiag_event_counts c = { 0, 0, 0, 0, 0 };
	smtpdiag_error err = { 0, "" };
	int n;

	r->origin = origin;
	n = smtpdiag_decode_events_read(r->dec, input_src_read, src, origin, r->esp, on_event, r, &c, &err);
	if (n == SMTPDIAG_EIO)
		snprintf(err.message, sizeof(err.message), "%s", input_src_error(src));
	events_done(r, origin, n, &c, &err);
}

static void on_msg(void *ctx, const char *origin, const char *msg, size_t len)
{
	run *r = ctx;
	smtpdiag_error err = { 0, "" };
	int n;

	if (r->esp || smtpdiag_events_detect(msg, len)) {
		smtpdiag_event_counts c = { 0, 0, 0, 0, 0 };
		r->origin = origin;
		n = smtpdiag_decode_events(r->dec, msg, len, origin, r->esp, on_event, r, &c, &err);
		events_done(r, origin, n, &c, &err);
		return;
	}
	n = smtpdiag_decode(r->dec, msg, len, origin, &err);

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
	if (err.code == SMTPDIAG_ELIMIT) { /* over the recipient limit: its first verdicts, and an error */
		r->t.errors++;
		r->t.over_rcpt++;
		cli_err("decode: %s: %s", origin, err.message);
	} else {
		r->t.bounces++;
	}
	for (int i = 0; i < n; i++)
		put_fact(r, smtpdiag_decoder_fact(r->dec, (size_t)i), origin);
}

static void on_err(void *ctx, const char *origin, const char *why)
{
	run *r = ctx;

	r->t.inputs++;
	r->t.errors++;
	cli_err("decode: %s: %s", origin, why);
}

static int check_esp(const cli_parse *p, const char **esp)
{
	const char *name;

	for (size_t i = 0; (name = smtpdiag_esp_name(i)) != NULL; i++)
		if (!strcmp(name, p->value)) {
			*esp = name;
			return -1;
		}
	return cli_usage(p->cmd, "--esp: unknown service '%s'", p->value);
}

static int add_taxonomy(const cli_parse *p, run *r)
{
	const char *name;

	for (size_t i = 0; (name = smtpdiag_taxonomy_name(i)) != NULL; i++) {
		if (strcmp(name, p->value) != 0)
			continue;
		for (int k = 0; k < r->ntax; k++)
			if (r->tax[k] == name)
				return -1;
		if (r->ntax == MAX_TAXONOMIES)
			return cli_usage(p->cmd, "--taxonomy: at most %d", MAX_TAXONOMIES);
		r->tax[r->ntax++] = name;
		return -1;
	}
	return cli_usage(p->cmd, "--taxonomy: unknown taxonomy '%s'", p->value);
}

/* --reasons MODE (or $SMTPDIAG_REASONS): default or sisimai. */
static int reasons_mode(const cli_cmd *cmd, const char *v, const char *from, run *r)
{
	if (!strcmp(v, "sisimai"))
		r->flags |= SMTPDIAG_DECODE_REASONS_SISIMAI;
	else if (!strcmp(v, "default"))
		r->flags &= ~(unsigned)SMTPDIAG_DECODE_REASONS_SISIMAI;
	else
		return cli_usage(cmd, "%s: unknown mode '%s' (default or sisimai)", from, v);
	r->reasons_set = 1;
	return -1;
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
	case D_DELAYED:
		r->flags |= SMTPDIAG_DECODE_NO_DELAYED;
		break;
	case D_RULES:
		r->rules_path = p->value;
		break;
	case D_WHY:
		r->why = 1;
		break;
	case D_ESP:
		return check_esp(p, &r->esp);
	case D_ALL_EVENTS:
		r->flags |= SMTPDIAG_DECODE_ALL_EVENTS;
		break;
	case D_TAXONOMY:
		return add_taxonomy(p, r);
	case D_REASONS:
		return reasons_mode(p->cmd, p->value, "--reasons", r);
	case D_WEBHOOK: case D_WEBHOOK_SECRET: case D_WEBHOOK_EVENTS: case D_WEBHOOK_FORMAT:
	case D_WEBHOOK_WAIT:
		return hook_opt(&r->hook, p, id - D_WEBHOOK);
	}
	return -1;
}

int cmd_decode(int argc, char **argv)
{
	run r;
	int first = argc, rc;
	smtpdiag_error err = { 0, "" };
	input_walker w;

	memset(&r, 0, sizeof(r));
	if ((rc = cli_parse_args(&decode_cmd, argc, argv, on_opt, &r, &first)) >= 0)
		return rc;
	if (!r.reasons_set && getenv("SMTPDIAG_REASONS") && *getenv("SMTPDIAG_REASONS") &&
	    (rc = reasons_mode(&decode_cmd, getenv("SMTPDIAG_REASONS"), "SMTPDIAG_REASONS", &r)) >= 0)
		return rc;
	if (first == argc)
		return cli_usage(&decode_cmd, "no input given");
	if (r.hook.url && r.summary)
		return cli_usage(&decode_cmd, "--webhook records: leave out --summary");
	if ((rc = hook_ready(&r.hook, &decode_cmd, r.store)) >= 0)
		return rc;
	if ((rc = cli_rules_load("decode", r.rules_path, &r.rules)) >= 0)
		return rc;
	if (r.store && !r.summary && (rc = cli_store_open(&r.st, "decode")) >= 0) {
		smtpdiag_rules_free(r.rules);
		return rc;
	}
	if (r.hook.url && smtpdiag_store_outbox(r.st.st, r.hook.events, &err) < 0) {
		cli_err("decode: the store's outbox: %s", err.message);
		smtpdiag_store_close(r.st.st);
		smtpdiag_rules_free(r.rules);
		return EXIT_FAIL_;
	}
	r.store = r.store && !r.summary;
	r.dec = smtpdiag_decoder_new(r.flags);
	if (!r.dec || smtpdiag_decoder_set_rules(r.dec, r.rules) < 0) {
		cli_err("decode: cannot create a decoder (out of memory, or the rule database failed to load)");
		smtpdiag_decoder_free(r.dec);
		smtpdiag_rules_free(r.rules);
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
	w.on_stream = on_stream;
	for (int i = first; i < argc; i++)
		input_walk(&w, argv[i]);
	if (r.summary)
		tally_print(&r.t, stdout);
	rc = r.t.errors ? EXIT_SOME_ : EXIT_OK_;
	if (r.store) {
		smtpdiag_store_counts c;
		smtpdiag_store_counts_get(r.st.st, &c);
		rc = c.errors && rc == EXIT_OK_ ? EXIT_SOME_ : rc;
		if (r.hook.url) {
			int left = 0;
			if (smtpdiag_store_flush(r.st.st, &err) < 0)
				r.store_dead = cli_store_bad(&r.st, "decode", "-", 0, SMTPDIAG_ESTORE, &err);
			else if ((left = hook_finish(&r.hook, r.st.st, "decode")) < 0)
				r.store_dead = 1;
			rc = left > 0 && rc == EXIT_OK_ ? EXIT_SOME_ : rc;
		}
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
	smtpdiag_rules_free(r.rules);
	return rc;
}
