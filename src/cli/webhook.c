/* webhook.c - signed webhooks out: the store's outbox POSTed over HTTP
 * (docs/webhooks-out.md).
 *
 * Each try is signed afresh: Smtpdiag-Signature: t=TIME,v1=HEX, HEX the
 * HMAC-SHA256 with the key of --webhook-secret-file over "TIME.BODY". An
 * answer 2xx is delivered; 408, 429, 5xx, a timeout or no connection is tried
 * again later (the outbox's backoff); any other answer is a refusal for good,
 * kept as failed with the answer. The outbox gives only the oldest pending
 * item of each address, so an address's items go in order. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <nettle/hmac.h>
#define CURL_DISABLE_TYPECHECK /* its macros would hide the pointers of curl_load.h */
#include <curl/curl.h>
#include "curl_load.h"

#include "cli.h"
#include "webhook.h"

#define HOOK_MAX_HEADER (SMTPDIAG_OUTBOX_MAX_ANSWER + 400) /* bytes of one request header */

int hook_events(const char *v)
{
	if (!strcmp(v, "verdicts"))
		return SMTPDIAG_OUTBOX_VERDICTS;
	if (!strcmp(v, "suppressions"))
		return SMTPDIAG_OUTBOX_SUPPRESSIONS;
	return -1;
}

/* A password in the URL's user part ("https://user:secret@host/"). */
static int url_has_password(const char *url)
{
	const char *a = strstr(url, "://"), *end, *at;

	if (!a)
		return 0;
	a += 3;
	end = a + strcspn(a, "/?#");
	at = memchr(a, '@', (size_t)(end - a));
	return at && memchr(a, ':', (size_t)(at - a)) != NULL;
}

int hook_opt(hook *h, const cli_parse *p, int which)
{
	char *end;

	switch (which) {
	case 0:
		if (strncmp(p->value, "http://", 7) && strncmp(p->value, "https://", 8))
			return cli_bad_value(p, "an http:// or https:// URL");
		if (strlen(p->value) > HOOK_MAX_URL)
			return cli_usage(p->cmd, "--webhook: URL longer than %d bytes", HOOK_MAX_URL);
		if (url_has_password(p->value))
			return cli_usage(p->cmd, "--webhook: the URL holds a password, which the process list shows: "
					 "put the Authorization header's value in --webhook-auth-file FILE");
		h->url = p->value;
		break;
	case 1:
		h->secret_file = p->value;
		break;
	case 2:
		if ((h->events = hook_events(p->value)) < 0)
			return cli_bad_value(p, "verdicts or suppressions");
		break;
	case 3:
		if (!strcmp(p->value, "smtpdiag"))
			h->format = HOOK_SMTPDIAG;
		else if (!strcmp(p->value, "listmonk"))
			h->format = HOOK_LISTMONK;
		else
			return cli_bad_value(p, "smtpdiag or listmonk");
		break;
	case 5:
		h->auth_file = p->value;
		break;
	default:
		errno = 0;
		h->wait = strtol(p->value, &end, 10);
		if (errno || end == p->value || *end || h->wait < 0 || h->wait > HOOK_WAIT_MAX)
			return cli_bad_value(p, "a number of seconds from 0 to 86400");
		h->wait_set = 1;
		break;
	}
	return -1;
}

/* The first line of the file of option opt into buf (at most max bytes, its
 * line end dropped, NUL-terminated): its length, or a usage exit status
 * (negated, below 0) after saying why: it cannot be read, is empty, or its
 * first line is longer. */
static long first_line(const cli_cmd *cmd, const char *opt, const char *path, char *buf, size_t max)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;
	int c;

	if (!f)
		return -cli_usage(cmd, "%s: %s: %s", opt, path, strerror(errno));
	while ((c = getc(f)) != EOF && c != '\n') {
		if (n == max) {
			fclose(f);
			return -cli_usage(cmd, "%s: %s: a first line longer than %zu bytes", opt, path, max);
		}
		buf[n++] = (char)c;
	}
	fclose(f);
	if (n && buf[n - 1] == '\r')
		n--;
	buf[n] = 0;
	if (!n)
		return -cli_usage(cmd, "%s: %s: the first line is empty", opt, path);
	return (long)n;
}

static int read_secret(hook *h, const cli_cmd *cmd)
{
	long n = first_line(cmd, "--webhook-secret-file", h->secret_file, h->secret, HOOK_MAX_SECRET);

	if (n < 0)
		return (int)-n;
	h->secret_len = (size_t)n;
	return -1;
}

/* The Authorization header of every post, from --webhook-auth-file's first
 * line: no control characters (a header cannot hold them). */
