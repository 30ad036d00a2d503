/* answer.c - the answer to "decode this": one email or an mbox, every message
 * a result or an error record, counts that add up, in one envelope (the HTTP
 * API's /api/v1/decode and smtpdiag_call() give it the same). */
#include <stdio.h>
#include <string.h>

#include "smtpdiag.h"

void smtpdiag_decode_answer_json(const char *results, size_t rlen, const char *errors, size_t elen,
				 const smtpdiag_decode_counts *c, smtpdiag_buf *out)
{
	if (!out || !c || (!results && rlen) || (!errors && elen))
		return;
	smtpdiag_buf_append(out, "{\"results\":[", 12);
	smtpdiag_buf_append(out, results, rlen);
	smtpdiag_buf_printf(out, "%s],\n\"counts\":{\"messages\":%zu,\"bounces\":%zu,\"not_bounces\":%zu,"
			    "\"errors\":%zu,\"results\":%zu},\n\"errors\":[", rlen ? "\n" : "", c->messages,
			    c->bounces, c->not_bounces, c->errors, c->results);
	smtpdiag_buf_append(out, errors, elen);
	smtpdiag_buf_append(out, elen ? "\n]}" : "]}", elen ? 3 : 2);
}

typedef struct answer_st {
	smtpdiag_buf res, errs;
	smtpdiag_decode_counts c;
} answer_st;

/* One message: its facts, or its error record (over the recipient limit: both). */
static int answer_one(smtpdiag_decoder *d, const char *m, size_t n, const char *origin, smtpdiag_event_fn fn,
		      void *arg, answer_st *st, smtpdiag_error *err)
{
	int k = smtpdiag_decode(d, m, n, origin, err);

	st->c.messages++;
	if (k < 0 || err->code == SMTPDIAG_ELIMIT) {
		const char *msg = err->message[0] ? err->message : smtpdiag_strerror(k);
		int first = st->c.errors++ == 0;
		smtpdiag_buf_append(&st->errs, first ? "\n{\"origin\":" : ",\n{\"origin\":", first ? 11 : 12);
		smtpdiag_buf_json(&st->errs, origin, strlen(origin));
		smtpdiag_buf_append(&st->errs, ",\"error\":", 9);
		smtpdiag_buf_json(&st->errs, msg, strlen(msg));
		smtpdiag_buf_append(&st->errs, "}", 1);
	} else if (k)
		st->c.bounces++;
	else
		st->c.not_bounces++;
	for (int i = 0; i < k; i++) {
		const smtpdiag_fact *f = smtpdiag_decoder_fact(d, (size_t)i);
		int first = st->c.results++ == 0;
		smtpdiag_buf_append(&st->res, first ? "\n" : ",\n", first ? 1 : 2);
		smtpdiag_fact_json(f, &st->res);
		if (fn)
			fn(arg, f, NULL);
	}
	return k < 0 ? k : err->code;
}

int smtpdiag_decode_answer(smtpdiag_decoder *d, const char *p, size_t len, const char *origin,
			   smtpdiag_event_fn fn, void *arg, smtpdiag_decode_counts *c, smtpdiag_buf *out,
			   smtpdiag_error *err)
{
	smtpdiag_error e1 = { 0, "" };
	smtpdiag_error *e = err ? err : &e1;
	answer_st st;
	int rc = 0;

	if (!d || (!p && len) || !origin || !out)
		return SMTPDIAG_EINVAL;
	memset(&st, 0, sizeof(st));
	if (!smtpdiag_mbox_detect(p, len)) {
		rc = answer_one(d, p, len, origin, fn, arg, &st, e);
	} else {
		size_t pos = 0, mlen;
		const char *m;
		char name[96];
		while (smtpdiag_mbox_next(p, len, &pos, &m, &mlen)) {
			snprintf(name, sizeof(name), "%.60s:%zu", origin, st.c.messages + 1);
			rc = answer_one(d, m, mlen, name, fn, arg, &st, e); /* one unreadable message is reported, not fatal */
		}
	}
	if (st.res.oom || st.errs.oom)
		rc = SMTPDIAG_ENOMEM;
	else {
		smtpdiag_decode_answer_json(st.res.data, st.res.len, st.errs.data, st.errs.len, &st.c, out);
		if (out->oom)
			rc = SMTPDIAG_ENOMEM;
		else if (!(st.c.errors && st.c.errors == st.c.messages && !st.c.results))
			rc = 0; /* something was read */
		else if (rc >= 0)
			rc = SMTPDIAG_ELIMIT; /* only the recipient limit, with no fact */
	}
	if (c)
		*c = st.c;
	smtpdiag_buf_free(&st.res);
	smtpdiag_buf_free(&st.errs);
	return rc;
}
