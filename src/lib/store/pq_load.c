/* pq_load.c - libpq opened at run time (see pq_load.h). */
#define SD_PQ_LOAD_IMPL
#include "store/pq_load.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#define SD_PQ_DEF(f) __typeof__(f) *sd_pq_##f;
SD_PQ_FUNCS(SD_PQ_DEF)
#undef SD_PQ_DEF

static pthread_once_t pq_once = PTHREAD_ONCE_INIT;
static char pq_err[256];
static int pq_ok;

static void pq_open(void)
{
	void *lib = dlopen(SD_PQ_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!lib) {
		snprintf(pq_err, sizeof(pq_err), "cannot open %s (install libpq5): %s", SD_PQ_SONAME, dlerror());
		return;
	}
#define SD_PQ_SYM(f)                                                                          \
	if (!(*(void **)&sd_pq_##f = dlsym(lib, #f))) {                                       \
		snprintf(pq_err, sizeof(pq_err), "%s lacks %s", SD_PQ_SONAME, #f);            \
		return;                                                                       \
	}
	SD_PQ_FUNCS(SD_PQ_SYM)
#undef SD_PQ_SYM
	pq_ok = 1;
}

int sd_pq_load(char *err, size_t errlen)
{
	pthread_once(&pq_once, pq_open);
	if (pq_ok)
		return 0;
	if (err && errlen)
		snprintf(err, errlen, "%s", pq_err);
	return -1;
}
