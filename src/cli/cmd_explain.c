/* cmd_explain.c - smtpdiag explain: a code, a pair, reply text or a pasted bounce. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opts.h"

enum { E_TEXT, E_FILE, E_JSON, E_RULES, E_WHY, E_COLOR, E_END };

static const cli_opt opts[] = {
	[E_TEXT] = { "text", 0, CLI_VALUE, "TEXT", "SMTP reply text (\"550-5.1.1 ...\\n550 5.1.1 ...\")" },
	[E_FILE] = { "file", 0, CLI_VALUE, "PATH",
		     "read pasted text from PATH, or stdin for '-' (at most 1 MiB)" },
	[E_JSON] = { "json", 0, CLI_FLAG, NULL, "print one JSON object instead of readable sections" },
	[E_RULES] = { "rules", 0, CLI_VALUE, "FILE",
		      "user rules asked before the built-in ones (format: docs/rules.md); default: the file named by $SMTPDIAG_RULES" },
	[E_WHY] = { "why", 0, CLI_FLAG, NULL,
		    "also print the evidence trail: the rules and rows that decided, in order" },
	[E_COLOR] = { "color", 0, CLI_VALUE, "WHEN",
		      "colour the readable sections: auto (on a terminal, unless NO_COLOR is set or TERM=dumb), always or never; default: auto" },
	[E_END] = { NULL, 0, 0, NULL, NULL }
};

static const cli_cmd explain_cmd = {
	"explain",
	"usage: smtpdiag explain [OPTIONS] CODE [CODE] | TEXT\n"
	"       smtpdiag explain [OPTIONS] --text TEXT\n"
	"       smtpdiag explain [OPTIONS] --file PATH|-\n"
	"       smtpdiag explain [OPTIONS] -\n"
	"\n"
	"Explain an SMTP reply code (431), an enhanced status (4.3.1, X.3.1), a pair\n"
	"(\"552 4.3.1\"), reply text of one or more lines (with or without --text:\n"
	"anything but a lone code or pair is read as reply text), or any pasted text: a bounce\n"
	"email, an NDR, a log fragment. Says what it means, whether it is standard,\n"
	"transient or permanent, whether to retry, causes, fixes and who must act.\n"
	"A lone '-' reads the query from stdin, as --file - does.\n",
	"Under --color=auto colour is used only on a terminal, and never when NO_COLOR is\n"
	"set (to anything but the empty string) or TERM is dumb; --color=always overrides both.\n"
	"JSON output carries the verdict: reason, hardbounce, retry, advice, fixer (who acts)\n"
	"and evidence (the rules and rows that decided, in order), and label when a user\n"
	"rule set one.\n"
	"Exit status: 0 explained, 2 bad usage or input, or nothing to explain (one line on\n"
	"stderr), 3 internal failure.\n",
	opts, 0
};

typedef struct style {
	const char *head, *em, *warn, *off;
} style;

static void section(FILE *f, const style *s, const char *title)
{
	fprintf(f, "\n%s%s%s\n", s->head, title, s->off);
}

static void list(FILE *f, const style *s, const char *title, const char *const *v, int numbered)
{
	if (!v || !v[0])
		return;
	section(f, s, title);
	for (int i = 0; v[i]; i++) {
		char lead[16];
		snprintf(lead, sizeof(lead), numbered ? "%2d. " : "  - ", i + 1);
		fputs(lead, f);
		cli_wrap_hang(f, v[i], 4, 4, 76);
	}
}

static void inline_list(FILE *f, const style *s, const char *title, const char *const *v)
{
	if (!v || !v[0])
		return;
	fprintf(f, "%s%s:%s ", s->em, title, s->off);
	for (int i = 0; v[i]; i++)
		fprintf(f, "%s%s", i ? ", " : "", v[i]);
	fputc('\n', f);
}

/* Providers that use an unregistered status, with their meaning and page. */
static void print_vendors(FILE *f, const style *s, const smtpdiag_explanation *e)
{
	char line[1024];

	if (!e->nvendors)
		return;
	section(f, s, "Used by");
	for (size_t i = 0; i < e->nvendors; i++) {
		snprintf(line, sizeof(line), "%s: %s (%s)", e->vendors[i].vendor, e->vendors[i].meaning,
			 e->vendors[i].source);
		fputs("  - ", f);
		cli_wrap_hang(f, line, 4, 4, 76);
	}
}

