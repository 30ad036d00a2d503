#!/bin/sh
# CLI tests of signed webhooks out (docs/webhooks-out.md): a receiver of the
# test's own (tests/cli/helpers/webhook_receiver.py) verifies every signature
# with the shared key and logs each request. decode with the receiver down
# keeps everything pending in the outbox; once it is up every item arrives,
# once after de-duplication by delivery id (a second copy only after a retry),
# in order per address. A wrong key fails verification; a 500 is tried again,
# a 400 is kept as failed and not tried again until --retry-failed. serve
# --webhook posts the verdicts of /api/v1/events, scan --follow --webhook the
# attempts it records. The receiver runs as nobody when the test runs as root.
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/webhook_lib.sh"
trap 'for p in $PIDS; do kill "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT INT TERM

# --- usage ---
events "$TMP/ev1.json" 3 0
expect_exit 2 "--webhook without --store is a usage error" -- \
	"$BIN" decode --webhook "$HOOK" --webhook-secret-file "$TMP/key" "$TMP/ev1.json"
expect_err "needs --store" "... which says the outbox lives in the store"
expect_exit 2 "--webhook without --webhook-secret-file is a usage error" -- \
	"$BIN" decode --store "sqlite:$TMP/u.db" --webhook "$HOOK" "$TMP/ev1.json"
expect_exit 2 "a --webhook-* option without --webhook is a usage error" -- \
	"$BIN" decode --store "sqlite:$TMP/u.db" --webhook-secret-file "$TMP/key" "$TMP/ev1.json"
expect_exit 2 "--webhook-events takes verdicts or suppressions" -- \
	"$BIN" decode --store "sqlite:$TMP/u.db" --webhook "$HOOK" --webhook-secret-file "$TMP/key" \
	--webhook-events all "$TMP/ev1.json"
expect_exit 2 "serve --webhook without a store is a usage error" -- \
	"$BIN" serve --listen 127.0.0.1:0 --webhook "$HOOK" --webhook-secret-file "$TMP/key"
expect_err "needs --store" "... which says so"

# --- the receiver down, then up ---
DB="$TMP/s1.db"
W="--webhook $HOOK --webhook-secret-file $TMP/key"
expect_exit 1 "receiver down: decode records, and exits 1 with items left" -- \
	"$BIN" decode --store "sqlite:$DB" $W --webhook-wait 0 "$TMP/ev1.json"
expect_err "read 9 = recorded 9" "... every verdict recorded"
expect_err "9 items not delivered yet" "... stderr says what is left in the outbox"
expect_exit 0 "store outbox counts them" -- "$BIN" store outbox --store "sqlite:$DB" --format json
expect_out '"pending":9,.*"failed":0,"delivered":0' "... 9 pending"
recv_start
expect_exit 0 "receiver up: decode again sends everything (the records are duplicates)" -- \
	"$BIN" decode --store "sqlite:$DB" $W "$TMP/ev1.json"
expect_err "duplicates 9" "... nothing recorded twice"
expect_err "outbox: pending 0, failed 0" "... the outbox is empty"
ok_if "$([ "$(check_log "$DB")" = fine ] && echo 1)" \
	"every item once after de-duplication, signatures verified, in order per address"
check_log "$DB" | grep -v '^fine$' | sed 's/^/#   /'
ok_if "$([ "$(logged)" -eq 9 ] && echo 1)" "... 9 requests: nothing sent twice"

# more records while up: several rounds, then stop and restart in the middle
events "$TMP/ev2.json" 6 100
expect_exit 0 "a second batch is delivered at once" -- "$BIN" decode --store "sqlite:$DB" $W "$TMP/ev2.json"
recv_stop
events "$TMP/ev3.json" 3 200
expect_exit 1 "receiver stopped again: the new items wait" -- \
	"$BIN" decode --store "sqlite:$DB" $W --webhook-wait 0 "$TMP/ev3.json"
recv_start
expect_exit 0 "restarted: the rest is sent" -- "$BIN" decode --store "sqlite:$DB" $W "$TMP/ev3.json"
ok_if "$([ "$(check_log "$DB")" = fine ] && echo 1)" "after a restart: once each, verified, in order"
expect_exit 0 "store outbox: all delivered" -- "$BIN" store outbox --store "sqlite:$DB" --format json
expect_out '"pending":0,.*"failed":0,"delivered":36' "... 36 delivered"

