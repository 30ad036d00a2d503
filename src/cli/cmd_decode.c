/* cmd_decode.c - smtpdiag decode: bounce emails to one verdict per recipient. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_store.h"
#include "input.h"
#include "mailbox.h"
#include "opts.h"
#include "tally.h"
#include "webhook.h"

enum { D_FORMAT, D_SUMMARY, D_DELIVERED, D_VACATION, D_DELAYED, D_RULES, D_WHY, D_ESP, D_ALL_EVENTS, D_TAXONOMY, D_REASONS, D_STORE,
       D_WEBHOOK, D_WEBHOOK_SECRET, D_WEBHOOK_EVENTS, D_WEBHOOK_FORMAT, D_WEBHOOK_WAIT, D_WEBHOOK_AUTH,
       D_PASSWORD_FILE, D_CACERT, D_MARK_SEEN, D_MOVE_TO, D_DELETE, D_FOLLOW, D_POLL, D_MAX_MESSAGES,
       D_MAX_SIZE, D_END };

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
		      "printing them; the counts go to stderr; required to read a mailbox, whose "
		      "state (the last message read) it keeps too" },
	[D_PASSWORD_FILE] = { "password-file", 0, CLI_VALUE, "FILE",
			      "a mailbox's password: the one line of FILE; default: $SMTPDIAG_IMAP_PASSWORD "
			      "(a password in the URL is refused)" },
	[D_CACERT] = { "cacert", 0, CLI_VALUE, "FILE",
		       "trust the CA certificates of FILE (PEM) for a mailbox's TLS, instead of the system's" },
	[D_MARK_SEEN] = { "mark-seen", 0, CLI_FLAG, NULL,
			  "set \\Seen on each IMAP message read (default: its flags are left as they were)" },
	[D_MOVE_TO] = { "move-to", 0, CLI_VALUE, "FOLDER",
			"move each IMAP message read to FOLDER (UID MOVE, else COPY and UID EXPUNGE)" },
	[D_DELETE] = { "delete", 0, CLI_FLAG, NULL,
		       "delete each message read from the mailbox (never done without it)" },
	[D_FOLLOW] = { "follow", 0, CLI_FLAG, NULL,
		       "mailboxes only: after reading, wait for new mail and read it, until stopped" },
	[D_POLL] = { "poll", 0, CLI_VALUE, "SECONDS",
		     "with --follow, a pass at least every SECONDS (default: 60; IMAP IDLE reads new mail at once)" },
	[D_MAX_MESSAGES] = { "max-messages", 0, CLI_VALUE, "N",
			     "read at most N messages of a mailbox in one pass; the rest on the next "
			     "(default: 1000)" },
	[D_MAX_SIZE] = { "max-size", 0, CLI_VALUE, "BYTES",
			 "a mailbox message larger than BYTES (512K, 10M) is not read but reported as an "
			 "error (default and most: 64M)" },
	HOOK_OPT_LINES(D_WEBHOOK, D_WEBHOOK_SECRET, D_WEBHOOK_EVENTS, D_WEBHOOK_FORMAT, D_WEBHOOK_WAIT, D_WEBHOOK_AUTH),
	[D_END] = { NULL, 0, 0, NULL, NULL }
};

static const cli_cmd decode_cmd = {
	"decode",
	"usage: smtpdiag decode [OPTIONS] PATH...\n"
	"       smtpdiag decode --store URL [OPTIONS] imaps://USER@HOST[:PORT]/FOLDER...\n"
	"\n"
	"Decode bounce emails into one verdict per recipient. A PATH is a file holding\n"
	"one email, an mbox, a Maildir, any directory (read recursively), or '-' for\n"
	"standard input. LF, CRLF and CR line ends are accepted; inputs are recognised\n"
	"by content, not by name. Webhook bodies of email sending services (JSON: one\n"
	"body, an array, or JSON Lines; or a form-encoded post) give one verdict per\n"
	"recipient of each bounce, deferral, complaint or rejection, with esp and\n"
	"esp_event set.\n"
	"\n"
	"A bounce mailbox is read by its URL: imaps:// (TLS), imap:// (STARTTLS\n"
	"required), pop3s:// or pop3:// (STARTTLS required). Only new messages are\n"
	"read: the store keeps the folder's UIDVALIDITY and the last UID read (POP3:\n"
	"the UIDLs read), saved after each message's records (docs/mailbox.md).\n",
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
	mbox_opts mb;
	int follow, mb_opt; /* --follow; a mailbox option given */
	int mb_failed;      /* a mailbox could not be read */
	unsigned poll;
	const char *watch_url; /* --follow of one IMAP folder: waited on with IDLE */
	mbox_watch *watch;
	char pw[MBOX_MAX_PASSWORD + 1];
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

