/* hbuf.c - HTML-escaped and URL-encoded text into a smtpdiag_buf, and form fields.
 * The buffer and its raw, printf and JSON writers are the library's. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "httpd_int.h"

void hb_put(smtpdiag_buf *b, const char *p, size_t n)
{
	smtpdiag_buf_append(b, p, n);
}

void hb_puts(smtpdiag_buf *b, const char *s)
{
	if (s)
		smtpdiag_buf_append(b, s, strlen(s));
}

/* Escapes for the five characters that matter in text and quoted attributes. */
void hb_html(smtpdiag_buf *b, const char *p, size_t n)
{
	size_t run = 0;

	if (!p)
		return;
	for (size_t i = 0; i < n; i++) {
		const char *esc = NULL;
		switch (p[i]) {
		case '&': esc = "&amp;"; break;
		case '<': esc = "&lt;"; break;
		case '>': esc = "&gt;"; break;
		case '"': esc = "&quot;"; break;
		case '\'': esc = "&#39;"; break;
		case '\0': esc = "\xef\xbf\xbd"; break; /* U+FFFD */
		default: continue;
		}
		hb_put(b, p + run, i - run);
		hb_puts(b, esc);
		run = i + 1;
	}
	hb_put(b, p + run, n - run);
}

void hb_htmls(smtpdiag_buf *b, const char *s)
{
	if (s)
		hb_html(b, s, strlen(s));
}

static int unreserved(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.' || c == '_' || c == '~';
}

void hb_url(smtpdiag_buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		char e[3] = { '%', hex[c >> 4], hex[c & 15] };
		if (unreserved(c))
			hb_put(b, (const char *)&c, 1);
		else
			hb_put(b, e, 3);
	}
}

void hb_json(smtpdiag_buf *b, const char *s)
{
	smtpdiag_buf_json(b, s, s ? strlen(s) : 0);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 32;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Percent-decode p[0..n) in place ('+' is a space); returns the new length. */
static size_t form_unescape(char *p, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		int hi, lo;
		if (p[i] == '+') {
			p[o++] = ' ';
		} else if (p[i] == '%' && i + 2 < n && (hi = hexval((unsigned char)p[i + 1])) >= 0 &&
			   (lo = hexval((unsigned char)p[i + 2])) >= 0) {
			p[o++] = (char)(hi << 4 | lo);
			i += 2;
		} else {
			p[o++] = p[i];
		}
	}
	return o;
}

char *form_field(char *body, size_t len, const char *name, size_t *outlen)
{
	size_t nl = strlen(name), i = 0;

	while (i < len) {
		char *amp = memchr(body + i, '&', len - i);
		size_t end = amp ? (size_t)(amp - body) : len;
		if (end - i > nl && !memcmp(body + i, name, nl) && body[i + nl] == '=') {
			char *v = body + i + nl + 1;
			*outlen = form_unescape(v, end - i - nl - 1);
			v[*outlen] = '\0';
			return v;
		}
		if (end - i == nl && !memcmp(body + i, name, nl)) {
			*outlen = 0;
			body[i] = '\0';
			return body + i;
		}
		i = end + 1;
	}
	return NULL;
}
