/* cache.c - finished responses for code pages and explain queries, kept in a
 * fixed table so memory stays bounded: HTTPD_CACHE_SLOTS slots, direct-mapped by
 * a hash of the key; a new entry replaces what held its slot. Bodies are
 * counted, so a replaced one lives until its last answer is sent. */
#include <pthread.h>
#include <string.h>

#include "httpd_int.h"

#define CACHE_KEY 64 /* longer keys are not cached */

typedef struct slot {
	char key[CACHE_KEY];
	hbody *h;
	int status;
} slot;

static slot slots[HTTPD_CACHE_SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned hash(const char *s)
{
	return (unsigned)(httpd_fnv1a(s, strlen(s)) % HTTPD_CACHE_SLOTS);
}

int cache_reply(hreq *r, const char *key)
{
	hbody *h = NULL;
	slot *s;
	int status = 0;

	if (strlen(key) >= CACHE_KEY)
		return 0;
	s = &slots[hash(key)];
	pthread_mutex_lock(&lock);
	if (s->h && !strcmp(s->key, key)) {
		h = s->h;
		hbody_ref(h); /* a replacement cannot free it while it is answered */
		status = s->status;
	}
	pthread_mutex_unlock(&lock);
	if (!h)
		return 0;
	status = reply_body(r, status, h) == MHD_YES ? 1 : -1;
	hbody_unref(h);
	return status;
}

enum MHD_Result cache_put_reply(hreq *r, const char *key, int status, hbody *h)
{
	hbody *old = NULL;
	enum MHD_Result ret = reply_body(r, status, h);
	slot *s;

	if (strlen(key) >= CACHE_KEY) {
		hbody_unref(h);
		return ret;
	}
	s = &slots[hash(key)];
	pthread_mutex_lock(&lock);
	old = s->h;
	memcpy(s->key, key, strlen(key) + 1);
	s->h = h; /* the table keeps the caller's reference */
	s->status = status;
	pthread_mutex_unlock(&lock);
	hbody_unref(old);
	return ret;
}

void cache_clear(void)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < HTTPD_CACHE_SLOTS; i++) {
		hbody_unref(slots[i].h);
		slots[i].h = NULL;
		slots[i].key[0] = '\0';
	}
	pthread_mutex_unlock(&lock);
}
