/* fuzz_reply.c - the reply parser and the code finder on arbitrary bytes. */
#include <stdint.h>
#include <stddef.h>

#include "smtp/reply.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data;
	sd_reply r;
	sd_buf text;
	sd_found f[SD_MAX_CODES];
	size_t n;

	sd_buf_init(&text);
	(void)sd_reply_parse(p, size, &r, &text);
	sd_buf_free(&text);
	n = sd_find_codes(p, size, f, SD_MAX_CODES);
	for (size_t i = 0; i < n; i++)
		if (f[i].off >= size || f[i].end > size || f[i].end <= f[i].off)
			__builtin_trap();
	(void)sd_pick_code(f, n);
	return 0;
}
