/* taxonomy.h - other systems' bounce vocabularies, compiled at build time from
 * the tables of rules/taxonomy/ by tools/taxgen.sh. */
#ifndef SD_TAXONOMY_H
#define SD_TAXONOMY_H

typedef struct sd_tax_row {
	const char *reason; /* a reason name, or "*" for any */
	char cls;           /* '4', '5', '*' any class; 'r' retried, 'n' a failure not retried */
	const char *value;  /* the other system's word; "" when it has none */
} sd_tax_row;

typedef struct sd_taxonomy {
	const char *name;        /* "ses" */
	const sd_tax_row *rows;  /* ends with a NULL reason; the first match wins */
} sd_taxonomy;

extern const sd_taxonomy sd_taxonomies[]; /* ends with a NULL name */

#endif
