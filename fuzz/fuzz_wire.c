/* fuzz_wire.c - serve's scanner of HTTP/1.1 framing (src/httpd/wire_scan.c)
 * on arbitrary bytes, whole and in pieces. A connection's bytes arrive in
 * reads of any size, so the scanner must say the same of them however they
 * are cut: the first input byte picks a cut length, and the scan in pieces of
 * that length (and in single bytes) must end in the same state, with the same
 * header block found bad for the same reason, as the scan of the whole. */
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "../src/httpd/wire_scan.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void scan_cut(wire *w, const uint8_t *p, size_t n, size_t cut)
{
	memset(w, 0, sizeof(*w));
	for (size_t at = 0; at < n; at += cut)
		wire_scan(w, p + at, n - at < cut ? n - at : cut);
}

static int same(const wire *a, const wire *b)
{
	return a->state == b->state && a->blocks == b->blocks && a->bad_at == b->bad_at &&
	       (a->why == b->why || (a->why && b->why && !strcmp(a->why, b->why)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	wire whole, cut, bytes;

	if (!size)
		return 0;
	scan_cut(&whole, data + 1, size - 1, size);
	scan_cut(&cut, data + 1, size - 1, (size_t)data[0] % 17 + 1);
	scan_cut(&bytes, data + 1, size - 1, 1);
	if (!same(&whole, &cut) || !same(&whole, &bytes))
		__builtin_trap();
	return 0;
}
