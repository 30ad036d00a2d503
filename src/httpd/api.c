/* api.c - the JSON API: /api/v1/explain, /api/v1/decode, /api/v1/codes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "httpd_int.h"

#define API_MAX_Q 4096 /* bytes of ?q= (a code, a pair or a few reply lines) */

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
	smtpdiag_explanation_json(e, &b);
	smtpdiag_explanation_free(e);
	hb_put(&b, "\n", 1);
	if (!key)
		return reply_buf(r, 200, "application/json", &b);
	if (!(h = hbody_from_buf(&b, "application/json", HTTPD_PAGE_CACHE, HF_GZIP_KEEP)))
		return reply_error(r, 503, "out of memory");
	return cache_put_reply(r, key, 200, h);
}

enum MHD_Result api_explain(hreq *r)
{
	const char *mode = req_arg(r, "mode");
	char key[64];
	int hit;

	if (r->method == HM_POST) {
		OFFLOAD(r); /* before the form is decoded in place */
		const char *ct = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
		char *q = r->body;
		size_t n = r->blen;
		if (ct && !strncasecmp(ct, "application/x-www-form-urlencoded", 33)) {
			size_t fl = 0;
			char *v = form_field(r->body, r->blen, "text", &fl);
			if (!v)
				v = form_field(r->body, r->blen, "q", &fl);
			if (!v)
				return reply_error(r, 400, "form body without a text= or q= field");
			q = v;
			n = fl;
		}
		if (!n)
			return reply_error(r, 400, "empty body: send a code, reply text or a bounce");
		return explain_reply(r, q, n, mode, NULL);
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

/* Decode one message into b as array elements; returns facts or a negative code. */
static int decode_one(smtpdiag_decoder *d, const char *msg, size_t len, const char *origin,
		      smtpdiag_buf *b, size_t *nout, smtpdiag_error *err)
{
	int n = smtpdiag_decode(d, msg, len, origin, err);

	for (int i = 0; i < n; i++) {
		hb_puts(b, (*nout)++ ? ",\n" : "\n");
		smtpdiag_fact_json(smtpdiag_decoder_fact(d, (size_t)i), b);
	}
	return n;
}

static unsigned decode_flags(hreq *r)
{
	const char *dv = req_arg(r, "delivered"), *va = req_arg(r, "vacation");
	const char *dl = req_arg(r, "delayed");
	unsigned f = 0;

	if (dv && strcmp(dv, "0") && strcmp(dv, "false"))
		f |= SMTPDIAG_DECODE_DELIVERED;
	if (va && strcmp(va, "0") && strcmp(va, "false"))
		f |= SMTPDIAG_DECODE_VACATION;
	if (dl && (!strcmp(dl, "0") || !strcmp(dl, "false")))
		f |= SMTPDIAG_DECODE_NO_DELAYED;
	return f;
}

enum MHD_Result api_decode(hreq *r)
{
	smtpdiag_decoder *d;
	smtpdiag_error err = { 0, "" };
	smtpdiag_buf b = { 0 };
	size_t nfacts = 0, pos = 0, mlen;
	const char *m;
	int rc = 0, bad = 0, msgs = 0;
	char origin[32];

	OFFLOAD(r);
	d = thread_decoder(decode_flags(r));
	if (!d)
		return reply_error(r, 503, "cannot create a decoder");
	if (!r->blen)
		return reply_error(r, 400, "empty body: send a raw email or an mbox");
	hb_put(&b, "[", 1);
	if (!smtpdiag_mbox_detect(r->body, r->blen)) {
		rc = decode_one(d, r->body, r->blen, "body", &b, &nfacts, &err);
		bad = rc < 0;
		msgs = 1;
	} else {
		while (smtpdiag_mbox_next(r->body, r->blen, &pos, &m, &mlen)) {
			snprintf(origin, sizeof(origin), "body:%d", ++msgs);
			if ((rc = decode_one(d, m, mlen, origin, &b, &nfacts, &err)) < 0)
				bad++; /* in an mbox, a message that cannot be read is skipped */
		}
	}
	if (bad && bad == msgs) {
		smtpdiag_buf_free(&b);
		return reply_error(r, status_of(rc), err.message[0] ? err.message : smtpdiag_strerror(rc));
	}
	hb_puts(&b, nfacts ? "\n]\n" : "]\n");
	return reply_buf(r, 200, "application/json", &b);
}
