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
