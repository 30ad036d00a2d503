/* fuzz_explain.c - explain in its three modes, and its JSON, on arbitrary bytes. */
#include <stdint.h>
#include <stddef.h>

#include "smtpdiag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (int mode = 0; mode < 3; mode++) {
		smtpdiag_explanation *e = NULL;
		smtpdiag_buf b = { 0 };
		if (smtpdiag_explain((const char *)data, size, mode, &e, NULL) < 0)
			continue;
		smtpdiag_explanation_json(e, &b);
		smtpdiag_buf_free(&b);
		smtpdiag_explanation_free(e);
	}
	return 0;
}
