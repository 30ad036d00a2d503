/* main.c - smtpdiag: dispatch to the subcommands. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "opts.h"

#define CLI_LINE_SMALL 1024 /* a longer output line is formatted on the heap */

enum { T_VERSION, T_END };

static const cli_opt opts[] = {
	[T_VERSION] = { "version", 'V', CLI_FLAG, NULL, "print the version and the licence" },
	[T_END] = { NULL, 0, 0, NULL, NULL }
};

static const cli_cmd top_cmd = {
	NULL,
	"usage: smtpdiag COMMAND [OPTIONS] [ARGS]\n"
	"       smtpdiag --help | --version\n"
	"\n"
	"What an SMTP failure means and what to do about it.\n"
	"\n"
	"commands:\n"
	"  explain CODE [CODE]   explain a reply code, an enhanced status or a pair\n"
	"  explain --text TEXT   explain SMTP reply text of one or more lines\n"
	"  explain --file PATH   find and explain the failure in pasted text or a bounce\n"
	"  decode PATH...        bounce emails to one verdict per recipient (JSON Lines)\n"
	"  scan LOG...           delivery failures and deferrals from MTA logs\n"
	"  serve                 the code reference and bounce analyzer over HTTP\n"
	"  store SUBCOMMAND      bounce history and suppression (ingest, suppressed, show,\n"
	"                        release, stats, prune)\n"
	"  help [COMMAND]        this help, or a command's\n",
	"Run 'smtpdiag COMMAND --help' for a command's options. A command's options and\n"
	"operands may come in any order; '--' ends the options.\n"
	"Exit status: 0 done, 1 some inputs failed, 2 bad usage or input, 3 internal failure.\n",
	opts, 1
};

void cli_put(FILE *f, const char *p, size_t n)
{
	smtpdiag_buf b = { 0 };

	smtpdiag_buf_text(&b, p, n);
	if (b.len)
		fwrite(b.data, 1, b.len, f);
	smtpdiag_buf_free(&b);
}

/* Printable ASCII only: nothing to escape (the common case). */
static int plain(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
			return 0;
	return 1;
}

/* prefix, then fmt with its arguments escaped, then a newline. */
static int vline(FILE *f, const char *prefix, const char *fmt, va_list ap)
{
	char small[CLI_LINE_SMALL], *s = small;
	smtpdiag_buf b = { 0 };
	va_list aq;
	int n, rc;

	va_copy(aq, ap);
	n = vsnprintf(small, sizeof(small), fmt, aq);
	va_end(aq);
	if (n >= (int)sizeof(small) && (n = vasprintf(&s, fmt, ap)) < 0)
		s = NULL;
	if (n < 0)
		return -1;
	if (!plain(s, (size_t)n)) {
		smtpdiag_buf_text(&b, s, (size_t)n);
		n = b.oom ? -1 : (int)b.len;
	}
	rc = n < 0 || fputs(prefix, f) < 0 || fwrite(b.data ? b.data : s, 1, (size_t)n, f) != (size_t)n ||
	     fputc('\n', f) == EOF ? -1 : n + 1;
	smtpdiag_buf_free(&b);
	if (s != small)
		free(s);
	return rc;
}

int cli_line(FILE *f, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vline(f, "", fmt, ap);
	va_end(ap);
	return rc;
}

void cli_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(stderr, "smtpdiag: ", fmt, ap);
	va_end(ap);
}

int cli_color_when(const char *s)
{
	if (!strcmp(s, "auto"))
		return CLI_COLOR_AUTO;
	if (!strcmp(s, "always"))
		return CLI_COLOR_ALWAYS;
	if (!strcmp(s, "never"))
		return CLI_COLOR_NEVER;
	return -1;
}

/* The one place colour is decided (https://no-color.org: any non-empty NO_COLOR). */
int cli_color(FILE *f, int when)
{
	const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");

	if (when != CLI_COLOR_AUTO)
		return when == CLI_COLOR_ALWAYS;
	if (nc && *nc)
		return 0;
	if (term && !strcmp(term, "dumb"))
		return 0;
	return isatty(fileno(f));
}

