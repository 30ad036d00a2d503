/* input.h - walk decode inputs: files, directories, Maildirs, mboxes, stdin. */
#ifndef SMTPDIAG_INPUT_H
#define SMTPDIAG_INPUT_H

#include <stddef.h>

/* Called once per message found. origin is "path" or "path:N" for mbox messages. */
typedef void (*input_msg_fn)(void *ctx, const char *origin, const char *msg, size_t len);
/* Called once per input that could not be read as a message. */
typedef void (*input_err_fn)(void *ctx, const char *origin, const char *why);

typedef struct input_walker {
	input_msg_fn on_msg;
	input_err_fn on_err;
	void *ctx;
} input_walker;

/* Walk one argument (path or "-"). */
void input_walk(const input_walker *w, const char *path);

#endif
