#!/bin/sh
# /metrics of a started `smtpdiag serve`: the process_* metrics as Prometheus'
# client libraries name them on Linux, checked against /proc of the server's pid;
# smtpdiag_build_info with the version; requests in flight while a body is
# still coming, and none left once it came.
. "$(dirname "$0")/lib.sh"

if ! command -v curl >/dev/null 2>&1; then
	echo "not ok 1 - curl is missing (sh tools/install-deps.sh installs it)"
	exit 1
fi
pid=""
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$TMP"' EXIT
. "$(dirname "$0")/../../bench/lib/serve-start.sh"
t0=$(date +%s)
serve_start "$TMP/log" --quiet
U="http://127.0.0.1:$port"
get() { curl -s --max-time 10 "$@"; }
# value NAME: the sample of NAME (no labels) in $TMP/m
value() { sed -n "s/^$1 //p" "$TMP/m"; }
# typed NAME TYPE: NAME has its HELP and TYPE lines
typed() { grep -q "^# HELP $1 ." "$TMP/m" && grep -qx "# TYPE $1 $2" "$TMP/m" && echo 1; }

get "$U/metrics" >"$TMP/m"
for m in process_cpu_seconds_total:counter process_resident_memory_bytes:gauge process_virtual_memory_bytes:gauge \
	process_open_fds:gauge process_max_fds:gauge process_start_time_seconds:gauge \
	smtpdiag_build_info:gauge smtpdiag_http_requests_in_flight:gauge; do
	ok_if "$(typed "${m%%:*}" "${m#*:}")" "${m%%:*} is a ${m#*:} with its help"
done
ok_if "$(value process_cpu_seconds_total | grep -Eqx '[0-9]+\.[0-9]+' && echo 1)" "process_cpu_seconds_total: seconds"
rss=$(value process_resident_memory_bytes); vsz=$(value process_virtual_memory_bytes)
ok_if "$([ "${rss:-0}" -gt 1000000 ] && [ "${vsz:-0}" -gt "$rss" ] && echo 1)" "resident memory ($rss) in bytes, under the virtual ($vsz)"
kb=$(sed -n 's/^VmRSS:[^0-9]*\([0-9]*\) kB/\1/p' "/proc/$pid/status")
ok_if "$([ "${rss:-0}" -ge $((kb * 1024 / 2)) ] && [ "$rss" -le $((kb * 1024 * 2)) ] && echo 1)" "resident memory agrees with VmRSS ($kb kB)"
fds=$(value process_open_fds); real=$(ls "/proc/$pid/fd" | wc -l)
ok_if "$([ "${fds:-0}" -ge 3 ] && [ "$fds" -ge $((real - 2)) ] && [ "$fds" -le $((real + 2)) ] && echo 1)" "open fds ($fds) as /proc/PID/fd counts ($real)"
lim=$(sed -n 's/^Max open files *\([0-9a-z]*\) .*/\1/p' "/proc/$pid/limits")
ok_if "$([ "$(value process_max_fds)" = "$lim" ] && echo 1)" "max fds is the soft limit of /proc/PID/limits ($lim)"
st=$(value process_start_time_seconds | cut -d. -f1)
ok_if "$([ "${st:-0}" -ge $((t0 - 2)) ] && [ "$st" -le $(($(date +%s) + 2)) ] && echo 1)" "start time ($st) is when serve started ($t0)"
v=$("$BIN" --version | sed -n '1s/^smtpdiag //p')
ok_if "$(grep -qx "smtpdiag_build_info{version=\"$v\"} 1" "$TMP/m" && echo 1)" "build info names version $v"
ok_if "$([ "$(value smtpdiag_http_requests_in_flight)" = 1 ] && echo 1)" "in flight: 1 (the scrape itself)"

# a body that takes a second to come: two in flight while it does, then one again
(printf 'From: a@example.org\r\n\r\nx\r\n'; sleep 2) |
	curl -s --max-time 10 -o /dev/null -H 'Content-Type: message/rfc822' -X POST -T - "$U/api/v1/decode" &
slow=$!
sleep 1
get "$U/metrics" >"$TMP/m"
ok_if "$([ "$(value smtpdiag_http_requests_in_flight)" = 2 ] && echo 1)" "in flight: 2 while a body is coming"
wait "$slow"
get "$U/metrics" >"$TMP/m"
ok_if "$([ "$(value smtpdiag_http_requests_in_flight)" = 1 ] && echo 1)" "in flight: 1 again once it came"
