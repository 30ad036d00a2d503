/* fuzz_esp.c - the ESP event reader on arbitrary bytes: detection, the JSON
 * and form readers, every service's reader, verdicts and JSON out. The first
 * byte picks a forced service (--esp) or none, so each reader also sees
 * events that are not its own. The same input read a few bytes at a time
 * (smtpdiag_decode_events_read) must give the same counts. */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>

#include "smtpdiag.h"
#include "../tests/unit/chunks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void on_fact(void *arg, const smtpdiag_fact *f, const smtpdiag_error *e)
{
	if (f)
		smtpdiag_fact_json(f, arg);
	(void)e;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	smtpdiag_event_counts c2 = { 0, 0, 0, 0, 0 };
	chunks s;
	static smtpdiag_decoder *d;
	smtpdiag_event_counts c = { 0, 0, 0, 0, 0 };
	smtpdiag_buf b = { 0 };
	const char *esp = NULL;
	size_t n = 0;

	if (!d && !(d = smtpdiag_decoder_new(SMTPDIAG_DECODE_ALL_EVENTS)))
		abort();
	if (size && data[0] < 32) { /* a control byte: the index of a service to force */
		while (smtpdiag_esp_name(n))
			n++;
		esp = smtpdiag_esp_name(data[0] % n);
		data++;
		size--;
	}
	smtpdiag_decode_events(d, (const char *)data, size, "fuzz", esp, on_fact, &b, &c, NULL);
	if (c.events != c.decided + c.ignored + c.errors)
		abort();
	s = (chunks){ (const char *)data, size, 0, 1 + size % 7 };
	smtpdiag_decode_events_read(d, chunks_read, &s, "fuzz", esp, NULL, NULL, &c2, NULL);
	if (c2.events != c.events || c2.decided != c.decided || c2.errors != c.errors || c2.facts != c.facts)
		abort();
	smtpdiag_buf_free(&b);
	return 0;
}
