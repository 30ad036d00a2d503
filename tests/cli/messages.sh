#!/bin/sh
# CLI tests of `smtpdiag scan --messages`: the lines of each message joined into one record,
# per MTA, over fixtures written from each MTA's documented log lines (tests/fixtures/logs/
# messages-*). Times are read as UTC.
. "$(dirname "$0")/lib.sh"
FX=tests/fixtures/logs
export TZ=UTC

# rec QUEUEID: the record of that message in the last stdout (one line), in $TMP/rec
rec() {
	grep -E "^\{\"queueid\":\"$1\"," "$TMP/out" >"$TMP/rec"
}
# expect_rec QUEUEID PATTERN DESCRIPTION: exactly one record of QUEUEID, matching PATTERN
expect_rec() {
	n=$((n + 1))
	rec "$1"
	if [ "$(wc -l <"$TMP/rec")" -eq 1 ] && grep -Eq -- "$2" "$TMP/rec"; then echo "ok $n - $3"; else
		echo "not ok $n - $3 (record of $1 lacks /$2/)"; head -c 600 "$TMP/rec" | sed 's/^/#   /'; fi
}
# expect_counts LINES MESSAGES CLOSED WINDOWED ATEND DESCRIPTION: the counts on stderr
expect_counts() {
	expect_err "^smtpdiag: scan: $1 lines, $2 messages: $3 closed, $4 open past the window, $5 open at the end\$" "$6: counts"
	expect_lines "$2" "$6: one line per message" out
	n=$((n + 1))
	if [ "$(grep -c '^{"queueid":".*}$' "$TMP/out")" -eq "$2" ]; then echo "ok $n - $6: every line is one object"; else
		echo "not ok $n - $6: lines that are no record"; fi
}

# --- Postfix: smtpd, cleanup, qmgr, attempts, bounce, removed; a relay to mx2 in the same log
expect_exit 0 "postfix" -- "$BIN" scan --messages "$FX/messages-postfix.log"
expect_counts 37 7 7 0 0 "postfix"
expect_rec 4B2F61C2A3 '"mta":"postfix","host":"mx1","messageid":"20240303080001.AB12@example.com","sender":"alice@example.com","client":"mail.example.com\[192.0.2.10\]","size":2345,"nrcpt":3,' "postfix: client=, message-id=, from=, size=, nrcpt="
expect_rec 4B2F61C2A3 '"closed":true,"end":"removed"' "postfix: qmgr removed closes"
expect_rec 4B2F61C2A3 '\{"recipient":"bob@example.org","final":"sent","attempts":1,"replycode":"","deliverystatus":"","reason":"","retry":false,"advice":""\}' "postfix: a sent recipient"
expect_rec 4B2F61C2A3 '\{"recipient":"carol@example.net","final":"bounced","attempts":1,"replycode":"550","deliverystatus":"5.1.1","reason":"userunknown","retry":false,"advice":"suppress-recipient"\}' "postfix: a bounced recipient with the scanner's verdict"
expect_rec 4B2F61C2A3 '\{"recipient":"dave@example.com","final":"sent","attempts":2,"replycode":"421","deliverystatus":"4.7.0","reason":"badreputation","retry":true,"advice":"retry"\}' "postfix: deferred then sent: two attempts, the last failure kept"
expect_rec 4B2F61C2A3 '"notification":"5D4E3F2A10"' "postfix: bounce's sender non-delivery notification"
expect_rec 4B2F61C2A3 '"next":\{"queueid":"7C3D9E1F20","host":"mx2"\}' "postfix: queued as X links to mx2's record"
expect_rec 4B2F61C2A3 '"first":[0-9]+,"last":[0-9]+,' "postfix: first and last times"
expect_rec 7C3D9E1F20 '"host":"mx2".*"client":"mx1.example.com\[198.51.100.1\]".*"final":"sent".*"next":null' "postfix: the next hop's own record"
expect_rec 5D4E3F2A10 '"sender":"",.*"recipients":\[\{"recipient":"alice@example.com","final":"sent"' "postfix: the notification's own record"
expect_rec 6E5F4A3B21 '"sender":"frank","client":"local".*"recipient":"root@mx1.example.com","final":"sent"' "postfix: pickup (local submission)"
expect_rec 7A6B5C4D32 '"closed":true,"end":"rejected","recipients":\[\]' "postfix: cleanup milter-reject closes"
expect_rec 8B7C6D5E43 '"sender":"news@example.com".*"end":"removed"' "postfix: qmgr expiry"
expect_rec 4Rz5Xc1Hq5z9tGvK '"messageid":"long-id-1@example.net","sender":"ivan@example.net","client":"relay.example.net\[198.51.100.20\]","size":1200,"nrcpt":1,"first":1709455800,"last":1709455801,' "postfix: long queue id over RFC 5424 and RFC 3339 lines (grok-pattern variants)"
expect_rec 4Rz5Xc1Hq5z9tGvK '"final":"bounced".*"replycode":"554","deliverystatus":"5.7.1","reason":"blocked"' "postfix: postfix-out/smtp attempt"

