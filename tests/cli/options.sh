#!/bin/sh
# CLI tests of the option parser every command shares (src/cli/opts.c): "--",
# --opt=value and --opt value, combined short flags, options after operands,
# -h/--help everywhere, and one line on stderr with exit 2 for every misuse.
. "$(dirname "$0")/lib.sh"
FX=tests/fixtures/logs
export TZ=UTC

# usage_error DESCRIPTION PATTERN -- COMMAND...: exit 2, exactly one line on stderr matching
usage_error() {
	desc=$1; pat=$2; shift 2
	expect_exit 2 "$desc: exit 2" "$@"
	expect_lines 1 "$desc: one line on stderr" err
	expect_err "$pat" "$desc: says what"
	expect_lines 0 "$desc: nothing on stdout" out
}

# --- "--" ends the options
expect_exit 0 "decode -- samples" -- "$BIN" decode -- samples
expect_lines 4 "decode -- samples: four verdicts" out
expect_exit 0 "explain -- 431" -- "$BIN" explain --json -- 431
expect_out '"replycode":"431"' "explain -- 431: the code after --"
expect_exit 1 "scan: after --, --summary is a file name" -- "$BIN" scan "$FX/postfix.log" -- --summary
expect_err "scan: --summary: cannot open" "scan: -- makes the next word an operand"

# --- --opt=value and --opt value give the same
"$BIN" decode --format text samples >"$TMP/dec-text" 2>&1
expect_exit 0 "decode --format=text" -- "$BIN" decode --format=text samples
expect_same "decode --format=text is --format text" "$TMP/out" "$TMP/dec-text"
expect_out '^RECIPIENT' "decode --format=text: the table"
"$BIN" scan --format text "$FX/postfix.log" >"$TMP/scan-text" 2>/dev/null
expect_exit 0 "scan --format=text" -- "$BIN" scan --format=text "$FX/postfix.log"
expect_same "scan --format=text is --format text" "$TMP/out" "$TMP/scan-text"
"$BIN" scan --jobs 2 "$FX/postfix.log" "$FX/exim_mainlog" >"$TMP/scan-j" 2>/dev/null
expect_exit 0 "scan --jobs=2" -- "$BIN" scan --jobs=2 "$FX/postfix.log" "$FX/exim_mainlog"
expect_same "scan --jobs=2 is --jobs 2" "$TMP/out" "$TMP/scan-j"
expect_exit 0 "scan -j2" -- "$BIN" scan -j2 "$FX/postfix.log" "$FX/exim_mainlog"
expect_same "scan -j2 is -j 2" "$TMP/out" "$TMP/scan-j"
"$BIN" explain --json --text "550 5.1.1 <bob@example.org>: User unknown" >"$TMP/ex-text" 2>&1
expect_exit 0 "explain --text=TEXT" -- "$BIN" explain --json "--text=550 5.1.1 <bob@example.org>: User unknown"
expect_same "explain --text=TEXT is --text TEXT" "$TMP/out" "$TMP/ex-text"
printf 'Status: 5.2.2\nDiagnostic-Code: smtp; 552 5.2.2 Mailbox full\n' >"$TMP/paste.txt"
"$BIN" explain --json --file "$TMP/paste.txt" >"$TMP/ex-file" 2>&1
expect_exit 0 "explain --file=PATH" -- "$BIN" explain --json "--file=$TMP/paste.txt"
expect_same "explain --file=PATH is --file PATH" "$TMP/out" "$TMP/ex-file"
"$BIN" serve --max-body 0 2>"$TMP/serve-err"
expect_exit 2 "serve --max-body=0 is refused as --max-body 0 is" -- "$BIN" serve --max-body=0
expect_same "serve --max-body=0: the same message" "$TMP/err" "$TMP/serve-err"
expect_err "--max-body takes a size from 1 to 1G, not '0'" "serve: the value and what is taken"

# --- options after operands (GNU order), and a unique prefix of a long option
"$BIN" decode --summary samples >"$TMP/dec-sum" 2>&1
expect_exit 0 "decode samples --summary" -- "$BIN" decode samples --summary
expect_same "an option after the operand" "$TMP/out" "$TMP/dec-sum"
expect_exit 0 "decode --summ samples" -- "$BIN" decode --summ samples
expect_same "a unique prefix of --summary" "$TMP/out" "$TMP/dec-sum"
expect_exit 0 "explain 431 --json" -- "$BIN" explain 431 --json
expect_out '"replycode":"431"' "explain: --json after the code"

# --- combined short flags: -F and -j N in one word
timeout 30 "$BIN" scan -Fj1 --failures "$FX/postfix.log" >"$TMP/fj" 2>"$TMP/fj.err" &
fp=$!
i=0
while [ $i -lt 100 ] && [ "$(grep -c '"action"' "$TMP/fj" 2>/dev/null)" != 10 ]; do sleep 0.1; i=$((i + 1)); done
kill -TERM $fp
wait $fp
frc=$?
n=$((n + 1)); if [ "$frc" -eq 0 ] && [ "$(wc -l <"$TMP/fj")" -eq 10 ]; then echo "ok $n - scan -Fj1: follow with one job"; else
	echo "not ok $n - scan -Fj1 (exit $frc)"; sed 's/^/#   /' "$TMP/fj.err" | head -3; fi
usage_error "scan -Fj2 (-F with two jobs)" "leave out -j" -- "$BIN" scan -Fj2 "$FX/postfix.log"

