/* fuzz_mime.c - libFuzzer target for the MIME reader and its decoders. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mime/mime.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void touch_part(sd_arena *a, const sd_part *pt)
{
	sd_str t = sd_part_text(a, pt);
	sd_header *f;
	size_t nf;
	volatile char sink = 0;

	if (t.n)
		sink ^= t.p[t.n - 1];
	(void)sd_header_text(a, sd_part_header(pt, "Subject"));
	if (strcmp(pt->ctype, "message/delivery-status") == 0 &&
	    sd_parse_fields(a, t, &f, &nf) == 0 && nf)
		(void)sd_header_text(a, f[nf - 1].value);
	(void)sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly size bytes, so ASan sees any read past the end */
	char *buf = malloc(size ? size : 1);
	sd_arena a;
	sd_mime m;
	char err[128];

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	sd_arena_init(&a);
	if (sd_mime_parse(&a, buf, size, &m, err, sizeof(err)) == 0)
		for (size_t i = 0; i < m.nparts; i++) {
			const sd_part *pt = &m.parts[i];
			if (pt->raw.n > size || pt->body.n > pt->raw.n || pt->depth > SD_MAX_MIME_DEPTH)
				abort();
			touch_part(&a, pt);
		}
	(void)sd_to_utf8(&a, SD_STR("iso-2022-jp"), (sd_str){ buf, size });
	sd_arena_free(&a);
	free(buf);
	return 0;
}