# --- the same per-attempt records as scan gives: reasons are the scanner's
"$BIN" scan "$FX/messages-postfix.log" >"$TMP/attempts" 2>/dev/null
n=$((n + 1))
if grep -q '"recipient":"carol@example.net".*"reason":"userunknown"' "$TMP/attempts"; then echo "ok $n - scan gives the same reason"; else
	echo "not ok $n - scan gives another reason than --messages"; fi

# --- a relay to a second host's log, in either order
for order in "mx1 mx2" "mx2 mx1"; do
	set -- $order
	expect_exit 0 "relay: $1 then $2" -- "$BIN" scan --messages "$FX/messages-$1.log" "$FX/messages-$2.log"
	expect_counts 10 2 2 0 0 "relay: $1 then $2"
	expect_rec 1A2B3C4D5E '"next":\{"queueid":"9F8E7D6C5B","host":"mx2"\}' "relay: $1 then $2: next names mx2"
done
expect_exit 0 "relay: mx1 alone" -- "$BIN" scan --messages "$FX/messages-mx1.log"
expect_rec 1A2B3C4D5E '"next":\{"queueid":"9F8E7D6C5B","host":""\}' "relay: the next hop's log absent: no host"

# --- a message across a rotation
expect_exit 0 "rotation" -- "$BIN" scan --messages "$FX/messages-rotated.log.1" "$FX/messages-rotated.log"
expect_counts 6 1 1 0 0 "rotation"
expect_rec 2C3D4E5F6A '"messageid":"rotated-1@example.com","sender":"alice@example.com".*"closed":true,"end":"removed","recipients":\[\{"recipient":"bob@example.org","final":"sent"' "rotation: mail.log.1 then mail.log join"
expect_exit 0 "rotation, one file only" -- "$BIN" scan --messages "$FX/messages-rotated.log.1"
expect_counts 3 1 0 0 1 "rotation, one file only"
expect_rec 2C3D4E5F6A '"closed":false,"end":"input"' "rotation: open at the end of the input is written, marked"

# --- the window
expect_exit 0 "window" -- "$BIN" scan --messages "$FX/messages-window.log"
expect_counts 7 3 0 2 1 "window: 5 days"
expect_rec 3D4E5F6A7B '"closed":false,"end":"window".*"final":"deferred".*"reason":"networkerror"' "window: past 5 days, written as it is"
expect_rec 5F6A7B8C9D '"closed":false,"end":"input"' "window: the last one open at the end"
expect_exit 0 "window 6d" -- "$BIN" scan --messages --message-window 6d "$FX/messages-window.log"
expect_counts 7 3 0 1 2 "window: 6d"
expect_exit 0 "window 1h" -- "$BIN" scan --messages --message-window=3600 "$FX/messages-window.log"
expect_counts 7 3 0 2 1 "window: 3600 seconds"
expect_rec 3D4E5F6A7B '"end":"window"' "window: 3600 s"
expect_exit 2 "window: a bad value" -- "$BIN" scan --messages --message-window 5x "$FX/messages-window.log"
expect_err "message-window" "window: a bad value is named"
expect_exit 2 "window without --messages" -- "$BIN" scan --message-window 5d "$FX/messages-window.log"
expect_exit 2 "--messages with -j 2" -- "$BIN" scan --messages -j 2 "$FX/messages-mx1.log" "$FX/messages-mx2.log"
expect_err "leave out" "--messages with -j: says what"
expect_exit 2 "--messages with --summary" -- "$BIN" scan --messages --summary "$FX/messages-mx1.log"

