#!/bin/sh
# CLI tests of `smtpdiag scan` over the log fixtures (tests/fixtures/logs/,
# written from each MTA's documentation and source). Times are read as UTC.
. "$(dirname "$0")/lib.sh"
FX=tests/fixtures/logs
export TZ=UTC

# expect_count N PATTERN DESCRIPTION: the last stdout has N lines matching
expect_count() {
	n=$((n + 1))
	got=$(grep -Ec -- "$2" "$TMP/out")
	if [ "$got" -eq "$1" ]; then echo "ok $n - $3"; else echo "not ok $n - $3 ($got, want $1)"; fi
}

# --- every fixture: lines read = delivery lines + skipped + malformed + over a limit
for f in postfix.log:26:14:14:11:1 exim_mainlog:19:12:12:6:1 sendmail.log:12:7:8:4:1 \
	 opensmtpd.log:12:7:7:4:1 syslog-forms.log:15:11:11:4:0; do
	IFS=: read -r name lines deliv recs skip bad <<EOF
$f
EOF
	expect_exit 0 "$name: --summary" -- "$BIN" scan --summary "$FX/$name"
	expect_out "^lines read: +$lines\$" "$name: $lines lines read"
	expect_out "^  delivery lines: $deliv \\(records: $recs\\)" "$name: $deliv delivery lines, $recs records"
	expect_out "^  skipped: +$skip " "$name: $skip skipped"
	expect_out "^  malformed: +$bad\$" "$name: $bad malformed"
	expect_exit 0 "$name: JSON Lines" -- "$BIN" scan "$FX/$name"
	expect_lines "$recs" "$name: one JSON object per record" out
	expect_count "$recs" '^\{"timestamp":[0-9]+,.*\}$' "$name: every line is one object"
done

# --- fields, per family
expect_exit 0 "postfix fields" -- "$BIN" scan "$FX/postfix.log"
expect_out '"queueid":"3F2A1B2C3D","recipient":"bob@example.org","orig_recipient":"bob@alias.example.com".*"action":"bounced","replycode":"550","status":"5.1.1","dsn":"5.1.1","diagnosticcode":"550 5.1.1 <bob@example.org>: Recipient address rejected: User unknown in virtual mailbox table","command":"RCPT"' "postfix: said: reply, orig_to, command"
expect_out '"recipient":"bob@example.org".*"reason":"userunknown","hardbounce":true,"retry":false' "postfix: 550 5.1.1 is a hard userunknown"
expect_out '"recipient":"dave@contoso.example".*"replycode":"431","status":"4.3.1","dsn":"5.3.1".*"command":"DATA".*"hardbounce":false,"retry":true,"issues":\["nonstandard-reply-code"\]' "postfix: 431 bounced keeps the remote's 4.3.1 and the MTA's 5.3.1"
expect_out '"queueid":"521B2C3D5E","recipient":"","orig_recipient":"","sender":"newsletter@example.com".*"action":"expired"' "postfix: qmgr expiry"
expect_out '"recipient":"oscar@example.org".*"action":"deferred"' "postfix: SOFTBOUNCE is a deferral"
expect_out '"program":"postfix-out/smtp","format":"postfix","queueid":"4Rz5Xc1Hq5z9tGv"' "postfix: other instance, long queue id"
expect_out '"recipient":"erin@example.com".*"delay":455000' "postfix: delay="
expect_out '"timestamp":[0-9]+,"timezoneoffset":"\+0000","host":"mx1","program":"postfix/smtp"' "postfix: syslog envelope"
expect_out '"recipient":"mallory@example.com".*"reason":"mailererror"' "postfix: pipe failure is a mailer error"

expect_exit 0 "exim fields" -- "$BIN" scan "$FX/exim_mainlog"
expect_out '"queueid":"1rghhQ-0001Xy-2B","recipient":"amy@example.org".*"action":"sent","replycode":"250"' "exim: -> is a delivery"
expect_out '"recipient":"erin@example.com".*"relay":"mx.example.com \[198.51.100.7\]","action":"deferred","replycode":"421","status":"4.7.0".*"command":"MAIL"' "exim: == with the host in the message"
expect_out '"recipient":"judy@example.net".*"action":"expired"' "exim: failing for a long period is an expiry"
expect_out '"recipient":"marv","orig_recipient":"marv@example.com".*"action":"sent"' "exim: local delivery with the original address"
expect_out '"timestamp":1709452810,"timezoneoffset":"\+0100"' "exim: log_timezone offset"
expect_out '"queueid":"1rghhQ-000000003Y6-9IaB"' "exim: 4.97 message id"
expect_out '"recipient":"gina@example.org".*"delay":13,' "exim: delay from the message id"

