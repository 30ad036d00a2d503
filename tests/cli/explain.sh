#!/bin/sh
# CLI tests of `smtpdiag explain`.
. "$(dirname "$0")/lib.sh"

expect_exit 0 "explain 431" -- "$BIN" explain 431
expect_out "STOREDRV" "431 mentions Exchange STOREDRV"
expect_out "Short answer" "human output has sections"
expect_out "Non-standard" "431 is flagged non-standard"

expect_exit 0 "explain --json 431" -- "$BIN" explain --json 431
expect_out '"replycode":"431"' "json replycode"
expect_out '"class":"transient"' "json class transient"
expect_out '"retry":true' "json retry"
expect_out '"standard":false' "json standard false"
expect_out '"issues":\["nonstandard-reply-code"\]' "json issues"
expect_lines 1 "json is one line" out

expect_exit 0 "explain a pair" -- "$BIN" explain --json "552 4.3.1"
expect_out '"class-mismatch"' "552 4.3.1 is a class mismatch"
expect_exit 0 "explain a pair as two words" -- "$BIN" explain --json 552 4.3.1
expect_out '"status":"4.3.1"' "pair given as two arguments"

expect_exit 0 "explain 5.3.1" -- "$BIN" explain --json 5.3.1
expect_out '"class-not-allowed"' "5.3.1 is outside X.3.1's class"

expect_exit 0 "explain X.3.1" -- "$BIN" explain X.3.1
expect_exit 0 "explain unknown 4.9.9" -- "$BIN" explain --json 4.9.9
expect_out '"unregistered-status"' "4.9.9 flagged"
expect_exit 0 "explain unknown 599" -- "$BIN" explain --json 599
expect_out '"nonstandard-reply-code"' "599 flagged"

expect_exit 0 "explain --text multi-line" -- "$BIN" explain --json --text "$(printf '550-5.1.1 The email account that you tried to reach does not exist.\r\n550 5.1.1 Please check the address.')"
expect_out '"reason":"userunknown"' "reason from reply text"
expect_out '"hardbounce":true' "user unknown is a hard bounce"
expect_exit 0 "explain --text names the recipient" -- "$BIN" explain --json --text "550 5.1.1 <bob@example.org>: Recipient address rejected: User unknown"
expect_out '"recipient":"bob@example.org"' "recipient from reply text"

# blank lines before a reply (LF after LF) once made the reply parser spin
expect_exit 0 "explain --text after two blank lines ends" -- timeout 10 "$BIN" explain --json --text "$(printf '\n\n550 x')"
expect_out '"replycode":"550"' "reply after blank lines read"
expect_exit 0 "explain --text with blank lines between lines ends" -- timeout 10 "$BIN" explain --json --text "$(printf '550-5.1.1 a\n\n\n550 5.1.1 b\n')"
expect_out '"text":"a b"' "lines joined across blank lines"
expect_exit 0 "explain --text CR CR ends" -- timeout 10 "$BIN" explain --json --text "$(printf '\r\r\n\r\n550 x')"
expect_out '"replycode":"550"' "reply after CR and CRLF blank lines read"

printf 'Final-Recipient: rfc822; bob@example.org\nAction: failed\nStatus: 5.2.2\nDiagnostic-Code: smtp; 552 5.2.2 Mailbox full\n' >"$TMP/paste.txt"
expect_exit 0 "explain --file" -- "$BIN" explain --json --file "$TMP/paste.txt"
expect_out '"recipient":"bob@example.org"' "recipient found in pasted text"
expect_out '"reason":"mailboxfull"' "reason from pasted text"
expect_exit 0 "explain --file - (stdin)" -- sh -c "\"$BIN\" explain --json --file - <\"$TMP/paste.txt\""
expect_out '"status":"5.2.2"' "stdin read"
expect_exit 0 "explain - (stdin, as --file -)" -- sh -c "\"$BIN\" explain --json - <\"$TMP/paste.txt\""
expect_out '"recipient":"bob@example.org"' "explain -: the pasted text read from stdin"
cp "$TMP/out" "$TMP/dash.json"
sh -c "\"$BIN\" explain --json --file - <\"$TMP/paste.txt\"" >"$TMP/file-dash.json" 2>&1
expect_same "explain - is explain --file -" "$TMP/dash.json" "$TMP/file-dash.json"
expect_exit 2 "explain - with --file too: one of them" -- sh -c "\"$BIN\" explain --file \"$TMP/paste.txt\" - </dev/null"
expect_err "one of them" "explain - with --file: says so"
expect_exit 0 "explain --help shows explain -" -- "$BIN" explain --help
expect_out "^       smtpdiag explain \[OPTIONS\] -$" "explain --help: the stdin form"

expect_exit 2 "impossible class 6.1.1" -- "$BIN" explain 6.1.1
expect_err "class must be 2, 4 or 5" "clear message for 6.1.1"
expect_lines 1 "one line on stderr" err
expect_exit 2 "not a code" -- "$BIN" explain hello
expect_exit 2 "empty" -- "$BIN" explain ""
expect_exit 2 "no argument" -- "$BIN" explain
expect_exit 2 "unknown option" -- "$BIN" explain --bogus 431
expect_exit 2 "missing file" -- "$BIN" explain --file "$TMP/none"
printf 'ab\000cd' >"$TMP/bin"
expect_exit 2 "binary file" -- "$BIN" explain --file "$TMP/bin"
expect_err "binary" "binary input named"
head -c 1100000 /dev/zero | tr '\0' 'a' >"$TMP/big"
expect_exit 2 "over the size limit" -- "$BIN" explain --file "$TMP/big"
expect_err "1 MiB" "limit named"
expect_exit 0 "help" -- "$BIN" explain --help
expect_out "usage: smtpdiag explain" "help text"
NO_COLOR=1 expect_exit 0 "no colour when piped" -- "$BIN" explain 550
n=$((n + 1)); if grep -q "$(printf '\033')" "$TMP/out"; then echo "not ok $n - escape codes in piped output"; else echo "ok $n - no escape codes in piped output"; fi

