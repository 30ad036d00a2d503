/* fuzz_sesjson.c - the SES notification JSON reader on arbitrary bytes: walk
 * every member and array the way amazonses.c does; slices must stay inside. */
#include <stdint.h>
#include <stddef.h>

#include "decode/formats/sesjson.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void inside(sd_str in, sd_str v)
{
	if (v.p && (v.p < in.p || v.p + v.n > in.p + in.n))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keys[] = { "notificationType", "bounce", "bouncedRecipients",
					    "complaint", "delivery", "recipients", "mail", "Message" };
	sd_str in = { (const char *)data, size }, item;
	sd_arena a;

	sd_arena_init(&a);
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		sd_str v = sj_member(in, keys[k]);
		size_t pos = 0;
		inside(in, v);
		(void)sj_text(&a, v);
		for (int i = 0; i < 64 && sj_next(v, &pos, &item); i++) {
			inside(v, item);
			inside(item, sj_member(item, "emailAddress"));
			(void)sj_text(&a, item);
		}
	}
	sd_arena_free(&a);
	return 0;
}
