/* conv.c - HTTP conventions: finished bodies (hbody) with a strong ETag and a
 * gzip twin, answered per request so each answer carries its own request id;
 * 304 on If-None-Match; gzip when accepted; CORS on the API (any origin on
 * the public routes, only --cors-origin on the store's); OPTIONS; the
 * request id (X-Request-Id, checked, or made here). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <zlib.h>

#include "httpd_int.h"

#define GZ_MIN 1024         /* smaller bodies are sent as they are */
#define GZ_LEVEL_KEPT 6     /* bodies made once and kept (pages, static files) */
#define GZ_LEVEL_ONCE 1     /* bodies made for one answer */
#define INM_MAX 1024        /* bytes of If-None-Match looked at */

/* ---- bodies ---- */

static void etag_of(char *out, size_t cap, const char *p, size_t n)
{
	snprintf(out, cap, "\"%016llx\"", (unsigned long long)httpd_fnv1a(p, n));
}

static int compressible(const char *ctype)
{
	return !strncmp(ctype, "text/", 5) || !strncmp(ctype, "application/json", 16) ||
	       !strncmp(ctype, "image/svg", 9);
}

/* p gzipped into a new buffer, or NULL when it does not shrink. */
static char *gzip_of(const char *p, size_t n, int level, size_t *outlen)
{
	z_stream zs;
	char *out;
	uLong cap;

	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return NULL;
	cap = deflateBound(&zs, (uLong)n);
	if (!(out = malloc(cap))) {
		deflateEnd(&zs);
		return NULL;
	}
	zs.next_in = (Bytef *)(uintptr_t)p;
	zs.avail_in = (uInt)n;
	zs.next_out = (Bytef *)out;
	zs.avail_out = (uInt)cap;
	if (deflate(&zs, Z_FINISH) != Z_STREAM_END || zs.total_out >= n) {
		deflateEnd(&zs);
		free(out);
		return NULL;
	}
	*outlen = zs.total_out;
	deflateEnd(&zs);
	return out;
}

static hbody *body_alloc(char *data, size_t len, int owned, const hbody *like)
{
	hbody *h = calloc(1, sizeof(*h));

	if (!h) {
		if (owned)
			free(data);
		return NULL;
	}
	atomic_init(&h->refs, 1);
	atomic_init(&h->gz, NULL);
	h->data = data;
	h->len = len;
	h->owned = owned;
	if (like) {
		h->ctype = like->ctype;
		h->cache = like->cache;
		h->flags = like->flags;
	}
	return h;
}

/* The gzip twin's tag: the body's with "-gz" before the closing quote. */
static void gz_etag(char *out, size_t cap, const char *etag)
{
	size_t n = strlen(etag);

	snprintf(out, cap, "%.*s-gz\"", (int)(n ? n - 1 : 0), etag);
}

/* Make h's gzip twin unless another thread did; NULL when it does not shrink. */
static hbody *gz_twin(hbody *h, int level)
{
	hbody *tw = atomic_load(&h->gz), *none = NULL;
	size_t gzlen = 0;
	char *gz;

	if (tw || !h->gzip_able || !(gz = gzip_of(h->data, h->len, level, &gzlen)))
		return tw;
	if (!(tw = body_alloc(gz, gzlen, 1, h)))
		return NULL;
	if (h->etag[0])
		gz_etag(tw->etag, sizeof(tw->etag), h->etag);
	if (!atomic_compare_exchange_strong(&h->gz, &none, tw)) {
		hbody_unref(tw);
		return none;
	}
	return tw;
}

hbody *hbody_new(char *data, size_t len, int owned, const char *ctype, const char *cache, unsigned flags)
{
	hbody proto = { .ctype = ctype, .cache = cache, .flags = flags };
	hbody *h = body_alloc(data, len, owned, &proto);

	if (!h)
		return NULL;
	if (!(flags & HF_NO_ETAG))
		etag_of(h->etag, sizeof(h->etag), data, len);
	h->gzip_able = (flags & (HF_GZIP_NOW | HF_GZIP_KEEP)) && len >= GZ_MIN && compressible(ctype);
	if (flags & HF_GZIP_NOW)
		gz_twin(h, GZ_LEVEL_ONCE);
	return h;
}

