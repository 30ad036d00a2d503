/* generic.c - last resort: plain-text bounces from MAILER-DAEMON / postmaster
 * that no other module took. */
#include "dsnutil.h"

int sd_fmt_generic(sd_ctx *c)
{
	(void)c;
	return 0;
}
