#!/bin/sh
# CLI tests of `smtpdiag serve`: two servers on free loopback ports, every route
# requested with curl (status, content type, content, headers), escaping, limits,
# wrong methods, the access log, then a clean stop by signal. Bounded in time:
# every curl has --max-time, the servers are killed on exit whatever happens.
. "$(dirname "$0")/lib.sh"

if ! command -v curl >/dev/null 2>&1; then
	echo "not ok 1 - curl is missing (sh tools/install-deps.sh installs it)"
	exit 1
fi

PIDS=""
RQ=0
cleanup() {
	for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT

# start NAME ARGS...: start a server on a free port; sets PORT, writes $TMP/NAME.log
start() {
	name=$1; shift
	: >"$TMP/$name.log"
	"$BIN" serve --listen 127.0.0.1:0 "$@" 2>"$TMP/$name.log" &
	echo $! >"$TMP/$name.pid"
	PIDS="$PIDS $!"
	wait_port "$TMP/$name.log"
}

# req DESC -- CURL-ARGS... URL-PATH: request; body in $TMP/out, headers in $TMP/hdr, status in $ST
req() {
	desc=$1; shift 2
	last=""
	for a in "$@"; do last=$a; done
	ST=$(curl -s --max-time 10 -o "$TMP/out" -D "$TMP/hdr" -w '%{http_code}' "$@" 2>"$TMP/err")
	rc=$?
	: "$desc" "$last"
	[ "$rc" -eq 0 ] || ST="curl-exit-$rc"
	RQ=$((RQ + 1))
}

expect_status() {
	n=$((n + 1))
	if [ "$ST" = "$1" ]; then echo "ok $n - $2"; else
		echo "not ok $n - $2 (status $ST, want $1)"; head -c 300 "$TMP/out" | sed 's/^/#   /'; echo; fi
}

# expect_hdr PATTERN DESC: the last response's headers match (grep -Ei)
expect_hdr() {
	n=$((n + 1))
	if tr -d '\r' <"$TMP/hdr" | grep -Eiq -- "$1"; then echo "ok $n - $2"; else
		echo "not ok $n - $2 (headers lack /$1/)"; sed 's/^/#   /' "$TMP/hdr" | head -12; fi
}

# expect_not PATTERN DESC: the last body does not match (grep -E)
expect_not() {
	n=$((n + 1))
	if grep -Eq -- "$1" "$TMP/out"; then echo "not ok $n - $2 (body has /$1/)"; grep -E -- "$1" "$TMP/out" | head -3 | sed 's/^/#   /'
	else echo "ok $n - $2"; fi
}

# expect_log PATTERN DESC: the server log matches (grep -E)
expect_log() {
	n=$((n + 1))
	if grep -Eq -- "$1" "$TMP/$3.log"; then echo "ok $n - $2"; else
		echo "not ok $n - $2 (log lacks /$1/)"; tail -5 "$TMP/$3.log" | sed 's/^/#   /'; fi
}

ok_if() {
	n=$((n + 1))
	if [ "$1" = 1 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}

# ---- server A: default limits ----
start a
ok_if "$([ -n "$PORT" ] && echo 1)" "server starts on a free loopback port"
[ -n "$PORT" ] || { cat "$TMP/a.log"; exit 1; }
U="http://127.0.0.1:$PORT"

expect_exit 0 "serve --help" -- "$BIN" serve --help
expect_out "usage: smtpdiag serve" "serve help text"
expect_exit 2 "serve --bogus" -- "$BIN" serve --bogus
expect_exit 2 "serve --listen garbage" -- "$BIN" serve --listen "no:port:here"
expect_exit 2 "serve --max-body 0" -- "$BIN" serve --max-body 0
expect_exit 2 "serve on a port already in use" -- "$BIN" serve --listen "127.0.0.1:$PORT"
expect_err "cannot listen" "port in use is named"

# index
req "index" -- "$U/"
expect_status 200 "GET / is 200"
expect_hdr '^content-type: text/html; charset=utf-8' "index is HTML"
expect_hdr "^content-security-policy: default-src 'self'" "CSP default-src 'self'"
expect_hdr '^x-content-type-options: nosniff' "nosniff"
expect_hdr '^referrer-policy: ' "Referrer-Policy"
expect_out 'href="/code/431"' "index links 431"
expect_out 'href="/code/X.3.1"' "index links X.3.1"
expect_out '4xx Transient failure' "index grouped by class"
expect_out 'X.7 Security or policy' "index grouped by subject"
expect_out '<form class="search" action="/" method="get"' "index has a search form"
expect_out 'f=nonstandard' "index has the non-standard filter"
expect_not 'https?://[a-z]' "index loads nothing external"
req "search" -- "$U/?q=431"
expect_out 'href="/code/431"' "search 431 finds 431"
expect_out ' hidden data-s="550 ' "search 431 hides 550 (still listed for the script)"
expect_not ' hidden data-s="431 ' "search 431 shows 431"
expect_out 'Explain <a class="code" href="/code/431">' "search 431 links its page"
req "search words" -- "$U/?q=Mailbox+full"
expect_out 'X.2.2' "search words find X.2.2"
req "search a pair" -- "$U/?q=552+4.3.1"
expect_not ' hidden data-s="(552|x\.3\.1) ' "the pair 552 4.3.1 finds 552 and X.3.1"
expect_out 'id="count" role="status" aria-live="polite">2 codes<' "the pair finds two codes, announced"
req "search text" -- "$U/?q=out+of+storage"
expect_not ' hidden data-s="x\.3\.1 ' "search looks beyond the titles"
req "search nothing" -- "$U/?q=zzzz+qqqq"
expect_out '<p id="empty">No code matches' "empty state without the script"
req "search a reply line" -- "$U/?q=550+5.1.1+User+unknown"
expect_out 'href="/analyze\?text=550%205\.1\.1%20User%20unknown"' "a reply line links to its analysis"
req "analyze by GET" -- "$U/analyze?text=550%205.1.1%20User%20unknown"
expect_out 'Do not retry: remove the address' "GET /analyze?text= gives the verdict"
req "search status" -- "$U/?q=4.3.1"
expect_out 'href="/code/X.3.1"' "search 4.3.1 finds X.3.1"
req "filter transient" -- "$U/?f=transient"
expect_out 'href="/code/421"' "transient filter keeps 421"
expect_out ' hidden data-s="550 ' "transient filter hides 550"
req "filter nonstandard" -- "$U/?f=nonstandard"
expect_out 'href="/code/531"' "non-standard filter keeps 531"
expect_out ' hidden data-s="421 ' "non-standard filter hides 421"
req "index escapes q" -- "$U/?q=%3Cscript%3Ealert(1)%3C/script%3E"
expect_status 200 "search with markup is 200"
expect_out '&lt;script&gt;alert' "search text is escaped"
expect_not '<script>alert' "no script injected from the query"
req "HEAD /" -- -I "$U/"
expect_status 200 "HEAD / is 200"

# code pages
for c in 431 4.3.1 552-4.3.1 "552%204.3.1" X.3.1 5.3.1 531; do
	req "code $c" -- "$U/code/$c"
	expect_status 200 "GET /code/$c is 200"
done
req "code 431" -- "$U/code/431"
expect_hdr '^content-type: text/html' "code page is HTML"
expect_out 'STOREDRV' "431 page names STOREDRV"
expect_out 'Not a standard code' "431 says non-standard at the top"
order=$(grep -o '<section[^>]* id="[a-z-]*"' "$TMP/out" | sed 's/.*id="\([a-z-]*\)"/\1/' | tr '\n' ' ')
ok_if "$([ "$order" = "verdict nonstandard quick-fix retry meaning causes fix paired faq related references " ] && echo 1)" \
	"431 sections in the seeds' order ($order)"
expect_out 'Safe to retry' "431 retry verdict"
expect_out '<a class="code" href="/code/452">452</a>' "related codes are links"
expect_out 'href="https://www.rfc-editor.org/rfc/rfc5321#section-4.2.3"' "references link the RFC"
req "code 250" -- "$U/code/250"
expect_not 'Not a standard code' "250 is standard"
req "pair" -- "$U/code/552-4.3.1"
expect_out '<span class="code">552 4.3.1</span>' "pair page heading"
expect_out 'class-mismatch|Permanent' "pair page speaks of the class"
expect_out '<section class="verdict v-retry" id="verdict"' "pair banner is coloured by the verdict (retry), not the class"
expect_out 'id="mismatch"><h2>The reply code and the status disagree' "a class mismatch has its own heading"
expect_not 'Not a standard code' "552 4.3.1 is not called non-standard"
expect_out "<dt>Who must act</dt><dd>the recipient&#39;s mail admin</dd>" "who acts in plain words"
req "code 535" -- "$U/code/535"
expect_out '<section class="verdict v-fix" id="verdict"' "535 banner is amber: fix the sender"
req "code 550 5.1.1" -- "$U/code/550-5.1.1"
expect_out '<section class="verdict v-suppress" id="verdict"' "550 5.1.1 banner is red: suppress"
expect_out 'Suppress the address</dt><dd class="no-go">yes' "550 5.1.1 says suppress: yes"
req "reasons" -- "$U/reasons"
expect_status 200 "GET /reasons is 200"
expect_out '<dt id="userunknown">' "reasons page has an anchor per reason"
req "bad code" -- "$U/code/hello"
expect_status 404 "/code/hello is 404"
expect_hdr '^content-type: text/html' "404 page is HTML"
req "6.1.1" -- "$U/code/6.1.1"
expect_status 404 "/code/6.1.1 is 404"
expect_out 'class must be' "6.1.1 says why"
req "markup in code path" -- "$U/code/%3Cscript%3Ex"
expect_not '<script>x' "code path is escaped"
req "no code" -- "$U/code/"
expect_status 404 "/code/ is 404"
req "traversal" -- --path-as-is "$U/code/../../../../etc/passwd"
expect_not 'root:' "no file read via /code/../"
req "traversal static" -- --path-as-is "$U/static/../../../../etc/passwd"
expect_status 404 "/static/../ is 404"
expect_not 'root:' "no file read via /static/../"
req "unknown" -- "$U/etc/passwd"
expect_status 404 "unknown path is 404"

# static files
req "css" -- "$U/static/style.css"
expect_status 200 "stylesheet"
expect_hdr '^content-type: text/css' "stylesheet type"
req "js" -- "$U/static/app.js"
expect_hdr '^content-type: text/javascript' "script type"
req "icon" -- "$U/static/icon.svg"
expect_hdr '^content-type: image/svg' "icon type"

# analyze
req "analyze form" -- "$U/analyze"
expect_status 200 "GET /analyze is 200"
expect_out '<textarea id="text" name="text"' "analyze has the form"
req "analyze bounce" -- --data-urlencode "text@samples/bounces/postfix-userunknown.eml" "$U/analyze"
expect_status 200 "POST /analyze is 200"
expect_out 'nobody@example.org' "analyze names the recipient"
expect_out 'Do not retry: remove the address' "analyze gives the verdict"
expect_out 'href="/reasons#userunknown"' "the reason name links to its explanation"
expect_not '<dt>(Action|Read by)</dt>' "no internal words on the card"
expect_out 'href="/code/550-5.1.1"' "analyze links the codes found"
req "analyze mbox" -- --data-urlencode "text@samples/two-bounces.mbox" "$U/analyze"
expect_out '2 recipients found' "analyze splits an mbox"
expect_out '<section id="summary"' "analyze opens with a summary"
expect_out '<span class="n">1</span> Stop sending to this address' "the summary counts by advice"
expect_out '<span class="n">[0-9]+</span> [^<]*\(<a class="reason" href="/reasons#' "the summary counts by reason"
req "analyze reply line" -- --data-urlencode "text=452 4.3.1 Insufficient system storage" "$U/analyze"
expect_out 'Retry later' "analyze a reply line"
expect_out '<section class="verdict v-retry"' "a reply line gets the same banner as a bounce"
expect_out 'href="/code/452-4.3.1"' "reply line codes linked"
printf 'Final-Recipient: rfc822; <script>alert(1)</script>@example.org\nAction: failed\nStatus: 5.1.1\nDiagnostic-Code: smtp; 550 5.1.1 <script>alert(2)</script> no such user\n' >"$TMP/evil.txt"
req "analyze escapes" -- --data-urlencode "text@$TMP/evil.txt" "$U/analyze"
expect_status 200 "analyze with markup is 200"
expect_out '&lt;script&gt;alert' "markup from the bounce shown as text"
expect_not '<script>alert' "no script injected from the bounce"
req "analyze nothing" -- --data-urlencode "text=hello there" "$U/analyze"
expect_out 'Nothing to explain' "analyze says when nothing is found"
req "analyze wrong type" -- -H 'Content-Type: text/plain' --data-binary 'text=550' "$U/analyze"
expect_status 415 "analyze as text/plain is 415"
req "analyze no field" -- --data-binary 'other=1' "$U/analyze"
expect_status 400 "analyze without text= is 400"

# JSON API
req "explain GET" -- "$U/api/v1/explain?q=552%204.3.1"
expect_status 200 "GET /api/v1/explain is 200"
expect_hdr '^content-type: application/json' "explain is JSON"
expect_hdr "^content-security-policy: default-src 'self'" "API has the CSP too"
expect_out '"replycode":"552","status":"4.3.1"' "explain pair fields"
expect_out '"issues":\["class-mismatch"\]' "explain flags the pair"
req "explain GET again (cached)" -- "$U/api/v1/explain?q=552%204.3.1"
expect_out '"replycode":"552","status":"4.3.1"' "explain answer from the cache"
req "explain plus" -- "$U/api/v1/explain?q=431"
expect_out '"standard":false' "explain 431 non-standard"
req "explain POST" -- -H 'Content-Type: text/plain' --data-binary "550-5.1.1 The email account that you tried to reach does not exist." "$U/api/v1/explain"
expect_status 200 "POST /api/v1/explain is 200"
expect_out '"reason":"userunknown"' "explain POST reads reply text"
req "explain POST form" -- --data-urlencode "text=552 5.2.2 Mailbox full" "$U/api/v1/explain"
expect_out '"status":"5.2.2"' "explain POST accepts a form"
req "explain no q" -- "$U/api/v1/explain"
expect_status 400 "explain without q is 400"
expect_hdr '^content-type: application/json' "error is JSON"
expect_out '"error":' "error body names the error"
req "explain bad" -- "$U/api/v1/explain?q=6.1.1"
expect_status 400 "explain 6.1.1 is 400"
expect_out 'class must be' "explain 6.1.1 says why"
req "explain nothing" -- "$U/api/v1/explain?q=hello"
expect_status 400 "explain hello is 400"
req "explain text after blank lines" -- "$U/api/v1/explain?mode=text&q=%0A%0A550%20x"
expect_status 200 "explain mode=text after two LFs answers (no hang)"
expect_out '"replycode":"550"' "explain mode=text after two LFs reads the reply"
req "explain json q" -- -H 'Content-Type: application/json' --data-binary '{"q":"431"}' "$U/api/v1/explain"
expect_status 200 "explain takes JSON {q}"
expect_out '"replycode":"431"' "explain JSON q is read"
req "explain json text" -- -H 'Content-Type: application/json' --data-binary '{"text":"550-5.1.1 The email account that you tried to reach does not exist."}' "$U/api/v1/explain"
expect_out '"reason":"userunknown"' "explain takes JSON {text}"
req "explain json mode" -- -H 'Content-Type: application/json' --data-binary '{"q":"hello","mode":"code"}' "$U/api/v1/explain"
expect_status 400 "explain JSON mode is used"
req "explain json bad" -- -H 'Content-Type: application/json' --data-binary '{"q":' "$U/api/v1/explain"
expect_status 400 "broken JSON is 400"
req "explain json no q" -- -H 'Content-Type: application/json' --data-binary '{"x":1}' "$U/api/v1/explain"
expect_status 400 "JSON without q or text is 400"
expect_out 'no \\"q\\" or \\"text\\"' "and says which fields"
req "explain curl -d" -- -d '550 5.1.1 <bob@example.org>: User unknown' "$U/api/v1/explain"
expect_status 200 "curl's default form type with a bare reply is read as text"
expect_out '"reason":"userunknown"' "curl -d reply is explained"
req "explain references" -- "$U/api/v1/explain?q=431"
expect_out '"reference_links":\[\{"text":"RFC 5321 section 4.2.3","url":"https://www.rfc-editor.org/rfc/rfc5321#section-4.2.3"\}' "references come with links"
expect_out '"fixer":\["recipient-admin"\]' "fixer is an array"
req "explain xml type" -- -H 'Content-Type: application/xml' --data-binary '<q>431</q>' "$U/api/v1/explain"
expect_status 415 "explain as XML is 415"
req "decode" -- -H 'Content-Type: message/rfc822' --data-binary "@samples/bounces/postfix-userunknown.eml" "$U/api/v1/decode"
expect_status 200 "POST /api/v1/decode is 200"
expect_hdr '^content-type: application/json' "decode is JSON"
expect_out '^\{"results":\[' "decode gives an object with results"
expect_out '"counts":\{"messages":1,"bounces":1,"not_bounces":0,"errors":0,"results":1\}' "decode counts"
expect_out '"recipient":"nobody@example.org"' "decode fact recipient"
expect_out '"reason":"userunknown"' "decode fact reason"
req "decode, the one verdict" -- -H 'Content-Type: message/rfc822' --data-binary "@samples/bounces/exchange-431.eml" "$U/api/v1/decode"
expect_out '"reason":"systemfull"' "decode by default: X.3.1 is the system's storage"
req "decode ?reasons=sisimai" -- -H 'Content-Type: message/rfc822' --data-binary "@samples/bounces/exchange-431.eml" "$U/api/v1/decode?reasons=sisimai"
expect_out '"reason":"mailboxfull"' "?reasons=sisimai keeps the reference decoder's reading"
req "decode mbox" -- -H 'Content-Type: application/mbox' --data-binary "@samples/two-bounces.mbox" "$U/api/v1/decode"
ok_if "$([ "$(grep -c '"recipient":' "$TMP/out")" -eq 2 ] && echo 1)" "decode splits an mbox into 2 facts"
expect_out '"origin":"body:2"' "mbox facts carry their message number"
expect_out '"counts":\{"messages":2,"bounces":2,"not_bounces":0,"errors":0,"results":2\}' "mbox counts add up"
{ cat samples/two-bounces.mbox; printf '\nFrom nobody Thu Nov  5 08:00:00 2026\nno header here, only words\n\n'
  printf 'From nobody Thu Nov  5 08:00:00 2026\n'; cat samples/not-a-bounce.eml; } >"$TMP/mixed.mbox"
req "decode mixed mbox" -- -H 'Content-Type: application/mbox' --data-binary "@$TMP/mixed.mbox" "$U/api/v1/decode"
expect_status 200 "an mbox with an unreadable message is 200"
expect_out '"counts":\{"messages":4,"bounces":2,"not_bounces":1,"errors":1,"results":2\}' "a mixed mbox: counts add up"
expect_out '^\{"origin":"body:3","error":"not an email' "the unreadable message is reported, not dropped"
req "decode not a bounce" -- -H 'Content-Type: message/rfc822' --data-binary "@samples/not-a-bounce.eml" "$U/api/v1/decode"
expect_status 200 "decode of a non-bounce is 200"
expect_out '^\{"results":\[\],$' "decode of a non-bounce has no results"
expect_out '"counts":\{"messages":1,"bounces":0,"not_bounces":1,"errors":0,"results":0\}' "and counts it as not a bounce"
req "decode empty" -- -H 'Content-Type: message/rfc822' --data-binary "" "$U/api/v1/decode"
expect_status 400 "decode of nothing is 400"
req "decode json type" -- -H 'Content-Type: application/json' --data-binary '{}' "$U/api/v1/decode"
expect_status 415 "decode as JSON is 415"
req "codes" -- "$U/api/v1/codes"
expect_status 200 "GET /api/v1/codes is 200"
expect_out '"code":"431"' "codes lists 431"
ok_if "$([ "$(grep -c '"code":' "$TMP/out")" -gt 100 ] && echo 1)" "codes lists the whole index"
req "healthz" -- "$U/healthz"
expect_status 200 "GET /healthz is 200"
expect_out '"status":"ok"' "healthz ok"
req "api 404" -- "$U/api/v1/nope"
expect_status 404 "unknown API path is 404"
expect_hdr '^content-type: application/json' "API 404 is JSON"

# wrong methods
req "DELETE /" -- -X DELETE "$U/"
expect_status 405 "DELETE / is 405"
expect_hdr '^allow: GET, HEAD' "405 says what is allowed"
req "POST /code" -- --data-binary x "$U/code/431"
expect_status 405 "POST /code/431 is 405"
req "GET decode" -- "$U/api/v1/decode"
expect_status 405 "GET /api/v1/decode is 405"
expect_hdr '^allow: POST' "decode allows POST"
expect_hdr '^content-type: application/json' "API 405 is JSON"
req "odd method" -- -X 'A"B' "$U/api/v1/decode"
expect_out '"error":"method A\\"B not allowed' "a method with a quote is escaped in the 405 JSON"
req "PUT explain" -- -X PUT --data-binary 431 "$U/api/v1/explain"
expect_status 405 "PUT /api/v1/explain is 405"

# HTTP conventions: ETag and 304, gzip, CORS, OPTIONS, request ids
for path in / /code/431 /static/style.css /api/v1/codes "/api/v1/explain?q=431" "/?q=mailbox" /reasons; do
	req "etag $path" -- "$U$path"
	etag=$(tr -d '\r' <"$TMP/hdr" | sed -n 's/^[Ee][Tt]ag: //p')
	ok_if "$(printf '%s' "$etag" | grep -Eq '^"[0-9a-f]{16}"$' && echo 1)" "$path has a strong ETag ($etag)"
	expect_hdr '^cache-control: (public, )?max-age=' "$path has Cache-Control"
	req "304 $path" -- -H "If-None-Match: $etag" "$U$path"
	expect_status 304 "$path with If-None-Match is 304"
	expect_hdr "^etag: $etag" "the 304 names the ETag"
	req "304 list $path" -- -H "If-None-Match: \"x\", W/$etag" "$U$path"
	expect_status 304 "$path: a list with the weak form is 304 too"
done
req "etag other" -- -H 'If-None-Match: "0000000000000000"' "$U/code/431"
expect_status 200 "another ETag is 200"
req "no etag on POST" -- --data-urlencode "text=550 5.1.1 x" "$U/analyze"
expect_hdr '^cache-control: no-store' "POST answers are not stored"
ok_if "$(tr -d '\r' <"$TMP/hdr" | grep -qi '^etag:' || echo 1)" "POST answers have no ETag"
req "healthz no-store" -- "$U/healthz"
expect_hdr '^cache-control: no-store' "healthz is not stored"
for path in / /code/431 /static/style.css /api/v1/codes "/?q=mailbox"; do
	req "gzip $path" -- -H 'Accept-Encoding: gzip' "$U$path"
	expect_hdr '^content-encoding: gzip' "$path gzipped when accepted"
	expect_hdr '^vary: accept-encoding' "$path varies by Accept-Encoding"
	ok_if "$(gzip -dc <"$TMP/out" 2>/dev/null | grep -q '[a-z]' && echo 1)" "$path gzip body inflates"
done
req "gzip q=0" -- -H 'Accept-Encoding: gzip;q=0, identity' "$U/"
ok_if "$(tr -d '\r' <"$TMP/hdr" | grep -qi '^content-encoding:' || echo 1)" "gzip;q=0 is not gzipped"
req "gzip etag 304" -- -H 'Accept-Encoding: gzip' "$U/code/431"
gzetag=$(tr -d '\r' <"$TMP/hdr" | sed -n 's/^[Ee][Tt]ag: //p')
ok_if "$(printf '%s' "$gzetag" | grep -Eq '^"[0-9a-f]{16}-gz"$' && echo 1)" "the gzip form has its own strong ETag"
req "gzip 304" -- -H 'Accept-Encoding: gzip' -H "If-None-Match: $gzetag" "$U/code/431"
expect_status 304 "If-None-Match with the gzip ETag is 304"
req "gzip decode POST" -- -H 'Accept-Encoding: gzip' -H 'Content-Type: message/rfc822' --data-binary "@samples/two-bounces.mbox" "$U/api/v1/decode"
ok_if "$(gzip -dc <"$TMP/out" 2>/dev/null | grep -q '"recipient"' && echo 1)" "a dynamic answer is gzipped too"
req "cors get" -- -H 'Origin: https://example.com' "$U/api/v1/explain?q=431"
expect_hdr '^access-control-allow-origin: \*' "the API allows any origin"
req "cors page" -- -H 'Origin: https://example.com' "$U/code/431"
ok_if "$(tr -d '\r' <"$TMP/hdr" | grep -qi '^access-control-allow-origin' || echo 1)" "pages are not CORS-shared"
req "preflight" -- -X OPTIONS -H 'Origin: https://example.com' -H 'Access-Control-Request-Method: POST' -H 'Access-Control-Request-Headers: content-type' "$U/api/v1/explain"
expect_status 204 "CORS preflight is 204"
expect_hdr '^access-control-allow-origin: \*' "preflight allows the origin"
expect_hdr '^access-control-allow-methods: GET, HEAD, POST, OPTIONS' "preflight names the methods"
expect_hdr '^access-control-allow-headers: .*content-type' "preflight allows Content-Type"
expect_hdr '^access-control-max-age: [0-9]+' "preflight may be cached"
req "options page" -- -X OPTIONS "$U/code/431"
expect_status 204 "OPTIONS on a page is 204"
expect_hdr '^allow: GET, HEAD, OPTIONS' "OPTIONS says what is allowed"
req "options 404" -- -X OPTIONS "$U/nope"
expect_status 404 "OPTIONS on no route is 404"
req "request id echoed" -- -H 'X-Request-Id: trace-42:abc' "$U/healthz"
expect_hdr '^x-request-id: trace-42:abc$' "a fit X-Request-Id is echoed"
req "request id made" -- "$U/code/431"
expect_hdr '^x-request-id: [0-9a-f]{16}$' "an id is made when none is given (cached page too)"
id1=$(tr -d '\r' <"$TMP/hdr" | sed -n 's/^[Xx]-[Rr]equest-[Ii]d: //p')
req "request id made again" -- "$U/code/431"
id2=$(tr -d '\r' <"$TMP/hdr" | sed -n 's/^[Xx]-[Rr]equest-[Ii]d: //p')
ok_if "$([ -n "$id1" ] && [ "$id1" != "$id2" ] && echo 1)" "each answer has its own id ($id1, $id2)"
req "request id too long" -- -H "X-Request-Id: $(head -c 65 /dev/zero | tr '\0' 'a')" "$U/healthz"
expect_hdr '^x-request-id: [0-9a-f]{16}$' "an over-long id is replaced"
req "request id with spaces" -- -H 'X-Request-Id: a b<script>' "$U/healthz"
expect_hdr '^x-request-id: [0-9a-f]{16}$' "an id with spaces or markup is replaced"
req "request id on 404" -- -H 'X-Request-Id: lost-1' "$U/nope"
expect_hdr '^x-request-id: lost-1$' "errors carry the id too"
req "request id on 405" -- -X DELETE -H 'X-Request-Id: del-1' "$U/"
expect_hdr '^x-request-id: del-1$' "405 carries the id"

# OpenAPI, the API page, metrics (tests/browser/api.test.mjs checks them with real parsers)
req "openapi" -- "$U/api/v1/openapi.json"
expect_status 200 "GET /api/v1/openapi.json is 200"
expect_hdr '^content-type: application/json' "OpenAPI is JSON"
expect_out '"openapi": "3\.1\.0"' "OpenAPI 3.1"
expect_out '"/api/v1/decode": \{' "OpenAPI describes decode"
req "api page" -- "$U/api"
expect_status 200 "GET /api is 200"
expect_out '<td><code>POST</code></td><td><code>/api/v1/decode</code></td>' "the API page lists the routes"
req "metrics" -- "$U/metrics"
expect_status 200 "GET /metrics is 200"
expect_hdr '^content-type: text/plain; version=0\.0\.4' "metrics in the Prometheus text format"
expect_hdr '^cache-control: no-store' "metrics are not stored"
expect_out '^smtpdiag_http_requests_total\{route="/code/",status="200"\} [1-9][0-9]*$' "requests by route and status"
expect_out '^smtpdiag_http_request_duration_seconds_bucket\{le="\+Inf"\} [1-9]' "latency histogram"
expect_out '^smtpdiag_verdicts_total\{reason="userunknown",advice="suppress-recipient"\} [1-9]' "verdicts by reason and advice"
expect_out '^smtpdiag_decode_errors_total [1-9]' "decode errors counted (the mixed mbox)"
expect_out '^smtpdiag_http_bodies_refused_total\{why="wrong_type"\} [1-9]' "refused bodies counted"

# body limit (default 10 MiB)
head -c 11000000 /dev/zero | tr '\0' 'a' >"$TMP/big"
req "big body" -- -H 'Content-Type: message/rfc822' --data-binary "@$TMP/big" "$U/api/v1/decode"
expect_status 413 "an 11 MB body is 413"
expect_out '"error":' "413 is JSON"
req "big chunked body" -- -H 'Content-Type: message/rfc822' -H 'Transfer-Encoding: chunked' --data-binary "@$TMP/big" "$U/api/v1/decode"
expect_status 413 "an 11 MB chunked body is 413"
req "big form" -- --data-binary "@$TMP/big" "$U/analyze"
expect_status 413 "an 11 MB form is 413"
rm -f "$TMP/big"

E=$(printf '\033')
req "escape in the path" -- --request-target "/code/${E}[31mx" "$U/"
req "escape in the method" -- -X "G${E}[1mET" "$U/"

kill -TERM "$(cat "$TMP/a.pid")"
i=0
while kill -0 "$(cat "$TMP/a.pid")" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
ok_if "$(kill -0 "$(cat "$TMP/a.pid")" 2>/dev/null || echo 1)" "SIGTERM stops the server"
wait "$(cat "$TMP/a.pid")"
ok_if "$([ $? -eq 0 ] && echo 1)" "exit status 0 after SIGTERM"
expect_log 'SIGTERM: stopping' "stop is logged" a
expect_log 'serve: stopped$' "clean stop logged" a
expect_log '"GET /code/431 HTTP/1.1" 200 [0-9]+ id=[0-9a-f]{16} [0-9.]+ms$' "access log line: request, status, bytes, request id, time" a
expect_log '"GET /healthz HTTP/1.1" 200 [0-9]+ id=trace-42:abc ' "the client's request id is in the access log" a
expect_log '"DELETE / HTTP/1.1" 405 ' "access log has the method and status" a
expect_log '"GET /code/\\x1b\[31mx HTTP/1.1" 404 ' "access log: an escape in the path is \\x1b" a
expect_log '"G\\x1b\[1mET / HTTP/1.1" 405 ' "access log: an escape in the method is \\x1b" a
n=$((n + 1)); if grep -q "$E" "$TMP/a.log"; then echo "not ok $n - access log has raw escapes"; else echo "ok $n - access log has no raw escape"; fi
lines=$(grep -c '^127\.0\.0\.1 - - \[' "$TMP/a.log")
ok_if "$([ "$lines" -eq "$RQ" ] && echo 1)" "one access log line per request ($lines lines, $RQ requests)"

# ---- server B: small limits, one thread (values given as --opt=V and --opt V) ----
start b --threads 1 --max-conn=2 --timeout 2 --max-body=1K --max-header 2K
ok_if "$([ -n "$PORT" ] && echo 1)" "server with small limits starts"
U="http://127.0.0.1:$PORT"
head -c 2000 /dev/zero | tr '\0' 'a' >"$TMP/2k"
req "body over --max-body" -- -H 'Content-Type: text/plain' --data-binary "@$TMP/2k" "$U/api/v1/explain"
expect_status 413 "a 2 KB body over --max-body 1K is 413"
expect_out 'over the limit of 1 KB \(1024 bytes\)' "the limit is said in words"
{ printf 'text=550+5.1.1+first+line%%0A'; cat "$TMP/2k"; } >"$TMP/2kform"
req "form over --max-body" -- --data-binary "@$TMP/2kform" "$U/analyze"
expect_status 413 "a form over --max-body is 413"
expect_out 'id="too-big"><h2>That paste is too large' "the 413 page says why"
expect_out 'The limit is 1 KB' "the 413 page says the limit in words"
expect_out '<textarea[^>]*>' "the 413 page shows the form again"
expect_out '^550 5.1.1 first line$' "the 413 page keeps the start of the paste"
req "body under --max-body" -- -H 'Content-Type: text/plain' --data-binary "550 5.1.1 no such user" "$U/api/v1/explain"
expect_status 200 "a small body is fine"
req "header over --max-header" -- -H "X-Big: $(head -c 3000 /dev/zero | tr '\0' 'b')" "$U/healthz"
expect_status 431 "a 3 KB header over --max-header 2K is 431"
req "header far over --max-header" -- -H "X-Big: $(head -c 20000 /dev/zero | tr '\0' 'b')" "$U/healthz"
expect_status 431 "a 20 KB header is 431 too"
req "header under --max-header" -- -H "X-Small: $(head -c 500 /dev/zero | tr '\0' 'b')" "$U/healthz"
expect_status 200 "a small header is fine"

# a slow client that never finishes its headers is cut after --timeout
(printf 'GET /healthz?slow HTTP/1.1\r\n'; sleep 3) | curl -s --max-time 5 telnet://127.0.0.1:$PORT >/dev/null 2>&1
expect_log '/healthz\?slow .* timeout$' "an idle client is cut after --timeout" b

# connection limit: two idle connections fill it; a third waits in the backlog
# (no answer within 0.8 s) and is served once a slot is free
(sleep 1.5) | curl -s --max-time 3 telnet://127.0.0.1:$PORT >/dev/null 2>&1 &
c1=$!
(sleep 1.5) | curl -s --max-time 3 telnet://127.0.0.1:$PORT >/dev/null 2>&1 &
c2=$!
sleep 0.3
ST=$(curl -s --max-time 0.8 -o /dev/null -w '%{http_code}' "$U/healthz")
ok_if "$([ "$ST" != 200 ] && echo 1)" "a third connection over --max-conn 2 waits (${ST:-none})"
wait $c1 $c2
req "after the idle ones left" -- "$U/healthz"
expect_status 200 "connections free again"

kill -INT "$(cat "$TMP/b.pid")"
wait "$(cat "$TMP/b.pid")"
ok_if "$([ $? -eq 0 ] && echo 1)" "SIGINT stops the server with status 0"
expect_log 'SIGINT: stopping' "SIGINT logged" b

# ---- hostile clients (tests/hostile.c: loopback only, each run bounded) ----
H=${BUILD:-build}/tests/hostile
# hsend RAW: send the bytes (printf escapes) on one connection; reply and "= closed|open" in $TMP/out
hsend() { printf "$1" | "$H" send "$PORT" 3000 >"$TMP/out" 2>"$TMP/err"; }
# wait_ready FILE: until a hostile run in the background says it holds its connections
wait_ready() { # up to 60 s: opening 2000 connections on a loaded, sanitized build is slow
	i=0
	while [ $i -lt 600 ] && ! grep -q '^ready' "$1" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
}

# server C: one connection thread, one handler thread, a 2 s request deadline
start c --threads 1 --timeout 10 --request-timeout 2
ok_if "$([ -n "$PORT" ] && echo 1)" "server with --request-timeout starts"
U="http://127.0.0.1:$PORT"
expect_log 'warning: running as root' "root without --user is warned" c
ok_if "$([ "$(id -u)" -eq 0 ] || ! grep -q 'warning: running as root' "$TMP/c.log" && echo 1)" "the root warning only as root"
ok_if "$(grep -q 'beyond loopback' "$TMP/c.log" || echo 1)" "no loopback warning on 127.0.0.1"

hsend 'POST /api/v1/explain HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: 8\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n431\r\n0\r\n\r\nGET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'
expect_out '^HTTP/1.1 400 ' "Content-Length with Transfer-Encoding is 400"
expect_not 'HTTP/1.1 200' "a request smuggled behind it is not answered"
expect_out '^= closed' "Content-Length with Transfer-Encoding: connection closed"
hsend 'POST /api/v1/explain HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: 3\r\nContent-Length: 5\r\n\r\n431'
expect_out '^HTTP/1.1 400 ' "two different Content-Lengths are 400"
expect_out '^= closed' "two Content-Lengths: connection closed"
hsend 'POST /api/v1/explain HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\n431'
expect_out '^HTTP/1.1 400 ' "the same Content-Length twice is 400"
hsend 'POST /api/v1/explain HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nTransfer-Encoding: gzip\r\nContent-Length: 3\r\n\r\n431'
expect_out '^HTTP/1.1 400 ' "Transfer-Encoding gzip with a Content-Length is 400, at once"
hsend 'POST /api/v1/explain HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nTransfer-Encoding: gzip, chunked\r\n\r\n3\r\n431\r\n0\r\n\r\n'
expect_out '^HTTP/1.1 400 ' "Transfer-Encoding other than chunked alone is 400"
expect_out '^= closed' "unknown Transfer-Encoding: connection closed"
hsend 'POST /api/v1/explain HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n431\r\n0\r\n\r\n'
expect_out '^HTTP/1.1 200 ' "Transfer-Encoding chunked alone is served"
expect_out '"replycode":"431"' "the chunked body is read"

# strict framing: what libmicrohttpd would take (wire.c sees the bytes first);
# each bad request is 400 with Connection: close, and nothing after it is read
SMUG='GET /healthz?smuggled HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'
frame() { # DESC RAW: 400, close, the request behind it not answered
	hsend "$2$SMUG"
	expect_out '^HTTP/1.1 400 ' "$1 is 400"
	expect_out '^Connection: close' "$1: Connection: close"
	expect_not '"status":"ok"' "$1: the request behind it is not answered"
	expect_out '^= closed' "$1: the connection is closed"
}
frame "obs-fold" 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: 1\r\n b\r\n\r\n'
frame "a folded Transfer-Encoding with a Content-Length" 'POST /api/v1/explain HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: 3\r\nX-A: 1\r\n Transfer-Encoding: chunked\r\n\r\n431'
frame "Content-Length with a space before the colon" 'POST /api/v1/explain HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length : 47\r\n\r\n'
expect_out 'whitespace before the colon' "the 400 says what is wrong"
frame "a tab before the colon" 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A\t: 1\r\n\r\n'
frame "HTTP/1.1 without Host" 'GET /healthz HTTP/1.1\r\n\r\n'
frame "two Host fields" 'GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n'
frame "a field name that is not a token" 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX(A: 1\r\n\r\n'
frame "an empty field name" 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n: 1\r\n\r\n'
frame "a bare CR in a field" 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: 1\r2\r\n\r\n'
frame "obs-fold in a chunked trailer" 'POST /api/v1/explain HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n431\r\n0\r\nX-T: 1\r\n 2\r\n\r\n'
# the second and later requests of a connection are checked too
hsend 'POST /api/v1/explain HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\n431\r\n0\r\nX-T: 1\r\n\r\nGET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: 1\r\n b\r\n\r\n'"$SMUG"
ok_if "$([ "$(grep -c '^HTTP/1.1 200 ' "$TMP/out")" -eq 2 ] && echo 1)" "keep-alive: the requests before a bad one are served"
expect_out '^HTTP/1.1 400 ' "keep-alive: obs-fold in the third request is 400"
expect_not 'smuggled' "keep-alive: nothing after the bad request is answered"
hsend 'GET /healthz HTTP/1.1\nHost: 127.0.0.1\n\nGET /healthz HTTP/1.0\r\n\r\n'
ok_if "$([ "$(grep -c '^HTTP/1.1 200 ' "$TMP/out")" -eq 2 ] && echo 1)" "bare LF line ends and HTTP/1.0 without Host are still served"
hsend 'POST /api/v1/explain HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\nContent-Type: text/plain\r\n\r\n431GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'
ok_if "$([ "$(grep -c '^HTTP/1.1 200 ' "$TMP/out")" -eq 2 ] && echo 1)" "a field after Content-Length: the body is skipped, the next request served"

# a client that half-closes after its request gets the handler's answer, also
# while other connections are open (the one handler thread runs it)
"$H" idle "$PORT" 3 4 >"$TMP/idle.out" 2>&1 &
hp=$!
wait_ready "$TMP/idle.out"
got=0
for _ in 1 2 3 4 5 6 7 8 9 10; do
	printf 'POST /api/v1/explain HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: 22\r\n\r\n550 5.1.1 user unknown' |
		"$H" send "$PORT" 2000 -h >"$TMP/out" 2>"$TMP/err"
	grep -q '^HTTP/1.1 200 ' "$TMP/out" && grep -q '^= closed' "$TMP/out" && got=$((got + 1))
done
ok_if "$([ $got -eq 10 ] && echo 1)" "half-closed clients get their answer, then the close ($got of 10)"
kill "$hp" 2>/dev/null
wait "$hp" 2>/dev/null

# DNS rebinding: a Host that is not one of the server's names is 421 (a page
# of attacker.example rebound to 127.0.0.1 sends Host: attacker.example)
req "a foreign Host" -- -H 'Host: attacker.example' "$U/healthz"
expect_status 421 "a Host the server does not answer to is 421"
expect_hdr '^connection: close' "421 closes the connection"
req "a foreign Host to the API" -- -H "Host: attacker.example:$PORT" "$U/api/v1/codes"
expect_status 421 "421 also on the API, with a port in Host"
for h in "localhost:$PORT" "LOCALHOST." "127.0.0.1:$PORT" "[::1]:$PORT" "$(hostname)"; do
	req "Host $h" -- -H "Host: $h" "$U/healthz"
	expect_status 200 "the default names are answered: Host: $h"
done
req "public API CORS" -- -H 'Origin: http://elsewhere.example' "$U/api/v1/codes"
expect_hdr '^access-control-allow-origin: \*' "the public API (no private data) answers any origin, without credentials"
ok_if "$(tr -d '\r' <"$TMP/hdr" | grep -qi '^access-control-allow-credentials' || echo 1)" "no Access-Control-Allow-Credentials"

"$H" trickle "$PORT" 1 6 400 >"$TMP/out" 2>&1
expect_out '^cut 1$' "headers trickled past --request-timeout are cut (idle timeout never reached)"
expect_log '/healthz\?trickle .* deadline$' "the cut request is logged as deadline" c

# a handler that does not return (or is slow) holds neither /healthz nor the stop
curl -s --max-time 1 -o /dev/null "$U/api/v1/explain?mode=text&q=%0A%0A550%20x" 2>/dev/null
req "healthz with the handler thread busy" -- "$U/healthz"
expect_status 200 "/healthz answers while the handler thread is busy"
req "static with the handler thread busy" -- "$U/static/style.css"
expect_status 200 "static files answer while the handler thread is busy"
kill -TERM "$(cat "$TMP/c.pid")"
i=0
while kill -0 "$(cat "$TMP/c.pid")" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
ok_if "$(kill -0 "$(cat "$TMP/c.pid")" 2>/dev/null || echo 1)" "SIGTERM stops the server even with a handler busy"

# server D: a small budget for bodies; many idle connections
start d --max-body 4K --max-body-total 6K
U="http://127.0.0.1:$PORT"
"$H" slowbody "$PORT" 1 4 1000 4000 3000 >"$TMP/slow.out" 2>&1 &
hp=$!
wait_ready "$TMP/slow.out"
req "body over --max-body-total" -- -H 'Content-Type: text/plain' --data-binary "@$TMP/2k" --data-binary "@$TMP/2k" "$U/api/v1/explain"
expect_status 503 "a body past --max-body-total is 503"
expect_hdr '^retry-after: [0-9]+' "503 says when to retry"
wait $hp
i=0
while [ $i -lt 30 ]; do # until the server has seen the slow client go
	req "body after the slow one left" -- -H 'Content-Type: text/plain' --data-binary "550 5.1.1 no such user" "$U/api/v1/explain"
	[ "$ST" = 200 ] && break
	sleep 0.1
	i=$((i + 1))
done
expect_status 200 "bodies are taken again once the budget is free"
"$H" idle "$PORT" 2000 6 >"$TMP/idle.out" 2>&1 &
hp=$!
wait_ready "$TMP/idle.out"
ok_if "$(grep -q '^ready open=2000 closed=0' "$TMP/idle.out" && echo 1)" "2000 idle connections are held ($(head -2 "$TMP/idle.out" | tr '\n' ' '))"
req "healthz under idle connections" -- "$U/healthz"
expect_status 200 "/healthz answers with 2000 idle connections open"
kill "$hp" 2>/dev/null
wait "$hp" 2>/dev/null
expect_exit 2 "--max-body-total under --max-body" -- "$BIN" serve --max-body 8K --max-body-total 4K
expect_err 'at least --max-body' "--max-body-total under --max-body says why"

# server E: two connections per address
start e --max-conn-per-ip 2
"$H" idle "$PORT" 4 2 >"$TMP/out" 2>&1
gone=$(sed -n 's/^ready open=[0-9]* closed=\([0-9]*\)$/\1/p; s/^cut \([0-9]*\)$/\1/p' "$TMP/out" | awk '{ s += $1 } END { print s + 0 }')
ok_if "$([ "$gone" -eq 2 ] && echo 1)" "--max-conn-per-ip 2 closes the third and fourth connection, no other ($gone closed)"
U="http://127.0.0.1:$PORT"
req "healthz after" -- "$U/healthz"
expect_status 200 "the address is served again once its connections are gone"

# --user: drop root after binding
if [ "$(id -u)" -ne 0 ]; then
	n=$((n + 1)); echo "ok $n # SKIP --user nobody: not root, cannot test dropping root"
	n=$((n + 1)); echo "ok $n # SKIP --user nobody: not root, cannot test dropping root"
else
	start f --user nobody
	want="$(id -u nobody) $(id -u nobody) $(id -u nobody) $(id -u nobody)"
	got=$(awk '/^Uid:/ { print $2, $3, $4, $5 }' "/proc/$(cat "$TMP/f.pid")/status")
	ok_if "$([ "$got" = "$want" ] && echo 1)" "--user nobody: every uid is nobody's ($got)"
	got=$(awk '/^Gid:/ { print $2, $3, $4, $5 }' "/proc/$(cat "$TMP/f.pid")/status")
	ok_if "$([ "$got" = "$(id -g nobody) $(id -g nobody) $(id -g nobody) $(id -g nobody)" ] && echo 1)" "--user nobody: every gid is nobody's ($got)"
	req "healthz as nobody" -- "http://127.0.0.1:$PORT/healthz"
	expect_status 200 "the server answers as nobody"
	expect_log 'user nobody' "the start line names the user" f
	ok_if "$(grep -q 'warning: running as root' "$TMP/f.log" || echo 1)" "no root warning with --user"
fi
# --allowed-host replaces the default names
start g --allowed-host diag.example --allowed-host other.example
req "allowed host" -- -H "Host: diag.example:$PORT" "http://127.0.0.1:$PORT/healthz"
expect_status 200 "--allowed-host: its name is answered"
req "default name with --allowed-host" -- "http://127.0.0.1:$PORT/healthz"
expect_status 421 "--allowed-host: the default names are not"
expect_exit 2 "--cors-origin with a path" -- "$BIN" serve --listen 127.0.0.1:0 --cors-origin http://a.example/x
expect_err 'SCHEME://HOST' "a bad --cors-origin says what it takes"
expect_exit 2 "--allowed-host with a port" -- "$BIN" serve --listen 127.0.0.1:0 --allowed-host a.example:80
expect_err 'no port' "a bad --allowed-host says why"
expect_exit 2 "--user with no such user" -- "$BIN" serve --listen 127.0.0.1:0 --user no-such-user-here
expect_err 'no such user' "an unknown --user is named"
