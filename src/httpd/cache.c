/* cache.c - finished responses for code pages and explain queries, kept in a
 * fixed table so memory stays bounded: HTTPD_CACHE_SLOTS slots, direct-mapped by
 * a hash of the key; a new entry replaces what held its slot. MHD counts the
 * references to a response, so a replaced one lives until its last send ends. */
#include <pthread.h>
#include <string.h>

#include "httpd_int.h"

#define CACHE_KEY 64 /* longer keys are not cached */

typedef struct slot {
	char key[CACHE_KEY];
	struct MHD_Response *resp;
	int status;
	size_t len;
} slot;

static slot slots[HTTPD_CACHE_SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned hash(const char *s)
{
	unsigned h = 2166136261u; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h % HTTPD_CACHE_SLOTS;
}

int cache_reply(hreq *r, const char *key)
{
	slot *s;
	int hit = 0;

	if (strlen(key) >= CACHE_KEY || r->in_job)
		return 0; /* a job would hold the lock while it hands the response over */
	s = &slots[hash(key)];
	pthread_mutex_lock(&lock);
	if (s->resp && !strcmp(s->key, key)) {
		/* queued under the lock: a replacement cannot free it in between */
		hit = reply_shared(r, s->status, s->resp, s->len) == MHD_YES ? 1 : -1;
	}
	pthread_mutex_unlock(&lock);
	return hit;
}

enum MHD_Result cache_put_reply(hreq *r, const char *key, int status, struct MHD_Response *resp, size_t len)
{
	struct MHD_Response *old = NULL;
	enum MHD_Result ret = reply_shared(r, status, resp, len);
	slot *s;

	if (strlen(key) >= CACHE_KEY) {
		MHD_destroy_response(resp);
		return ret;
	}
	s = &slots[hash(key)];
	pthread_mutex_lock(&lock);
	old = s->resp;
	memcpy(s->key, key, strlen(key) + 1);
	s->resp = resp; /* the table keeps the creation reference */
	s->status = status;
	s->len = len;
	pthread_mutex_unlock(&lock);
	if (old)
		MHD_destroy_response(old);
	return ret;
}

void cache_clear(void)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < HTTPD_CACHE_SLOTS; i++) {
		if (slots[i].resp)
			MHD_destroy_response(slots[i].resp);
		slots[i].resp = NULL;
		slots[i].key[0] = '\0';
	}
	pthread_mutex_unlock(&lock);
}
