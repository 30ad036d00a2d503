/* call.c - smtpdiag_call(): one JSON request in, one JSON answer out, over the
 * public functions and their writers (explain, decode, scan). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <nettle/base64.h>

#include "smtpdiag.h"

/* One request, read. */
typedef struct call_req {
	const char *op, *mode;
	const char *in;
	size_t inlen;
	uint8_t *owned; /* decoded input_base64 */
} call_req;

static const char *short_code(int rc)
{
	switch (rc) {
	case SMTPDIAG_ENOMEM: return "nomem";
	case SMTPDIAG_ELIMIT: return "limit";
	case SMTPDIAG_EPARSE: return "parse";
	case SMTPDIAG_ENOTFOUND: return "notfound";
	case SMTPDIAG_EIO: return "io";
	case SMTPDIAG_ESTORE: return "store";
	default: return "invalid";
	}
}

/* {"error":{"code","message"}} into a fresh out; rc back. */
static int fail(smtpdiag_buf *out, int rc, const char *msg)
{
	const char *code = short_code(rc);

	smtpdiag_buf_free(out);
	smtpdiag_buf_append(out, "{\"error\":{\"code\":", 17);
	smtpdiag_buf_json(out, code, strlen(code));
	smtpdiag_buf_append(out, ",\"message\":", 11);
	msg = msg && *msg ? msg : smtpdiag_strerror(rc);
	smtpdiag_buf_json(out, msg, strlen(msg));
	smtpdiag_buf_append(out, "}}", 2);
	return rc;
}

static int b64_input(call_req *q, const char *s, size_t n, smtpdiag_error *err)
{
	struct base64_decode_ctx ctx;
	size_t dlen = BASE64_DECODE_LENGTH(n);

	if (!(q->owned = malloc(dlen ? dlen : 1)))
		return SMTPDIAG_ENOMEM;
	base64_decode_init(&ctx);
	if (!base64_decode_update(&ctx, &dlen, q->owned, n, s) || !base64_decode_final(&ctx)) {
		snprintf(err->message, sizeof(err->message), "input_base64 is not valid base64");
		return SMTPDIAG_EPARSE;
	}
	q->in = (const char *)q->owned;
	q->inlen = dlen;
	return 0;
}

/* Read the request's members into q. */
static int read_req(json_t *root, call_req *q, smtpdiag_error *err)
{
	const char *key;
	json_t *v, *in = NULL, *b64 = NULL;

	json_object_foreach(root, key, v) {
		json_t **slot = !strcmp(key, "input") ? &in : !strcmp(key, "input_base64") ? &b64 : NULL;
		if (strcmp(key, "op") && strcmp(key, "mode") && !slot) {
			snprintf(err->message, sizeof(err->message), "unknown member \"%.200s\" (op, input, input_base64, mode)", key);
			return SMTPDIAG_EINVAL;
		}
		if (!json_is_string(v)) {
			snprintf(err->message, sizeof(err->message), "member \"%s\" must be a string", key);
			return SMTPDIAG_EINVAL;
		}
		if (slot)
			*slot = v;
		else if (!strcmp(key, "op"))
			q->op = json_string_value(v);
		else
			q->mode = json_string_value(v);
	}
	if (!q->op) {
		snprintf(err->message, sizeof(err->message), "no \"op\" (explain, decode, scan or version)");
		return SMTPDIAG_EINVAL;
	}
	if (strcmp(q->op, "explain") && strcmp(q->op, "decode") && strcmp(q->op, "scan") && strcmp(q->op, "version")) {
		snprintf(err->message, sizeof(err->message), "unknown op \"%.200s\" (explain, decode, scan or version)", q->op);
		return SMTPDIAG_EINVAL;
	}
	if (q->mode && strcmp(q->mode, "default") && strcmp(q->mode, "sisimai")) {
		snprintf(err->message, sizeof(err->message), "unknown mode \"%.200s\" (default or sisimai)", q->mode);
		return SMTPDIAG_EINVAL;
	}
	if (!strcmp(q->op, "version")) {
		if (in || b64) {
			snprintf(err->message, sizeof(err->message), "op \"version\" takes no input");
			return SMTPDIAG_EINVAL;
		}
		return 0;
	}
	if (!in == !b64) {
		snprintf(err->message, sizeof(err->message), "give exactly one of \"input\" and \"input_base64\"");
		return SMTPDIAG_EINVAL;
	}
	if (in) {
		q->in = json_string_value(in);
		q->inlen = json_string_length(in);
	} else {
		int rc = b64_input(q, json_string_value(b64), json_string_length(b64), err);
		if (rc < 0)
			return rc;
	}
	if (q->inlen > SMTPDIAG_MAX_MESSAGE) {
		snprintf(err->message, sizeof(err->message), "input over %u bytes", SMTPDIAG_MAX_MESSAGE);
		return SMTPDIAG_ELIMIT;
	}
	return 0;
}

