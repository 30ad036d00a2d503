#!/bin/sh
# The libraries smtpdiag opens at run time (libmicrohttpd, libhogweed, libpq,
# libcurl)
# are named by their SONAMEs as the build read them (tools/sonames.sh), never
# by a name written in the source: the header the build made holds the
# installed libraries' SONAMEs, the binary carries exactly those, and the
# generator fails the build when a library is missing.
. "$(dirname "$0")/lib.sh"
HDR=${BUILD:-build}/gen/sd_sonames.h

ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; }

# installed LIB: the SONAME of the library the dynamic loader has for libLIB.so.*
installed() {
	path=$(ldconfig -p 2>/dev/null | awk -v l="lib$1.so." 'index($1, l) == 1 { print $NF; exit }')
	[ -n "$path" ] || path=$(${CC:-cc} -print-file-name="lib$1.so")
	objdump -p "$path" 2>/dev/null | awk '$1 == "SONAME" { print $2; exit }'
}

if ! command -v objdump >/dev/null 2>&1; then
	echo "ok 1 - # SKIP objdump missing (package binutils)"
	exit 0
fi
for pair in microhttpd:SD_MHD_SONAME hogweed:SD_HOGWEED_SONAME pq:SD_PQ_SONAME curl:SD_CURL_SONAME; do
	lib=${pair%%:*} macro=${pair#*:}
	want=$(installed "$lib")
	got=$(sed -n "s/^#define $macro \"\(.*\)\"$/\1/p" "$HDR")
	if [ -n "$want" ] && [ "$got" = "$want" ]; then ok "$macro is the installed lib$lib's SONAME $want"; else
		notok "$macro is '$got', the installed lib$lib's SONAME is '$want'"; fi
	if [ -n "$want" ] && grep -aqF "$want" "$BIN"; then ok "the binary names $want"; else
		notok "the binary does not name $want"; fi
done

# no library name is written in the source: every dlopen takes a generated name
grep -rnE '"lib[a-z0-9_+-]+\.so(\.[0-9]+)*"' src >"$TMP/lit"
if [ -s "$TMP/lit" ]; then notok "library names written in the source: $(head -3 "$TMP/lit" | tr '\n' ' ')"; else
	ok "no library name is written in the source"; fi
grep -rn 'dlopen(' src | grep -v 'SONAME' | grep -v '^[^:]*:[0-9]*: *\*' >"$TMP/dl"
if [ -s "$TMP/dl" ]; then notok "dlopen without a generated name: $(head -3 "$TMP/dl" | tr '\n' ' ')"; else
	ok "every dlopen takes a name from the build"; fi

# a library the build cannot find fails it, naming the library
mkdir -p "$TMP/bin"
printf '#!/bin/sh\ncase "$1" in -print-file-name=libpq.so) echo libpq.so ;; *) exec %s "$@" ;; esac\n' \
	"${CC:-cc}" >"$TMP/bin/cc"
chmod +x "$TMP/bin/cc"
expect_exit 1 "a missing library fails the generator" -- env CC="$TMP/bin/cc" sh tools/sonames.sh "$TMP/h"
expect_err "libpq.so not found" "the missing library is named"
if [ -e "$TMP/h" ]; then notok "a failed run leaves no header"; else ok "a failed run leaves no header"; fi
