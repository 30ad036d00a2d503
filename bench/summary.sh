#!/bin/sh
# bench/summary: `smtpdiag scan --summary` on ONE Postfix log mixed as a real server's is,
# with -j 1 and -j 2, and Debian's pflogsumm on the same file.
#
# The generated log (SIZE_MB, default 100 MB) holds, per message, smtpd connect /
# client= / disconnect, cleanup message-id=, qmgr from= and removed, one delivery
# attempt (about 88% sent, 8% deferred, 4% bounced; a bounce brings the bounce
# daemon's "sender non-delivery notification" line and the notification's own
# delivery); between messages NOQUEUE rejects at the RCPT, MAIL, HELO, DATA and
# CONNECT stages, postscreen CONNECT / PASS NEW / PASS OLD / DNSBL rank / PREGREET
# / HANGUP / DISCONNECT lines, anvil statistics, dovecot and cron lines. It prints
# the median of RUNS (default 3) runs of `scan --summary -j 1` and `-j 2`, the time
# of one pflogsumm run ("SKIP pflogsumm: not installed" when it is not; BENCH=1
# tools/install-deps.sh installs it), the speed ratios, and, when the build has
# scan --messages, its time against --summary's. Beside the wall time it
# prints the CPU time (user + system) of the same run: on a machine whose cores are
# busy with other work the wall time of -j 2 says little, the CPU time still says
# what the scan costs (MB per CPU second). TMPDIR=/dev/shm keeps
# the log off the disk; KEEP=FILE keeps a copy of it. Benchmarks never fail a build.
set -eu
BUILD=${BUILD:-build}
BIN=$BUILD/smtpdiag
SIZE_MB=${SIZE_MB:-100}
RUNS=${RUNS:-3}

