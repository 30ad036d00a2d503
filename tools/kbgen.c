/* kbgen - compile the knowledge base (kb/reference TSV files and kb/entries) into C.
 *
 * usage: kbgen -o OUT.c REFDIR ENTRY.kb...
 * Fails (exit 1, naming file and line) on a missing required field, an unknown
 * key, a duplicate section, or a malformed reference table. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAXLIST 32
#define MAXENT 1024

typedef struct list {
	char *v[MAXLIST];
	int n;
} list;

typedef struct entry {
	char *key, *file;
	int line;
	char *title, *shrt, *quickfix, *meaning, *fixer;
	list cause, fix, paired, related, faq, ref, aka;
} entry;

static entry ents[MAXENT];
static int nents;
static int errors;

static void fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "kbgen: %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	errors++;
}

static char *xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p) {
		perror("kbgen");
		exit(1);
	}
	return p;
}

static char *trim(char *s)
{
	char *e;
	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static void emit_str(FILE *o, const char *s)
{
	if (!s) {
		fputs("NULL", o);
		return;
	}
	fputc('"', o);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(o, "\\%c", c);
		else if (c < 0x20)
			fprintf(o, "\\%03o", c);
		else if (c == '?')
			fputs("\\?", o); /* no trigraphs */
		else
			fputc(c, o);
	}
	fputc('"', o);
}

static void add(list *l, const char *v, const char *file, int line)
{
	if (l->n >= MAXLIST) {
		fail(file, line, "too many values (max %d)", MAXLIST);
		return;
	}
	l->v[l->n++] = xstrdup(v);
}

static int valid_fixer(const char *v)
{
	static const char *ok[] = { "sender", "sender-admin", "recipient", "recipient-admin", "none" };
	char buf[256], *tok, *save = NULL;
	snprintf(buf, sizeof(buf), "%s", v);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int good = 0;
		tok = trim(tok);
		for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
			good |= strcmp(tok, ok[i]) == 0;
		if (!good)
			return 0;
	}
	return 1;
}

static void set1(char **dst, const char *v, const char *key, const char *file, int line)
{
	if (*dst)
		fail(file, line, "key '%s' given twice", key);
	*dst = xstrdup(v);
}

static void entry_kv(entry *e, const char *k, const char *v, const char *file, int line)
{
	if (!*v)
		fail(file, line, "empty value for '%s'", k);
	if (!strcmp(k, "title")) set1(&e->title, v, k, file, line);
	else if (!strcmp(k, "short")) set1(&e->shrt, v, k, file, line);
	else if (!strcmp(k, "quickfix")) set1(&e->quickfix, v, k, file, line);
	else if (!strcmp(k, "meaning")) set1(&e->meaning, v, k, file, line);
	else if (!strcmp(k, "fixer")) {
		set1(&e->fixer, v, k, file, line);
		if (!valid_fixer(v))
			fail(file, line, "fixer '%s' is not sender, sender-admin, recipient, recipient-admin or none", v);
	} else if (!strcmp(k, "cause")) add(&e->cause, v, file, line);
	else if (!strcmp(k, "fix")) add(&e->fix, v, file, line);
	else if (!strcmp(k, "paired")) add(&e->paired, v, file, line);
	else if (!strcmp(k, "related")) add(&e->related, v, file, line);
	else if (!strcmp(k, "faq")) {
		if (!strstr(v, " | "))
			fail(file, line, "faq needs 'question | answer'");
		add(&e->faq, v, file, line);
	} else if (!strcmp(k, "ref")) add(&e->ref, v, file, line);
	else if (!strcmp(k, "aka")) add(&e->aka, v, file, line);
	else
		fail(file, line, "unknown key '%s'", k);
}

static void check_entry(const entry *e)
{
	static const char *req[] = { "title", "short", "quickfix", "meaning", "fixer" };
	const char *const vals[] = { e->title, e->shrt, e->quickfix, e->meaning, e->fixer };
	for (int i = 0; i < 5; i++)
		if (!vals[i])
			fail(e->file, e->line, "[%s] lacks '%s'", e->key, req[i]);
	if (!e->cause.n) fail(e->file, e->line, "[%s] lacks 'cause'", e->key);
	if (!e->fix.n) fail(e->file, e->line, "[%s] lacks 'fix'", e->key);
	if (!e->faq.n) fail(e->file, e->line, "[%s] lacks 'faq'", e->key);
	if (!e->ref.n) fail(e->file, e->line, "[%s] lacks 'ref'", e->key);
}

