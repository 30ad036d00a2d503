/* fuzz_storejson.c - the store's JSON Lines reader without a document
 * (store/jline.c) on arbitrary bytes, against jansson: whenever the fast
 * reader answers, jansson must give the same record; a difference aborts. */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"

#define FUZZ_MAX_LINE 65536

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same(const st_rec *a, const st_rec *b)
{
	const char *x[] = { a->key, a->recipient, a->domain, a->addresser, a->senderdomain, a->reason,
			    a->status, a->replycode, a->action, a->advice, a->origin, a->ip, a->diag };
	const char *y[] = { b->key, b->recipient, b->domain, b->addresser, b->senderdomain, b->reason,
			    b->status, b->replycode, b->action, b->advice, b->origin, b->ip, b->diag };

	for (size_t i = 0; i < sizeof(x) / sizeof(x[0]); i++)
		if (strcmp(x[i], y[i]))
			return 0;
	return a->ts == b->ts && a->hardbounce == b->hardbounce && a->retry == b->retry && a->kind == b->kind;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char scratch[ST_JLINE_SCRATCH(FUZZ_MAX_LINE)];
	static st_rec fast, slow;
	smtpdiag_error e1 = { 0, "" }, e2 = { 0, "" };
	void *h1, *h2;
	int r1, r2;

	if (size > FUZZ_MAX_LINE)
		return 0;
	r1 = st_rec_json(&fast, (const char *)data, size, scratch, &h1, &e1);
	r2 = st_rec_json(&slow, (const char *)data, size, NULL, &h2, &e2);
	if (r1 != r2 || (r1 == 0 && !same(&fast, &slow)) || (r1 < 0 && strcmp(e1.message, e2.message)))
		abort();
	st_rec_release(h1);
	st_rec_release(h2);
	return 0;
}
