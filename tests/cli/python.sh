#!/bin/sh
# The Python binding (bindings/python): pip installs it offline into a venv that sees Debian's
# packages, and its pytest tests run against the library as built. Debian's own python3, not
# another on PATH; without python3, pytest or venv this fails (tools/install-deps.sh has them).
# The sanitized build (SAN=1) is not loaded: Python is no sanitized program, so the
# library's sanitizer runtime would be missing; the plain build's run (make check) covers it.
if [ "${SAN:-}" = 1 ]; then
	echo "ok 1 # SKIP python binding: run by make check on the plain build, not on the sanitized one"
	exit 0
fi
. "$(dirname "$0")/lib.sh"
B=${BUILD:-build}
PY=/usr/bin/python3
LIB=$(cd "$B" && pwd)/libsmtpdiag.so.0

n=$((n + 1))
if [ -x "$PY" ] && "$PY" -c 'import pytest, setuptools, venv' 2>"$TMP/err"; then
	echo "ok $n - $PY has pytest, setuptools and venv"
else
	echo "not ok $n - $PY lacks pytest, setuptools or venv (tools/install-deps.sh)"
	sed 's/^/#   /' "$TMP/err" | head -3
	exit 1
fi
expect_exit 0 "the shared library is built" -- test -f "$LIB"
expect_exit 0 "a venv with the system packages" -- "$PY" -m venv --system-site-packages "$TMP/venv"
# from a copy, so the build leaves nothing in the tree; the tests run from elsewhere, so the
# installed package is the one imported
cp -r bindings/python "$TMP/src"
cp -r bindings/python/tests "$TMP/tests"
expect_exit 0 "pip installs bindings/python offline" -- \
	"$TMP/venv/bin/python" -m pip install -q --no-index --no-build-isolation --no-cache-dir \
	--disable-pip-version-check "$TMP/src"
n=$((n + 1))
if (cd "$TMP" && SMTPDIAG_LIBRARY="$LIB" SMTPDIAG_ROOT="$OLDPWD" "$TMP/venv/bin/python" -m pytest -q \
	-p no:cacheprovider tests) >"$TMP/out" 2>&1; then
	echo "ok $n - pytest: $(tail -1 "$TMP/out")"
else
	echo "not ok $n - pytest failed"
	tail -30 "$TMP/out" | sed 's/^/#   /'
fi
n=$((n + 1))
if (cd "$TMP" && "$TMP/venv/bin/python" -c 'import smtpdiag, sys; sys.exit(0 if "/venv/" in smtpdiag.__file__ else 1)'); then
	echo "ok $n - the installed package is imported"
else
	echo "not ok $n - smtpdiag is not imported from the venv"
fi