# --- Exim
expect_exit 0 "exim" -- "$BIN" scan --messages "$FX/messages-exim.log"
expect_counts 14 4 3 0 1 "exim"
expect_rec 1rghhQ-0001Xy-2B '"mta":"exim","host":"","messageid":"20240303090001.abc@example.com","sender":"sender@example.com","client":"client.example.com \(helo.example.com\) \[192.0.2.10\]:52011","size":2351,' "exim: <= sender, H=, S=, id="
expect_rec 1rghhQ-0001Xy-2B '"closed":true,"end":"completed"' "exim: Completed closes"
expect_rec 1rghhQ-0001Xy-2B '"recipient":"alice@example.org","final":"sent".*"recipient":"amy@example.org","final":"sent".*"recipient":"bob@example.org","final":"bounced","attempts":1,"replycode":"550","deliverystatus":"5.1.1","reason":"userunknown"' "exim: =>, -> and **"
expect_rec 1rghhQ-0001Xy-2B '"notification":"1rghhS-0001Y2-4D","next":\{"queueid":"9A8B7C6D5E","host":""\}' "exim: the bounce's <= <> R=, and the relay's queued as"
expect_rec 1rghhS-0001Y2-4D '"sender":"","client":"local".*"next":\{"queueid":"1rghhT-0007Ab-5E"' "exim: the bounce message, OK id= of an Exim next hop"
expect_rec 1rghi4-0002Ab-7F '"closed":false,"end":"input".*"final":"deferred","attempts":1,"replycode":"421"' "exim: == and no Completed"
expect_rec 1rghj0-0003Cd-8G '"host":"mx5","messageid":"laptop-9@example.net","sender":"carl@example.net","client":"\(laptop\) \[192.0.2.44\]".*"end":"completed"' "exim: through syslog with its own time"

# --- Sendmail
expect_exit 0 "sendmail" -- "$BIN" scan --messages "$FX/messages-sendmail.log"
expect_counts 9 3 3 0 0 "sendmail"
expect_rec 423900Xa007420 '"mta":"sendmail","host":"mx3","messageid":"202403030900.423900Xa007420@example.com","sender":"sender@example.com","client":"client.example.com \[192.0.2.10\]","size":2351,"nrcpt":2,' "sendmail: from= with size=, nrcpts=, msgid=, relay="
expect_rec 423900Xa007420 '"end":"done".*"recipient":"alice@example.org","final":"sent".*"recipient":"bob@example.org","final":"bounced".*"reason":"userunknown"' "sendmail: to= lines"
expect_rec 423900Xa007420 '"notification":"423900Xb007425","next":\{"queueid":"423901Ab007431","host":""\}' "sendmail: the DSN line, Message accepted for delivery"
expect_rec 423905Aa007430 '"recipient":"ed@example.com","final":"expired".*"replycode":"450".*"recipient":"fay@example.com","final":"expired".*"notification":"428905Bb007440"' "sendmail: a to= list deferred, then Cannot send message for 5 days"

# --- OpenSMTPD
expect_exit 0 "opensmtpd" -- "$BIN" scan --messages "$FX/messages-opensmtpd.log"
expect_counts 8 1 1 0 0 "opensmtpd"
expect_rec f6e94209 '"mta":"opensmtpd","host":"mx4","messageid":"","sender":"sender@example.com","client":"client.example.com\[192.0.2.10\]","size":2351,"nrcpt":2,' "opensmtpd: session's client, smtp message, envelopes"
expect_rec f6e94209 '"end":"done".*"recipient":"alice@example.org","final":"sent","attempts":1.*"recipient":"bob@example.org","final":"bounced","attempts":2,"replycode":"550"' "opensmtpd: TempFail then PermFail"

