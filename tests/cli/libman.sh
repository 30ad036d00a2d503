#!/bin/sh
# smtpdiag(3) describes the library: every function smtpdiag.h declares is in its synopsis of
# a group, it names no function the header lacks, and its example program builds against the
# header and the library as built, runs, and prints what the page shows under it.
. "$(dirname "$0")/lib.sh"
B=${BUILD:-build}
PAGE=man/smtpdiag.3

# decl_functions: the functions the header declares (comments left out)
decl_functions() {
	awk '{ s = s $0 "\n" } END { while (match(s, /\/\*/)) { e = index(substr(s, RSTART + 2), "*/")
		s = substr(s, 1, RSTART - 1) " " substr(s, RSTART + 2 + e + 1) } printf "%s", s }' include/smtpdiag.h |
		grep -oE '\bsmtpdiag_[a-z0-9_]+[[:space:]]*\(' | sed 's/[[:space:]]*($//' | grep -v '_fn$' | sort -u
}
# page_prototypes: the functions of the page's no-fill synopsis blocks (the lines with a type
# before the name)
page_prototypes() {
	awk '/^\.nf/ { nf = 1; next } /^\.fi/ { nf = 0; next } nf' "$PAGE" |
		grep -oE '^[a-z][a-z0-9_ ]*[ *]smtpdiag_[a-z0-9_]+\(' | grep -oE 'smtpdiag_[a-z0-9_]+' | sort -u
}
decl_functions >"$TMP/h"
page_prototypes >"$TMP/p"
n=$((n + 1))
if [ "$(wc -l <"$TMP/h")" -ge 50 ]; then echo "ok $n - smtpdiag.h declares $(wc -l <"$TMP/h") functions"; else
	echo "not ok $n - only $(wc -l <"$TMP/h") functions found in smtpdiag.h"; fi
for f in $(cat "$TMP/h"); do
	n=$((n + 1))
	if grep -qx "$f" "$TMP/p"; then echo "ok $n - smtpdiag(3) gives $f()"; else
		echo "not ok $n - smtpdiag(3) lacks $f(), which smtpdiag.h declares"; fi
done
# every function the page names (as "name(" or ".BR name ()") is the header's
grep -oE 'smtpdiag_[a-z0-9_]+( \(\)|\()' "$PAGE" | grep -oE 'smtpdiag_[a-z0-9_]+' | sort -u >"$TMP/named"
n=$((n + 1))
extra=$(grep -vxF -f "$TMP/h" "$TMP/named" | grep -v -e '^smtpdiag_\*' | tr '\n' ' ')
if [ -z "$extra" ]; then echo "ok $n - smtpdiag(3) names no function smtpdiag.h lacks"; else
	echo "not ok $n - smtpdiag(3) names functions smtpdiag.h lacks: $extra"; fi

# the example program (.EX/.EE of EXAMPLES, roff escapes undone) and the output shown after it
unman() { sed -e 's/\\-/-/g' -e 's/\\e/\\/g' -e 's/\\&//g'; }
sed -n '/^\.SH EXAMPLES/,/^\.SH /p' "$PAGE" | sed -n '/^\.EX/,/^\.EE/p' | sed '1d;$d' | unman >"$TMP/prog.c"
sed -n '/^\.SH EXAMPLES/,/^\.SH /p' "$PAGE" | sed -n '/^\.EE/,$p' | sed -n '/^\.nf/,/^\.fi/p' | sed '1d;$d' | unman >"$TMP/want"
n=$((n + 1))
if [ -s "$TMP/prog.c" ] && [ -s "$TMP/want" ]; then echo "ok $n - smtpdiag(3) has an example program and its output"; else
	echo "not ok $n - smtpdiag(3) lacks an example program or its output"; fi
if [ -n "${SAN:-}" ]; then
	# a sanitizer build's shared library needs its compiler's runtime: not for a plain cc
	n=$((n + 1)); echo "ok $n - # SKIP building the example against the sanitizer build"
	exit 0
fi
expect_exit 0 "the example of smtpdiag(3) builds (-Wall -Wextra -Werror)" -- \
	cc -std=c11 -Wall -Wextra -Werror -Iinclude "$TMP/prog.c" -o "$TMP/prog" -L"$B" -lsmtpdiag
expect_exit 0 "and runs" -- env LD_LIBRARY_PATH="$B" "$TMP/prog" samples/bounces/postfix-userunknown.eml
expect_same "and prints what smtpdiag(3) shows" "$TMP/want" "$TMP/out"
