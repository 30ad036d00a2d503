/* curl_load.h - libcurl, opened when a bounce mailbox is read or a webhook is
 * posted.
 *
 * libcurl brings OpenSSL, Kerberos, LDAP, SSH and HTTP/2 libraries with it;
 * binding them at every process start would cost every `smtpdiag explain` for
 * a transfer it never makes. So nothing links libcurl: a file that makes
 * transfers includes this header after <curl/curl.h>, and its curl_* calls go
 * through pointers that sd_curl_load() fills from the library. The pointers
 * take their types from curl.h itself, so a prototype that changes fails the
 * build. */
#ifndef SD_CURL_LOAD_H
#define SD_CURL_LOAD_H

#include <stddef.h>
#include <curl/curl.h>

/* The SONAME, read from the build machine's library by tools/sonames.sh. */
#include <sd_sonames.h> /* SD_CURL_SONAME */

/* Every libcurl function smtpdiag calls. */
#define SD_CURL_FUNCS(X)                                                                      \
	X(curl_global_init) X(curl_easy_init) X(curl_easy_setopt) X(curl_easy_perform)           \
	X(curl_easy_cleanup) X(curl_easy_getinfo) X(curl_easy_strerror) X(curl_easy_reset)       \
	X(curl_easy_send) X(curl_easy_recv) X(curl_slist_append) X(curl_slist_free_all)          \
	X(curl_free) X(curl_easy_escape) X(curl_version_info)

#define SD_CURL_DECL(f) extern __typeof__(f) *sd_curl_##f;
SD_CURL_FUNCS(SD_CURL_DECL)
#undef SD_CURL_DECL

/* Open libcurl and run curl_global_init once (thread-safe). 0, or -1 with
 * why in err. */
int sd_curl_load(char *err, size_t errlen);

#ifndef SD_CURL_LOAD_IMPL
#define curl_global_init (*sd_curl_curl_global_init)
#define curl_easy_init (*sd_curl_curl_easy_init)
#undef curl_easy_setopt /* curl.h defines these two as themselves */
#undef curl_easy_getinfo
#define curl_easy_setopt (*sd_curl_curl_easy_setopt)
#define curl_easy_perform (*sd_curl_curl_easy_perform)
#define curl_easy_cleanup (*sd_curl_curl_easy_cleanup)
#define curl_easy_getinfo (*sd_curl_curl_easy_getinfo)
#define curl_easy_strerror (*sd_curl_curl_easy_strerror)
#define curl_easy_reset (*sd_curl_curl_easy_reset)
#define curl_easy_send (*sd_curl_curl_easy_send)
#define curl_easy_recv (*sd_curl_curl_easy_recv)
#define curl_slist_append (*sd_curl_curl_slist_append)
#define curl_slist_free_all (*sd_curl_curl_slist_free_all)
#define curl_free (*sd_curl_curl_free)
#define curl_easy_escape (*sd_curl_curl_easy_escape)
#define curl_version_info (*sd_curl_curl_version_info)
#endif

#endif
