/* mxlogic.c - McAfee MXLogic (an Exim derivative) bounces.
 *
 *     A message that you have sent could not be delivered to one or more
 *     recipients.  This is a permanent error.  The following address failed:
 *       <user@example.jp>: 550 5.1.1 <user@example.jp>: ... User unknown
 *     Included is a copy of the message header:
 * Identified by its own header fields; the text is read as Exim's. */
#include "decode/formats/mta.h"

static int is_mxlogic(const sd_ctx *c)
{
	return mta_hdr(c, "X-MXL-NoteHash").p || mta_hdr(c, "X-MXL-Hash").p ||
	       mta_hdr(c, "X-MX-Bounce").p || mta_hdr_starts(c, "Message-Id", "<mxl~");
}

int sd_fmt_mxlogic(sd_ctx *c)
{
	return is_mxlogic(c) ? mta_exim_body(c) : 0;
}
