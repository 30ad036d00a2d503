#!/bin/sh
# make install honours PREFIX and DESTDIR; a program builds against the
# installed header, pkg-config file and shared library, and runs.
. "$(dirname "$0")/lib.sh"
B=${BUILD:-build}

expect_exit 0 "make install into a staging directory" -- make --no-print-directory BUILD="$B" install DESTDIR="$TMP/stage" PREFIX=/opt/sd
for f in bin/smtpdiag include/smtpdiag.h lib/libsmtpdiag.a lib/libsmtpdiag.so.0 lib/pkgconfig/smtpdiag.pc share/man/man1/smtpdiag.1 share/man/man3/smtpdiag.3 share/doc/smtpdiag/LICENSE; do
	n=$((n + 1))
	if [ -e "$TMP/stage/opt/sd/$f" ]; then echo "ok $n - installed $f"; else echo "not ok $n - $f not installed"; fi
done
n=$((n + 1))
if grep -q '^Description: .*(BSD-2-Clause)$' "$TMP/stage/opt/sd/lib/pkgconfig/smtpdiag.pc"; then echo "ok $n - pkg-config names the licence"; else echo "not ok $n - pkg-config lacks the licence"; fi
n=$((n + 1))
if grep -q '^prefix=/opt/sd$' "$TMP/stage/opt/sd/lib/pkgconfig/smtpdiag.pc"; then echo "ok $n - pkg-config prefix"; else echo "not ok $n - pkg-config prefix"; fi
expect_exit 0 "make install with a LIBDIR" -- make --no-print-directory BUILD="$B" install DESTDIR="$TMP/multi" PREFIX=/usr LIBDIR=/usr/lib/x-linux-gnu
for f in usr/lib/x-linux-gnu/libsmtpdiag.so.0 usr/lib/x-linux-gnu/libsmtpdiag.a usr/lib/x-linux-gnu/pkgconfig/smtpdiag.pc usr/bin/smtpdiag; do
	n=$((n + 1))
	if [ -e "$TMP/multi/$f" ]; then echo "ok $n - LIBDIR: installed $f"; else echo "not ok $n - LIBDIR: $f not installed"; fi
done
n=$((n + 1))
if grep -q '^libdir=/usr/lib/x-linux-gnu$' "$TMP/multi/usr/lib/x-linux-gnu/pkgconfig/smtpdiag.pc"; then echo "ok $n - pkg-config libdir is LIBDIR"; else echo "not ok $n - pkg-config libdir is not LIBDIR"; fi
n=$((n + 1))
if objdump -p "$TMP/stage/opt/sd/lib/libsmtpdiag.so.0" 2>/dev/null | grep -q 'SONAME *libsmtpdiag.so.0'; then echo "ok $n - SONAME"; else echo "not ok $n - SONAME"; fi

cat >"$TMP/use.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <smtpdiag.h>
int main(void)
{
	smtpdiag_explanation *e;
	smtpdiag_error err;
	if (smtpdiag_explain("431", 3, SMTPDIAG_EXPLAIN_CODE, &e, &err) != 0)
		return 1;
	printf("%s %d %s\n", smtpdiag_class_name(e->klass), e->standard, smtpdiag_version());
	smtpdiag_explanation_free(e);
	return 0;
}
C
P="$TMP/stage/opt/sd"
if [ -n "${SAN:-}" ]; then
	# a sanitizer build's shared library needs its compiler's runtime: not for a plain cc
	n=$((n + 1)); echo "ok $n - # SKIP linking a plain program to the sanitizer build"
	exit 0
fi
expect_exit 0 "a program builds against the installed library" -- \
	cc -I"$P/include" "$TMP/use.c" -o "$TMP/use" -L"$P/lib" -lsmtpdiag
expect_exit 0 "and runs" -- env LD_LIBRARY_PATH="$P/lib" "$TMP/use"
expect_out '^transient 0 0\.1\.0$' "through the public API"
