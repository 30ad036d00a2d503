/* cmd_explain.c - smtpdiag explain: a code, a pair, reply text or a pasted bounce. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char help[] =
	"usage: smtpdiag explain [--json] CODE [CODE]\n"
	"       smtpdiag explain [--json] --text TEXT\n"
	"       smtpdiag explain [--json] --file PATH|-\n"
	"\n"
	"Explain an SMTP reply code (431), an enhanced status (4.3.1, X.3.1), a pair\n"
	"(\"552 4.3.1\"), reply text of one or more lines, or any pasted text: a bounce\n"
	"email, an NDR, a log fragment. Says what it means, whether it is standard,\n"
	"transient or permanent, whether to retry, causes, fixes and who must act.\n"
	"\n"
	"options:\n"
	"  --text TEXT   SMTP reply text (\"550-5.1.1 ...\\n550 5.1.1 ...\")\n"
	"  --file PATH   read pasted text from PATH, or stdin for '-' (at most 1 MiB)\n"
	"  --json        print one JSON object instead of readable sections\n"
	"  -h, --help    this help\n"
	"\n"
	"Colour is used only on a terminal, and never when NO_COLOR is set.\n"
	"Exit status: 0 explained, 2 bad usage or input (one line on stderr), 3 internal failure.\n";

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

static void print_human(FILE *f, const smtpdiag_explanation *e, int color)
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
	fprintf(f, "%sClass:%s %s   %sRetry:%s %s   %sWho acts:%s %s\n", s.em, s.off,
		smtpdiag_class_name(e->klass)[0] ? smtpdiag_class_name(e->klass) : "unknown",
		s.em, s.off, e->retry ? "yes, later" : "no", s.em, s.off, e->fixer);
	if (e->reason[0])
		fprintf(f, "%sReason:%s %s%s   %sAdvice:%s %s\n", s.em, s.off, e->reason,
			e->hardbounce ? " (hard bounce)" : "", s.em, s.off, e->advice);
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

static int usage_error(const char *msg)
{
	cli_err("explain: %s (try 'smtpdiag explain --help')", msg);
	return EXIT_USAGE_;
}

int cmd_explain(int argc, char **argv)
{
	int json = 0, mode = SMTPDIAG_EXPLAIN_CODE, rc;
	const char *text = NULL, *file = NULL;
	char *query = NULL, *owned = NULL;
	size_t qlen = 0, used = 0;
	smtpdiag_explanation *e;
	smtpdiag_error err = { 0, "" };
	char joined[256];

	joined[0] = '\0';
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(help, stdout);
			return EXIT_OK_;
		} else if (!strcmp(a, "--json")) {
			json = 1;
		} else if (!strcmp(a, "--text") || !strcmp(a, "--file")) {
			if (i + 1 >= argc)
				return usage_error(a[2] == 't' ? "--text needs TEXT" : "--file needs PATH");
			if (a[2] == 't')
				text = argv[++i];
			else
				file = argv[++i];
		} else if (!strncmp(a, "--text=", 7)) {
			text = a + 7;
		} else if (!strncmp(a, "--file=", 7)) {
			file = a + 7;
		} else if (a[0] == '-' && a[1] && !(a[1] >= '0' && a[1] <= '9')) {
			cli_err("explain: unknown option '%s' (try 'smtpdiag explain --help')", a);
			return EXIT_USAGE_;
		} else {
			size_t l = strlen(a);
			if (used + l + 2 > sizeof(joined))
				return usage_error("query too long; use --text for reply text");
			if (used)
				joined[used++] = ' ';
			memcpy(joined + used, a, l + 1);
			used += l;
		}
	}
	if ((text != NULL) + (file != NULL) + (used > 0) != 1)
		return usage_error("give a CODE, --text TEXT or --file PATH (one of them)");
	if (text) {
		mode = SMTPDIAG_EXPLAIN_TEXT;
		query = (char *)text;
		qlen = strlen(text);
	} else if (file) {
		mode = SMTPDIAG_EXPLAIN_FILE;
		rc = cli_read_all(file, SMTPDIAG_MAX_QUERY, &owned, &qlen);
		if (rc == -EFBIG) {
			cli_err("explain: %s: larger than 1 MiB", file);
			return EXIT_USAGE_;
		}
		if (rc < 0) {
			cli_err("explain: %s: %s", file, strerror(-rc));
			return EXIT_USAGE_;
		}
		query = owned;
	} else {
		query = joined;
		qlen = used;
	}
	rc = smtpdiag_explain(query, qlen, mode, &e, &err);
	free(owned);
	if (rc < 0) {
		cli_err("explain: %s", err.message[0] ? err.message : smtpdiag_strerror(rc));
		return rc == SMTPDIAG_ENOMEM ? EXIT_FAIL_ : EXIT_USAGE_;
	}
	if (json) {
		smtpdiag_buf b = { 0 };
		smtpdiag_explanation_json(e, &b);
		if (b.oom) {
			smtpdiag_explanation_free(e);
			cli_err("explain: out of memory");
			return EXIT_FAIL_;
		}
		fwrite(b.data, 1, b.len, stdout);
		fputc('\n', stdout);
		smtpdiag_buf_free(&b);
	} else {
		print_human(stdout, e, cli_color(stdout));
	}
	smtpdiag_explanation_free(e);
	if (fflush(stdout) != 0) {
		cli_err("explain: writing output: %s", strerror(errno));
		return EXIT_FAIL_;
	}
	return EXIT_OK_;
}
