#!/bin/sh
# Control characters from bounces, log lines and queries never reach a terminal
# raw: text outputs and messages on stderr show them as \xNN (JSON output has
# its own escapes). The server's access log is tested in serve.sh.
. "$(dirname "$0")/lib.sh"

E=$(printf '\033')
B=$(printf '\007')
C1=$(printf '\302\233') # CSI written in UTF-8

# no_raw FILE DESC: FILE ($TMP/out or $TMP/err) has no control byte but LF
no_raw() {
	n=$((n + 1))
	if LC_ALL=C grep -q "$(printf '[\001-\011\013-\037\177\233]')" "$TMP/$1" ||
		LC_ALL=C grep -q "$(printf '\302[\200-\237]')" "$TMP/$1"; then
		echo "not ok $n - $2 (raw control bytes)"; od -c "$TMP/$1" | head -5 | sed 's/^/#   /'
	else echo "ok $n - $2"; fi
}

# a bounce whose recipient and domain carry escape sequences
sed "s/rfc822; nobody@example.org/rfc822; no${E}[31mbody@ex${E}[1m${B}ample.org/" \
	samples/bounces/postfix-userunknown.eml >"$TMP/esc.eml"
expect_exit 0 "decode --format text of a bounce with escapes" -- "$BIN" decode --format text "$TMP/esc.eml"
no_raw out "decode text: no raw control bytes"
expect_out 'no\\x1b\[31mbody@ex\\x1b\[1m\\x07ample.org +userunknown' "decode text: the recipient escaped"
expect_exit 0 "decode --summary of a bounce with escapes" -- "$BIN" decode --summary "$TMP/esc.eml"
no_raw out "decode summary: no raw control bytes"
expect_out '  ex\\x1b\[1m\\x07ample.org$' "decode summary: the domain escaped"
expect_exit 0 "decode JSON of the same bounce" -- "$BIN" decode "$TMP/esc.eml"
expect_out '"recipient":"no\\u001b\[31mbody@' "JSON keeps its own escapes"
: >"$TMP/x${E}[2J.eml"
expect_exit 1 "decode of an empty file named with an escape" -- "$BIN" decode "$TMP/x${E}[2J.eml"
no_raw err "decode error message: no raw control bytes"
expect_err 'x\\x1b\[2J.eml: empty file' "decode error message: the path escaped"

# log lines with escapes in the recipient, the relay and the reply text
cat >"$TMP/esc.log" <<LOG
Mar  3 09:00:02 mx1 postfix/smtp[2103]: 3F2A1B2C3D: to=<b${E}[31mob@example.org>, relay=mx${E}[1m.example.org[203.0.113.5]:25, delay=0.5, delays=0.1/0/0.2/0.2, dsn=5.1.1, status=bounced (host mx.example.org[203.0.113.5] said: 550 5.1.1 ${E}]0;pwned${B} user unknown (in reply to RCPT TO command))
LOG
expect_exit 0 "scan --format text of a line with escapes" -- "$BIN" scan --format text "$TMP/esc.log"
no_raw out "scan text: no raw control bytes"
expect_out 'b\\x1b\[31mob@example.org' "scan text: the recipient escaped"
expect_out '\\x1b\]0;pwned\\x07 user unknown' "scan text: the reply escaped"
expect_exit 0 "scan --summary of a line with escapes" -- "$BIN" scan --summary "$TMP/esc.log"
no_raw out "scan summary: no raw control bytes"
expect_out 'mx\\x1b\[1m.example.org' "scan summary: the relay escaped"

# explain's readable output and its error message
expect_exit 0 "explain --text with escapes" -- "$BIN" explain --text "550 5.1.1 <b${C1}31mob@example.org> ${E}[2Juser unknown"
no_raw out "explain: no raw control bytes"
expect_out 'Recipient: b\\xc2\\x9b31mob@example.org' "explain: the recipient escaped"
expect_out 'Server said: .*\\x1b\[2Juser unknown' "explain: the reply text escaped"
expect_exit 2 "explain of an escape sequence" -- "$BIN" explain "${E}[2J"
no_raw err "explain error message: no raw control bytes"
expect_err 'nothing to explain' "explain error message: one clear line"
