/* sha1.h - SHA-1 (FIPS 180-4), for identifiers only (Sisimai's token), not for
 * security. Knows nothing of mail. */
#ifndef SD_SHA1_H
#define SD_SHA1_H

#include <stddef.h>
#include <stdint.h>

#define SD_SHA1_LEN 20                      /* bytes of a digest */
#define SD_SHA1_HEX (2 * SD_SHA1_LEN + 1)   /* hex digits and a NUL */

typedef struct sd_sha1 {
	uint32_t h[5];
	uint64_t total;        /* bytes hashed so far */
	unsigned char blk[64]; /* the block being filled */
	size_t fill;
} sd_sha1;

void sd_sha1_init(sd_sha1 *s);
void sd_sha1_update(sd_sha1 *s, const void *p, size_t len);
void sd_sha1_final(sd_sha1 *s, unsigned char out[SD_SHA1_LEN]);
/* sd_sha1_final() as 40 lowercase hex digits and a NUL. */
void sd_sha1_final_hex(sd_sha1 *s, char out[SD_SHA1_HEX]);
/* The digest of p[0..len) as 40 lowercase hex digits and a NUL. */
void sd_sha1_hex(const void *p, size_t len, char out[SD_SHA1_HEX]);

#endif
