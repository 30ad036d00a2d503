#!/bin/sh
# CLI tests of the store over HTTP: serve --store with SQLite in a temporary
# directory (and one PostgreSQL check when a throw-away cluster can start).
# POST /api/v1/events records (with the store counts in the answer); GET
# /api/v1/suppressions lists, filters and pages; GET one address; DELETE
# releases with a token (loopback alone is none); 401 and 403; cross-site
# requests (Origin, Sec-Fetch-Site) and --cors-origin.
# What is tested of "loopback only": this machine has loopback only, so the
# rules for other clients are tested with SMTPDIAG_SERVE_TEST_REMOTE=1, which
# makes the server take every client as remote (it only narrows access).
# Every curl has --max-time; the servers are killed on exit whatever happens.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg_lib.sh"

if ! command -v curl >/dev/null 2>&1; then
	echo "not ok 1 - curl is missing (sh tools/install-deps.sh installs it)"
	exit 1
fi
FIX=tests/fixtures/esp
PIDS=""
unset SMTPDIAG_STORE SMTPDIAG_POLICY
ABSBIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
mkdir "$TMP/cwd"
trap 'for p in $PIDS; do kill -9 "$p" 2>/dev/null; done; pg_stop; rm -rf "$TMP"' EXIT INT TERM

# serve NAME ARGS...: a server on a free loopback port, run in an empty directory; sets URL
serve() {
	log="$TMP/$1.log"; shift
	(cd "$TMP/cwd" && exec "$ABSBIN" serve --listen 127.0.0.1:0 --quiet "$@") 2>"$log" &
	PIDS="$PIDS $!"
	URL=""
	for _ in $(seq 100); do
		URL=$(sed -n 's|.*listening on \(http://127\.0\.0\.1:[0-9]*\)/.*|\1|p' "$log")
		[ -n "$URL" ] && break
		sleep 0.1
	done
	[ -n "$URL" ] || { echo "not ok - the server did not start"; cat "$log"; exit 1; }
}

# req METHOD PATH CURL-ARGS...: body in $TMP/out, headers in $TMP/hdr, status in $ST
req() {
	m=$1; p=$2; shift 2
	ST=$(curl -s --max-time 10 -o "$TMP/out" -D "$TMP/hdr" -w '%{http_code}' -X "$m" "$@" \
		"$URL$p" 2>"$TMP/err") || ST=curl-failed
}
events() { # FILE CURL-ARGS...
	f=$1; shift
	req POST /api/v1/events -H 'Content-Type: application/json' --data-binary "@$f" "$@"
}
check() { # CONDITION-STATUS DESC
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else
		echo "not ok $n - $2 (status $ST)"; head -c 300 "$TMP/out" | sed 's/^/#   /'; echo; fi
}
has() { grep -Eq -- "$1" "$TMP/out"; }
hdr() { tr -d '\r' <"$TMP/hdr" | grep -Eiq -- "$1"; }
is() { [ "$ST" = "$1" ]; }
count() { grep -c '"address":' "$TMP/out"; }

TOK_A=0123456789abcdef0123456789abcdef
TOK_B=fedcba9876543210fedcba9876543210
printf '# operators\nalice:%s\n\n%s\n' "$TOK_A" "$TOK_B" >"$TMP/tokens"
BA="Authorization: Bearer $TOK_A"
BB="Authorization: Bearer $TOK_B"

# ---- no store: the routes say so, nothing is made in the working directory ----
serve none
req GET /api/v1/suppressions
is 404 && has '"error":"this server has no store'
check $? "without --store (or \$SMTPDIAG_STORE) the suppression routes are 404"
events "$FIX/sendgrid/events.json"
is 200 && ! has '"store":'
check $? "without a store, events are decoded, not recorded"
[ -z "$(ls -A "$TMP/cwd")" ]
check $? "no store file is made in the working directory unasked"

