/* jline.c - the verdict fields of one JSON Lines record, read without building
 * a document: the known members are copied (unescaped, NUL-terminated) into a
 * scratch buffer, every other member is checked and skipped. It takes the
 * lines decode and scan write; anything it is not sure of (a \u escape, a
 * duplicate or escaped key, a member of the wrong type, deep nesting, a number
 * out of range, bad JSON) it leaves to jansson (record.c), which then gives
 * the same answer or the error. So it never decides differently from jansson:
 * it only answers sooner. */
#include <string.h>

#include "store/store.h"
#include "core/util.h"

#define JL_MAX_KEYS 64  /* members of one object compared for duplicates */
#define JL_MAX_DEPTH 32 /* nesting of a skipped value */
#define JL_MAX_DIGITS 18 /* digits of an integer that surely fits int64 */

enum { JL_STR, JL_INT, JL_BOOL };

static const struct {
	const char *name;
	unsigned char len, type;
} known[ST_JF_COUNT] = {
	[ST_JF_RECIPIENT] = { "recipient", 9, JL_STR }, [ST_JF_TOKEN] = { "token", 5, JL_STR },
	[ST_JF_DIAG] = { "diagnosticcode", 14, JL_STR }, [ST_JF_ADDRESSER] = { "addresser", 9, JL_STR },
	[ST_JF_SENDER] = { "sender", 6, JL_STR }, [ST_JF_SENDERDOMAIN] = { "senderdomain", 12, JL_STR },
	[ST_JF_REASON] = { "reason", 6, JL_STR }, [ST_JF_DSTATUS] = { "deliverystatus", 14, JL_STR },
	[ST_JF_STATUS] = { "status", 6, JL_STR }, [ST_JF_REPLYCODE] = { "replycode", 9, JL_STR },
	[ST_JF_ACTION] = { "action", 6, JL_STR }, [ST_JF_ADVICE] = { "advice", 6, JL_STR },
	[ST_JF_ORIGIN] = { "origin", 6, JL_STR }, [ST_JF_QUEUEID] = { "queueid", 7, JL_STR },
	[ST_JF_LHOST] = { "lhost", 5, JL_STR }, [ST_JF_HOST] = { "host", 4, JL_STR },
	[ST_JF_TIMESTAMP] = { "timestamp", 9, JL_INT }, [ST_JF_HARDBOUNCE] = { "hardbounce", 10, JL_BOOL },
	[ST_JF_RETRY] = { "retry", 5, JL_BOOL }, [ST_JF_FEEDBACKTYPE] = { "feedbacktype", 12, JL_STR },
};

typedef struct jl {
	const char *p, *end;
	char *out;       /* scratch: at least the line's length + ST_JF_COUNT bytes */
	size_t used;
	const char *key[JL_MAX_KEYS];
	size_t klen[JL_MAX_KEYS];
	int nkeys;
} jl;

static void ws(jl *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static int lit(jl *j, const char *w, size_t n)
{
	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n))
		return -1;
	j->p += n;
	return 0;
}

static char unescape(char c)
{
	switch (c) {
	case '"': return '"';
	case '\\': return '\\';
	case '/': return '/';
	case 'b': return '\b';
	case 'f': return '\f';
	case 'n': return '\n';
	case 'r': return '\r';
	case 't': return '\t';
	default: return 0; /* \u and anything else: for jansson */
	}
}

/* A string after its opening quote; copied unescaped to the scratch when out
 * is given. -1 when it is for jansson. */
static int string(jl *j, const char **out)
{
	char *o = out ? j->out + j->used : NULL;
	size_t n = 0;

	while (j->p < j->end) {
		unsigned char c = (unsigned char)*j->p;
		size_t k = 1;
		if (c == '"') {
			j->p++;
			if (o) {
				o[n] = 0;
				*out = o;
				j->used += n + 1;
			}
			return 0;
		}
		if (c < 0x20)
			return -1;
		if (c == '\\') {
			if (j->end - j->p < 2 || !(c = (unsigned char)unescape(j->p[1])))
				return -1;
			j->p++;
		} else if (c >= 0x80 && !(k = sd_utf8_len((const unsigned char *)j->p, (size_t)(j->end - j->p)))) {
			return -1;
		}
		if (o)
			memcpy(o + n, k == 1 ? (const char *)&c : j->p, k);
		n += k;
		j->p += k;
	}
	return -1;
}

static int digits(jl *j)
{
	const char *s = j->p;

	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		j->p++;
	return j->p > s ? 0 : -1;
}

/* A JSON number; *is_int when it has no fraction or exponent. */
static int number(jl *j, int *is_int)
{
	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p < j->end && *j->p == '0')
		j->p++;
	else if (digits(j) < 0)
		return -1;
	*is_int = 1;
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		*is_int = 0;
		if (digits(j) < 0)
			return -1;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		*is_int = 0;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (digits(j) < 0)
			return -1;
	}
	return 0;
}

