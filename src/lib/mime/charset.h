/* charset.h - transfer-encoding decoders and RFC 2047 words (internal to the library).
 *
 * All decoders are lenient: they never fail on garbage, they skip or keep what they
 * cannot decode. Output buffers are owned by the caller; each decoder writes at most
 * outcap bytes and returns the number written.
 *
 * Charset conversion (sd_to_utf8, declared in mime.h) uses glibc iconv. Descriptors are
 * cached per thread (_Thread_local, a few entries, least recently used replaced), so
 * the cache is thread-safe; the descriptors of a thread are closed when it ends (a
 * pthread key's destructor), so short-lived threads do not pile them up.
 */
#ifndef SD_CHARSET_H
#define SD_CHARSET_H

#include "core/util.h"

/* Base64 (RFC 2045): characters outside the alphabet are skipped; '=' ends a quantum.
 * At most outcap bytes; an output of (n / 4 + 1) * 3 bytes always suffices. */
size_t sd_b64_decode(char *out, size_t outcap, const char *in, size_t n);

/* Quoted-printable (RFC 2045). header != 0 selects the RFC 2047 "Q" form ('_' is a
 * space, no soft line breaks). Invalid "=" sequences are kept as written. Output never
 * exceeds n bytes. */
size_t sd_qp_decode(char *out, size_t outcap, const char *in, size_t n, int header);

/* Is s valid UTF-8 (pure ASCII included)? */
int sd_utf8_valid(const char *s, size_t n);

/* Decode RFC 2047 encoded words in an (unfolded) header value and append UTF-8 to b.
 * Whitespace between adjacent encoded words is dropped; text outside encoded words is
 * copied as is. */
void sd_rfc2047_decode(sd_buf *b, sd_str in);

/* Append in, converted from charset to UTF-8, to b (lenient, U+FFFD for bad bytes),
 * producing at most max bytes. An empty or unknown charset is taken as UTF-8. */
void sd_buf_put_utf8(sd_buf *b, sd_str charset, sd_str in, size_t max);

#endif
