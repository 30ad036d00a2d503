/* mime.h - zero-copy MIME reader: just what a bounce needs.
 *
 * The reader never copies the input: every sd_str points into the message
 * (or, for decoded content, into the arena). It tolerates LF, CRLF and bare
 * CR line ends. Limits from sd_limits.h apply; hitting one is SMTPDIAG_ELIMIT.
 */
#ifndef SD_MIME_H
#define SD_MIME_H

#include "core/util.h"

typedef struct sd_header {
	sd_str name;  /* field name, as written */
	sd_str value; /* raw value: after the colon, folded lines included, no final EOL */
} sd_header;

typedef struct sd_part {
	int parent;          /* index of the enclosing part, -1 for the top */
	int depth;           /* 0 for the top-level message */
	int is_message;      /* this part starts a (nested) message: top, message/rfc822,
	                        message/global, text/rfc822-headers */
	sd_str raw;          /* whole part: headers + body */
	sd_str head;         /* header block, without the blank line */
	sd_str body;         /* body as sent (still transfer-encoded) */
	sd_header *hdrs;     /* parsed header fields (arena) */
	size_t nhdrs;
	uint64_t name_bits;  /* bit sd_name_bit() of every field name; 0: unknown */
	char ctype[64];      /* "type/subtype", lowercased; "text/plain" when absent */
	sd_str boundary;     /* multipart boundary parameter, unquoted */
	sd_str charset;      /* charset parameter, unquoted, as written */
	sd_str cte;          /* Content-Transfer-Encoding value, trimmed */
} sd_part;

typedef struct sd_mime {
	sd_part *parts;  /* parts[0] is the top-level message (arena) */
	size_t nparts;
	int truncated;   /* a multipart lacked its closing boundary */
} sd_mime;

/* Parse a message. Returns 0 or a negative SMTPDIAG_E* code; on error err (may be
 * NULL) receives a one-line reason. Everything lives in the arena. */
int sd_mime_parse(sd_arena *a, const char *p, size_t n, sd_mime *out, char *err, size_t errcap);

/* First header field of the part with this name (case-insensitive); raw value or
 * SD_NULLSTR. sd_part_header_n takes the name's length; the inline form lets the
 * compiler count the letters of a literal name. */
sd_str sd_part_header_n(const sd_part *part, const char *name, size_t len);
static inline sd_str sd_part_header(const sd_part *part, const char *name)
{
	return sd_part_header_n(part, name, strlen(name));
}

/* A field name's bit in sd_part.name_bits (from its length and first and last
 * letters, case-insensitive): a name whose bit is clear is not in the part, so
 * most look-ups of absent fields end without a scan. */
unsigned sd_name_bit(const char *name, size_t n);

/* Unfold (join continuation lines), trim, and decode RFC 2047 encoded words into
 * UTF-8. Returns a NUL-terminated arena string ("" when absent or on failure). */
const char *sd_header_text(sd_arena *a, sd_str raw);

/* Decode a part's body: transfer encoding (base64, quoted-printable) and charset
 * (to UTF-8; iso-2022-jp, Shift_JIS, EUC-JP, Latin-1, ... via iconv). At most
 * SD_MAX_DECODED bytes are produced. Returns the text (arena or a slice of the
 * input when nothing needed decoding). */
sd_str sd_part_text(sd_arena *a, const sd_part *part);

/* Charset conversion to UTF-8 (lenient: invalid input bytes are replaced). */
sd_str sd_to_utf8(sd_arena *a, sd_str charset, sd_str in);

/* Parse the header fields of a block of text that holds only a header block
 * (e.g. the fields of a message/delivery-status group). */
int sd_parse_fields(sd_arena *a, sd_str block, sd_header **out, size_t *n);

/* Next line of s starting at *pos (LF, CRLF or CR); the line excludes its end.
 * Returns 0 at the end. */
int sd_next_line(sd_str s, size_t *pos, sd_str *line);

/* The same lines for a loop that reads on through one text: the next line ends
 * are looked up ahead and kept, so a text with one kind of line end costs one
 * memchr per line instead of two. pos may be changed between calls (moving it
 * back drops what was looked up). */
typedef struct sd_eol_scan {
	const char *lf;      /* next LF at or after the last position (end: none); NULL: not searched */
	const char *cr;      /* next CR at or after the last position; NULL: none before cr_lim */
	const char *cr_lim;  /* CRs are known up to here */
} sd_eol_scan;

typedef struct sd_lines {
	sd_str s;
	size_t pos;          /* where the next line starts */
	sd_eol_scan es;      /* the look-ahead (mime.c) */
	const char *at;      /* start of the line read last */
} sd_lines;

void sd_lines_init(sd_lines *l, sd_str s, size_t pos);
int sd_lines_next(sd_lines *l, sd_str *line);

#endif