static int valid_key(const char *k)
{
	int d = 0, dots = 0;
	for (const char *p = k; *p; p++) {
		if (isdigit((unsigned char)*p)) d++;
		else if (*p == '.') dots++;
		else if (!(*p == 'X' && p == k) && *p != ' ')
			return 0;
	}
	return d > 0 && (dots == 0 || dots == 2 || dots == 4);
}

static void read_kb(const char *file)
{
	FILE *f = fopen(file, "r");
	char *line = NULL, *s, *eq;
	size_t cap = 0;
	int ln = 0;
	entry *cur = NULL;

	if (!f) {
		fprintf(stderr, "kbgen: %s: %s\n", file, strerror(errno));
		exit(1);
	}
	while (getline(&line, &cap, f) > 0) {
		ln++;
		s = trim(line);
		if (!*s || *s == '#')
			continue;
		if (*s == '[') {
			char *e = strchr(s, ']');
			if (!e || e[1]) {
				fail(file, ln, "bad section line");
				continue;
			}
			*e = '\0';
			if (cur)
				check_entry(cur);
			if (nents >= MAXENT) {
				fail(file, ln, "too many entries");
				exit(1);
			}
			cur = &ents[nents++];
			memset(cur, 0, sizeof(*cur));
			cur->key = xstrdup(trim(s + 1));
			cur->file = xstrdup(file);
			cur->line = ln;
			if (!valid_key(cur->key))
				fail(file, ln, "bad section key '%s'", cur->key);
			for (int i = 0; i < nents - 1; i++)
				if (!strcmp(ents[i].key, cur->key))
					fail(file, ln, "[%s] already defined at %s:%d", cur->key, ents[i].file, ents[i].line);
			continue;
		}
		eq = strchr(s, '=');
		if (!eq || !cur) {
			fail(file, ln, cur ? "expected 'key = value'" : "text before the first [section]");
			continue;
		}
		*eq = '\0';
		entry_kv(cur, trim(s), trim(eq + 1), file, ln);
	}
	if (cur)
		check_entry(cur);
	free(line);
	fclose(f);
}

/* ---- TSV ---- */

#define MAXCOL 16
typedef struct row {
	char *c[MAXCOL];
	int n;
} row;

static row *read_tsv(const char *dir, const char *name, int mincols, int *nrows)
{
	char path[4096], *line = NULL;
	size_t cap = 0;
	ssize_t len;
	row *rows = NULL;
	int n = 0, ln = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "kbgen: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		char *p = line, *tab;
		row r = { { 0 }, 0 };
		ln++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (ln == 1)
			continue; /* column names */
		while (r.n < MAXCOL) {
			tab = strchr(p, '\t');
			if (tab)
				*tab = '\0';
			r.c[r.n++] = xstrdup(p);
			if (!tab)
				break;
			p = tab + 1;
		}
		if (r.n < mincols) {
			fail(path, ln, "%d columns, want %d", r.n, mincols);
			continue;
		}
		rows = realloc(rows, sizeof(row) * (size_t)(n + 1));
		if (!rows)
			exit(1);
		rows[n++] = r;
	}
	free(line);
	fclose(f);
	*nrows = n;
	return rows;
}

static void emit_list(FILE *o, const char *name, int idx, const list *l)
{
	fprintf(o, "static const char *const %s_%d[] = { ", name, idx);
	for (int i = 0; i < l->n; i++) {
		emit_str(o, l->v[i]);
		fputs(", ", o);
	}
	fputs("NULL };\n", o);
}

static void emit_faq(FILE *o, int idx, const list *l, int answer)
{
	fprintf(o, "static const char *const faq%c_%d[] = { ", answer ? 'a' : 'q', idx);
	for (int i = 0; i < l->n; i++) {
		char *bar = strstr(l->v[i], " | ");
		char *q;
		if (!bar)
			continue;
		q = strndup(l->v[i], (size_t)(bar - l->v[i]));
		emit_str(o, answer ? trim(bar + 3) : trim(q));
		free(q);
		fputs(", ", o);
	}
	fputs("NULL };\n", o);
}

static int cmpent(const void *a, const void *b)
{
	return strcmp(((const entry *)a)->key, ((const entry *)b)->key);
}

