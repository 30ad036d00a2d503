/* api.c - the JSON API: /api/v1/explain, /api/v1/decode, /api/v1/codes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "httpd_int.h"

#define API_MAX_Q 4096 /* bytes of ?q= (a code, a pair or a few reply lines) */
#define REF_URL_MAX 160 /* bytes of a reference's link */

/* "RFC 5321 section 4.2.3" -> https://www.rfc-editor.org/rfc/rfc5321#section-4.2.3;
 * a reference that is itself a link stays one. 0 when it has none. */
int ref_url(const char *ref, char *out, size_t cap)
{
	unsigned long num;
	const char *sec;
	char *end;
	size_t n;

	if (!strncmp(ref, "https://", 8) && !strpbrk(ref, " \"<>")) {
		snprintf(out, cap, "%s", ref);
		return 1;
	}
	if (strncmp(ref, "RFC ", 4) || (num = strtoul(ref + 4, &end, 10)) == 0 || num > 99999)
		return 0;
	sec = strstr(ref, " section ");
	n = sec ? strspn(sec + 9, "0123456789.") : 0;
	while (n && sec[8 + n] == '.')
		n--;
	snprintf(out, cap, "https://www.rfc-editor.org/rfc/rfc%lu%s%.*s", num, n ? "#section-" : "", (int)n, n ? sec + 9 : "");
	return 1;
}

/* The explanation's JSON with "reference_links": [{"text", "url"}] added. */
static void explanation_json(const smtpdiag_explanation *e, smtpdiag_buf *b)
{
	char url[REF_URL_MAX];
	int first = 1;

	smtpdiag_explanation_json(e, b);
	if (b->oom || !b->len || b->data[b->len - 1] != '}')
		return;
	b->len--; /* reopen the object */
	hb_puts(b, ",\"reference_links\":[");
	for (size_t i = 0; e->references && e->references[i]; i++) {
		if (!ref_url(e->references[i], url, sizeof(url)))
			continue;
		hb_puts(b, first ? "{\"text\":" : ",{\"text\":");
		hb_json(b, e->references[i]);
		hb_puts(b, ",\"url\":");
		hb_json(b, url);
		hb_puts(b, "}");
		first = 0;
	}
	hb_puts(b, "]}");
}

int status_of(int rc)
{
	switch (rc) {
	case SMTPDIAG_ELIMIT: return 413;
	case SMTPDIAG_ENOMEM: return 503;
	case SMTPDIAG_EIO: return 500;
	default: return 400;
	}
}

/* Short and made only of code characters: an error in code mode is the one to show. */
static int looks_like_code(const char *q, size_t n)
{
	if (n > 24)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!strchr("0123456789.Xx -", q[i]))
			return 0;
	return 1;
}

int explain_query(const char *q, size_t n, const char *mode, smtpdiag_explanation **e,
		  smtpdiag_error *err)
{
	smtpdiag_error err2 = { 0, "" };
	int rc;

	if (mode && !strcmp(mode, "code"))
		return smtpdiag_explain_with_rules(q, n, SMTPDIAG_EXPLAIN_CODE, serve_rules(), e, err);
	if (mode && !strcmp(mode, "text"))
		return smtpdiag_explain_with_rules(q, n, SMTPDIAG_EXPLAIN_TEXT, serve_rules(), e, err);
	if (mode && !strcmp(mode, "file"))
		return smtpdiag_explain_with_rules(q, n, SMTPDIAG_EXPLAIN_FILE, serve_rules(), e, err);
	if (mode && *mode && strcmp(mode, "auto")) {
		snprintf(err->message, sizeof(err->message), "mode must be auto, code, text or file");
		return SMTPDIAG_EINVAL;
	}
	rc = smtpdiag_explain_with_rules(q, n, SMTPDIAG_EXPLAIN_CODE, serve_rules(), e, err);
	if (rc != SMTPDIAG_EINVAL || looks_like_code(q, n))
		return rc;
	rc = smtpdiag_explain_with_rules(q, n, SMTPDIAG_EXPLAIN_FILE, serve_rules(), e, &err2);
	if (rc < 0)
		*err = err2;
	return rc;
}

static enum MHD_Result explain_reply(hreq *r, const char *q, size_t n, const char *mode, const char *key)
{
	smtpdiag_explanation *e;
	smtpdiag_error err = { 0, "" };
	smtpdiag_buf b = { 0 };
	hbody *h;
	int rc;

	OFFLOAD(r);
	rc = explain_query(q, n, mode, &e, &err);

	if (rc < 0)
		return reply_error(r, status_of(rc), err.message[0] ? err.message : smtpdiag_strerror(rc));
	explanation_json(e, &b);
	if (e->bounce)
		metrics_verdict(e->reason, e->advice);
	smtpdiag_explanation_free(e);
	hb_put(&b, "\n", 1);
	if (!key)
		return reply_buf(r, 200, "application/json", &b);
	if (!(h = hbody_from_buf(&b, "application/json", HTTPD_PAGE_CACHE, HF_GZIP_KEEP)))
		return reply_error(r, 503, "out of memory");
	return cache_put_reply(r, key, 200, h);
}

static int is_type(hreq *r, const char *type)
{
	const char *ct = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
	size_t n = strlen(type);

	return ct && !strncasecmp(ct, type, n) && (!ct[n] || ct[n] == ';' || ct[n] == ' ');
}

