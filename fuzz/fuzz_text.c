/* fuzz_text.c - the text escaper (smtpdiag_buf_text) on arbitrary bytes: what
 * it writes is valid UTF-8 with no control character, so escaping it again
 * gives it back unchanged. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "smtpdiag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Valid UTF-8, no C0, DEL or C1 character. */
static int clean(const unsigned char *s, size_t n)
{
	for (size_t i = 0, k; i < n; i += k) {
		if (!(k = sd_utf8_len(s + i, n - i)) || s[i] < 0x20 || s[i] == 0x7f ||
		    (s[i] == 0xc2 && s[i + 1] < 0xa0))
			return 0;
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	smtpdiag_buf a = { 0 }, b = { 0 };

	smtpdiag_buf_text(&a, (const char *)data, size);
	if (a.oom)
		goto done;
	if (!clean((const unsigned char *)a.data, a.len) || a.len < size)
		abort();
	smtpdiag_buf_text(&b, a.data ? a.data : "", a.len);
	if (!b.oom && (b.len != a.len || (a.len && memcmp(a.data, b.data, a.len))))
		abort();
done:
	smtpdiag_buf_free(&a);
	smtpdiag_buf_free(&b);
	return 0;
}
