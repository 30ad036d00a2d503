/* decode_int.h - decoder internals shared inside the library. */
#ifndef SD_DECODE_INT_H
#define SD_DECODE_INT_H

#include "smtpdiag.h"
#include "core/util.h"
#include "verdict/classify.h"
#include "verdict/userrules.h"
#include "verdict/engine.h"

struct smtpdiag_decoder {
	unsigned flags;
	sd_arena arena;
	sd_classifier *cls;
	sd_urun *user;          /* the user's rules and this decoder's scratch, or NULL */
	smtpdiag_fact *facts;
	size_t nfacts;
	int keep_verdicts;      /* 1: verdicts[i] is the engine's verdict of facts[i] */
	sd_verdict *verdicts;
};

/* Decode text that may be a whole email with a per-thread decoder asking rules
 * (NULL: none) first, and return the fact that matters most (the first
 * failure) and the engine's verdict of it, the very one decode copied out.
 * Returns the fact count (0 when the text is no bounce). *f and *v stay valid
 * until sd_decode_peek_done(). */
int sd_decode_peek(const char *p, size_t n, const smtpdiag_rules *rules, const smtpdiag_fact **f,
		   const sd_verdict **v);
void sd_decode_peek_done(void);

#endif
