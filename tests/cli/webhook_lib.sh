# Helpers of the webhook tests (webhook.sh, webhook_pg.sh): a receiver of the
# test's own, run as nobody when the test runs as root, on a free loopback
# port kept across restarts; SendGrid events of three addresses; and the
# check of what it received against a store's outbox.
need python3 curl
ABSBIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
PIDS=""
unset SMTPDIAG_STORE SMTPDIAG_POLICY
RAS=""
[ "$(id -u)" -eq 0 ] && RAS="runuser -u nobody --"
mkdir "$TMP/r" && chmod 777 "$TMP/r" && chmod 755 "$TMP"
printf 'shared-secret-1\n' >"$TMP/key"
printf 'another-secret\n' >"$TMP/r/wrong"
cp "$TMP/key" "$TMP/r/key"
chmod 644 "$TMP/key" "$TMP/r/key" "$TMP/r/wrong"
# the receiver is read from the temporary directory: nobody may not reach the
# checkout (a clone under /root, say)
RECV=$TMP/r/webhook_receiver.py
cp "$(dirname "$0")/helpers/webhook_receiver.py" "$RECV" && chmod 644 "$RECV"

# a free loopback port, kept for every start of the receiver
RPORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
HOOK="http://127.0.0.1:$RPORT/hook"
RPID=""

# logged: the requests the receiver logged so far
logged() {
	cat "$TMP/r/log" 2>/dev/null | grep -c .
}

# recv_start [KEYFILE]: the receiver on $RPORT, logging to $TMP/r/log
recv_start() {
	rm -f "$TMP/r/port"
	$RAS python3 "$RECV" --port "$RPORT" --port-file "$TMP/r/port" --secret "${1:-$TMP/r/key}" \
		--log "$TMP/r/log" --status-file "$TMP/r/status" 2>"$TMP/recv.err" &
	RPID=$!
	PIDS="$PIDS $RPID"
	for _ in $(seq 100); do [ -s "$TMP/r/port" ] && break; sleep 0.1; done
	[ -s "$TMP/r/port" ] || { echo "not ok - the receiver did not start"; cat "$TMP/recv.err"; exit 1; }
}
recv_stop() {
	kill "$RPID" 2>/dev/null
	wait "$RPID" 2>/dev/null
	RPID=""
}

# events FILE N START: SendGrid events, N rounds over three addresses (a
# deferral, then another, then a bounce each), interleaved, ids from START
events() {
	python3 - "$1" "$2" "$3" <<'EOF'
import json, sys
out, n, start = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ev = []
for r in range(n):
    for a in range(3):
        i = start + r * 3 + a
        e = {"email": "user%d@mail.example.net" % a, "timestamp": 1709547300 + i,
             "sg_event_id": "ev%06d" % i, "sg_message_id": "m%06d.filter0001" % i}
        if r % 3 == 2:
            e.update(event="bounce", type="bounce", status="5.1.1",
                     reason="550 5.1.1 The email account that you tried to reach does not exist.")
        else:
            e.update(event="deferred", response="451 4.7.1 Greylisted, please try again later",
                     attempt="1")
        ev.append(e)
json.dump(ev, open(out, "w"))
EOF
}

# sql STORE QUERY: the rows of QUERY, tab-separated; STORE a SQLite file or a postgresql:// URL
sql() {
	case $1 in
	postgresql://*) "$PGBIN/psql" -XAtq -F "$(printf '\t')" "$1" -c "$2" ;;
	*) python3 -c 'import sqlite3, sys
for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]): print("\t".join(str(c) for c in r))' "$1" "$2" ;;
	esac
}

# mark STORE: the last item of the store's outbox so far (0: none)
mark() {
	sql "$1" "SELECT coalesce(max(seq), 0) FROM outbox"
}

# check_log STORE [MARK]: every item of the store's outbox after MARK was
# delivered and received once after de-duplication by delivery id, every
# signature verified, a second copy only with a later attempt, and each
# address's items in outbox order
check_log() {
	sql "$1" "SELECT id, address, state FROM outbox WHERE seq > ${2:-0} ORDER BY seq, id" >"$TMP/rows"
	python3 - "$TMP/r/log" "$TMP/rows" <<'EOF'
import json, sys
log = [json.loads(l) for l in open(sys.argv[1])]
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[2]) if l.strip()]
if any(s != "d" for _, _, s in rows):
    print("not every item was delivered")
    sys.exit(0)
rows = [(i, a) for i, a, _ in rows]
ok = [r for r in log if r["status"] == 200]
bad = []
if not all(r["verified"] for r in log):
    bad.append("a signature did not verify")
if any(r["id"] != r["delivery"] for r in log):
    bad.append("a body's id is not its Smtpdiag-Delivery")
seen = {}
for r in ok:
    if r["delivery"] in seen and r["attempt"] <= seen[r["delivery"]]:
        bad.append("%s delivered twice without a retry" % r["delivery"])
    seen.setdefault(r["delivery"], r["attempt"])
want = set(i for i, _ in rows)
if set(seen) != want:
    bad.append("delivered %d ids, the outbox has %d delivered" % (len(seen), len(want)))
first = []
for r in ok:
    if r["delivery"] not in [f["delivery"] for f in first]:
        first.append(r)
for addr in set(a for _, a in rows):
    got = [r["delivery"] for r in first if r["address"] == addr]
    exp = [i for i, a in rows if a == addr]
    if got != exp:
        bad.append("%s: out of order" % addr)
print("; ".join(bad) if bad else "fine")
EOF
}

