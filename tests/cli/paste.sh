#!/bin/sh
# Bounce bodies pasted without their header fields, as people copy them out of a
# mail client (tests/fixtures/paste/, table expected.tsv): decode, explain --file
# and serve's /api/v1/decode and /analyze read the same recipient, reply code,
# status, class and reason in each; explain --file's trail is decode's. Text without headers that is no bounce stays
# an error.
. "$(dirname "$0")/lib.sh"

D=tests/fixtures/paste
PID=""
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$TMP"' EXIT

# val KEY FILE: the first string value of KEY in a JSON text
val() {
	grep -o "\"$1\":\"[^\"]*\"" "$2" | head -1 | sed "s/^\"$1\":\"//; s/\"\$//"
}

# trail_of FILE: the evidence list of the first JSON answer in FILE
trail_of() {
	grep -o '"evidence":\[[^]]*\]' "$1" | head -1
}

class_of() {
	case $1 in 5*) echo permanent ;; 4*) echo transient ;; 2*) echo success ;; *) echo "" ;; esac
}

# check WHAT FILE STATUSKEY CLASS: the fields of the last JSON answer ($TMP/out)
check() {
	n=$((n + 1))
	got="$(val recipient "$TMP/out")|$(val replycode "$TMP/out")|$(val "$3" "$TMP/out")|$4|$(val reason "$TMP/out")"
	want="$rcpt|$code|$status|$class|$reason"
	if [ "$got" = "$want" ]; then echo "ok $n - $1: $2"; else
		echo "not ok $n - $1: $2 (got $got, want $want)"; head -c 300 "$TMP/err" | sed 's/^/#   /'; fi
}

"$BIN" serve --listen 127.0.0.1:0 2>"$TMP/serve.log" &
PID=$!
wait_port "$TMP/serve.log"
U="http://127.0.0.1:$PORT"

rows=0
while IFS='	' read -r file rcpt code status class reason; do
	case $file in '#'* | '') continue ;; esac
	rows=$((rows + 1))
	[ "$code" = - ] && code=""
	f="$D/$file"
	"$BIN" decode "$f" >"$TMP/out" 2>"$TMP/err"
	check decode "$file" deliverystatus "$(class_of "$(val deliverystatus "$TMP/out")")"
	trail=$(trail_of "$TMP/out")
	"$BIN" explain --file "$f" --json >"$TMP/out" 2>"$TMP/err"
	check "explain --file" "$file" status "$(val class "$TMP/out")"
	n=$((n + 1))
	if [ -n "$trail" ] && [ "$(trail_of "$TMP/out")" = "$trail" ]; then echo "ok $n - explain --file: decode's trail: $file"
	else echo "not ok $n - explain --file: $file: trail $(trail_of "$TMP/out"), decode's $trail"; fi
	curl -s --max-time 10 -H 'Content-Type: message/rfc822' --data-binary "@$f" "$U/api/v1/decode" \
		>"$TMP/out" 2>"$TMP/err"
	check "/api/v1/decode" "$file" deliverystatus "$(class_of "$(val deliverystatus "$TMP/out")")"
	curl -s --max-time 10 --data-urlencode "text@$f" "$U/analyze" >"$TMP/out" 2>"$TMP/err"
	n=$((n + 1))
	if grep -q -- "$rcpt" "$TMP/out" && grep -q -- "$status" "$TMP/out"; then echo "ok $n - /analyze: $file"
	else echo "not ok $n - /analyze: $file (the page lacks $rcpt or $status)"; fi
done <"$D/expected.tsv"
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
