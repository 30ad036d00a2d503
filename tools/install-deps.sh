#!/bin/sh
# Install the Debian packages smtpdiag needs to build and test, if missing.
# As root it runs apt-get itself; otherwise through sudo.
set -e
# build-essential: cc, make, binutils (objdump, for tests/cli/install.sh)
# clang, libclang-rt-dev: make sanitize (ASan+UBSan) and the libFuzzer targets
# pkg-config and the libraries: Vectorscan, libmicrohttpd (serve), jansson (JSON input),
# SQLite and libpq (the store), nettle (serve's webhook signatures), cmocka (unit tests), zlib
# curl, openssl: tests/cli/serve.sh and events.sh; jq: tests/cli/serve_verdict.sh and store_lib.sh;
# postgresql: tests/cli/store_pg.sh starts a throw-away cluster (tests/browser/run.sh installs
# Chromium and Node itself); groff-base and man-db: tests/cli/manpages.sh renders the man pages
PKGS="build-essential clang libclang-rt-dev pkg-config libvectorscan-dev libmicrohttpd-dev libcmocka-dev zlib1g-dev libjansson-dev libsqlite3-dev libpq-dev nettle-dev curl openssl jq postgresql groff-base man-db"
# Test tier, make deb-check: dpkg-dev, debhelper and fakeroot build the Debian packages
# (dpkg-buildpackage; dpkg-shlibdeps for tests/cli/debian.sh too), lintian checks them,
# debootstrap makes the new root they are installed on, buildah builds the container image
PKGS="$PKGS dpkg-dev debhelper fakeroot lintian debootstrap buildah"
# benchmarks also need these
[ -n "${BENCH:-}" ] && PKGS="$PKGS bc time wrk libsisimai-perl"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
$SUDO apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
