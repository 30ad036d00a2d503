#!/bin/sh
# bench/socketmap: lookups per second of serve --socketmap over one connection,
# one request after the other as a Postfix delivery agent sends them.
#
# Three keys, N requests each (default 20000), median of RUNS (default 3):
#   rewrite   a 5XX rate limit the verdict says to retry (OK 4.7.1 ...)
#   kept      a 5XX user unknown (NOTFOUND after the verdict)
#   invalid   a key that is no status (NOTFOUND before any verdict): the protocol
#             and the client alone, the floor the other two compare with
# The client is Python (one send and one read a request): the figures are a
# bound from below of the server's rate. Benchmarks never fail a build.
set -eu
BUILD=${BUILD:-build}
BIN=$BUILD/smtpdiag
N=${N:-20000}
RUNS=${RUNS:-3}

[ -x "$BIN" ] || { echo "SKIP bench/socketmap: $BIN not built"; exit 0; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP bench/socketmap: no python3"; exit 0; }
work=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$work"' EXIT
"$BIN" serve --listen 127.0.0.1:0 --quiet --socketmap "unix:$work/sm.sock" 2>"$work/log" &
pid=$!
i=0
while [ ! -S "$work/sm.sock" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done

H='host mx.example.net[192.0.2.10] said:'
# run KEY: requests per second, the median of RUNS
run() {
	python3 - "$work/sm.sock" "$N" "$RUNS" "$1" <<'EOF'
import socket, sys, time
path, n, runs, key = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(path)
data = ("status " + key).encode()
req = b"%d:%s," % (len(data), data)
rates = []
for _ in range(runs):
    t = time.perf_counter()
    for _ in range(n):
        s.sendall(req)
        got = b""
        while not got.endswith(b","):
            got += s.recv(65536)
    rates.append(n / (time.perf_counter() - t))
rates.sort()
print("%.0f" % rates[len(rates) // 2])
EOF
}

echo "bench/socketmap: $("$BIN" --version | head -1), $N requests a run, median of $RUNS, one connection"
printf '%-8s %10s requests/s\n' rewrite "$(run "5.7.1 $H 550 5.7.1 Rate limit exceeded, try again later (in reply to RCPT TO command)")"
printf '%-8s %10s requests/s\n' kept "$(run "5.1.1 $H 550 5.1.1 <u@example.net>: Recipient address rejected: User unknown (in reply to RCPT TO command)")"
printf '%-8s %10s requests/s\n' invalid "$(run "hello world")"
