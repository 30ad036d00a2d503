/* datetime.h - parse the date-times bounces carry. */
#ifndef SD_DATETIME_H
#define SD_DATETIME_H

#include <stdint.h>
#include "core/util.h"

/* Parse an RFC 5322 (or ISO 8601) date-time. On success returns 1 and sets *t
 * (Unix seconds, UTC) and *tzmin (the written zone offset in minutes). */
int sd_date_parse(sd_str s, int64_t *t, int *tzmin);
/* Days from 1970-01-01 to the civil date y-m-d (proleptic Gregorian, m 1-12). */
int64_t sd_days_from_civil(int64_t y, int m, int d);
/* "+0900" for 540. */
void sd_tz_format(int tzmin, char out[6]);

#endif
