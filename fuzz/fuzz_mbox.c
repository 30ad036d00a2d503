/* fuzz_mbox.c - libFuzzer target for the mbox splitter and >From unquoting. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mime/mbox.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	sd_mbox_iter it;
	sd_arena a;
	sd_str msg, u;
	size_t last_end = 0;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	sd_arena_init(&a);
	(void)sd_mbox_detect(buf, size);
	sd_mbox_init(&it, buf, size);
	while (sd_mbox_next(&it, &msg)) {
		size_t off = (size_t)(msg.p - buf);
		if (off < last_end || off + msg.n > size || it.index > size + 1)
			abort();
		last_end = off + msg.n;
		u = sd_mbox_unquote(&a, msg);
		if (u.p && u.n > msg.n)
			abort();
	}
	sd_arena_free(&a);
	free(buf);
	return 0;
}
