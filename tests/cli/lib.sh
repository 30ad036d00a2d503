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

# expect_same DESCRIPTION FILE1 FILE2: the two files are byte for byte equal
expect_same() {
	n=$((n + 1))
	if cmp -s "$2" "$3"; then echo "ok $n - $1"; else
		echo "not ok $n - $1"; diff "$2" "$3" | head -5 | sed 's/^/#   /'; fi
}