expect_exit 0 "sendmail fields" -- "$BIN" scan "$FX/sendmail.log"
expect_out '"recipient":"ed@example.com".*"action":"deferred","replycode":"450","status":"4.1.8"' "sendmail: to= list, second address"
expect_out '"recipient":"erin@example.com".*"delay":506303,' "sendmail: delay=D+HH:MM:SS"
expect_out '"queueid":"41UFZnc6006553","recipient":"".*"action":"expired"' "sendmail: Cannot send message for 5 days"
expect_out '"recipient":"postmaster".*"action":"sent"' "sendmail: unbracketed recipient"

expect_exit 0 "opensmtpd fields" -- "$BIN" scan "$FX/opensmtpd.log"
expect_out '"queueid":"8f26ea98359eccfb","recipient":"bob@example.org","orig_recipient":"bob@alias.example.com".*"relay":"203.0.113.5 \(mx.example.org\)","action":"bounced","replycode":"550"' "opensmtpd: PermFail"
expect_out '"recipient":"erin@example.com".*"action":"deferred","replycode":"421".*"delay":453600' "opensmtpd: TempFail and delay=5d6h"
expect_out '"recipient":"kim@example.net".*"action":"expired"' "opensmtpd: queue expiry"

expect_exit 0 "syslog forms" -- "$BIN" scan "$FX/syslog-forms.log"
expect_out '"recipient":"a2@example.org"' "RFC 5424 with structured data"
expect_out '"timestamp":1709456403,"timezoneoffset":"\+0100".*"recipient":"a3@example.org"' "RFC 5424 with an offset"
expect_out '"timestamp":0,.*"recipient":"a6@example.org"' "no time at all"
expect_out '"recipient":"a9@example.org"' "first part of an Exim line split by syslog"
expect_out '"format":"sendmail".*"recipient":"a10@example.org"' "RFC 5424 Sendmail"

# --- outputs and options
expect_exit 0 "--format text" -- "$BIN" scan --format text "$FX/postfix.log"
expect_out '^2[0-9-]+ 09:00:02 bounced +bob@example.org +550 5.1.1 +userunknown' "text: one readable line per attempt"
expect_lines 15 "text: a header and 14 lines" out
expect_out '^TIME +ACTION +RECIPIENT +RC +STATUS +REASON +ADVICE +QUEUEID +REPLY$' "text: header"
expect_exit 0 "--failures" -- "$BIN" scan --failures "$FX/postfix.log"
expect_count 0 '"action":"sent"' "--failures drops sent attempts"
expect_lines 10 "--failures keeps 10 attempts" out
expect_exit 0 "--summary of postfix.log" -- "$BIN" scan --summary "$FX/postfix.log"
expect_out '^deferred past the give-up time \(5 days, RFC 5321 4.5.4.1\): 1 message' "summary: give-up time"
expect_out '4B1B2C3D5E +5.3 days +erin@example.com' "summary: the late message"
expect_out '^4xx replies turned into bounces .*: 1$' "summary: 4xx turned into bounces"
expect_out '431 4.3.1  contoso-example.mail.protection.outlook.com' "summary: the 431 and its relay"
expect_out '^by recipient domain:' "summary: by domain"
expect_out '^by relay:' "summary: by relay"
expect_out '^ +5  550 5.1.1$|^ +2  550 5.1.1$' "summary: by code"

