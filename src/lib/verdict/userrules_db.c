/* userrules_db.c - the user's rules compiled into one Vectorscan database
 * (read-only, shared), a runner per decoder, scanner or explain call (its own
 * scratch), the match the verdict engine asks first, and loading a file. */
#include "verdict/userrules_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hs.h>

#define SD_UR_WORDS ((SMTPDIAG_RULES_MAX + 63) / 64) /* bits of the rules a text matched */

struct sd_urun {
	const smtpdiag_rules *set;
	hs_scratch_t *scratch;
	const char *domain;     /* the recipient's domain when the evidence has none */
	uint64_t hit[SD_UR_WORDS];
};

/* ---- compile ---- */

static int non_ascii_utf8(const char *p, size_t n)
{
	int high = 0;

	for (size_t i = 0, k; i < n; i += k) {
		if (!(k = sd_utf8_len((const unsigned char *)p + i, n - i)))
			return 0;
		high |= k > 1;
	}
	return high;
}

/* A literal as a regular expression: ASCII other than letters and digits as
 * \xHH, other bytes as they are. */
static const char *literal_expr(sd_arena *a, const char *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	char *e = sd_arena_alloc(a, n * 4 + 1), *o = e;

	for (size_t i = 0; e && i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		if (c < 0x80 && !sd_isalnum(c)) {
			*o++ = '\\';
			*o++ = 'x';
			*o++ = hex[c >> 4];
			*o++ = hex[c & 15];
		} else {
			*o++ = (char)c;
		}
	}
	if (e)
		*o = 0;
	return e;
}

static int compile_error(smtpdiag_rules *r, const char *name, hs_compile_error_t *ce, smtpdiag_error *err)
{
	const sd_urule *u = ce && ce->expression >= 0 && (unsigned)ce->expression < r->n ? &r->r[ce->expression] : NULL;

	if (err) {
		err->code = SMTPDIAG_EPARSE;
		if (u && strstr(ce->message, "empty buffer")) /* no HS_FLAG_ALLOWEMPTY: it would match any text */
			snprintf(err->message, sizeof(err->message), "%s:%u: bad regex: it matches an empty text, so "
				 "every reply", name, u->line);
		else if (u)
			snprintf(err->message, sizeof(err->message), "%s:%u: bad %s: %s", name, u->line,
				 u->literal ? "match text" : "regex", ce->message);
		else
			snprintf(err->message, sizeof(err->message), "%s: the rules cannot be compiled: %s", name,
				 ce ? ce->message : "unknown error");
	}
	if (ce)
		hs_free_compile_error(ce);
	return SMTPDIAG_EPARSE;
}

/* A regex that can match an empty text ($, ^ or \b alone, x* ...) matches at some
 * place of every reply: refused. Vectorscan's minimum match width is exact for
 * that question. 0, or SMTPDIAG_EPARSE with err set (the compile error, if
 * the expression has one, is left to hs_compile_multi to name). */
static int matches_empty(const sd_urule *u, const char *name, smtpdiag_error *err)
{
	hs_expr_info_t *info = NULL;
	hs_compile_error_t *ce = NULL;
	int empty;

	if (hs_expression_info(u->expr, u->flags, &info, &ce) != HS_SUCCESS) {
		hs_free_compile_error(ce);
		return 0;
	}
	empty = info->min_width == 0;
	free(info);
	if (!empty)
		return 0;
	if (err) {
		err->code = SMTPDIAG_EPARSE;
		snprintf(err->message, sizeof(err->message), "%s:%u: bad regex: it matches an empty text, so "
			 "every reply (anchors and \\b alone, x*, x?, and the like)", name, u->line);
	}
	return SMTPDIAG_EPARSE;
}