# --- every fixture at once: the counts add up
expect_exit 0 "all fixtures" -- "$BIN" scan --messages "$FX"/messages-postfix.log "$FX"/messages-exim.log \
	"$FX"/messages-sendmail.log "$FX"/messages-opensmtpd.log
n=$((n + 1))
set -- $(sed -n 's/^smtpdiag: scan: \([0-9]*\) lines, \([0-9]*\) messages: \([0-9]*\) closed, \([0-9]*\) open past the window, \([0-9]*\) open at the end$/\2 \3 \4 \5/p' "$TMP/err")
if [ $# -eq 4 ] && [ "$1" -eq $(($2 + $3 + $4)) ] && [ "$1" -eq "$(wc -l <"$TMP/out")" ]; then
	echo "ok $n - all fixtures: messages = closed + windowed + open at the end = records"; else
	echo "not ok $n - all fixtures: counts do not add up ($*)"; fi

# --- a content filter that injects the message again on the same host
expect_exit 0 "content filter" -- "$BIN" scan --messages "$FX/messages-filter.log"
expect_counts 10 2 2 0 0 "content filter"
expect_rec 6A7B8C9D0E '"next":\{"queueid":"7B8C9D0E1F","host":"mx1"\}' "content filter: next is the same host's message"
expect_rec 7B8C9D0E1F '"client":"localhost\[127.0.0.1\]".*"final":"sent"' "content filter: the injected message's own record"

# --- an OpenSMTPD next hop's reply: "250 2.0.0 MSGID Message accepted for delivery"
printf '%s\n' 'Mar  3 11:00:01 mx1 postfix/smtp[1]: 8C9D0E1F2A: to=<o@example.org>, relay=mx4.example.org[192.0.2.4]:25, delay=1, delays=0/0/0.5/0.5, dsn=2.0.0, status=sent (250 2.0.0 0a1b2c3d Message accepted for delivery)' \
	'Mar  3 11:00:01 mx1 postfix/qmgr[2]: 8C9D0E1F2A: removed' >"$TMP/osmtpd-hop.log"
expect_exit 0 "OpenSMTPD next hop" -- "$BIN" scan --messages "$TMP/osmtpd-hop.log"
expect_rec 8C9D0E1F2A '"next":\{"queueid":"0a1b2c3d","host":""\}' "OpenSMTPD next hop: its message id"

# --- a master.cf service name in the program (postfix/submission/smtpd), a long queue id
printf '%s\n' 'Mar  3 12:00:01 mx1 postfix/submission/smtpd[1]: 4Tq9Zc0Lm7z8xYwV: client=laptop.example[192.0.2.50], sasl_method=PLAIN, sasl_username=kim' \
	'Mar  3 12:00:01 mx1 postfix/cleanup[2]: 4Tq9Zc0Lm7z8xYwV: message-id=<sub-1@example.com>' \
	'Mar  3 12:00:01 mx1 postfix/qmgr[3]: 4Tq9Zc0Lm7z8xYwV: from=<kim@example.com>, size=900, nrcpt=1 (queue active)' \
	'Mar  3 12:00:02 mx1 postfix/relay/smtp[4]: 4Tq9Zc0Lm7z8xYwV: to=<lee@example.org>, relay=smarthost.example[198.51.100.9]:587, delay=1, delays=0/0/0.5/0.5, dsn=2.0.0, status=sent (250 2.0.0 Ok: queued as 4Tr0Ab1Cd2Ef3Gh)' \
	'Mar  3 12:00:02 mx1 postfix/qmgr[3]: 4Tq9Zc0Lm7z8xYwV: removed' >"$TMP/submission.log"
expect_exit 0 "submission service" -- "$BIN" scan --messages "$TMP/submission.log"
expect_rec 4Tq9Zc0Lm7z8xYwV '"messageid":"sub-1@example.com","sender":"kim@example.com","client":"laptop.example\[192.0.2.50\]",.*"end":"removed".*"final":"sent".*"next":\{"queueid":"4Tr0Ab1Cd2Ef3Gh","host":""\}' "submission service: postfix/submission/smtpd and postfix/relay/smtp join"
