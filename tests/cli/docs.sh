#!/bin/sh
# The documentation stays true to the code: reasons, options, commands.
. "$(dirname "$0")/lib.sh"

# every reason of the code is documented with its advice
sed -n 's/^SD_REASON(\([a-z]*\), [01], \([a-z_]*\),.*/\1 \2/p' src/lib/verdict/reasons.def | tr _ - >"$TMP/reasons"
n=$((n + 1))
cnt=$(wc -l <"$TMP/reasons")
if [ "$cnt" -eq 34 ]; then echo "ok $n - 34 reasons in the code"; else echo "not ok $n - $cnt reasons in the code, want 34"; fi
while read -r r a; do
	n=$((n + 1))
	if grep -q "^| \`$r\` | [a-z]* | \`$a\` |" docs/reasons.md; then echo "ok $n - docs/reasons.md: $r"; else
		echo "not ok $n - docs/reasons.md lacks '$r' with advice '$a'"; fi
done <"$TMP/reasons"
# every advice word of the table is documented, and no other
sed -n 's/^SD_ADVICE([a-z_]*, "\([a-z-]*\)".*/\1/p' src/lib/verdict/reasons.def | sort >"$TMP/advice"
sed -n '/^## Advice/,$s/^| `\([a-z-]*\)` |.*/\1/p' docs/reasons.md | sort >"$TMP/advice.md"
n=$((n + 1))
if [ -s "$TMP/advice" ] && cmp -s "$TMP/advice" "$TMP/advice.md"; then echo "ok $n - docs/reasons.md lists the advice words of reasons.def"; else
	echo "not ok $n - the advice words differ: code $(tr '\n' ' ' <"$TMP/advice"), docs $(tr '\n' ' ' <"$TMP/advice.md")"; fi

# The options of each command are those its section of the man page documents.
# --help lists them from the table that parses them (src/cli/opts.c).
help_opts() { # CMD: the options --help lists, -h/--help left out
	"$BIN" "$1" --help | sed -En 's/^  (-[a-zA-Z], |    )(--[a-z][a-z-]*).*/\1\2/p' |
		tr ', ' '\n\n' | grep -vx -e '' -e '-h' -e '--help' | sort -u
}
man_opts() { # CMD: the options tagged (.TP) in the man page's section for CMD
	sed -n "/^\.SS $1\$/,/^\.S[SH] /p" man/smtpdiag.1 | sed -n '/^\.TP/{n;p;}' | sed 's/\\-/-/g' |
		tr ' ",' '\n\n\n' | grep -E '^--?[a-zA-Z][a-z-]*$' | sort -u
}
# accepted OPT CMD: the command parses OPT (given a value or not, it is no unknown option)
accepted() {
	case $1 in --*) set -- "$1=" "$2" ;; *) set -- "$1" "$2" -h ;; esac
	opt=$1; cmd=$2; shift 2
	! timeout 5 "$BIN" "$cmd" "$opt" "$@" </dev/null 2>&1 >/dev/null | grep -Eq "(unknown|ambiguous) option"
}
for cmd in explain decode scan serve store; do
	help_opts "$cmd" >"$TMP/help-$cmd"
	man_opts "$cmd" >"$TMP/man-$cmd"
	n=$((n + 1))
	if [ -s "$TMP/help-$cmd" ]; then echo "ok $n - $cmd --help lists options"; else echo "not ok $n - $cmd --help lists no options"; fi
	for opt in $(cat "$TMP/help-$cmd"); do
		n=$((n + 1))
		if grep -qx -- "$opt" "$TMP/man-$cmd"; then echo "ok $n - man page documents $cmd $opt"; else
			echo "not ok $n - the man page's $cmd section lacks $opt"; fi
	done
	for opt in $(cat "$TMP/man-$cmd"); do
		n=$((n + 1))
		if grep -qx -- "$opt" "$TMP/help-$cmd" && accepted "$opt" "$cmd"; then echo "ok $n - $cmd takes $opt, as the man page says"; else
			echo "not ok $n - the man page documents $cmd $opt, which $cmd --help does not list or $cmd does not take"; fi
	done
done
n=$((n + 1))
if grep -q '^\.BR \\-h ", " \\-\\-help' man/smtpdiag.1; then echo "ok $n - man page documents -h, --help"; else
	echo "not ok $n - man page lacks -h, --help"; fi
