/* cli.h - shared bits of the smtpdiag command-line front end. */
#ifndef SMTPDIAG_CLI_H
#define SMTPDIAG_CLI_H

#include <stdio.h>
#include "smtpdiag.h"

/* Exit statuses (documented in README.md and smtpdiag(1)). */
enum {
	EXIT_OK_ = 0,      /* done; every input read */
	EXIT_SOME_ = 1,    /* done, but some inputs could not be read or decoded */
	EXIT_USAGE_ = 2,   /* bad usage or bad input: nothing done */
	EXIT_FAIL_ = 3     /* internal failure (out of memory, I/O on output) */
};

int cmd_explain(int argc, char **argv);
int cmd_decode(int argc, char **argv);
int cmd_scan(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_store(int argc, char **argv);

/* --color=WHEN: auto (the default), always or never. */
enum { CLI_COLOR_AUTO, CLI_COLOR_ALWAYS, CLI_COLOR_NEVER };
/* "auto", "always", "never" -> CLI_COLOR_*; -1 for anything else. */
int cli_color_when(const char *s);
/* Whether to colour what goes to f: always, never, or under auto when f is a
 * terminal, NO_COLOR is unset or empty and TERM is not "dumb". */
int cli_color(FILE *f, int when);
/* Print text wrapped at width, each line prefixed by indent spaces. */
void cli_wrap(FILE *f, const char *text, int indent, int width);
/* Same, the cursor already at column col0 on the first line. */
void cli_wrap_hang(FILE *f, const char *text, int col0, int indent, int width);
/* Read a whole file (or stdin for "-") into memory; max bytes. Returns 0 or -errno-ish. */
int cli_read_all(const char *path, size_t max, char **data, size_t *len);
/* The user rules of --rules (path, NULL when not given), else of the path in
 * $SMTPDIAG_RULES; *out stays NULL when there are none. Returns -1 to go on,
 * else an exit status after one line on stderr ("smtpdiag: CMD: FILE:LINE: what"). */
int cli_rules_load(const char *cmd, const char *path, smtpdiag_rules **out);
/* --why: one "why: STEP" line per step of the evidence trail (a user rule's
 * label is one of them), indented by indent spaces. */
void cli_why(FILE *f, const char *const *evidence, int indent);
/* One line on stderr: "smtpdiag: <what>". */
void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Text from mail, logs or queries for a terminal: control characters (and
 * bytes that are no UTF-8) as \xNN (smtpdiag_buf_text). cli_put writes n
 * bytes of p so; cli_line writes one formatted line so, then a newline, and
 * returns what fprintf returns. */
void cli_put(FILE *f, const char *p, size_t n);
int cli_line(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