# ---- no tokens: loopback alone is no credential, the store takes no writes ----
DB="sqlite:$TMP/s.db"
serve nowrite --store "$DB"
events "$FIX/sendgrid/events.json"
is 403 && has '"error":"writes need a token: start serve with --token-file' && ! has '"results"'
check $? "without --token-file, loopback events are 403: nothing decoded, nothing recorded"
req DELETE /api/v1/suppressions/nobody@mail.example.net
is 403 && has 'writes need a token'
check $? "without --token-file, a loopback DELETE is 403"
"$BIN" store --store "$DB" stats >"$TMP/cli.txt" 2>&1
! grep -Eq 'events[^0-9]*[1-9]' "$TMP/cli.txt"
check $? "nothing was recorded"

# ---- loopback, a token: reads and writes ----
serve local --store "$DB" --token-file "$TMP/tokens"
events "$FIX/sendgrid/events.json" -H "$BB"
is 200 && has '"store":\{"recorded":5,"duplicates":0,"errors":0\}\}$'
check $? "events: the decoded records are recorded; the answer carries the store counts"
events "$FIX/sendgrid/events.json" -H "$BB"
is 200 && has '"store":\{"recorded":0,"duplicates":5,"errors":0\}'
check $? "events: the same post again records nothing new"
events "$FIX/postmark/bounce-hard.json" -H "$BB"
is 200 && has '"recorded":1,'
check $? "events: a Postmark bounce recorded too"
"$BIN" store --store "$DB" suppressed >"$TMP/cli.txt" 2>&1
grep -q 'dave@mail.example.net' "$TMP/cli.txt"
check $? "what the server recorded, smtpdiag store sees"

req GET /api/v1/suppressions
is 200 && has '^\{"results":\[' && has '"next":null\}$' && [ "$(count)" -eq 4 ]
check $? "list: 4 suppressed addresses, no next page"
hdr '^content-type: application/json' && hdr '^cache-control: no-store'
check $? "list: JSON, not cached"
req GET '/api/v1/suppressions?limit=3'
[ "$(count)" -eq 3 ] && has '"next":"nobody@mail.example.net"\}$'
check $? "paging: limit=3 gives 3 and the cursor of the next page"
req GET '/api/v1/suppressions?limit=3&cursor=nobody@mail.example.net'
[ "$(count)" -eq 1 ] && has '"address":"suppressed@mail.example.net"' && has '"next":null'
check $? "paging: the cursor gives the rest, then no next"
req GET '/api/v1/suppressions?reason=feedback'
[ "$(count)" -eq 1 ] && has '"address":"angry@mail.example.net".*"cause":"complaint"'
check $? "filter: reason"
req GET '/api/v1/suppressions?domain=MAIL.example.net&limit=1000'
[ "$(count)" -eq 4 ]
check $? "filter: domain, case-insensitive"
req GET '/api/v1/suppressions?domain=other.example'
is 200 && has '^\{"results":\[\],"next":null\}$'
check $? "filter: a domain with none gives an empty page"
req GET '/api/v1/suppressions?since=2030-01-01'
[ "$(count)" -eq 0 ]
req GET '/api/v1/suppressions?since=1709547330'
[ "$(count)" -ge 1 ] && ! has '"address":"nobody@'
check $? "filter: since, as a date and as Unix seconds"
for bad in 'limit=0' 'limit=1001' 'limit=x' 'since=yesterday' 'since=2024-13-01'; do
	req GET "/api/v1/suppressions?$bad"
	is 400 && has '"status":400'
	check $? "list: ?$bad is 400"
done

req GET /api/v1/suppressions/Nobody@Mail.Example.Net
is 200 && has '^\{"state":\{"address":"nobody@mail.example.net".*"suppressed":true' &&
	has '"history":\[' && has '"kind":"hard"' && has '"history_omitted":0\}$'
