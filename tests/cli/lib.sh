# Helpers for the CLI tests (TAP-like: "ok N - what" / "not ok N - what").
BIN=${BUILD:-build}/smtpdiag
n=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# expect_exit STATUS DESCRIPTION -- COMMAND...
expect_exit() {
	want=$1; desc=$2; shift 3
	n=$((n + 1))
	"$@" >"$TMP/out" 2>"$TMP/err"
	got=$?
	if [ "$got" -eq "$want" ]; then echo "ok $n - $desc"; else
		echo "not ok $n - $desc (exit $got, want $want)"; sed 's/^/#   /' "$TMP/err" | head -5; fi
}

# expect_out PATTERN DESCRIPTION: the last command's stdout matches (grep -E)
expect_out() {
	n=$((n + 1))
	if grep -Eq -- "$1" "$TMP/out"; then echo "ok $n - $2"; else
		echo "not ok $n - $2 (stdout lacks /$1/)"; head -5 "$TMP/out" | sed 's/^/#   /'; fi
}

expect_err() {
	n=$((n + 1))
	if grep -Eq -- "$1" "$TMP/err"; then echo "ok $n - $2"; else
		echo "not ok $n - $2 (stderr lacks /$1/)"; head -5 "$TMP/err" | sed 's/^/#   /'; fi
}

# expect_lines N DESCRIPTION: the last stdout / stderr has N lines
expect_lines() {
	n=$((n + 1))
	got=$(wc -l <"$TMP/$3")
	if [ "$got" -eq "$1" ]; then echo "ok $n - $2"; else echo "not ok $n - $2 ($got lines, want $1)"; fi
}

# need TOOL...: stop with a failure when one of the tools is missing
need() {
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 && continue
		echo "not ok 1 - $t is missing (sh tools/install-deps.sh installs it)"
		exit 1
	done
}

# ok_if VALUE DESCRIPTION: ok when VALUE is 1
ok_if() {
	n=$((n + 1))
	if [ "$1" = 1 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}

# expect_same DESCRIPTION FILE1 FILE2: the two files are byte for byte equal
expect_same() {
	n=$((n + 1))
	if cmp -s "$2" "$3"; then echo "ok $n - $1"; else
		echo "not ok $n - $1"; diff "$2" "$3" | head -5 | sed 's/^/#   /'; fi
}

# wait_port LOG: wait (10 s at most) for a server started with --listen 127.0.0.1:0
# to write its port in LOG; sets PORT ("" when it never did)
wait_port() {
	PORT=""
	i=0
	while [ $i -lt 100 ] && [ -z "$PORT" ]; do
		PORT=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9][0-9]*\)/.*|\1|p' "$1")
		[ -n "$PORT" ] || sleep 0.1
		i=$((i + 1))
	done
}

# dsn_for N: a DSN (RFC 3464) for N failed recipients, on stdout
dsn_for() {
	printf 'From: MAILER-DAEMON@mx.example.com\nTo: s@shop.example.com\nSubject: failure\nMIME-Version: 1.0\n'
	printf 'Content-Type: multipart/report; report-type=delivery-status; boundary="BB"\n\n--BB\n'
	printf 'Content-Type: text/plain\n\nFailed.\n\n--BB\nContent-Type: message/delivery-status\n\n'
	printf 'Reporting-MTA: dns; mx.example.com\n\n'
	awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "Final-Recipient: rfc822; u%d@mail.example.net\nAction: failed\nStatus: 5.1.1\n\n", i }'
	printf -- '--BB--\n'
}
