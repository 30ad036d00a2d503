#!/bin/sh
# deb.sh build OUT: the Debian packages (debian/), built by dpkg-buildpackage -us -uc -b
# on a copy of the tree's files (tracked and untracked, not ignored) in OUT/src, then
# copied to OUT. deb.sh check OUT: lintian --fail-on error over them, then the install
# test on a new Debian root (tools/deb-root-check.sh), then the container
# (tools/container-check.sh).
set -eu
cmd=${1:?usage: deb.sh build|check OUT}
out=${2:?usage: deb.sh build|check OUT}
say() { echo "deb: $*"; }
die() { say "$*" >&2; exit 1; }

build() {
	for t in dpkg-buildpackage dh fakeroot; do
		command -v $t >/dev/null 2>&1 || die "$t missing (packages dpkg-dev, debhelper, fakeroot: tools/install-deps.sh)"
	done
	ver=$(dpkg-parsechangelog -S Version)
	rm -rf "$out"
	mkdir -p "$out/src/smtpdiag-$ver"
	git ls-files -z -c -o --exclude-standard | xargs -0 cp --parents -d -t "$out/src/smtpdiag-$ver"
	(cd "$out/src/smtpdiag-$ver" && dpkg-buildpackage -us -uc -b -j2) >"$out/build.log" 2>&1 ||
		{ tail -n 40 "$out/build.log"; die "dpkg-buildpackage failed (log: $out/build.log)"; }
	cp "$out"/src/*.deb "$out"/src/*.changes "$out"/src/*.buildinfo "$out/"
	# the units of systemd/ are in the package
	for f in systemd/*.service systemd/*.socket; do
		[ -e "$f" ] || continue
		dpkg-deb -c "$out"/smtpdiag_*.deb | grep -q "/usr/lib/systemd/system/${f##*/}\$" ||
			die "$f is not in the smtpdiag package"
	done
	say "built: $(cd "$out" && ls *.deb | tr '\n' ' ')"
}

check() {
	command -v lintian >/dev/null 2>&1 || die "lintian missing (tools/install-deps.sh)"
	say "lintian"
	lintian --fail-on error --tag-display-limit 0 "$out"/*.changes || die "lintian reports errors"
	# one minbase root, made once, for the install test and the container's base
	if [ -z "${BASE_ROOT:-}" ] && [ "$(id -u)" -eq 0 ]; then
		say "debootstrap --variant=minbase ${SUITE:-bookworm} (log: $out/debootstrap.log)"
		t=$(date +%s)
		mirror=${MIRROR:-$(sh -c '. tools/root-lib.sh; host_uri "$1"' - "${SUITE:-bookworm}")}
		command -v debootstrap >/dev/null 2>&1 || die "debootstrap missing (tools/install-deps.sh)"
		rm -rf "$out/minbase"
		debootstrap --variant=minbase "${SUITE:-bookworm}" "$out/minbase" "$mirror" >"$out/debootstrap.log" 2>&1 ||
			{ tail -n 20 "$out/debootstrap.log"; die "debootstrap failed"; }
		say "debootstrap took $(($(date +%s) - t))s"
		BASE_ROOT=$(cd "$out/minbase" && pwd)
		export BASE_ROOT
	fi
	sh tools/deb-root-check.sh "$out"
	sh tools/container-check.sh "$out"
}

case $cmd in
build) build ;;
check) check ;;
*) die "usage: deb.sh build|check OUT" ;;
esac