check $? "one address: its state and history, whatever the case"
req GET /api/v1/suppressions/who@nowhere.example
is 404 && has '"status":404'
check $? "one address: unknown is 404"
req GET /api/v1/suppressions/
is 404
check $? "no address is 404"
req PUT /api/v1/suppressions/nobody@mail.example.net
is 405 && hdr '^allow: GET, HEAD, DELETE'
check $? "PUT is 405 with Allow: GET, HEAD, DELETE"

req DELETE /api/v1/suppressions/nobody@mail.example.net -H "$BB"
is 200 && has '"released":true,"was_suppressed":true,"by":"api"'
check $? "DELETE with an unnamed token releases, by api"
req DELETE /api/v1/suppressions/nobody@mail.example.net -H "$BB"
is 200 && has '"was_suppressed":false'
check $? "DELETE again: released, it was not suppressed"
req DELETE /api/v1/suppressions/who@nowhere.example -H "$BB"
is 404
check $? "DELETE of an unknown address is 404"
req GET /api/v1/suppressions/nobody@mail.example.net
has '"suppressed":false' && has '"released_by":"api"'
check $? "the released address is no longer suppressed"

# ---- clients beyond loopback, no tokens ----
SMTPDIAG_SERVE_TEST_REMOTE=1 serve remote --store "$DB"
req GET /api/v1/suppressions
is 403 && has '"error":"reads are open to loopback clients only'
check $? "remote, no tokens: reads are 403"
req DELETE /api/v1/suppressions/dave@mail.example.net
is 403 && has '"error":"writes need a token'
check $? "remote, no tokens: DELETE is 403"
events "$FIX/postmark/bounce-soft-notext.json"
is 403 && ! has '"results"'
check $? "remote, no tokens: events are 403, nothing decoded"
req GET /api/v1/suppressions -H "$BA"
is 403
check $? "remote, no tokens: a bearer token opens nothing"
SMTPDIAG_SERVE_TEST_REMOTE=1 serve open --store "$DB" --open-reads
req GET /api/v1/suppressions
is 200 && [ "$(count)" -eq 3 ]
check $? "remote, --open-reads: reads are open"
req DELETE /api/v1/suppressions/dave@mail.example.net
is 403
check $? "remote, --open-reads: writes are still 403"

# ---- tokens ----
SMTPDIAG_SERVE_TEST_REMOTE=1 serve tokens --store "$DB" --token-file "$TMP/tokens"
req GET /api/v1/suppressions
is 401 && hdr '^www-authenticate: Bearer realm="smtpdiag"' && has '"status":401'
check $? "remote, tokens: a read without a token is 401 asking for Bearer"
req GET /api/v1/suppressions -H "Authorization: Bearer ${TOK_A}x"
is 401 && has 'not one of the server'
check $? "remote, tokens: a wrong token is 401"
req GET /api/v1/suppressions -H "Authorization: Bearer $(printf %s "$TOK_A" | cut -c1-31)"
is 401
check $? "remote, tokens: a token's prefix is 401"
req GET /api/v1/suppressions -H "Authorization: Basic $TOK_A"
is 401
check $? "remote, tokens: Basic is no bearer token"
req GET /api/v1/suppressions -H "$BA"
is 200 && [ "$(count)" -eq 3 ]
check $? "remote, tokens: a valid token reads"
req DELETE /api/v1/suppressions/dave@mail.example.net
is 401
check $? "remote, tokens: DELETE without a token is 401"
req DELETE /api/v1/suppressions/dave@mail.example.net -H "$BA"
is 200 && has '"by":"alice"'
check $? "remote, tokens: DELETE with a named token releases, by its name"
req DELETE /api/v1/suppressions/angry@mail.example.net -H "authorization: bearer   $TOK_B"
is 200 && has '"by":"api"'
check $? "an unnamed token releases by api (scheme case-insensitive)"
events "$FIX/mailgun/failed-permanent.json"
is 401 && ! has '"results"'
check $? "remote, tokens: events without a token are 401"
events "$FIX/mailgun/failed-permanent.json" -H "$BA"
is 200 && has '"store":\{"recorded":1,'
check $? "remote, tokens: events with a token are recorded"
# HTTP Basic with a token as the password: for webhook senders that sign nothing
events "$FIX/mailgun/failed-permanent.json" -u "mailgun:$TOK_A"
is 200 && has '"store":\{"recorded":'
check $? "remote, tokens: events with Basic credentials whose password is a token are recorded"
events "$FIX/mailgun/failed-permanent.json" -u "mailgun:not-a-token-0123456789"
is 401 && ! has '"results"'
check $? "remote, tokens: Basic credentials with another password are 401"
events "$FIX/mailgun/failed-permanent.json" -H "Authorization: Basic !!!notbase64"
is 401
check $? "remote, tokens: Basic credentials that are not base64 are 401"
events "$FIX/mailgun/failed-permanent.json" -u "mailgun:$TOK_A" -H 'Origin: http://evil.example'
is 403 && ! has '"results"'
check $? "Basic credentials are not taken cross-site (a browser sends the ones it has cached)"
serve tokens-local --store "$DB" --token-file "$TMP/tokens"
req DELETE /api/v1/suppressions/suppressed@mail.example.net
is 401
check $? "with --token-file, loopback writes need a token too"
req GET /api/v1/suppressions -H "Authorization: Bearer wrong-token-0123456789"
is 401
check $? "a wrong token is 401 even where none is needed"
req GET /api/v1/suppressions
is 200
check $? "loopback reads need no token"

