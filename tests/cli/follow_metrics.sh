#!/bin/sh
# /metrics of followed logs: `scan --follow --metrics-listen` and `serve --follow`
# started on a free loopback port, lines appended to a log (then a rotation by
# rename and one by copytruncate), scraped with curl: exact counts of deliveries
# by action, reason and advice, recipient domains past the 20 that get a label
# folded into "other", the follower's health, the lag; the text parses as the
# Prometheus text format; scan's server answers /metrics and /healthz only. Then
# a log that tests/cli/logwriter writes and rotates while it is followed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prom_lib.sh"
need curl
export TZ=UTC
spid="" pid=""
trap '[ -n "$spid" ] && kill -9 "$spid" 2>/dev/null; [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$TMP"' EXIT
. "$(dirname "$0")/../../bench/lib/serve-start.sh"

T0=2026-03-03T09:00:01+00:00
T1=2026-03-03T09:10:00+00:00 # the newest line's time: 1772529000
# sent TIME RCPT, deferred TIME RCPT, bounced TIME RCPT: a Postfix delivery line
sent() {
	echo "$1 mx1 postfix/smtp[2103]: 611B2C3D5E: to=<$2>, relay=mx.example.org[203.0.113.5]:25, delay=0.5, delays=0/0/0.2/0.3, dsn=2.0.0, status=sent (250 2.0.0 Ok)"
}
deferred() {
	echo "$1 mx1 postfix/smtp[2103]: 611B2C3D5F: to=<$2>, relay=none, delay=30, delays=0/0/30/0, dsn=4.4.1, status=deferred (connect to mx.example.org[203.0.113.5]:25: Connection timed out)"
}
bounced() {
	echo "$1 mx1 postfix/smtp[2103]: 611B2C3D60: to=<$2>, relay=mx.example.org[203.0.113.5]:25, delay=0.5, delays=0/0/0.2/0.3, dsn=5.1.1, status=bounced (host mx.example.org[203.0.113.5] said: 550 5.1.1 <$2>: Recipient address rejected: User unknown (in reply to RCPT TO command))"
}