static int read_auth(hook *h, const cli_cmd *cmd)
{
	static const char name[] = "Authorization: ";
	size_t k = sizeof(name) - 1;
	long n = first_line(cmd, "--webhook-auth-file", h->auth_file, h->auth + k, HOOK_MAX_AUTH);

	if (n < 0)
		return (int)-n;
	for (long i = 0; i < n; i++)
		if ((unsigned char)h->auth[k + i] < 0x20 || h->auth[k + i] == 0x7f)
			return cli_usage(cmd, "--webhook-auth-file: %s: a control character in the first line",
					 h->auth_file);
	memcpy(h->auth, name, k);
	return -1;
}

int hook_ready(hook *h, const cli_cmd *cmd, int have_store)
{
	char err[256];
	int rc;

	if (!h->url) {
		if (h->secret_file || h->auth_file || h->events || h->format || h->wait_set)
			return cli_usage(cmd, "the --webhook-* options need --webhook URL");
		return -1;
	}
	if (!have_store)
		return cli_usage(cmd, "--webhook needs --store URL (the outbox is kept in the store)");
	if (!h->secret_file)
		return cli_usage(cmd, "--webhook needs --webhook-secret-file FILE (the signing key)");
	if (!h->events)
		h->events = SMTPDIAG_OUTBOX_VERDICTS;
	if (!h->wait_set)
		h->wait = HOOK_WAIT_DEFAULT;
	if ((rc = read_secret(h, cmd)) >= 0 || (h->auth_file && (rc = read_auth(h, cmd)) >= 0))
		return rc;
	if (sd_curl_load(err, sizeof(err)) < 0) {
		cli_err("%s: --webhook: %s", cmd->name, err);
		return EXIT_FAIL_;
	}
	return -1;
}

/* ---- one POST ---- */

typedef struct answer {
	char text[SMTPDIAG_OUTBOX_MAX_ANSWER + 1];
	size_t len;
} answer;

static size_t on_body(char *p, size_t size, size_t n, void *ctx)
{
	answer *a = ctx;
	size_t len = size * n, room = sizeof(a->text) - 1 - a->len;

	if (room) {
		size_t k = len < room ? len : room;
		memcpy(a->text + a->len, p, k);
		a->len += k;
		a->text[a->len] = 0;
	}
	return len;
}

/* The listmonk type of a verdict or suppression; NULL: nothing to tell it. */
static const char *listmonk_type(json_t *o)
{
	json_t *rec = json_object_get(o, "record"), *st = json_object_get(o, "state");
	const char *ev = json_string_value(json_object_get(o, "event"));
	const char *k = json_string_value(json_object_get(st ? st : rec, st ? "cause" : "kind"));

	if (!ev || !strcmp(ev, "released") || !k)
		return NULL;
	if (!strcmp(k, "hard") || !strcmp(k, "complaint") || !strcmp(k, "soft"))
		return k;
	return NULL;
}

/* The body of listmonk's POST /api/bounces for an item; NULL: none to send
 * (a delivery, a deferral, a release: listmonk's bounce API takes only
 * bounces), or out of memory (*oom). */
static char *listmonk_body(const char *body, int *oom)
{
	json_t *o = json_loads(body, 0, NULL), *m;
	const char *type = o ? listmonk_type(o) : NULL;
	char *out = NULL;

	*oom = 0;
	if (type) {
		m = json_object();
		json_object_set(m, "smtpdiag", o);
		json_t *b = json_pack("{s:O,s:s,s:s,s:s,s:o}", "email", json_object_get(o, "address"),
				      "campaign_uuid", "", "source", "smtpdiag", "type", type, "meta", m);
		out = b ? json_dumps(b, JSON_COMPACT) : NULL;
		*oom = !out;
		json_decref(b);
	}
	json_decref(o);
	return out;
}

/* A header value from text that may hold anything: control bytes as '?'. */
static void header(char *out, size_t cap, const char *name, const char *value)
{
	size_t o = (size_t)snprintf(out, cap, "%s: ", name);

	for (const char *p = value; *p && o + 1 < cap; p++)
		out[o++] = (unsigned char)*p < 0x20 || *p == 0x7f ? '?' : *p;
	out[o < cap ? o : cap - 1] = 0;
}

static void sign(const hook *h, long long t, const char *body, char hex[2 * SHA256_DIGEST_SIZE + 1])
{
	struct hmac_sha256_ctx c;
	uint8_t mac[SHA256_DIGEST_SIZE];
	char ts[32];
	int n = snprintf(ts, sizeof(ts), "%lld.", t);

	hmac_sha256_set_key(&c, h->secret_len, (const uint8_t *)h->secret);
	hmac_sha256_update(&c, (size_t)n, (const uint8_t *)ts);
	hmac_sha256_update(&c, strlen(body), (const uint8_t *)body);
	hmac_sha256_digest(&c, SHA256_DIGEST_SIZE, mac);
	for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
		snprintf(hex + 2 * i, 3, "%02x", mac[i]);
}