static int skip(jl *j, int depth);
static int integer(jl *j, int64_t *v);

/* The elements of an array after its opening bracket. */
static int skip_items(jl *j, int depth)
{
	ws(j);
	if (j->p < j->end && *j->p == ']') {
		j->p++;
		return 0;
	}
	for (;;) {
		if (skip(j, depth + 1) < 0)
			return -1;
		ws(j);
		if (lit(j, ",", 1) < 0)
			return lit(j, "]", 1);
	}
}

/* Any value, checked and passed over. An object (its keys would need the
 * duplicate check too), a real or a long integer is for jansson. */
static int skip(jl *j, int depth)
{
	int64_t v;

	ws(j);
	if (j->p >= j->end || depth > JL_MAX_DEPTH)
		return -1;
	switch (*j->p) {
	case '"': j->p++; return string(j, NULL);
	case '[': j->p++; return skip_items(j, depth);
	case 't': return lit(j, "true", 4);
	case 'f': return lit(j, "false", 5);
	case 'n': return lit(j, "null", 4);
	default: return *j->p == '-' || (*j->p >= '0' && *j->p <= '9') ? integer(j, &v) : -1;
	}
}

static int integer(jl *j, int64_t *v)
{
	const char *s = j->p;
	int neg = j->p < j->end && *j->p == '-', is_int;
	int64_t n = 0;

	if (number(j, &is_int) < 0 || !is_int || j->p - s - neg > JL_MAX_DIGITS)
		return -1;
	for (const char *d = s + neg; d < j->p; d++)
		n = n * 10 + (*d - '0');
	*v = neg ? -n : n;
	return 0;
}

/* The value of a known member: a string or null, an integer or null, a
 * boolean or null (null: "", 0, false). */
static int value(jl *j, st_jfields *f, int id)
{
	if (!lit(j, "null", 4))
		return 0;
	if (known[id].type == JL_STR)
		return j->p < j->end && *j->p == '"' ? (j->p++, string(j, &f->s[id])) : -1;
	if (known[id].type == JL_INT)
		return integer(j, &f->ts);
	if (!lit(j, "true", 4)) {
		*(id == ST_JF_HARDBOUNCE ? &f->hardbounce : &f->retry) = 1;
		return 0;
	}
	return lit(j, "false", 5);
}

static int known_id(const char *k, size_t n)
{
	for (int i = 0; i < ST_JF_COUNT; i++)
		if (known[i].len == n && !memcmp(known[i].name, k, n))
			return i;
	return -1;
}

/* A member's key; -1 when escaped or seen before (for jansson). */
static int key(jl *j, const char **k, size_t *n)
{
	if (j->p >= j->end || *j->p++ != '"' || j->nkeys >= JL_MAX_KEYS)
		return -1;
	*k = j->p;
	while (j->p < j->end && *j->p != '"' && *j->p != '\\' && (unsigned char)*j->p >= 0x20 &&
	       (unsigned char)*j->p < 0x80)
		j->p++;
	if (j->p >= j->end || *j->p != '"')
		return -1;
	*n = (size_t)(j->p++ - *k);
	for (int i = 0; i < j->nkeys; i++)
		if (j->klen[i] == *n && !memcmp(j->key[i], *k, *n))
			return -1;
	j->key[j->nkeys] = *k;
	j->klen[j->nkeys++] = *n;
	return 0;
}

static int member(jl *j, st_jfields *f)
{
	const char *k;
	size_t n;
	int id;

	if (key(j, &k, &n) < 0)
		return -1;
	ws(j);
	if (lit(j, ":", 1) < 0)
		return -1;
	ws(j);
	if ((id = known_id(k, n)) < 0)
		return skip(j, 1);
	f->present |= 1u << id;
	return value(j, f, id);
}

int st_jline(st_jfields *f, const char *line, size_t len, char *scratch)
{
	jl j = { line, line + len, scratch, 0, { NULL }, { 0 }, 0 };
	static const char empty[] = "";

	memset(f, 0, sizeof(*f));
	for (int i = 0; i < ST_JF_COUNT; i++)
		f->s[i] = empty;
	ws(&j);
	if (lit(&j, "{", 1) < 0)
		return -1;
	ws(&j);
	if (lit(&j, "}", 1) < 0) {
		for (;;) {
			if (member(&j, f) < 0)
				return -1;
			ws(&j);
			if (lit(&j, ",", 1) < 0)
				break;
			ws(&j);
		}
		if (lit(&j, "}", 1) < 0)
			return -1;
	}
	ws(&j);
	return j.p == j.end ? 0 : -1;
}
