/* fuzz_rules.c - the user rule parser and compiler on arbitrary bytes; a
 * set that compiles is then matched against a fixed log line and reply. */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "smtpdiag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char line[] =
	"Mar  3 09:00:02 mx1 postfix/smtp[2103]: 3F2A1B2C3D: to=<bob@example.org>, "
	"relay=mx.example.org[203.0.113.5]:25, delay=0.61, delays=0.01/0.01/0/0.6, dsn=5.1.1, "
	"status=bounced (host mx.example.org[203.0.113.5] said: 550 5.1.1 <bob@example.org>: "
	"Recipient address rejected: User unknown in virtual mailbox table (in reply to RCPT TO command))";
static const char reply[] = "452 4.2.2 <bob@example.org>: mailbox quota exceeded";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static smtpdiag_scanner *s;
	smtpdiag_rules *r = NULL;
	smtpdiag_explanation *e = NULL;

	if (!s && !(s = smtpdiag_scanner_new(SMTPDIAG_SCAN_UTC)))
		abort();
	if (smtpdiag_rules_parse((const char *)data, size, "fuzz.rules", &r, NULL) < 0)
		return 0;
	if (smtpdiag_scanner_set_rules(s, r) == 0)
		smtpdiag_scan_line(s, line, strlen(line));
	if (smtpdiag_explain_with_rules(reply, strlen(reply), SMTPDIAG_EXPLAIN_TEXT, r, &e, NULL) == 0)
		smtpdiag_explanation_free(e);
	smtpdiag_scanner_set_rules(s, NULL);
	smtpdiag_rules_free(r);
	return 0;
}
