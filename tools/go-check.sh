#!/bin/sh
# Build and test the Go binding (bindings/go) against this tree's library:
# stage `make install` in a temporary prefix, find it through its smtpdiag.pc,
# then run Debian's Go (golang-go) offline: go vet and go test.
# Prints TAP lines ("ok N ..." / "not ok N ...").
set -u
BUILD=${BUILD:-build}
GO=${GO:-/usr/bin/go}
top=$(pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
if [ ! -x "$GO" ]; then
	echo "not ok 1 go binding: $GO not found (Debian package golang-go; tools/install-deps.sh)"
	exit 1
fi
if ! make --no-print-directory -s BUILD="$BUILD" PREFIX="$tmp/usr" install >"$tmp/install.log" 2>&1; then
	cat "$tmp/install.log"
	echo "not ok 1 go binding: staged make install"
	exit 1
fi
export PKG_CONFIG_PATH="$tmp/usr/lib/pkgconfig"
export LD_LIBRARY_PATH="$tmp/usr/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export GOPATH="$tmp/gopath" GOCACHE="$tmp/gocache" GOMODCACHE="$tmp/gopath/pkg/mod"
export GOPROXY=off GOFLAGS= GOTOOLCHAIN=local GO111MODULE=on GOTELEMETRY=off CGO_ENABLED=1
cd "$top/bindings/go" || exit 1
n=0
rc=0
step() {
	n=$((n + 1))
	name=$1
	shift
	if out=$("$@" 2>&1); then
		echo "ok $n go binding: $name"
	else
		printf '%s\n' "$out" | sed 's/^/# /'
		echo "not ok $n go binding: $name"
		rc=1
	fi
}
step "gofmt" sh -c 'l=$(/usr/bin/gofmt -l .); [ -z "$l" ] || { echo "not formatted: $l"; exit 1; }'
step "go vet" "$GO" vet ./...
step "go test" "$GO" test -count=1 ./...
exit $rc