/* {"q": "..."} or {"text": "..."}, and "mode" if given. */
static enum MHD_Result explain_json_body(hreq *r, const char *mode)
{
	json_error_t jerr;
	json_t *root = json_loadb(r->body, r->blen, 0, &jerr), *v, *m;
	enum MHD_Result ret;

	if (!root || !json_is_object(root)) {
		json_decref(root);
		return reply_error(r, 400, "send a JSON object: {\"q\": \"552 4.3.1\"} or {\"text\": \"...\"}");
	}
	if (!json_is_string(v = json_object_get(root, "q")) && !json_is_string(v = json_object_get(root, "text"))) {
		json_decref(root);
		return reply_error(r, 400, "the JSON object has no \"q\" or \"text\" string");
	}
	if (json_is_string(m = json_object_get(root, "mode")))
		mode = json_string_value(m);
	ret = json_string_length(v) ? explain_reply(r, json_string_value(v), json_string_length(v), mode, NULL)
				    : reply_error(r, 400, "empty \"q\": send a code, reply text or a bounce");
	json_decref(root);
	return ret;
}

/* A body: text, JSON, or a form (a text= or q= field, else the whole body,
 * as `curl -d '550 5.1.1 ...'` sends it). */
static enum MHD_Result explain_post(hreq *r, const char *mode)
{
	char *q = r->body;
	size_t n = r->blen, fl = 0;

	if (is_type(r, "application/json"))
		return explain_json_body(r, mode);
	if (is_type(r, "application/x-www-form-urlencoded")) {
		char *v = form_field(r->body, r->blen, "text", &fl);
		if (!v)
			v = form_field(r->body, r->blen, "q", &fl);
		if (v) {
			q = v;
			n = fl;
		}
	}
	if (!n)
		return reply_error(r, 400, "empty body: send a code, reply text or a bounce");
	return explain_reply(r, q, n, mode, NULL);
}

enum MHD_Result api_explain(hreq *r)
{
	const char *mode = req_arg(r, "mode");
	char key[64];
	int hit;

	if (r->method == HM_POST) {
		OFFLOAD(r); /* before the form is decoded in place */
		return explain_post(r, mode);
	}
	const char *q = req_arg(r, "q");
	if (!q || !*q)
		return reply_error(r, 400, "missing query: /api/v1/explain?q=552%204.3.1");
	if (strlen(q) > API_MAX_Q)
		return reply_error(r, 413, "query over 4096 bytes: POST longer text as the body");
	/* short queries are cached; a key is never cut (two queries must not share one) */
	if ((size_t)snprintf(key, sizeof(key), "a:%s:%s", mode ? mode : "", q) >= sizeof(key))
		return explain_reply(r, q, strlen(q), mode, NULL);
	if ((hit = cache_reply(r, key)) != 0)
		return hit > 0 ? MHD_YES : MHD_NO;
	return explain_reply(r, q, strlen(q), mode, key);
}

/* Each fact of a decode answer, counted by reason and advice. */
static void decode_metric(void *arg, const smtpdiag_fact *f, const smtpdiag_error *e)
{
	(void)arg;
	(void)e;
	if (f)
		metrics_verdict(f->reason, f->advice);
}

static unsigned decode_flags(hreq *r)
{
	const char *dv = req_arg(r, "delivered"), *va = req_arg(r, "vacation");
	const char *dl = req_arg(r, "delayed"), *rs = req_arg(r, "reasons");
	unsigned f = 0;

	if (dv && strcmp(dv, "0") && strcmp(dv, "false"))
		f |= SMTPDIAG_DECODE_DELIVERED;
	if (va && strcmp(va, "0") && strcmp(va, "false"))
		f |= SMTPDIAG_DECODE_VACATION;
	if (dl && (!strcmp(dl, "0") || !strcmp(dl, "false")))
		f |= SMTPDIAG_DECODE_NO_DELAYED;
	if (rs && !strcmp(rs, "sisimai")) /* the reference decoder's readings (docs/reasons.md) */
		f |= SMTPDIAG_DECODE_REASONS_SISIMAI;
	return f;
}

/* {"results": [...], "counts": {...}, "errors": [...]} (smtpdiag_decode_answer):
 * messages = bounces + not_bounces + errors; results = the facts. A body of
 * which no message could be read is an error reply. */
enum MHD_Result api_decode(hreq *r)
{
	smtpdiag_decoder *d;
	smtpdiag_error err = { 0, "" };
	smtpdiag_decode_counts c = { 0, 0, 0, 0, 0 };
	smtpdiag_buf b = { 0 };
	int rc;

	OFFLOAD(r);
	d = thread_decoder(decode_flags(r));
	if (!d)
		return reply_error(r, 503, "cannot create a decoder");
	if (!r->blen)
		return reply_error(r, 400, "empty body: send a raw email or an mbox");
	rc = smtpdiag_decode_answer(d, r->body, r->blen, "body", decode_metric, NULL, &c, &b, &err);
	metrics_decode_errors(c.errors);
	if (rc == SMTPDIAG_ENOMEM)
		b.oom = 1;
	else if (rc < 0) {
		smtpdiag_buf_free(&b);
		return reply_error(r, status_of(rc), err.message[0] ? err.message : smtpdiag_strerror(rc));
	}
	hb_puts(&b, "\n");
	return reply_buf(r, 200, "application/json", &b);
}
