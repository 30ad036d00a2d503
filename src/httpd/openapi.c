/* openapi.c - GET /api/v1/openapi.json (OpenAPI 3.1, describing every route;
 * the tests validate it) and the readable API page (/api) made from it. */
#include <jansson.h>
#include <string.h>

#include "httpd_int.h"

static const char openapi_text[] =
	"{\n"
	"  \"openapi\": \"3.1.0\",\n"
	"  \"info\": {\n"
	"    \"title\": \"smtpdiag\",\n"
	"    \"summary\": \"What an SMTP failure means and what to do about it.\",\n"
	"    \"description\": \"Explain SMTP reply codes, enhanced status codes and reply text; decode bounce emails into one verdict per recipient. Every answer carries X-Request-Id; the API answers any origin (CORS); cacheable GETs carry a strong ETag and answer 304 to If-None-Match; bodies are gzipped when accepted.\",\n"
	"    \"version\": \"@VERSION@\",\n"
	"    \"license\": { \"name\": \"see the project\" }\n"
	"  },\n"
	"  \"paths\": {\n"
	"    \"/api/v1/explain\": {\n"
	"      \"get\": {\n"
	"        \"operationId\": \"explain\",\n"
	"        \"summary\": \"Explain a code, a pair or reply text\",\n"
	"        \"parameters\": [\n"
	"          { \"name\": \"q\", \"in\": \"query\", \"required\": true, \"description\": \"A code (431, 4.3.1, X.3.1), a pair (552 4.3.1) or reply line(s); 4096 bytes at most.\", \"schema\": { \"type\": \"string\", \"maxLength\": 4096 }, \"example\": \"552 4.3.1\" },\n"
	"          { \"$ref\": \"#/components/parameters/mode\" }\n"
	"        ],\n"
	"        \"responses\": {\n"
	"          \"200\": { \"description\": \"The explanation.\", \"headers\": { \"ETag\": { \"$ref\": \"#/components/headers/ETag\" }, \"X-Request-Id\": { \"$ref\": \"#/components/headers/X-Request-Id\" } }, \"content\": { \"application/json\": { \"schema\": { \"$ref\": \"#/components/schemas/Explanation\" } } } },\n"
	"          \"304\": { \"description\": \"Not modified (If-None-Match named the ETag).\" },\n"
	"          \"400\": { \"$ref\": \"#/components/responses/Error\" },\n"
	"          \"413\": { \"$ref\": \"#/components/responses/Error\" }\n"
	"        }\n"
	"      },\n"
	"      \"post\": {\n"
	"        \"operationId\": \"explainBody\",\n"
	"        \"summary\": \"Explain a body: text, JSON or a form\",\n"
	"        \"parameters\": [ { \"$ref\": \"#/components/parameters/mode\" } ],\n"
	"        \"requestBody\": {\n"
	"          \"required\": true,\n"
	"          \"content\": {\n"
	"            \"text/plain\": { \"schema\": { \"type\": \"string\" }, \"example\": \"550 5.1.1 <bob@example.org>: User unknown\" },\n"
	"            \"application/json\": { \"schema\": { \"$ref\": \"#/components/schemas/ExplainRequest\" } },\n"
	"            \"application/x-www-form-urlencoded\": { \"schema\": { \"type\": \"object\", \"properties\": { \"text\": { \"type\": \"string\" }, \"q\": { \"type\": \"string\" } } } }\n"
	"          }\n"
	"        },\n"
	"        \"responses\": {\n"
	"          \"200\": { \"description\": \"The explanation.\", \"content\": { \"application/json\": { \"schema\": { \"$ref\": \"#/components/schemas/Explanation\" } } } },\n"
	"          \"400\": { \"$ref\": \"#/components/responses/Error\" },\n"
	"          \"413\": { \"$ref\": \"#/components/responses/Error\" },\n"
	"          \"415\": { \"$ref\": \"#/components/responses/Error\" }\n"
	"        }\n"
	"      },\n"
	"      \"options\": { \"summary\": \"CORS preflight\", \"responses\": { \"204\": { \"description\": \"Allowed methods and headers (Allow, Access-Control-Allow-*).\" } } }\n"
	"    },\n"
	"    \"/api/v1/decode\": {\n"
	"      \"post\": {\n"
	"        \"operationId\": \"decode\",\n"
	"        \"summary\": \"Decode a bounce email or an mbox: one verdict per recipient\",\n"
	"        \"parameters\": [\n"
	"          { \"name\": \"delivered\", \"in\": \"query\", \"description\": \"Also report successful deliveries.\", \"schema\": { \"type\": \"string\", \"enum\": [\"0\", \"1\", \"true\", \"false\"] } },\n"
	"          { \"name\": \"vacation\", \"in\": \"query\", \"description\": \"Also report auto-replies.\", \"schema\": { \"type\": \"string\", \"enum\": [\"0\", \"1\", \"true\", \"false\"] } },\n"
	"          { \"name\": \"delayed\", \"in\": \"query\", \"description\": \"0 leaves out delay warnings.\", \"schema\": { \"type\": \"string\", \"enum\": [\"0\", \"1\", \"true\", \"false\"] } }\n"
	"        ],\n"
	"        \"requestBody\": {\n"
	"          \"required\": true,\n"
	"          \"content\": {\n"
	"            \"message/rfc822\": { \"schema\": { \"type\": \"string\" } },\n"
	"            \"message/global\": { \"schema\": { \"type\": \"string\" } },\n"
	"            \"application/mbox\": { \"schema\": { \"type\": \"string\" } },\n"
	"            \"text/plain\": { \"schema\": { \"type\": \"string\" } },\n"
	"            \"application/octet-stream\": { \"schema\": { \"type\": \"string\" } }\n"
	"          }\n"
	"        },\n"
	"        \"responses\": {\n"
	"          \"200\": { \"description\": \"The verdicts, their counts and the messages that could not be read.\", \"content\": { \"application/json\": { \"schema\": { \"$ref\": \"#/components/schemas/DecodeResult\" } } } },\n"
	"          \"400\": { \"$ref\": \"#/components/responses/Error\" },\n"
	"          \"413\": { \"$ref\": \"#/components/responses/Error\" },\n"
	"          \"415\": { \"$ref\": \"#/components/responses/Error\" },\n"
	"          \"503\": { \"$ref\": \"#/components/responses/Error\" }\n"
	"        }\n"
	"      },\n"
	"      \"options\": { \"summary\": \"CORS preflight\", \"responses\": { \"204\": { \"description\": \"Allowed methods and headers (Allow, Access-Control-Allow-*).\" } } }\n"
	"    },\n"
	"    \"/api/v1/codes\": {\n"
	"      \"get\": {\n"
	"        \"operationId\": \"codes\",\n"
	"        \"summary\": \"Every code in the knowledge base\",\n"
	"        \"responses\": { \"200\": { \"description\": \"The index.\", \"content\": { \"application/json\": { \"schema\": { \"type\": \"array\", \"items\": { \"$ref\": \"#/components/schemas/CodeInfo\" } } } } }, \"304\": { \"description\": \"Not modified.\" } }\n"
	"      },\n"
	"      \"options\": { \"summary\": \"CORS preflight\", \"responses\": { \"204\": { \"description\": \"Allowed methods and headers (Allow, Access-Control-Allow-*).\" } } }\n"
	"    },\n"
	"    \"/api/v1/openapi.json\": {\n"
	"      \"get\": {\n"
	"        \"operationId\": \"openapi\",\n"
	"        \"summary\": \"This description\",\n"
	"        \"responses\": { \"200\": { \"description\": \"OpenAPI 3.1.\", \"content\": { \"application/json\": { \"schema\": { \"type\": \"object\" } } } } }\n"
	"      }\n"
	"    },\n"
	"    \"/healthz\": {\n"
	"      \"get\": {\n"
	"        \"operationId\": \"health\",\n"
	"        \"summary\": \"Liveness\",\n"
	"        \"responses\": { \"200\": { \"description\": \"Alive.\", \"content\": { \"application/json\": { \"schema\": { \"type\": \"object\", \"properties\": { \"status\": { \"const\": \"ok\" }, \"version\": { \"type\": \"string\" }, \"codes\": { \"type\": \"integer\" } }, \"required\": [\"status\"] } } } } }\n"
	"      }\n"
	"    },\n"
	"    \"/metrics\": {\n"
	"      \"get\": {\n"
	"        \"operationId\": \"metrics\",\n"
	"        \"summary\": \"Counters and a latency histogram in the Prometheus text format\",\n"
	"        \"responses\": { \"200\": { \"description\": \"Prometheus text format 0.0.4.\", \"content\": { \"text/plain\": { \"schema\": { \"type\": \"string\" } } } } }\n"
	"      }\n"
	"    },\n"
	"    \"/\": {\n"
	"      \"get\": {\n"
	"        \"operationId\": \"index\",\n"
	"        \"summary\": \"Page: every code, searchable\",\n"
	"        \"parameters\": [\n"
	"          { \"name\": \"q\", \"in\": \"query\", \"description\": \"Search: a code, a pair or words.\", \"schema\": { \"type\": \"string\", \"maxLength\": 200 } },\n"
	"          { \"name\": \"f\", \"in\": \"query\", \"description\": \"Filter.\", \"schema\": { \"type\": \"string\", \"enum\": [\"all\", \"transient\", \"permanent\", \"nonstandard\"] } }\n"
	"        ],\n"
	"        \"responses\": { \"200\": { \"$ref\": \"#/components/responses/Page\" }, \"304\": { \"description\": \"Not modified.\" } }\n"
	"      }\n"
	"    },\n"
	"    \"/code/{code}\": {\n"
	"      \"get\": {\n"
	"        \"operationId\": \"codePage\",\n"
	"        \"summary\": \"Page: one code or pair (552-4.3.1)\",\n"
	"        \"parameters\": [ { \"name\": \"code\", \"in\": \"path\", \"required\": true, \"schema\": { \"type\": \"string\", \"maxLength\": 32 }, \"example\": \"552-4.3.1\" } ],\n"
	"        \"responses\": { \"200\": { \"$ref\": \"#/components/responses/Page\" }, \"304\": { \"description\": \"Not modified.\" }, \"404\": { \"$ref\": \"#/components/responses/Page\" } }\n"
	"      }\n"
	"    },\n"
	"    \"/reasons\": {\n"
	"      \"get\": { \"operationId\": \"reasons\", \"summary\": \"Page: the bounce reasons\", \"responses\": { \"200\": { \"$ref\": \"#/components/responses/Page\" } } }\n"
	"    },\n"
	"    \"/analyze\": {\n"
	"      \"get\": {\n"
	"        \"operationId\": \"analyzeForm\",\n"
	"        \"summary\": \"Page: the form, or the analysis of ?text=\",\n"
	"        \"parameters\": [ { \"name\": \"text\", \"in\": \"query\", \"schema\": { \"type\": \"string\" } } ],\n"
	"        \"responses\": { \"200\": { \"$ref\": \"#/components/responses/Page\" } }\n"
	"      },\n"
	"      \"post\": {\n"
	"        \"operationId\": \"analyze\",\n"
	"        \"summary\": \"Page: the analysis of a pasted reply, log fragment, bounce or mbox\",\n"
	"        \"requestBody\": { \"required\": true, \"content\": { \"application/x-www-form-urlencoded\": { \"schema\": { \"type\": \"object\", \"properties\": { \"text\": { \"type\": \"string\" } }, \"required\": [\"text\"] } } } },\n"
	"        \"responses\": { \"200\": { \"$ref\": \"#/components/responses/Page\" }, \"413\": { \"$ref\": \"#/components/responses/Page\" } }\n"
	"      }\n"
	"    },\n"
	"    \"/api\": {\n"
	"      \"get\": { \"operationId\": \"apiPage\", \"summary\": \"Page: this API, readable\", \"responses\": { \"200\": { \"$ref\": \"#/components/responses/Page\" } } }\n"
	"    },\n"
	"    \"/static/{file}\": {\n"
	"      \"get\": {\n"
	"        \"operationId\": \"static\",\n"
	"        \"summary\": \"The stylesheet, the script and the icon\",\n"
	"        \"parameters\": [ { \"name\": \"file\", \"in\": \"path\", \"required\": true, \"schema\": { \"type\": \"string\", \"enum\": [\"style.css\", \"app.js\", \"icon.svg\"] } } ],\n"
	"        \"responses\": { \"200\": { \"description\": \"The file.\", \"content\": { \"text/css\": {}, \"text/javascript\": {}, \"image/svg+xml\": {} } }, \"304\": { \"description\": \"Not modified.\" } }\n"
	"      }\n"
	"    }\n"
	"  },\n"
	"  \"components\": {\n"
	"    \"parameters\": {\n"
	"      \"mode\": { \"name\": \"mode\", \"in\": \"query\", \"description\": \"How the input is read: a code first, then any text (auto), or only as one.\", \"schema\": { \"type\": \"string\", \"enum\": [\"auto\", \"code\", \"text\", \"file\"] } }\n"
	"    },\n"
	"    \"headers\": {\n"
	"      \"ETag\": { \"description\": \"Strong entity tag of the body.\", \"schema\": { \"type\": \"string\" } },\n"
	"      \"X-Request-Id\": { \"description\": \"The client's request id (1-64 printable bytes), else one made by the server.\", \"schema\": { \"type\": \"string\", \"maxLength\": 64 } }\n"
	"    },\n"
	"    \"responses\": {\n"
	"      \"Error\": { \"description\": \"An error.\", \"content\": { \"application/json\": { \"schema\": { \"$ref\": \"#/components/schemas/Error\" } } } },\n"
	"      \"Page\": { \"description\": \"An HTML page.\", \"content\": { \"text/html\": { \"schema\": { \"type\": \"string\" } } } }\n"
	"    },\n"
	"    \"schemas\": {\n"
	"      \"Error\": { \"type\": \"object\", \"properties\": { \"error\": { \"type\": \"string\" }, \"status\": { \"type\": \"integer\" } }, \"required\": [\"error\", \"status\"] },\n"
	"      \"ExplainRequest\": { \"type\": \"object\", \"properties\": { \"q\": { \"type\": \"string\" }, \"text\": { \"type\": \"string\" }, \"mode\": { \"type\": \"string\", \"enum\": [\"auto\", \"code\", \"text\", \"file\"] } } },\n"
	"      \"Explanation\": {\n"
	"        \"type\": \"object\",\n"
	"        \"properties\": {\n"
	"          \"query\": { \"type\": \"string\" }, \"replycode\": { \"type\": \"string\" }, \"status\": { \"type\": \"string\" },\n"
	"          \"class\": { \"type\": \"string\" }, \"retry\": { \"type\": \"boolean\" }, \"standard\": { \"type\": \"boolean\" },\n"
	"          \"issues\": { \"type\": \"array\", \"items\": { \"type\": \"string\" } }, \"reason\": { \"type\": \"string\" },\n"
	"          \"hardbounce\": { \"type\": \"boolean\" }, \"advice\": { \"type\": \"string\" },\n"
	"          \"fixer\": { \"type\": \"array\", \"items\": { \"type\": \"string\", \"enum\": [\"sender\", \"sender-admin\", \"recipient\", \"recipient-admin\", \"none\"] } },\n"
	"          \"title\": { \"type\": \"string\" }, \"short_answer\": { \"type\": \"string\" }, \"quick_fix\": { \"type\": \"string\" },\n"
	"          \"references\": { \"type\": \"array\", \"items\": { \"type\": \"string\" } },\n"
	"          \"reference_links\": { \"type\": \"array\", \"items\": { \"type\": \"object\", \"properties\": { \"text\": { \"type\": \"string\" }, \"url\": { \"type\": \"string\", \"format\": \"uri\" } }, \"required\": [\"text\", \"url\"] } },\n"
	"          \"evidence\": { \"type\": \"array\", \"items\": { \"type\": \"string\" } }\n"
	"        }\n"
	"      },\n"
	"      \"Fact\": {\n"
	"        \"type\": \"object\",\n"
	"        \"description\": \"One verdict, with Sisimai's field names.\",\n"
	"        \"properties\": {\n"
	"          \"recipient\": { \"type\": \"string\" }, \"action\": { \"type\": \"string\" }, \"reason\": { \"type\": \"string\" },\n"
	"          \"deliverystatus\": { \"type\": \"string\" }, \"replycode\": { \"type\": \"string\" }, \"diagnosticcode\": { \"type\": \"string\" },\n"
	"          \"hardbounce\": { \"type\": \"boolean\" }, \"retry\": { \"type\": \"boolean\" }, \"advice\": { \"type\": \"string\" },\n"
	"          \"fixer\": { \"type\": \"array\", \"items\": { \"type\": \"string\" } }, \"origin\": { \"type\": \"string\" },\n"
	"          \"evidence\": { \"type\": \"array\", \"items\": { \"type\": \"string\" } }\n"
	"        }\n"
	"      },\n"
	"      \"DecodeResult\": {\n"
	"        \"type\": \"object\",\n"
	"        \"properties\": {\n"
	"          \"results\": { \"type\": \"array\", \"items\": { \"$ref\": \"#/components/schemas/Fact\" } },\n"
	"          \"counts\": {\n"
	"            \"type\": \"object\",\n"
	"            \"description\": \"messages = bounces + not_bounces + errors; results = the facts.\",\n"
	"            \"properties\": { \"messages\": { \"type\": \"integer\" }, \"bounces\": { \"type\": \"integer\" }, \"not_bounces\": { \"type\": \"integer\" }, \"errors\": { \"type\": \"integer\" }, \"results\": { \"type\": \"integer\" } },\n"
	"            \"required\": [\"messages\", \"bounces\", \"not_bounces\", \"errors\", \"results\"]\n"
	"          },\n"
	"          \"errors\": { \"type\": \"array\", \"items\": { \"type\": \"object\", \"properties\": { \"origin\": { \"type\": \"string\" }, \"error\": { \"type\": \"string\" } }, \"required\": [\"origin\", \"error\"] } }\n"
	"        },\n"
	"        \"required\": [\"results\", \"counts\", \"errors\"]\n"
	"      },\n"
	"      \"CodeInfo\": {\n"
	"        \"type\": \"object\",\n"
	"        \"properties\": { \"code\": { \"type\": \"string\" }, \"title\": { \"type\": \"string\" }, \"class\": { \"type\": \"string\" }, \"standard\": { \"type\": \"boolean\" }, \"allowed\": { \"type\": \"string\" }, \"group\": { \"type\": \"string\" }, \"url\": { \"type\": \"string\" } },\n"
	"        \"required\": [\"code\", \"title\", \"url\"]\n"
	"      }\n"
	"    }\n"
	"  }\n"
	"}\n";