/* The options of mailbox inputs. */
static int mbox_opt(const cli_parse *p, int id, run *r)
{
	r->mb_opt = id == D_FOLLOW || id == D_POLL ? r->mb_opt : 1;
	switch (id) {
	case D_PASSWORD_FILE:
		r->mb.password_file = p->value;
		break;
	case D_CACERT:
		r->mb.cacert = p->value;
		break;
	case D_MARK_SEEN:
		r->mb.mark_seen = 1;
		break;
	case D_MOVE_TO:
		if (!*p->value || strpbrk(p->value, "\r\n"))
			return cli_bad_value(p, "a folder name");
		r->mb.move_to = p->value;
		break;
	case D_DELETE:
		r->mb.del = 1;
		break;
	case D_FOLLOW:
		r->follow = 1;
		break;
	case D_POLL:
		if (!(r->poll = (unsigned)cli_number(p->value, 1, MBOX_POLL_MAX)))
			return cli_bad_value(p, "seconds from 1 to 86400");
		break;
	case D_MAX_MESSAGES:
		if (!(r->mb.max_messages = cli_number(p->value, 1, MBOX_MAX_MESSAGES_TOP)))
			return cli_bad_value(p, "a number from 1 to 1000000");
		break;
	case D_MAX_SIZE:
		if (!(r->mb.max_size = cli_number(p->value, 1, SMTPDIAG_MAX_MESSAGE)))
			return cli_bad_value(p, "a size from 1 to 64M");
		break;
	}
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
	case D_WEBHOOK_WAIT: case D_WEBHOOK_AUTH:
		return hook_opt(&r->hook, p, id - D_WEBHOOK);
	default:
		return mbox_opt(p, id, r);
	}
	return -1;
}

/* ---- bounce mailboxes (mailbox.c) ---- */

static volatile sig_atomic_t stopping;

static void on_stop(int sig)
{
	(void)sig;
	stopping = 1;
}

static int sink_deliver(void *ctx, const char *origin, const char *msg, size_t len)
{
	run *r = ctx;
	unsigned long errors = r->t.errors;

	on_msg(r, origin, msg, len);
	if (r->store_dead)
		return -1;
	return r->t.errors != errors;
}

static int sink_commit(void *ctx)
{
	run *r = ctx;
	smtpdiag_error err = { 0, "" };

	if (!r->store_dead && smtpdiag_store_flush(r->st.st, &err) < 0) {
		cli_err("decode: %s: %s", r->st.url, err.message);
		r->store_dead = 1;
	}
	return r->store_dead ? -1 : 0;
}

/* One pass over a mailbox, its counts on stderr. */
static void read_mailbox(run *r, const char *url)
{
	mbox_sink k = { sink_deliver, on_err, sink_commit, r, r->st.st };
	unsigned long got = 0, errors = r->t.errors;
	int rc = mbox_read(&r->mb, r->pw, url, &k, &got);

	errors = r->t.errors - errors;
	if (rc < 0)
		r->store_dead = 1;
	if (rc > 0)
		r->mb_failed = 1;
	if (got || !r->follow)
		fprintf(stderr, "%s: messages read %lu = decoded %lu + errors %lu\n", url, got, got - errors, errors);
}

/* The IDLE connection of --follow, opened before a pass; said on stderr when
 * it starts, and when it cannot be had. */
static void watch_start(run *r)
{
	char why[256];
	int never = 0;

	if ((r->watch = mbox_watch_open(&r->mb, r->pw, r->watch_url, &never, why, sizeof(why)))) {
		fprintf(stderr, "%s: waiting for new mail with IMAP IDLE (a pass at least every %u seconds)\n",
			r->watch_url, r->poll);
		return;
	}
	fprintf(stderr, "%s: no IMAP IDLE (%s): looking every %u seconds%s\n", r->watch_url, why, r->poll,
		never ? "" : ", IDLE tried again after each pass");
	if (never)
		r->watch_url = NULL;
}

