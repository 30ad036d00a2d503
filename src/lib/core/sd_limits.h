/* sd_limits.h - every bound the library enforces, in one place. Hitting one is SMTPDIAG_ELIMIT. */
#ifndef SD_LIMITS_H
#define SD_LIMITS_H

#define SD_MAX_QUERY        (1u << 20)  /* explain input: 1 MiB */
#define SD_MAX_MESSAGE      (64u << 20) /* one email handed to the decoder: 64 MiB */
#define SD_MAX_ARENA        (32u << 20) /* per-message working memory */
#define SD_MAX_HEADER_BYTES (256u << 10) /* one header block */
#define SD_MAX_HEADER_FIELDS 1024       /* fields in one header block */
#define SD_MAX_LINE         (64u << 10) /* a logical line we look at */
#define SD_MAX_MIME_DEPTH   16          /* nested multiparts / message parts */
#define SD_MAX_MIME_PARTS   512         /* parts in one message */
#define SD_MAX_BOUNDARY     200         /* RFC 2046 allows 70; be lenient */
#define SD_MAX_RECIPIENTS   1024        /* verdicts from one message */
#define SD_MAX_REPLY_LINES  256         /* lines of one multi-line reply */
#define SD_MAX_CODES        64          /* codes collected from one text */
#define SD_MAX_DECODED      (4u << 20)  /* bytes of one decoded text part we look at */

#endif