# a code only providers use lists them instead of "unknown code"
expect_exit 0 "explain 5.7.708 (a provider's code)" -- "$BIN" explain 5.7.708
expect_out "Used by" "5.7.708 lists the providers that use it"
expect_out "Exchange Online" "5.7.708 names Exchange Online"
n=$((n + 1)); if grep -qi "unknown code" "$TMP/out"; then echo "not ok $n - 5.7.708 called unknown"; else echo "ok $n - 5.7.708 not called unknown"; fi
expect_exit 0 "explain --json 5.4.300" -- "$BIN" explain --json 5.4.300
expect_out '"vendors":\[\{"vendor":"Microsoft Exchange Online[^"]*","meaning":"[^"]+","source":"https://' "json lists vendor, meaning, source"
expect_out '"unregistered-status"' "5.4.300 still flagged unregistered"

# the code is printed once in the heading
expect_exit 0 "explain 5.9.9" -- "$BIN" explain 5.9.9
n=$((n + 1)); if [ "$(grep -o '5\.9\.9' "$TMP/out" | head -n 5 | wc -l)" -ge 1 ] && ! head -1 "$TMP/out" | grep -q '5\.9\.9.*5\.9\.9'; then
	echo "ok $n - 5.9.9 once in the heading"; else echo "not ok $n - heading: $(head -1 "$TMP/out")"; fi

# facts: 431 is not Exchange back pressure (452 4.3.1 is); Less Secure Apps dates; Gmail 4.3.0 clears on retry
expect_exit 0 "explain --json 431 (facts)" -- "$BIN" explain --json 431
expect_out 'back pressure is a different reply[^"]*452 4\.3\.1' "431: back pressure answers 452 4.3.1"
n=$((n + 1)); if grep -q 'cause[^]]*Exchange back pressure' "$TMP/out"; then echo "not ok $n - 431 lists back pressure as a cause"; else echo "ok $n - 431 does not list back pressure as a cause"; fi
expect_exit 0 "explain --json 535 5.7.8 (facts)" -- "$BIN" explain --json "535 5.7.8"
expect_out 'Google Workspace in September 2024' "Workspace lost Less Secure Apps in September 2024"
expect_exit 0 "explain --json 451 4.3.0 (facts)" -- "$BIN" explain --json "451 4.3.0"
expect_out 'Multiple destination domains[^|]*Will a retry fix it\?","a":"Yes' "Gmail's multiple-domain deferral clears on retry"
# reply text without --text; a lone code stays a code lookup
expect_exit 0 "reply text without --text" -- "$BIN" explain --json "431 4.3.1 STOREDRV; mailbox disk is full"
expect_out '"reason":"systemfull"' "text read as reply text"
expect_out '"fixer":\["recipient-admin"\]' "fixer is a list"
expect_out '"evidence":\["rule:' "evidence names the rule"
expect_exit 2 "no failure in the text" -- "$BIN" explain "hello there, how are you"
expect_err "nothing to explain" "says there is nothing to explain"
expect_exit 2 "leading zeros" -- "$BIN" explain 5.07.01
expect_err "leading zeros" "RFC 3463 leading zeros named"
expect_exit 0 "2xx with a 5.x.x status" -- "$BIN" explain 250 5.1.1
expect_out "Class: mismatch" "class mismatch, not success"
expect_exit 0 "unknown status" -- "$BIN" explain 5.9.9
n=$((n + 1)); if [ "$(head -1 "$TMP/out" | grep -o '5\.9\.9' | wc -l)" -eq 1 ]; then echo "ok $n - 5.9.9 printed once"; else echo "not ok $n - 5.9.9 repeated: $(head -1 "$TMP/out")"; fi
expect_exit 0 "sender's null MX" -- "$BIN" explain --json "550 5.7.27 Sender address has null MX"
expect_out '"advice":"fix-sender-config"' "sender side is not suppress-recipient"
expect_out '"hardbounce":false' "sender side is no hard bounce"

# a 5xx whose text says the refusal lifts by itself is retried; the rest are not
# (retry, hardbounce, then the reply)
while IFS='|' read -r retry hard text; do
	expect_exit 0 "explain: $text" -- "$BIN" explain --json "$text"
	expect_out "\"retry\":$retry,.*\"hardbounce\":$hard," "... retry $retry, hard bounce $hard"
done <<'EOF2'
true|false|550 5.7.1 Greylisted, please try again later
true|false|550 5.7.1 Zu viele Verbindungen, bitte später erneut versuchen
false|false|553 5.7.1 All messages from 192.0.2.1 are refused; retrying will not succeed
false|true|550 5.1.1 <jo@example.org>: user unknown, please try again later
false|false|550 5.7.1 Message rejected as spam, try again later
EOF2
expect_exit 0 "greylisting sent as 550, again" -- "$BIN" explain --json "550 5.7.1 Greylisted, please try again later"
expect_out '"class":"permanent".*"advice":"retry".*policy:5xx, the text says it lifts by itself -> retry' \
	"greylisting sent as 550: class permanent, advice retry, and the trail says why"
