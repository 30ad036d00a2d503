/* hostfind.h - find the remote host an error text names. */
#ifndef SD_HOSTFIND_H
#define SD_HOSTFIND_H

#include "core/util.h"

/* The host name after "host ... said:", "while talking to ...:" and the like;
 * SD_NULLSTR when the text names none. A slice of t. */
sd_str sd_host_find(sd_str t);

#endif
