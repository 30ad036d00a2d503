/* rulegen - compile rules/ into one serialized Vectorscan database, as C.
 *
 * usage: rulegen -o OUT.c RULESDIR
 * Reads the .rules files of RULESDIR (reason TAB pattern; %order ...) and
 * RULESDIR/status-reasons.tsv (status TAB reason, and TAB registry on a row
 * the default mode alone reads). Fails on an unknown reason,
 * a pattern Vectorscan rejects (naming file and line), or a malformed line. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hs.h>

#include "genutil.h"

static const char *const reasons[] = {
#define SD_REASON(name, hard, advice, fixer, meaning) #name,
#include "../src/lib/verdict/reasons.def"
#undef SD_REASON
};
#define NREASONS (sizeof(reasons) / sizeof(reasons[0]))

#define MAXPAT 4096
static char *pats[MAXPAT];
static unsigned preason[MAXPAT];
static char *pfile[MAXPAT];
static int pline[MAXPAT];
static unsigned npats;
static int order[NREASONS], norder;
static char *st_code[512];
static int st_reason[512], st_registry[512], nst;
static int errors;

static int reason_index(const char *s)
{
	for (unsigned i = 0; i < NREASONS; i++)
		if (!strcmp(reasons[i], s))
			return (int)i;
	return -1;
}

static void chomp(char *s)
{
	size_t n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
}

static void read_order(char *s, const char *file, int ln)
{
	char *save = NULL;
	for (char *t = strtok_r(s, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		int r = reason_index(t);
		if (r < 0) {
			fprintf(stderr, "rulegen: %s:%d: unknown reason '%s'\n", file, ln, t);
			errors++;
		} else if (norder < (int)NREASONS) {
			order[norder++] = r;
		}
	}
}

static void read_rules(const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *tab;
	size_t cap = 0;
	int ln = 0;

	if (!f) {
		fprintf(stderr, "rulegen: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	while (getline(&line, &cap, f) > 0) {
		ln++;
		chomp(line);
		if (!line[0] || line[0] == '#')
			continue;
		if (!strncmp(line, "%order", 6)) {
			read_order(line + 6, path, ln);
			continue;
		}
		tab = strchr(line, '\t');
		if (!tab || !tab[1]) {
			fprintf(stderr, "rulegen: %s:%d: want 'reason<TAB>pattern'\n", path, ln);
			errors++;
			continue;
		}
		*tab = '\0';
		int r = reason_index(line);
		if (r < 0) {
			fprintf(stderr, "rulegen: %s:%d: unknown reason '%s'\n", path, ln, line);
			errors++;
			continue;
		}
		if (npats >= MAXPAT) {
			fprintf(stderr, "rulegen: too many patterns\n");
			exit(1);
		}
		pats[npats] = strdup(tab + 1);
		preason[npats] = (unsigned)r;
		pfile[npats] = strdup(path);
		pline[npats] = ln;
		npats++;
	}
	free(line);
	fclose(f);
}

static void read_status(const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *tab, *mark;
	size_t cap = 0;
	int ln = 0;

	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		ln++;
		chomp(line);
		if (!line[0] || line[0] == '#')
			continue;
		tab = strchr(line, '\t');
		mark = tab ? strchr(tab + 1, '\t') : NULL;
		if (mark)
			*mark++ = '\0';
		if (!tab || reason_index(tab + 1) < 0 || nst >= 512 || (mark && strcmp(mark, "registry") != 0)) {
			fprintf(stderr, "rulegen: %s:%d: want 'status<TAB>reason[<TAB>registry]'\n", path, ln);
			errors++;
			continue;
		}
		*tab = '\0';
		st_code[nst] = strdup(line);
		st_registry[nst] = mark != NULL;
		st_reason[nst++] = reason_index(tab + 1);
	}
	free(line);
	fclose(f);
}

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void read_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *names[256];
	int n = 0;
	char path[4096];

	if (!d) {
		fprintf(stderr, "rulegen: %s: %s\n", dir, strerror(errno));
		exit(1);
	}
	while ((e = readdir(d)) && n < 256) {
		size_t l = strlen(e->d_name);
		if (l > 6 && !strcmp(e->d_name + l - 6, ".rules"))
			names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof(char *), cmpstr);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		read_rules(path);
	}
	snprintf(path, sizeof(path), "%s/status-reasons.tsv", dir);
	read_status(path);
}

static unsigned pattern_flags(void)
{
	return HS_FLAG_CASELESS | HS_FLAG_DOTALL | HS_FLAG_SINGLEMATCH | HS_FLAG_ALLOWEMPTY;
}

/* The word families (families.rules) are a database of their own, scanned
 * only when no phrase decided (src/lib/verdict/engine.c). */
static int is_family(unsigned i)
{
	const char *base = strrchr(pfile[i], '/');

	return !strcmp(base ? base + 1 : pfile[i], "families.rules");
}

/* One database of the phrases (fam 0) or of the word families (fam 1); the
 * ids are the patterns' global indexes. NULL with *none set when the set is
 * empty. */
