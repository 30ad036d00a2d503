#!/bin/sh
# Install the Debian packages smtpdiag needs to build and test, if missing.
set -e
PKGS="build-essential clang pkg-config libvectorscan-dev libmicrohttpd-dev libcmocka-dev zlib1g-dev curl libjansson-dev libsqlite3-dev libpq-dev postgresql"
# benchmarks also need these
[ -n "${BENCH:-}" ] && PKGS="$PKGS bc time wrk"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