[ -x "$BIN" ] || { echo "SKIP bench/summary: $BIN not built"; exit 0; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log=$work/maillog

echo "bench/summary: $("$BIN" --version | head -1), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg); generating ${SIZE_MB} MB ..."
awk -v BYTES=$((SIZE_MB * 1048576)) '
function pick(a, n) { return a[int(rand() * n) + 1] }
function qid() { return sprintf("%X%07X", 16 + int(rand() * 200), int(rand() * 268435455)) }
function P(prog, pid, text) { out = out ts " postfix/" prog "[" pid "]: " text "\n" }
BEGIN {
	srand(19);
	ndom = split("gmail.com yahoo.com outlook.com hotmail.com example.org example.net aol.com icloud.com gmx.de web.de orange.fr mail.ru qq.com comcast.net", dom, " ");
	nmx = split("gmail-smtp-in.l.google.com[142.250.102.27]:25 mta7.am0.yahoodns.net[98.136.96.91]:25 example-com.mail.protection.outlook.com[52.101.68.12]:25 mx1.example.org[203.0.113.5]:25 mx.example.net[198.51.100.7]:25", mx, " ");
	nrj = split("RCPT|554 5.7.1 Service unavailable; Client host [%IP%] blocked using zen.spamhaus.org; https://www.spamhaus.org/query/ip/%IP%|RCPT|450 4.7.1 <%RCPT%>: Recipient address rejected: Greylisted|RCPT|550 5.1.1 <%RCPT%>: Recipient address rejected: User unknown in virtual mailbox table|MAIL|553 5.7.1 <spam@%DOM%>: Sender address rejected: not owned by user|HELO|504 5.5.2 <localhost>: Helo command rejected: need fully-qualified hostname|DATA|550 5.7.1 <%RCPT%>: Data command rejected: Multi-recipient bounce|CONNECT|554 5.7.1 <unknown[%IP%]>: Client host rejected: cannot find your hostname", rj, "|");
	t = 0; n = 0; total = 0;
	while (total < BYTES) {
		t += int(rand() * 2);
		ts = sprintf("Mar %2d %02d:%02d:%02d mx1", int(t / 86400) % 28 + 1, int(t / 3600) % 24, int(t / 60) % 60, t % 60);
		out = "";
		q = qid(); pid = 2000 + int(rand() * 30000);
		ip = "198.51.100." (int(rand() * 254) + 1);
		sip = "203.0.113." (int(rand() * 254) + 1);
		u = "user" int(rand() * 500000) "@" pick(dom, ndom);
		r = pick(mx, nmx); h = substr(r, 1, index(r, "]"));
		P("postscreen", 700, "CONNECT from [" ip "]:" 40000 + int(rand() * 20000) " to [192.0.2.25]:25");
		x = rand();
		if (x < 0.5)
			P("postscreen", 700, "PASS OLD [" ip "]:" 40000 + int(rand() * 20000));
		else if (x < 0.8)
			P("postscreen", 700, "PASS NEW [" ip "]:" 40000 + int(rand() * 20000));
		else {
			P("dnsblog", 701, "addr " ip " listed by domain zen.spamhaus.org as 127.0.0.2");
			P("postscreen", 700, "DNSBL rank 3 for [" ip "]:" 40000 + int(rand() * 20000));
			if (x < 0.9)
				P("postscreen", 700, "PREGREET 11 after 0.12 from [" ip "]:" 40000 + int(rand() * 20000) ": EHLO spam\\r\\n");
			else
				P("postscreen", 700, "HANGUP after 1.1 from [" ip "]:" 40000 + int(rand() * 20000) " in tests after SMTP handshake");
			P("postscreen", 700, "DISCONNECT [" ip "]:" 40000 + int(rand() * 20000));
		}
		P("smtpd", pid, "connect from client" n % 977 ".example.com[" ip "]");
		if (n % 3 == 0) {
			k = int(rand() * (nrj / 2)) * 2 + 1;
			txt = rj[k + 1]; gsub(/%IP%/, ip, txt); gsub(/%RCPT%/, u, txt); gsub(/%DOM%/, pick(dom, ndom), txt);
			P("smtpd", pid, "NOQUEUE: reject: " rj[k] " from client" n % 977 ".example.com[" ip "]: " txt "; from=<news@" pick(dom, ndom) "> to=<" u "> proto=ESMTP helo=<client" n % 977 ".example.com>");
		}
		P("smtpd", pid, q ": client=client" n % 977 ".example.com[" ip "]");
		P("cleanup", pid + 1, q ": message-id=<" q "." t "@app.example.com>");
		P("qmgr", 812, q ": from=<app" n % 50 "@app.example.com>, size=" 2000 + int(rand() * 60000) ", nrcpt=1 (queue active)");
		P("smtpd", pid, "disconnect from client" n % 977 ".example.com[" ip "] ehlo=1 mail=1 rcpt=1 data=1 quit=1 commands=5");
		x = rand();
		if (x < 0.88) {
			P("smtp", pid + 2, q ": to=<" u ">, relay=" r ", delay=" int(rand() * 300) / 100 ", delays=0.01/0.01/0.2/0.4, dsn=2.0.0, status=sent (250 2.0.0 OK  " 1709251200 + t " " qid() "." n " - gsmtp)");
			P("qmgr", 812, q ": removed");
		} else if (x < 0.92)
			P("smtp", pid + 2, q ": to=<" u ">, relay=none, delay=" int(rand() * 500000) ", delays=10/0.01/30/0, dsn=4.4.1, status=deferred (connect to " substr(h, 1, index(h, "[") - 1) "[" sip "]:25: Connection timed out)");
		else if (x < 0.96)
			P("smtp", pid + 2, q ": to=<" u ">, relay=" r ", delay=" int(rand() * 5000) ", delays=1/0.01/0.3/0.2, dsn=4.7.1, status=deferred (host " h " said: 450 4.7.1 <" u ">: Recipient address rejected: Greylisted (in reply to RCPT TO command))");
		else {
			P("smtp", pid + 2, q ": to=<" u ">, relay=" r ", delay=1.2, delays=0.01/0.01/0.2/0.9, dsn=5.1.1, status=bounced (host " h " said: 550 5.1.1 <" u ">: Recipient address rejected: User unknown (in reply to RCPT TO command))");
			b = qid();
			P("cleanup", pid + 1, b ": message-id=<" b "@mx1.example.com>");
			P("bounce", 880, q ": sender non-delivery notification: " b);
			P("qmgr", 812, b ": from=<>, size=" 4000 + int(rand() * 3000) ", nrcpt=1 (queue active)");
			P("qmgr", 812, q ": removed");
			P("local", pid + 3, b ": to=<app" n % 50 "@app.example.com>, relay=local, delay=0.01, delays=0/0/0/0, dsn=2.0.0, status=sent (delivered to mailbox)");
			P("qmgr", 812, b ": removed");
		}
		if (n % 10 == 0)
			out = out ts " dovecot: imap-login: Login: user=<" u ">, method=PLAIN, rip=" ip ", lip=192.0.2.2, mpid=" pid ", TLS\n";
		if (n % 60 == 0)
			out = out ts " CRON[" pid "]: (root) CMD (command -v debian-sa1 > /dev/null && debian-sa1 1 1)\n";
		if (n % 200 == 0)
			P("anvil", 900, "statistics: max connection rate 12/60s for (smtp:" ip ") at " substr(ts, 1, 15));
		printf "%s", out;
		total += length(out); n++;
	}
}' >"$log"

[ -z "${KEEP:-}" ] || cp "$log" "$KEEP"
bytes=$(wc -c <"$log")
mb=$(echo "$bytes / 1048576" | bc -l)
now() { date +%s.%N; }
timeit() { s=$(now); "$@" >/dev/null 2>&1 || true; e=$(now); echo "$e - $s" | bc -l; }
# "wall cpu" of one run (cpu: user + system seconds of the process and its threads)
timecpu() {
	s=$(now)
	/usr/bin/time -o "$work/cpu" -f '%U %S' "$@" >/dev/null 2>&1 || true
	c=$(awk '{print $1 + $2}' "$work/cpu")
	e=$(now)
	echo "$(echo "$e - $s" | bc -l) $c"
}
median() { sort -n | awk '{a[NR]=$0} END {print a[int((NR+1)/2)]}'; }
printf 'log: %.0f MB, %d lines, %d delivery lines, %d NOQUEUE rejects, %d postscreen lines\n' "$mb" \
	"$(wc -l <"$log")" "$(grep -c 'status=' "$log")" "$(grep -c 'NOQUEUE: reject' "$log")" \
	"$(grep -c 'postfix/postscreen' "$log")"

: >"$work/t.j1"
: >"$work/t.j2"
r=0
while [ $r -lt "$RUNS" ]; do
	timecpu "$BIN" scan --summary -j 1 "$log" >>"$work/t.j1"
	timecpu "$BIN" scan --summary -j 2 "$log" >>"$work/t.j2"
	r=$((r + 1))
done
read -r a ca <<EOF
$(median <"$work/t.j1")
EOF
read -r b cb <<EOF
$(median <"$work/t.j2")
EOF
printf 'scan --summary -j 1  %6.2fs = %6.0f MB/s   (CPU %.2fs = %.0f MB per CPU second)\n' "$a" "$(echo "$mb / $a" | bc -l)" \
	"$ca" "$(echo "$mb / $ca" | bc -l)"
printf 'scan --summary -j 2  %6.2fs = %6.0f MB/s   (CPU %.2fs; speed-up %.2fx over -j 1)\n' "$b" "$(echo "$mb / $b" | bc -l)" \
	"$cb" "$(echo "$a / $b" | bc -l)"
if command -v pflogsumm >/dev/null 2>&1; then
	p=$(timeit pflogsumm "$log")
	printf 'pflogsumm            %6.2fs = %6.1f MB/s\n' "$p" "$(echo "$mb / $p" | bc -l)"
	printf 'ratio to pflogsumm: -j 1 %.1fx, -j 2 %.1fx\n' "$(echo "$p / $a" | bc -l)" "$(echo "$p / $b" | bc -l)"
else
	echo "SKIP pflogsumm: not installed (BENCH=1 tools/install-deps.sh installs it)"
fi
# --messages (joining each message's lines) against --summary, when the build has it
if "$BIN" scan --help 2>&1 | grep -q -- '--messages'; then
	read -r m cm <<EOF
$(timecpu "$BIN" scan --messages "$log")
EOF
	printf 'scan --messages      %6.2fs = %6.0f MB/s   (CPU %.2fs); time ratio to --summary -j 1: %.2f\n' "$m" \
		"$(echo "$mb / $m" | bc -l)" "$cm" "$(echo "$m / $a" | bc -l)"
else
	echo "SKIP scan --messages: not in this build"
fi
peak=$( { /usr/bin/time -v "$BIN" scan --summary -j 2 "$log" >/dev/null; } 2>&1 | sed -n 's/.*Maximum resident set size (kbytes): //p')
echo "peak memory, scan --summary -j 2: $((peak / 1024)) MB; load average now $(cut -d' ' -f1 /proc/loadavg)"
