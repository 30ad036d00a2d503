/* opts.h - one option parser for every subcommand, over getopt_long.
 *
 * A command describes its options once, in a table of cli_opt; the table
 * gives both getopt_long's arrays and the option lines of --help, so the help
 * lists exactly what parses. -h, --help is added to every table.
 *
 *	static int on_opt(const cli_parse *p, int id, void *ctx)
 *	{
 *		switch (id) { case D_SUMMARY: ...; case D_FORMAT: ... p->value ... }
 *		return -1;
 *	}
 *	...
 *	if ((rc = cli_parse_args(&decode_cmd, argc, argv, on_opt, ctx, &first)) >= 0)
 *		return rc;
 *	operands: argv[first .. argc - 1]
 *
 * Options and operands may be mixed (GNU order; POSIXLY_CORRECT in the
 * environment stops at the first operand), "--" ends the options, values are
 * given as "--opt VALUE", "--opt=VALUE", "-j VALUE" or "-jVALUE", and short
 * flags combine ("-Fj2"). Every usage error is one line on stderr. */
#ifndef SMTPDIAG_CLI_OPTS_H
#define SMTPDIAG_CLI_OPTS_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

#define CLI_MAX_OPTS 40 /* options in one table, -h/--help not counted */

enum cli_arg {
	CLI_FLAG,   /* no value */
	CLI_VALUE   /* a value is required */
};

typedef struct cli_opt {
	const char *name;   /* long name without the dashes; NULL ends a table */
	int letter;         /* short letter, or 0 for none */
	int arg;            /* enum cli_arg */
	const char *meta;   /* the value's placeholder in --help ("N", "jsonl|text") */
	const char *help;   /* what it does, one sentence; wrapped when printed */
} cli_opt;

typedef struct cli_cmd {
	const char *name;   /* "decode"; NULL for smtpdiag itself */
	const char *head;   /* --help before the options: usage, description */
	const char *tail;   /* --help after the options: notes, exit status */
	const cli_opt *opts;
	int in_order;       /* options end at the first operand (the command word) */
} cli_cmd;

typedef struct cli_parse {
	const cli_cmd *cmd;
	char **argv;
	int nopts;          /* entries of cmd->opts */
	int cur;            /* the option being handled: its index in cmd->opts */
	const char *value;  /* its value, NULL for a flag */
	struct option lo[CLI_MAX_OPTS + 2];
	char so[3 * CLI_MAX_OPTS + 8];
} cli_parse;

/* Called for each option: id is its index in cmd->opts. Returns -1 to go on,
 * else the exit status to stop with (after saying why). */
typedef int (*cli_opt_fn)(const cli_parse *p, int id, void *ctx);

/* Parse the options of argv[1..argc-1] (argv[0] is the command word), calling
 * fn for each. Returns -1 with *first the index of the first operand, or an
 * exit status: 0 after printing --help, 2 after a usage error, or fn's. */
int cli_parse_args(const cli_cmd *cmd, int argc, char **argv, cli_opt_fn fn, void *ctx, int *first);
/* Print the command's --help to f. */
void cli_help(const cli_cmd *cmd, FILE *f);
/* One usage line on stderr, "smtpdiag: CMD: <what> (see 'smtpdiag CMD --help')";
 * returns the usage exit status. */
int cli_usage(const cli_cmd *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The value of the current option is not one it takes: says so with what it
 * takes ("jsonl or text") and returns the usage exit status. */
int cli_bad_value(const cli_parse *p, const char *takes);
/* --format jsonl|text ("json" too): *text set, and -1; else the usage exit status. */
int cli_format_text(const cli_parse *p, int *text);
/* "10M", "512K", "1048576" -> the number; 0 when not one, or out of [min, max]. */
size_t cli_number(const char *s, size_t min, size_t max);

#endif
