/* einsundeins.c - 1&1 (kundenserver.de) bounces; the text is United
 * Internet's, read by pv_united_internet() in gmx.c. */
#include "decode/formats/prov.h"

static int is_einsundeins(const sd_ctx *c)
{
	return mta_starts(sd_trim(c->from), "\"Mail Delivery System\"") &&
	       sd_str_caseeq(sd_trim(c->subject), "Mail delivery failed: returning message to sender") &&
	       (mta_has(c->from, "kundenserver.") || mta_hdr(c, "X-UI-Out-Filterresults").p ||
		mta_has(c->from, "1and1.") || mta_has(c->from, "ionos."));
}

int sd_fmt_einsundeins(sd_ctx *c)
{
	return is_einsundeins(c) ? pv_united_internet(c) : 0;
}
