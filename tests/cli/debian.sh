#!/bin/sh
# The Debian packaging (debian/) and the Containerfile, without building a package:
# the symbols file of libsmtpdiag0 lists exactly what the shared library exports,
# the dlopen'd libraries become dependencies through dpkg-shlibdeps, the units
# make install puts in UNITDIR are taken by a wildcard, and the Containerfile check catches a root user.
# (make deb-check builds, lints and installs the packages.)
. "$(dirname "$0")/lib.sh"
B=${BUILD:-build}
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; }

expect_exit 0 "the shared library builds" -- make --no-print-directory BUILD="$B" all
# exported by the library / listed in the symbols file
nm -D --defined-only "$B/libsmtpdiag.so" | awk '$2 == "T" || $2 == "D" || $2 == "R" || $2 == "B" { print $3 }' | sort >"$TMP/exp"
sed -n 's/^ \([A-Za-z_0-9]*\)@Base .*/\1/p' debian/libsmtpdiag0.symbols | sort >"$TMP/sym"
if [ -s "$TMP/exp" ] && cmp -s "$TMP/exp" "$TMP/sym"; then ok "debian/libsmtpdiag0.symbols lists the $(wc -l <"$TMP/exp") exported symbols"; else
	notok "debian/libsmtpdiag0.symbols differs from the exports: $(diff "$TMP/exp" "$TMP/sym" | grep '^[<>]' | head -5 | tr '\n' ' ')"; fi
if grep -q '^libsmtpdiag.so.0 libsmtpdiag0 ' debian/libsmtpdiag0.symbols; then ok "the symbols file names libsmtpdiag0"; else notok "the symbols file names libsmtpdiag0"; fi

# the run-time libraries as dependencies: debian/dlopen-deps.sh over the build's SONAMEs
if command -v dpkg-shlibdeps >/dev/null 2>&1; then
	s() { sed -n "s/^#define $1 \"\(.*\)\"$/\1/p" "$B/gen/sd_sonames.h"; }
	expect_exit 0 "dlopen-deps.sh runs" -- sh debian/dlopen-deps.sh "$TMP/subst" "${CC:-cc}" \
		Depends "$(s SD_MHD_SONAME)" "$(s SD_HOGWEED_SONAME)" -- Recommends "$(s SD_PQ_SONAME)" "$(s SD_CURL_SONAME)"
	for p in "Depends=.*libmicrohttpd" "Depends=.*libhogweed" "Recommends=.*libpq" "Recommends=.*libcurl"; do
		if grep -q "^dlopen:$p" "$TMP/subst" 2>/dev/null; then ok "dlopen:$p"; else notok "no dlopen:$p in $(cat "$TMP/subst" 2>/dev/null)"; fi
	done
	if grep -q 'libc6' "$TMP/subst"; then notok "libc6 is left out"; else ok "libc6 is left out"; fi
	expect_exit 1 "a SONAME no file has fails" -- sh debian/dlopen-deps.sh "$TMP/subst2" "${CC:-cc}" Depends libnone.so.9
elif [ "${CI:-}" = true ]; then
	notok "dpkg-shlibdeps missing (dpkg-dev, tools/install-deps.sh)"
else
	ok "# SKIP dpkg-shlibdeps missing (dpkg-dev)"
fi
grep -q 'dlopen:Depends' debian/control && grep -q 'dlopen:Recommends' debian/control &&
	ok "debian/control uses the dlopen substvars" || notok "debian/control lacks the dlopen substvars"
grep -qx 'usr/lib/systemd/system/\*' debian/smtpdiag.install &&
	ok "the smtpdiag package takes every unit make install puts in UNITDIR" || notok "debian/smtpdiag.install does not take usr/lib/systemd/system/*"
grep -q '^License: BSD-2-Clause$' debian/copyright && grep -q '^Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' debian/copyright &&
	ok "debian/copyright: machine-readable, BSD-2-Clause" || notok "debian/copyright"

# the Containerfile check: passes on ours, fails on a root user, a missing health check
expect_exit 0 "the Containerfile passes its check" -- sh tools/containerfile-lint.sh Containerfile
sed 's/^USER .*/USER root/' Containerfile >"$TMP/cf-root"
expect_exit 1 "a root USER fails the check" -- sh tools/containerfile-lint.sh "$TMP/cf-root"
grep -v '^HEALTHCHECK' Containerfile >"$TMP/cf-nohc"
expect_exit 1 "no HEALTHCHECK fails the check" -- sh tools/containerfile-lint.sh "$TMP/cf-nohc"

# the Debian root make deb-check leaves in build/deb (folders named *.d) does not break make
mkdir -p "$B/deb/minbase-test/etc/rc2.d"
expect_exit 0 "make reads no *.d folder of build/deb" -- make -n --no-print-directory BUILD="$B" tests
rm -rf "$B/deb/minbase-test"
