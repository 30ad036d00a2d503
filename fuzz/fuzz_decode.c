/* fuzz_decode.c - the whole decoder (MIME, every format module, verdicts, JSON)
 * on arbitrary bytes, with delivered and vacation reports on. */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>

#include "smtpdiag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static smtpdiag_decoder *d;
	smtpdiag_buf b = { 0 };
	int n;

	if (!d && !(d = smtpdiag_decoder_new(SMTPDIAG_DECODE_DELIVERED | SMTPDIAG_DECODE_VACATION)))
		abort();
	n = smtpdiag_decode(d, (const char *)data, size, "fuzz", NULL);
	for (int i = 0; i < n; i++)
		smtpdiag_fact_json(smtpdiag_decoder_fact(d, (size_t)i), &b);
	smtpdiag_buf_free(&b);
	return 0;
}