static void print_human(FILE *f, const smtpdiag_explanation *e, int color, int why)
{
	style s = { "", "", "", "" };
	char code[64] = "";

	if (color)
		s = (style){ "\033[1m", "\033[36m", "\033[33m", "\033[0m" };
	if (e->replycode)
		snprintf(code, sizeof(code), "%d%s%s", e->replycode, e->status[0] ? " " : "", e->status);
	else
		snprintf(code, sizeof(code), "%s", e->status);
	fprintf(f, "%s%s%s%s%s\n", s.head, code, code[0] ? ": " : "", e->title, s.off);
	if (!e->standard)
		fprintf(f, "%sNon-standard:%s see the notes below.\n", s.warn, s.off);
	else if (e->issues & SMTPDIAG_ISSUE_CLASS_NOT_ALLOWED)
		fprintf(f, "%sOutside its registered class:%s see the notes below.\n", s.warn, s.off);
	if (e->issues & SMTPDIAG_ISSUE_CLASS_MISMATCH)
		fprintf(f, "%sClass mismatch:%s the reply code and the status disagree; see the notes below.\n",
			s.warn, s.off);
	fprintf(f, "%sClass:%s %s   %sRetry:%s %s   %sWho acts:%s %s\n", s.em, s.off,
		smtpdiag_class_name(e->klass)[0] ? smtpdiag_class_name(e->klass)
		: (e->issues & SMTPDIAG_ISSUE_CLASS_MISMATCH) ? "mismatch (reply and status disagree)" : "unknown",
		s.em, s.off, e->retry ? "yes, later" : "no", s.em, s.off, e->fixer[0] ? e->fixer : "-");
	if (e->reason[0])
		fprintf(f, "%sReason:%s %s%s   %sAdvice:%s %s\n", s.em, s.off, e->reason,
			e->hardbounce ? " (hard bounce)" : "", s.em, s.off, e->advice);
	if (e->label[0])
		fprintf(f, "%sLabel:%s %s\n", s.em, s.off, e->label);
	if (e->vendor[0])
		fprintf(f, "%sVendor:%s %s\n", s.em, s.off, e->vendor);
	if (e->recipient[0]) {
		fprintf(f, "%sRecipient:%s ", s.em, s.off);
		cli_wrap_hang(f, e->recipient, 11, 2, 76);
	}
	if (e->text[0] && strcmp(e->text, e->query)) {
		fprintf(f, "%sServer said:%s ", s.em, s.off);
		cli_wrap_hang(f, e->text, 13, 2, 76);
	}
	section(f, &s, "Short answer");
	cli_wrap(f, e->short_answer, 2, 76);
	section(f, &s, "Quick fix");
	cli_wrap(f, e->quick_fix, 2, 76);
	section(f, &s, "Retry");
	cli_wrap(f, e->retry_advice, 2, 76);
	section(f, &s, "What it means");
	cli_wrap(f, e->meaning, 2, 76);
	if (why)
		list(f, &s, "Why (the rules and rows that decided, in order)", e->evidence, 1);
	print_vendors(f, &s, e);
	list(f, &s, "Notes", e->notes, 0);
	list(f, &s, "Common causes", e->causes, 0);
	list(f, &s, "How to fix it", e->fixes, 1);
	if (e->nfaq) {
		section(f, &s, "Common questions");
		for (size_t i = 0; i < e->nfaq; i++) {
			fprintf(f, "  %s", s.em);
			cli_wrap_hang(f, e->faq[i].q, 2, 2, 76);
			fputs(s.off, f);
			cli_wrap(f, e->faq[i].a, 4, 76);
		}
	}
	fputc('\n', f);
	inline_list(f, &s, "Paired codes", e->paired);
	inline_list(f, &s, "Related codes", e->related);
	inline_list(f, &s, "References", e->references);
}

typedef struct explain_args {
	int json, why, color;
	const char *text, *file, *rules;
	char joined[4096]; /* the CODE or TEXT operands, joined by a space */
	size_t used;
} explain_args;

static int join_operands(explain_args *x, int argc, char **argv, int first)
{
	for (int i = first; i < argc; i++) {
		size_t l = strlen(argv[i]);
		if (x->used + l + 2 > sizeof(x->joined))
			return cli_usage(&explain_cmd, "query too long; use --text for reply text");
		if (x->used)
			x->joined[x->used++] = ' ';
		memcpy(x->joined + x->used, argv[i], l + 1);
		x->used += l;
	}
	return -1;
}

