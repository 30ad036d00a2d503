/* formats.h - the prototypes of every format module (listed in formats.def).
 *
 * Modules may call each other (a provider's module hands a standard report to
 * the RFC 3464 reader); the decoder calls them in formats.def order. */
#ifndef SD_FORMATS_H
#define SD_FORMATS_H

#include "bounce/ctx.h"

#define SD_FORMAT(name) int sd_fmt_##name(sd_ctx *c);
#include "decode/formats/formats.def"
#undef SD_FORMAT

/* generic.c: sent by a mailer daemon or postmaster, or with a null Return-Path? */
int sd_generic_daemon_sender(const sd_ctx *c);

#endif
