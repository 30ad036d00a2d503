#!/bin/sh
# serve's access log in each --access-log-format: common (the default: Common
# Log Format, then the request id, the time taken and how the request ended),
# combined (the Combined Log Format, Referer and User-Agent escaped as the
# request line is) and json (one object a line), against started servers.
. "$(dirname "$0")/lib.sh"

need curl jq
pid=""
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$TMP"' EXIT
. "$(dirname "$0")/../../bench/lib/serve-start.sh"

# run FORMAT-ARGS...: a server, three requests, its log in $TMP/log (server stopped)
run() {
	serve_start "$TMP/log" "$@"
	U="http://127.0.0.1:$port"
	curl -s --max-time 10 -o /dev/null -e 'http://ref.example/a?b=1' -A 'probe/1.0 "x"' -H 'X-Request-Id: req-1' "$U/healthz"
	curl -s --max-time 10 -o /dev/null -H 'User-Agent:' "$U/code/431"
	curl -s --max-time 10 -o /dev/null -X DELETE "$U/"
	kill -TERM "$pid"
	wait "$pid"
	pid=""
	grep -v '^smtpdiag: ' "$TMP/log" >"$TMP/lines"
}
has() { grep -Eq -- "$1" "$TMP/lines" && echo 1; }
D='\[[0-9]{2}/[A-Z][a-z]{2}/[0-9]{4}:[0-9]{2}:[0-9]{2}:[0-9]{2} \+0000\]'

run
ok_if "$(has "^127\.0\.0\.1 - - $D \"GET /healthz HTTP/1\.1\" 200 [0-9]+ id=req-1 [0-9.]+ms$")" "default: Common Log Format, then the request id and the time"
cp "$TMP/lines" "$TMP/default"
run --access-log-format common
ok_if "$(has "^127\.0\.0\.1 - - $D \"DELETE / HTTP/1\.1\" 405 [0-9]+ id=[0-9a-f]+ [0-9.]+ms$")" "common is the default's format"
ok_if "$([ "$(wc -l <"$TMP/lines")" -eq 3 ] && [ "$(wc -l <"$TMP/default")" -eq 3 ] && echo 1)" "one line a request"

run --access-log-format=combined
ok_if "$(has "^127\.0\.0\.1 - - $D \"GET /healthz HTTP/1\.1\" 200 [0-9]+ \"http://ref\.example/a\?b=1\" \"probe/1\.0 \\\\x22x\\\\x22\"$")" \
	"combined: Referer and User-Agent after the bytes, quotes escaped"
ok_if "$(has "^127\.0\.0\.1 - - $D \"GET /code/431 HTTP/1\.1\" 200 [0-9]+ \"-\" \"-\"$")" "combined: headers not sent are -"
ok_if "$([ "$(wc -l <"$TMP/lines")" -eq 3 ] && echo 1)" "combined: one line a request"

run --access-log-format json
ok_if "$([ "$(jq -c . "$TMP/lines" 2>/dev/null | wc -l)" -eq 3 ] && echo 1)" "json: three lines, each an object"
j() { jq -c "select(.uri == \"$1\") | $2" "$TMP/lines" 2>&1; }
ok_if "$([ "$(j /healthz '[.remote_addr, .method, .protocol, .status, .referer, .user_agent, .request_id, .end]')" = \
	'["127.0.0.1","GET","HTTP/1.1",200,"http://ref.example/a?b=1","probe/1.0 \"x\"","req-1","completed"]' ] && echo 1)" \
	"json: the request, status, headers, request id and how it ended"
ok_if "$([ "$(j /code/431 '[.referer, .user_agent, (.bytes > 0), (.duration_ms >= 0)]')" = '[null,null,true,true]' ] && echo 1)" \
	"json: headers not sent are null; bytes and time are numbers"
ok_if "$(j / '.time' | grep -Eqx '"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z"' && echo 1)" "json: time in RFC 3339, UTC"

# long Referer and User-Agent: each kept to the log's bound, every line whole
long=$(head -c 3000 /dev/zero | tr '\0' a)
runlong() {
	serve_start "$TMP/log" "$@"
	U="http://127.0.0.1:$port"
	curl -s --max-time 10 -o /dev/null -e "http://ref.example/$long" -A "ua-$long" "$U/healthz"
	curl -s --max-time 10 -o /dev/null "$U/code/431"
	kill -TERM "$pid"
	wait "$pid"
	pid=""
	grep -v '^smtpdiag: ' "$TMP/log" >"$TMP/lines"
}
runlong --access-log-format combined
ok_if "$([ "$(wc -l <"$TMP/lines")" -eq 2 ] && grep -q '"GET /code/431 HTTP/1.1" 200' "$TMP/lines" &&
	[ "$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$TMP/lines")" -le 2000 ] && echo 1)" \
	"combined: long headers are cut to the bound, and each request keeps a whole line"
runlong --access-log-format json
ok_if "$([ "$(jq -c . "$TMP/lines" 2>/dev/null | wc -l)" -eq 2 ] &&
	[ "$(jq -r 'select(.uri == "/healthz") | (.user_agent | length) <= 512 and (.referer | length) <= 512' "$TMP/lines")" = true ] &&
	echo 1)" "json: long headers are cut to 512 bytes, each line an object"

run --quiet --access-log-format json
ok_if "$([ ! -s "$TMP/lines" ] && echo 1)" "--quiet: no access log whatever the format"
expect_exit 2 "a format it does not take" -- "$BIN" serve --access-log-format apache
expect_err "--access-log-format takes common, combined or json, not 'apache'" "says which it takes"
