#!/bin/sh
# CLI tests of serve's store work on threads of its own: with the SQLite file
# locked by another process (tests/cli/helpers/sqlite_lock.c holds BEGIN
# EXCLUSIVE), event posts and releases get 503 with Retry-After within the
# short wait (STORE_WAIT_MS), while /healthz, /api/v1/decode and the reads of
# the store answer at once; a store that cannot be opened is 503 with
# Retry-After too. Bytes that are not UTF-8 in a filter, a cursor or an
# address are 400; in an event they are recorded (as U+FFFD), with SQLite and,
# when a throw-away cluster starts, PostgreSQL.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg_lib.sh"

command -v curl >/dev/null 2>&1 || { echo "not ok 1 - curl is missing (sh tools/install-deps.sh installs it)"; exit 1; }
FIX=tests/fixtures/esp
WAIT_MS=$(sed -n 's/^#define STORE_WAIT_MS \([0-9]*\).*/\1/p' src/httpd/api_store.h)
LIMIT=$((2 * WAIT_MS / 1000 + 2)) # seconds: its turn in the queue, then its own wait, and slack
SERVERS=""
trap 'for p in $SERVERS $LOCKER; do kill "$p" 2>/dev/null; done; pg_stop; rm -rf "$TMP"' EXIT INT TERM
ABSBIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")

# Writes need a token (docs/security.md): every server here has one, every call sends it.
TOKEN=wait-test-0123456789abcdef
printf 'ops:%s\n' "$TOKEN" >"$TMP/tokens"
# up NAME ARGS...: start serve on a free port; BASE is its URL
up() {
	log="$TMP/$1.log"; shift
	"$ABSBIN" serve --listen 127.0.0.1:0 --quiet --token-file "$TMP/tokens" "$@" 2>"$log" &
	SERVERS="$SERVERS $!"
	BASE=""
	tries=0
	while [ -z "$BASE" ] && [ $tries -lt 100 ]; do
		sleep 0.1
		tries=$((tries + 1))
		BASE=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$log" | head -1)
	done
	[ -n "$BASE" ] || { echo "not ok - serve did not start: $(cat "$log")"; exit 1; }
}
# call TAG METHOD PATH CURL-ARGS...: $TMP/TAG.body, .head, .code ("STATUS SECONDS")
call() {
	tag=$1; method=$2; path=$3; shift 3
	curl -s --max-time 30 -X "$method" -o "$TMP/$tag.body" -D "$TMP/$tag.head" \
		-H "Authorization: Bearer $TOKEN" -w '%{http_code} %{time_total}' "$@" "$BASE$path" >"$TMP/$tag.code" 2>/dev/null
}
post_events() { call "$1" POST /api/v1/events -H 'Content-Type: application/json' --data-binary "@$2"; }
code() { cut -d' ' -f1 "$TMP/$1.code"; }
within() { awk -v t="$(cut -d' ' -f2 "$TMP/$1.code")" -v s="$2" 'BEGIN { exit !(t < s) }'; }
retry_after() { tr -d '\r' <"$TMP/$1.head" | grep -iq '^retry-after: [0-9]'; }
ok() { # CONDITION-STATUS DESC TAG
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else
		echo "not ok $n - $2 ($(cat "$TMP/$3.code" 2>/dev/null))"; head -c 300 "$TMP/$3.body" 2>/dev/null | sed 's/^/#   /'; echo; fi
}

if ! ${CC:-cc} -o "$TMP/sqlite_lock" tests/cli/helpers/sqlite_lock.c -lsqlite3 2>"$TMP/cc.err"; then
	echo "not ok 1 - cannot build tests/cli/helpers/sqlite_lock.c: $(head -3 "$TMP/cc.err")"
	exit 1
fi

# ---- a locked SQLite file ----
DB="$TMP/s.db"
up locked --store "sqlite:$DB"
post_events first "$FIX/sendgrid/events.json"
[ "$(code first)" = 200 ] && grep -q '"recorded":5' "$TMP/first.body"
ok $? "events are recorded while the store is free" first
"$TMP/sqlite_lock" "$DB" 30 >"$TMP/lock.out" 2>&1 &
LOCKER=$!
tries=0
while ! grep -q locked "$TMP/lock.out" && [ $tries -lt 50 ]; do sleep 0.1; tries=$((tries + 1)); done
grep -q locked "$TMP/lock.out"
ok $? "another process holds the store's write lock" first

