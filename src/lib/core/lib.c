/* lib.c - version, error names, public buffer. */
#include "smtpdiag.h"
#include "core/util.h"

#include <stdarg.h>
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
	case SMTPDIAG_ESTORE: return "store error";
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

/* smtpdiag_buf and sd_buf have the same layout: the public writers are the
 * library's own. */
_Static_assert(sizeof(smtpdiag_buf) == sizeof(sd_buf), "smtpdiag_buf layout");
_Static_assert(SMTPDIAG_MAX_MESSAGE == SD_MAX_MESSAGE, "one message limit");
_Static_assert(SMTPDIAG_MAX_RECIPIENTS == SD_MAX_RECIPIENTS, "one recipient limit");

void smtpdiag_buf_append(smtpdiag_buf *b, const char *p, size_t n)
{
	if (b && (p || !n))
		sd_buf_put((sd_buf *)b, p, n);
}

void smtpdiag_buf_printf(smtpdiag_buf *b, const char *fmt, ...)
{
	va_list ap;

	if (!b || !fmt)
		return;
	va_start(ap, fmt);
	sd_buf_vprintf((sd_buf *)b, fmt, ap);
	va_end(ap);
}

void smtpdiag_buf_json(smtpdiag_buf *b, const char *p, size_t n)
{
	if (b)
		sd_buf_json_str((sd_buf *)b, p ? p : "", p ? n : 0);
}

void smtpdiag_buf_text(smtpdiag_buf *b, const char *p, size_t n)
{
	if (b && p)
		sd_buf_text((sd_buf *)b, p, n);
}