int sd_urules_compile(smtpdiag_rules *r, const char *name, smtpdiag_error *err)
{
	const char **expr = calloc(r->n + 1, sizeof(char *));
	unsigned *flags = calloc(r->n + 1, sizeof(unsigned)), *ids = calloc(r->n + 1, sizeof(unsigned));
	hs_compile_error_t *ce = NULL;
	hs_database_t *db = NULL;
	int rc = 0;

	for (unsigned i = 0; expr && flags && ids && i < r->n && !rc; i++) {
		sd_urule *u = &r->r[i];
		u->expr = u->literal ? literal_expr(&r->arena, u->pat, u->patn) : u->pat;
		u->flags = HS_FLAG_CASELESS | HS_FLAG_SINGLEMATCH | HS_FLAG_DOTALL;
		if (non_ascii_utf8(u->pat, u->patn))
			u->flags |= HS_FLAG_UTF8;
		expr[i] = u->expr;
		flags[i] = u->flags;
		ids[i] = i;
		rc = !u->expr ? SMTPDIAG_ENOMEM : u->literal ? 0 : matches_empty(u, name, err);
	}
	if (rc == SMTPDIAG_EPARSE)
		; /* err says which rule */
	else if (!expr || !flags || !ids || rc)
		rc = SMTPDIAG_ENOMEM;
	else if (r->n && hs_compile_multi(expr, flags, ids, r->n, HS_MODE_BLOCK, NULL, &db, &ce) != HS_SUCCESS)
		rc = compile_error(r, name, ce, err);
	if (rc == SMTPDIAG_ENOMEM && err) {
		err->code = rc;
		snprintf(err->message, sizeof(err->message), "%s: out of memory", name);
	}
	free(expr);
	free(flags);
	free(ids);
	r->db = db;
	return rc;
}

void smtpdiag_rules_free(smtpdiag_rules *r)
{
	if (!r)
		return;
	hs_free_database(r->db);
	sd_arena_free(&r->arena);
	free(r->r);
	free(r);
}

/* ---- a runner ---- */

int sd_urun_new(const smtpdiag_rules *set, sd_urun **out)
{
	sd_urun *u;

	*out = NULL;
	if (!set)
		return 0;
	if (!(u = calloc(1, sizeof(*u))))
		return SMTPDIAG_ENOMEM;
	u->set = set;
	if (set->db && hs_alloc_scratch(set->db, &u->scratch) != HS_SUCCESS) {
		free(u);
		return SMTPDIAG_ENOMEM;
	}
	*out = u;
	return 0;
}

void sd_urun_free(sd_urun *u)
{
	if (!u)
		return;
	hs_free_scratch(u->scratch);
	free(u);
}

int sd_urun_set(sd_urun **slot, const smtpdiag_rules *rules)
{
	sd_urun *u;
	int rc = sd_urun_new(rules, &u);

	if (rc < 0)
		return rc;
	sd_urun_free(*slot);
	*slot = u;
	return 0;
}

/* ---- matching ---- */

static int on_match(unsigned id, unsigned long long from, unsigned long long to, unsigned flags, void *ctx)
{
	sd_urun *u = ctx;

	(void)from;
	(void)to;
	(void)flags;
	if (id < SMTPDIAG_RULES_MAX)
		u->hit[id / 64] |= (uint64_t)1 << (id % 64);
	return 0;
}

/* code=550 / 55x / 5xx against the reply code. */
static int code_ok(const char *want, int rc)
{
	char got[4];

	if (!want[0])
		return 1;
	if (rc < 200 || rc > 599)
		return 0;
	snprintf(got, sizeof(got), "%d", rc);
	for (int i = 0; i < 3; i++)
		if (want[i] != 'x' && want[i] != got[i])
			return 0;
	return 1;
}

/* status=5.1.1 exactly, or status=5.7. as a prefix. */
static int status_ok(const char *want, const char *got)
{
	size_t n = strlen(want);

	if (!n)
		return 1;
	return want[n - 1] == '.' ? !strncmp(got, want, n) : !strcmp(got, want);
}

/* A name (n bytes of got, any case) against example.com or *.example.com. */
static int name_ok(const char *want, const char *got, size_t n)
{
	size_t w;

	while (n && got[n - 1] == '.') /* the root's dot */
		n--;
	if (want[0] != '*')
		return strlen(want) == n && sd_memcaseeq(want, got, n);
	w = strlen(want + 1); /* ".example.com" */
	return n > w && sd_memcaseeq(want + 1, got + n - w, w);
}

/* host=: the remote host as logged, "mx.example.org[192.0.2.1]:25" or
 * "mx.example.org [192.0.2.1]": its name, or the address in brackets. */
