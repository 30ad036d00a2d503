/* input.h - walk decode inputs: files, directories, Maildirs, mboxes, stdin. */
#ifndef SMTPDIAG_INPUT_H
#define SMTPDIAG_INPUT_H

#include <stddef.h>

/* Called once per message found. origin is "path" or "path:N" for mbox messages. */
typedef void (*input_msg_fn)(void *ctx, const char *origin, const char *msg, size_t len);
/* Called once per input that could not be read as a message. */
typedef void (*input_err_fn)(void *ctx, const char *origin, const char *why);

/* Called once per input of JSON (it starts with '{' or '['), when set: src
 * gives its bytes through input_src_read(), a piece at a time, so that a
 * large file of events is never held whole. */
typedef void (*input_stream_fn)(void *ctx, const char *origin, void *src);

typedef struct input_walker {
	input_msg_fn on_msg;
	input_err_fn on_err;
	void *ctx;
	input_stream_fn on_stream; /* NULL: JSON inputs are read whole, like any other */
} input_walker;

/* The next bytes of a JSON input (a smtpdiag_read_fn): up to cap into buf,
 * 0 at its end, -1 on a read error or when the file shrank while being read. */
long input_src_read(void *src, char *buf, size_t cap);
/* Why input_src_read() returned -1. */
const char *input_src_error(const void *src);

/* Walk one argument (path or "-"). */
void input_walk(const input_walker *w, const char *path);

#endif
