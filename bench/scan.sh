#!/bin/sh
# bench/scan: `smtpdiag scan` throughput on a generated Postfix log, single thread.
#
# Generates a Postfix mail log of SIZE_MB (default 1024) MB with a realistic mix:
# per message the smtpd, cleanup and qmgr lines around one delivery attempt
# (about 90% status=sent, 7% deferred, 3% bounced, texts carrying the recipient
# and unique ids), plus lines of other programs. Then times, alternating, the
# median of RUNS (default 3) runs of:
#   scan (JSON Lines to /dev/null), scan --summary, scan --failures
#   grep -c 'status=' on the same file (the floor: finding the lines only)
# and prints MB/s, lines/s and the time ratio to grep. Then -j N: the log split
# into N = nproc parts, read by `scan --summary -j 1` and `-j N` (with output,
# -j spools each file's records to a temporary file to keep them together).
# Peak memory comes from /usr/bin/time -v. Benchmarks never fail a build.
# The log is written under $TMPDIR (TMPDIR=/dev/shm keeps it off the disk, so
# write-back does not disturb the timings). SIZE_MB, RUNS, JOBS tune it.
set -eu
BUILD=${BUILD:-build}
BIN=$BUILD/smtpdiag
SIZE_MB=${SIZE_MB:-1024}
RUNS=${RUNS:-3}
JOBS=${JOBS:-$(nproc)}

[ -x "$BIN" ] || { echo "SKIP bench/scan: $BIN not built"; exit 0; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log=$work/mail.log

echo "bench/scan: $("$BIN" --version), $(nproc) cores, $RUNS runs each, median; generating ${SIZE_MB} MB ..."
awk -v BYTES=$((SIZE_MB * 1048576)) '
function pick(a, n) { return a[int(rand() * n) + 1] }
function qid() { return sprintf("%X%07X", 16 + int(rand() * 200), int(rand() * 268435455)) }
BEGIN {
	srand(42);
	ndom = split("gmail.com yahoo.com outlook.com hotmail.com example.org example.net aol.com icloud.com gmx.de web.de orange.fr mail.ru qq.com comcast.net att.net", dom, " ");
	nrel = split("gmail-smtp-in.l.google.com[142.250.102.27]:25 mta7.am0.yahoodns.net[98.136.96.91]:25 example-com.mail.protection.outlook.com[52.101.68.12]:25 mx1.example.org[203.0.113.5]:25 mx.example.net[198.51.100.7]:25", rel, " ");
	t = 0; n = 0; total = 0;
	while (total < BYTES) {
		t += int(rand() * 2);
		ts = sprintf("Mar %2d %02d:%02d:%02d mail", int(t / 86400) % 28 + 1, int(t / 3600) % 24, int(t / 60) % 60, t % 60);
		q = qid(); pid = 1000 + int(rand() * 30000);
		ip = "192.0.2." (int(rand() * 254) + 1);
		u = "user" int(rand() * 1000000) "@" pick(dom, ndom);
		r = pick(rel, nrel);
		o = ts " postfix/smtpd[" pid "]: connect from client.example[" ip "]\n";
		o = o ts " postfix/smtpd[" pid "]: " q ": client=client.example[" ip "], sasl_method=PLAIN, sasl_username=app\n";
		o = o ts " postfix/cleanup[" pid + 1 "]: " q ": message-id=<" q "." t "@app.example.com>\n";
		o = o ts " postfix/qmgr[812]: " q ": from=<bounces+" n "@app.example.com>, size=" 2000 + int(rand() * 50000) ", nrcpt=1 (queue active)\n";
		o = o ts " postfix/smtpd[" pid "]: disconnect from client.example[" ip "] ehlo=1 auth=1 mail=1 rcpt=1 data=1 quit=1 commands=6\n";
		x = rand(); h = substr(r, 1, index(r, "]"));
		if (x < 0.90)
			o = o ts " postfix/smtp[" pid + 2 "]: " q ": to=<" u ">, relay=" r ", delay=" int(rand() * 300) / 100 ", delays=0.01/0.01/0.2/0.4, dsn=2.0.0, status=sent (250 2.0.0 OK  " 1709251200 + t " " qid() "." n " - gsmtp)\n";
		else if (x < 0.93)
			o = o ts " postfix/smtp[" pid + 2 "]: " q ": to=<" u ">, relay=none, delay=" int(rand() * 500000) ", delays=10/0.01/30/0, dsn=4.4.1, status=deferred (connect to " substr(h, 1, index(h, "[") - 1) "[198.51.100." int(rand() * 254) "]:25: Connection timed out)\n";
		else if (x < 0.97)
			o = o ts " postfix/smtp[" pid + 2 "]: " q ": to=<" u ">, relay=" r ", delay=" int(rand() * 5000) ", delays=1/0.01/0.3/0.2, dsn=4.7.1, status=deferred (host " h " said: 450 4.7.1 <" u ">: Recipient address rejected: Greylisted, see http://postgrey.example/help/" n ".html (in reply to RCPT TO command))\n";
		else
			o = o ts " postfix/smtp[" pid + 2 "]: " q ": to=<" u ">, relay=" r ", delay=1.2, delays=0.01/0.01/0.2/0.9, dsn=5.1.1, status=bounced (host " h " said: 550-5.1.1 The email account that you tried to reach does not exist. Please try 550-5.1.1 double-checking the recipient'"'"'s email address for typos or 550-5.1.1 unnecessary spaces. For more information, go to 550 5.1.1  https://support.google.com/mail/?p=NoSuchUser " qid() "." n " - gsmtp (in reply to RCPT TO command))\n";
		if (x < 0.90 || x >= 0.97)
			o = o ts " postfix/qmgr[812]: " q ": removed\n";
		if (n % 20 == 0)
			o = o ts " dovecot: imap-login: Login: user=<" u ">, method=PLAIN, rip=" ip ", lip=192.0.2.2, mpid=" pid ", TLS\n";
		if (n % 100 == 0)
			o = o ts " postfix/anvil[900]: statistics: max connection rate 12/60s for (smtp:" ip ") at " ts "\n";
		printf "%s", o;
		total += length(o); n++;
	}
}' >"$log"

bytes=$(wc -c <"$log")
lines=$(wc -l <"$log")
mb=$(echo "$bytes / 1048576" | bc -l)
now() { date +%s.%N; }
timeit() { s=$(now); "$@" >/dev/null 2>&1 || true; e=$(now); echo "$e - $s" | bc -l; }
# GNU grep stops at the first match when its output is /dev/null: give it a pipe
grep_count() { grep -c 'status=' "$1" | cat; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

: >"$work/t.grep"
for mode in json summary failures; do : >"$work/t.$mode"; done
r=0
while [ $r -lt "$RUNS" ]; do
	timeit "$BIN" scan "$log" >>"$work/t.json"
	timeit grep_count "$log" >>"$work/t.grep"
	timeit "$BIN" scan --summary "$log" >>"$work/t.summary"
	timeit "$BIN" scan --failures "$log" >>"$work/t.failures"
	r=$((r + 1))
done
g=$(median <"$work/t.grep")
printf 'log: %.0f MB, %d lines, %d delivery lines; grep -c status= %.2fs = %.0f MB/s\n' "$mb" "$lines" \
	"$(grep -c 'status=' "$log")" "$g" "$(echo "$mb / $g" | bc -l)"
for mode in json summary failures; do
	case $mode in json) label="scan"; ;; *) label="scan --$mode"; ;; esac
	d=$(median <"$work/t.$mode")
	printf '%-16s %6.2fs = %6.0f MB/s %9.0f lines/s   time ratio to grep %.1f\n' "$label" "$d" \
		"$(echo "$mb / $d" | bc -l)" "$(echo "$lines / $d" | bc -l)" "$(echo "$d / $g" | bc -l)"
