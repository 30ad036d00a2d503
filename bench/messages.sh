#!/bin/sh
# bench/messages: `smtpdiag scan --messages` against `scan --summary` on the same log, and the
# joiner's memory per open message.
#
# 1. Generates a Postfix log of SIZE_MB (default 100) MB, each message's whole life in it:
#    smtpd client=, cleanup message-id=, qmgr from=, one or two recipients' attempts (about 88%
#    sent with "queued as", 6% deferred then sent, 3% deferred and left in the queue, 3%
#    bounced with bounce's notification), qmgr removed, among postscreen, anvil and dovecot
#    lines. Times the median of RUNS (default 3) runs of each, output to /dev/null, and prints
#    the time ratio --messages / --summary (the aim: at most 2).
# 2. Generates OPEN (default 200000) messages that never close (client=, message-id=, from=,
#    one deferral each) and reads them with --messages --message-window 30d, so all are open at
#    the end: peak RSS (/usr/bin/time -v) less that of --summary on the same log, per message,
#    and so per million open messages.
# The logs are written under $TMPDIR. Benchmarks never fail a build.
set -eu
BUILD=${BUILD:-build}
BIN=$BUILD/smtpdiag
SIZE_MB=${SIZE_MB:-100}
RUNS=${RUNS:-3}
OPEN=${OPEN:-200000}

[ -x "$BIN" ] || { echo "SKIP bench/messages: $BIN not built"; exit 0; }
[ -x /usr/bin/time ] || { echo "SKIP bench/messages: /usr/bin/time is missing (apt-get install time)"; exit 0; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log=$work/mail.log
open=$work/open.log
export TZ=UTC

echo "bench/messages: $("$BIN" --version | head -1), $(nproc) cores, $RUNS runs each, median; generating ${SIZE_MB} MB ..."
awk -v BYTES=$((SIZE_MB * 1048576)) '
function id(k) { return sprintf("%02X%08X", 16 + k % 200, k * 2654435761 % 4294967296) }
function stamp(s) { return sprintf("Mar %2d %02d:%02d:%02d mx1", int(s / 86400) % 28 + 1, int(s / 3600) % 24, int(s / 60) % 60, s % 60) }
BEGIN {
	srand(7);
	split("gmail.com outlook.com yahoo.com example.org example.net web.de", d, " ");
	split("mx.example.org[203.0.113.5]:25 mx.example.net[198.51.100.7]:25 alt1.example.com[192.0.2.80]:25", hop, " ");
	s = 3600; k = 0; out = 0;
	while (out < BYTES) {
		s += int(rand() * 3); q = id(k); t = stamp(s); c = "192.0.2." (k % 250 + 1);
		nr = rand() < 0.2 ? 2 : 1;
		o = t " postfix/postscreen[90]: CONNECT from [" c "]:" 30000 + k % 30000 " to [198.51.100.1]:25\n";
		o = o t " postfix/smtpd[" 2000 + k % 900 "]: " q ": client=host" k % 5000 ".example[" c "]\n";
		o = o t " postfix/cleanup[3001]: " q ": message-id=<m" k "@sender.example>\n";
		o = o t " postfix/qmgr[99]: " q ": from=<list+" k "@sender.example>, size=" 1500 + k % 40000 ", nrcpt=" nr " (queue active)\n";
		left = 0;
		for (i = 1; i <= nr; i++) {
			rc = "u" k "x" i "@" d[k % 6 + 1]; h = hop[(k + i) % 3 + 1]; x = rand();
			if (x < 0.09) {
				o = o t " postfix/smtp[4001]: " q ": to=<" rc ">, relay=" h ", delay=2, delays=0/0/1/1, dsn=4.7.1, status=deferred (host " substr(h, 1, index(h, "]")) " said: 450 4.7.1 Greylisted, try again in 300 seconds (in reply to RCPT TO command))\n";
				if (x < 0.03) { left = 1; continue }
			}
			if (x > 0.97) {
				o = o t " postfix/smtp[4001]: " q ": to=<" rc ">, relay=" h ", delay=1, delays=0/0/0.5/0.5, dsn=5.1.1, status=bounced (host " substr(h, 1, index(h, "]")) " said: 550 5.1.1 <" rc ">: Recipient address rejected: User unknown (in reply to RCPT TO command))\n";
				o = o t " postfix/bounce[5001]: " q ": sender non-delivery notification: B" q "\n";
				continue;
			}
			o = o t " postfix/smtp[4001]: " q ": to=<" rc ">, relay=" h ", delay=1.1, delays=0/0/0.5/0.6, dsn=2.0.0, status=sent (250 2.0.0 Ok: queued as N" q ")\n";
		}
		if (!left)
			o = o t " postfix/qmgr[99]: " q ": removed\n";
		if (k % 10 == 0)
			o = o t " dovecot: imap-login: Login: user=<u" k ">, method=PLAIN, rip=" c ", lip=198.51.100.1, TLS\n";
		if (k % 50 == 0)
			o = o t " postfix/anvil[80]: statistics: max connection count 3 for (smtp:" c ") at " t "\n";
		printf "%s", o; out += length(o); k++;
	}
}' >"$log"
awk -v N="$OPEN" 'BEGIN {
	for (k = 0; k < N; k++) {
		q = sprintf("%02X%08X", 16 + k % 200, k * 2654435761 % 4294967296); s = 3600 + int(k / 10);
		t = sprintf("Mar %2d %02d:%02d:%02d mx1", int(s / 86400) % 28 + 1, int(s / 3600) % 24, int(s / 60) % 60, s % 60);
		printf "%s postfix/smtpd[2001]: %s: client=host%d.example[192.0.2.%d]\n", t, q, k % 5000, k % 250 + 1;
		printf "%s postfix/cleanup[3001]: %s: message-id=<m%d@sender.example>\n", t, q, k;
		printf "%s postfix/qmgr[99]: %s: from=<list+%d@sender.example>, size=%d, nrcpt=1 (queue active)\n", t, q, k, 1500 + k % 40000;
		printf "%s postfix/smtp[4001]: %s: to=<u%d@example.org>, relay=mx.example.org[203.0.113.5]:25, delay=2, delays=0/0/1/1, dsn=4.7.1, status=deferred (host mx.example.org[203.0.113.5] said: 450 4.7.1 Greylisted (in reply to RCPT TO command))\n", t, q, k;
	}
}' >"$open"

