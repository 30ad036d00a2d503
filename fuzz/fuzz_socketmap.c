/* fuzz_socketmap.c - serve --socketmap's readers (src/httpd/socketmap_parse.c)
 * on arbitrary bytes. A connection's bytes arrive in reads of any size, so a
 * netstring must be read the same whatever prefix has come: a prefix is
 * either "more needed" or already the same verdict as the whole, a whole one
 * lies inside the input and ends in its comma, and the key's status, when
 * found, is "D.D.D" with its space inside the data. */
#include <stdint.h>
#include <stddef.h>

#include "../src/httpd/socketmap_parse.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data;
	size_t off = 0, n = 0, o2, n2, slen;
	int whole = sm_netstring(p, size, SM_MAX_REQUEST, &off, &n);

	if (whole == 1 && (off + n >= size || p[off + n] != ',' || n > SM_MAX_REQUEST))
		__builtin_trap();
	for (size_t cut = 0; cut < size && cut < 64; cut++) {
		int part = sm_netstring(p, cut, SM_MAX_REQUEST, &o2, &n2);
		if (part != 0 && (part != whole || (part == 1 && (o2 != off || n2 != n))))
			__builtin_trap();
	}
	if (whole == 1 && (slen = sm_key_status(p + off, n)) != 0 &&
	    (slen < 5 || slen >= n || p[off + slen] != ' ' || p[off + 1] != '.'))
		__builtin_trap();
	return 0;
}
