#!/bin/sh
# --color=auto|always|never, NO_COLOR (https://no-color.org: any non-empty value)
# and TERM=dumb: under auto colour goes only to a terminal that is not dumb and
# only when NO_COLOR is unset or empty; always and never override them all.
. "$(dirname "$0")/lib.sh"
E=$(printf '\033')

# on_tty ENV...: explain 550 with stdout on a pseudo-terminal (script(1)), output in $TMP/out
on_tty() {
	n=$((n + 1))
	env -u NO_COLOR TERM=xterm "$@" script -qec "\"$BIN\" explain 550" /dev/null </dev/null >"$TMP/out" 2>&1
}
# coloured DESCRIPTION / plain DESCRIPTION: the last output has escape codes or none
coloured() { if grep -q "$E\[" "$TMP/out"; then echo "ok $n - $1"; else echo "not ok $n - $1 (no colour)"; fi; }
plain() { if grep -q "$E\[" "$TMP/out"; then echo "not ok $n - $1 (coloured)"; else echo "ok $n - $1"; fi; }

if ! command -v script >/dev/null 2>&1 || ! script -qec true /dev/null </dev/null >/dev/null 2>&1; then
	n=$((n + 1)); echo "ok $n - # SKIP no script(1) to give a terminal"
else
	on_tty; coloured "auto on a terminal: colour"
	on_tty NO_COLOR=1; plain "auto, NO_COLOR=1: none"
	on_tty NO_COLOR=; coloured "auto, NO_COLOR empty: colour"
	on_tty TERM=dumb; plain "auto, TERM=dumb: none"
	n=$((n + 1))
	env -u NO_COLOR TERM=xterm script -qec "\"$BIN\" explain --color=never 550" /dev/null </dev/null >"$TMP/out" 2>&1
	plain "never on a terminal: none"
	n=$((n + 1))
	env -u NO_COLOR TERM=xterm script -qec "\"$BIN\" explain --color=auto 550" /dev/null </dev/null >"$TMP/out" 2>&1
	coloured "--color=auto on a terminal: colour"
fi

# not a terminal
expect_exit 0 "auto, piped" -- env -u NO_COLOR TERM=xterm "$BIN" explain 550
n=$((n + 1)); plain "auto, piped: none"
expect_exit 0 "always, piped" -- env -u NO_COLOR TERM=xterm "$BIN" explain --color=always 550
n=$((n + 1)); coloured "always, piped: colour"
expect_exit 0 "always over NO_COLOR and TERM=dumb" -- env NO_COLOR=1 TERM=dumb "$BIN" explain --color always 550
n=$((n + 1)); coloured "always over NO_COLOR and TERM=dumb: colour"
expect_exit 0 "never" -- env -u NO_COLOR TERM=xterm "$BIN" explain --color=never 550
n=$((n + 1)); plain "never: none"
expect_exit 0 "always with --json" -- "$BIN" explain --color=always --json 550
n=$((n + 1)); plain "--json is never coloured"
expect_exit 2 "a bad WHEN" -- "$BIN" explain --color=sometimes 550
expect_err "--color takes auto, always or never, not 'sometimes'" "a bad WHEN: says what it takes"
expect_lines 1 "a bad WHEN: one line on stderr" err
