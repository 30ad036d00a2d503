/* address.h - find an address in a reply or error text. */
#ifndef SD_ADDRESS_H
#define SD_ADDRESS_H

#include "core/util.h"

/* Find the most likely recipient address in text, near offset at (or anywhere).
 * Returns a slice of text, or SD_NULLSTR. */
sd_str sd_find_address(const char *p, size_t n, size_t at);

#endif
