/* curl_load.c - libcurl opened at run time (see curl_load.h). */
#define SD_CURL_LOAD_IMPL
#include "curl_load.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#define SD_CURL_DEF(f) __typeof__(f) *sd_curl_##f;
SD_CURL_FUNCS(SD_CURL_DEF)
#undef SD_CURL_DEF

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static char curl_err[256];
static int curl_ok;

static void curl_open(void)
{
	void *lib = dlopen(SD_CURL_SONAME, RTLD_NOW | RTLD_LOCAL);
	CURLcode rc;

	if (!lib) {
		snprintf(curl_err, sizeof(curl_err), "cannot open %s (install libcurl4): %s", SD_CURL_SONAME,
			 dlerror());
		return;
	}
#define SD_CURL_SYM(f)                                                                        \
	if (!(*(void **)&sd_curl_##f = dlsym(lib, #f))) {                                     \
		snprintf(curl_err, sizeof(curl_err), "%s lacks %s", SD_CURL_SONAME, #f);      \
		return;                                                                       \
	}
	SD_CURL_FUNCS(SD_CURL_SYM)
#undef SD_CURL_SYM
	/* once, before any thread makes a transfer: curl_global_init is not thread-safe */
	if ((rc = sd_curl_curl_global_init(CURL_GLOBAL_DEFAULT)) != CURLE_OK) {
		snprintf(curl_err, sizeof(curl_err), "%s: curl_global_init failed (%d)", SD_CURL_SONAME, (int)rc);
		return;
	}
	curl_ok = 1;
}

int sd_curl_load(char *err, size_t errlen)
{
	pthread_once(&curl_once, curl_open);
	if (curl_ok)
		return 0;
	if (err && errlen)
		snprintf(err, errlen, "%s", curl_err);
	return -1;
}