/* One try of it: SMTPDIAG_OUTBOX_*, what the receiver said in a. */
static int post(hook *h, CURL *c, const smtpdiag_outbox_item *it, answer *a)
{
	struct curl_slist *hd = NULL;
	char line[HOOK_MAX_HEADER], hex[2 * SHA256_DIGEST_SIZE + 1], *lm = NULL;
	const char *body = it->body;
	long long t = (long long)time(NULL);
	long code = 0;
	int oom = 0, out;
	CURLcode rc;

	a->len = 0;
	a->text[0] = 0;
	if (h->format == HOOK_LISTMONK) {
		if (!(lm = listmonk_body(it->body, &oom))) {
			snprintf(a->text, sizeof(a->text), "%s", oom ? "out of memory" : "not a bounce: not sent to listmonk");
			return oom ? SMTPDIAG_OUTBOX_RETRY : SMTPDIAG_OUTBOX_DELIVERED;
		}
		body = lm;
	}
	sign(h, t, body, hex);
	hd = curl_slist_append(hd, "Content-Type: application/json");
	snprintf(line, sizeof(line), "Smtpdiag-Signature: t=%lld,v1=%s", t, hex);
	hd = curl_slist_append(hd, line);
	header(line, sizeof(line), "Smtpdiag-Delivery", it->id);
	hd = curl_slist_append(hd, line);
	header(line, sizeof(line), "Smtpdiag-Event", it->event);
	hd = curl_slist_append(hd, line);
	snprintf(line, sizeof(line), "Smtpdiag-Attempt: %d", it->tries + 1);
	hd = curl_slist_append(hd, line);
	hd = curl_slist_append(hd, "Expect:");
	if (h->auth[0])
		hd = curl_slist_append(hd, h->auth);
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, h->url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "smtpdiag/" SMTPDIAG_VERSION);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hd);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
	curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)HOOK_TIMEOUT);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, (long)HOOK_CONNECT_TIMEOUT);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, a);
	rc = curl_easy_perform(c);
	curl_slist_free_all(hd);
	free(lm);
	if (rc != CURLE_OK) {
		snprintf(a->text, sizeof(a->text), "%s", curl_easy_strerror(rc));
		return SMTPDIAG_OUTBOX_RETRY;
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	{
		char said[sizeof(a->text)];
		snprintf(said, sizeof(said), "%s", a->text);
		snprintf(a->text, sizeof(a->text), "HTTP %ld%s%.*s", code, said[0] ? ": " : "",
			 SMTPDIAG_OUTBOX_MAX_ANSWER - 16, said);
	}
	if (code >= 200 && code < 300)
		out = SMTPDIAG_OUTBOX_DELIVERED;
	else if (code == 408 || code == 429 || code >= 500)
		out = SMTPDIAG_OUTBOX_RETRY;
	else
		out = SMTPDIAG_OUTBOX_FAILED; /* other 4xx; a 1xx or 3xx is no answer to follow */
	return out;
}

/* ---- the outbox ---- */

typedef struct taken {
	smtpdiag_outbox_item it[HOOK_BATCH];
	char *mem[HOOK_BATCH];
	int n, oom;
} taken;

static int on_item(void *ctx, const smtpdiag_outbox_item *it)
{
	taken *t = ctx;
	size_t a = strlen(it->id) + 1, b = strlen(it->address) + 1, c = strlen(it->event) + 1,
	       d = strlen(it->body) + 1;
	char *m = malloc(a + b + c + d);

	if (!m) {
		t->oom = 1;
		return 1;
	}
	memcpy(m, it->id, a);
	memcpy(m + a, it->address, b);
	memcpy(m + a + b, it->event, c);
	memcpy(m + a + b + c, it->body, d);
	t->mem[t->n] = m;
	t->it[t->n] = *it;
	t->it[t->n].id = m;
	t->it[t->n].address = m + a;
	t->it[t->n].event = m + a + b;
	t->it[t->n].body = m + a + b + c;
	t->n++;
	return 0;
}

