/* events_replay.c - the webhook signatures already taken, remembered while
 * their timestamp is inside its window, so that a captured post replayed (with
 * its body or another) is refused. In memory, shared by the handler threads:
 * at most EV_REPLAY_MAX at once, in an open-addressing table twice as large;
 * the expired ones are swept out when it is full. When every one is still in
 * its window, a new signature is refused (the caller answers 503 with
 * Retry-After: the sender tries again once some have expired), never one
 * forgotten early, which would let its replay through. A restart forgets them
 * all: within a window of a restart, a post taken before it is taken again. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "events.h"

#define SLOTS (2 * EV_REPLAY_MAX) /* a power of two */

typedef struct seen {
	uint8_t key[EV_SHA256];
	int64_t until; /* Unix seconds it is remembered to; 0: free */
} seen;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static seen *table;       /* SLOTS entries, allocated at first use */
static size_t used;
static int64_t next_expiry; /* the soonest `until` in the table when it was last swept */

_Static_assert((SLOTS & (SLOTS - 1)) == 0, "SLOTS is a power of two");

static size_t slot_of(const uint8_t key[EV_SHA256])
{
	size_t h;

	memcpy(&h, key, sizeof(h)); /* the key is a digest: its bytes are spread already */
	return h & (SLOTS - 1);
}

/* The slot holding key, or the free one where it would go. */
static size_t find(const uint8_t key[EV_SHA256])
{
	size_t i = slot_of(key);

	while (table[i].until && memcmp(table[i].key, key, EV_SHA256))
		i = (i + 1) & (SLOTS - 1);
	return i;
}

/* Take out the entries whose window has passed: the live ones are put back. */
static void sweep(int64_t now)
{
	seen *old = table, *live;
	size_t n = 0;

	if (now < next_expiry || !(live = malloc(sizeof(seen) * used)))
		return;
	next_expiry = INT64_MAX;
	for (size_t i = 0; i < SLOTS; i++)
		if (old[i].until > now) {
			live[n++] = old[i];
			if (old[i].until < next_expiry)
				next_expiry = old[i].until;
		}
	memset(table, 0, sizeof(seen) * SLOTS);
	for (size_t i = 0; i < n; i++)
		table[find(live[i].key)] = live[i];
	used = n;
	free(live);
}

int events_replay_take(const uint8_t key[EV_SHA256], int64_t until)
{
	int64_t now = (int64_t)time(NULL);
	int rc = EV_REPLAY_FULL;
	size_t i;

	pthread_mutex_lock(&lock);
	if (!table && !(table = calloc(SLOTS, sizeof(seen)))) {
		pthread_mutex_unlock(&lock);
		return EV_REPLAY_FULL;
	}
	i = find(key);
	if (table[i].until > now) {
		rc = EV_REPLAY_SEEN;
	} else if (table[i].until) { /* the same signature, its window over: the timestamp check refuses it anyway */
		table[i].until = until;
		rc = EV_REPLAY_NEW;
	} else {
		if (used == EV_REPLAY_MAX) {
			sweep(now);
			i = find(key);
		}
		if (used < EV_REPLAY_MAX) {
			memcpy(table[i].key, key, EV_SHA256);
			table[i].until = until;
			used++;
			if (until < next_expiry || used == 1)
				next_expiry = until;
			rc = EV_REPLAY_NEW;
		}
	}
	pthread_mutex_unlock(&lock);
	return rc;
}

void events_replay_forget(const uint8_t key[EV_SHA256])
{
	size_t i, j;

	pthread_mutex_lock(&lock);
	if (table && table[i = find(key)].until) {
		/* backward-shift deletion keeps every other key findable */
		table[i].until = 0;
		used--;
		for (j = (i + 1) & (SLOTS - 1); table[j].until; j = (j + 1) & (SLOTS - 1)) {
			size_t home = slot_of(table[j].key);
			if (((j - home) & (SLOTS - 1)) >= ((j - i) & (SLOTS - 1))) {
				table[i] = table[j];
				table[j].until = 0;
				i = j;
			}
		}
	}
	pthread_mutex_unlock(&lock);
}