static hs_database_t *compile_set(int fam, int *none)
{
	hs_database_t *db = NULL;
	hs_compile_error_t *ce = NULL;
	const char **sub = calloc(npats ? npats : 1, sizeof(char *));
	unsigned *flags = calloc(npats ? npats : 1, sizeof(unsigned));
	unsigned *ids = calloc(npats ? npats : 1, sizeof(unsigned));
	hs_platform_info_t plat;
	unsigned n = 0;

	*none = 0;
	if (!sub || !flags || !ids) {
		fputs("rulegen: out of memory\n", stderr);
		return NULL;
	}
	memset(&plat, 0, sizeof(plat));
	plat.tune = HS_TUNE_FAMILY_GENERIC;
	plat.cpu_features = 0;
	for (unsigned i = 0; i < npats; i++)
		if (is_family(i) == fam) {
			sub[n] = pats[i];
			flags[n] = pattern_flags();
			ids[n++] = i;
		}
	if (!n)
		*none = 1;
	else if (hs_compile_multi(sub, flags, ids, n, HS_MODE_BLOCK, &plat, &db, &ce) != HS_SUCCESS) {
		fprintf(stderr, "rulegen: %s\n", ce->message);
		hs_free_compile_error(ce);
		db = NULL;
	}
	free(sub);
	free(flags);
	free(ids);
	return db;
}

/* Each pattern alone, for a precise error message. */
static int check_all(void)
{
	hs_database_t *db = NULL;
	hs_compile_error_t *ce = NULL;
	hs_platform_info_t plat;

	/* a generic target, so the database loads on any CPU of this architecture */
	memset(&plat, 0, sizeof(plat));
	plat.tune = HS_TUNE_FAMILY_GENERIC;
	plat.cpu_features = 0;
	for (unsigned i = 0; i < npats; i++) {
		if (hs_compile(pats[i], pattern_flags(), HS_MODE_BLOCK, &plat, &db, &ce) != HS_SUCCESS) {
			fprintf(stderr, "rulegen: %s:%d: %s\n", pfile[i], pline[i], ce->message);
			hs_free_compile_error(ce);
			errors++;
		} else {
			hs_free_database(db);
		}
	}
	return errors ? -1 : 0;
}

int main(int argc, char **argv)
{
	hs_database_t *db, *fdb = NULL;
	char *bytes = NULL, *fbytes = NULL;
	size_t len = 0, flen = 0;
	int none = 0;
	FILE *o;
	int rc = 0;
	const char *out = gen_args(argc, argv, 1, "usage: rulegen -o OUT.c RULESDIR", &rc);

	if (!out)
		return rc;
	read_dir(argv[3]);
	if (errors)
		return 1;
	if (!npats) {
		fputs("rulegen: no patterns\n", stderr);
		return 1;
	}
	if (check_all() < 0)
		return 1;
	db = compile_set(0, &none);
	if (!db || hs_serialize_database(db, &bytes, &len) != HS_SUCCESS)
		return 1;
	fdb = compile_set(1, &none);
	if (!fdb && !none)
		return 1;
	if (fdb && hs_serialize_database(fdb, &fbytes, &flen) != HS_SUCCESS)
		return 1;
	o = fopen(out, "w");
	if (!o) {
		fprintf(stderr, "rulegen: %s: %s\n", out, strerror(errno));
		return 1;
	}
	fputs("/* Generated by tools/rulegen from rules/. Do not edit. */\n#include \"verdict/rules.h\"\n\n", o);
	fprintf(o, "const unsigned sd_rules_npatterns = %u;\n", npats);
	gen_emit_strings(o, "sd_rules_patterns", pats, npats);
	fputs("const char *const sd_rules_where[] = {\n", o);
	for (unsigned i = 0; i < npats; i++) {
		const char *base = strrchr(pfile[i], '/');
		fprintf(o, "\t\"%s:%d\",\n", base ? base + 1 : pfile[i], pline[i]);
	}
	fputs("};\nconst unsigned char sd_rules_reason[] = {\n", o);
	for (unsigned i = 0; i < npats; i++)
		fprintf(o, "%u,%s", preason[i], i % 24 == 23 ? "\n" : "");
	fprintf(o, "};\nconst unsigned sd_rules_flags = %uu;\n", pattern_flags());
	fprintf(o, "const int sd_rules_norder = %d;\nconst unsigned char sd_rules_order[] = {", norder);
	for (int i = 0; i < norder; i++)
		fprintf(o, "%d,", order[i]);
	fprintf(o, "0};\nconst int sd_rules_nstatus = %d;\nconst sd_status_reason sd_rules_status[] = {\n", nst);
	for (int i = 0; i < nst; i++) {
		fputs("\t{ ", o);
		gen_emit_cstr(o, st_code[i]);
		fprintf(o, ", %d, %d },\n", st_reason[i], st_registry[i]);
	}
	fputs("\t{ \"\", 0, 0 }\n};\n", o);
	gen_emit_db(o, "sd_rules", bytes, len);
	gen_emit_db(o, "sd_fam", fbytes ? fbytes : "", flen);
	fclose(o);
	free(bytes);
	free(fbytes);
	hs_free_database(db);
	hs_free_database(fdb);
	return 0;
}
