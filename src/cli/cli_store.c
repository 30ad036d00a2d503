/* cli_store.c - the store as the commands open and feed it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_store.h"

#define POLICY_MAX_BYTES (1u << 20)
#define READ_CHUNK ((size_t)256 << 10)

void cli_store_set(cli_store *o, const char *key, const char *value)
{
	if (o->nset < (int)(sizeof(o->set) / sizeof(o->set[0]))) {
		o->set[o->nset][0] = key;
		o->set[o->nset][1] = value;
		o->nset++;
	}
}

int cli_store_policy(cli_store *o, smtpdiag_policy *pol, const char *cmd)
{
	const char *file = o->policy_file ? o->policy_file : getenv("SMTPDIAG_POLICY");
	smtpdiag_error err = { 0, "" };
	char *text;
	size_t len;
	int rc;

	smtpdiag_policy_init(pol);
	if (file && *file) {
		if ((rc = cli_read_all(file, POLICY_MAX_BYTES, &text, &len)) < 0) {
			cli_err("%s: policy %s: %s", cmd, file, strerror(-rc));
			return EXIT_USAGE_;
		}
		rc = smtpdiag_policy_parse(pol, text, len, &err);
		free(text);
		if (rc < 0) {
			cli_err("%s: policy %s: %s", cmd, file, err.message);
			return EXIT_USAGE_;
		}
	}
	for (int i = 0; i < o->nset; i++)
		if (smtpdiag_policy_set(pol, o->set[i][0], o->set[i][1], &err) < 0) {
			cli_err("%s: %s", cmd, err.message);
			return EXIT_USAGE_;
		}
	return -1;
}

int cli_store_open(cli_store *o, const char *cmd)
{
	smtpdiag_policy pol;
	smtpdiag_error err = { 0, "" };
	smtpdiag_store_options so = { o->read_only, 0 };
	const char *env = getenv("SMTPDIAG_STORE");
	int rc;

	if (!o->url)
		o->url = env && *env ? env : CLI_STORE_DEFAULT;
	if ((rc = cli_store_policy(o, &pol, cmd)) >= 0)
		return rc;
	if ((rc = smtpdiag_store_open_with(o->url, &pol, &so, &o->st, &err)) < 0) {
		cli_err("%s: store %s: %s", cmd, o->url, err.message[0] ? err.message : smtpdiag_strerror(rc));
		return rc == SMTPDIAG_EINVAL || rc == SMTPDIAG_ELIMIT ? EXIT_USAGE_ : EXIT_FAIL_;
	}
	return -1;
}

int cli_store_bad(cli_store *o, const char *cmd, const char *where, unsigned long line,
		  int rc, const smtpdiag_error *err)
{
	const char *why = err->message[0] ? err->message : smtpdiag_strerror(rc);

	if (rc == SMTPDIAG_ESTORE || rc == SMTPDIAG_ENOMEM) {
		cli_err("%s: %s: %s", cmd, o->url, why);
		return 1;
	}
	if (++o->reports <= CLI_STORE_MAX_REPORTS) {
		if (line)
			cli_err("%s: %s:%lu: %s", cmd, where, line, why);
		else
			cli_err("%s: %s: %s", cmd, where, why);
	}
	return 0;
}

int cli_store_finish(cli_store *o, const char *cmd, FILE *f)
{
	smtpdiag_error err = { 0, "" };
	smtpdiag_store_counts c;
	int rc = 0;

	if (!o->st)
		return 0;
	if (smtpdiag_store_flush(o->st, &err) < 0) {
		cli_err("%s: %s: %s", cmd, o->url, err.message);
		rc = EXIT_FAIL_;
	}
	smtpdiag_store_counts_get(o->st, &c);
	if (o->reports > CLI_STORE_MAX_REPORTS)
		cli_err("%s: %lu more bad records not named", cmd, o->reports - CLI_STORE_MAX_REPORTS);
	fprintf(f, "read %llu = recorded %llu + duplicates %llu + errors %llu\n",
		(unsigned long long)c.read, (unsigned long long)c.recorded,
		(unsigned long long)c.duplicates, (unsigned long long)c.errors);
	smtpdiag_store_close(o->st);
	o->st = NULL;
	return rc;
}

/* ---- JSON Lines in ---- */

typedef struct lines {
	char *buf;
	size_t len, cap;
	unsigned long no;   /* number of the line at the start of buf */
	int skipping;       /* inside a line over the limit */
} lines;

/* One line to the store. Returns 1 when the store failed. */
static int one(cli_store *o, const char *path, unsigned long no, const char *p, size_t n)
{
	smtpdiag_error err = { 0, "" };
	int rc;

	if (n && p[n - 1] == '\r')
		n--;
	while (n && (*p == ' ' || *p == '\t'))
		p++, n--;
	if (!n)
		return 0; /* blank lines are no records */
	if ((rc = smtpdiag_store_add_json(o->st, p, n, &err)) < 0)
		return cli_store_bad(o, "store ingest", path, no, rc, &err);
	return 0;
}

/* The whole lines of l->buf to the store; the rest moves to the front. */
static int drain(cli_store *o, const char *path, lines *l)
{
	size_t at = 0;
	char *nl;

	while ((nl = memchr(l->buf + at, '\n', l->len - at))) {
		size_t n = (size_t)(nl - (l->buf + at));
		int stop = 0;
		l->no++;
		if (!l->skipping)
			stop = one(o, path, l->no, l->buf + at, n);
		l->skipping = 0;
		at += n + 1;
		if (stop)
			return 1;
	}
	memmove(l->buf, l->buf + at, l->len - at);
	l->len -= at;
	return 0;
}

/* A line longer than the limit: counted as one bad record, then skipped. */
static int too_long(cli_store *o, const char *path, lines *l)
{
	smtpdiag_error err = { SMTPDIAG_ELIMIT, "" };

	snprintf(err.message, sizeof(err.message), "line longer than %u bytes", SMTPDIAG_STORE_MAX_LINE);
	if (!l->skipping)
		(void)smtpdiag_store_add_json(o->st, l->buf, l->len, NULL); /* counted as an error */
	if (!l->skipping)
		cli_store_bad(o, "store ingest", path, l->no + 1, SMTPDIAG_ELIMIT, &err);
	l->skipping = 1;
	l->len = 0;
	return 0;
}

static int pump(cli_store *o, const char *path, int fd, lines *l)
{
	ssize_t r;

	for (;;) {
		if (l->cap - l->len < READ_CHUNK && too_long(o, path, l))
			return 1;
		r = read(fd, l->buf + l->len, l->cap - l->len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			cli_err("store ingest: %s: %s", path, strerror(errno));
			return -1;
		}
		if (r == 0)
			break;
		l->len += (size_t)r;
		if (drain(o, path, l))
			return 1;
	}
	if (l->len && !l->skipping)
		return one(o, path, l->no + 1, l->buf, l->len); /* a last line without its end */
	return 0;
}

int cli_store_ingest(cli_store *o, const char *path)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	lines l = { NULL, 0, SMTPDIAG_STORE_MAX_LINE + READ_CHUNK, 0, 0 };
	int rc;

	if (fd < 0) {
		cli_err("store ingest: %s: %s", path, strerror(errno));
		return -1;
	}
	if (!(l.buf = malloc(l.cap))) {
		cli_err("store ingest: out of memory");
		rc = 1;
	} else {
		rc = pump(o, path, fd, &l);
	}
	free(l.buf);
	if (fd != STDIN_FILENO)
		close(fd);
	return rc;
}
