#!/bin/sh
# CLI tests of `smtpdiag scan --follow` under log rotation: tests/cli/logwriter
# appends numbered lines while it rotates the log by rename (the daemon reopening
# 0.4 s later), by copytruncate, and by rename twice a second; at the end every
# number appears exactly once in scan's output. Each scan runs under timeout and
# is stopped once it printed the last line (or after WAIT_S seconds).
. "$(dirname "$0")/lib.sh"
LINES=1500
WAIT_S=30

# start NAME MODE EVERY DELAY: scan --follow NAME.log while the writer writes it
start() {
	: >"$TMP/$1.log"
	timeout 90 "$BIN" scan --follow "$TMP/$1.log" >"$TMP/$1.out" 2>"$TMP/$1.err" &
	echo $! >"$TMP/$1.scan"
	EVERY=$3 DELAY=$4 sh tests/cli/logwriter "$2" "$TMP/$1.log" $LINES &
	echo $! >"$TMP/$1.writer"
}

# check NAME: wait for the writer, then for the last line; stop scan; count
check() {
	wait "$(cat "$TMP/$1.writer")"
	i=0
	while [ $i -lt $((WAIT_S * 10)) ] && ! grep -q "\"u$LINES@" "$TMP/$1.out"; do sleep 0.1; i=$((i + 1)); done
	kill -TERM "$(cat "$TMP/$1.scan")"
	wait "$(cat "$TMP/$1.scan")"
	rc=$?
	n=$((n + 1))
	if [ $rc -eq 0 ]; then echo "ok $n - $1: scan stops cleanly"; else echo "not ok $n - $1: scan exit $rc"; fi
	grep -o '"recipient":"u[0-9]*@' "$TMP/$1.out" | sort | uniq -c | awk '$1 != 1' >"$TMP/$1.twice"
	seen=$(grep -o '"recipient":"u[0-9]*@' "$TMP/$1.out" | sort -u | wc -l)
	n=$((n + 1))
	if [ "$seen" -eq $LINES ]; then echo "ok $n - $1: every line read"; else
		echo "not ok $n - $1: $((LINES - seen)) of $LINES lines lost"; sed 's/^/#   /' "$TMP/$1.err" | head -5; fi
	n=$((n + 1))
	if [ ! -s "$TMP/$1.twice" ]; then echo "ok $n - $1: no line read twice"; else
		echo "not ok $n - $1: $(wc -l <"$TMP/$1.twice") lines read more than once"; fi
}

# 50 lines every 50 ms: 30 bursts, about 1.5 s of writing each
start rename rename 10 8      # every 0.5 s, the daemon reopening 0.4 s later
start copytruncate copy 10 0  # every 0.5 s
start fast rename 8 5         # faster than a second: every 0.4 s, reopening 0.25 s later
check rename
check copytruncate
check fast
