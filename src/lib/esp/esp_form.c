/* esp_form.c - application/x-www-form-urlencoded webhook posts (Mandrill's
 * mandrill_events field, Mailgun's legacy webhooks) as a JSON object. */
#include "esp/esp.h"

#include <stdlib.h>
#include <string.h>

static int is_name_byte(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.' || c == '%' || c == '[' || c == ']';
}

int sd_esp_form_detect(const char *p, size_t n)
{
	size_t i = 0;

	while (i < n && is_name_byte((unsigned char)p[i]))
		i++;
	if (i == 0 || i >= n || p[i] != '=')
		return 0;
	/* one line of fields (a final line end allowed) */
	for (size_t k = i; k < n; k++)
		if (p[k] == '\n' || p[k] == '\r')
			return k + 2 >= n;
	return 1;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Percent-decode p[0..n) into d (at least n bytes); returns the length. */
static size_t url_decode(const char *p, size_t n, char *d)
{
	size_t w = 0;

	for (size_t i = 0; i < n; i++) {
		int hi, lo;
		if (p[i] == '+') {
			d[w++] = ' ';
		} else if (p[i] == '%' && i + 2 < n && (hi = hexval((unsigned char)p[i + 1])) >= 0 &&
			   (lo = hexval((unsigned char)p[i + 2])) >= 0) {
			d[w++] = (char)(hi * 16 + lo);
			i += 2;
		} else {
			d[w++] = p[i];
		}
	}
	return w;
}

static void add_field(json_t *o, const char *p, size_t n, char *buf)
{
	const char *eq = memchr(p, '=', n);
	size_t kn, vn;
	json_t *v;

	if (!eq || eq == p)
		return;
	kn = url_decode(p, (size_t)(eq - p), buf);
	buf[kn] = '\0';
	vn = url_decode(eq + 1, n - (size_t)(eq + 1 - p), buf + kn + 1);
	v = json_stringn_nocheck(buf + kn + 1, vn);
	if (v && !json_object_get(o, buf))
		json_object_set_new_nocheck(o, buf, v);
	else
		json_decref(v);
}

json_t *sd_esp_form_parse(const char *p, size_t n)
{
	json_t *o;
	char *buf;
	size_t i = 0;

	while (n && (p[n - 1] == '\n' || p[n - 1] == '\r'))
		n--;
	if (n > SD_ESP_MAX_FORM || !(buf = malloc(n + 2)))
		return NULL;
	o = json_object();
	while (o && i < n) {
		const char *amp = memchr(p + i, '&', n - i);
		size_t end = amp ? (size_t)(amp - p) : n;
		add_field(o, p + i, end - i, buf);
		i = end + 1;
	}
	free(buf);
	return o;
}
