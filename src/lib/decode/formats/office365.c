/* office365.c - Exchange Online (Microsoft 365) non-delivery reports. The
 * report is Exchange's own; office365 only recognises the service by its
 * headers and leaves the reading to pv_exchange_ndr(). */
#include "decode/formats/prov.h"

static int is_office365(const sd_ctx *c)
{
	if (!mta_has(c->from, "postmaster") && !mta_has(c->from, "MicrosoftExchange") &&
	    !mta_has(c->from, "mailer-daemon"))
		return 0;
	return mta_hdr(c, "X-MS-Exchange-Transport-CrossTenantHeadersStamped").p ||
	       mta_hdr(c, "X-MS-Exchange-CrossTenant-Id").p || mta_hdr(c, "X-MS-Exchange-EOPDirect").p ||
	       mta_hdr(c, "X-MS-Exchange-CrossTenant-OriginalArrivalTime").p ||
	       mta_hdr_has(c, "Message-ID", ".prod.outlook.com>") ||
	       mta_hdr_has(c, "Message-ID", ".protection.outlook.com>") ||
	       mta_hdr_has(c, "Message-ID", ".outlook.com>");
}

int sd_fmt_office365(sd_ctx *c)
{
	sd_str body;

	if (!is_office365(c))
		return 0;
	body = mta_body(c);
	if (!mta_part(c, "message/delivery-status") && !pv_exchange_admin(body).p)
		return 0;
	return pv_exchange_ndr(c);
}