hbody *hbody_from_buf(smtpdiag_buf *b, const char *ctype, const char *cache, unsigned flags)
{
	hbody *h;

	if (b->oom) {
		smtpdiag_buf_free(b);
		return NULL;
	}
	h = b->len ? hbody_new(b->data, b->len, 1, ctype, cache, flags) : hbody_new((char *)"", 0, 0, ctype, cache, flags);
	if (!b->len)
		smtpdiag_buf_free(b);
	b->data = NULL;
	b->len = b->cap = 0;
	return h;
}

void hbody_ref(hbody *h)
{
	atomic_fetch_add(&h->refs, 1);
}

void hbody_unref(hbody *h)
{
	if (!h || atomic_fetch_sub(&h->refs, 1) != 1)
		return;
	hbody_unref(atomic_load(&h->gz));
	if (h->owned)
		free(h->data);
	free(h);
}

static void unref_cb(void *cls)
{
	hbody_unref(cls);
}

/* ---- what the request asks ---- */

/* Does a comma list of tokens (with ;q= parameters) accept name? */
static int accepts(const char *list, const char *name)
{
	size_t nl = strlen(name);

	for (const char *p = list; p && *p;) {
		p += strspn(p, " \t,");
		size_t n = strcspn(p, ",;"), len = n;
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (len == nl && !strncasecmp(p, name, nl)) {
			const char *q = p[n] == ';' ? strstr(p + n, "q=") : NULL;
			const char *end = strchr(p, ',');
			return !(q && (!end || q < end) && strtod(q + 2, NULL) <= 0.0);
		}
		p += n;
		p += strcspn(p, ",");
	}
	return 0;
}

int req_gzip_ok(hreq *r)
{
	const char *ae = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING);

	return ae && accepts(ae, "gzip");
}

/* Does If-None-Match name the body's tag or its gzip twin's (a weak W/ form
 * counts, RFC 9110 13.1.2)? */
static int not_modified(hreq *r, const hbody *h)
{
	const char *inm = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_IF_NONE_MATCH);
	char gtag[sizeof(h->etag) + 4];
	size_t tl = strlen(h->etag), gl;

	if (!inm || !h->etag[0] || strlen(inm) > INM_MAX || (r->method != HM_GET && r->method != HM_HEAD))
		return 0;
	gz_etag(gtag, sizeof(gtag), h->etag);
	gl = strlen(gtag);
	for (const char *p = inm; *p;) {
		p += strspn(p, " \t,");
		if (!strncmp(p, "W/", 2))
			p += 2;
		size_t n = strcspn(p, " \t,");
		if ((n == 1 && *p == '*') || (n == tl && !strncmp(p, h->etag, n)) || (n == gl && !strncmp(p, gtag, n)))
			return 1;
		p += n;
	}
	return 0;
}

/* ---- answers ---- */

/* Is r for a store route (events, suppressions)? */
static int req_store(const hreq *r)
{
	const route *rt = route_at_or_null(r->route);

	return rt && rt->store;
}

/* CORS: the public API (explain, decode, codes, ...) holds nothing private and
 * answers any origin, without credentials; a store route only an origin of
 * --cors-origin, by name, and says that the answer depends on Origin. */
static int cors_ok(hreq *r)
{
	return req_is_api(r) && (!req_store(r) || origin_allowed(req_origin(r)));
}

