/* layout.c - the frame of every page, error pages, code links, and the three
 * static files (stylesheet, script, icon). No external resources: the CSP is
 * default-src 'self', and the script is a same-origin file, never inline. */
#include <string.h>

#include "httpd_int.h"

const char css_text[] =
	":root{--fg:#1c2230;--muted:#5a6372;--bg:#fff;--soft:#f5f7fa;--line:#e2e6eb;--link:#1a5bc4;"
	"--t:#8a5200;--tbg:#fff4e0;--p:#a8231b;--pbg:#fdecea;--s:#17703a;--sbg:#e7f5ec;--n:#6335ad;--nbg:#f2ecfc}\n"
	"*{box-sizing:border-box}html{-webkit-text-size-adjust:100%}[hidden]{display:none!important}\n"
	"body{margin:0;font:16px/1.55 system-ui,-apple-system,\"Segoe UI\",Roboto,Helvetica,Arial,sans-serif;"
	"color:var(--fg);background:var(--bg)}\n"
	"a{color:var(--link)}a:hover{text-decoration-thickness:2px}\n"
	"header.top{display:flex;flex-wrap:wrap;align-items:baseline;gap:.3rem 1.4rem;padding:.7rem 1rem;"
	"border-bottom:1px solid var(--line);background:var(--soft)}\n"
	".brand{font-weight:700;font-size:1.1rem;color:var(--fg);text-decoration:none}\n"
	".brand span{color:var(--link)}header nav a{margin-right:1rem;text-decoration:none}\n"
	"main{max-width:50rem;margin:0 auto;padding:1rem 1rem 3rem}main.wide{max-width:76rem}\n"
	"h1{font-size:1.7rem;line-height:1.25;margin:.6rem 0 .5rem}h1 .code{color:var(--link)}\n"
	"h2{font-size:1.2rem;margin:1.8rem 0 .5rem;padding-bottom:.2rem;border-bottom:1px solid var(--line)}\n"
	"h3{font-size:1rem;margin:1.1rem 0 .2rem}p{margin:.4rem 0 .8rem}ul,ol{padding-left:1.4rem}li{margin:.25rem 0}\n"
	"code,.code,textarea,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}\n"
	"pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--soft);padding:.6rem .8rem;border-radius:.3rem;"
	"margin:.3rem 0;font-size:.9rem}\n"
	".lead{font-size:1.08rem;color:var(--muted)}.muted{color:var(--muted);font-size:.92rem}\n"
	".crumbs{font-size:.9rem;color:var(--muted);margin:.3rem 0}\n"
	".badges{margin:.3rem 0 .8rem}.badge{display:inline-block;padding:.12rem .6rem;margin:0 .35rem .35rem 0;"
	"border-radius:1rem;font-size:.85rem;background:var(--soft);border:1px solid var(--line)}\n"
	".transient{--c:var(--t);--cb:var(--tbg)}.permanent{--c:var(--p);--cb:var(--pbg)}"
	".success,.intermediate{--c:var(--s);--cb:var(--sbg)}.nonstd{--c:var(--n);--cb:var(--nbg)}\n"
	".badge.transient,.badge.permanent,.badge.success,.badge.intermediate,.badge.nonstd{color:var(--c);"
	"background:var(--cb);border-color:transparent}\n"
	".v-retry{--c:var(--s);--cb:var(--sbg)}.v-suppress{--c:var(--p);--cb:var(--pbg)}.v-fix{--c:var(--t);--cb:var(--tbg)}"
	".v-none{--c:var(--muted);--cb:var(--soft)}.mismatch{--c:var(--n);--cb:var(--nbg)}\n"
	".verdict{border:2px solid var(--c);background:var(--cb);border-radius:.5rem;padding:.5rem 1rem;margin:.5rem 0 1rem}\n"
	".v-head{font-size:1.2rem;line-height:1.3;font-weight:700;color:var(--c);margin:.1rem 0 .4rem}\n"
	".v-facts{display:flex;flex-wrap:wrap;gap:.2rem 1.4rem;margin:.2rem 0 .4rem}"
	".v-facts div{display:flex;gap:.4rem;align-items:baseline}.v-facts dt{color:var(--fg);font-size:.92rem}"
	".v-facts dd{margin:0;font-weight:700}.v-facts dd.yes,.v-facts dd.ok{color:var(--s)}"
	".v-facts dd.no{color:var(--t)}.v-facts dd.no-go{color:var(--p)}\n"
	".v-do{font-weight:600;margin:.2rem 0}.v-short{margin:.3rem 0 .2rem}\n"
	"dl.reasons dt{font-weight:600;margin-top:.6rem}dl.reasons dd{margin:0 0 .3rem 1rem}dl.reasons dt:target{background:var(--tbg)}\n"
	".summary .counts{font-size:1.05rem}.tallies{display:flex;flex-wrap:wrap;gap:0 2.5rem}.tallies h3{margin-top:.4rem}"
	".tally{list-style:none;padding:0;margin:.2rem 0}.tally .n{display:inline-block;min-width:2.6rem;font-weight:700;"
	"color:var(--c,var(--fg))}\n"
	".box{border-left:4px solid var(--c,var(--line));background:var(--cb,var(--soft));padding:.5rem 1rem;"
	"border-radius:.3rem;margin:.8rem 0}.box h2{border:0;margin-top:.4rem}\n"
	".verdict-line{font-size:1.15rem;font-weight:600;color:var(--c,var(--fg));margin:.3rem 0}\n"
	"form.search{display:flex;gap:.5rem;margin:1rem 0 .6rem}\n"
	"input[type=search],textarea{width:100%;font-size:1rem;padding:.55rem .7rem;border:1px solid #aeb6c2;"
	"border-radius:.35rem;background:#fff;color:var(--fg)}\n"
	"textarea{min-height:14rem;font-size:.9rem;line-height:1.4}\n"
	"button{font:inherit;font-weight:600;padding:.5rem 1.1rem;border-radius:.35rem;border:1px solid var(--link);"
	"background:var(--link);color:#fff;cursor:pointer}\n"
	".filters{display:flex;flex-wrap:wrap;gap:.4rem;margin:.4rem 0 1rem}.filters a{padding:.2rem .75rem;"
	"border:1px solid var(--line);border-radius:1rem;text-decoration:none;font-size:.92rem}\n"
	".filters a.on{background:var(--link);border-color:var(--link);color:#fff}\n"
	".groups{columns:20rem 3;column-gap:2.5rem}.group h2{font-size:1.05rem;break-after:avoid;margin-top:1rem}"
	".group:first-child h2{margin-top:.4rem}.group ul{list-style:none;padding:0;margin:0}.group li{break-inside:avoid}\n"
	".group li{margin:0;border-bottom:1px solid var(--line)}.group li a{display:flex;gap:.7rem;padding:.3rem 0;"
	"text-decoration:none;color:var(--fg)}.group li a:hover .t{text-decoration:underline}\n"
	".group .code{flex:0 0 3.6rem;font-weight:600;color:var(--link)}.group .t{flex:1}\n"
	".tag{font-size:.72rem;padding:0 .4rem;border-radius:.6rem;color:var(--n);background:var(--nbg);"
	"white-space:nowrap;vertical-align:1px}\n"
	".chips{list-style:none;padding:0}.chips li{margin:.3rem 0}.chips .code{font-weight:600;margin-right:.5rem}\n"
	"dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:.5rem 0}"
	"dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;overflow-wrap:anywhere}\n"
	"article.card{border:1px solid var(--line);border-left:4px solid var(--c,var(--line));border-radius:.4rem;"
	"padding:.3rem 1rem .6rem;margin:1rem 0}"
	"article.card h3{font-size:1.1rem;overflow-wrap:anywhere}\n"
	"table.api{border-collapse:collapse;width:100%}table.api td,table.api th{text-align:left;padding:.3rem .5rem;"
	"border-bottom:1px solid var(--line);vertical-align:top}table.api td:nth-child(2){overflow-wrap:anywhere}\n"
	"footer{max-width:76rem;margin:0 auto;padding:1rem;color:var(--muted);font-size:.85rem;"
	"border-top:1px solid var(--line)}\n"
	".sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}\n"
	"@media (max-width:40rem){body{font-size:15.5px}h1{font-size:1.4rem}main{padding:.6rem .8rem 2rem}"
	".groups{columns:1}dl.facts{grid-template-columns:1fr}dl.facts dd{margin-bottom:.4rem}"
	"header nav a{margin-right:.8rem}}\n";
