#!/bin/sh
# bench/serve: load on `smtpdiag serve` with wrk (a benchmark, not a test).
#
# Starts the server on a free loopback port (access log on, to a file, as in
# production), then runs wrk for DURATION seconds (default 30) against
#   explain  GET /api/v1/explain?q=552%204.3.1
#   page     GET /code/431
#   mixed    every code page and pair in turn plus unknown statuses, so the
#            bounded page cache keeps replacing entries (memory must stay flat)
#   decode   POST /api/v1/decode of a bounce email (samples/bounces/postfix-userunknown.eml)
# after a 5 s warm-up of the mixed paths, and prints requests/s, latency
# percentiles (50/90/99%) and the server's resident memory before and after
# each run (VmRSS) and its peak (VmHWM).
# Target: >= 20,000 requests/s with p99 < 5 ms on 2 cores, memory flat.
# Loopback only. Knobs: DURATION, CONNECTIONS (64), WRK_THREADS (1), THREADS (2).
set -eu
BUILD=${BUILD:-build}
BIN=$BUILD/smtpdiag
DURATION=${DURATION:-30}
CONNECTIONS=${CONNECTIONS:-64}
WRK_THREADS=${WRK_THREADS:-1}
THREADS=${THREADS:-2}

if ! command -v wrk >/dev/null 2>&1; then
	echo "SKIP bench/serve: wrk not installed (BENCH=1 sh tools/install-deps.sh)"
	exit 0
fi
[ -x "$BIN" ] || { echo "bench/serve: $BIN not built (make BUILD=$BUILD)"; exit 1; }
work=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT

. "$(dirname "$0")/lib/serve-start.sh"
serve_start "$work/access.log" --threads "$THREADS"
base="http://127.0.0.1:$port"

# the mixed run's paths: each code and pair of the index, and statuses no cache slot keeps
curl -s "$base/api/v1/codes" | sed -n 's/.*"url":"\([^"]*\)".*/\1/p' >"$work/paths"
for r in 421 450 451 452 550 552 554; do
	for s in 4.2.2 4.3.1 5.1.1 5.2.2 5.7.1; do echo "/code/$r-$s"; done
done >>"$work/paths"
d=0
while [ $d -lt 600 ]; do echo "/code/4.9.$d"; d=$((d + 1)); done >>"$work/paths"
{
	echo 'local paths = {}'
	while read -r p; do echo "paths[#paths + 1] = \"$p\""; done <"$work/paths"
	echo 'local i = 0'
	echo 'request = function() i = i % #paths + 1; return wrk.format("GET", paths[i]) end'
} >"$work/mixed.lua"
{
	echo 'local f = io.open("samples/bounces/postfix-userunknown.eml", "rb")'
	echo 'wrk.method = "POST"; wrk.body = f:read("*a"); f:close()'
	echo 'wrk.headers["Content-Type"] = "message/rfc822"'
} >"$work/decode.lua"

mem() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$pid/status"; }

run() { # label path [lua script]
	label=$1; path=$2; script=${3:-}
	curl -s -o /dev/null "$base$path"
	before=$(mem VmRSS)
	if [ -n "$script" ]; then
		wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$script" "$base$path" >"$work/wrk.out"
	else
		wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency "$base$path" >"$work/wrk.out"
	fi
	after=$(mem VmRSS)
	rps=$(awk '/^Requests\/sec:/ { print $2 }' "$work/wrk.out")
	p50=$(awk '$1 == "50%" { print $2 }' "$work/wrk.out")
	p90=$(awk '$1 == "90%" { print $2 }' "$work/wrk.out")
	p99=$(awk '$1 == "99%" { print $2 }' "$work/wrk.out")
	errs=$(awk '/Socket errors|Non-2xx/ { printf "%s ", $0 }' "$work/wrk.out")
	printf '%-8s %-32s %10s req/s   p50 %-8s p90 %-8s p99 %-8s  RSS %6s -> %6s kB  %s\n' \
		"$label" "$path" "$rps" "$p50" "$p90" "$p99" "$before" "$after" "$errs"
}

echo "bench/serve: $("$BIN" --version), $(nproc) cores, server $THREADS threads," \
	"wrk $WRK_THREADS thread(s) x $CONNECTIONS connections, ${DURATION}s per run, loopback"
echo "server RSS at start: $(mem VmRSS) kB"
# warm-up: every mixed path once, so the page cache is as full as it gets
wrk -t1 -c8 -d5s -s "$work/mixed.lua" "$base/" >/dev/null
echo "server RSS after a 5 s warm-up of the mixed paths: $(mem VmRSS) kB"
run explain "/api/v1/explain?q=552%204.3.1"
run page "/code/431"
run mixed "/" "$work/mixed.lua"
run decode "/api/v1/decode" "$work/decode.lua"
echo "server RSS at end: $(mem VmRSS) kB, peak $(mem VmHWM) kB; access log: $(grep -c '" [0-9][0-9][0-9] ' "$work/access.log") lines"
kill -TERM "$pid"
wait "$pid" 2>/dev/null || true
pid=""