void req_headers(hreq *r, struct MHD_Response *resp)
{
	if (r->reqid[0])
		MHD_add_response_header(resp, "X-Request-Id", r->reqid);
	if (req_is_api(r) && req_store(r))
		MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY, "Origin");
	if (cors_ok(r)) {
		MHD_add_response_header(resp, "Access-Control-Allow-Origin", req_store(r) ? req_origin(r) : "*");
		MHD_add_response_header(resp, "Access-Control-Expose-Headers", "ETag, X-Request-Id");
	}
	if (r->close)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	if (r->retry_after)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, HTTPD_RETRY_AFTER);
}

static void body_headers(struct MHD_Response *resp, const hbody *h, int gz)
{
	if (h->etag[0])
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ETAG, h->etag);
	if (h->cache)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, h->cache);
	if (h->gzip_able || gz)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY, "Accept-Encoding");
	if (gz)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
}

static enum MHD_Result reply_304(hreq *r, const hbody *h)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!resp)
		return MHD_NO;
	body_headers(resp, h, 0);
	req_headers(r, resp);
	ret = reply_shared(r, MHD_HTTP_NOT_MODIFIED, resp, 0);
	MHD_destroy_response(resp);
	return ret;
}

enum MHD_Result reply_body(hreq *r, int status, hbody *h)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;
	hbody *tw;
	int gz = 0;

	if (status == 200 && not_modified(r, h))
		return reply_304(r, h);
	if (h->gzip_able && req_gzip_ok(r) && (tw = gz_twin(h, GZ_LEVEL_KEPT)) != NULL) {
		h = tw;
		gz = 1;
	}
	hbody_ref(h);
	if (!(resp = MHD_create_response_from_buffer_with_free_callback_cls(h->len, h->data, unref_cb, h))) {
		hbody_unref(h);
		return MHD_NO;
	}
	reply_headers(resp, h->ctype);
	body_headers(resp, h, gz);
	req_headers(r, resp);
	ret = reply_shared(r, status, resp, h->len);
	MHD_destroy_response(resp);
	return ret;
}

/* OPTIONS: 204 with Allow; on the API also a CORS preflight answer. */
enum MHD_Result reply_options(hreq *r, unsigned methods)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
	char allow[48];
	enum MHD_Result ret;

	if (!resp)
		return MHD_NO;
	allow_list(allow, sizeof(allow), methods);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
	req_headers(r, resp);
	if (cors_ok(r)) {
		MHD_add_response_header(resp, "Access-Control-Allow-Methods", allow);
		MHD_add_response_header(resp, "Access-Control-Allow-Headers", req_store(r)
					? "Authorization, Content-Type, X-Request-Id, If-None-Match"
					: "Content-Type, X-Request-Id, If-None-Match");
		MHD_add_response_header(resp, "Access-Control-Max-Age", "86400");
	}
	ret = reply_shared(r, 204, resp, 0);
	MHD_destroy_response(resp);
	return ret;
}

/* ---- request ids ---- */

static uint32_t id_seed;
static atomic_uint_fast64_t id_next;

void reqid_init(void)
{
	if (getrandom(&id_seed, sizeof(id_seed), GRND_NONBLOCK) != (ssize_t)sizeof(id_seed))
		id_seed = (uint32_t)time(NULL) ^ (uint32_t)getpid();
}

/* The client's X-Request-Id when it is 1 to HTTPD_REQID_MAX printable bytes
 * (no space, quote or backslash), else a new one. */
void reqid_take(hreq *r)
{
	const char *v = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "X-Request-Id");
	size_t n = v ? strlen(v) : 0, i;

	for (i = 0; i < n && n <= HTTPD_REQID_MAX; i++)
		if (v[i] <= ' ' || v[i] > '~' || v[i] == '"' || v[i] == '\\')
			break;
	if (n && i == n && n <= HTTPD_REQID_MAX) {
		memcpy(r->reqid, v, n + 1);
		return;
	}
	snprintf(r->reqid, sizeof(r->reqid), "%08x%08llx", id_seed,
		 (unsigned long long)atomic_fetch_add(&id_next, 1) & 0xffffffffull);
}