cat "$FX/postfix.log" "$FX/exim_mainlog" >"$TMP/two.log"
"$BIN" scan "$FX/postfix.log" "$FX/exim_mainlog" >"$TMP/plain.jsonl" 2>/dev/null
gzip -c "$FX/postfix.log" >"$TMP/a.gz"
gzip -c "$FX/exim_mainlog" >"$TMP/b.gz"
expect_exit 0 "gzip input" -- "$BIN" scan "$TMP/a.gz" "$TMP/b.gz"
expect_same "gzip gives what plain text gives" "$TMP/out" "$TMP/plain.jsonl"
cat "$TMP/a.gz" "$TMP/b.gz" >"$TMP/ab.gz"
expect_exit 0 "concatenated gzip members" -- "$BIN" scan "$TMP/ab.gz"
expect_same "both members read" "$TMP/out" "$TMP/plain.jsonl"
expect_exit 0 "standard input" -- sh -c "cat '$TMP/two.log' | '$BIN' scan -"
expect_same "stdin gives what the files give" "$TMP/out" "$TMP/plain.jsonl"
expect_exit 0 "gzip on standard input" -- sh -c "cat '$TMP/ab.gz' | '$BIN' scan -"
expect_same "gzip stdin" "$TMP/out" "$TMP/plain.jsonl"
sed 's/$/\r/' "$TMP/two.log" >"$TMP/crlf.log"
expect_exit 0 "CRLF line ends" -- "$BIN" scan "$TMP/crlf.log"
expect_same "CRLF gives what LF gives" "$TMP/out" "$TMP/plain.jsonl"
printf '%s' "$(tail -n 1 "$FX/syslog-forms.log" | head -c 0)$(grep a11@ "$FX/syslog-forms.log")" >"$TMP/noeol.log"
expect_exit 0 "last line without a line end" -- "$BIN" scan "$TMP/noeol.log"
expect_lines 1 "the unterminated last line is read" out
head -c 10 "$TMP/a.gz" >"$TMP/cut.gz"
expect_exit 1 "truncated gzip" -- "$BIN" scan "$TMP/cut.gz" "$FX/opensmtpd.log"
expect_err "cut.gz: truncated gzip data" "truncated gzip named"
expect_lines 7 "the other input is still read" out

