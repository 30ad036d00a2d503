#!/bin/sh
# Webhooks out with the outbox in PostgreSQL: a throw-away cluster (as in
# store_pg.sh) and the receiver of webhook.sh. With the receiver down every
# item waits; once it is up each is delivered once, verified, in order per
# address; items of records seen before are not written again (the batch's
# new records are told apart inside its transaction); suppressions too.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg_lib.sh"
. "$(dirname "$0")/webhook_lib.sh"

trap 'for p in $PIDS; do kill "$p" 2>/dev/null; done; pg_stop; rm -rf "$TMP"' EXIT INT TERM
pg_setup
DB=$(pg_db hooks)
W="--webhook $HOOK --webhook-secret-file $TMP/key"
events "$TMP/ev1.json" 3 0
events "$TMP/ev2.json" 6 100

expect_exit 1 "receiver down: decode records into PostgreSQL, items left pending" -- \
	"$BIN" decode --store "$DB" $W --webhook-wait 0 "$TMP/ev1.json"
expect_err "read 9 = recorded 9" "... every verdict recorded"
expect_err "9 items not delivered yet" "... and said to wait in the outbox"
recv_start
expect_exit 0 "receiver up: a second run (the first file again, and a new one) delivers all" -- \
	"$BIN" decode --store "$DB" $W "$TMP/ev1.json" "$TMP/ev2.json"
expect_err "read 27 = recorded 18 \+ duplicates 9" "... the first file's records are duplicates"
ok_if "$([ "$(check_log "$DB")" = fine ] && [ "$(logged)" -eq 27 ] && echo 1)" \
	"27 items, each once, verified, in order per address"
check_log "$DB" | grep -v '^fine$' | sed 's/^/#   /'
n=$((n + 1))
ids=$(sql "$DB" "SELECT count(*), count(DISTINCT seq) FROM outbox")
if [ "$ids" = "$(printf '27\t27')" ]; then echo "ok $n - the items are numbered one after the other"; else
	echo "not ok $n - outbox count and numbers: $ids"; fi

rm -f "$TMP/r/log"
DB2=$(pg_db sup)
expect_exit 0 "--webhook-events suppressions on PostgreSQL" -- \
	"$BIN" decode --store "$DB2" $W --webhook-events suppressions "$TMP/ev1.json" "$TMP/ev2.json"
ok_if "$(python3 -c 'import json,sys; l=[json.loads(x) for x in open(sys.argv[1])]; print(int(len(l)==3 and all(r["event"]=="suppressed" and r["verified"] for r in l)))' "$TMP/r/log")" \
	"... one 'suppressed' per address"
exit 0