static void emit_entries(FILE *o)
{
	qsort(ents, (size_t)nents, sizeof(entry), cmpent);
	for (int i = 0; i < nents; i++) {
		emit_list(o, "cause", i, &ents[i].cause);
		emit_list(o, "fix", i, &ents[i].fix);
		emit_list(o, "paired", i, &ents[i].paired);
		emit_list(o, "related", i, &ents[i].related);
		emit_list(o, "ref", i, &ents[i].ref);
		emit_list(o, "aka", i, &ents[i].aka);
		emit_faq(o, i, &ents[i].faq, 0);
		emit_faq(o, i, &ents[i].faq, 1);
	}
	fputs("const sd_kb_entry sd_kb_entries[] = {\n", o);
	for (int i = 0; i < nents; i++) {
		const entry *e = &ents[i];
		fputs("\t{ ", o);
		emit_str(o, e->key); fputs(", ", o);
		emit_str(o, e->title); fputs(", ", o);
		emit_str(o, e->shrt); fputs(", ", o);
		emit_str(o, e->quickfix); fputs(", ", o);
		emit_str(o, e->meaning); fputs(", ", o);
		emit_str(o, e->fixer);
		fprintf(o, ", cause_%d, fix_%d, paired_%d, related_%d, faqq_%d, faqa_%d, ref_%d, aka_%d },\n",
			i, i, i, i, i, i, i, i);
	}
	fprintf(o, "\t{ NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL }\n};\n");
	fprintf(o, "const size_t sd_kb_nentries = %d;\n\n", nents);
}

static int defined_status(const char *s)
{
	return !strcmp(s, "defined") || !strcmp(s, "usage") || !strcmp(s, "experimental") ||
	       !strcmp(s, "example");
}

/* Append src to a "; " list unless already present. */
static void join(char *dst, size_t cap, const char *src)
{
	size_t l = strlen(dst);
	if (!*src || strstr(dst, src))
		return;
	snprintf(dst + l, cap - l, "%s%s", l ? "; " : "", src);
}

static void emit_replies(FILE *o, const char *dir)
{
	int n, codes[256], ncodes = 0;
	row *r = read_tsv(dir, "reply-codes.tsv", 8, &n);

	for (int i = 0; i < n; i++) {
		int c = atoi(r[i].c[0]), seen = 0;
		for (int k = 0; k < ncodes; k++)
			seen |= codes[k] == c;
		if (c < 200 || c > 599)
			fail("reply-codes.tsv", i + 2, "bad code '%s'", r[i].c[0]);
		else if (!seen && ncodes < 256)
			codes[ncodes++] = c;
	}
	/* sort codes */
	for (int i = 1; i < ncodes; i++)
		for (int k = i; k > 0 && codes[k - 1] > codes[k]; k--) {
			int t = codes[k]; codes[k] = codes[k - 1]; codes[k - 1] = t;
		}
	fputs("const sd_kb_reply sd_kb_replies[] = {\n", o);
	for (int k = 0; k < ncodes; k++) {
		char rfcs[2048] = "", cmds[8192] = "", sts[1024] = "";
		const char *text = NULL;
		int def = 0;
		for (int i = 0; i < n; i++) {
			if (atoi(r[i].c[0]) != codes[k])
				continue;
			if (!text) text = r[i].c[1];
			def |= defined_status(r[i].c[5]);
			join(rfcs, sizeof(rfcs), r[i].c[3]);
			join(cmds, sizeof(cmds), r[i].c[4]);
			join(sts, sizeof(sts), r[i].c[6]);
		}
		fprintf(o, "\t{ %d, %d, ", codes[k], def);
		emit_str(o, text); fputs(", ", o);
		emit_str(o, rfcs); fputs(", ", o);
		emit_str(o, cmds); fputs(", ", o);
		emit_str(o, sts); fputs(" },\n", o);
	}
	fputs("};\n", o);
	fprintf(o, "const size_t sd_kb_nreplies = %d;\n\n", ncodes);
}

static unsigned allowed_mask(const char *s, const char *file, int line)
{
	unsigned m = 0;
	if (!strcmp(s, "any"))
		return (1u << 2) | (1u << 4) | (1u << 5);
	for (; *s; s++) {
		if (*s == '2' || *s == '4' || *s == '5')
			m |= 1u << (*s - '0');
		else if (*s != ',' && *s != ' ')
			fail(file, line, "bad allowed_classes");
	}
	return m;
}

