/* index.c - the index of every code in the knowledge base (/ and /api/v1/codes):
 * sorted and grouped by class (reply codes) and subject (enhanced statuses),
 * searched and filtered on the server so it works without the script. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "httpd_int.h"

enum { K_T = 1, K_P = 2, K_N = 4 }; /* transient, permanent, non-standard */
enum { G_REPLY = 0, G_STATUS = 4, G_COUNT = 12 };

static const char *const group_names[G_COUNT] = {
	"2xx Success", "3xx Intermediate", "4xx Transient failure", "5xx Permanent failure",
	"X.0 Other or undefined", "X.1 Addressing", "X.2 Mailbox", "X.3 Mail system",
	"X.4 Network and routing", "X.5 Mail delivery protocol", "X.6 Message content or media",
	"X.7 Security or policy",
};

typedef struct irow {
	const smtpdiag_code_info *ci;
	int group, num, detail, prefix;
	unsigned kinds;
	char *search;     /* lower-case "code title short answer", or a static "" */
} irow;

static irow *rows;
static size_t nrows;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* A reason's name and meaning, for search ("userunknown the recipient mailbox
 * does not exist"), once per code. */
static void reason_words(smtpdiag_buf *b, const char *reason)
{
	const char *m = reason && *reason ? smtpdiag_reason_meaning(reason) : NULL;

	if (m && !(b->len && strstr(b->data, m)))
		smtpdiag_buf_printf(b, " %s %s", reason, m);
}

/* The verdict of a code: its reason's words, and the short answer. */
static void verdict_words(smtpdiag_buf *b, const char *code, int short_answer)
{
	smtpdiag_explanation *e = NULL;
	smtpdiag_error err = { 0, "" };

	if (smtpdiag_explain(code, strlen(code), SMTPDIAG_EXPLAIN_CODE, &e, &err) < 0)
		return;
	if (short_answer)
		smtpdiag_buf_printf(b, " %s", e->short_answer);
	reason_words(b, e->reason);
	smtpdiag_explanation_free(e);
}

/* What a search looks in, in lower case: the code, its title, the other words
 * people use for it (the entry's aka), its short answer, and the reason of its
 * verdict; a status without a class ("X.1.1") also the reasons it has in the
 * classes the registry allows it ("5.1.1": userunknown). */
static void search_text(irow *r, const smtpdiag_code_info *ci)
{
	smtpdiag_buf b = { 0 };
	const char *a = ci->allowed;

	smtpdiag_buf_printf(&b, "%s %s", ci->code, ci->title);
	for (size_t i = 0; ci->aka && ci->aka[i]; i++)
		smtpdiag_buf_printf(&b, " %s", ci->aka[i]);
	verdict_words(&b, ci->code, 1);
	for (const char *c = "45"; ci->code[0] == 'X' && *c; c++) {
		char q[16];
		if (!strchr(a, *c) && strcmp(a, "any"))
			continue;
		snprintf(q, sizeof(q), "%c%s", *c, ci->code + 1);
		verdict_words(&b, q, 0);
	}
	for (size_t i = 0; i < b.len; i++)
		b.data[i] = (char)((b.data[i] >= 'A' && b.data[i] <= 'Z') ? b.data[i] + 32 : b.data[i]);
	r->search = b.oom || !b.data ? (smtpdiag_buf_free(&b), (char *)"") : b.data;
}

static void fill_row(irow *r, const smtpdiag_code_info *ci)
{
	const char *c = ci->code;

	r->ci = ci;
	if (c[1] == '.') { /* X.S.D or a class-specific status such as 5.3.1 */
		r->group = G_STATUS + (c[2] - '0');
		r->detail = (int)strtol(strchr(c + 2, '.') + 1, NULL, 10);
		r->prefix = c[0] == 'X' ? 0 : c[0] - '0';
		r->kinds = ci->klass == SMTPDIAG_CLASS_PERMANENT ? K_P : ci->klass == SMTPDIAG_CLASS_TRANSIENT ? K_T
			   : (strchr(ci->allowed, '4') || !strcmp(ci->allowed, "any") ? K_T : 0) |
			     (strchr(ci->allowed, '5') || !strcmp(ci->allowed, "any") ? K_P : 0);
	} else {
		r->num = (int)strtol(c, NULL, 10);
		r->group = G_REPLY + (ci->klass == SMTPDIAG_CLASS_SUCCESS ? 0 : ci->klass == SMTPDIAG_CLASS_INTERMEDIATE ? 1
				      : ci->klass == SMTPDIAG_CLASS_TRANSIENT ? 2 : 3);
		r->kinds = ci->klass == SMTPDIAG_CLASS_TRANSIENT ? K_T : ci->klass == SMTPDIAG_CLASS_PERMANENT ? K_P : 0;
	}
	if (!ci->standard)
		r->kinds |= K_N;
	if (r->group >= G_COUNT)
		r->group = G_COUNT - 1;
	search_text(r, ci);
}

