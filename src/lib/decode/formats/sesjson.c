/* sesjson.c - bounded JSON reader for SES notifications. */
#include "decode/formats/sesjson.h"

static size_t skip_ws(sd_str s, size_t i)
{
	while (i < s.n && sd_isspace((unsigned char)s.p[i]))
		i++;
	return i;
}

/* s.p[i] == '"': index after the closing quote (s.n if unterminated). */
static size_t skip_string(sd_str s, size_t i)
{
	for (i++; i < s.n; i++) {
		if (s.p[i] == '\\')
			i++;
		else if (s.p[i] == '"')
			return i + 1;
	}
	return s.n;
}

/* Index after the value starting at i. */
static size_t skip_value(sd_str s, size_t i)
{
	int depth = 0;

	i = skip_ws(s, i);
	if (i < s.n && s.p[i] == '"')
		return skip_string(s, i);
	for (; i < s.n; i++) {
		char ch = s.p[i];
		if (ch == '"') {
			i = skip_string(s, i) - 1;
		} else if (ch == '{' || ch == '[') {
			if (++depth > SJ_MAX_DEPTH)
				return s.n;
		} else if (ch == '}' || ch == ']') {
			if (depth-- == 0)
				return i;
			if (depth == 0)
				return i + 1;
		} else if (ch == ',' && depth == 0) {
			return i;
		}
	}
	return s.n;
}

static int key_is(sd_str s, size_t i, size_t end, const char *key)
{
	size_t n = strlen(key);

	return end - i == n + 2 && memcmp(s.p + i + 1, key, n) == 0;
}

sd_str sj_member(sd_str obj, const char *key)
{
	size_t i = skip_ws(obj, 0);

	if (i >= obj.n || obj.p[i] != '{')
		return SD_NULLSTR;
	for (i++;;) {
		size_t k = skip_ws(obj, i), ke, v, ve;
		if (k >= obj.n || obj.p[k] != '"')
			return SD_NULLSTR;
		ke = skip_string(obj, k);
		v = skip_ws(obj, ke);
		if (v >= obj.n || obj.p[v] != ':')
			return SD_NULLSTR;
		v = skip_ws(obj, v + 1);
		ve = skip_value(obj, v);
		if (key_is(obj, k, ke, key))
			return (sd_str){ obj.p + v, ve - v };
		i = skip_ws(obj, ve);
		if (i >= obj.n || obj.p[i] != ',')
			return SD_NULLSTR;
		i++;
	}
}

int sj_next(sd_str arr, size_t *pos, sd_str *item)
{
	size_t i = *pos ? *pos : skip_ws(arr, 0) + 1, e;

	if (!*pos && (!arr.n || arr.p[skip_ws(arr, 0)] != '['))
		return 0;
	i = skip_ws(arr, i);
	if (i < arr.n && arr.p[i] == ',')
		i = skip_ws(arr, i + 1);
	if (i >= arr.n || arr.p[i] == ']')
		return 0;
	e = skip_value(arr, i);
	*item = (sd_str){ arr.p + i, e - i };
	*pos = e;
	return e > i;
}

static size_t put_utf8(char *o, unsigned long cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xC0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	o[0] = (char)(0xE0 | (cp >> 12));
	o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
	o[2] = (char)(0x80 | (cp & 0x3F));
	return 3;
}

static unsigned long hex4(const char *p)
{
	unsigned long v = 0;

	for (int k = 0; k < 4; k++) {
		int ch = sd_tolower((unsigned char)p[k]);
		v = v * 16 + (unsigned long)(sd_isdigit(ch) ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : 0);
	}
	return v;
}

static char unescape1(char ch)
{
	switch (ch) {
	case 'n': return '\n';
	case 't': return '\t';
	case 'r': return '\r';
	case 'b': return '\b';
	case 'f': return '\f';
	default: return ch;
	}
}

sd_str sj_text(sd_arena *a, sd_str v)
{
	char *o;
	size_t k = 0;

	if (v.n < 2 || v.p[0] != '"')
		return v;
	v = (sd_str){ v.p + 1, v.n - 2 };
	if (!memchr(v.p, '\\', v.n))
		return v;
	if (!(o = sd_arena_alloc(a, v.n + 1)))
		return SD_NULLSTR;
	for (size_t i = 0; i < v.n; i++) {
		if (v.p[i] != '\\' || i + 1 >= v.n) {
			o[k++] = v.p[i];
		} else if (v.p[i + 1] == 'u' && i + 5 < v.n) {
			k += put_utf8(o + k, hex4(v.p + i + 2));
			i += 5;
		} else {
			o[k++] = unescape1(v.p[++i]);
		}
	}
	o[k] = 0;
	return (sd_str){ o, k };
}
