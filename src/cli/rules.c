/* rules.c - the user rules of --rules FILE or $SMTPDIAG_RULES, for every command. */
#include <stdlib.h>

#include "cli.h"

int cli_rules_load(const char *cmd, const char *path, smtpdiag_rules **out)
{
	smtpdiag_error err = { 0, "" };
	int rc;

	*out = NULL;
	if (!path)
		path = getenv("SMTPDIAG_RULES");
	if (!path || !*path)
		return -1;
	if ((rc = smtpdiag_rules_load(path, out, &err)) == 0)
		return -1;
	cli_err("%s: %s", cmd, err.message[0] ? err.message : smtpdiag_strerror(rc));
	return rc == SMTPDIAG_ENOMEM ? EXIT_FAIL_ : EXIT_USAGE_;
}

void cli_why(FILE *f, const char *const *evidence, int indent)
{
	for (int i = 0; evidence && evidence[i]; i++)
		fprintf(f, "%*swhy: %s\n", indent, "", evidence[i]);
}
