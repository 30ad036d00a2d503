#!/bin/sh
# Bounce bodies pasted without their header fields, as people copy them out of a
# mail client (tests/fixtures/paste/, table expected.tsv): decode, explain --file
# and serve's /api/v1/decode and /analyze read the same recipient, reply code,
# status, class and reason in each. Text without headers that is no bounce stays
# an error.
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/paste_lib.sh"

D=tests/fixtures/paste

check() { paste_check "$@"; }

paste_serve

one() {
	paste_fronts "$1" "$2"
	curl -s --max-time 10 --data-urlencode "text@$1" "$U/analyze" >"$TMP/out" 2>"$TMP/err"
	n=$((n + 1))
	if grep -q -- "$rcpt" "$TMP/out" && grep -q -- "$status" "$TMP/out"; then echo "ok $n - /analyze: $2"
	else echo "not ok $n - /analyze: $2 (the page lacks $rcpt or $status)"; fi
}
paste_each "$D/expected.tsv" one
n=$((n + 1))
if [ "$rows" -ge 17 ]; then echo "ok $n - the table has $rows bodies"; else echo "not ok $n - the table has $rows bodies"; fi

# the same body with CRLF line ends, and after blank lines
rcpt=a.lindqvist@post.example.se code=550 status=5.1.1 class=permanent reason=userunknown
sed 's/$/\r/' "$D/postfix-code-at-eol.txt" >"$TMP/crlf.txt"
"$BIN" decode "$TMP/crlf.txt" >"$TMP/out" 2>"$TMP/err"
check decode "CRLF line ends" deliverystatus "$(class_of "$(val deliverystatus "$TMP/out")")"
{ printf '\n\n'; cat "$D/postfix-code-at-eol.txt"; } >"$TMP/blank.txt"
"$BIN" explain --file "$TMP/blank.txt" --json >"$TMP/out" 2>"$TMP/err"
check "explain --file" "after blank lines" status "$(val class "$TMP/out")"

# a template's opening line alone names no failed recipient: still no bounce
printf 'This is the mail system at host relay.example.com.\n\nAll is well.\n' >"$TMP/opening.txt"
expect_exit 1 "decode: an opening line without a recipient is refused" -- "$BIN" decode "$TMP/opening.txt"
expect_err 'no header fields' "decode: says why"
printf 'Hi. This is the qmail-send program at mx.example.com.\nYour message was delivered.\n' >"$TMP/qm.txt"
expect_exit 1 "decode: a qmail opening without a recipient is refused" -- "$BIN" decode "$TMP/qm.txt"