# --- a wrong key: the signature does not verify ---
recv_stop
rm -f "$TMP/r/log"
recv_start "$TMP/r/wrong"
events "$TMP/ev4.json" 1 300
expect_exit 1 "a receiver with another key refuses (401): decode exits 1" -- \
	"$BIN" decode --store "sqlite:$DB" $W "$TMP/ev4.json"
ok_if "$(python3 -c 'import json,sys; l=[json.loads(x) for x in open(sys.argv[1])]; print(int(len(l)==3 and not any(r["verified"] for r in l)))' "$TMP/r/log")" \
	"... the signatures made with the shared key fail verification with another"
expect_err "refused for good: HTTP 401" "... and the refusal is said"
recv_stop

# --- a 500: tried again ---
rm -f "$TMP/r/log"
M=$(mark "$DB")
recv_start
echo 500 >"$TMP/r/status"
events "$TMP/ev5.json" 1 400
expect_exit 1 "a receiver answering 500: the items stay pending" -- \
	"$BIN" decode --store "sqlite:$DB" $W --webhook-wait 4 "$TMP/ev5.json"
ok_if "$(python3 -c 'import json,sys,collections; l=[json.loads(x) for x in open(sys.argv[1])]; c=collections.Counter(r["delivery"] for r in l); print(int(len(c)==3 and min(c.values())>=2 and max(r["attempt"] for r in l)>=2))' "$TMP/r/log")" \
	"... each was tried again (several attempts, numbered)"
echo 200 >"$TMP/r/status"
expect_exit 0 "the receiver well again: delivered" -- "$BIN" decode --store "sqlite:$DB" $W "$TMP/ev5.json"
ok_if "$([ "$(check_log "$DB" "$M")" = fine ] && echo 1)" "after retries: once each after de-duplication, in order"

# --- a 400: failed, not tried again ---
rm -f "$TMP/r/log"
M=$(mark "$DB")
echo 400 >"$TMP/r/status"
events "$TMP/ev6.json" 1 500
expect_exit 1 "a receiver answering 400: kept as failed" -- \
	"$BIN" decode --store "sqlite:$DB" $W --webhook-wait 3 "$TMP/ev6.json"
expect_err "refused for good: HTTP 400: no: 400" "... with the receiver's answer"
ok_if "$([ "$(logged)" -eq 3 ] && echo 1)" "... one request each: no retry"
expect_exit 0 "store outbox counts the failed" -- "$BIN" store outbox --store "sqlite:$DB" --format json
expect_out '"pending":0,.*"failed":6,' "... the 3 of the 401 and the 3 of the 400"
echo 200 >"$TMP/r/status"
expect_exit 0 "later runs do not send them" -- "$BIN" decode --store "sqlite:$DB" $W "$TMP/ev6.json"
ok_if "$([ "$(logged)" -eq 3 ] && echo 1)" "... nothing more was sent"
expect_exit 0 "store outbox --retry-failed makes them pending" -- \
	"$BIN" store outbox --store "sqlite:$DB" --retry-failed --format json
expect_out '"pending":6,.*"failed":0,.*"retried":6' "... 6 pending again"
rm -f "$TMP/r/log"
expect_exit 0 "then they are delivered" -- "$BIN" decode --store "sqlite:$DB" $W "$TMP/ev6.json"
ok_if "$(python3 -c 'import json,sys; l=[json.loads(x) for x in open(sys.argv[1])]; print(int(len(l)==6 and len(set(r["delivery"] for r in l))==6 and all(r["verified"] and r["status"]==200 for r in l)))' "$TMP/r/log")" \
	"... once each, verified"

# --- suppressions only ---
rm -f "$TMP/r/log"
DB2="$TMP/s2.db"
expect_exit 0 "--webhook-events suppressions: decode" -- \
	"$BIN" decode --store "sqlite:$DB2" $W --webhook-events suppressions "$TMP/ev1.json" "$TMP/ev2.json"
ok_if "$(python3 -c 'import json,sys; l=[json.loads(x) for x in open(sys.argv[1])]; print(int(len(l)==3 and all(r["event"]=="suppressed" and r["body"]["state"]["suppressed"] for r in l)))' "$TMP/r/log")" \
	"... one 'suppressed' per address, not one per bounce"
