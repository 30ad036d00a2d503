/* opts.c - one option parser for every subcommand, over getopt_long (opts.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opts.h"

#define HELP_WIDTH 80   /* --help lines are wrapped to this many columns */
#define LONG_ONLY 256   /* getopt values of options without a letter: LONG_ONLY + index */

static const cli_opt help_opt = { "help", 'h', CLI_FLAG, NULL, "this help" };

static int count_opts(const cli_cmd *cmd)
{
	int n = 0;

	while (cmd->opts && cmd->opts[n].name)
		n++;
	return n;
}

/* The i-th option of a table of n, -h/--help being the last (i == n). */
static const cli_opt *nth(const cli_cmd *cmd, int n, int i)
{
	return i < n ? &cmd->opts[i] : &help_opt;
}

/* ---- --help ---- */

static int opt_left(const cli_opt *o, char *buf, size_t size)
{
	char sh[8] = "    ";

	if (o->letter)
		snprintf(sh, sizeof(sh), "-%c, ", o->letter);
	return snprintf(buf, size, "  %s--%s%s%s", sh, o->name, o->meta ? " " : "",
			o->meta ? o->meta : "");
}

/* The column the option texts start at: past the widest option. */
static int help_col(const cli_cmd *cmd, int n)
{
	char left[128];
	int col = 0;

	for (int i = 0; i <= n; i++) {
		int w = opt_left(nth(cmd, n, i), left, sizeof(left));
		col = w > col ? w : col;
	}
	return col + 2;
}

void cli_help(const cli_cmd *cmd, FILE *f)
{
	int n = count_opts(cmd), col = help_col(cmd, n);
	char left[128];

	fputs(cmd->head, f);
	fputs("\noptions:\n", f);
	for (int i = 0; i <= n; i++) {
		const cli_opt *o = nth(cmd, n, i);
		opt_left(o, left, sizeof(left));
		fprintf(f, "%-*s", col, left);
		cli_wrap_hang(f, o->help, col, col, HELP_WIDTH);
	}
	if (cmd->tail) {
		fputc('\n', f);
		fputs(cmd->tail, f);
	}
}

/* ---- errors ---- */

int cli_usage(const cli_cmd *cmd, const char *fmt, ...)
{
	const char *name = cmd->name ? cmd->name : "";
	va_list ap;

	fprintf(stderr, "smtpdiag: %s%s", name, cmd->name ? ": " : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'smtpdiag%s%s --help')\n", cmd->name ? " " : "", name);
	return EXIT_USAGE_;
}

int cli_bad_value(const cli_parse *p, const char *takes)
{
	return cli_usage(p->cmd, "--%s takes %s, not '%s'", p->lo[p->cur].name, takes,
			 p->value ? p->value : "");
}

int cli_format_text(const cli_parse *p, int *text)
{
	if (strcmp(p->value, "text") && strcmp(p->value, "jsonl") && strcmp(p->value, "json"))
		return cli_bad_value(p, "jsonl or text");
	*text = !strcmp(p->value, "text");
	return -1;
}

static int by_val(const cli_parse *p, int val)
{
	for (int i = 0; i <= p->nopts; i++)
		if (p->lo[i].val == val)
			return i;
	return -1;
}

static int missing_value(const cli_parse *p)
{
	int i = by_val(p, optopt);

	if (i < 0)
		return cli_usage(p->cmd, "an option needs a value");
	return cli_usage(p->cmd, "option '--%s' needs a value: %s", p->lo[i].name,
			 nth(p->cmd, p->nopts, i)->meta);
}

/* An unknown long option, or a prefix of more than one (getopt_long takes an
 * unambiguous prefix for the whole name). */
static int unknown_long(const cli_parse *p, const char *arg)
{
	int len = (int)strcspn(arg, "="), hits = 0;

	for (int i = 0; i <= p->nopts; i++)
		hits += len > 2 && !strncmp(p->lo[i].name, arg + 2, (size_t)len - 2);
	return cli_usage(p->cmd, "%s option '%.*s'", hits > 1 ? "ambiguous" : "unknown", len, arg);
}

/* getopt_long said '?': an unknown option, or a value given to a flag. */
static int bad_option(const cli_parse *p)
{
	int i = optopt ? by_val(p, optopt) : -1;

	if (i >= 0)
		return cli_usage(p->cmd, "option '--%s' takes no value", p->lo[i].name);
	if (optopt)
		return cli_usage(p->cmd, "unknown option '-%c'", optopt);
	return unknown_long(p, p->argv[optind - 1]);
}

/* ---- parsing ---- */

static size_t add_opt(cli_parse *p, int i, size_t k)
{
	const cli_opt *o = nth(p->cmd, p->nopts, i);
	int has_arg = o->arg == CLI_VALUE ? required_argument : no_argument;

	p->lo[i] = (struct option){ o->name, has_arg, NULL, o->letter ? o->letter : LONG_ONLY + i };
	if (o->letter) {
		p->so[k++] = (char)o->letter;
		if (o->arg == CLI_VALUE)
			p->so[k++] = ':';
	}
	return k;
}

static void parse_init(cli_parse *p, const cli_cmd *cmd, char **argv)
{
	size_t k = 0;

	memset(p, 0, sizeof(*p));
	p->cmd = cmd;
	p->argv = argv;
	p->cur = -1;
	p->nopts = count_opts(cmd);
	if (cmd->in_order)
		p->so[k++] = '+';
	p->so[k++] = ':'; /* getopt_long reports a missing value as ':' and prints nothing */
	for (int i = 0; i <= p->nopts && p->nopts <= CLI_MAX_OPTS; i++)
		k = add_opt(p, i, k);
	p->so[k] = '\0';
	opterr = 0;
	optind = 0; /* glibc: 0 starts over, reading POSIXLY_CORRECT again */
}

/* What getopt_long returned (c, and li for a long option): -1 to go on, or an exit status. */
static int one_opt(cli_parse *p, int c, int li, cli_opt_fn fn, void *ctx)
{
	if (c == ':')
		return missing_value(p);
	if (c == '?')
		return bad_option(p);
	p->cur = li >= 0 ? li : by_val(p, c);
	p->value = optarg;
	if (p->cur == p->nopts) {
		cli_help(p->cmd, stdout);
		return EXIT_OK_;
	}
	return fn(p, p->cur, ctx);
}

int cli_parse_args(const cli_cmd *cmd, int argc, char **argv, cli_opt_fn fn, void *ctx, int *first)
{
	cli_parse p;
	int c, li = -1, rc;

	parse_init(&p, cmd, argv);
	if (p.nopts > CLI_MAX_OPTS) {
		cli_err("%s: more than %d options", cmd->name ? cmd->name : "", CLI_MAX_OPTS);
		return EXIT_FAIL_;
	}
	while ((c = getopt_long(argc, argv, p.so, p.lo, &li)) != -1) {
		if ((rc = one_opt(&p, c, li, fn, ctx)) >= 0)
			return rc;
		li = -1;
	}
	*first = optind;
	return -1;
}

size_t cli_number(const char *s, size_t min, size_t max)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (!s || !(*s >= '0' && *s <= '9'))
		return 0;
	v = strtoull(s, &end, 10);
	if (errno || v > (1ull << 40))
		return 0;
	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	if (*end || v < min || v > max)
		return 0;
	return (size_t)v;
}
