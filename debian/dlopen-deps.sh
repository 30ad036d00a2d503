#!/bin/sh
# dlopen-deps.sh SUBSTVARS CC FIELD SONAME... [-- FIELD SONAME...]: for each
# FIELD, a program linked to the libraries of those SONAMEs (as CC finds them)
# is read by dpkg-shlibdeps; its dependencies, less libc6, are written to
# SUBSTVARS as dlopen:FIELD. A SONAME that no package provides fails the build.
set -eu
out=$1 cc=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo 'int main(void) { return 0; }' >"$tmp/m.c"
while [ $# -gt 0 ]; do
	field=$1
	shift
	libs=""
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		path=$($cc -print-file-name="$1")
		case $path in /*) ;; *) echo "dlopen-deps.sh: $1 not found" >&2; exit 1 ;; esac
		libs="$libs $path"
		shift
	done
	[ $# -gt 0 ] && shift
	$cc -o "$tmp/$field" "$tmp/m.c" -Wl,--no-as-needed $libs
	dpkg-shlibdeps -O -xlibc6 -e"$tmp/$field" 2>/dev/null | sed -n "s/^shlibs:Depends=/dlopen:$field=/p" >>"$out"
	grep -q "^dlopen:$field=." "$out" || { echo "dlopen-deps.sh: no package for$libs" >&2; exit 1; }
done
