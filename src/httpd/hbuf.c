/* hbuf.c - appending to smtpdiag_buf: raw, HTML-escaped, URL-encoded, JSON; form fields.
 * Same layout as the library's writers (realloc'ed, NUL-terminated, sticky oom),
 * so the library's JSON and ours can share one buffer. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "httpd_int.h"

static int reserve(smtpdiag_buf *b, size_t extra)
{
	size_t need, ncap;
	char *p;

	if (b->oom)
		return -1;
	if (extra > SIZE_MAX / 4 - b->len)
		goto fail;
	need = b->len + extra + 1;
	if (need <= b->cap)
		return 0;
	ncap = b->cap ? b->cap : 1024;
	while (ncap < need)
		ncap *= 2;
	p = realloc(b->data, ncap);
	if (!p)
		goto fail;
	b->data = p;
	b->cap = ncap;
	return 0;
fail:
	b->oom = 1;
	return -1;
}

void hb_put(smtpdiag_buf *b, const char *p, size_t n)
{
	if (!n || reserve(b, n) < 0)
		return;
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void hb_puts(smtpdiag_buf *b, const char *s)
{
	if (s)
		hb_put(b, s, strlen(s));
}

void hb_printf(smtpdiag_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0 || reserve(b, (size_t)n) < 0)
		return;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
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
	hb_put(b, "\"", 1);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };
			hb_put(b, e, 2);
		} else if (c < 0x20 || c == 0x7f) {
			hb_printf(b, "\\u%04x", c);
		} else {
			hb_put(b, (const char *)&c, 1);
		}
	}
	hb_put(b, "\"", 1);
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
