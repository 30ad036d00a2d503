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

/* One round: T = ROTL5(a) + f(b,c,d) + e + K + W[t], then the shift of the
 * working variables (FIPS 180-4 6.1.2 step 3). */
#define SHA1_ROUND(f, k, t)                                               \
	do {                                                              \
		uint32_t tmp_ = rol(a, 5) + (f) + e + (k) + w[t];         \
		e = d;                                                    \
		d = c;                                                    \
		c = rol(b, 30);                                           \
		b = a;                                                    \
		a = tmp_;                                                 \
	} while (0)

/* The four 20-round stages with their f and K (4.1.1, 4.2.1). */
static void block(sd_sha1 *s, const unsigned char *p)
{
	uint32_t w[80], a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4];
	unsigned t;

	for (t = 0; t < 16; t++)
		w[t] = be32(p + 4 * t);
	for (; t < 80; t++)
		w[t] = rol(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
	for (t = 0; t < 20; t++)
		SHA1_ROUND((b & c) | (~b & d), 0x5a827999u, t);
	for (; t < 40; t++)
		SHA1_ROUND(b ^ c ^ d, 0x6ed9eba1u, t);
	for (; t < 60; t++)
		SHA1_ROUND((b & c) | (b & d) | (c & d), 0x8f1bbcdcu, t);
	for (; t < 80; t++)
		SHA1_ROUND(b ^ c ^ d, 0xca62c1d6u, t);
	s->h[0] += a;
	s->h[1] += b;
	s->h[2] += c;
	s->h[3] += d;
	s->h[4] += e;
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

	s->blk[s->fill++] = 0x80;
	if (s->fill > 56) { /* no room for the length: one more block */
		memset(s->blk + s->fill, 0, sizeof(s->blk) - s->fill);
		block(s, s->blk);
		s->fill = 0;
	}
	memset(s->blk + s->fill, 0, 56 - s->fill);
	for (unsigned i = 0; i < 8; i++)
		s->blk[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
	block(s, s->blk);
	s->fill = 0;
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
