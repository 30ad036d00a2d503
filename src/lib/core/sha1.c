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

/* The round functions f and constants K (FIPS 180-4 4.1.1, 4.2.1), in the
 * forms with fewest operations: Ch, Parity, Maj. */
#define SHA1_CH(x, y, z) ((z) ^ ((x) & ((y) ^ (z))))
#define SHA1_PAR(x, y, z) ((x) ^ (y) ^ (z))
#define SHA1_MAJ(x, y, z) (((x) & (y)) | ((z) & ((x) | (y))))

/* W[t] of the message schedule (6.1.2 step 1), kept in a ring of 16 words:
 * the first 16 are the block's, the rest computed in place as needed. */
#define SHA1_W(t) ((t) < 16 ? w[(t) & 15] : (w[(t) & 15] = rol(w[((t) + 13) & 15] ^ w[((t) + 8) & 15] ^ \
							  w[((t) + 2) & 15] ^ w[(t) & 15], 1)))

/* One round (6.1.2 step 3) without moving the working variables: T is added
 * to e, b rotated in place; the next round names them one place further on. */
#define SHA1_ROUND(a, b, c, d, e, f, k, t)                                \
	do {                                                              \
		e += rol(a, 5) + f(b, c, d) + (k) + SHA1_W(t);            \
		b = rol(b, 30);                                           \
	} while (0)

/* Five rounds, after which the names are back in their places. */
#define SHA1_FIVE(f, k, t)                                 \
	do {                                               \
		SHA1_ROUND(a, b, c, d, e, f, k, (t));      \
		SHA1_ROUND(e, a, b, c, d, f, k, (t) + 1);  \
		SHA1_ROUND(d, e, a, b, c, f, k, (t) + 2);  \
		SHA1_ROUND(c, d, e, a, b, f, k, (t) + 3);  \
		SHA1_ROUND(b, c, d, e, a, f, k, (t) + 4);  \
	} while (0)

#define SHA1_TWENTY(f, k, t)                    \
	do {                                    \
		SHA1_FIVE(f, k, (t));           \
		SHA1_FIVE(f, k, (t) + 5);       \
		SHA1_FIVE(f, k, (t) + 10);      \
		SHA1_FIVE(f, k, (t) + 15);      \
	} while (0)

/* The 80 rounds unrolled: every index is a constant, so the schedule is
 * computed in registers as the rounds go. */
static void block(sd_sha1 *s, const unsigned char *p)
{
	uint32_t w[16], a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4];

	for (unsigned t = 0; t < 16; t++)
		w[t] = be32(p + 4 * t);
	SHA1_TWENTY(SHA1_CH, 0x5a827999u, 0);
	SHA1_TWENTY(SHA1_PAR, 0x6ed9eba1u, 20);
	SHA1_TWENTY(SHA1_MAJ, 0x8f1bbcdcu, 40);
	SHA1_TWENTY(SHA1_PAR, 0xca62c1d6u, 60);
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