static int cmp_rows(const void *a, const void *b)
{
	const irow *x = a, *y = b;

	if (x->group != y->group)
		return x->group - y->group;
	if (x->num != y->num)
		return x->num - y->num;
	if (x->detail != y->detail)
		return x->detail - y->detail;
	return x->prefix - y->prefix;
}

static void build(void)
{
	size_t n = smtpdiag_code_count();

	rows = calloc(n ? n : 1, sizeof(*rows));
	if (!rows)
		return;
	for (size_t i = 0; i < n; i++)
		fill_row(&rows[nrows++], smtpdiag_code_at(i));
	qsort(rows, nrows, sizeof(*rows), cmp_rows);
}

void index_init(void)
{
	pthread_once(&once, build);
}

const smtpdiag_code_info *index_info(const char *code)
{
	index_init();
	for (size_t i = 0; i < nrows; i++)
		if (!strcmp(rows[i].ci->code, code))
			return rows[i].ci;
	return NULL;
}

const char *index_title(const char *code)
{
	const smtpdiag_code_info *ci = index_info(code);
	char x[16];

	if (ci)
		return ci->title;
	if (strlen(code) < sizeof(x) && (code[0] == '2' || code[0] == '4' || code[0] == '5') && code[1] == '.') {
		snprintf(x, sizeof(x), "X%s", code + 1);
		return index_title(x);
	}
	return NULL;
}

/* Every word of q (lower case) in the row; "4.3.1" also finds "x.3.1". */
static int row_matches(const irow *r, const char *q)
{
	char w[64];

	while (q && *q) {
		size_t n = 0;
		while (*q == ' ' || *q == '\t')
			q++;
		while (*q && *q != ' ' && *q != '\t') {
			if (n + 1 < sizeof(w))
				w[n++] = (char)((*q >= 'A' && *q <= 'Z') ? *q + 32 : *q);
			q++;
		}
		w[n] = '\0';
		if (!n || strstr(r->search, w))
			continue;
		if (!((w[0] == '2' || w[0] == '4' || w[0] == '5') && w[1] == '.'))
			return 0;
		w[0] = 'x'; /* a class-specific status also finds its X. entry */
		if (!strstr(r->search, w))
			return 0;
	}
	return 1;
}

/* Does one word of q (a code or a pair: "552 4.3.1", "552-4.3.1") name this row's code? */
static int code_word(const irow *r, const char *q)
{
	const char *c = r->ci->code;

	while (q && *q) {
		size_t n = strcspn(q, " -\t");
		int x = n > 1 && (q[0] == '2' || q[0] == '4' || q[0] == '5') && q[1] == '.';
		if (n && strlen(c) == n && (!strncasecmp(q, c, n) || (x && (c[0] == 'X' || c[0] == 'x') && !strncasecmp(q + 1, c + 1, n - 1))))
			return 1;
		q += n + (q[n] != '\0');
	}
	return 0;
}

static unsigned filter_bits(const char *f)
{
	if (!f)
		return 0;
	return !strcmp(f, "transient") ? K_T : !strcmp(f, "permanent") ? K_P : !strcmp(f, "nonstandard") ? K_N : 0;
}

