/* datetime.c - RFC 5322 date-time to Unix seconds and a "+hhmm" offset.
 *
 * Lenient about what bounces really contain: optional day name, one- or
 * two-digit days, two- or four-digit years, missing seconds, obsolete zone
 * names (GMT, EST, JST ...), a trailing "(JST)" comment, ISO 8601 "T". */
#include "mime/datetime.h"

static const char *const months[] = { "jan", "feb", "mar", "apr", "may", "jun",
				      "jul", "aug", "sep", "oct", "nov", "dec" };

typedef struct dt_cur {
	const char *p, *end;
} dt_cur;

static void skip_blank(dt_cur *c)
{
	while (c->p < c->end && (sd_isspace((unsigned char)*c->p) || *c->p == ','))
		c->p++;
}

static int num(dt_cur *c, int maxd, long *v)
{
	int k = 0;

	*v = 0;
	while (c->p < c->end && k < maxd && sd_isdigit((unsigned char)*c->p)) {
		*v = *v * 10 + (*c->p++ - '0');
		k++;
	}
	return k;
}

static int month_at(dt_cur *c)
{
	if (c->end - c->p < 3)
		return -1;
	for (int m = 0; m < 12; m++)
		if (sd_memcaseeq(c->p, months[m], 3)) {
			c->p += 3;
			while (c->p < c->end && sd_isalpha((unsigned char)*c->p))
				c->p++;
			return m;
		}
	return -1;
}

int64_t sd_days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* Zone offset in minutes from a "+0900" / "GMT" / "JST" token. */
static int zone(dt_cur *c, int *minutes)
{
	static const struct {
		const char *name;
		int off;
	} names[] = { { "UT", 0 }, { "GMT", 0 }, { "UTC", 0 }, { "Z", 0 }, { "EST", -300 }, { "EDT", -240 },
		      { "CST", -360 }, { "CDT", -300 }, { "MST", -420 }, { "MDT", -360 },
		      { "PST", -480 }, { "PDT", -420 }, { "JST", 540 }, { "KST", 540 }, { "CET", 60 },
		      { "CEST", 120 }, { "BST", 60 }, { "MET", 60 }, { "EET", 120 } };
	long v;
	int sign;

	skip_blank(c);
	if (c->p < c->end && (*c->p == '+' || *c->p == '-')) {
		sign = *c->p++ == '-' ? -1 : 1;
		if (num(c, 4, &v) != 4)
			return 0;
		*minutes = sign * (int)(v / 100 * 60 + v % 100);
		return 1;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t k = strlen(names[i].name);
		if ((size_t)(c->end - c->p) >= k && sd_memcaseeq(c->p, names[i].name, k) &&
		    ((size_t)(c->end - c->p) == k || !sd_isalpha((unsigned char)c->p[k]))) {
			*minutes = names[i].off;
			return 1;
		}
	}
	return 0;
}

static int clock_at(dt_cur *c, long *h, long *mi, long *s)
{
	skip_blank(c);
	if (!num(c, 2, h) || c->p >= c->end || *c->p++ != ':' || num(c, 2, mi) != 2)
		return 0;
	*s = 0;
	if (c->p < c->end && *c->p == ':') {
		c->p++;
		num(c, 2, s);
	}
	while (c->p < c->end && (*c->p == '.' || sd_isdigit((unsigned char)*c->p)))
		c->p++; /* fractions */
	return *h < 24 && *mi < 60 && *s < 61;
}

/* "Wed, 16 Oct 2013 14:15:35 +0900" and the like. */
static int rfc5322(dt_cur *c, long *y, int *mo, long *d)
{
	skip_blank(c);
	while (c->p < c->end && sd_isalpha((unsigned char)*c->p))
		c->p++; /* day name */
	skip_blank(c);
	if (!num(c, 2, d))
		return 0;
	skip_blank(c);
	if (c->p < c->end && *c->p == '-')
		c->p++;
	if ((*mo = month_at(c)) < 0)
		return 0;
	if (c->p < c->end && *c->p == '-')
		c->p++;
	skip_blank(c);
	if (num(c, 4, y) < 2)
		return 0;
	if (*y < 50)
		*y += 2000;
	else if (*y < 1000)
		*y += 1900;
	return 1;
}

/* "2013-10-16T14:15:35+09:00" */
static int iso(dt_cur *c, long *y, int *mo, long *d)
{
	long m;

	skip_blank(c);
	if (num(c, 4, y) != 4 || c->p >= c->end || *c->p++ != '-' || num(c, 2, &m) != 2 ||
	    c->p >= c->end || *c->p++ != '-' || num(c, 2, d) != 2)
		return 0;
	if (c->p < c->end && (*c->p == 'T' || *c->p == 't'))
		c->p++;
	*mo = (int)m - 1;
	return *mo >= 0 && *mo < 12;
}

static int iso_zone(dt_cur *c, int *minutes)
{
	long hh, mm;
	int sign;

	if (c->p < c->end && (*c->p == 'Z' || *c->p == 'z')) {
		*minutes = 0;
		return 1;
	}
	if (c->p >= c->end || (*c->p != '+' && *c->p != '-'))
		return zone(c, minutes);
	sign = *c->p++ == '-' ? -1 : 1;
	if (num(c, 2, &hh) != 2)
		return 0;
	if (c->p < c->end && *c->p == ':')
		c->p++;
	num(c, 2, &mm);
	*minutes = sign * (int)(hh * 60 + mm);
	return 1;
}

int sd_date_parse(sd_str s, int64_t *t, int *tzmin)
{
	dt_cur c, save;
	long y, d, h, mi, sec;
	int mo, z = 0, ok;

	if (!s.p || !s.n)
		return 0;
	c.p = s.p;
	c.end = s.p + s.n;
	save = c;
	ok = rfc5322(&c, &y, &mo, &d);
	if (!ok) {
		c = save;
		ok = iso(&c, &y, &mo, &d);
		if (!ok || !clock_at(&c, &h, &mi, &sec))
			return 0;
		if (!iso_zone(&c, &z))
			z = 0;
	} else {
		if (!clock_at(&c, &h, &mi, &sec))
			return 0;
		if (!zone(&c, &z))
			z = 0;
	}
	if (d < 1 || d > 31 || y < 1970 || y > 9999)
		return 0;
	*t = (int64_t)sd_days_from_civil(y, mo + 1, (int)d) * 86400 + h * 3600 + mi * 60 + sec - (int64_t)z * 60;
	*tzmin = z;
	return 1;
}

void sd_tz_format(int tzmin, char out[6])
{
	int a = tzmin < 0 ? -tzmin : tzmin;

	out[0] = tzmin < 0 ? '-' : '+';
	out[1] = (char)('0' + a / 600 % 10);
	out[2] = (char)('0' + a / 60 % 10);
	out[3] = (char)('0' + a % 60 / 10);
	out[4] = (char)('0' + a % 10);
	out[5] = 0;
}
