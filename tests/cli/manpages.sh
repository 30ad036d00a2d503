#!/bin/sh
# The man pages render without a warning (man-db's man and groff, the packages groff-base
# and man-db), and no request sits inside a no-fill block (a stray .TP there breaks it).
. "$(dirname "$0")/lib.sh"

need man groff

for f in man/*.[0-9]; do
	n=$((n + 1))
	MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l "$f" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" -eq 0 ] && [ ! -s "$TMP/err" ] && [ -s "$TMP/out" ]; then echo "ok $n - man --warnings -l $f: no warning"; else
		echo "not ok $n - man --warnings -l $f: exit $rc"; head -5 "$TMP/err" | sed 's/^/#   /'; fi
	n=$((n + 1))
	groff -ww -man -z "$f" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" -eq 0 ] && [ ! -s "$TMP/err" ]; then echo "ok $n - groff -ww -man -z $f: no warning"; else
		echo "not ok $n - groff -ww -man -z $f: exit $rc"; head -5 "$TMP/err" | sed 's/^/#   /'; fi
	# between .nf and .fi (.EX and .EE) every line is text: a request there is a mistake
	n=$((n + 1))
	bad=$(awk '/^\.(nf|EX)/ { nf = 1; next } /^\.(fi|EE)/ { nf = 0; next }
		nf && /^[.\047]/ && !/^\.\\"/ { print FILENAME ":" FNR ": " $0 }
		END { if (nf) print FILENAME ": a no-fill block is not closed" }' "$f")
	if [ -z "$bad" ]; then echo "ok $n - $f: no request inside a no-fill block"; else
		echo "not ok $n - $f: a request inside a no-fill block"; printf '%s\n' "$bad" | head -5 | sed 's/^/#   /'; fi
done

# the check catches what it is for: the EXAMPLES block with a stray .TP
printf '.TH X 1\n.SH EXAMPLES\n.nf\nsmtpdiag explain 431\n.TP\nsmtpdiag decode x\n.fi\n' >"$TMP/x.1"
n=$((n + 1))
if awk '/^\.nf/ { nf = 1; next } /^\.fi/ { nf = 0; next } nf && /^\./ { bad = 1 } END { exit !bad }' "$TMP/x.1"; then
	echo "ok $n - a stray .TP in a no-fill block is caught"; else echo "not ok $n - a stray .TP in a no-fill block is not caught"; fi