static void emit_statuses(FILE *o, const char *dir)
{
	int n;
	row *r = read_tsv(dir, "enhanced-status-codes.tsv", 7, &n);

	fputs("const sd_kb_status sd_kb_statuses[] = {\n", o);
	for (int i = 0; i < n; i++) {
		int sub, det;
		if (sscanf(r[i].c[0], "X.%d.%d", &sub, &det) != 2) {
			fail("enhanced-status-codes.tsv", i + 2, "bad code '%s'", r[i].c[0]);
			continue;
		}
		fputs("\t{ ", o);
		emit_str(o, r[i].c[0]);
		fprintf(o, ", %d, %d, %uu, ", sub, det, allowed_mask(r[i].c[3], "enhanced-status-codes.tsv", i + 2));
		emit_str(o, r[i].c[3]); fputs(", ", o);
		emit_str(o, r[i].c[1]); fputs(", ", o);
		emit_str(o, r[i].c[2]); fputs(", ", o);
		emit_str(o, r[i].c[6]);
		fprintf(o, ", %d },\n", strstr(r[i].c[5], "eprecated") != NULL || strstr(r[i].c[1], "eprecated") != NULL);
	}
	fputs("};\n", o);
	fprintf(o, "const size_t sd_kb_nstatuses = %d;\n\n", n);

	r = read_tsv(dir, "subjects.tsv", 3, &n);
	fputs("const char *const sd_kb_subject_titles[8] = { ", o);
	for (int i = 0; i < 8; i++) {
		emit_str(o, i < n ? r[i].c[1] : "");
		fputs(", ", o);
	}
	fputs("};\nconst char *const sd_kb_subject_texts[8] = { ", o);
	for (int i = 0; i < 8; i++) {
		emit_str(o, i < n ? r[i].c[2] : "");
		fputs(", ", o);
	}
	fputs("};\n\n", o);
}

static void emit_nonstd(FILE *o, const char *dir)
{
	int n;
	row *r = read_tsv(dir, "nonstandard-reply-codes.tsv", 4, &n);

	fputs("const sd_kb_nonstd sd_kb_nonstds[] = {\n", o);
	for (int i = 0; i < n; i++) {
		fprintf(o, "\t{ %d, ", atoi(r[i].c[0]));
		emit_str(o, r[i].c[1]); fputs(", ", o);
		emit_str(o, r[i].c[2]); fputs(", ", o);
		emit_str(o, r[i].c[3]); fputs(", ", o);
		emit_str(o, r[i].n > 4 ? r[i].c[4] : ""); fputs(" },\n", o);
	}
	fputs("};\n", o);
	fprintf(o, "const size_t sd_kb_nnonstds = %d;\n\n", n);
}

/* ---- vendor rows ---- */

/* Column numbers of vendor-enhanced-codes.tsv (docs/kb-format.md). */
enum { V_VENDOR, V_REPLY, V_STATUS, V_SNIPPET, V_MEANING, V_ACTION, V_CHECK, V_SOURCE, V_VIA, V_NOTES,
       V_REASON, V_ADVICE, V_QUICKFIX, V_NCOLS };

#define MAXPIECES 16
#define MAXTITLE 120

#define SD_REASON(name, hard, advice, fixer, meaning) #name,
static const char *const reason_names[] = {
#include "../src/lib/verdict/reasons.def"
};
#undef SD_REASON

/* The advice words and the action word each one's vendor rows write. */
#define SD_ADVICE(id, name, fix, fixer, words) { name, fix },
static const struct {
	const char *name, *fix;
} advices[] = {
#include "../src/lib/verdict/reasons.def"
};
#undef SD_ADVICE
#define NADVICES (sizeof(advices) / sizeof(advices[0]))

/* The index of an advice word in advices[], or -1. */
static int advice_at(const char *w)
{
	for (size_t i = 0; i < NADVICES; i++)
		if (!strcmp(w, advices[i].name))
			return (int)i;
	return -1;
}

static int in_list(const char *v, const char *const *l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v, l[i]))
			return 1;
	return 0;
}

/* A provider's code in brackets ("[TSS04]", "[HME1]") is reply text, not a placeholder. */
static int bracket_code(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && isupper((unsigned char)s[i]))
		i++;
	if (!i || i == n)
		return 0;
	while (i < n && isdigit((unsigned char)s[i]))
		i++;
	return i == n;
}