expect_exit 0 "store release --outbox suppressions writes 'released'" -- \
	"$BIN" store release --store "sqlite:$DB2" --outbox suppressions user1@mail.example.net
expect_exit 0 "... which the next run sends" -- \
	"$BIN" decode --store "sqlite:$DB2" $W --webhook-events suppressions "$TMP/ev1.json"
ok_if "$(python3 -c 'import json,sys; l=[json.loads(x) for x in open(sys.argv[1])]; print(int(len(l)==4 and l[3]["event"]=="released" and l[3]["address"]=="user1@mail.example.net"))' "$TMP/r/log")" \
	"... released, for that address"

# --- listmonk's bounce body; its API token from --webhook-auth-file, never in the URL ---
rm -f "$TMP/r/log"
LM="http://127.0.0.1:$RPORT/api/bounces"
expect_exit 2 "a password in the --webhook URL is refused" -- \
	"$BIN" decode --store "sqlite:$TMP/s3.db" --webhook "http://api:tok3n@127.0.0.1:$RPORT/api/bounces" \
	--webhook-secret-file "$TMP/key" --webhook-format listmonk "$TMP/ev1.json"
expect_err "the URL holds a password, which the process list shows: put the Authorization header's value in --webhook-auth-file FILE" \
	"... and says where it goes"
printf 'token api:tok3n\r\n' >"$TMP/auth"
printf '\n' >"$TMP/auth-empty"
expect_exit 2 "an empty --webhook-auth-file is refused" -- \
	"$BIN" decode --store "sqlite:$TMP/s3.db" --webhook "$LM" --webhook-secret-file "$TMP/key" \
	--webhook-auth-file "$TMP/auth-empty" "$TMP/ev1.json"
expect_err "--webhook-auth-file: .*: the first line is empty" "... and says so"
printf 'token a\tb\n' >"$TMP/auth-ctl"
expect_exit 2 "a control character in --webhook-auth-file is refused" -- \
	"$BIN" decode --store "sqlite:$TMP/s3.db" --webhook "$LM" --webhook-secret-file "$TMP/key" \
	--webhook-auth-file "$TMP/auth-ctl" "$TMP/ev1.json"
expect_err "--webhook-auth-file: .*: a control character in the first line" "... and says so"
python3 -c 'print("token " + "x" * 4091)' >"$TMP/auth-long"
expect_exit 2 "a --webhook-auth-file line over 4096 bytes is refused" -- \
	"$BIN" decode --store "sqlite:$TMP/s3.db" --webhook "$LM" --webhook-secret-file "$TMP/key" \
	--webhook-auth-file "$TMP/auth-long" "$TMP/ev1.json"
expect_err "--webhook-auth-file: .*: a first line longer than 4096 bytes" "... and says so"
expect_exit 2 "--webhook-auth-file without --webhook is a usage error" -- \
	"$BIN" decode --store "sqlite:$TMP/s3.db" --webhook-auth-file "$TMP/auth" "$TMP/ev1.json"
expect_exit 0 "--webhook-format listmonk" -- \
	"$BIN" decode --store "sqlite:$TMP/s3.db" --webhook "$LM" --webhook-secret-file "$TMP/key" \
	--webhook-auth-file "$TMP/auth" --webhook-format listmonk "$TMP/ev1.json"
ok_if "$(python3 -c '
import json, sys
l = [json.loads(x) for x in open(sys.argv[1])]
b = [r["body"] for r in l]
print(int(len(l) == 3 and all(r["auth"] == "token api:tok3n" and r["path"] == "/api/bounces" for r in l)
          and all(set(x) == {"email", "campaign_uuid", "source", "type", "meta"} and x["source"] == "smtpdiag"
                  and x["campaign_uuid"] == "" for x in b)
          and set(x["type"] for x in b) == {"hard"}))' "$TMP/r/log")" \
	"... the body of listmonk's POST /api/bounces for each bounce (not the deferrals), Authorization from the file"

# --- serve --webhook ---
rm -f "$TMP/r/log"
printf 'ci:tok-0123456789abcdef\n' >"$TMP/tokens"
mkdir "$TMP/cwd"
(cd "$TMP/cwd" && exec "$ABSBIN" serve --listen 127.0.0.1:0 --quiet --store "sqlite:$TMP/s4.db" \
	--token-file "$TMP/tokens" $W) 2>"$TMP/serve.log" &
