# Helpers shared by tests/cli/paste.sh and paste_more.sh (pasted bounce bodies).
# Needs lib.sh first. Not a suite of its own (tests/run.sh skips *_lib.sh).

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

# paste_check WHAT FILE STATUSKEY CLASS: the fields of the last JSON answer
# ($TMP/out) against $rcpt $code $status $class $reason (reason "*": any); the
# fields read are left in g_rcpt g_code g_status g_reason.
paste_check() {
	n=$((n + 1))
	g_rcpt=$(val recipient "$TMP/out") g_code=$(val replycode "$TMP/out") g_status=$(val "$3" "$TMP/out")
	g_reason=$(val reason "$TMP/out")
	w_reason=$reason
	[ "$reason" = '*' ] && w_reason=$g_reason
	got="$g_rcpt|$g_code|$g_status|$4|$g_reason"
	want="$rcpt|$code|$status|$class|$w_reason"
	if [ "$got" = "$want" ]; then echo "ok $n - $1: $2"; else
		echo "not ok $n - $1: $2 (got $got, want $want)"; head -c 300 "$TMP/err" | sed 's/^/#   /'; fi
}

# paste_serve: serve on a free port, its address in $U
paste_serve() {
	"$BIN" serve --listen 127.0.0.1:0 2>"$TMP/serve.log" &
	PID=$!
	wait_port "$TMP/serve.log"
	U="http://127.0.0.1:$PORT"
}

# paste_each TABLE FUNCTION: FUNCTION PATH FILE for each row of TABLE (file
# recipient replycode status class reason; "-" replycode: none) with rcpt code
# status class reason set; $rows counts them.
paste_each() {
	rows=0
	while IFS='	' read -r file rcpt code status class reason; do
		case $file in '#'* | '') continue ;; esac
		rows=$((rows + 1))
		[ "$code" = - ] && code=""
		"$2" "$D/$file" "$file"
	done <"$1"
}

# paste_fronts PATH FILE: decode, explain --file and /api/v1/decode on one body,
# each answer given to the caller's check (WHAT FILE STATUSKEY CLASS EXIT), and
# explain --file's trail compared with decode's; decode's fields are left in
# d_rcpt d_status d_reason d_trail.
paste_fronts() {
	"$BIN" decode "$1" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	check decode "$2" deliverystatus "$(class_of "$(val deliverystatus "$TMP/out")")" $rc
	d_rcpt=$(val recipient "$TMP/out") d_status=$(val deliverystatus "$TMP/out") d_reason=$(val reason "$TMP/out")
	d_trail=$(trail_of "$TMP/out")
	"$BIN" explain --file "$1" --json >"$TMP/out" 2>"$TMP/err"
	rc=$?
	check explain "$2" status "$(val class "$TMP/out")" $rc
	n=$((n + 1))
	if [ -n "$d_trail" ] && [ "$(trail_of "$TMP/out")" = "$d_trail" ]; then echo "ok $n - explain --file: decode's trail: $2"
	else echo "not ok $n - explain --file: $2: trail $(trail_of "$TMP/out"), decode's $d_trail"; fi
	curl -s --max-time 10 -H 'Content-Type: message/rfc822' --data-binary "@$1" "$U/api/v1/decode" \
		>"$TMP/out" 2>"$TMP/err"
	check api "$2" deliverystatus "$(class_of "$(val deliverystatus "$TMP/out")")" 0
}
