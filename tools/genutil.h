/* genutil.h - what the build-time generators (rulegen, vendorgen) write alike:
 * a C string literal and an array of them, a serialized Vectorscan database as a byte array, and
 * the "-o OUT.c" command line. Included by each generator, one program each. */
#ifndef SD_TOOLS_GENUTIL_H
#define SD_TOOLS_GENUTIL_H

#include <stdio.h>
#include <string.h>

static void gen_emit_cstr(FILE *o, const char *s)
{
	fputc('"', o);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(o, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(o, "\\%03o", c);
		else if (c == '?')
			fputs("\\?", o);
		else
			fputc(c, o);
	}
	fputc('"', o);
}

/* const char *const NAME[] = { the n strings of v }; */
static void gen_emit_strings(FILE *o, const char *name, char *const *v, unsigned n)
{
	fprintf(o, "const char *const %s[] = {\n", name);
	for (unsigned i = 0; i < n; i++) {
		fputc('\t', o);
		gen_emit_cstr(o, v[i]);
		fputs(",\n", o);
	}
	fputs("};\n", o);
}

/* const size_t NAME_dblen and const unsigned char NAME_db[], 64-byte aligned. */
static void gen_emit_db(FILE *o, const char *name, const char *bytes, size_t len)
{
	fprintf(o, "const size_t %s_dblen = %zu;\n", name, len);
	fprintf(o, "const unsigned char %s_db[] __attribute__((aligned(64))) = {\n", name);
	for (size_t i = 0; i < len; i++)
		fprintf(o, "%u,%s", (unsigned char)bytes[i], i % 24 == 23 ? "\n" : "");
	fputs("};\n", o);
}

/* The output path of "PROG -o OUT.c [nargs more]", NULL after printing the
 * usage (*rc: 0 for --help, 2 for a wrong command line). */
static const char *gen_args(int argc, char **argv, int nargs, const char *usage, int *rc)
{
	if (argc == 2 && !strcmp(argv[1], "--help")) {
		puts(usage);
		*rc = 0;
		return NULL;
	}
	if (argc != 3 + nargs || strcmp(argv[1], "-o")) {
		fprintf(stderr, "%s\n", usage);
		*rc = 2;
		return NULL;
	}
	return argv[2];
}

#endif
