#!/bin/sh
# bench/follow: lines `scan --follow` loses (or reads twice) while a log is rotated.
#
# For each rotation mode, tests/cli/logwriter appends LINES (default 20000) numbered
# lines over about 20 s (50 lines every 50 ms) while scan --follow reads the file:
#   rename        mv away every 3 s, the daemon reopening 0.4 s later
#   copytruncate  cp + truncate every 3 s
#   fast          mv away every 0.5 s (twice a second), reopening 0.3 s later
# When the writer is done, scan is given until it prints the last line (at most
# WAIT s, default 15), then stopped; the loss is LINES less the distinct numbers it
# printed. Benchmarks never fail a build. BUILD selects the binary to measure.
set -eu
BUILD=${BUILD:-build}
BIN=$BUILD/smtpdiag
LINES=${LINES:-20000}
WAIT=${WAIT:-15}
here=$(cd "$(dirname "$0")/.." && pwd)

[ -x "$BIN" ] || { echo "SKIP bench/follow: $BIN not built"; exit 0; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run NAME MODE EVERY DELAY
run() {
	log=$work/$1.log
	: >"$log"
	"$BIN" scan --follow "$log" >"$work/$1.out" 2>"$work/$1.err" &
	sp=$!
	EVERY=$3 DELAY=$4 sh "$here/tests/cli/logwriter" "$2" "$log" "$LINES"
	i=0
	while [ $i -lt $((WAIT * 10)) ] && ! grep -q "u$LINES@" "$work/$1.out"; do sleep 0.1; i=$((i + 1)); done
	kill -TERM $sp
	wait $sp || true
	seen=$(grep -o '"recipient":"u[0-9]*@' "$work/$1.out" | sort -u | wc -l)
	all=$(grep -c '"recipient":"u' "$work/$1.out" || true)
	awk -v n="$1" -v l="$LINES" -v s="$seen" -v a="$all" 'BEGIN {
		printf "%-13s lost %6d of %d (%.2f%%), read twice %d\n", n, l - s, l, 100 * (l - s) / l, a - s }'
}

echo "bench/follow: $("$BIN" --version), $LINES lines each"
run rename rename 60 8
run copytruncate copy 60 0
run fast rename 10 6
