#!/bin/sh
# bench/serve-soak: `smtpdiag serve` among normal and hostile clients at once, for
# DURATION seconds (a benchmark, not a test).
#
# On a free loopback port, all at the same time (tests/hostile.c, cut ones reconnect):
#   IDLE      connections that send nothing                      (default 10000)
#   SLOW      requests whose header lines come one per 2 s         (default 1100)
#   SLOWBODY  POSTs whose body comes 16 bytes per 2 s              (default 200)
#   LOAD      keep-alive clients getting a cached page, /code/431  (default 16)
#   one client getting /healthz on a new connection every 100 ms
# Prints the server's resident memory every 10 s and its peak, requests, errors
# and latency percentiles (p50/p90/p99/max) of the page and of /healthz.
# Goal: /healthz p99 well under 2 s, no /healthz errors, memory flat.
# Loopback only; everything stops by itself after DURATION (default 120) seconds.
# Knobs: DURATION, IDLE, SLOW, SLOWBODY, LOAD, THREADS (2).
set -eu
BUILD=${BUILD:-build}
BIN=$BUILD/smtpdiag
H=$BUILD/tests/hostile
DURATION=${DURATION:-120}
IDLE=${IDLE:-10000}
SLOW=${SLOW:-1100}
SLOWBODY=${SLOWBODY:-200}
LOAD=${LOAD:-16}
THREADS=${THREADS:-2}
TICK=10

[ -x "$BIN" ] && [ -x "$H" ] || { echo "bench/serve-soak: build first (make BUILD=$BUILD tests)"; exit 1; }
work=$(mktemp -d)
pid=""
kids=""
trap 'for k in $kids; do kill "$k" 2>/dev/null; done; [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT

. "$(dirname "$0")/lib/serve-start.sh"
serve_start "$work/server.log" --threads "$THREADS"

mem() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$pid/status"; }
conns() { ls "/proc/$pid/fd" 2>/dev/null | wc -l; }

echo "bench/serve-soak: $("$BIN" --version), $(nproc) cores, server $THREADS+$THREADS threads," \
	"open files $(ulimit -Hn) (hard), ${DURATION}s, loopback"
echo "clients: $IDLE idle, $SLOW slow headers, $SLOWBODY slow bodies, $LOAD on /code/431, 1 on /healthz"
curl -s -o /dev/null "http://127.0.0.1:$port/code/431" # into the cache
echo "server RSS at start: $(mem VmRSS) kB"
"$H" idle "$port" "$IDLE" "$DURATION" -r >"$work/idle.out" 2>&1 &
kids="$kids $!"
"$H" trickle "$port" "$SLOW" "$DURATION" 2000 -r >"$work/slow.out" 2>&1 &
kids="$kids $!"
"$H" slowbody "$port" "$SLOWBODY" "$DURATION" 2000 100000 1000 -r >"$work/body.out" 2>&1 &
kids="$kids $!"
"$H" load "$port" "$LOAD" "$DURATION" /code/431 >"$work/page.out" 2>&1 &
kids="$kids $!"
"$H" load "$port" 1 "$DURATION" /healthz 100 -n >"$work/health.out" 2>&1 &
kids="$kids $!"

t=0
max=0
while [ $t -lt "$DURATION" ]; do
	sleep $TICK
	t=$((t + TICK))
	rss=$(mem VmRSS)
	[ "$rss" -gt "$max" ] && max=$rss
	printf 't=%4ss  RSS %7s kB  open descriptors %6s\n' "$t" "$rss" "$(conns)"
done
for k in $kids; do wait "$k" 2>/dev/null || true; done
kids=""
echo "server RSS at end: $(mem VmRSS) kB, max sampled $max kB, peak (VmHWM) $(mem VmHWM) kB"
echo "idle:       $(head -1 "$work/idle.out"), $(tail -1 "$work/idle.out" | sed "s/^cut //") cut and reopened"
echo "slow heads: $(head -1 "$work/slow.out"), $(tail -1 "$work/slow.out" | sed "s/^cut //") cut and reopened"
echo "slow body:  $(head -1 "$work/body.out"), $(tail -1 "$work/body.out" | sed "s/^cut //") cut and reopened"
cat "$work/page.out" "$work/health.out"
echo "access log: $(grep -c ' deadline$' "$work/server.log") requests cut at their deadline," \
	"$(grep -c '" 503 ' "$work/server.log") answered 503"
kill -TERM "$pid"
wait "$pid" 2>/dev/null || true
pid=""