static void filter_links(smtpdiag_buf *b, const char *q, unsigned on)
{
	static const struct { const char *f, *label; unsigned bit; } fl[] = {
		{ "all", "All", 0 }, { "transient", "Transient (4xx)", K_T },
		{ "permanent", "Permanent (5xx)", K_P }, { "nonstandard", "Non-standard", K_N },
	};

	hb_puts(b, "<nav class=\"filters\" aria-label=\"Filters\">");
	for (size_t i = 0; i < sizeof(fl) / sizeof(fl[0]); i++) {
		smtpdiag_buf_printf(b, "<a href=\"/?f=%s", fl[i].f);
		if (q && *q) {
			hb_puts(b, "&amp;q=");
			hb_url(b, q);
		}
		smtpdiag_buf_printf(b, "\"%s>%s</a>", on == fl[i].bit ? " class=\"on\" aria-current=\"page\"" : "", fl[i].label);
	}
	hb_puts(b, "</nav>\n");
}

static void search_form(smtpdiag_buf *b, const char *q, const char *f, unsigned on)
{
	hb_puts(b, "<form class=\"search\" action=\"/\" method=\"get\" role=\"search\">"
		   "<label class=\"sr\" for=\"q\">Search codes</label>"
		   "<input id=\"q\" type=\"search\" name=\"q\" autocomplete=\"off\" "
		   "placeholder=\"431, 4.3.1, 552 4.3.1 or words: mailbox full\" value=\"");
	hb_htmls(b, q);
	hb_puts(b, "\">");
	if (on) {
		hb_puts(b, "<input type=\"hidden\" name=\"f\" value=\"");
		hb_htmls(b, f);
		hb_puts(b, "\">");
	}
	hb_puts(b, "<button type=\"submit\">Search</button></form>\n");
}

/* A query that is itself a code or a pair gets a direct link to its page. */
static void code_callout(smtpdiag_buf *b, const char *q)
{
	smtpdiag_explanation *e;
	smtpdiag_error err = { 0, "" };

	if (smtpdiag_explain(q, strlen(q), SMTPDIAG_EXPLAIN_CODE, &e, &err) < 0)
		return;
	hb_puts(b, "<p class=\"box\">Explain ");
	link_code(b, q);
	hb_puts(b, ": ");
	hb_htmls(b, e->title);
	hb_puts(b, "</p>\n");
	smtpdiag_explanation_free(e);
}

static void row_html(smtpdiag_buf *b, const irow *r, int show)
{
	smtpdiag_buf_printf(b, "<li data-k=\"%s%s%s\"%s data-s=\"", r->kinds & K_T ? "t" : "", r->kinds & K_P ? "p" : "",
		     r->kinds & K_N ? "n" : "", show ? "" : " hidden");
	hb_htmls(b, r->search);
	hb_puts(b, "\"><a href=\"/code/");
	hb_url(b, r->ci->code);
	hb_puts(b, "\"><span class=\"code\">");
	hb_htmls(b, r->ci->code);
	hb_puts(b, "</span><span class=\"t\">");
	hb_htmls(b, r->ci->title);
	if (r->kinds & K_N)
		hb_puts(b, " <span class=\"tag\">non-standard</span>");
	hb_puts(b, "</span></a></li>\n");
}

typedef struct iquery {
	const char *q;
	unsigned on;   /* filter bits, 0 for all */
	int code;      /* q is a code or a pair: match codes, not words */
} iquery;

static int shown(const irow *r, const iquery *iq)
{
	if (iq->on && !(r->kinds & iq->on))
		return 0;
	return iq->code ? code_word(r, iq->q) : row_matches(r, iq->q);
}

/* Is any row of the group starting at row i shown? */
static int group_shown(size_t i, const iquery *iq)
{
	for (int g = rows[i].group; i < nrows && rows[i].group == g; i++)
		if (shown(&rows[i], iq))
			return 1;
	return 0;
}