# scrape PORT: /metrics into $TMP/m
scrape() { curl -s --max-time 10 "http://127.0.0.1:$1/metrics" >"$TMP/m"; }
# value SERIES: its value in $TMP/m ("" when none)
value() { awk -v s="$1" 'index($0, s " ") == 1 { print substr($0, length(s) + 2) }' "$TMP/m"; }
# until_value PORT SERIES VALUE: scrape until SERIES has VALUE (20 s at most)
until_value() {
	i=0
	while scrape "$1" && [ "$(value "$2")" != "$3" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
}
# is SERIES VALUE: the last scrape has it
is() {
	n=$((n + 1))
	got=$(value "$1")
	if [ "$got" = "$2" ]; then echo "ok $n - $1 $2"; else echo "not ok $n - $1: '$got', want $2"; fi
}
# parses DESCRIPTION: the last scrape is the text format
parses() {
	prom_check "$TMP/m" >"$TMP/pc"
	n=$((n + 1))
	if [ ! -s "$TMP/pc" ]; then echo "ok $n - $1: the Prometheus text format"; else
		echo "not ok $n - $1: not the text format"; head -5 "$TMP/pc" | sed 's/^/#   /'; fi
}

# --- the check itself catches what it is for
printf '# HELP a_total A.\n# TYPE a_total counter\na_total 1\nb 2\n' >"$TMP/m"
ok_if "$(prom_check "$TMP/m" | grep -q 'no TYPE for b' && echo 1)" "prom_check: a sample without TYPE is caught"
printf '# HELP a_total A.\n# TYPE a_total counter\na_total{x="1} 1\n' >"$TMP/m"
ok_if "$(prom_check "$TMP/m" | grep -q 'bad labels' && echo 1)" "prom_check: a bad label value is caught"
printf '# HELP a-b A.\n# TYPE a-b gauge\na-b 1\n' >"$TMP/m"
ok_if "$(prom_check "$TMP/m" | grep -q 'bad name' && echo 1)" "prom_check: a bad name is caught"

# --- misuse
expect_exit 2 "scan --metrics-listen without --follow" -- "$BIN" scan --metrics-listen 127.0.0.1:0 "$TMP/none.log"
expect_err "add --follow" "scan --metrics-listen without --follow: says so"
expect_exit 2 "serve --follow without a log" -- "$BIN" serve --follow
expect_err "--follow needs the logs" "serve --follow without a log: says so"
expect_exit 2 "serve LOG without --follow" -- "$BIN" serve "$TMP/x.log"
expect_err "after --follow" "serve LOG without --follow: says where logs go"

# --- scan --follow --metrics-listen
L=$TMP/mail.log
: >"$L"
: >"$TMP/scan.err" # there before wait_port reads it
"$BIN" scan --follow --metrics-listen 127.0.0.1:0 "$L" >"$TMP/scan.out" 2>"$TMP/scan.err" &
spid=$!
wait_port "$TMP/scan.err"
SP=$PORT
[ -n "$SP" ] || { echo "not ok 1 - scan --metrics-listen did not listen"; sed 's/^/#   /' "$TMP/scan.err"; exit 1; }
# its messages are scan's own: no serve, no --user (which scan does not have)
if grep -q '^smtpdiag: scan: listening on http://' "$TMP/scan.err" && ! grep -q 'serve:\|--user' "$TMP/scan.err"; then
	n=$((n + 1)); echo "ok $n - scan --metrics-listen speaks as scan, without serve's --user"
else
	n=$((n + 1)); echo "not ok $n - scan --metrics-listen's messages: $(tr '\n' ' ' <"$TMP/scan.err")"
fi
scrape "$SP"
is smtpdiag_follow_lines_read_total 0
is smtpdiag_follow_files 1
parses "before any line"

# 22 domains, 4 deliveries each: the first 20 get a label at their third record
for d in 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15 16 17 18 19 20 21 22; do
	for u in 1 2 3 4; do sent "$T0" "u$u@d$d.example"; done
done >>"$L"
{
	bounced "$T0" "x@d01.example"
	deferred "$T0" "y@d01.example"
	echo "$T0 mx1 kernel: eth0: link up"
	echo "$T0 mx1 postfix/smtp[2103]: 611B2C3D61: to=<z@d01.example>, relay="
} >>"$L"
until_value "$SP" smtpdiag_follow_lines_read_total 92
is smtpdiag_follow_lines_read_total 92
is smtpdiag_follow_lines_skipped_total 1
is smtpdiag_follow_lines_malformed_total 1
is smtpdiag_follow_lines_over_limit_total 0
is 'smtpdiag_log_deliveries_total{action="sent",reason="delivered",advice="none"}' 88
is 'smtpdiag_log_deliveries_total{action="bounced",reason="userunknown",advice="suppress-recipient"}' 1
is 'smtpdiag_log_deliveries_total{action="deferred",reason="networkerror",advice="retry"}' 1
is 'smtpdiag_log_domain_deliveries_total{domain="d01.example",action="sent"}' 2
is 'smtpdiag_log_domain_deliveries_total{domain="d01.example",action="bounced"}' 1
is 'smtpdiag_log_domain_deliveries_total{domain="d01.example",action="deferred"}' 1
is 'smtpdiag_log_domain_deliveries_total{domain="d20.example",action="sent"}' 2
is 'smtpdiag_log_domain_deliveries_total{domain="d21.example",action="sent"}' ""
is 'smtpdiag_log_domain_deliveries_total{domain="d22.example",action="sent"}' ""
# 2 records of each labelled domain before its label, all 4 of d21 and d22
is 'smtpdiag_log_domain_deliveries_total{domain="other",action="sent"}' 48
doms=$(sed -n 's/^smtpdiag_log_domain_deliveries_total{domain="\([^"]*\)".*/\1/p' "$TMP/m" | sort -u | wc -l)
ok_if "$([ "$doms" -eq 21 ] && echo 1)" "21 domain values: 20 labels and other ($doms)"
is smtpdiag_follow_last_record_timestamp_seconds 1772528401
parses "after the lines"

# rotation by rename: the daemon writes 2 more lines to the old file, then 3 to the new one
mv "$L" "$L.1"
: >"$L"
{ sent "$T0" "a@d01.example"; sent "$T0" "b@d01.example"; } >>"$L.1"
sleep 0.5
{ sent "$T0" "c@d01.example"; sent "$T0" "d@d01.example"; sent "$T1" "e@d01.example"; } >>"$L"
until_value "$SP" smtpdiag_follow_lines_read_total 97
is smtpdiag_follow_lines_read_total 97
is 'smtpdiag_follow_rotations_total{kind="rename"}' 1
is 'smtpdiag_follow_rotations_total{kind="truncate"}' 0
is 'smtpdiag_log_domain_deliveries_total{domain="d01.example",action="sent"}' 7
until_value "$SP" smtpdiag_follow_files 1
is smtpdiag_follow_files 1
is smtpdiag_follow_lag_bytes 0
is smtpdiag_follow_last_record_timestamp_seconds 1772529000
lag=$(value smtpdiag_follow_lag_seconds)
want=$(($(date +%s) - 1772529000))
ok_if "$([ -n "$lag" ] && [ "$lag" -ge $((want - 5)) ] && [ "$lag" -le $((want + 1)) ] && echo 1)" "lag: now less the newest line's time ($lag, about $want)"

# copytruncate
cp "$L" "$L.2"
: >"$L"
sent "$T0" "f@d02.example" >>"$L"
until_value "$SP" smtpdiag_follow_lines_read_total 98
is smtpdiag_follow_lines_read_total 98
is 'smtpdiag_follow_rotations_total{kind="truncate"}' 1
is 'smtpdiag_log_domain_deliveries_total{domain="d02.example",action="sent"}' 3
is 'smtpdiag_log_deliveries_total{action="sent",reason="delivered",advice="none"}' 94
parses "after the rotations"
# open incidents: the deferral of the first lines is months old, one of now opens one
is smtpdiag_incidents_open 0
deferred "$(date -u +%Y-%m-%dT%H:%M:%S+00:00)" "g@d02.example" >>"$L"
until_value "$SP" smtpdiag_incidents_open 1
is smtpdiag_incidents_open 1
ok_if "$(grep -q '^smtpdiag_http_requests_total{route="/metrics",status="200"} ' "$TMP/m" && grep -q '^process_cpu_seconds_total ' "$TMP/m" && echo 1)" \
	"scan's /metrics has the HTTP and process metrics too"

code() { curl -s -o /dev/null -w '%{http_code}' --max-time 10 "http://127.0.0.1:$1$2"; }
ok_if "$([ "$(code "$SP" /healthz)" = 200 ] && echo 1)" "scan's server: /healthz 200"
ok_if "$([ "$(code "$SP" /)" = 404 ] && [ "$(code "$SP" /api/v1/explain?q=550)" = 404 ] && echo 1)" "scan's server: / and the API 404"
ok_if "$([ "$(curl -s -o /dev/null -w '%{http_code}' -H 'Host: evil.example' "http://127.0.0.1:$SP/metrics")" = 421 ] && echo 1)" \
	"scan's server: another Host is 421, as serve's"
ok_if "$(curl -s -D - -o /dev/null -H 'Origin: https://evil.example' "http://127.0.0.1:$SP/metrics" | grep -qi '^access-control-allow-origin' || echo 1)" \
	"scan's /metrics: no cross-origin answer"
kill -TERM "$spid"
wait "$spid"
rc=$?
spid=""
ok_if "$([ $rc -eq 0 ] && echo 1)" "scan stops cleanly on SIGTERM (exit $rc)"
ok_if "$([ "$(grep -c '"action":' "$TMP/scan.out")" -eq 97 ] && echo 1)" "scan wrote the 97 records as without --metrics-listen"

# --- a log written and rotated by rename 3 times while it is followed (tests/cli/logwriter)
W=$TMP/busy.log
: >"$W"
: >"$TMP/busy.err"
"$BIN" scan --follow --metrics-listen 127.0.0.1:0 "$W" >/dev/null 2>"$TMP/busy.err" &
spid=$!
wait_port "$TMP/busy.err"
SP=$PORT
EVERY=10 DELAY=8 sh "$(dirname "$0")/logwriter" rename "$W" 1500
until_value "$SP" 'smtpdiag_follow_rotations_total{kind="rename"}' 3
until_value "$SP" smtpdiag_follow_lines_read_total 1500
is smtpdiag_follow_lines_read_total 1500
is 'smtpdiag_follow_rotations_total{kind="rename"}' 3
is 'smtpdiag_log_deliveries_total{action="sent",reason="delivered",advice="none"}' 1500
is 'smtpdiag_log_domain_deliveries_total{domain="example.org",action="sent"}' 1498
is 'smtpdiag_log_domain_deliveries_total{domain="other",action="sent"}' 2
parses "a busy log"
kill -HUP "$spid"
wait "$spid"
rc=$?
spid=""
ok_if "$([ $rc -eq 0 ] && grep -q 'SIGHUP: stopping' "$TMP/busy.err" && echo 1)" "SIGHUP stops scan --metrics-listen cleanly, as it stops scan --follow (exit $rc)"

# --- serve --follow: the same counts beside the rest of serve
L2=$TMP/serve.log
: >"$L2"
serve_start "$TMP/serve.err" --quiet --follow "$L2"
{ sent "$T0" "a@x.example"; sent "$T0" "b@x.example"; bounced "$T1" "c@y.example"; } >>"$L2"
until_value "$port" smtpdiag_follow_lines_read_total 3
is 'smtpdiag_log_deliveries_total{action="sent",reason="delivered",advice="none"}' 2
is 'smtpdiag_log_deliveries_total{action="bounced",reason="userunknown",advice="suppress-recipient"}' 1
is 'smtpdiag_log_domain_deliveries_total{domain="other",action="sent"}' 2
is smtpdiag_follow_last_record_timestamp_seconds 1772529000
parses "serve --follow"
ok_if "$([ "$(code "$port" /)" = 200 ] && [ "$(code "$port" /api/v1/explain?q=550)" = 200 ] && echo 1)" "serve --follow: the pages and the API as ever"
kill -TERM "$pid"
wait "$pid"
rc=$?
pid=""
ok_if "$([ $rc -eq 0 ] && echo 1)" "serve --follow stops cleanly on SIGTERM (exit $rc)"

# --- plain serve: none of them
serve_start "$TMP/plain.err" --quiet
scrape "$port"
ok_if "$(grep -q '^smtpdiag_log_\|^smtpdiag_follow_' "$TMP/m" || echo 1)" "serve without --follow: no metrics of logs"
parses "serve without --follow"