now() { date +%s.%N; }
timeit() { s=$(now); "$@" >/dev/null 2>&1 || true; e=$(now); echo "$e - $s" | bc -l; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# /usr/bin/time writes to its own stderr; the command's stderr is thrown away above
peak_of() { /usr/bin/time -v "$@" 2>&1 >/dev/null | sed -n 's/.*Maximum resident set size (kbytes): //p'; }

: >"$work/t.summary"
: >"$work/t.messages"
r=0
while [ $r -lt "$RUNS" ]; do
	timeit "$BIN" scan --summary "$log" >>"$work/t.summary"
	timeit "$BIN" scan --messages "$log" >>"$work/t.messages"
	r=$((r + 1))
done
mb=$(echo "$(wc -c <"$log") / 1048576" | bc -l)
ts=$(median <"$work/t.summary")
tm=$(median <"$work/t.messages")
counts=$("$BIN" scan --messages "$log" 2>&1 >/dev/null | sed 's/^smtpdiag: scan: //')
printf 'log: %.0f MB, %d lines; --messages: %s\n' "$mb" "$(wc -l <"$log")" "$counts"
printf 'scan --summary   %6.2fs = %6.0f MB/s\n' "$ts" "$(echo "$mb / $ts" | bc -l)"
printf 'scan --messages  %6.2fs = %6.0f MB/s\n' "$tm" "$(echo "$mb / $tm" | bc -l)"
printf 'time ratio --messages / --summary: %.2f (aim: at most 2)\n' "$(echo "$tm / $ts" | bc -l)"
ps=$(peak_of "$BIN" scan --summary "$log")
pm=$(peak_of "$BIN" scan --messages "$log")
echo "peak memory of the ${SIZE_MB} MB log: --summary $((ps / 1024)) MB, --messages $((pm / 1024)) MB"

bs=$(peak_of "$BIN" scan --summary "$open")
bm=$(peak_of "$BIN" scan --messages --message-window 30d "$open")
atend=$("$BIN" scan --messages --message-window 30d "$open" 2>&1 >/dev/null | sed -n 's/.*, \([0-9]*\) open at the end$/\1/p')
per=$(( (bm - bs) * 1024 / OPEN ))
printf '%d messages open at the end (of %d): peak RSS %d MB (--summary %d MB): %d bytes per open message = %d MB per million\n' \
	"$atend" "$OPEN" $((bm / 1024)) $((bs / 1024)) "$per" $((per * 1000000 / 1048576))