static int pass(hook *h, smtpdiag_store *s, CURL *c, int64_t deadline, int *sent, const char *cmd)
{
	taken t;
	smtpdiag_error err = { 0, "" };
	answer a;
	int rc;

	t.n = t.oom = 0;
	rc = smtpdiag_store_outbox_next(s, 0, HOOK_BATCH, on_item, &t, &err);
	if (rc < 0 || t.oom) {
		cli_err("%s: webhook: the outbox: %s", cmd, t.oom ? "out of memory" : err.message);
		rc = -1;
	}
	*sent = 0;
	for (int i = 0; rc == 0 && i < t.n && !h->stop && (!deadline || (int64_t)time(NULL) < deadline); i++) {
		int out = post(h, c, &t.it[i], &a);
		(*sent)++;
		if ((rc = smtpdiag_store_outbox_done(s, t.it[i].id, out, a.text, 0, &err)) < 0) {
			cli_err("%s: webhook: the outbox: %s", cmd, err.message);
			rc = -1;
			break;
		}
		if (out == SMTPDIAG_OUTBOX_DELIVERED)
			h->delivered++;
		else if (out == SMTPDIAG_OUTBOX_FAILED)
			h->failed++, cli_err("%s: webhook: %s refused for good: %s", cmd, t.it[i].id, a.text);
		else
			h->retried++;
	}
	for (int i = 0; i < t.n; i++)
		free(t.mem[i]);
	return rc;
}

static void pause_ms(hook *h, long ms)
{
	struct timespec ts = { 0, 0 };

	for (; ms > 0 && !h->stop; ms -= 100) {
		ts.tv_nsec = (ms < 100 ? ms : 100) * 1000000L;
		nanosleep(&ts, NULL);
	}
}

int hook_drain(hook *h, smtpdiag_store *s, int64_t deadline, const char *cmd)
{
	CURL *c = curl_easy_init();
	smtpdiag_outbox_counts n;
	smtpdiag_error err = { 0, "" };
	int sent, rc = 0;

	if (!c) {
		cli_err("%s: webhook: cannot start a transfer (out of memory)", cmd);
		return -1;
	}
	while (!h->stop) {
		if ((rc = pass(h, s, c, deadline, &sent, cmd)) < 0)
			break;
		if (sent)
			continue;
		if ((rc = smtpdiag_store_outbox_counts(s, 0, &n, &err)) < 0) {
			cli_err("%s: webhook: the outbox: %s", cmd, err.message);
			rc = -1;
			break;
		}
		if (!n.pending || !deadline || n.next_at > deadline || (int64_t)time(NULL) >= deadline)
			break;
		if (n.due)
			continue;
		pause_ms(h, (long)(n.next_at - (int64_t)time(NULL)) * 1000 + 10);
	}
	curl_easy_cleanup(c);
	return rc;
}

int hook_finish(hook *h, smtpdiag_store *s, const char *cmd)
{
	smtpdiag_outbox_counts n;
	smtpdiag_error err = { 0, "" };

	if (hook_drain(h, s, (int64_t)time(NULL) + h->wait, cmd) < 0)
		return -1;
	if (smtpdiag_store_outbox_counts(s, 0, &n, &err) < 0) {
		cli_err("%s: webhook: the outbox: %s", cmd, err.message);
		return -1;
	}
	fprintf(stderr, "webhook: delivered %llu, failed %llu, tries to retry %llu; outbox: pending %llu, "
		"failed %llu\n", (unsigned long long)h->delivered, (unsigned long long)h->failed,
		(unsigned long long)h->retried, (unsigned long long)n.pending, (unsigned long long)n.failed);
	if (n.pending)
		cli_err("%s: webhook: %llu items not delivered yet: kept in the outbox for a later run "
			"or serve", cmd, (unsigned long long)n.pending);
	return n.pending || h->failed ? 1 : 0;
}

/* ---- the background sender ---- */

static void *sender(void *ctx)
{
	hook *h = ctx;
	smtpdiag_store *s = NULL;
	smtpdiag_error err = { 0, "" };

	while (!h->stop) {
		if (!s && smtpdiag_store_open(h->store_url, &h->pol, &s, &err) < 0) {
			cli_err("webhook: the store: %s (trying again)", err.message);
			s = NULL;
		} else if (hook_drain(h, s, 0, "webhook") < 0) {
			smtpdiag_store_close(s); /* opened again at the next look */
			s = NULL;
		}
		pause_ms(h, HOOK_POLL_MS);
	}
	smtpdiag_store_close(s);
	return NULL;
}

int hook_start(hook *h, const char *url, const smtpdiag_policy *pol, const char *cmd)
{
	if (!h->url)
		return 0;
	h->store_url = url;
	if (pol)
		h->pol = *pol;
	else
		smtpdiag_policy_init(&h->pol);
	h->stop = 0;
	if (pthread_create(&h->thread, NULL, sender, h) != 0) {
		cli_err("%s: webhook: cannot start the sender thread", cmd);
		return -1;
	}
	h->running = 1;
	return 0;
}

void hook_stop(hook *h)
{
	if (!h->running)
		return;
	h->stop = 1;
	pthread_join(h->thread, NULL);
	h->running = 0;
}
