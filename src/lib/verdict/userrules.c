/* userrules.c - read a user rule file (docs/rules.md): one rule a line,
 *   match "literal text" key=value ...
 *   regex /pattern/ key=value ...
 * '#' starts a comment, blank lines are skipped. Every error names
 * "source:line: what". The patterns are compiled by userrules_db.c. */
#include "verdict/userrules_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* A line being read: the cursor, and where errors go. */
typedef struct rd {
	const char *p;
	size_t n, i;
	unsigned line;
	const char *name;
	smtpdiag_rules *set;
	smtpdiag_error *err;
} rd;

static int fail(rd *x, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(rd *x, int code, const char *fmt, ...)
{
	char what[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (x->err) {
		x->err->code = code;
		snprintf(x->err->message, sizeof(x->err->message), "%s:%u: %s", x->name, x->line, what);
	}
	return code;
}

static void skip_space(rd *x)
{
	while (x->i < x->n && (x->p[x->i] == ' ' || x->p[x->i] == '\t'))
		x->i++;
}

/* The next word (up to a space), as a slice. */
static sd_str word(rd *x)
{
	size_t b;

	skip_space(x);
	b = x->i;
	while (x->i < x->n && x->p[x->i] != ' ' && x->p[x->i] != '\t')
		x->i++;
	return (sd_str){ x->p + b, x->i - b };
}

static int shown(sd_str s) /* bytes of a value quoted in a message */
{
	return (int)(s.n > 40 ? 40 : s.n);
}

/* ---- the pattern ---- */

/* The bytes between the quotes of match "..." (\" and \\ stand for " and \)
 * or the slashes of regex /.../ (kept as written: \/ is a slash to PCRE). */
static int pattern(rd *x, sd_urule *u)
{
	char close = u->literal ? '"' : '/', *out;
	size_t k = 0;

	skip_space(x);
	if (x->i >= x->n || x->p[x->i] != close)
		return fail(x, SMTPDIAG_EPARSE, u->literal ? "match takes a text in double quotes: match \"user unknown\""
							  : "regex takes a pattern between slashes: regex /user (unknown|not found)/");
	if (!(out = sd_arena_alloc(&x->set->arena, x->n - x->i + 1)))
		return fail(x, SMTPDIAG_ENOMEM, "out of memory");
	for (x->i++; x->i < x->n && x->p[x->i] != close; x->i++) {
		if (x->p[x->i] == '\\' && x->i + 1 < x->n) {
			if (!u->literal || (x->p[x->i + 1] != '"' && x->p[x->i + 1] != '\\'))
				out[k++] = '\\';
			x->i++;
		}
		out[k++] = x->p[x->i];
	}
	if (x->i >= x->n)
		return fail(x, SMTPDIAG_EPARSE, "no closing %c after the pattern", close);
	x->i++;
	if (x->i < x->n && x->p[x->i] != ' ' && x->p[x->i] != '\t')
		return fail(x, SMTPDIAG_EPARSE, "a space must follow the closing %c (flags are not taken: case is always ignored)", close);
	if (!k)
		return fail(x, SMTPDIAG_EPARSE, "empty pattern");
	if (k > SMTPDIAG_RULES_MAX_PATTERN)
		return fail(x, SMTPDIAG_ELIMIT, "pattern longer than %d bytes (SMTPDIAG_RULES_MAX_PATTERN)",
			    SMTPDIAG_RULES_MAX_PATTERN);
	out[k] = 0;
	u->pat = out;
	u->patn = k;
	return 0;
}

/* ---- the fields ---- */

static int yes_no(rd *x, sd_str k, sd_str v, int *to)
{
	if (sd_str_caseeq(v, "yes") || sd_str_caseeq(v, "true") || sd_str_caseeq(v, "1"))
		*to = 1;
	else if (sd_str_caseeq(v, "no") || sd_str_caseeq(v, "false") || sd_str_caseeq(v, "0"))
		*to = 0;
	else
		return fail(x, SMTPDIAG_EPARSE, "%.*s takes yes or no, not '%.*s'", (int)k.n, k.p, shown(v), v.p);
	return 0;
}

static int set_reason(rd *x, sd_str v, sd_urule *u)
{
	char name[32];

	if (v.n < sizeof(name)) {
		sd_strlcpy(name, v.p, v.n, sizeof(name));
		u->reason = sd_reason_index(name);
	}
	if (u->reason < 0)
		return fail(x, SMTPDIAG_EPARSE, "unknown reason '%.*s' (the 34 names of docs/reasons.md)", shown(v), v.p);
	return 0;
}

static int set_advice(rd *x, sd_str v, sd_urule *u)
{
	int a = sd_advice_index(v.p, v.n); /* the advice words of reasons.def */

	if (a >= 0) {
		u->advice = sd_advice_name(a);
		return 0;
	}
	return fail(x, SMTPDIAG_EPARSE, "unknown advice '%.*s' (the advice words of docs/reasons.md)", shown(v), v.p);
}

static int set_label(rd *x, sd_str v, sd_urule *u)
{
	if (v.n > SMTPDIAG_RULES_MAX_LABEL)
		return fail(x, SMTPDIAG_ELIMIT, "label longer than %d bytes (SMTPDIAG_RULES_MAX_LABEL)", SMTPDIAG_RULES_MAX_LABEL);
	for (size_t i = 0; i < v.n; i++)
		if (!sd_isalnum((unsigned char)v.p[i]) && (!v.p[i] || !strchr("._-", v.p[i])))
			return fail(x, SMTPDIAG_EPARSE, "bad label '%.*s': letters, digits, '.', '_' and '-' only", shown(v), v.p);
	u->label = sd_arena_strndup(&x->set->arena, v.p, v.n);
	return u->label ? 0 : fail(x, SMTPDIAG_ENOMEM, "out of memory");
}

/* code=550, or with x for any digit: 55x, 5xx. */
static int set_code(rd *x, sd_str v, sd_urule *u)
{
	int ok = v.n == 3 && v.p[0] >= '2' && v.p[0] <= '5';

	for (size_t i = 1; ok && i < 3; i++)
		ok = sd_isdigit((unsigned char)v.p[i]) || v.p[i] == 'x' || v.p[i] == 'X';
	if (!ok)
		return fail(x, SMTPDIAG_EPARSE, "bad code '%.*s': a reply code like 550, or 55x, 5xx", shown(v), v.p);
	for (int i = 0; i < 3; i++)
		u->code[i] = (char)sd_tolower((unsigned char)v.p[i]);
	u->code[3] = 0;
	return 0;
}

static size_t digits(sd_str v, size_t i)
{
	size_t b = i;

	while (i < v.n && sd_isdigit((unsigned char)v.p[i]) && i - b < 3)
		i++;
	return i - b;
}

/* status=5.1.1, or a prefix ending in a dot: 5.7. or 5. */
static int set_status(rd *x, sd_str v, sd_urule *u)
{
	int ok = v.n >= 2 && (v.p[0] == '2' || v.p[0] == '4' || v.p[0] == '5') && v.p[1] == '.';
	size_t i = 2, d;

	if (ok && i < v.n) { /* the subject, and its dot */
		d = digits(v, i);
		ok = d && i + d < v.n && v.p[i + d] == '.';
		i += d + 1;
	}
	if (ok && i < v.n) { /* the detail, last */
		d = digits(v, i);
		ok = d && i + d == v.n;
	}
	if (!ok)
		return fail(x, SMTPDIAG_EPARSE, "bad status '%.*s': an enhanced status like 5.1.1, or a prefix like 5.7.",
			    shown(v), v.p);
	sd_strlcpy(u->status, v.p, v.n, sizeof(u->status));
	return 0;
}

/* domain= and host=: a name (letters, digits, '-', '.', ':' for addresses),
 * or *.name for the names under it; kept lowercased. */
static int set_host(rd *x, sd_str k, sd_str v, const char **to)
{
	size_t s = v.n > 2 && v.p[0] == '*' && v.p[1] == '.' ? 2 : 0, i = s;

	if (v.n > SMTPDIAG_RULES_MAX_HOST)
		return fail(x, SMTPDIAG_ELIMIT, "%.*s longer than %d bytes (SMTPDIAG_RULES_MAX_HOST)", (int)k.n, k.p,
			    SMTPDIAG_RULES_MAX_HOST);
	while (i < v.n && (sd_isalnum((unsigned char)v.p[i]) || (v.p[i] && strchr("-.:_", v.p[i]))))
		i++;
	if (i < v.n || v.n <= s)
		return fail(x, SMTPDIAG_EPARSE, "bad %.*s '%.*s': a name like example.com, or *.example.com", (int)k.n,
			    k.p, shown(v), v.p);
	*to = sd_arena_strndup_lower(&x->set->arena, v);
	return *to ? 0 : fail(x, SMTPDIAG_ENOMEM, "out of memory");
}

static const char *const keys[] = { "reason", "advice", "hard", "retry", "label", "code", "status", "domain", "host" };
enum { K_REASON, K_ADVICE, K_HARD, K_RETRY, K_LABEL, K_CODE, K_STATUS, K_DOMAIN, K_HOST, K_COUNT };

static int set_field(rd *x, int key, sd_str k, sd_str v, sd_urule *u)
{
	switch (key) {
	case K_REASON: return set_reason(x, v, u);
	case K_ADVICE: return set_advice(x, v, u);
	case K_HARD: return yes_no(x, k, v, &u->hard);
	case K_RETRY: return yes_no(x, k, v, &u->retry);
	case K_LABEL: return set_label(x, v, u);
	case K_CODE: return set_code(x, v, u);
	case K_STATUS: return set_status(x, v, u);
	case K_DOMAIN: return set_host(x, k, v, &u->domain);
	default: return set_host(x, k, v, &u->host);
	}
}

/* One key=value; seen: the keys given so far on the line. */
static int field(rd *x, sd_str f, sd_urule *u, unsigned *seen)
{
	const char *eq = memchr(f.p, '=', f.n);
	sd_str k, v;
	int key = -1;

	if (!eq)
		return fail(x, SMTPDIAG_EPARSE, "bad field '%.*s': fields are key=value", shown(f), f.p);
	k = (sd_str){ f.p, (size_t)(eq - f.p) };
	v = (sd_str){ eq + 1, f.n - k.n - 1 };
	for (int i = 0; i < K_COUNT; i++)
		if (k.n == strlen(keys[i]) && !memcmp(k.p, keys[i], k.n))
			key = i;
	if (key < 0)
		return fail(x, SMTPDIAG_EPARSE, "unknown field '%.*s' (reason, advice, hard, retry, label, code, status, "
			    "domain, host)", shown(k), k.p);
	if (*seen & (1u << key))
		return fail(x, SMTPDIAG_EPARSE, "duplicate field '%s'", keys[key]);
	*seen |= 1u << key;
	if (!v.n)
		return fail(x, SMTPDIAG_EPARSE, "field '%s' has no value", keys[key]);
	return set_field(x, key, k, v, u);
}

/* ---- a rule ---- */

static int same_rule(const sd_urule *a, const sd_urule *b)
{
	return a->literal == b->literal && a->patn == b->patn && sd_memcaseeq(a->pat, b->pat, a->patn) &&
	       !strcmp(a->code, b->code) && !strcmp(a->status, b->status) && !strcmp(a->domain, b->domain) &&
	       !strcmp(a->host, b->host);
}

static int rule_fields(rd *x, sd_urule *u)
{
	unsigned seen = 0;
	sd_str f;
	int rc;

	while ((f = word(x)).n && f.p[0] != '#')
		if ((rc = field(x, f, u, &seen)) < 0)
			return rc;
	if (!(seen & ((1u << K_REASON) | (1u << K_ADVICE) | (1u << K_HARD) | (1u << K_RETRY) | (1u << K_LABEL))))
		return fail(x, SMTPDIAG_EPARSE, "the rule sets nothing: give reason=, advice=, hard=, retry= or label=");
	return 0;
}

static int rule(rd *x, sd_urule *u)
{
	sd_str w = word(x);
	int rc;

	memset(u, 0, sizeof(*u));
	u->line = x->line;
	u->reason = u->hard = u->retry = -1;
	u->domain = u->host = u->label = "";
	if (sd_str_caseeq(w, "match"))
		u->literal = 1;
	else if (!sd_str_caseeq(w, "regex"))
		return fail(x, SMTPDIAG_EPARSE, "a rule starts with match \"TEXT\" or regex /PATTERN/, not '%.*s'",
			    shown(w), w.p);
	if ((rc = pattern(x, u)) < 0 || (rc = rule_fields(x, u)) < 0)
		return rc;
	for (unsigned i = 0; i < x->set->n; i++)
		if (same_rule(&x->set->r[i], u))
			return fail(x, SMTPDIAG_EPARSE, "duplicate: the same pattern and limits as line %u, which comes first "
				    "and always wins", x->set->r[i].line);
	return 0;
}

/* ---- the file ---- */

static int one_line(rd *x)
{
	size_t i = 0;
	int rc;

	while (i < x->n && (x->p[i] == ' ' || x->p[i] == '\t'))
		i++;
	if (i == x->n || x->p[i] == '#')
		return 0;
	if (x->n > SMTPDIAG_RULES_MAX_LINE)
		return fail(x, SMTPDIAG_ELIMIT, "line longer than %d bytes (SMTPDIAG_RULES_MAX_LINE)", SMTPDIAG_RULES_MAX_LINE);
	if (x->set->n >= SMTPDIAG_RULES_MAX)
		return fail(x, SMTPDIAG_ELIMIT, "more than %d rules (SMTPDIAG_RULES_MAX)", SMTPDIAG_RULES_MAX);
	x->i = 0;
	if ((rc = rule(x, &x->set->r[x->set->n])) < 0)
		return rc;
	x->set->n++;
	return 0;
}

static int parse_lines(smtpdiag_rules *set, const char *p, size_t len, const char *name, smtpdiag_error *err)
{
	rd x = { NULL, 0, 0, 0, name, set, err };
	size_t pos = 0;
	int rc;

	while (pos < len) {
		const char *nl = memchr(p + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - p) : len;
		x.p = p + pos;
		x.n = end - pos;
		x.line++;
		if (x.n && x.p[x.n - 1] == '\r')
			x.n--;
		if ((rc = one_line(&x)) < 0)
			return rc;
		pos = end + 1;
	}
	return 0;
}

static void set_name(smtpdiag_rules *set, const char *name)
{
	const char *slash = strrchr(name, '/');
	const char *base = slash && slash[1] ? slash + 1 : name;

	sd_strlcpy(set->name, base, strlen(base), sizeof(set->name));
}

static int seterr(smtpdiag_error *err, int code, const char *what)
{
	if (err) {
		err->code = code;
		snprintf(err->message, sizeof(err->message), "%s", what);
	}
	return code;
}

int smtpdiag_rules_parse(const char *p, size_t len, const char *name, smtpdiag_rules **out, smtpdiag_error *err)
{
	smtpdiag_rules *set;
	int rc;

	if (!out || (!p && len))
		return seterr(err, SMTPDIAG_EINVAL, "no rules given");
	*out = NULL;
	name = name && *name ? name : "rules";
	if (len > SMTPDIAG_RULES_MAX_FILE)
		return seterr(err, SMTPDIAG_ELIMIT, "rules larger than 1 MiB (SMTPDIAG_RULES_MAX_FILE)");
	if (!(set = calloc(1, sizeof(*set))) || !(set->r = calloc(SMTPDIAG_RULES_MAX, sizeof(sd_urule)))) {
		free(set);
		return seterr(err, SMTPDIAG_ENOMEM, "out of memory");
	}
	sd_arena_init(&set->arena);
	set_name(set, name);
	if ((rc = parse_lines(set, p, len, name, err)) < 0 || (rc = sd_urules_compile(set, name, err)) < 0) {
		smtpdiag_rules_free(set);
		return rc;
	}
	*out = set;
	return 0;
}

size_t smtpdiag_rules_count(const smtpdiag_rules *r)
{
	return r ? r->n : 0;
}