/* Every row, those the query leaves out hidden: the script searches the whole list. */
static void groups_html(smtpdiag_buf *b, const iquery *iq)
{
	int open = -1;

	for (size_t i = 0; i < nrows; i++) {
		const irow *r = &rows[i];
		if (r->group != open) {
			if (open >= 0)
				hb_puts(b, "</ul></section>\n");
			if ((open < G_STATUS) != (r->group < G_STATUS) || open < 0) {
				if (open >= 0)
					hb_puts(b, "</div></div>\n");
				smtpdiag_buf_printf(b, "<div class=\"part\"><h2>%s</h2><div class=\"groups\">\n",
					  r->group < G_STATUS ? "Reply codes (RFC 5321 and in the wild)"
							      : "Enhanced status codes (RFC 3463, IANA registry)");
			}
			smtpdiag_buf_printf(b, "<section class=\"group\"%s><h2>%s</h2><ul>\n",
				     group_shown(i, iq) ? "" : " hidden", group_names[r->group]);
			open = r->group;
		}
		row_html(b, r, shown(r, iq));
	}
	if (open >= 0)
		hb_puts(b, "</ul></section>\n</div></div>\n");
}

/* A query that is a whole reply line gets a link to analyze it. */
static void reply_callout(smtpdiag_buf *b, const char *q)
{
	if (!q || strlen(q) < 5 || !strchr("2345", q[0]) || strspn(q, "0123456789") != 3 || (q[3] != ' ' && q[3] != '-'))
		return;
	hb_puts(b, "<p class=\"box\">A whole reply line: <a href=\"/analyze?text=");
	hb_url(b, q);
	hb_puts(b, "\">analyze it</a> for the verdict.</p>\n");
}

static int is_code_query(const char *q)
{
	smtpdiag_explanation *e;
	smtpdiag_error err = { 0, "" };

	if (!q || !*q || strlen(q) > 24 || smtpdiag_explain(q, strlen(q), SMTPDIAG_EXPLAIN_CODE, &e, &err) < 0)
		return 0;
	smtpdiag_explanation_free(e);
	return 1;
}

void render_index(smtpdiag_buf *b, const char *q, const char *f)
{
	iquery iq = { q, filter_bits(f), is_code_query(q) };
	size_t count = 0;

	index_init();
	for (size_t i = 0; i < nrows; i++)
		count += (size_t)shown(&rows[i], &iq);
	page_begin(b, q && *q ? q : "SMTP reply and status codes", "wide");
	hb_puts(b, "<h1>SMTP reply codes and enhanced status codes</h1>\n"
		   "<p class=\"lead\">What each code means, whether to retry, and who has to fix it. "
		   "Got a whole bounce or log line? <a href=\"/analyze\">Analyze it</a>.</p>\n");
	search_form(b, q, f, iq.on);
	filter_links(b, q, iq.on);
	hb_puts(b, "<div id=\"callout\">");
	if (iq.code)
		code_callout(b, q);
	else
		reply_callout(b, q);
	smtpdiag_buf_printf(b, "</div>\n<p class=\"muted\" id=\"count\" role=\"status\" aria-live=\"polite\">%zu code%s</p>\n",
		     count, count == 1 ? "" : "s");
	smtpdiag_buf_printf(b, "<p id=\"empty\"%s>No code matches. Try fewer words, or paste the whole reply into "
		     "<a href=\"/analyze\">Analyze</a>.</p>\n", count ? " hidden" : "");
	smtpdiag_buf_printf(b, "<div id=\"codes\" data-f=\"%s\">\n", iq.on == K_T ? "t" : iq.on == K_P ? "p" : iq.on == K_N ? "n" : "");
	groups_html(b, &iq);
	hb_puts(b, "</div>\n");
	page_end(b);
}

void codes_json(smtpdiag_buf *b)
{
	index_init();
	hb_puts(b, "[");
	for (size_t i = 0; i < nrows; i++) {
		const irow *r = &rows[i];
		hb_puts(b, i ? ",\n{\"code\":" : "\n{\"code\":");
		hb_json(b, r->ci->code);
		hb_puts(b, ",\"title\":");
		hb_json(b, r->ci->title);
		smtpdiag_buf_printf(b, ",\"class\":\"%s\",\"standard\":%s,\"allowed\":", smtpdiag_class_name(r->ci->klass),
			  r->ci->standard ? "true" : "false");
		hb_json(b, r->ci->allowed);
		smtpdiag_buf_printf(b, ",\"group\":\"%s\",\"url\":\"/code/", group_names[r->group]);
		hb_url(b, r->ci->code);
		hb_puts(b, "\"}");
	}
	hb_puts(b, "\n]\n");
}