# --- help: -h and --help on every command and on smtpdiag itself; smtpdiag help CMD
for cmd in explain decode scan serve; do
	for h in -h --help; do
		expect_exit 0 "$cmd $h" -- "$BIN" "$cmd" "$h"
		expect_out "^usage: smtpdiag $cmd" "$cmd $h: the usage"
		expect_out "^  -h, --help " "$cmd $h: the options, -h/--help among them"
	done
	"$BIN" "$cmd" --help >"$TMP/help-$cmd"
	expect_exit 0 "help $cmd" -- "$BIN" help "$cmd"
	expect_same "smtpdiag help $cmd is smtpdiag $cmd --help" "$TMP/out" "$TMP/help-$cmd"
done
for h in -h --help help; do
	expect_exit 0 "smtpdiag $h" -- "$BIN" "$h"
	expect_out "^usage: smtpdiag COMMAND" "smtpdiag $h: the usage"
done
expect_exit 0 "smtpdiag -V" -- "$BIN" -V
expect_out "^smtpdiag [0-9]+\.[0-9]+\.[0-9]+$" "-V: the version"
expect_exit 0 "smtpdiag --version" -- "$BIN" --version
expect_out "^smtpdiag [0-9]+\.[0-9]+\.[0-9]+$" "--version: the version"
expect_out "^License: BSD-2-Clause " "--version: names the licence"
expect_out "^Copyright \(c\) 2025-2026 The smtpdiag authors$" "--version: the copyright"
n=$((n + 1))
if grep -q "^BSD 2-Clause License$" LICENSE && grep -q "^Copyright (c) 2025-2026 The smtpdiag authors$" LICENSE; then
	echo "ok $n - LICENSE holds the BSD 2-Clause licence"; else echo "not ok $n - LICENSE missing or not BSD 2-Clause"; fi
expect_exit 0 "explain -h before a bad value" -- "$BIN" explain -h --bogus
usage_error "smtpdiag help of no command" "unknown command 'bogus'" -- "$BIN" help bogus

# --- misuse: unknown options, missing values, bad values, values to flags
for cmd in explain decode scan serve; do
	usage_error "$cmd --frob" "^smtpdiag: $cmd: unknown option '--frob' \(see 'smtpdiag $cmd --help'\)$" -- "$BIN" "$cmd" --frob samples
	usage_error "$cmd -Z" "^smtpdiag: $cmd: unknown option '-Z'" -- "$BIN" "$cmd" -Z samples
	usage_error "$cmd --frob=1" "unknown option '--frob'" -- "$BIN" "$cmd" --frob=1 samples
done
usage_error "explain --text without a value" "option '--text' needs a value" -- "$BIN" explain --text
usage_error "explain --file without a value" "option '--file' needs a value" -- "$BIN" explain --file
usage_error "decode --format without a value" "option '--format' needs a value" -- "$BIN" decode samples --format
usage_error "scan --format without a value" "option '--format' needs a value" -- "$BIN" scan "$FX/postfix.log" --format
usage_error "scan -j without a value" "option '--jobs' needs a value" -- "$BIN" scan "$FX/postfix.log" -j
for o in listen max-body max-header max-conn timeout threads; do
	usage_error "serve --$o without a value" "option '--$o' needs a value" -- "$BIN" serve --$o
done
usage_error "decode --format xml" "--format takes jsonl or text, not 'xml'" -- "$BIN" decode --format xml samples
usage_error "scan --format=xml" "--format takes jsonl or text, not 'xml'" -- "$BIN" scan --format=xml "$FX/postfix.log"
usage_error "scan --jobs=0" "--jobs takes a number from 1 to 256, not '0'" -- "$BIN" scan --jobs=0 "$FX/postfix.log"
usage_error "scan -j 2x" "--jobs takes a number from 1 to 256, not '2x'" -- "$BIN" scan -j 2x "$FX/postfix.log"
usage_error "serve --threads 0" "--threads takes a number from 1 to 64" -- "$BIN" serve --threads 0
usage_error "serve --timeout=x" "--timeout takes seconds from 1 to 3600" -- "$BIN" serve --timeout=x
usage_error "serve --max-header 10" "--max-header takes a size from 1K to 1M" -- "$BIN" serve --max-header 10
usage_error "serve --max-conn=0" "--max-conn takes a number from 1 to 100000" -- "$BIN" serve --max-conn=0
usage_error "decode --summary=yes" "option '--summary' takes no value" -- "$BIN" decode --summary=yes samples
usage_error "scan --follow=1" "option '--follow' takes no value" -- "$BIN" scan --follow=1 "$FX/postfix.log"
usage_error "explain --json=1" "option '--json' takes no value" -- "$BIN" explain --json=1 431
usage_error "serve --quiet=1" "option '--quiet' takes no value" -- "$BIN" serve --quiet=1
usage_error "serve --max (more than one option)" "ambiguous option '--max'" -- "$BIN" serve --max 1
usage_error "serve with an operand" "unexpected operand 'now'" -- "$BIN" serve now
usage_error "decode without input" "no input given" -- "$BIN" decode --summary
usage_error "smtpdiag --frob" "^smtpdiag: unknown option '--frob' \(see 'smtpdiag --help'\)$" -- "$BIN" --frob
usage_error "smtpdiag frob" "unknown command 'frob'" -- "$BIN" frob