/* Length of the placeholder that starts at s, 0 if none: {name}, [$Name], $Name,
 * <name>, x.x.x.x, "..." (elided text), or [word] without spaces that is not a
 * bracketed provider code. */
static size_t placeholder_len(const char *s)
{
	const char *e;

	if (!strncmp(s, "...", 3))
		return 3;
	if (!strncmp(s, "x.x.x.x", 7))
		return 7;
	if (*s == '$') {
		size_t i = 1;
		while (isalnum((unsigned char)s[i]))
			i++;
		return i > 1 ? i : 0;
	}
	if (*s != '{' && *s != '[' && *s != '<')
		return 0;
	e = strchr(s, *s == '{' ? '}' : *s == '[' ? ']' : '>');
	if (!e || e == s + 1 || memchr(s, ' ', (size_t)(e - s)))
		return 0;
	if (*s == '<' && strspn(s + 1, "abcdefghijklmnopqrstuvwxyz-") != (size_t)(e - s - 1))
		return 0;
	if (*s == '[' && s[1] != '$' && bracket_code(s + 1, (size_t)(e - s - 1)))
		return 0;
	return (size_t)(e - s) + 1;
}

/* The end of the part of a snippet that is reply text: provider pages put a
 * link's title where the reply has a URL, after "For more information" or
 * "go to". */
static size_t matchable_len(const char *s)
{
	static const char *const ends[] = { "For more information", "go to " };
	size_t n = strlen(s);

	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < sizeof(ends) / sizeof(ends[0]); k++)
			if ((i == 0 || s[i - 1] == ' ') && !strncasecmp(s + i, ends[k], strlen(ends[k])))
				return i;
	return n;
}

static int has_alnum(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (isalnum((unsigned char)s[i]))
			return 1;
	return 0;
}

/* Cut a snippet into the literal pieces a reply text must hold in order. */
static int split_pieces(const char *snip, char **pieces, const char *file, int line)
{
	size_t n = matchable_len(snip), i = 0, b = 0, ph;
	int np = 0;

	while (i <= n) {
		ph = i < n ? placeholder_len(snip + i) : 0;
		if (i < n && !ph) {
			i++;
			continue;
		}
		while (b < i && snip[b] == ' ')
			b++;
		size_t e = i;
		while (e > b && snip[e - 1] == ' ')
			e--;
		if (e > b && has_alnum(snip + b, e - b)) {
			if (np >= MAXPIECES) {
				fail(file, line, "snippet has more than %d pieces", MAXPIECES);
				return np;
			}
			pieces[np++] = strndup(snip + b, e - b);
		}
		i += ph ? ph : 1;
		b = i;
	}
	return np;
}

/* A title from the meaning: its first clause, without the closing period. */
static void vendor_title(const char *meaning, char *out, size_t cap)
{
	size_t n = strcspn(meaning, ";");
	if (n >= cap)
		n = cap - 1;
	snprintf(out, cap, "%.*s", (int)n, meaning);
	n = strlen(out);
	while (n && (out[n - 1] == '.' || out[n - 1] == ' '))
		out[--n] = '\0';
}

static void check_vendor_row(row *r, int ln, row *all, int idx)
{
	const char *file = "vendor-enhanced-codes.tsv";
	int a;

	if (r->n < V_NCOLS) {
		fail(file, ln, "%d columns, want %d (reason, advice, quickfix at the end)", r->n, V_NCOLS);
		return;
	}
	if (!in_list(r->c[V_REASON], reason_names, sizeof(reason_names) / sizeof(reason_names[0])))
		fail(file, ln, "reason '%s' is not a name of reasons.def", r->c[V_REASON]);
	if ((a = advice_at(r->c[V_ADVICE])) < 0)
		fail(file, ln, "advice '%s' is not one of the advice words (docs/reasons.md)", r->c[V_ADVICE]);
	else if (strcmp(r->c[V_ACTION], "other") && strcmp(r->c[V_ACTION], advices[a].fix))
		fail(file, ln, "action '%s' disagrees with advice '%s' (its action is '%s'; or write 'other')",
		     r->c[V_ACTION], r->c[V_ADVICE], advices[a].fix);
	if (!*r->c[V_QUICKFIX])
		fail(file, ln, "empty quickfix");
	for (int k = 0; k < idx; k++)
		if (!strcmp(all[k].c[V_VENDOR], r->c[V_VENDOR]) && !strcmp(all[k].c[V_REPLY], r->c[V_REPLY]) &&
		    !strcmp(all[k].c[V_STATUS], r->c[V_STATUS]) && !strcmp(all[k].c[V_SNIPPET], r->c[V_SNIPPET]))
			fail(file, ln, "duplicate of line %d (same vendor, code and text)", k + 2);
}

