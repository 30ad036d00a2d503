#!/bin/sh
# serve --socketmap behind a real Postfix (Debian postfix): a throw-away
# instance of the test's own (its config, queue and data directories in a
# temporary directory, smtpd on a free loopback port, mail_owner postfix)
# relays to a small SMTP server of the test's (tests/cli/helpers/smtp_sink.py)
# that refuses recipients with 550 replies. With
# smtp_delivery_status_filter = socketmap:unix:...:status a 550 rate limit is
# deferred (dsn=4.7.1, in the queue), a 550 user unknown still bounces; without
# the filter the rate limit bounces too. Postfix's master needs root: as any
# other user the test says it cannot run (CI runs it as root). The sink and
# smtpdiag run as nobody.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if [ "$(id -u)" -ne 0 ]; then
	if [ -n "${CI:-}" ]; then
		echo "not ok 1 - a Postfix instance needs root, and CI runs the tests as root"
		exit 1
	fi
	echo "ok 1 # SKIP a Postfix instance needs root (CI runs it as root)"
	exit 0
fi
if ! command -v postfix >/dev/null 2>&1; then
	sh tools/install-deps.sh test >/dev/null 2>&1
fi
need postfix postconf postqueue python3 curl runuser
id postfix >/dev/null 2>&1 || { echo "not ok 1 - no postfix user (the Debian postfix package makes it)"; exit 1; }

PFX=$(mktemp -d /tmp/smtpdiag-pfx.XXXXXX)
chmod 755 "$PFX"
sink_pid=""
sd_pid=""
cleanup() {
	[ -f "$PFX/conf/main.cf" ] && postfix -c "$PFX/conf" stop >/dev/null 2>&1
	i=0 # the master leaves when its children did
	while [ $i -lt 50 ] && [ -f "$PFX/queue/pid/master.pid" ] &&
		kill -0 "$(tr -d ' ' <"$PFX/queue/pid/master.pid")" 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -n "$sink_pid" ] && kill "$sink_pid" 2>/dev/null
	[ -n "$sd_pid" ] && kill "$sd_pid" 2>/dev/null
	rm -rf "$TMP" "$PFX"
}
trap cleanup EXIT INT TERM

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_for FILE PATTERN: until FILE has a line matching PATTERN (grep -E), 60 s at most
wait_for() {
	i=0
	while [ $i -lt 300 ]; do
		grep -Eq -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.2
		i=$((i + 1))
	done
	return 1
}

# the sink: rate limits and unknown users refused for good, the rest taken
mkdir "$PFX/sink" "$PFX/sm"
chown nobody "$PFX/sink" "$PFX/sm"
# the sink is run from the temporary directory: nobody may not reach the
# checkout (a clone under /root, say)
cp "$ROOT/tests/cli/helpers/smtp_sink.py" "$PFX/sink/smtp_sink.py" && chmod 644 "$PFX/sink/smtp_sink.py"
runuser -u nobody -- python3 "$PFX/sink/smtp_sink.py" "$PFX/sink/port" \
	"rl=550 5.7.1 Rate limit exceeded, try again later" \
	"uu=550 5.1.1 <uu@example.net>: Recipient address rejected: User unknown" 2>"$TMP/sink.log" &
sink_pid=$!
wait_for "$PFX/sink/port" '^[0-9]+$' || { echo "not ok 1 - the SMTP sink did not start"; cat "$TMP/sink.log"; exit 1; }
SINK=$(cat "$PFX/sink/port")

# smtpdiag: the socketmap beside the HTTP server, as nobody
SOCK=$PFX/sm/sm.sock
: >"$TMP/serve.log"
"$BIN" serve --listen 127.0.0.1:0 --quiet --user nobody --socketmap "unix:$SOCK" --socketmap-mode 0666 \
	2>"$TMP/serve.log" &
sd_pid=$!
wait_port "$TMP/serve.log"
[ -n "$PORT" ] || { echo "not ok 1 - serve --socketmap did not start"; sed 's/^/#   /' "$TMP/serve.log"; exit 1; }

# the Postfix instance: Debian's master.cf without chroot and without port 25,
# smtpd on a free loopback port instead
SMTPD=$(free_port)
mkdir "$PFX/conf" "$PFX/queue" "$PFX/data"
chown postfix "$PFX/data"
awk '/^smtp[ \t]+inet/ { print "#" $0; next }
     /^[a-z]/ && NF >= 8 && $5 == "y" { $5 = "n" } { print }' /etc/postfix/master.cf >"$PFX/conf/master.cf"
