#!/bin/sh
# The examples of the documentation are what the program prints now.
#
# An example is a line "$ smtpdiag ..." in an indented code block of README.md, or in an
# .nf/.fi block of the EXAMPLES section of a man page (man/*.1, man/*.3). The lines under
# it, up to the next "$ " line or the end of its block, are the output it shows (stdout).
# Each example runs with sh from the top of the repository, in the order written, with
# smtpdiag first in PATH and SMTPDIAG_STORE a store of its own for the file's examples
# (so `store` examples see what the ones before them recorded), and must exit 0. Its
# output is compared line by line, trailing blanks (and a CSV line's CR) ignored:
#   ...          alone on a line: any number of lines (none too), up to one that matches
#                the next line shown, or to the end of the output when it is the last
#   TEXT ...     a line ending in a blank and three dots: a line that starts with TEXT
# A command line without "$ " is an illustration and is not run.
. "$(dirname "$0")/lib.sh"

BIN_ABS=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
mkdir -p "$TMP/bin"
ln -s "$BIN_ABS" "$TMP/bin/smtpdiag"

# extract FILE KIND: write $TMP/ex/N.cmd, N.want and N.where for each example of FILE
extract() {
	rm -rf "$TMP/ex"
	mkdir -p "$TMP/ex"
	awk -v kind="$2" -v file="$1" -v dir="$TMP/ex" '
	function unman(s) { # the roff escapes an example line uses
		gsub(/\\-/, "-", s); gsub(/\\\(dq/, "\"", s); gsub(/\\\(aq/, "\047", s)
		gsub(/\\&/, "", s); gsub(/\\e/, "\\", s); return s
	}
	function close_ex() { if (cur) { close(dir "/" cur ".want"); cur = "" } }
	function line(s) {
		if (s ~ /^\$ smtpdiag( |$)/) {
			close_ex(); cnt++; cur = cnt
			print substr(s, 3) > (dir "/" cur ".cmd"); close(dir "/" cur ".cmd")
			print file ":" NR > (dir "/" cur ".where"); close(dir "/" cur ".where")
			printf "" > (dir "/" cur ".want")
		} else if (s ~ /^\$ /) {
			close_ex()
		} else if (cur) {
			print s > (dir "/" cur ".want")
		}
	}
	kind == "md" {
		if ($0 ~ /^    / || ($0 ~ /^[ \t]*$/ && cur)) { line(substr($0, 5)); next }
		close_ex(); next
	}
	kind == "man" {
		if ($0 ~ /^\.SH /) { inex = ($0 ~ /^\.SH "?EXAMPLES"?/); close_ex(); nf = 0; next }
		if (!inex) next
		if ($0 ~ /^\.(nf|EX)/) { nf = 1; next }
		if ($0 ~ /^\.(fi|EE)/) { nf = 0; close_ex(); next }
		if (nf && $0 !~ /^[.\047]/) line(unman($0))
	}
	END { close_ex() }' "$1"
}

# matches WANT GOT: the output GOT is what WANT shows (the conventions above)
matches() {
	awk '
	function same(w, g) {
		sub(/[ \t\r]+$/, "", w); sub(/[ \t\r]+$/, "", g)
		if (w ~ / \.\.\.$/) { w = substr(w, 1, length(w) - 4); return substr(g, 1, length(w)) == w }
		return w == g
	}
	NR == FNR { sub(/[ \t\r]+$/, ""); want[++m] = $0; next }
	{ got[++k] = $0 }
	END {
		while (m > 0 && want[m] == "") m--
		while (k > 0 && got[k] ~ /^[ \t]*$/) k--
		i = 1; j = 1
		while (i <= m) {
			if (want[i] == "...") {
				if (i == m) exit 0
				while (j <= k && !same(want[i + 1], got[j])) j++
				if (j > k) { print "# nothing matches line " i + 1 " shown: " want[i + 1]; exit 1 }
				i++; continue
			}
			if (j > k) { print "# the output ends before line " i " shown: " want[i]; exit 1 }
			if (!same(want[i], got[j])) {
				print "# line " i " shown:  " want[i]; print "# line " j " printed: " got[j]; exit 1
			}
			i++; j++
		}
		if (j <= k) { print "# the output goes on after the lines shown: " got[j]; exit 1 }
	}' "$1" "$2"
}

for f in README.md man/*.[0-9]; do
	case $f in *.md) kind=md ;; *) kind=man ;; esac
	extract "$f" "$kind"
	store="$TMP/store-$(basename "$f").db"
	cnt=0
	for c in $(ls "$TMP/ex" | sed -n 's/\.cmd$//p' | sort -n); do
		cnt=$((cnt + 1))
		cmd=$(cat "$TMP/ex/$c.cmd")
		where=$(cat "$TMP/ex/$c.where")
		PATH="$TMP/bin:$PATH" SMTPDIAG_STORE="sqlite:$store" timeout 60 sh -c "$cmd" >"$TMP/got" 2>"$TMP/err" </dev/null
		rc=$?
		n=$((n + 1))
		if [ "$rc" -ne 0 ]; then
			echo "not ok $n - $where: \$ $cmd exits $rc"; sed 's/^/#   /' "$TMP/err" | head -3
		elif out=$(matches "$TMP/ex/$c.want" "$TMP/got"); then
			echo "ok $n - $where: \$ $cmd"
		else
			echo "not ok $n - $where: \$ $cmd prints other than shown"; printf '%s\n' "$out"
		fi
	done
	# a file that documents the program shows some examples
	n=$((n + 1))
	case $f in
	README.md) want=8 ;; *.1) want=3 ;; *) want=0 ;;
	esac
	if [ "$cnt" -ge "$want" ]; then echo "ok $n - $f: $cnt examples run"; else
		echo "not ok $n - $f: $cnt examples run, want $want at least"; fi
done

# the conventions work: a shown output that differs is caught, elisions and prefixes pass
printf 'a\n...\nd\ne ...\n' >"$TMP/w"
printf 'a\nb\nc\nd\ne and more\n' >"$TMP/g"
n=$((n + 1))
if matches "$TMP/w" "$TMP/g" >/dev/null; then echo "ok $n - '...' and 'TEXT ...' match"; else echo "not ok $n - '...' and 'TEXT ...' do not match"; fi
printf 'a\nb\n' >"$TMP/w"
printf 'a\nc\n' >"$TMP/g"
n=$((n + 1))
if matches "$TMP/w" "$TMP/g" >/dev/null; then echo "not ok $n - a different line matches"; else echo "ok $n - a different line is caught"; fi
printf 'a\n' >"$TMP/g2"
printf 'a\nb\n' >"$TMP/w"
n=$((n + 1))
if matches "$TMP/w" "$TMP/g2" >/dev/null; then echo "not ok $n - a shorter output matches"; else echo "ok $n - a shorter output is caught"; fi
n=$((n + 1))
if matches "$TMP/g2" "$TMP/w" >/dev/null; then echo "not ok $n - a longer output matches"; else echo "ok $n - a longer output is caught"; fi
