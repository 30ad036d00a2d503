/* socketmap_parse.c - what serve --socketmap reads from its peers: netstrings
 * and the status at the start of a key. No sockets and no engine here, apart
 * from socketmap.c so that a fuzz target can drive it (fuzz/fuzz_socketmap.c). */
#include <ctype.h>
#include <stddef.h>

#include "socketmap.h"

int sm_netstring(const char *p, size_t len, size_t max, size_t *off, size_t *n)
{
	size_t i = 0, v = 0;

	while (i < len && p[i] >= '0' && p[i] <= '9') {
		if (i == SM_LENGTH_DIGITS)
			return -1;
		v = v * 10 + (size_t)(p[i] - '0');
		i++;
	}
	if (i == len)
		return i > SM_LENGTH_DIGITS || v > max ? -1 : 0;
	if (i == 0 || p[i] != ':' || v > max)
		return -1;
	if (len - i - 1 < v + 1)
		return 0;
	if (p[i + 1 + v] != ',')
		return -1;
	*off = i + 1;
	*n = v;
	return 1;
}

size_t sm_key_status(const char *k, size_t n)
{
	size_t i = 2, d;

	if (n < 6 || (k[0] != '2' && k[0] != '4' && k[0] != '5') || k[1] != '.')
		return 0;
	for (int part = 0; part < 2; part++) {
		for (d = 0; i < n && d < 4 && isdigit((unsigned char)k[i]); d++)
			i++;
		if (d < 1 || d > 3 || i >= n || k[i] != (part ? ' ' : '.'))
			return 0;
		i++;
	}
	return i - 1;
}

