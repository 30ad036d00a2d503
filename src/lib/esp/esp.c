/* esp.c - the table of services, detection, and the containers around events. */
#include "esp/esp.h"

#include <stdio.h>
#include <string.h>

#define SD_ESP(name) extern const sd_esp sd_esp_##name;
#include "esp/esps.def"
#undef SD_ESP

static const sd_esp *const services[] = {
#define SD_ESP(name) &sd_esp_##name,
#include "esp/esps.def"
#undef SD_ESP
};

size_t sd_esp_count(void)
{
	return sizeof(services) / sizeof(services[0]);
}

const sd_esp *sd_esp_at(size_t i)
{
	return i < sd_esp_count() ? services[i] : NULL;
}

const sd_esp *sd_esp_by_name(const char *name)
{
	for (size_t i = 0; i < sd_esp_count(); i++)
		if (!strcmp(services[i]->name, name))
			return services[i];
	return NULL;
}

const sd_esp *sd_esp_detect(json_t *o)
{
	if (!json_is_object(o))
		return NULL;
	for (size_t i = 0; i < sd_esp_count(); i++)
		if (services[i]->match(o))
			return services[i];
	return NULL;
}

/* ---- containers ---- */

typedef struct walker {
	sd_esp_leaf_fn fn;
	void *arg;
} walker;

static void walk(const walker *w, json_t *v, int depth);

/* A member holding JSON text (SNS Message, mandrill_events). */
static void walk_text(const walker *w, json_t *s, const char *what, int depth)
{
	json_error_t je;
	json_t *v = json_loadb(json_string_value(s), json_string_length(s), 0, &je);
	char why[sizeof(je.text) + 64];

	if (!v) {
		snprintf(why, sizeof(why), "%s: line %d, column %d: %s", what, je.line, je.column, je.text);
		w->fn(w->arg, NULL, why);
		return;
	}
	walk(w, v, depth + 1);
	json_decref(v);
}

static void walk_each(const walker *w, json_t *arr, int depth)
{
	size_t i;
	json_t *x;

	json_array_foreach(arr, i, x)
		walk(w, x, depth + 1);
}

static void walk_unisender(const walker *w, json_t *users, int depth)
{
	size_t i;
	json_t *u;

	json_array_foreach(users, i, u) {
		json_t *ev = json_object_get(u, "events");
		if (json_is_array(ev))
			walk_each(w, ev, depth + 1);
		else
			w->fn(w->arg, NULL, "events_by_user entry without an events array");
	}
}

/* SparkPost: {"msys": {"message_event": {...}}}: the one inner event. */
static void walk_msys(const walker *w, json_t *msys, int depth)
{
	const char *k;
	json_t *x;

	json_object_foreach(msys, k, x) {
		walk(w, x, depth + 1);
		return;
	}
	w->fn(w->arg, NULL, "empty msys object");
}

static int walk_object(const walker *w, json_t *o, int depth)
{
	json_t *x;

	if (json_is_string(x = json_object_get(o, "mandrill_events")))
		walk_text(w, x, "mandrill_events", depth);
	else if (sd_esp_is(o, "Type", "Notification") && json_is_string(x = json_object_get(o, "Message")))
		walk_text(w, x, "SNS Message", depth);
	else if (json_is_object(x = json_object_get(o, "msys")))
		walk_msys(w, x, depth);
	else if (json_is_array(x = json_object_get(o, "events_by_user")))
		walk_unisender(w, x, depth);
	else if (json_is_array(x = json_object_get(o, "events")) && !json_object_get(o, "event"))
		walk_each(w, x, depth);
	else
		return 0;
	return 1;
}

static void walk(const walker *w, json_t *v, int depth)
{
	if (depth > SD_ESP_MAX_DEPTH) {
		w->fn(w->arg, NULL, "events nested too deep (SD_ESP_MAX_DEPTH)");
		return;
	}
	if (json_is_array(v))
		walk_each(w, v, depth);
	else if (!json_is_object(v))
		w->fn(w->arg, NULL, "not an event object");
	else if (!walk_object(w, v, depth))
		w->fn(w->arg, v, NULL);
}

void sd_esp_walk(json_t *v, sd_esp_leaf_fn fn, void *arg)
{
	walker w = { fn, arg };

	walk(&w, v, 0);
}