# ---- cross-site: a page of another origin in a browser here is a loopback client ----
O=$URL
req POST /api/v1/events -H 'Content-Type: text/plain' -H 'Origin: http://evil.example' \
	--data-binary "@$FIX/mailgun/failed-permanent.json"
is 403 && has 'cross-site request without a token' && ! has '"results"'
check $? "a cross-site text/plain post of events is 403, nothing recorded"
req GET /api/v1/suppressions -H 'Origin: http://evil.example'
is 403 && ! hdr '^access-control-allow-origin'
check $? "a cross-site read of the list is 403, and no CORS header lets the page see it"
req GET /api/v1/suppressions -H 'Sec-Fetch-Site: cross-site'
is 403
check $? "Sec-Fetch-Site: cross-site without a token is 403 (no Origin needed)"
req GET /api/v1/suppressions -H 'Sec-Fetch-Site: same-site'
is 403
check $? "Sec-Fetch-Site: same-site (another port or subdomain) is 403 too"
req GET /api/v1/suppressions -H "Origin: $O" -H 'Sec-Fetch-Site: same-origin'
is 200 && ! hdr '^access-control-allow-origin' && hdr '^vary: .*origin'
check $? "the server's own origin reads; no Access-Control-Allow-Origin, Vary: Origin"
req OPTIONS /api/v1/suppressions/x -H 'Origin: http://evil.example' -H 'Access-Control-Request-Method: DELETE'
! hdr '^access-control-allow' && hdr '^vary: .*origin'
check $? "a preflight from an origin not allowed gets no CORS grant"
req GET /api/v1/suppressions -H 'Origin: http://evil.example' -H "$BA"
is 200 && ! hdr '^access-control-allow-origin'
check $? "a token is a credential from any origin, but the answer is not shared with that page"
serve cors --store "$DB" --token-file "$TMP/tokens" --cors-origin http://app.example:8080
req OPTIONS /api/v1/suppressions/x -H 'Origin: http://app.example:8080' \
	-H 'Access-Control-Request-Method: DELETE' -H 'Access-Control-Request-Headers: authorization'
is 204 && hdr '^access-control-allow-origin: http://app\.example:8080$' && hdr '^access-control-allow-methods: .*DELETE' &&
	hdr '^access-control-allow-headers: .*Authorization' && hdr '^vary: .*origin'