static void emit_vendor_pieces(FILE *o, int i, const char *snip)
{
	char *pieces[MAXPIECES];
	int np = split_pieces(snip, pieces, "vendor-enhanced-codes.tsv", i + 2);

	fprintf(o, "static const char *const vpieces_%d[] = { ", i);
	for (int k = 0; k < np; k++) {
		emit_str(o, pieces[k]);
		fputs(", ", o);
		free(pieces[k]);
	}
	fputs("NULL };\n", o);
}

static void emit_vendor_row(FILE *o, int i, row *r)
{
	char title[MAXTITLE];
	const char *st = trim(r->c[V_STATUS]);

	vendor_title(r->c[V_MEANING], title, sizeof(title));
	fputs("\t{ ", o);
	emit_str(o, r->c[V_VENDOR]);
	fprintf(o, ", %d, ", atoi(r->c[V_REPLY]));
	/* "n/a" and the like: the row gives no enhanced code */
	emit_str(o, isdigit((unsigned char)st[0]) ? st : ""); fputs(", ", o);
	emit_str(o, r->c[V_SNIPPET]); fputs(", ", o);
	emit_str(o, r->c[V_MEANING]); fputs(", ", o);
	emit_str(o, r->c[V_ACTION]);
	fprintf(o, ", %d, ", strncmp(r->c[V_CHECK], "differs", 7) == 0);
	emit_str(o, r->c[V_CHECK]); fputs(", ", o);
	emit_str(o, r->c[V_SOURCE]);
	fprintf(o, ", vpieces_%d, ", i);
	emit_str(o, r->c[V_REASON]); fputs(", ", o);
	emit_str(o, r->c[V_ADVICE]); fputs(", ", o);
	emit_str(o, title); fputs(", ", o);
	emit_str(o, r->c[V_QUICKFIX]);
	fputs(" },\n", o);
}

static void emit_vendors(FILE *o, const char *dir)
{
	int n;
	row *r = read_tsv(dir, "vendor-enhanced-codes.tsv", 8, &n);

	for (int i = 0; i < n; i++) {
		check_vendor_row(&r[i], i + 2, r, i);
		emit_vendor_pieces(o, i, r[i].c[V_SNIPPET]);
	}
	if (errors)
		return;
	fputs("const sd_kb_vendor sd_kb_vendors[] = {\n", o);
	for (int i = 0; i < n; i++)
		emit_vendor_row(o, i, &r[i]);
	fputs("};\n", o);
	fprintf(o, "const size_t sd_kb_nvendors = %d;\n\n", n);
}

int main(int argc, char **argv)
{
	const char *out = NULL, *dir;
	FILE *o;
	int i = 1;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		puts("usage: kbgen -o OUT.c REFDIR ENTRY.kb...\n"
		     "Validates kb/entries/*.kb and the reference tables and writes C tables.\n"
		     "Use -o /dev/null to validate only.");
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "-o")) {
		out = argv[2];
		i = 3;
	}
	if (!out || i >= argc) {
		fputs("usage: kbgen -o OUT.c REFDIR ENTRY.kb...\n", stderr);
		return 2;
	}
	dir = argv[i++];
	for (; i < argc; i++)
		read_kb(argv[i]);
	o = fopen(out, "w");
	if (!o) {
		fprintf(stderr, "kbgen: %s: %s\n", out, strerror(errno));
		return 1;
	}
	fputs("/* Generated by tools/kbgen from kb/. Do not edit. */\n#include <stddef.h>\n#include \"kb/kb.h\"\n\n", o);
	emit_entries(o);
	emit_replies(o, dir);
	emit_statuses(o, dir);
	emit_nonstd(o, dir);
	emit_vendors(o, dir);
	if (fclose(o) != 0 || errors) {
		if (errors)
			fprintf(stderr, "kbgen: %d error(s)\n", errors);
		remove(out);
		return 1;
	}
	return 0;
}