post_events p1 "$FIX/postmark/bounce-hard.json" &
a=$!
post_events p2 "$FIX/postmark/bounce-hard.json" &
b=$!
post_events p3 "$FIX/postmark/bounce-hard.json" &
c=$!
sleep 0.3 # the posts hold every store thread now
call health GET /healthz
[ "$(code health)" = 200 ] && within health 1
ok $? "/healthz answers at once while the store threads wait" health
call decode POST /api/v1/decode -H 'Content-Type: message/rfc822' --data-binary @tests/fixtures/decode/dsn-single.eml
[ "$(code decode)" = 200 ] && within decode 1
ok $? "/api/v1/decode, which needs no store, answers at once" decode
call list GET /api/v1/suppressions
[ "$(code list)" = 200 ] && within list "$LIMIT"
ok $? "a read of the store is answered while a writer holds the lock (WAL), after its turn" list
call rel DELETE /api/v1/suppressions/dave@mail.example.net
[ "$(code rel)" = 503 ] && retry_after rel && within rel "$LIMIT"
ok $? "a release waits the short wait, then 503 with Retry-After" rel
wait "$a" "$b" "$c"
for t in p1 p2 p3; do
	[ "$(code $t)" = 503 ] && retry_after $t && within $t "$LIMIT"
	ok $? "an event post ($t) is 503 with Retry-After within ${LIMIT} s" $t
done
kill "$LOCKER" 2>/dev/null
wait "$LOCKER" 2>/dev/null
post_events again "$FIX/postmark/bounce-hard.json"
[ "$(code again)" = 200 ] && grep -q '"recorded":1' "$TMP/again.body"
ok $? "once the lock is gone, the post that was refused is recorded" again

# ---- a store that cannot be opened ----
up gone --store "sqlite:$TMP/g.db"
rm -f "$TMP/g.db" "$TMP/g.db-wal" "$TMP/g.db-shm"
echo "not a database, but a file in its place" >"$TMP/g.db"
post_events un "$FIX/sendgrid/events.json"
[ "$(code un)" = 503 ] && retry_after un
ok $? "events into a store that cannot be opened: 503 with Retry-After" un
call unl GET /api/v1/suppressions
[ "$(code unl)" = 503 ] && retry_after unl
ok $? "a read of a store that cannot be opened: 503 with Retry-After" unl

# ---- bytes that are not UTF-8 ----
# bad_bytes LABEL: on the server at BASE, filters, cursors and addresses with a
# byte that is not UTF-8 are 400; a Mailgun form post with one is recorded
bad_bytes() {
	for q in 'domain=%E9.example' 'reason=%FF' 'cursor=caf%E9%40x.example'; do
		call u8 GET "/api/v1/suppressions?$q"
		[ "$(code u8)" = 400 ] && grep -q 'UTF-8' "$TMP/u8.body"
		ok $? "$1: ?$q is 400, saying why" u8
	done
	call u8 GET '/api/v1/suppressions/caf%E9%40x.example'
	[ "$(code u8)" = 400 ] && grep -q 'UTF-8' "$TMP/u8.body"
	ok $? "$1: an address with a byte that is not UTF-8 is 400" u8
	call mg POST /api/v1/events --data-binary 'event=bounced&recipient=caf%E9%40mail.example.net&code=550&error=5.1.1+Benutzer+unbekannt+%FC&timestamp=1709547500&token=4b1c2e&signature=9f8e7d'
	[ "$(code mg)" = 200 ] && grep -q '"store":{"recorded":1,"duplicates":0,"errors":0' "$TMP/mg.body"
	ok $? "$1: a Mailgun form post with Latin-1 bytes is recorded" mg
	call mgs GET '/api/v1/suppressions/caf%EF%BF%BDe9%40mail.example.net'
	[ "$(code mgs)" = 200 ] && grep -q "\"address\":\"caf$(printf '\357\277\275')e9@mail.example.net\"" "$TMP/mgs.body"
	ok $? "$1: ... keyed by U+FFFD and the byte's hex digits" mgs
}
up bytes --store "sqlite:$TMP/b.db"
bad_bytes sqlite
if pg_find && pg_start; then
	up pgbytes --store "$(pg_db wait)"
	bad_bytes postgresql
else
	n=$((n + 1))
	echo "not ok $n - no PostgreSQL cluster could start for the checks of bytes in PostgreSQL"
fi