check $? "--cors-origin: the preflight grants the origin DELETE and Authorization, Vary: Origin"
req GET /api/v1/suppressions -H 'Origin: http://app.example:8080' -H "$BA"
is 200 && hdr '^access-control-allow-origin: http://app\.example:8080$' && ! hdr '^access-control-allow-origin: \*'
check $? "--cors-origin: the origin reads with a token, named in Access-Control-Allow-Origin"
req DELETE /api/v1/suppressions/dave@mail.example.net -H 'Origin: http://app.example:8080' -H "$BA"
is 200 && has '"released":true'
check $? "--cors-origin: the origin releases with a token"
req POST /api/v1/events -H 'Content-Type: text/plain' -H 'Origin: http://app.example:8080' \
	--data-binary "@$FIX/mailgun/failed-permanent.json"
is 401
check $? "--cors-origin: a post from that origin without a token is still refused"
req GET /api/v1/codes -H 'Origin: http://evil.example'
hdr '^access-control-allow-origin: \*'
check $? "the public API keeps Access-Control-Allow-Origin: *"

# ---- a webhook signature checked with a configured key is enough to record ----
printf 'hook:s3cret\n' >"$TMP/postmark.auth"
SMTPDIAG_SERVE_TEST_REMOTE=1 serve signed --store "$DB" --token-file "$TMP/tokens" \
	--postmark-basic-auth "$TMP/postmark.auth"
events "$FIX/postmark/spam-complaint.json" -u hook:s3cret
is 200 && has '"store":\{"recorded":1,'
check $? "a Postmark post with the configured credentials records without a bearer token"
events "$FIX/sendgrid/events.json" -u hook:s3cret
is 401
check $? "a SendGrid post (no key configured) still needs a token"

# ---- bad options ----
printf 'short\n' >"$TMP/bad-tokens"
expect_exit 2 "--token-file with a short token is a usage error" -- "$BIN" serve --token-file "$TMP/bad-tokens"
expect_err 'a token is 16 to 256' "it says why, with the line"
printf '# none\n' >"$TMP/no-tokens"
expect_exit 2 "--token-file without a token is a usage error" -- "$BIN" serve --token-file "$TMP/no-tokens"
expect_exit 2 "--token-file of a missing file" -- "$BIN" serve --token-file "$TMP/absent"
expect_exit 2 "a bad store URL stops the server before it serves" -- \
	"$BIN" serve --listen 127.0.0.1:0 --store nosuch:x
SMTPDIAG_STORE="sqlite:$TMP/env.db" serve env
[ -e "$TMP/env.db" ]
check $? "\$SMTPDIAG_STORE is the store when --store is not given"

# ---- PostgreSQL, when a cluster can start here ----
PGBIN=$(pg_bindir)
if [ -n "$PGBIN" ] && PGOPTS="-c fsync=off" pg_start; then
	serve pg --store "$(pg_db serve)" --threads 2 --token-file "$TMP/tokens"
	events "$FIX/sendgrid/events.json" -H "$BB"
	is 200 && has '"store":\{"recorded":5,'
	check $? "PostgreSQL: events recorded"
	cl=""
	for _ in 1 2 3 4; do
		curl -s --max-time 10 -o /dev/null "$URL/api/v1/suppressions" &
		cl="$cl $!"
	done
	for p in $cl; do wait "$p"; done
	req GET '/api/v1/suppressions?limit=2'
	[ "$(count)" -eq 2 ] && has '"next":"[a-z]'
	check $? "PostgreSQL: paged list after concurrent readers"
	req DELETE /api/v1/suppressions/nobody@mail.example.net -H "$BB"
	is 200 && has '"was_suppressed":true'
	check $? "PostgreSQL: release"
else
	echo "ok $((n + 1)) - # SKIP PostgreSQL: no cluster could start here"
	n=$((n + 1))
fi