void cli_wrap_hang(FILE *f, const char *text, int col0, int indent, int width)
{
	const char *p = text;
	int col, first = 1;

	while (*p) {
		const char *start = p, *brk = NULL;
		col = first ? col0 : indent;
		while (*p && *p != '\n' && (col < width || !brk)) {
			if (*p == ' ')
				brk = p;
			if (((unsigned char)*p & 0xc0) != 0x80) /* count characters, not bytes */
				col++;
			p++;
		}
		if (*p && *p != '\n' && brk)
			p = brk;
		fprintf(f, "%*s", first ? 0 : indent, "");
		cli_put(f, start, (size_t)(p - start));
		fputc('\n', f);
		first = 0;
		while (*p == ' ' || *p == '\n')
			p++;
	}
}

void cli_wrap(FILE *f, const char *text, int indent, int width)
{
	fprintf(f, "%*s", indent, "");
	cli_wrap_hang(f, text, indent, indent, width);
}

int cli_read_all(const char *path, size_t max, char **data, size_t *len)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	size_t cap = 65536, n = 0;
	char *buf;
	ssize_t r;

	if (fd < 0)
		return -errno;
	buf = malloc(cap + 1);
	if (!buf) {
		if (fd)
			close(fd);
		return -ENOMEM;
	}
	for (;;) {
		if (n == cap) {
			char *nb;
			if (cap >= max)
				break;
			cap = cap * 2 > max ? max : cap * 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				if (fd)
					close(fd);
				return -ENOMEM;
			}
			buf = nb;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			if (fd)
				close(fd);
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (fd)
		close(fd);
	if (n == cap && cap >= max) {
		char c;
		/* one more byte tells whether the input is over the limit */
		if (strcmp(path, "-") ? 0 : read(0, &c, 1) == 1) {
			free(buf);
			return -EFBIG;
		}
		if (strcmp(path, "-")) {
			struct stat sb;
			if (stat(path, &sb) == 0 && (size_t)sb.st_size > max) {
				free(buf);
				return -EFBIG;
			}
		}
	}
	buf[n] = '\0';
	*data = buf;
	*len = n;
	return 0;
}

static const struct command {
	const char *name;
	int (*fn)(int, char **);
} cmds[] = {
	{ "explain", cmd_explain },
	{ "decode", cmd_decode },
	{ "scan", cmd_scan },
	{ "serve", cmd_serve },
	{ "store", cmd_store },
};

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(name, cmds[i].name))
			return &cmds[i];
	return NULL;
}

/* smtpdiag help [COMMAND] */
static int help(int argc, char **argv)
{
	const struct command *c = argc > 1 ? find_command(argv[1]) : NULL;
	char *args[] = { argv[1], (char *)"--help", NULL };

	if (argc > 2)
		return cli_usage(&top_cmd, "help takes one COMMAND");
	if (argc < 2) {
		cli_help(&top_cmd, stdout);
		return EXIT_OK_;
	}
	if (!c)
		return cli_usage(&top_cmd, "unknown command '%s'", argv[1]);
	return c->fn(2, args);
}

static int run(const struct command *c, int argc, char **argv)
{
	smtpdiag_error err;
	int rc = smtpdiag_init(&err);

	if (rc < 0) {
		cli_err("%s", err.message);
		return EXIT_FAIL_;
	}
	if (rc == 1)
		cli_err("note: the embedded rule database does not load here; compiled the rules at start");
	return c->fn(argc, argv);
}

/* -V, --version: the only option of smtpdiag itself besides --help. */
static int on_opt(const cli_parse *p, int id, void *ctx)
{
	printf("smtpdiag %s\n"
	       "Copyright (c) 2025-2026 The smtpdiag authors\n"
	       "License: BSD-2-Clause (the BSD 2-Clause License; see LICENSE)\n",
	       smtpdiag_version());
	return EXIT_OK_;
}

int main(int argc, char **argv)
{
	const struct command *c;
	int first = argc, rc;

	if ((rc = cli_parse_args(&top_cmd, argc, argv, on_opt, NULL, &first)) >= 0)
		return rc;
	argc -= first;
	argv += first;
	if (argc < 1) {
		cli_help(&top_cmd, stderr);
		return EXIT_USAGE_;
	}
	if (!strcmp(argv[0], "help"))
		return help(argc, argv);
	if (!(c = find_command(argv[0])))
		return cli_usage(&top_cmd, "unknown command '%s'", argv[0]);
	return run(c, argc, argv);
}
