/* sesjson.h - a small, bounded JSON reader for the Amazon SES notifications
 * (SNS) that amazonses.c decodes. Values are slices of the input; strings are
 * unescaped into the arena on demand. Nesting is limited to SJ_MAX_DEPTH. */
#ifndef SD_FORMATS_SESJSON_H
#define SD_FORMATS_SESJSON_H

#include "core/util.h"

#define SJ_MAX_DEPTH 32 /* nesting of objects and arrays */

/* The value of member key of the object at obj (top level only), as a raw
 * slice ("\"text\"", "{...}", "[...]", "12"); SD_NULLSTR if absent. */
sd_str sj_member(sd_str obj, const char *key);
/* Next element of the array arr (a raw "[...]" slice); *pos starts at 0.
 * Returns 0 at the end. */
int sj_next(sd_str arr, size_t *pos, sd_str *item);
/* The text of a string value (unescaped into the arena when needed), or the
 * raw value for other types. */
sd_str sj_text(sd_arena *a, sd_str v);

#endif