static int host_ok(const char *want, const char *got)
{
	size_t n = strcspn(got, "[ "), b;
	const char *ip = strchr(got, '[');

	if (!want[0])
		return 1;
	if (n && name_ok(want, got, n))
		return 1;
	if (!ip)
		return 0;
	b = strcspn(ip + 1, "]");
	return name_ok(want, ip + 1, b);
}

static int limits_ok(const sd_urule *r, const sd_evidence *ev, const char *dom)
{
	return code_ok(r->code, ev->replycode) && status_ok(r->status, ev->status) &&
	       (!r->domain[0] || name_ok(r->domain, dom, strlen(dom))) && host_ok(r->host, ev->rhost);
}

static void fill(const smtpdiag_rules *set, const sd_urule *r, sd_user_hit *h)
{
	h->reason = r->reason;
	h->advice = r->advice;
	h->hard = r->hard;
	h->retry = r->retry;
	h->label = r->label;
	snprintf(h->who, sizeof(h->who), "user:%s:%u", set->name, r->line);
}

/* The engine's callback (sd_user_rule_fn): the first rule in file order
 * whose pattern matched the text and whose limits hold. */
static int ask(void *ctx, const sd_evidence *ev, sd_user_hit *h)
{
	sd_urun *u = ctx;
	const smtpdiag_rules *set = u->set;
	size_t n = ev->textn > 0xffffffffu ? 0xffffffffu : ev->textn;
	const char *dom = ev->destination[0] || !u->domain ? ev->destination : u->domain;

	if (!set->db || !n)
		return 0;
	memset(u->hit, 0, sizeof(u->hit));
	if (hs_scan(set->db, ev->text, (unsigned)n, 0, u->scratch, on_match, u) != HS_SUCCESS)
		return 0;
	for (unsigned i = 0; i < set->n; i++)
		if ((u->hit[i / 64] >> (i % 64) & 1) && limits_ok(&set->r[i], ev, dom)) {
			fill(set, &set->r[i], h);
			return 1;
		}
	return 0;
}

void sd_urun_attach(sd_urun *u, sd_evidence *ev, const char *domain)
{
	if (!u)
		return;
	u->domain = domain;
	ev->user = ask;
	ev->user_ctx = u;
}

/* ---- a file ---- */

static int io_error(const char *path, int e, smtpdiag_error *err)
{
	char buf[128];

	if (err) {
		err->code = SMTPDIAG_EIO;
		snprintf(err->message, sizeof(err->message), "%s: %s", path, strerror_r(e, buf, sizeof(buf)));
	}
	return SMTPDIAG_EIO;
}

/* The whole file into *data (malloc'd), at most SMTPDIAG_RULES_MAX_FILE bytes. */
static int read_file(const char *path, char **data, size_t *len, smtpdiag_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = SMTPDIAG_RULES_MAX_FILE + 1, n = 0;
	char *buf;
	ssize_t k = 1;

	if (fd < 0)
		return io_error(path, errno, err);
	if (!(buf = malloc(cap))) {
		close(fd);
		io_error(path, ENOMEM, err);
		if (err)
			err->code = SMTPDIAG_ENOMEM;
		return SMTPDIAG_ENOMEM;
	}
	while (n < cap && (k = read(fd, buf + n, cap - n)) != 0) {
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = errno;
			free(buf);
			close(fd);
			return io_error(path, e, err);
		}
		n += (size_t)k;
	}
	close(fd);
	*data = buf;
	*len = n;
	return 0;
}

int smtpdiag_rules_load(const char *path, smtpdiag_rules **out, smtpdiag_error *err)
{
	char *data = NULL;
	size_t len = 0;
	int rc;

	if (!path || !*path || !out) {
		if (err) {
			err->code = SMTPDIAG_EINVAL;
			snprintf(err->message, sizeof(err->message), "no rule file named");
		}
		return SMTPDIAG_EINVAL;
	}
	if ((rc = read_file(path, &data, &len, err)) < 0)
		return rc;
	if (len > SMTPDIAG_RULES_MAX_FILE) {
		free(data);
		if (err) {
			err->code = SMTPDIAG_ELIMIT;
			snprintf(err->message, sizeof(err->message), "%s: larger than 1 MiB (SMTPDIAG_RULES_MAX_FILE)", path);
		}
		return SMTPDIAG_ELIMIT;
	}
	rc = smtpdiag_rules_parse(data, len, path, out, err);
	free(data);
	return rc;
}
