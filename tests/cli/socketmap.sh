#!/bin/sh
# serve --socketmap asked by Postfix's own client, postmap(1) (Debian postfix):
# statuses the verdict says to retry become 4XX, the others NOTFOUND; a 4XX
# becomes 5XX only with --socketmap-harden; other map names get PERM; one
# connection carries many lookups; malformed netstrings close the connection;
# every rewrite is logged and counted on /metrics; the Unix socket's mode, a
# stale socket and a live one; tcp: on loopback (docs/socketmap.md).
. "$(dirname "$0")/lib.sh"
if ! command -v postmap >/dev/null 2>&1 && { [ "$(id -u)" -eq 0 ] || [ -n "${CI:-}" ]; }; then
	sh tools/install-deps.sh test >/dev/null 2>&1
fi
need postmap curl python3
SOCKDIR=$(mktemp -d /tmp/smtpdiag-sm.XXXXXX)
pids=""
trap 'for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$TMP" "$SOCKDIR"' EXIT INT TERM
# postmap reads a main.cf: an empty one of the test's own
mkdir "$TMP/pf"
: >"$TMP/pf/main.cf"
SOCK=$SOCKDIR/sm.sock

# start NAME ARGS...: serve with ARGS beside a free loopback HTTP port; PORT, PID
start() {
	name=$1
	shift
	: >"$TMP/$name.log" # before the server opens it: wait_port reads it at once
	"$BIN" serve --listen 127.0.0.1:0 --quiet "$@" 2>"$TMP/$name.log" &
	PID=$!
	pids="$pids $PID"
	wait_port "$TMP/$name.log"
}

stop() {
	kill "$PID" 2>/dev/null
	wait "$PID" 2>/dev/null
}

# q KEY [MAP]: postmap -q KEY against the socket; its stdout in out, stderr in err
q() {
	expect_exit "${3:-0}" "${4:-lookup}" -- postmap -c "$TMP/pf" -q "$1" "socketmap:unix:$SOCK:${2:-status}"
}

# lookup KEY WANT DESCRIPTION: the answer is WANT exactly (empty: NOTFOUND, postmap exits 1)
lookup() {
	n=$((n + 1))
	got=$(postmap -c "$TMP/pf" -q "$1" "socketmap:unix:$SOCK:status" 2>"$TMP/err")
	rc=$?
	if [ -z "$2" ] && [ "$rc" -eq 1 ] && [ -z "$got" ]; then echo "ok $n - $3"
	elif [ -n "$2" ] && [ "$rc" -eq 0 ] && [ "$got" = "$2" ]; then echo "ok $n - $3"
	else echo "not ok $n - $3 (exit $rc, got '$got', want '$2')"; sed 's/^/#   /' "$TMP/err" | head -3; fi
}

metric() {
	curl -s "http://127.0.0.1:$PORT/metrics" | grep -F "$1" | sed 's/.* //'
}

H='host mx.example.net[192.0.2.10] said:'
RL="$H 550 5.7.1 Rate limit exceeded, try again later (in reply to RCPT TO command)"
QUOTA="$H 550 5.4.5 Daily user sending quota exceeded (in reply to end of DATA command)"
UU="$H 550 5.1.1 <u@example.net>: Recipient address rejected: User unknown in virtual mailbox table (in reply to RCPT TO command)"
BL="$H 554 5.7.1 Service unavailable; Client host [198.51.100.7] blocked using zen.spamhaus.org (in reply to RCPT TO command)"
SOFT_UU="$H 450 4.1.1 <u@example.net>: Recipient address rejected: User unknown in virtual mailbox table (in reply to RCPT TO command)"
SOFT_RL="$H 450 4.7.1 Rate limit exceeded, try again later (in reply to RCPT TO command)"
# greylisting sent as 550, and a block whose text says retrying will not help
GREY="$H 550 5.7.1 <u@example.net>: Recipient address rejected: Greylisted, please try again later (in reply to RCPT TO command)"
NEVER="$H 553 5.7.1 All messages from 198.51.100.7 are refused; retrying will not succeed (in reply to MAIL FROM command)"

start a --socketmap "unix:$SOCK"
[ -n "$PORT" ] || { echo "not ok 1 - serve --socketmap did not start"; sed 's/^/#   /' "$TMP/a.log"; exit 1; }
ok_if "$([ -S "$SOCK" ] && echo 1)" "the Unix socket is made"
ok_if "$([ "$(stat -c %a "$SOCK")" = 660 ] && echo 1)" "its mode is 0660 by default"
ok_if "$(grep -q "socketmap 'status' on unix:$SOCK" "$TMP/a.log" && echo 1)" "serve says where the socketmap listens"