echo "127.0.0.1:$SMTPD inet n - n - - smtpd" >>"$PFX/conf/master.cf"
cat >"$PFX/conf/main.cf" <<EOF
compatibility_level = 3.6
queue_directory = $PFX/queue
data_directory = $PFX/data
mail_owner = postfix
setgid_group = postdrop
myhostname = mta.test
mydomain = mta.test
myorigin = mta.test
mydestination =
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
smtpd_relay_restrictions = permit_mynetworks, reject
relayhost = [127.0.0.1]:$SINK
smtp_host_lookup = native
alias_maps =
alias_database =
maillog_file_prefixes = $PFX
maillog_file = $PFX/maillog
smtp_delivery_status_filter = socketmap:unix:$SOCK:status
EOF
LOG=$PFX/maillog
if ! postfix -c "$PFX/conf" start >"$TMP/start.log" 2>&1 || ! wait_for "$LOG" 'postfix/master.*daemon started'; then
	echo "not ok 1 - the Postfix instance did not start"
	sed 's/^/#   /' "$TMP/start.log" "$LOG" 2>/dev/null | tail -10
	exit 1
fi
n=$((n + 1))
echo "ok $n - a Postfix instance of the test's own started"

# send FROM RCPT...: one message through the instance's smtpd
send() {
	python3 - "$SMTPD" "$@" <<'EOF'
import smtplib, sys
port, sender, rcpts = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
with smtplib.SMTP("127.0.0.1", port, timeout=30) as s:
    s.sendmail(sender, rcpts, "From: %s\r\nSubject: socketmap test\r\n\r\nhello\r\n" % sender)
EOF
}

# with the filter: the rate limit is deferred with 4.7.1, the unknown user bounced
expect_exit 0 "with the filter: a message to a rate-limited and an unknown recipient is taken" -- \
	send ok-sender@mta.test rl1@example.net uu1@example.net
wait_for "$LOG" 'to=<rl1@example.net>.*status=' && wait_for "$LOG" 'to=<uu1@example.net>.*status='
ok_if "$(grep -Eq 'to=<rl1@example.net>.*dsn=4\.7\.1, status=deferred \(host 127\.0\.0\.1\[127\.0\.0\.1\] said: 550 5\.7\.1 Rate limit exceeded' "$LOG" && echo 1)" \
	"with the filter: the 550 rate limit is deferred with dsn=4.7.1"
ok_if "$(grep -Eq 'to=<uu1@example.net>.*dsn=5\.1\.1, status=bounced' "$LOG" && echo 1)" \
	"with the filter: the 550 user unknown still bounces with dsn=5.1.1"
postqueue -c "$PFX/conf" -p >"$TMP/out" 2>"$TMP/err"
expect_out 'rl1@example.net' "with the filter: the rate-limited recipient waits in the queue"
ok_if "$(! grep -q 'uu1@example.net' "$TMP/out" && echo 1)" "with the filter: the unknown recipient is not in the queue"
ok_if "$(grep -q 'socketmap: rewrote 5.7.1 -> 4.7.1 (reason ratelimited' "$TMP/serve.log" && echo 1)" \
	"smtpdiag logs the rewrite with its reason"
got=$(curl -s "http://127.0.0.1:$PORT/metrics" | sed -n 's/^smtpdiag_socketmap_rewrites_total{from_class="5",to_class="4",reason="ratelimited"} //p')
ok_if "$([ "$got" = 1 ] && echo 1)" "/metrics: one rewrite from 5 to 4 ($got)"
got=$(curl -s "http://127.0.0.1:$PORT/metrics" | sed -n 's/^smtpdiag_socketmap_requests_total{result="kept"} //p')
ok_if "$([ "${got:-0}" -ge 1 ] && echo 1)" "/metrics: the user unknown lookup kept ($got)"

# without the filter: the same rate limit bounces
postconf -c "$PFX/conf" -X smtp_delivery_status_filter
postfix -c "$PFX/conf" reload >/dev/null 2>&1
wait_for "$LOG" 'postfix/master.*reload'
expect_exit 0 "without the filter: a message to a rate-limited recipient is taken" -- \
	send ok-sender@mta.test rl2@example.net
wait_for "$LOG" 'to=<rl2@example.net>.*status='
ok_if "$(grep -Eq 'to=<rl2@example.net>.*dsn=5\.7\.1, status=bounced' "$LOG" && echo 1)" \
	"without the filter: the 550 rate limit bounces with dsn=5.7.1"
