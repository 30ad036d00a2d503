/* scan_csv.c - what the CSV and JSON log readers share: RFC 4180 fields,
 * header maps, times, and the choice of reader for a line. */
#include "scan/scan_formats.h"
#include "mime/datetime.h"

#include <stdlib.h>

void sd_xfmt_reset(sd_xfmt *x)
{
	x->kind = SD_XF_NONE;
	x->nf = 0;
	x->used = 0;
}

void sd_xfmt_free(sd_xfmt *x)
{
	free(x->buf);
	x->buf = NULL;
	sd_xfmt_reset(x);
}

char *sd_xf_alloc(sd_xfmt *x, size_t n)
{
	char *p;

	if (!x->buf && !(x->buf = malloc(SD_XF_BUF)))
		return NULL;
	if (n > SD_XF_BUF - x->used)
		return NULL;
	p = x->buf + x->used;
	x->used += n;
	return p;
}

/* One quoted field from p[i] (the opening quote): unquoted into the buffer. */
static long quoted(sd_xfmt *x, const char *p, size_t n, size_t i, sd_str *out)
{
	char *d = sd_xf_alloc(x, n - i);
	size_t k = 0;

	if (!d)
		return SMTPDIAG_ELIMIT;
	for (i++; i < n; i++) {
		if (p[i] == '"') {
			if (i + 1 < n && p[i + 1] == '"') {
				d[k++] = '"';
				i++;
				continue;
			}
			*out = (sd_str){ d, k };
			i++;
			while (i < n && p[i] != ',') /* bytes after the closing quote stay with it */
				d[k++] = p[i++];
			out->n = k;
			return (long)i;
		}
		d[k++] = p[i];
	}
	return SMTPDIAG_EPARSE; /* a field that goes on past the line end */
}

int sd_csv_split(sd_xfmt *x, const char *p, size_t n)
{
	size_t i = 0;

	x->nf = 0;
	x->used = 0;
	for (;;) {
		sd_str f;
		if (i < n && p[i] == '"') {
			long r = quoted(x, p, n, i, &f);
			if (r < 0)
				return (int)r;
			i = (size_t)r;
		} else {
			const char *c = i < n ? memchr(p + i, ',', n - i) : NULL;
			size_t e = c ? (size_t)(c - p) : n;
			f = (sd_str){ p + i, e - i };
			i = e;
		}
		if (x->nf < SD_XF_MAX_COLS)
			x->f[x->nf++] = f;
		if (i >= n)
			return 0;
		i++; /* the comma */
	}
}

static int name_is(sd_str f, const char *names)
{
	const char *a = names;

	while (*a) {
		const char *bar = strchr(a, '|');
		size_t k = bar ? (size_t)(bar - a) : strlen(a);
		if (f.n == k && sd_memcaseeq(f.p, a, k))
			return 1;
		a += k + (bar != NULL);
	}
	return 0;
}

int sd_csv_header(sd_xfmt *x, int kind, const char *const *names, size_t nkeys)
{
	int known = 0;

	x->kind = kind;
	for (size_t k = 0; k < SD_XF_KEYS; k++)
		x->col[k] = -1;
	for (size_t k = 0; k < nkeys && k < SD_XF_KEYS; k++)
		for (size_t i = 0; i < x->nf; i++)
			if (name_is(sd_trim(x->f[i]), names[k])) {
				x->col[k] = (short)i;
				known++;
				break;
			}
	return known;
}

sd_str sd_xf_get(const sd_xfmt *x, int k)
{
	int c = k >= 0 && k < SD_XF_KEYS ? x->col[k] : -1;

	return c >= 0 && (size_t)c < x->nf ? sd_trim(x->f[c]) : (sd_str){ "", 0 };
}

/* Civil date of a day count (H. Hinnant's algorithm). */
static void civil(int64_t z, sd_logtime *t)
{
	int64_t era, doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	t->day = (int)(doy - (153 * mp + 2) / 5 + 1);
	t->mon = (int)(mp < 10 ? mp + 3 : mp - 9);
	t->year = (int)(yoe + era * 400 + (t->mon <= 2));
}

int sd_xf_time(sd_str s, sd_logtime *t)
{
	unsigned long v;
	size_t k;

	s = sd_trim(s);
	memset(t, 0, sizeof(*t));
	if (s.n >= 19 && sd_logtime_iso(s.p, s.n, t) == s.n)
		return 1; /* the whole field: "2024-01-12 10:15:01 1rOabc..." is no time field */
	k = sd_parse_uint(s.p, s.n, 12, &v);
	if (!k || k != s.n || v < 86400)
		return 0;
	civil((int64_t)(v / 86400), t);
	t->hour = (int)(v % 86400 / 3600);
	t->min = (int)(v % 3600 / 60);
	t->sec = (int)(v % 60);
	t->has_year = t->has_off = 1;
	t->off = 0;
	return 1;
}

int64_t sd_xf_epoch(const sd_logtime *t)
{
	if (!t->has_off || !t->has_year)
		return 0;
	return (sd_days_from_civil(t->year, t->mon, t->day) * 86400 + t->hour * 3600 + t->min * 60 + t->sec) -
	       (int64_t)t->off * 60;
}

void sd_xf_envelope(sd_logline *l, const char *format, const char *program)
{
	memset(&l->h, 0, sizeof(l->h));
	l->h.program = (sd_str){ program, strlen(program) };
	l->format = format;
}

int sd_xfmt_line(sd_xfmt *x, sd_logline *l, const char *p, size_t n, int *mine)
{
	int rc;

	*mine = 0;
	if (n >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF) {
		p += 3; /* a UTF-8 byte order mark opens the file */
		n -= 3;
	}
	if (!n)
		return 0;
	if (p[0] == '{')
		return sd_scan_kumo(x, l, p, n, mine);
	if (p[0] == '#' || x->kind == SD_XF_EXCHANGE)
		return sd_scan_exchange(x, l, p, n, mine);
	if (x->kind == SD_XF_M365)
		return sd_scan_m365(x, l, p, n, mine);
	if (x->kind == SD_XF_PMTA)
		return sd_scan_pmta(x, l, p, n, mine);
	if (sd_isdigit((unsigned char)p[0]))
		return sd_scan_exchange(x, l, p, n, mine); /* no #Fields: the default order */
	/* no header in force: a Microsoft 365 header line, else PowerMTA's */
	rc = sd_scan_m365(x, l, p, n, mine);
	return *mine ? rc : sd_scan_pmta(x, l, p, n, mine);
}