const size_t css_len = sizeof(css_text) - 1;

/* Search of the index as one types, over the whole list (rows the server left
 * out are only hidden), with the address kept in step; a code, a pair or a
 * reply line goes straight to its page. The same search works without it. */
const char js_text[] =
	"(function(){'use strict';\n"
	"var q=document.getElementById('q'),list=document.getElementById('codes');\n"
	"if(!q||!list)return;\n"
	"var items=list.querySelectorAll('li[data-s]'),groups=list.querySelectorAll('.group'),\n"
	"count=document.getElementById('count'),empty=document.getElementById('empty'),\n"
	"callout=document.getElementById('callout'),f=list.getAttribute('data-f')||'';\n"
	"var CODE=/^\\s*(?:([2-5]\\d\\d)(?:[\\s-]+([245x]\\.\\d{1,3}\\.\\d{1,3}))?|([245x]\\.\\d{1,3}\\.\\d{1,3}))\\s*$/i,\n"
	"LINE=/^\\s*[2-5]\\d\\d[\\s-]+\\S+\\s+\\S/,go=null;\n"
	"function alt(w){return w.replace(/^[245]\\.(\\d{1,3}\\.\\d{1,3})$/,'x.$1');}\n"
	"function codeOf(li){return li.querySelector('.code').textContent.toLowerCase();}\n"
	"function codes(m){return [m[1],m[2],m[3]].filter(Boolean).map(function(c){return c.toLowerCase();});}\n"
	"function target(v){var m=CODE.exec(v);\n"
	"if(m)return '/code/'+encodeURIComponent(codes(m).join('-').replace(/^x/,'X'));\n"
	"if(LINE.test(v))return '/analyze?text='+encodeURIComponent(v.trim());return null;}\n"
	"function link(href,text){var p=document.createElement('p'),a=document.createElement('a');\n"
	"p.className='box';a.href=href;a.textContent=text;p.appendChild(a);return p;}\n"
	"function run(){var v=q.value,m=CODE.exec(v),shown=0,words=v.toLowerCase().split(/\\s+/).filter(Boolean),\n"
	"want=m?codes(m):null;\n"
	"items.forEach(function(li){var s=li.getAttribute('data-s'),ok=!f||li.getAttribute('data-k').indexOf(f)>=0;\n"
	"if(ok&&want){var c=codeOf(li);ok=want.some(function(w){return c===w||c===alt(w);});}\n"
	"else if(ok)ok=words.every(function(w){return s.indexOf(w)>=0||s.indexOf(alt(w))>=0;});\n"
	"li.hidden=!ok;if(ok)shown++;});\n"
	"groups.forEach(function(g){g.hidden=!g.querySelector('li[data-s]:not([hidden])');});\n"
	"if(count)count.textContent=shown+(shown===1?' code':' codes');\n"
	"if(empty)empty.hidden=shown>0;\n"
	"var t=target(v);go=t&&(!m||shown>0)?t:null;if(callout){callout.textContent='';\n"
	"if(go)callout.appendChild(link(go,m?'Open the explanation of '+v.trim():'Analyze this reply line'));}\n"
	"var u=new URLSearchParams();if(f)u.set('f',{t:'transient',p:'permanent',n:'nonstandard'}[f]);\n"
	"if(v.trim())u.set('q',v.trim());var s=u.toString();\n"
	"history.replaceState(null,'',location.pathname+(s?'?'+s:''));}\n"
	"q.addEventListener('input',run);\n"
	"q.form.addEventListener('submit',function(ev){ev.preventDefault();run();if(go)location.assign(go);});})();\n";