/* --follow: a pass when the server announces new mail (IDLE, one IMAP folder)
 * or every --poll seconds, until SIGINT or SIGTERM. */
static void follow(run *r, int first, int argc, char **argv)
{
	while (!stopping && !r->store_dead) {
		unsigned left = r->poll;
		if (r->watch && mbox_watch_wait(r->watch, r->poll, &stopping) < 0) {
			fprintf(stderr, "%s: the IDLE connection broke: looking every %u seconds until it is back\n",
				r->watch_url, r->poll);
			mbox_watch_close(r->watch);
			r->watch = NULL;
		} else if (r->watch) {
			left = 0;
		}
		while (left && !stopping)
			left = sleep(left);
		if (stopping)
			break;
		if (r->watch_url && !r->watch)
			watch_start(r);
		for (int i = first; i < argc && !stopping && !r->store_dead; i++)
			read_mailbox(r, argv[i]);
	}
	mbox_watch_close(r->watch);
	r->watch = NULL;
}

static int mbox_usage(run *r, int pop)
{
	char why[256];

	if (!r->store)
		return cli_usage(&decode_cmd, "reading a mailbox needs --store URL: its records, and how far "
				 "it was read, are kept there");
	if (r->summary)
		return cli_usage(&decode_cmd, "--summary cannot be used with a mailbox (its records go to the store)");
	if (r->mb.move_to && r->mb.del)
		return cli_usage(&decode_cmd, "--move-to or --delete: choose one");
	if (pop && (r->mb.mark_seen || r->mb.move_to))
		return cli_usage(&decode_cmd, "--mark-seen and --move-to are for IMAP: a POP3 mailbox has no flags or folders");
	if (mbox_password(&r->mb, r->pw, sizeof(r->pw), why, sizeof(why)) < 0)
		return cli_usage(&decode_cmd, "%s", why);
	return -1;
}

/* Mailbox inputs, checked before anything is read: -1, or a usage exit status. */
static int mbox_check(run *r, int first, int argc, char **argv)
{
	char why[256];
	int n = 0, pop = 0;

	for (int i = first; i < argc; i++) {
		if (!mbox_is_url(argv[i])) {
			if (r->follow)
				return cli_usage(&decode_cmd, "--follow reads mailboxes only: %s is none", argv[i]);
			continue;
		}
		if (mbox_check_url(argv[i], why, sizeof(why)) < 0)
			return cli_usage(&decode_cmd, "%s: %s", argv[i], why);
		n++;
		pop |= !strncasecmp(argv[i], "pop3", 4);
	}
	if (!n && (r->mb_opt || r->follow || r->poll))
		return cli_usage(&decode_cmd, "--password-file, --cacert, --mark-seen, --move-to, --delete, "
				 "--follow, --poll, --max-messages and --max-size are for mailboxes (imaps://...)");
	if (!r->mb.max_messages)
		r->mb.max_messages = MBOX_MAX_MESSAGES;
	if (!r->mb.max_size)
		r->mb.max_size = SMTPDIAG_MAX_MESSAGE;
	if (!r->poll)
		r->poll = MBOX_POLL;
	return n ? mbox_usage(r, pop) : -1;
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
	if ((rc = mbox_check(&r, first, argc, argv)) >= 0)
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
	if (r.follow) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_stop; /* no SA_RESTART: the wait ends at once */
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
	}
	if (r.follow) { /* one mailbox is waited on with IDLE where it is IMAP; more are polled */
		int urls = 0;
		for (int i = first; i < argc; i++)
			if (mbox_is_url(argv[i]) && urls++ == 0)
				r.watch_url = argv[i];
		if (urls != 1)
			r.watch_url = NULL;
		if (r.watch_url)
			watch_start(&r);
	}
	for (int i = first; i < argc && !r.store_dead; i++) {
		if (mbox_is_url(argv[i]))
			read_mailbox(&r, argv[i]);
		else
			input_walk(&w, argv[i]);
	}
	if (r.follow)
		follow(&r, first, argc, argv);
	memset(r.pw, 0, sizeof(r.pw));
	if (r.summary)
		tally_print(&r.t, stdout);
	rc = r.t.errors || r.mb_failed ? EXIT_SOME_ : EXIT_OK_;
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
