#!/bin/sh
# CLI tests of serve under systemd's protocols, without systemd as PID 1:
# systemd-socket-activate passes a listening socket (LISTEN_FDS), a Python
# datagram socket stands for NOTIFY_SOCKET and must get READY=1 then
# STOPPING=1; a page and /metrics are fetched through the passed socket; a
# passed file that is no listening socket is a clear error; and
# systemd-analyze verify checks the units of systemd/ as `make install` puts
# them in a DESTDIR (ExecStart= must name a binary that exists).
. "$(dirname "$0")/lib.sh"
need curl python3 systemd-socket-activate systemd-analyze

PIDS=""
cleanup() {
	for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT

# a free loopback port, from the kernel
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

# the notify listener: writes each datagram it gets to $TMP/notify, one per line
cat >"$TMP/notify.py" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(20)
with open(sys.argv[2], "a") as out:
    out.write("bound\n"); out.flush()
    try:
        while True:
            d = s.recv(4096).decode()
            out.write(d.replace("\n", " ") + "\n"); out.flush()
            if "STOPPING=1" in d:
                break
    except socket.timeout:
        pass
PY
: >"$TMP/notify"
python3 "$TMP/notify.py" "$TMP/notify.sock" "$TMP/notify" &
PIDS="$PIDS $!"
NPID=$!
i=0
while [ $i -lt 100 ] && ! grep -q bound "$TMP/notify"; do sleep 0.1; i=$((i + 1)); done

# systemd-socket-activate passes on only the environment named with -E
: >"$TMP/serve.log"
systemd-socket-activate -l "127.0.0.1:$PORT" -E NOTIFY_SOCKET="$TMP/notify.sock" \
	"$BIN" serve --listen 127.0.0.1:1 2>>"$TMP/serve.log" &
SPID=$!
PIDS="$PIDS $SPID"
# systemd-socket-activate says when it listens, then starts serve on the first
# connection: curl makes it
i=0
while [ $i -lt 100 ] && ! grep -q "Listening on 127.0.0.1:$PORT" "$TMP/serve.log"; do sleep 0.1; i=$((i + 1)); done
ST=$(curl -s --max-time 10 -o "$TMP/page" -w '%{http_code}' "http://127.0.0.1:$PORT/")
ok_if "$([ "$ST" = 200 ] && echo 1)" "a page through the passed socket (status $ST)"
ST=$(curl -s --max-time 10 -o "$TMP/metrics" -w '%{http_code}' "http://127.0.0.1:$PORT/metrics")
ok_if "$([ "$ST" = 200 ] && grep -q '^# TYPE' "$TMP/metrics" && echo 1)" "/metrics through the passed socket (status $ST)"
ok_if "$(grep -q "listening on http://127.0.0.1:$PORT/" "$TMP/serve.log" && echo 1)" \
	"the passed socket wins over --listen"
i=0
while [ $i -lt 100 ] && ! grep -q 'READY=1' "$TMP/notify"; do sleep 0.1; i=$((i + 1)); done
ok_if "$(grep -q "READY=1 STATUS=listening on 127.0.0.1:$PORT" "$TMP/notify" && echo 1)" "READY=1 and STATUS= on NOTIFY_SOCKET"
kill -TERM "$SPID"
i=0
while [ $i -lt 100 ] && kill -0 "$SPID" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
wait "$SPID"
ok_if "$([ $? -eq 0 ] && echo 1)" "a clean stop by SIGTERM"
ok_if "$(grep -q 'STOPPING=1' "$TMP/notify" && echo 1)" "STOPPING=1 on NOTIFY_SOCKET"
wait "$NPID" 2>/dev/null

# a passed Unix stream socket serves as well
: >"$TMP/unix.log"
systemd-socket-activate -l "$TMP/http.sock" "$BIN" serve 2>>"$TMP/unix.log" &
UPID=$!
PIDS="$PIDS $UPID"
i=0
while [ $i -lt 100 ] && ! grep -q "Listening on $TMP/http.sock" "$TMP/unix.log"; do sleep 0.1; i=$((i + 1)); done
ST=$(curl -s --max-time 10 --unix-socket "$TMP/http.sock" -o "$TMP/page" -w '%{http_code}' "http://localhost/healthz")
ok_if "$([ "$ST" = 200 ] && echo 1)" "a request through a passed Unix socket (status $ST)"
ok_if "$(grep -q "listening on http://unix:$TMP/http.sock/" "$TMP/unix.log" && echo 1)" "it says it listens on the Unix socket"
ok_if "$(grep -q 'beyond loopback' "$TMP/unix.log" || echo 1)" "no beyond-loopback warning for a Unix socket"
kill -TERM "$UPID"
wait "$UPID"

# passed files that are not a listening stream socket: a file, a datagram socket,
# a stream socket that is not listening; each a clear error and exit 2
cat >"$TMP/pass.py" <<'PY'
import os, socket, sys
kind = sys.argv[1]
if kind == "file":
    fd = os.open(sys.argv[2], os.O_RDONLY)
elif kind == "dgram":
    fd = socket.socket(socket.AF_INET, socket.SOCK_DGRAM).detach()
elif kind == "two":
    a = socket.socket(); a.bind(("127.0.0.1", 0)); a.listen(); b = socket.socket(); b.bind(("127.0.0.1", 0)); b.listen()
    os.dup2(a.detach(), 3); os.dup2(b.detach(), 4); os.set_inheritable(3, True); os.set_inheritable(4, True)
    os.execve(sys.argv[3], sys.argv[3:], dict(os.environ, LISTEN_FDS="2", LISTEN_PID=str(os.getpid())))
else:
    fd = socket.socket().detach()
os.dup2(fd, 3)
os.set_inheritable(3, True)
os.execve(sys.argv[3], sys.argv[3:], dict(os.environ, LISTEN_FDS="1", LISTEN_PID=str(os.getpid())))
PY
expect_exit 2 "a regular file passed in LISTEN_FDS exits 2" -- python3 "$TMP/pass.py" file "$TMP/notify.py" "$BIN" serve
expect_err 'passed file descriptor 3 .LISTEN_FDS. is not a socket' "it says the passed file is no socket"
expect_exit 2 "a datagram socket passed in LISTEN_FDS exits 2" -- python3 "$TMP/pass.py" dgram - "$BIN" serve
expect_err 'is not a TCP or Unix stream socket' "it says the passed socket is no stream socket"
expect_exit 2 "a stream socket that does not listen exits 2" -- python3 "$TMP/pass.py" stream - "$BIN" serve
expect_err 'passed socket 3 .LISTEN_FDS. is not listening' "it says the passed socket does not listen"
expect_exit 2 "two passed sockets exit 2" -- python3 "$TMP/pass.py" two - "$BIN" serve
expect_err 'serve takes one passed socket' "it says serve takes one"

# the units, verified offline as installed: PREFIX is a directory of the test,
# so ExecStart= names the installed binary, which exists
U="$TMP/inst/lib/systemd/system"
make -s install PREFIX="$TMP/inst" BUILD="${BUILD:-build}" >"$TMP/inst.log" 2>&1
for u in smtpdiag-serve.service smtpdiag-serve.socket smtpdiag-scan@.service; do
	ok_if "$([ -f "$U/$u" ] && echo 1)" "make install puts $u in UNITDIR"
done
ok_if "$(grep -q "^ExecStart=$TMP/inst/bin/smtpdiag serve " "$U/smtpdiag-serve.service" && echo 1)" \
	"make install names PREFIX's binary in ExecStart="
ln -s smtpdiag-scan@.service "$U/smtpdiag-scan@var-log-mail.log.service"
expect_exit 0 "systemd-analyze verify passes on the installed units" -- \
	systemd-analyze verify --man=no "$U/smtpdiag-serve.socket" "$U/smtpdiag-serve.service" \
	"$U/smtpdiag-scan@var-log-mail.log.service"
n=$((n + 1))
if [ -s "$TMP/err" ]; then echo "not ok $n - systemd-analyze verify says nothing"; sed 's/^/#   /' "$TMP/err" | head -10
else echo "ok $n - systemd-analyze verify says nothing"; fi