/* The document with the library's version in it. */
void openapi_json(smtpdiag_buf *b)
{
	const char *v = strstr(openapi_text, "@VERSION@");

	if (!v) {
		hb_puts(b, openapi_text);
		return;
	}
	hb_put(b, openapi_text, (size_t)(v - openapi_text));
	hb_puts(b, smtpdiag_version());
	hb_puts(b, v + strlen("@VERSION@"));
}

static const char *const methods[] = { "get", "post", "options", NULL };

static void api_row(smtpdiag_buf *b, const char *path, const char *method, json_t *op)
{
	const char *sum = json_string_value(json_object_get(op, "summary"));
	char up[8];
	size_t i;

	for (i = 0; method[i] && i + 1 < sizeof(up); i++)
		up[i] = (char)(method[i] - 32);
	up[i] = '\0';
	smtpdiag_buf_printf(b, "<tr><td><code>%s</code></td><td><code>", up);
	hb_htmls(b, path);
	hb_puts(b, "</code></td><td>");
	hb_htmls(b, sum ? sum : "");
	hb_puts(b, "</td></tr>\n");
}

/* The routes of the document as a table, with examples. */
void render_api(smtpdiag_buf *b)
{
	smtpdiag_buf doc = { 0 };
	json_t *root, *paths, *item;
	const char *path;

	openapi_json(&doc);
	root = doc.oom ? NULL : json_loadb(doc.data, doc.len, 0, NULL);
	smtpdiag_buf_free(&doc);
	paths = json_object_get(root, "paths");
	page_begin(b, "API", NULL);
	hb_puts(b, "<h1>JSON API</h1>\n<p class=\"lead\">Every route, from the "
		   "<a href=\"/api/v1/openapi.json\">OpenAPI 3.1 description</a>. The API answers any origin "
		   "(CORS); every answer carries <code>X-Request-Id</code>; cacheable answers carry an "
		   "<code>ETag</code> and answer 304 to <code>If-None-Match</code>.</p>\n"
		   "<table class=\"api\"><thead><tr><th>Method</th><th>Path</th><th>What</th></tr></thead><tbody>\n");
	json_object_foreach(paths, path, item) {
		for (size_t i = 0; methods[i]; i++) {
			json_t *op = json_object_get(item, methods[i]);
			if (op)
				api_row(b, path, methods[i], op);
		}
	}
	hb_puts(b, "</tbody></table>\n<h2>Examples</h2>\n<pre>curl -s 'http://HOST/api/v1/explain?q=552%204.3.1'\n"
		   "curl -s -d '550 5.1.1 &lt;bob@example.org&gt;: User unknown' http://HOST/api/v1/explain\n"
		   "curl -s -H 'Content-Type: application/json' -d '{\"q\": \"431\"}' http://HOST/api/v1/explain\n"
		   "curl -s -H 'Content-Type: message/rfc822' --data-binary @bounce.eml http://HOST/api/v1/decode</pre>\n");
	json_decref(root);
	page_end(b);
}
