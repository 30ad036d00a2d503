#!/bin/sh
# tools/install-deps.sh installs in tiers: `build` (compiling the library and the CLI,
# and `make run`) and `test` (what `make check` adds); `make run` asks for the build
# tier only, `make check` for both. Every package has a comment on its line saying why, and
# every library the Makefile asks pkg-config for comes from a build-tier package.
. "$(dirname "$0")/lib.sh"
DEPS=tools/install-deps.sh

expect_exit 0 "--list build lists the build tier" -- sh "$DEPS" --list build
cp "$TMP/out" "$TMP/build"
expect_out '^build-essential$' "the build tier has the compiler"
expect_exit 0 "--list test lists the test tier" -- sh "$DEPS" --list test
cp "$TMP/out" "$TMP/test"
expect_out '^libcmocka-dev$' "the test tier has cmocka"
expect_exit 0 "--list (all) lists both tiers" -- sh "$DEPS" --list
sort "$TMP/build" "$TMP/test" >"$TMP/both"
sort "$TMP/out" >"$TMP/all"
expect_same "all is the build tier and the test tier" "$TMP/both" "$TMP/all"
expect_exit 0 "--list all is the default" -- sh "$DEPS" --list all
sort "$TMP/out" >"$TMP/all2"
expect_same "--list all is --list" "$TMP/all" "$TMP/all2"
expect_exit 2 "an unknown tier is refused" -- sh "$DEPS" --list nosuch
expect_err 'usage' "with the usage"
BENCH=1 sh "$DEPS" --list build >"$TMP/out"
expect_out '^wrk$' "BENCH=1 adds the benchmark packages"

ok_if "$([ -z "$(sort "$TMP/build" "$TMP/test" | uniq -d)" ] && echo 1)" "no package is in both tiers"
for p in clang libclang-rt-dev libcmocka-dev curl jq postgresql groff-base man-db; do
	ok_if "$(grep -qx "$p" "$TMP/build" || echo 1)" "$p (a test tool) is not in the build tier"
done
for p in $(cat "$TMP/all") $(BENCH=1 sh "$DEPS" --list test); do
	ok_if "$(grep -Eq "^$p[[:space:]]+# [^ ]" "$DEPS" && echo 1)" "$p has a comment saying why"
done

ok_if "$(grep -q '^run: deps-build$' Makefile && echo 1)" "make run depends on the build tier only"
ok_if "$(grep -q '^check: deps$' Makefile && echo 1)" "make check depends on both tiers"
ok_if "$(grep -A1 '^deps-build:' Makefile | grep -q 'install-deps.sh build$' && echo 1)" "deps-build installs the build tier"
ok_if "$(grep -A1 '^deps:' Makefile | grep -q 'install-deps.sh all$' && echo 1)" "deps installs both tiers"

# each pkg-config module of the build comes from a package of the build tier
if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v pkg-config >/dev/null 2>&1; then
	if [ -n "${CI:-}" ]; then
		echo "not ok $((n + 1)) - dpkg-query or pkg-config missing: cannot check the build tier's libraries"
		exit 1
	fi
	echo "ok $((n + 1)) - # SKIP not a Debian system with pkg-config: the build tier's libraries are not checked"
	exit 0
fi
mods=$(sed -n 's/^PKGS *= *//p' Makefile)
ok_if "$([ -n "$mods" ] && echo 1)" "the Makefile names its pkg-config modules"
for m in $mods; do
	pc=$(pkg-config --path "$m" 2>/dev/null)
	pkg=""
	[ -n "$pc" ] && pkg=$(dpkg-query -S "$(readlink -f "$pc")" 2>/dev/null | sed 's/[:,].*//' | head -n 1)
	[ -n "$pkg" ] || pkg=$(dpkg-query -S "$pc" 2>/dev/null | sed 's/[:,].*//' | head -n 1)
	ok_if "$([ -n "$pkg" ] && grep -qx "$pkg" "$TMP/build" && echo 1)" "pkg-config module $m (${pkg:-no package}) is in the build tier"
done
