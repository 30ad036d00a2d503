/* mbox_split.c - the public face of the mbox splitter (smtpdiag_mbox_*). */
#include "smtpdiag.h"
#include "mime/mbox.h"

int smtpdiag_mbox_detect(const char *p, size_t len)
{
	return sd_mbox_detect(p, len);
}

int smtpdiag_mbox_next(const char *p, size_t len, size_t *pos,
		       const char **msg, size_t *msglen)
{
	sd_mbox_iter it;
	sd_str m;

	if (!pos || !msg || !msglen || *pos > len)
		return 0;
	sd_mbox_init(&it, p, len);
	it.pos = *pos;
	if (!sd_mbox_next(&it, &m))
		return 0;
	*pos = it.pos;
	*msg = m.p;
	*msglen = m.n;
	return 1;
}