# what the verdict says to retry: 4.Y.Z and the text unchanged
lookup "5.7.1 $RL" "4.7.1 $RL" "a 5XX rate limit becomes 4.7.1, the text kept"
lookup "5.4.5 $QUOTA" "4.4.5 $QUOTA" "a 5XX sending quota becomes 4.4.5"
lookup "5.7.1 $GREY" "4.7.1 $GREY" "greylisting sent as a 5XX becomes 4.7.1"
lookup "5.7.1 $NEVER" "" "a 5XX that says retrying will not succeed stays (NOTFOUND)"
# what it does not: NOTFOUND, Postfix keeps its status
lookup "5.1.1 $UU" "" "a 5XX user unknown stays (NOTFOUND)"
lookup "5.7.1 $BL" "" "a block-list refusal stays (NOTFOUND)"
lookup "2.0.0 Ok: queued as 4Bx1Yz" "" "a 2XX stays (NOTFOUND)"
lookup "4.7.1 $SOFT_RL" "" "a 4XX stays (NOTFOUND)"
lookup "4.1.1 $SOFT_UU" "" "a 4XX user unknown stays without --socketmap-harden"
lookup "hello world" "" "a key that is no status stays (NOTFOUND)"
lookup "5.7.1" "" "a status without text stays (NOTFOUND)"
lookup "9.9.9 text" "" "a status of no class stays (NOTFOUND)"

# another map name: PERM, which postmap reports as an error
q "5.7.1 $RL" other 1 "another map name: postmap fails"
expect_err "permanent error: unknown map 'other'" "another map name: a PERM reply that names it"

# the rewrite's log line: the original, the new status, the reason and evidence
ok_if "$(grep -q 'socketmap: rewrote 5.7.1 -> 4.7.1 (reason ratelimited, evidence: rule:[^ ]* -> ratelimited): host mx.example.net' "$TMP/a.log" && echo 1)" \
	"a rewrite is logged with the original, the new status, the reason and the evidence"
ok_if "$([ "$(grep -c 'socketmap: rewrote' "$TMP/a.log")" -eq 3 ] && echo 1)" "one log line per rewrite, none for the rest"

# /metrics: every request a result; rewrites by class and reason
ok_if "$([ "$(metric 'requests_total{result="rewritten"}')" = 3 ] && echo 1)" "/metrics: 3 requests rewritten"
ok_if "$([ "$(metric 'requests_total{result="kept"}')" = 6 ] && echo 1)" "/metrics: 6 requests kept"
ok_if "$([ "$(metric 'requests_total{result="invalid"}')" = 3 ] && echo 1)" "/metrics: 3 keys that are no status"
ok_if "$([ "$(metric 'requests_total{result="unknown_map"}')" = 1 ] && echo 1)" "/metrics: 1 request of another map"
ok_if "$([ "$(metric 'rewrites_total{from_class="5",to_class="4",reason="ratelimited"}')" = 2 ] && echo 1)" \
	"/metrics: 2 rewrites from 5 to 4 for ratelimited"
ok_if "$([ "$(metric 'rewrites_total{from_class="5",to_class="4",reason="blocked"}')" = 1 ] && echo 1)" \
	"/metrics: 1 rewrite from 5 to 4 for blocked (the greylisting)"

# one connection, many lookups (postmap -q - keeps its connection, as Postfix does)
before=$(metric 'connections_total{outcome="accepted"}')
printf '5.7.1 %s\n5.1.1 %s\n5.7.1 %s\n' "$RL" "$UU" "$RL" >"$TMP/keys"
postmap -c "$TMP/pf" -q - "socketmap:unix:$SOCK:status" <"$TMP/keys" >"$TMP/out" 2>"$TMP/err"
after=$(metric 'connections_total{outcome="accepted"}')
expect_lines 2 "postmap -q -: the two rate limits found, the user unknown not" out
ok_if "$([ $((after - before)) -eq 1 ] && echo 1)" "postmap -q -: three lookups on one connection ($before -> $after)"

# malformed netstrings close the connection with a logged error (raw BYTES
# [end]: send BYTES, with end then close the sending side, and print what
# comes back until the server closes; 10 s without a close is an error)
raw() {
	python3 - "$SOCK" "$1" "${2:-}" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(10)
s.connect(sys.argv[1])
s.sendall(sys.argv[2].encode())
if sys.argv[3] == "end":
    s.shutdown(socket.SHUT_WR)
out = b""
while True:
    b = s.recv(4096)
    if not b:
        break
    out += b
sys.stdout.write(out.decode("latin-1") + "|closed\n")
EOF
}
expect_exit 0 "a good request, then garbage: answered, then closed" -- raw '8:status x,junk'
expect_out '^9:NOTFOUND ,\|closed$' "a good request, then garbage: the answer comes before the close"
expect_exit 0 "a length over 100000: closed" -- raw '100001:'
expect_out '^\|closed$' "a length over 100000: closed without a reply"
expect_exit 0 "no comma after the data: closed" -- raw '3:abcX'
expect_out '^\|closed$' "no comma after the data: closed without a reply"
expect_exit 0 "two requests in one write: two replies" -- raw '8:status x,8:status y,' end
expect_out '^9:NOTFOUND ,9:NOTFOUND ,\|closed$' "two requests in one write: two replies"
ok_if "$([ "$(metric 'requests_total{result="malformed"}')" = 3 ] && echo 1)" "/metrics: 3 malformed requests"
ok_if "$([ "$(grep -c 'closing a connection: malformed netstring' "$TMP/a.log")" -eq 3 ] && echo 1)" "each malformed request is logged"