const size_t js_len = sizeof(js_text) - 1;

const char icon_svg[] =
	"<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 32 32\"><rect width=\"32\" height=\"32\" rx=\"6\" "
	"fill=\"#1a5bc4\"/><path d=\"M6 10h20v13H6z\" fill=\"none\" stroke=\"#fff\" stroke-width=\"2.4\"/>"
	"<path d=\"M6 10l10 8 10-8\" fill=\"none\" stroke=\"#fff\" stroke-width=\"2.4\"/></svg>\n";
const size_t icon_len = sizeof(icon_svg) - 1;

void page_begin(smtpdiag_buf *b, const char *title, const char *mainclass)
{
	hb_puts(b, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
	hb_htmls(b, title);
	hb_puts(b, " | smtpdiag</title>\n<link rel=\"stylesheet\" href=\"/static/style.css\">\n"
		   "<link rel=\"icon\" href=\"/static/icon.svg\" type=\"image/svg+xml\">\n"
		   "<script src=\"/static/app.js\" defer></script>\n</head><body>\n"
		   "<header class=\"top\"><a class=\"brand\" href=\"/\">smtp<span>diag</span></a>\n"
		   "<nav><a href=\"/\">Codes</a><a href=\"/analyze\">Analyze a bounce</a>"
		   "<a href=\"/reasons\">Reasons</a><a href=\"/api\">API</a></nav></header>\n<main");
	if (mainclass && *mainclass) {
		hb_puts(b, " class=\"");
		hb_htmls(b, mainclass);
		hb_puts(b, "\"");
	}
	hb_puts(b, ">\n");
}

void page_end(smtpdiag_buf *b)
{
	smtpdiag_buf_printf(b, "</main>\n<footer>smtpdiag %s: what an SMTP failure means and what to do about it. "
		     "JSON: <code>/api/v1/explain?q=431</code>, <code>POST /api/v1/decode</code>, "
		     "<code>/api/v1/codes</code>.</footer>\n</body></html>\n", smtpdiag_version());
}

static const char *status_text(int status)
{
	switch (status) {
	case 400: return "Bad request";
	case 404: return "Not found";
	case 405: return "Method not allowed";
	case 413: return "Too large";
	case 415: return "Unsupported content type";
	case 431: return "Request headers too large";
	case 503: return "Unavailable";
	default: return "Error";
	}
}

void page_error(smtpdiag_buf *b, int status, const char *msg)
{
	page_begin(b, status_text(status), NULL);
	smtpdiag_buf_printf(b, "<h1>%d %s</h1>\n<p>", status, status_text(status));
	hb_htmls(b, msg);
	hb_puts(b, "</p>\n<p><a href=\"/\">All codes</a> · <a href=\"/analyze\">Analyze a bounce</a></p>\n");
	page_end(b);
}

void link_code(smtpdiag_buf *b, const char *code)
{
	char href[64];
	size_t i;

	/* "552 4.3.1" links as /code/552-4.3.1 */
	for (i = 0; code[i] && i + 1 < sizeof(href); i++)
		href[i] = code[i] == ' ' ? '-' : code[i];
	href[i] = '\0';
	hb_puts(b, "<a class=\"code\" href=\"/code/");
	hb_url(b, href);
	hb_puts(b, "\">");
	hb_htmls(b, code);
	hb_puts(b, "</a>");
}