static int on_opt(const cli_parse *p, int id, void *ctx)
{
	explain_args *x = ctx;

	switch (id) {
	case E_TEXT:
		x->text = p->value;
		break;
	case E_FILE:
		x->file = p->value;
		break;
	case E_JSON:
		x->json = 1;
		break;
	case E_RULES:
		x->rules = p->value;
		break;
	case E_WHY:
		x->why = 1;
		break;
	case E_COLOR:
		if ((x->color = cli_color_when(p->value)) < 0)
			return cli_bad_value(p, "auto, always or never");
		break;
	}
	return -1;
}

/* Returns -1 to go on, else an exit status. */
static int parse_args(explain_args *x, int argc, char **argv)
{
	int first = argc, rc;

	if ((rc = cli_parse_args(&explain_cmd, argc, argv, on_opt, x, &first)) >= 0 ||
	    (rc = join_operands(x, argc, argv, first)) >= 0)
		return rc;
	if (!x->text && !x->file && x->used == 1 && x->joined[0] == '-') { /* a lone '-': stdin, as --file - */
		x->file = "-";
		x->used = 0;
	}
	if ((x->text != NULL) + (x->file != NULL) + (x->used > 0) != 1)
		return cli_usage(&explain_cmd, "give a CODE, --text TEXT or --file PATH (one of them)");
	return -1;
}

/* The query and how to read it; *owned is what to free. Returns -1 or an exit status. */
static int load_query(const explain_args *x, const char **q, size_t *qlen, int *mode, char **owned)
{
	int rc;

	if (x->text) {
		*mode = SMTPDIAG_EXPLAIN_TEXT;
		*q = x->text;
		*qlen = strlen(x->text);
		return -1;
	}
	if (!x->file) {
		*mode = SMTPDIAG_EXPLAIN_AUTO; /* a lone code or pair, else reply text */
		*q = x->joined;
		*qlen = x->used;
		return -1;
	}
	*mode = SMTPDIAG_EXPLAIN_FILE;
	rc = cli_read_all(x->file, SMTPDIAG_MAX_QUERY, owned, qlen);
	if (rc == -EFBIG)
		cli_err("explain: %s: larger than 1 MiB", x->file);
	else if (rc < 0)
		cli_err("explain: %s: %s", x->file, strerror(-rc));
	*q = *owned;
	return rc < 0 ? EXIT_USAGE_ : -1;
}

static int print_json(const smtpdiag_explanation *e)
{
	smtpdiag_buf b = { 0 };

	smtpdiag_explanation_json(e, &b);
	if (b.oom) {
		smtpdiag_buf_free(&b);
		cli_err("explain: out of memory");
		return EXIT_FAIL_;
	}
	fwrite(b.data, 1, b.len, stdout);
	fputc('\n', stdout);
	smtpdiag_buf_free(&b);
	return EXIT_OK_;
}

int cmd_explain(int argc, char **argv)
{
	explain_args x;
	const char *query = NULL;
	char *owned = NULL;
	size_t qlen = 0;
	int mode, rc;
	smtpdiag_explanation *e;
	smtpdiag_error err = { 0, "" };
	smtpdiag_rules *rules = NULL;

	memset(&x, 0, sizeof(x));
	if ((rc = parse_args(&x, argc, argv)) >= 0 || (rc = cli_rules_load("explain", x.rules, &rules)) >= 0)
		return rc;
	if ((rc = load_query(&x, &query, &qlen, &mode, &owned)) >= 0) {
		smtpdiag_rules_free(rules);
		return rc;
	}
	rc = smtpdiag_explain_with_rules(query, qlen, mode, rules, &e, &err);
	free(owned);
	smtpdiag_rules_free(rules); /* the explanation keeps copies of what it needs */
	if (rc < 0) {
		cli_err("explain: %s", err.message[0] ? err.message : smtpdiag_strerror(rc));
		return rc == SMTPDIAG_ENOMEM ? EXIT_FAIL_ : EXIT_USAGE_;
	}
	rc = EXIT_OK_;
	if (x.json)
		rc = print_json(e);
	else
		print_human(stdout, e, cli_color(stdout, x.color), x.why);
	smtpdiag_explanation_free(e);
	if (rc == EXIT_OK_ && fflush(stdout) != 0) {
		cli_err("explain: writing output: %s", strerror(errno));
		return EXIT_FAIL_;
	}
	return rc;
}
