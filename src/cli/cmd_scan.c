/* cmd_scan.c - smtpdiag scan (placeholder until the scan issue lands). */
#include "cli.h"

int cmd_scan(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_err("scan: not available in this build");
	return EXIT_USAGE_;
}
