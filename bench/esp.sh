#!/bin/sh
# bench/esp: ESP event throughput, single thread, from one large JSON Lines file.
#
# Makes a JSON Lines file of EVENTS events (default 200,000) by repeating the
# single-line bodies made from tests/fixtures/esp/ (each body compacted to one
# line), then times `smtpdiag decode --summary` and `cat` of the same file,
# alternating, and prints the median of RUNS runs: events/s, MB/s, and the
# ratio to cat. Peak memory comes from /usr/bin/time -v.
set -eu
BUILD=${BUILD:-build}
BIN=$BUILD/smtpdiag
RUNS=${RUNS:-5}
EVENTS=${EVENTS:-200000}
FIX=tests/fixtures/esp

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# one body per line, the events of every service but the deliberately bad file
for f in "$FIX"/*/*.json "$FIX"/*/*.jsonl; do
	case $f in */bad/*) continue ;; esac
	python3 -c 'import json,sys
t=open(sys.argv[1]).read()
try:
    print(json.dumps(json.loads(t), separators=(",", ":")))
except ValueError:
    [print(json.dumps(json.loads(l), separators=(",", ":"))) for l in t.splitlines() if l.strip()]' "$f"
done >"$work/one.jsonl"
per=$("$BIN" decode --summary "$work/one.jsonl" | sed -n 's/^events: *//p')
lines=$(wc -l <"$work/one.jsonl")
copies=$(( (EVENTS + per - 1) / per ))
i=0
while [ $i -lt "$copies" ]; do cat "$work/one.jsonl"; i=$((i + 1)); done >"$work/all.jsonl"
events=$((copies * per))
bytes=$(wc -c <"$work/all.jsonl")

now() { date +%s.%N; }
timeit() { s=$(now); "$@" >/dev/null 2>&1 || true; e=$(now); echo "$e - $s" | bc -l; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "bench/esp: $("$BIN" --version), $(nproc) cores, $RUNS runs each, median"
echo "input: $events events in $((copies * lines)) bodies, $(echo "$bytes/1048576" | bc -l | cut -c1-6) MB"
: >"$work/t.dec"; : >"$work/t.jl"; : >"$work/t.cat"
r=0
while [ $r -lt "$RUNS" ]; do
	timeit "$BIN" decode --summary "$work/all.jsonl" >>"$work/t.dec"
	timeit sh -c "$BIN decode $work/all.jsonl >/dev/null" >>"$work/t.jl"
	timeit cat "$work/all.jsonl" >>"$work/t.cat"
	r=$((r + 1))
done
d=$(median <"$work/t.dec"); j=$(median <"$work/t.jl"); c=$(median <"$work/t.cat")
printf 'decode --summary %.3fs = %8.0f events/s %6.1f MB/s\n' "$d" "$(echo "$events/$d" | bc -l)" "$(echo "$bytes/1048576/$d" | bc -l)"
printf 'decode (JSONL)   %.3fs = %8.0f events/s %6.1f MB/s\n' "$j" "$(echo "$events/$j" | bc -l)" "$(echo "$bytes/1048576/$j" | bc -l)"
printf 'cat              %.3fs   decode/cat time ratio %.0f\n' "$c" "$(echo "$j/$c" | bc -l)"
peak=$( { /usr/bin/time -v "$BIN" decode --summary "$work/all.jsonl" >/dev/null; } 2>&1 | sed -n 's/.*Maximum resident set size (kbytes): //p')
echo "peak memory: $((peak / 1024)) MB"
