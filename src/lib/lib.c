/* lib.c - version, error names, public buffer. */
#include "smtpdiag.h"
#include "util.h"

#include <stdlib.h>

const char *smtpdiag_version(void)
{
	return SMTPDIAG_VERSION;
}

const char *smtpdiag_strerror(int code)
{
	switch (code) {
	case SMTPDIAG_OK: return "success";
	case SMTPDIAG_EINVAL: return "invalid input";
	case SMTPDIAG_ENOMEM: return "out of memory";
	case SMTPDIAG_ELIMIT: return "limit exceeded";
	case SMTPDIAG_EPARSE: return "malformed input";
	case SMTPDIAG_ENOTFOUND: return "nothing found";
	case SMTPDIAG_EIO: return "input/output error";
	default: return "unknown error";
	}
}

void smtpdiag_buf_free(smtpdiag_buf *b)
{
	if (!b)
		return;
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
	b->oom = 0;
}

