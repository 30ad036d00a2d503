/* scan_formats.h - logs that are no syslog lines: CSV files with a header
 * line (PowerMTA accounting, Exchange message tracking, Microsoft 365 message
 * trace exports) and JSON records (KumoMTA).
 *
 * These readers run before the syslog envelope (scan.c asks sd_xfmt_maybe()
 * first: a look at the first bytes, so a syslog line costs a few compares).
 * A CSV file names its columns once, in a header line; the scanner keeps the
 * columns of the last header (sd_xfmt) until smtpdiag_scanner_reset() or the
 * next header. Each reader fills the line's envelope (time, host, program)
 * and raw records as the syslog readers do, so scan.c's step 3 gives the same
 * codes and verdict. Quoted CSV fields are unquoted into the scanner's buffer;
 * every sd_str points into the line or into that buffer. */
#ifndef SD_SCAN_FORMATS_H
#define SD_SCAN_FORMATS_H

#include "scan/scan.h"

#define SD_XF_MAX_COLS 160 /* columns of a CSV line read; more are ignored */
#define SD_XF_KEYS 24      /* known columns per format */
#define SD_XF_BUF (SD_SCAN_MAX_LINE + 1024) /* unquoted fields and composed replies */

/* Which header is in force. */
enum { SD_XF_NONE = 0, SD_XF_PMTA, SD_XF_EXCHANGE, SD_XF_M365 };

typedef struct sd_xfmt {
	int kind;                 /* SD_XF_*: the header (or default order) in force */
	short col[SD_XF_KEYS];    /* column of each known field of kind, -1 when absent */
	sd_str f[SD_XF_MAX_COLS]; /* the fields of the current line */
	size_t nf;
	char *buf;                /* SD_XF_BUF bytes, allocated on first use */
	size_t used;
} sd_xfmt;

/* Could the line be one of these formats? Cheap: the first bytes only. */
static inline int sd_xfmt_maybe(const sd_xfmt *x, const char *p, size_t n)
{
	unsigned char c = n > 3 ? (unsigned char)p[0] : 0;

	if (c >= 'A' && c <= 'Z' && p[3] == ' ')
		return 0; /* "Mar  3 09:00:02" (RFC 3164), the most common line, at once */
	if (c == '{' || c == '#' || c == '"' || c == 0xEF)
		return 1;
	if (sd_isdigit(c))
		return x->kind != SD_XF_NONE || (n > 20 && p[4] == '-' && p[10] == 'T');
	if (sd_isalpha(c))
		for (size_t i = 1; i < n && i < 32; i++) {
			if (p[i] == ',')
				return 1;
			if (p[i] == ' ' || p[i] == '[' || p[i] == ':')
				return 0;
		}
	return 0;
}

/* Read the line. *mine is set when it is a line of one of these formats:
 * then the result is final (records, 0 for a header or a skipped record,
 * SMTPDIAG_EPARSE, SMTPDIAG_ELIMIT); else the syslog readers try it. */
int sd_xfmt_line(sd_xfmt *x, sd_logline *l, const char *p, size_t n, int *mine);
void sd_xfmt_reset(sd_xfmt *x);
void sd_xfmt_free(sd_xfmt *x);

/* ---- for the readers (scan_csv.c) ---- */

/* Split an RFC 4180 line into x->f (quoted fields unquoted into x->buf).
 * SMTPDIAG_EPARSE when a quote does not close on the line. */
int sd_csv_split(sd_xfmt *x, const char *p, size_t n);
/* Map the column names of the split header line: names[k] (aliases split by
 * '|', case ignored) gives x->col[k]. Sets x->kind. Returns how many known. */
int sd_csv_header(sd_xfmt *x, int kind, const char *const *names, size_t nkeys);
/* The field of known column k of the current line (trimmed), empty when absent. */
sd_str sd_xf_get(const sd_xfmt *x, int k);
/* Bytes of x->buf, NULL when full; sd_xf_cat appends to a slice ending there. */
char *sd_xf_alloc(sd_xfmt *x, size_t n);
/* A time field: ISO 8601 / RFC 3339 ("2024-01-12 10:15:01-0500", 'T' or space)
 * or Unix seconds. Returns 1 when read. */
int sd_xf_time(sd_str s, sd_logtime *t);
/* Unix seconds of a time with an offset, 0 without one. */
int64_t sd_xf_epoch(const sd_logtime *t);
/* Exchange's and Microsoft 365's delivery events, any case: DELIVER, SEND ->
 * sent, DEFER -> deferred, FAIL -> bounced, others 0 (scan_exchange.c). */
int sd_xf_event(sd_str e);
/* A fresh envelope for a line of these formats. */
void sd_xf_envelope(sd_logline *l, const char *format, const char *program);

/* ---- the readers ---- */

/* PowerMTA accounting (scan_pmta.c): header line, or a record. */
int sd_scan_pmta(sd_xfmt *x, sd_logline *l, const char *p, size_t n, int *mine);
/* Exchange message tracking (scan_exchange.c): '#' head lines, records. */
int sd_scan_exchange(sd_xfmt *x, sd_logline *l, const char *p, size_t n, int *mine);
/* Microsoft 365 message trace exports (scan_m365.c): header, records. */
int sd_scan_m365(sd_xfmt *x, sd_logline *l, const char *p, size_t n, int *mine);
/* KumoMTA JSON log records (scan_kumo.c): a line starting with '{'. */
int sd_scan_kumo(sd_xfmt *x, sd_logline *l, const char *p, size_t n, int *mine);

#endif