# A corrupt gzip member: an error and none of its records (they are held until
# the member's CRC and length check). Big enough that inflate hands out output
# long before it reaches the damage.
flip() { # FILE OFFSET: replace the byte at OFFSET by its complement
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	printf "\\$(printf %o $((255 - b)))" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
awk 'BEGIN { for (i = 1; i <= 30000; i++) printf "Mar  3 09:00:01 mx1 postfix/smtp[2103]: 611B2C3D5E: to=<u%d@example.org>, relay=mx.example.org[203.0.113.5]:25, delay=0.5, delays=0/0/0.2/0.3, dsn=2.0.0, status=sent (250 2.0.0 Ok)\n", i }' |
	gzip -c >"$TMP/many.gz"
size=$(wc -c <"$TMP/many.gz")
cp "$TMP/many.gz" "$TMP/flip.gz"
flip "$TMP/flip.gz" $((size / 2))
cp "$TMP/many.gz" "$TMP/crc.gz"
flip "$TMP/crc.gz" $((size - 8))
expect_exit 0 "the gzip before damage" -- "$BIN" scan --summary "$TMP/many.gz"
expect_out '^  delivery lines: 30000 ' "all its records"
expect_exit 1 "a byte flipped in the compressed data" -- "$BIN" scan "$TMP/flip.gz" "$FX/opensmtpd.log"
expect_err "flip.gz: corrupt gzip data" "corrupt gzip named"
expect_lines 7 "no record of the corrupt member, the other input read" out
expect_exit 1 "a bad CRC in the trailer" -- "$BIN" scan "$TMP/crc.gz"
expect_err "crc.gz: corrupt gzip data \\(incorrect data check\\)" "bad CRC named"
expect_lines 0 "no record of a member whose CRC fails" out
expect_lines 1 "one error line" err
cat "$TMP/a.gz" "$TMP/crc.gz" >"$TMP/two-members.gz"
expect_exit 1 "a good member, then a corrupt one" -- "$BIN" scan "$TMP/two-members.gz"
"$BIN" scan "$FX/postfix.log" >"$TMP/postfix.jsonl" 2>/dev/null
expect_same "the good member's records, none of the corrupt one's" "$TMP/out" "$TMP/postfix.jsonl"
expect_exit 1 "--summary over a corrupt member" -- "$BIN" scan --summary "$TMP/two-members.gz" "$FX/opensmtpd.log"
expect_out '^lines read: +38$' "summary: lines of the good member and the other input only"
expect_out '^inputs: +2 \(1 could not be read\)$' "summary: the corrupt input counted as failed"
expect_exit 1 "--summary --format json over a corrupt member" -- "$BIN" scan --summary --format json "$TMP/crc.gz"
expect_out '^\{"lines":0,"delivery":0,"skipped":0,"malformed":0,"overlimit":0,"inputs":1,"failed_inputs":1,"records":0,' "json summary: nothing read, one failed input"

"$BIN" scan "$FX/postfix.log" "$FX/exim_mainlog" "$FX/sendmail.log" "$FX/opensmtpd.log" "$FX/syslog-forms.log" >"$TMP/seq.jsonl" 2>/dev/null
expect_exit 0 "-j 3 over five logs" -- "$BIN" scan -j 3 "$FX/postfix.log" "$FX/exim_mainlog" "$FX/sendmail.log" "$FX/opensmtpd.log" "$FX/syslog-forms.log"
expect_same "-j keeps each input's output whole and in order" "$TMP/out" "$TMP/seq.jsonl"
expect_exit 0 "-j 2 --summary" -- "$BIN" scan -j2 --summary "$FX/postfix.log" "$FX/exim_mainlog" "$FX/sendmail.log" "$FX/opensmtpd.log" "$FX/syslog-forms.log"
expect_out '^lines read: +84$' "-j: counts add up over threads"
expect_out '^  delivery lines: 51 \(records: 52\)' "-j: records over threads"
cp "$TMP/out" "$TMP/sum-j2"
expect_exit 0 "--summary in one thread" -- "$BIN" scan --summary "$FX/postfix.log" "$FX/exim_mainlog" "$FX/sendmail.log" "$FX/opensmtpd.log" "$FX/syslog-forms.log"
expect_same "-j 2 gives the summary one thread gives" "$TMP/out" "$TMP/sum-j2"
expect_exit 0 "--summary --format json" -- "$BIN" scan --summary --format json "$FX/postfix.log" "$FX/exim_mainlog" "$FX/sendmail.log" "$FX/opensmtpd.log" "$FX/syslog-forms.log"
expect_lines 1 "json summary: one object on one line" out
expect_out '^\{"lines":84,"delivery":51,"skipped":29,"malformed":4,"overlimit":0,"inputs":5,"failed_inputs":0,"records":52,"reject":0,"action":\{"rows":\[\{"key":"sent","count":20\},' "json summary: counts, then the tables"
expect_out '"late":\{"giveup_seconds":432000,"messages":3,"other":0,"rows":\[\{"queueid":"423900Xa007420","delay":' "json summary: late messages, longest first"
expect_out '"bounced_4xx":\{"count":2,"rows":\[\{"key":"431 4.3.1  contoso-example.mail.protection.outlook.com \[203.0.113.44\]","count":1\}' "json summary: 4xx turned into bounces"
expect_out '\}\}$' "json summary: closed"
cp "$TMP/out" "$TMP/sum.json"
expect_exit 0 "-j 2 --summary --format json" -- "$BIN" scan -j 2 --summary --format json "$FX/postfix.log" "$FX/exim_mainlog" "$FX/sendmail.log" "$FX/opensmtpd.log" "$FX/syslog-forms.log"
expect_same "-j 2 gives the same JSON summary" "$TMP/out" "$TMP/sum.json"

TZ=Asia/Tokyo "$BIN" scan --utc "$FX/exim_mainlog" >"$TMP/utc.jsonl" 2>/dev/null
expect_exit 0 "--utc" -- "$BIN" scan "$FX/exim_mainlog"
expect_same "--utc reads zone-less times as TZ=UTC does" "$TMP/out" "$TMP/utc.jsonl"

{ head -c 70000 /dev/zero | tr '\0' 'x'; echo; grep a11@ "$FX/syslog-forms.log"; } >"$TMP/long.log"
expect_exit 0 "a line over 64 KiB" -- "$BIN" scan --summary "$TMP/long.log"
expect_out '^  over a limit: +1 ' "the long line is counted"
expect_out '^  delivery lines: 1 ' "the next line is read"

expect_exit 1 "missing input" -- "$BIN" scan "$TMP/none.log" "$FX/opensmtpd.log"
expect_err "none.log: cannot open" "missing input named"
expect_lines 7 "the other input is still read" out
expect_exit 2 "no input" -- "$BIN" scan
expect_exit 2 "unknown format" -- "$BIN" scan --format xml "$FX/postfix.log"
expect_err "jsonl or text" "format choices named"
expect_exit 2 "bad -j" -- "$BIN" scan -j 0 "$FX/postfix.log"
expect_exit 2 "--follow with -j" -- "$BIN" scan --follow -j 2 "$FX/postfix.log"
expect_exit 2 "unknown option" -- "$BIN" scan --bogus "$FX/postfix.log"
expect_exit 0 "help" -- "$BIN" scan --help
expect_out "usage: smtpdiag scan" "help text"

# --- --follow: append, rotate, truncate; stopped by SIGTERM (bounded by timeout, then KILL)
F="$TMP/live.log"
grep 'a1@' "$FX/syslog-forms.log" >"$F"
cp "$F" "$TMP/static.log"
timeout -k 5 30 "$BIN" scan --follow --summary "$TMP/static.log" >"$TMP/fsum" 2>&1 &
sp=$!
timeout -k 5 30 "$BIN" scan --follow "$F" >"$TMP/follow" 2>"$TMP/ferr" &
fp=$!
timeout -k 5 30 "$BIN" scan --follow "$TMP/later.log" >"$TMP/later" 2>"$TMP/lerr" &
lp=$!
wait_for() { # PATTERN FILE: up to 10 s
	i=0
	while [ $i -lt 50 ] && ! grep -q "$1" "$2" 2>/dev/null; do sleep 0.2; i=$((i + 1)); done
}
wait_for a1@ "$TMP/follow"
wait_for "waiting for it" "$TMP/lerr" # made only once scan is waiting for it
grep 'a11@' "$FX/syslog-forms.log" >"$TMP/later.log"
grep 'a4@' "$FX/syslog-forms.log" >>"$F"
wait_for a4@ "$TMP/follow"
mv "$F" "$F.1"
grep 'a5@' "$FX/syslog-forms.log" >"$F"
wait_for a5@ "$TMP/follow"
: >"$F"
grep 'a10@' "$FX/syslog-forms.log" >>"$F"
wait_for a10@ "$TMP/follow"
wait_for a11@ "$TMP/later"
kill -TERM $fp $sp $lp
wait $fp
frc=$?
wait $sp
wait $lp
lrc=$?
n=$((n + 1)); if [ "$frc" -eq 0 ]; then echo "ok $n - --follow stops cleanly on SIGTERM"; else echo "not ok $n - --follow exit $frc"; fi
for a in a1 a4 a5 a10; do
	n=$((n + 1))
	if grep -q "\"recipient\":\"$a@example.org\"" "$TMP/follow"; then echo "ok $n - --follow saw $a"; else
		echo "not ok $n - --follow missed $a"; sed 's/^/#   /' "$TMP/ferr" | head -5; fi
done
n=$((n + 1)); if [ "$(grep -c '"recipient"' "$TMP/follow")" -eq 4 ]; then echo "ok $n - --follow: each line once"; else
	echo "not ok $n - --follow: $(grep -c '"recipient"' "$TMP/follow") records, want 4"; fi
n=$((n + 1)); if grep -q '^  delivery lines: 1 ' "$TMP/fsum"; then echo "ok $n - --follow --summary printed on SIGTERM"; else
	echo "not ok $n - --follow --summary"; head -5 "$TMP/fsum" | sed 's/^/#   /'; fi
n=$((n + 1)); if [ "$lrc" -eq 0 ] && grep -q '"recipient":"a11@example.org"' "$TMP/later" && grep -q "waiting for it" "$TMP/lerr"; then
	echo "ok $n - --follow waits for a file that is not there yet"; else echo "not ok $n - --follow of a later file (exit $lrc)"; fi
