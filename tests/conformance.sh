#!/bin/sh
# conformance.sh - build tests/conformance.c against the static library and score
# decode on the shared corpus. Usage: sh tests/conformance.sh [BIN] [-v] [-x EXTRA_DIR] [CORPUS_DIR]
# (BIN, the smtpdiag binary make passes, tells where the build directory is).
# Exits 77 with "SKIP: ..." when the corpus is not there.
set -e
BUILD=${BUILD:-build}
case "$1" in
*/smtpdiag) BUILD=$(dirname "$1"); shift ;;
esac
CC=${CC:-cc}
mkdir -p "$BUILD/tests"
PKG_CFLAGS=$(pkg-config --cflags libhs 2>/dev/null || true)
# the libraries the static library needs: the Makefile's own list (SD_LIBS, as
# make conformance passes it), else the installed ones pkg-config names
LIBS=${SD_LIBS:-$(pkg-config --libs libhs zlib jansson sqlite3 nettle 2>/dev/null ||
	echo -lhs -lz -ljansson -lsqlite3 -lnettle) -ldl -lpthread -lstdc++ -lm}
$CC -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Iinclude -Isrc/lib $PKG_CFLAGS \
	tests/conformance.c tests/conformance_extra.c "$BUILD/libsmtpdiag.a" $LIBS -o "$BUILD/tests/conformance"
exec "$BUILD/tests/conformance" "$@"
