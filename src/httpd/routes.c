/* routes.c - which handler answers which path, and the responses built once:
 * the stylesheet, the script, the icon, the unfiltered index, the code list. */
#include <stdlib.h>
#include <string.h>

#include "httpd_int.h"
#include "api_store.h"

static enum MHD_Result static_css(hreq *r);
static enum MHD_Result static_js(hreq *r);
static enum MHD_Result static_icon(hreq *r);
static enum MHD_Result page_reasons(hreq *r);
static enum MHD_Result api_openapi(hreq *r);
static enum MHD_Result page_api(hreq *r);

static const route routes[] = {
	{ "/", 0, HM_GET, HB_NONE, page_index, 0 },
	{ "/code/", 1, HM_GET, HB_NONE, page_code, 0 },
	{ "/reasons", 0, HM_GET, HB_NONE, page_reasons, 0 },
	{ "/analyze", 0, HM_GET | HM_POST, HB_FORM, page_analyze, 0 },
	{ "/api/v1/explain", 0, HM_GET | HM_POST, HB_TEXT, api_explain, 0 },
	{ "/api/v1/decode", 0, HM_POST, HB_MAIL, api_decode, 0 },
	{ "/api/v1/codes", 0, HM_GET, HB_NONE, api_codes, 0 },
	{ "/api/v1/events", 0, HM_POST, HB_EVENTS, api_events, 1 },
	{ "/api/v1/suppressions", 0, HM_GET, HB_NONE, api_suppressions, 1 },
	{ "/api/v1/suppressions/", 1, HM_GET | HM_DELETE, HB_NONE, api_suppression, 1 },
	{ "/api/v1/openapi.json", 0, HM_GET, HB_NONE, api_openapi, 0 },
	{ "/api", 0, HM_GET, HB_NONE, page_api, 0 },
	{ "/healthz", 0, HM_GET, HB_NONE, api_health, 0 },
	{ "/metrics", 0, HM_GET, HB_NONE, page_metrics, 0 },
	{ "/static/style.css", 0, HM_GET, HB_NONE, static_css, 0 },
	{ "/static/app.js", 0, HM_GET, HB_NONE, static_js, 0 },
	{ "/static/icon.svg", 0, HM_GET, HB_NONE, static_icon, 0 },
};

_Static_assert(sizeof(routes) / sizeof(routes[0]) <= HTTPD_ROUTES_MAX, "raise HTTPD_ROUTES_MAX");

const route *route_at_or_null(int i)
{
	return i >= 0 && (size_t)i < sizeof(routes) / sizeof(routes[0]) ? &routes[i] : NULL;
}

int route_find(const char *url)
{
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		size_t n = strlen(routes[i].path);
		if (routes[i].prefix ? !strncmp(url, routes[i].path, n) : !strcmp(url, routes[i].path))
			return (int)i;
	}
	return -1;
}

int route_for_metrics(int i)
{
	const route *rt = route_at_or_null(i);

	return rt && (rt->fn == page_metrics || rt->fn == api_health);
}

const route *route_at(int i)
{
	return &routes[i];
}

/* ---- responses made once ---- */

enum { S_CSS, S_JS, S_ICON, S_INDEX, S_CODES, S_HEALTH, S_REASONS, S_OPENAPI, S_API, S_COUNT };
static hbody *shared[S_COUNT];

static int make_static(int i, const char *data, size_t len, const char *ctype, const char *cache)
{
	shared[i] = hbody_new((char *)data, len, 0, ctype, cache, HF_GZIP_KEEP);
	return shared[i] ? 0 : -1;
}

/* From b (taken); cache "no-store" means no ETag either. */
static int make_built(int i, smtpdiag_buf *b, const char *ctype, const char *cache)
{
	unsigned flags = HF_GZIP_KEEP | (cache && !strcmp(cache, "no-store") ? HF_NO_ETAG : 0);

	if (!b->len) {
		smtpdiag_buf_free(b);
		return -1;
	}
	shared[i] = hbody_from_buf(b, ctype, cache ? cache : HTTPD_PAGE_CACHE, flags);
	return shared[i] ? 0 : -1;
}

int routes_init(void)
{
	smtpdiag_buf idx = { 0 }, codes = { 0 }, health = { 0 }, reasons = { 0 }, oas = { 0 }, api = { 0 };
	static const char day[] = "public, max-age=86400";

	index_init();
	render_index(&idx, NULL, NULL);
	codes_json(&codes);
	render_reasons(&reasons);
	openapi_json(&oas);
	render_api(&api);
	smtpdiag_buf_printf(&health, "{\"status\":\"ok\",\"version\":\"%s\",\"codes\":%zu}\n",
		  smtpdiag_version(), smtpdiag_code_count());
	if (make_static(S_CSS, css_text, css_len, "text/css; charset=utf-8", day) < 0 ||
	    make_static(S_JS, js_text, js_len, "text/javascript; charset=utf-8", day) < 0 ||
	    make_static(S_ICON, icon_svg, icon_len, "image/svg+xml", day) < 0 ||
	    make_built(S_INDEX, &idx, "text/html; charset=utf-8", NULL) < 0 ||
	    make_built(S_CODES, &codes, "application/json", NULL) < 0 ||
	    make_built(S_REASONS, &reasons, "text/html; charset=utf-8", NULL) < 0 ||
	    make_built(S_OPENAPI, &oas, "application/json", NULL) < 0 ||
	    make_built(S_API, &api, "text/html; charset=utf-8", NULL) < 0 ||
	    make_built(S_HEALTH, &health, "application/json", "no-store") < 0) {
		routes_free();
		return -1;
	}
	return 0;
}

void routes_free(void)
{
	for (int i = 0; i < S_COUNT; i++) {
		hbody_unref(shared[i]);
		shared[i] = NULL;
	}
}

static enum MHD_Result static_css(hreq *r)
{
	return reply_body(r, 200, shared[S_CSS]);
}

static enum MHD_Result static_js(hreq *r)
{
	return reply_body(r, 200, shared[S_JS]);
}

static enum MHD_Result page_reasons(hreq *r)
{
	return reply_body(r, 200, shared[S_REASONS]);
}

static enum MHD_Result api_openapi(hreq *r)
{
	return reply_body(r, 200, shared[S_OPENAPI]);
}

static enum MHD_Result page_api(hreq *r)
{
	return reply_body(r, 200, shared[S_API]);
}

static enum MHD_Result static_icon(hreq *r)
{
	return reply_body(r, 200, shared[S_ICON]);
}

enum MHD_Result page_index(hreq *r)
{
	const char *q = req_arg(r, "q"), *f = req_arg(r, "f");
	smtpdiag_buf b = { 0 };

	if ((!q || !*q) && (!f || !*f || !strcmp(f, "all")))
		return reply_body(r, 200, shared[S_INDEX]);
	if (q && strlen(q) > 200)
		return reply_error(r, 400, "search text too long (200 characters at most)");
	OFFLOAD(r);
	render_index(&b, q, f);
	return reply_buf(r, 200, "text/html; charset=utf-8", &b);
}

enum MHD_Result api_codes(hreq *r)
{
	return reply_body(r, 200, shared[S_CODES]);
}

enum MHD_Result api_health(hreq *r)
{
	return reply_body(r, 200, shared[S_HEALTH]);
}
