#!/bin/sh
# The documentation stays true to the code: reasons, options, commands.
. "$(dirname "$0")/lib.sh"

# every reason of the code is documented with its advice
sed -n 's/^SD_REASON(\([a-z]*\), [01], "\([^"]*\)".*/\1 \2/p' src/lib/verdict/reasons.def >"$TMP/reasons"
n=$((n + 1))
cnt=$(wc -l <"$TMP/reasons")
if [ "$cnt" -eq 34 ]; then echo "ok $n - 34 reasons in the code"; else echo "not ok $n - $cnt reasons in the code, want 34"; fi
while read -r r a; do
	n=$((n + 1))
	if grep -q "^| \`$r\` | [a-z]* | \`$a\` |" docs/reasons.md; then echo "ok $n - docs/reasons.md: $r"; else
		echo "not ok $n - docs/reasons.md lacks '$r' with advice '$a'"; fi
done <"$TMP/reasons"

# every long option of every command's --help is in the man page
for cmd in explain decode scan serve; do
	"$BIN" "$cmd" --help >"$TMP/help" 2>/dev/null || continue
	for opt in $(grep -oE -- '--[a-z][a-z-]+' "$TMP/help" | sort -u); do
		n=$((n + 1))
		if grep -q -- "$(printf '%s' "$opt" | sed 's/-/\\\\-/g')" man/smtpdiag.1 || grep -q -- "$opt" man/smtpdiag.1; then
			echo "ok $n - man page documents $cmd $opt"
		else
			echo "not ok $n - man page lacks $cmd $opt"
		fi
	done
done