PIDS="$PIDS $!"
wait_port "$TMP/serve.log"
[ -n "$PORT" ] || { echo "not ok - serve did not start"; cat "$TMP/serve.log"; exit 1; }
SPORT=$PORT
curl -s --max-time 10 -o "$TMP/out" -w '%{http_code}' -H 'Authorization: Bearer tok-0123456789abcdef' \
	-H 'Content-Type: application/json' --data-binary "@$TMP/ev1.json" \
	"http://127.0.0.1:$SPORT/api/v1/events" >"$TMP/code"
ok_if "$([ "$(cat "$TMP/code")" = 200 ] && echo 1)" "serve --webhook: /api/v1/events records"
for _ in $(seq 100); do [ "$(logged)" -ge 9 ] && break; sleep 0.1; done
ok_if "$([ "$(check_log "$TMP/s4.db")" = fine ] && [ "$(logged)" -eq 9 ] && echo 1)" \
	"... and its sender posts each verdict once, verified, in order"

# --- serve --webhook-events suppressions: DELETE /api/v1/suppressions/ADDRESS posts the release ---
rm -f "$TMP/r/log"
(cd "$TMP/cwd" && exec "$ABSBIN" serve --listen 127.0.0.1:0 --quiet --store "sqlite:$TMP/s6.db" \
	--token-file "$TMP/tokens" $W --webhook-events suppressions) 2>"$TMP/serve6.log" &
S6=$!
PIDS="$PIDS $S6"
wait_port "$TMP/serve6.log"
[ -n "$PORT" ] || { echo "not ok - serve did not start"; cat "$TMP/serve6.log"; exit 1; }
curl -s --max-time 10 -o /dev/null -H 'Authorization: Bearer tok-0123456789abcdef' \
	-H 'Content-Type: application/json' --data-binary "@$TMP/ev1.json" "http://127.0.0.1:$PORT/api/v1/events"
for _ in $(seq 100); do [ "$(logged)" -ge 3 ] && break; sleep 0.1; done
code=$(curl -s --max-time 10 -o "$TMP/out" -w '%{http_code}' -X DELETE -H 'Authorization: Bearer tok-0123456789abcdef' \
	"http://127.0.0.1:$PORT/api/v1/suppressions/user1@mail.example.net")
for _ in $(seq 100); do [ "$(logged)" -ge 4 ] && break; sleep 0.1; done
ok_if "$([ "$code" = 200 ] && python3 -c '
import json, sys
l = [json.loads(x)["body"] for x in open(sys.argv[1])]
ev = [x["event"] for x in l]
print(int(ev == ["suppressed"] * 3 + ["released"] and l[3]["address"] == "user1@mail.example.net"
          and l[3]["record"]["released_by"] == "ci"))' "$TMP/r/log" | grep -qx 1 && echo 1)" \
	"serve --webhook-events suppressions: three suppressions, then DELETE posts the release, by the token's name"
kill "$S6" 2>/dev/null
wait "$S6" 2>/dev/null

# --- scan --follow --webhook ---
rm -f "$TMP/r/log"
: >"$TMP/mail.log"
"$BIN" scan --follow --store "sqlite:$TMP/s5.db" $W "$TMP/mail.log" 2>"$TMP/follow.err" &
FPID=$!
PIDS="$PIDS $FPID"
sleep 0.5
for i in 1 2 3; do
	printf 'Mar  4 10:00:0%d mx postfix/smtp[123]: 4A%dB: to=<f%d@mail.example.net>, relay=mx.example.net[192.0.2.1]:25, delay=1, delays=0/0/0/1, dsn=5.1.1, status=bounced (host mx.example.net[192.0.2.1] said: 550 5.1.1 <f%d@mail.example.net>: User unknown (in reply to RCPT TO command))\n' \
		"$i" "$i" "$i" "$i" >>"$TMP/mail.log"
done
for _ in $(seq 150); do [ "$(logged)" -ge 3 ] && break; sleep 0.1; done
ok_if "$([ "$(logged)" -eq 3 ] && [ "$(check_log "$TMP/s5.db")" = fine ] && echo 1)" \
	"scan --follow --webhook: each attempt recorded is posted, verified"
kill "$FPID" 2>/dev/null
wait "$FPID" 2>/dev/null
exit 0