done
peak=$( { /usr/bin/time -v "$BIN" scan "$log" >/dev/null; } 2>&1 | sed -n 's/.*Maximum resident set size (kbytes): //p')
echo "peak memory, scan of the ${SIZE_MB} MB log: $((peak / 1024)) MB"

# -j N: the same log as N files
if [ "$JOBS" -gt 1 ]; then
	split -n l/"$JOBS" -d "$log" "$work/part."
	rm -f "$log"
	: >"$work/t.j1"
	: >"$work/t.jn"
	r=0
	while [ $r -lt "$RUNS" ]; do
		timeit "$BIN" scan --summary -j 1 "$work"/part.* >>"$work/t.j1"
		timeit "$BIN" scan --summary -j "$JOBS" "$work"/part.* >>"$work/t.jn"
		r=$((r + 1))
	done
	a=$(median <"$work/t.j1")
	b=$(median <"$work/t.jn")
	cpu=$( { /usr/bin/time -f '%U %S' "$BIN" scan --summary -j "$JOBS" "$work"/part.* >/dev/null; } 2>&1 | tail -1 | awk '{print $1 + $2}')
	printf 'scan --summary, %d files: -j 1 %.2fs = %.0f MB/s; -j %d %.2fs = %.0f MB/s (%.2fs of CPU); speed-up %.2fx\n' "$JOBS" \
		"$a" "$(echo "$mb / $a" | bc -l)" "$JOBS" "$b" "$(echo "$mb / $b" | bc -l)" "$cpu" "$(echo "$a / $b" | bc -l)"
	echo "(the speed-up is bounded by the cores free at the time: load average $(cut -d' ' -f1 /proc/loadavg))"
fi
