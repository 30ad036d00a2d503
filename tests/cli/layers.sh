#!/bin/sh
# The layers of src/lib stay as docs/design.md draws them: every #include of a
# library file names a folder its table row allows, the table has no cycle,
# no source file sits at the top of src/lib, and the front ends include only
# the public header and their own files.
. "$(dirname "$0")/lib.sh"

ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; }

# "folder<TAB>allowed folders" from the table rows of docs/design.md
awk -F'|' '/^\| folder \| owns \| may include \|/ { on = 1; next }
	on && /^\|---/ { next }
	on && /^\|/ { f = $2; a = $4; gsub(/^ +| +$/, "", f); gsub(/^ +| +$/, "", a); print f "\t" a; next }
	on { exit }' docs/design.md >"$TMP/rules"

rows=$(wc -l <"$TMP/rules")
if [ "$rows" -ge 8 ]; then ok "docs/design.md lists $rows folders"; else notok "layer table has $rows rows"; fi

# every folder with sources has a row and a README, and every row a folder
for d in $(cd src/lib && find . -mindepth 1 -type d | sed 's|^\./||' | sort); do
	if grep -q "^$d	" "$TMP/rules"; then ok "src/lib/$d has a layer row"; else notok "src/lib/$d has no row in docs/design.md"; fi
	if [ -f "src/lib/$d/README.md" ]; then ok "src/lib/$d has a README"; else notok "src/lib/$d has no README.md"; fi
done
cut -f1 "$TMP/rules" | while read -r d; do
	[ -d "src/lib/$d" ] || echo "$d"
done >"$TMP/nodir"
if [ -s "$TMP/nodir" ]; then notok "table rows without a folder: $(tr '\n' ' ' <"$TMP/nodir")"; else ok "every table row is a folder"; fi

top=$(find src/lib -maxdepth 1 -type f \( -name '*.c' -o -name '*.h' \) | wc -l)
if [ "$top" -eq 0 ]; then ok "no source file at the top of src/lib"; else notok "$top source files at the top of src/lib"; fi

# each include of each library file: "file<TAB>its folder<TAB>included folder"
for f in $(find src/lib -name '*.[ch]' -o -name '*.def' | sort); do
	d=$(dirname "${f#src/lib/}")
	sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$f" | while read -r inc; do
		[ "$inc" = smtpdiag.h ] && continue
		case "$inc" in */*) printf '%s\t%s\t%s\n' "$f" "$d" "${inc%/*}" ;;
		*) printf '%s\t%s\t%s\n' "$f" "$d" "(no folder: $inc)" ;; esac
	done
done >"$TMP/incs"

awk -F'\t' 'NR == FNR { split($2, a, " "); for (i in a) ok[$1 " " a[i]] = 1; next }
	!(($2 " " $3) in ok) { print $1 " includes " $3 }' "$TMP/rules" "$TMP/incs" >"$TMP/bad"
if [ -s "$TMP/bad" ]; then
	notok "includes outside the layer table: $(wc -l <"$TMP/bad")"
	sed 's/^/#   /' "$TMP/bad" | head -20
else
	ok "$(wc -l <"$TMP/incs") includes in src/lib, all within the layer table"
fi

# no cycle among the folders: repeatedly drop folders that include no other remaining folder
awk -F'\t' '{ n = split($2, a, " "); for (i = 1; i <= n; i++) if (a[i] != $1) dep[$1] = dep[$1] " " a[i]; left[$1] = 1 }
	END {
		do {
			changed = 0
			for (f in left) {
				blocked = 0; m = split(dep[f], b, " ")
				for (i = 1; i <= m; i++) if (b[i] in left) blocked = 1
				if (!blocked) { delete left[f]; changed = 1 }
			}
		} while (changed)
		for (f in left) print f
	}' "$TMP/rules" >"$TMP/cycle"
if [ -s "$TMP/cycle" ]; then notok "folders in a cycle: $(tr '\n' ' ' <"$TMP/cycle")"; else ok "the layer table has no cycle"; fi

# the front ends use the public API only
grep -Hn '^[ \t]*#[ \t]*include[ \t]*"' src/cli/*.[ch] src/httpd/*.[ch] |
	grep -v -e '"smtpdiag.h"' -e '"[a-z_]*\.h"' -e 'src/cli/[a-z_]*\.c:[0-9]*:#include "\.\./httpd/httpd.h"' >"$TMP/fe"
if [ -s "$TMP/fe" ]; then
	notok "front ends include library internals"
	sed 's/^/#   /' "$TMP/fe" | head
else
	ok "src/cli and src/httpd include only smtpdiag.h and their own headers"
fi

# the check itself can fail: an include from core into decode is caught
printf 'src/lib/core/x.c\tcore\tdecode\n' >"$TMP/incs"
awk -F'\t' 'NR == FNR { split($2, a, " "); for (i in a) ok[$1 " " a[i]] = 1; next }
	!(($2 " " $3) in ok) { print }' "$TMP/rules" "$TMP/incs" >"$TMP/bad"
if [ -s "$TMP/bad" ]; then ok "an include from core into decode would be refused"; else notok "the include check accepts core -> decode"; fi
