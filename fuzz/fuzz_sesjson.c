/* fuzz_sesjson.c - the SES notification inside a bounce email (amazonses.c,
 * read with jansson) on arbitrary bytes: each input is the JSON body of an
 * SNS notification email, so the decoder reaches the JSON reader every time,
 * then the verdicts and JSON out. */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "smtpdiag.h"

#define FUZZ_MAX_BODY (1u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char head[] = "From: AWS Notifications <no-reply@sns.amazonaws.com>\n"
			   "To: sender@example.net\n"
			   "Subject: AWS Notification Message\n"
			   "x-amz-sns-message-id: 1\n"
			   "X-SES-Outgoing: 2025.03.18-54.240.0.2\n"
			   "Content-Type: text/plain; charset=UTF-8\n\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static smtpdiag_decoder *d;
	smtpdiag_buf b = { 0 };
	char *msg;
	int n;

	if (size > FUZZ_MAX_BODY)
		return 0;
	if (!d && !(d = smtpdiag_decoder_new(SMTPDIAG_DECODE_DELIVERED)))
		abort();
	if (!(msg = malloc(sizeof(head) - 1 + size)))
		abort();
	memcpy(msg, head, sizeof(head) - 1);
	memcpy(msg + sizeof(head) - 1, data, size);
	n = smtpdiag_decode(d, msg, sizeof(head) - 1 + size, "fuzz", NULL);
	for (int i = 0; i < n; i++)
		smtpdiag_fact_json(smtpdiag_decoder_fact(d, (size_t)i), &b);
	smtpdiag_buf_free(&b);
	free(msg);
	return 0;
}
