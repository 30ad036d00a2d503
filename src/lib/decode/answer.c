/* answer.c - the envelope of a decode answer: results, counts, errors (the HTTP
 * API's /api/v1/decode and smtpdiag_call() write it the same). */
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
