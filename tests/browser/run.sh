#!/bin/bash
# Browser tests of `smtpdiag serve`: headless Debian Chromium driven by
# playwright-core (npm), and API tests with npm's OpenAPI validator and
# Prometheus parser. Installs what is missing, builds the binary if needed,
# runs tests/browser/*.test.mjs; screenshots go to $BUILD/screenshots.
set -euo pipefail
cd "$(dirname "$0")"
HERE=$(pwd)
ROOT=$(cd ../.. && pwd)
BUILD=${BUILD:-build}
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo

need=""
[ -x /usr/bin/chromium ] || need="$need chromium"
command -v node >/dev/null 2>&1 || need="$need nodejs"
command -v npm >/dev/null 2>&1 || need="$need npm"
if [ -n "$need" ]; then
	echo "installing:$need"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $need
fi
if [ ! -d "$HERE/node_modules/playwright-core" ] || [ ! -d "$HERE/node_modules/@seriousme/openapi-schema-validator" ] ||
   [ ! -d "$HERE/node_modules/parse-prometheus-text-format" ]; then
	(cd "$HERE" && npm ci --no-audit --no-fund --loglevel=error)
fi
if [ ! -x "$ROOT/$BUILD/smtpdiag" ]; then
	sh "$ROOT/tools/install-deps.sh"
	make -C "$ROOT" --no-print-directory BUILD="$BUILD"
fi

cd "$ROOT"
BUILD_DIR="$ROOT/$BUILD" timeout 300 node --test --test-reporter=tap "$HERE/serve.test.mjs" "$HERE/api.test.mjs" "$HERE/cross.test.mjs" "$HERE/verdict.test.mjs"
echo "screenshots: $BUILD/screenshots/"