static int do_explain(const call_req *q, smtpdiag_buf *out, smtpdiag_error *err)
{
	smtpdiag_explanation *e = NULL;
	smtpdiag_error err2 = { 0, "" };
	int rc = smtpdiag_explain(q->in, q->inlen, SMTPDIAG_EXPLAIN_AUTO, &e, err);

	if (rc == SMTPDIAG_EINVAL || rc == SMTPDIAG_ENOTFOUND) { /* not a code or a reply: a pasted bounce? */
		int rc2 = smtpdiag_explain(q->in, q->inlen, SMTPDIAG_EXPLAIN_FILE, &e, &err2);
		if (rc2 >= 0 || rc2 == SMTPDIAG_ENOMEM) {
			rc = rc2;
			*err = err2;
		}
	}
	if (rc < 0)
		return rc;
	smtpdiag_explanation_json(e, out);
	smtpdiag_explanation_free(e);
	return 0;
}

/* The decode answer being written. */
typedef struct dec_st {
	smtpdiag_buf res, errs;
	smtpdiag_decode_counts c;
} dec_st;

static void add_error(smtpdiag_buf *errs, size_t nth, const char *origin, const char *msg)
{
	smtpdiag_buf_append(errs, nth ? ",\n{\"origin\":" : "\n{\"origin\":", nth ? 12 : 11);
	smtpdiag_buf_json(errs, origin, strlen(origin));
	smtpdiag_buf_append(errs, ",\"error\":", 9);
	smtpdiag_buf_json(errs, msg, strlen(msg));
	smtpdiag_buf_append(errs, "}", 1);
}

static void add_fact(dec_st *st, const smtpdiag_fact *f)
{
	int first = st->c.results++ == 0;

	smtpdiag_buf_append(&st->res, first ? "\n" : ",\n", first ? 1 : 2);
	smtpdiag_fact_json(f, &st->res);
}

static void on_event(void *arg, const smtpdiag_fact *f, const smtpdiag_error *e)
{
	dec_st *st = arg;

	if (f)
		add_fact(st, f);
	else if (e)
		add_error(&st->errs, st->c.errors++, "input", e->message);
}

/* ESP events: their facts and errors in the decode answer, events counted as messages. */
static int decode_events(smtpdiag_decoder *d, const call_req *q, smtpdiag_buf *out, smtpdiag_error *err)
{
	smtpdiag_event_counts ec = { 0, 0, 0, 0, 0 };
	dec_st st;
	int k, rc;

	memset(&st, 0, sizeof(st));
	k = smtpdiag_decode_events(d, q->in, q->inlen, "input", NULL, on_event, &st, &ec, err);
	if (k < 0 && k != SMTPDIAG_ENOMEM && !ec.events)
		add_error(&st.errs, st.c.errors++, "input", err->message[0] ? err->message : smtpdiag_strerror(k));
	rc = k == SMTPDIAG_ENOMEM || st.res.oom || st.errs.oom ? SMTPDIAG_ENOMEM : 0;
	st.c.messages = ec.events > st.c.errors ? ec.events : st.c.errors;
	st.c.bounces = ec.decided;
	st.c.not_bounces = ec.ignored;
	st.c.errors = st.c.messages - ec.decided - ec.ignored;
	if (rc == 0)
		smtpdiag_decode_answer_json(st.res.data, st.res.len, st.errs.data, st.errs.len, &st.c, out);
	smtpdiag_buf_free(&st.res);
	smtpdiag_buf_free(&st.errs);
	return rc;
}

static int do_decode(const call_req *q, smtpdiag_buf *out, smtpdiag_error *err)
{
	unsigned flags = q->mode && !strcmp(q->mode, "sisimai") ? SMTPDIAG_DECODE_REASONS_SISIMAI : 0;
	smtpdiag_decoder *d = smtpdiag_decoder_new(flags);
	int rc;

	if (!d) {
		snprintf(err->message, sizeof(err->message), "cannot create a decoder");
		return SMTPDIAG_ENOMEM;
	}
	if (smtpdiag_events_detect(q->in, q->inlen))
		rc = decode_events(d, q, out, err);
	else /* an email or an mbox; unreadable messages are error records of the answer */
		rc = smtpdiag_decode_answer(d, q->in, q->inlen, "input", NULL, NULL, NULL, out, err) == SMTPDIAG_ENOMEM
			     ? SMTPDIAG_ENOMEM : 0;
	smtpdiag_decoder_free(d);
	return rc;
}

