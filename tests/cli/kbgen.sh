#!/bin/sh
# The knowledge-base compiler refuses bad vendor rows, naming file and line.
. "$(dirname "$0")/lib.sh"
KBGEN=${BUILD:-build}/kbgen

expect_exit 0 "the knowledge base as shipped compiles" -- "$KBGEN" -o /dev/null kb/reference kb/entries/*.kb

# a row repeated (same vendor, code and text) is refused with both lines named
cp -r kb/reference "$TMP/ref"
sed -n 2p kb/reference/vendor-enhanced-codes.tsv >>"$TMP/ref/vendor-enhanced-codes.tsv"
last=$(wc -l <"$TMP/ref/vendor-enhanced-codes.tsv")
expect_exit 1 "a duplicate vendor row fails the build" -- "$KBGEN" -o "$TMP/out.c" "$TMP/ref" kb/entries/*.kb
expect_err "vendor-enhanced-codes.tsv:$last: duplicate of line 2" "the duplicate is named by file and line"

# a reason that verdict does not know is refused
cp kb/reference/vendor-enhanced-codes.tsv "$TMP/ref/vendor-enhanced-codes.tsv"
awk -F'\t' 'BEGIN { OFS = "\t" } NR == 3 { $11 = "nosuchreason" } { print }' kb/reference/vendor-enhanced-codes.tsv \
	>"$TMP/ref/vendor-enhanced-codes.tsv"
expect_exit 1 "an unknown reason fails the build" -- "$KBGEN" -o "$TMP/out.c" "$TMP/ref" kb/entries/*.kb
expect_err "vendor-enhanced-codes.tsv:3: reason 'nosuchreason'" "the unknown reason is named by line"

# a row whose action (the fix explain prints) names another side than its advice is refused
awk -F'\t' 'BEGIN { OFS = "\t" } NR == 3 { $6 = "fix-sender-config" } { print }' kb/reference/vendor-enhanced-codes.tsv \
	>"$TMP/ref/vendor-enhanced-codes.tsv"
expect_exit 1 "an action that disagrees with the advice fails the build" -- "$KBGEN" -o "$TMP/out.c" "$TMP/ref" kb/entries/*.kb
expect_err "vendor-enhanced-codes.tsv:3: action 'fix-sender-config' disagrees with advice 'retry'" \
	"the disagreeing row is named by line"
# "other" leaves the fix to the advice
awk -F'\t' 'BEGIN { OFS = "\t" } NR == 3 { $6 = "other" } { print }' kb/reference/vendor-enhanced-codes.tsv \
	>"$TMP/ref/vendor-enhanced-codes.tsv"
expect_exit 0 "an action 'other' agrees with any advice" -- "$KBGEN" -o "$TMP/out.c" "$TMP/ref" kb/entries/*.kb