# the connection limit (SM_MAX_CONN, 256): 256 connections are served at once, one more is
# closed at once and counted refused; once they close, lookups are served again
expect_exit 0 "256 connections served at once, the 257th closed unanswered" -- \
	python3 "$(dirname "$0")/helpers/socketmap_flood.py" "$SOCK" 256
ok_if "$([ "$(metric 'connections_total{outcome="refused"}')" = 1 ] && echo 1)" "/metrics: the 257th connection counted refused"
i=0
while [ $i -lt 50 ] && ! curl -s "http://127.0.0.1:$PORT/metrics" | grep -qx 'smtpdiag_socketmap_connections 0'; do
	sleep 0.1
	i=$((i + 1))
done
lookup "5.7.1 $RL" "4.7.1 $RL" "after they closed, a lookup is served again"

# a second server on a live socket: refused, and the first one keeps it
expect_exit 2 "a second server on a live socket: exit 2" -- "$BIN" serve --listen 127.0.0.1:0 --socketmap "unix:$SOCK"
expect_err "a server is listening on it already" "a second server on a live socket: says so"
lookup "5.7.1 $RL" "4.7.1 $RL" "the first server still answers"

# stopped: the socket is removed; killed: the stale socket is replaced
stop
ok_if "$([ ! -e "$SOCK" ] && echo 1)" "a stopped server removes its socket"
start b --socketmap "unix:$SOCK" --socketmap-mode 0666
ok_if "$([ "$(stat -c %a "$SOCK")" = 666 ] && echo 1)" "--socketmap-mode 0666"
kill -9 "$PID"
wait "$PID" 2>/dev/null
ok_if "$([ -S "$SOCK" ] && echo 1)" "a killed server leaves its socket"
start c --socketmap "unix:$SOCK" --socketmap-harden
lookup "5.7.1 $RL" "4.7.1 $RL" "a stale socket is replaced by the new server"

# --socketmap-harden: a 4XX the verdict reads as a hard bounce becomes 5XX
lookup "4.1.1 $SOFT_UU" "5.1.1 $SOFT_UU" "--socketmap-harden: a 4XX user unknown becomes 5.1.1"
lookup "4.7.1 $SOFT_RL" "" "--socketmap-harden: a 4XX rate limit stays"
ok_if "$([ "$(metric 'rewrites_total{from_class="4",to_class="5",reason="userunknown"}')" = 1 ] && echo 1)" \
	"/metrics: 1 rewrite from 4 to 5 for userunknown"
stop

# a file that is no socket is never removed
: >"$SOCKDIR/file"
expect_exit 2 "a path that is a file: exit 2" -- "$BIN" serve --listen 127.0.0.1:0 --socketmap "unix:$SOCKDIR/file"
expect_err "exists and is not a socket; not removed" "a path that is a file: says so"
ok_if "$([ -f "$SOCKDIR/file" ] && echo 1)" "a path that is a file: the file is kept"

# tcp: on loopback, the name of one's choice
start d --socketmap tcp:0 --socketmap-name dsn
SMPORT=$(sed -n "s|.*socketmap 'dsn' on tcp:127\.0\.0\.1:\([0-9]*\)$|\1|p" "$TMP/d.log")
ok_if "$([ -n "$SMPORT" ] && echo 1)" "tcp:0 listens on a free loopback port"
expect_exit 0 "tcp: postmap over inet: finds the rewrite" -- postmap -c "$TMP/pf" -q "5.7.1 $RL" "socketmap:inet:127.0.0.1:$SMPORT:dsn"
expect_out "^4\\.7\\.1 host mx" "tcp: the answer is 4.7.1"
expect_exit 1 "tcp: the default name is not answered then" -- postmap -c "$TMP/pf" -q "5.7.1 $RL" "socketmap:inet:127.0.0.1:$SMPORT:status"
stop

# usage errors
expect_exit 2 "--socketmap with no known kind: exit 2" -- "$BIN" serve --socketmap "fifo:/x"
expect_err "is not unix:PATH or tcp:" "--socketmap with no known kind: says so"
expect_exit 2 "--socketmap-mode not octal: exit 2" -- "$BIN" serve --socketmap "unix:$SOCK" --socketmap-mode 999
expect_exit 2 "--socketmap-name with a space: exit 2" -- "$BIN" serve --socketmap "unix:$SOCK" --socketmap-name "a b"