static int do_scan(const call_req *q, smtpdiag_buf *out, smtpdiag_error *err)
{
	smtpdiag_scanner *s = smtpdiag_scanner_new(0);
	smtpdiag_buf res = { 0 }, errs = { 0 };
	size_t lines = 0, records = 0, other = 0, errors = 0, results = 0, at = 0;
	char origin[32];

	if (!s) {
		snprintf(err->message, sizeof(err->message), "cannot create a scanner");
		return SMTPDIAG_ENOMEM;
	}
	while (at < q->inlen) {
		const char *p = q->in + at, *nl = memchr(p, '\n', q->inlen - at);
		size_t n = nl ? (size_t)(nl - p) : q->inlen - at;
		int k;

		at += n + (nl != NULL);
		lines++;
		k = smtpdiag_scan_line(s, p, n);
		if (k < 0) {
			snprintf(origin, sizeof(origin), "line %zu", lines);
			add_error(&errs, errors++, origin, k == SMTPDIAG_ELIMIT ? "line over the length limit"
						     : smtpdiag_strerror(k));
			continue;
		}
		if (!k) {
			other++;
			continue;
		}
		records++;
		for (int i = 0; i < k; i++) {
			smtpdiag_buf_append(&res, results ? ",\n" : "\n", results ? 2 : 1);
			results++;
			smtpdiag_logrec_json(smtpdiag_scanner_rec(s, (size_t)i), &res);
		}
	}
	smtpdiag_scanner_free(s);
	if (!res.oom && !errs.oom) {
		smtpdiag_buf_append(out, "{\"results\":[", 12);
		smtpdiag_buf_append(out, res.data, res.len);
		smtpdiag_buf_printf(out, "%s],\n\"counts\":{\"lines\":%zu,\"records\":%zu,\"not_records\":%zu,"
				    "\"errors\":%zu,\"results\":%zu},\n\"errors\":[", res.len ? "\n" : "", lines,
				    records, other, errors, results);
		smtpdiag_buf_append(out, errs.data, errs.len);
		smtpdiag_buf_append(out, errs.len ? "\n]}" : "]}", errs.len ? 3 : 2);
	}
	smtpdiag_buf_free(&res);
	smtpdiag_buf_free(&errs);
	return out->oom ? SMTPDIAG_ENOMEM : 0;
}

int smtpdiag_call(const char *request, size_t len, char **answer, size_t *answer_len)
{
	smtpdiag_error err = { 0, "" };
	smtpdiag_buf out = { 0 };
	call_req q = { 0 };
	json_error_t jerr;
	json_t *root = NULL;
	int rc;

	if (!answer || !answer_len)
		return SMTPDIAG_EINVAL;
	*answer = NULL;
	*answer_len = 0;
	if (!request && len)
		rc = fail(&out, SMTPDIAG_EINVAL, "no request");
	else if (len > SMTPDIAG_CALL_MAX_REQUEST) {
		snprintf(err.message, sizeof(err.message), "request over %u bytes", SMTPDIAG_CALL_MAX_REQUEST);
		rc = fail(&out, SMTPDIAG_ELIMIT, err.message);
	} else if (!(root = json_loadb(request ? request : "", len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr))) {
		snprintf(err.message, sizeof(err.message), "request is not JSON: line %d, column %d: %s", jerr.line,
			 jerr.column, jerr.text);
		rc = fail(&out, SMTPDIAG_EPARSE, err.message);
	} else if (!json_is_object(root)) {
		rc = fail(&out, SMTPDIAG_EPARSE, "request is not a JSON object");
	} else if ((rc = read_req(root, &q, &err)) < 0) {
		rc = fail(&out, rc, err.message);
	} else {
		if (!strcmp(q.op, "version")) {
			smtpdiag_buf_printf(&out, "{\"version\":\"%s\",\"license\":\"BSD-2-Clause\"}", smtpdiag_version());
			rc = 0;
		} else if (!strcmp(q.op, "explain"))
			rc = do_explain(&q, &out, &err);
		else if (!strcmp(q.op, "decode"))
			rc = do_decode(&q, &out, &err);
		else
			rc = do_scan(&q, &out, &err);
		if (rc == 0 && out.oom)
			rc = SMTPDIAG_ENOMEM;
		if (rc < 0)
			rc = fail(&out, rc, err.message);
	}
	json_decref(root);
	free(q.owned);
	if (out.oom || !out.len) {
		smtpdiag_buf_free(&out);
		return rc < 0 ? rc : SMTPDIAG_ENOMEM;
	}
	*answer = out.data;
	*answer_len = out.len;
	return rc;
}

void smtpdiag_call_free(char *answer)
{
	free(answer);
}
