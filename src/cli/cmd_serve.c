/* cmd_serve.c - smtpdiag serve (placeholder until the serve issue lands). */
#include "cli.h"

int cmd_serve(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_err("serve: not available in this build");
	return EXIT_USAGE_;
}
