/* sha1.c - SHA-1 as FIPS 180-4 section 6.1 describes it. */
#include "core/sha1.h"

#include <string.h>

static uint32_t rol(uint32_t x, unsigned k)
{
	return (x << k) | (x >> (32 - k));
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* f and K of round t (FIPS 180-4 4.1.1 and 4.2.1). */
static uint32_t round_f(unsigned t, uint32_t b, uint32_t c, uint32_t d, uint32_t *k)
{
	if (t < 20) {
		*k = 0x5a827999u;
		return (b & c) | (~b & d);
	}
	if (t < 40) {
		*k = 0x6ed9eba1u;
		return b ^ c ^ d;
	}
	if (t < 60) {
		*k = 0x8f1bbcdcu;
		return (b & c) | (b & d) | (c & d);
	}
	*k = 0xca62c1d6u;
	return b ^ c ^ d;
}

static void block(sd_sha1 *s, const unsigned char *p)
{
	uint32_t w[80], v[5], k, tmp;

	for (unsigned t = 0; t < 16; t++)
		w[t] = be32(p + 4 * t);
	for (unsigned t = 16; t < 80; t++)
		w[t] = rol(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
	memcpy(v, s->h, sizeof(v));
	for (unsigned t = 0; t < 80; t++) {
		tmp = rol(v[0], 5) + round_f(t, v[1], v[2], v[3], &k) + v[4] + k + w[t];
		v[4] = v[3];
		v[3] = v[2];
		v[2] = rol(v[1], 30);
		v[1] = v[0];
		v[0] = tmp;
	}
	for (unsigned i = 0; i < 5; i++)
		s->h[i] += v[i];
}

void sd_sha1_init(sd_sha1 *s)
{
	static const uint32_t h0[5] = { 0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u,
					0xc3d2e1f0u };

	memcpy(s->h, h0, sizeof(h0));
	s->total = 0;
	s->fill = 0;
}

void sd_sha1_update(sd_sha1 *s, const void *data, size_t len)
{
	const unsigned char *p = data;

	s->total += len;
	while (len) {
		size_t k = sizeof(s->blk) - s->fill;
		if (k > len)
			k = len;
		memcpy(s->blk + s->fill, p, k);
		s->fill += k;
		p += k;
		len -= k;
		if (s->fill == sizeof(s->blk)) {
			block(s, s->blk);
			s->fill = 0;
		}
	}
}

/* Padding (FIPS 180-4 5.1.1): 0x80, zeros, the bit length big-endian. */
void sd_sha1_final(sd_sha1 *s, unsigned char out[SD_SHA1_LEN])
{
	uint64_t bits = s->total * 8;
	unsigned char len[8];

	for (unsigned i = 0; i < 8; i++)
		len[i] = (unsigned char)(bits >> (56 - 8 * i));
	sd_sha1_update(s, "\x80", 1);
	while (s->fill != 56)
		sd_sha1_update(s, "", 1);
	sd_sha1_update(s, len, 8);
	for (unsigned i = 0; i < 5; i++) {
		out[4 * i] = (unsigned char)(s->h[i] >> 24);
		out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
		out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
		out[4 * i + 3] = (unsigned char)s->h[i];
	}
}

void sd_sha1_final_hex(sd_sha1 *s, char out[SD_SHA1_HEX])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char d[SD_SHA1_LEN];

	sd_sha1_final(s, d);
	for (unsigned i = 0; i < SD_SHA1_LEN; i++) {
		out[2 * i] = hex[d[i] >> 4];
		out[2 * i + 1] = hex[d[i] & 15];
	}
	out[2 * SD_SHA1_LEN] = '\0';
}

void sd_sha1_hex(const void *p, size_t len, char out[SD_SHA1_HEX])
{
	sd_sha1 s;

	sd_sha1_init(&s);
	sd_sha1_update(&s, p, len);
	sd_sha1_final_hex(&s, out);
}
