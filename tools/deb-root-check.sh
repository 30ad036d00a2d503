#!/bin/sh
# deb-root-check.sh DIR: the Debian packages of DIR (*.deb) installed with apt-get on a
# new minimal Debian root (debootstrap --variant=minbase), so apt resolves their declared
# dependencies from the mirror; then explain, decode of a sample bounce and serve on
# loopback, and the libraries serve and the store open at run time (dlopen) are there
# because smtpdiag depends on them. Needs root: without it, it fails under CI=true and
# skips, saying so, elsewhere. Knobs as tools/fresh-check.sh: SUITE, MIRROR, STEP_TIMEOUT,
# FRESH_DIR, KEEP=1; BASE_ROOT=DIR copies that minbase root instead of a debootstrap.
set -eu
SUITE=${SUITE:-bookworm}
STEP_TIMEOUT=${STEP_TIMEOUT:-900}
FRESH_DIR=${FRESH_DIR:-/var/tmp}
DEBS=$(cd "${1:?usage: deb-root-check.sh DIR}" && pwd)

say() { echo "deb-root-check: $*"; }
die() { say "$*" >&2; exit 1; }
. "$(dirname "$0")/root-lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	[ "${CI:-}" = true ] && die "FAILED: needs root (debootstrap, chroot and mount)"
	say "SKIP: needs root (debootstrap, chroot and mount); run it as root"
	exit 0
fi
MIRROR=${MIRROR:-$(host_uri "$SUITE")}
[ -n "$MIRROR" ] || die "no apt source for $SUITE in /etc/apt (set MIRROR)"

new_work smtpdiag-deb

make_root() {
	if [ -n "${BASE_ROOT:-}" ]; then
		cp -a "$BASE_ROOT" "$ROOT"
	else
		host_debootstrap && debootstrap --variant=minbase "$SUITE" "$ROOT" "$MIRROR"
	fi
}

install_debs() {
	mkdir -p "$ROOT/debs" &&
		cp "$DEBS"/smtpdiag_*.deb "$DEBS"/libsmtpdiag0_*.deb "$DEBS"/libsmtpdiag-dev_*.deb "$ROOT/debs/" &&
		in_root apt-get update -qq &&
		in_root sh -c 'cd /debs && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ./*.deb'
}

# expect WHAT PATTERN COMMAND...: the command succeeds and its output matches
expect() {
	what=$1 pat=$2
	shift 2
	out=$(in_root "$@" 2>&1) || { printf '%s\n' "$out" | tail -n 20; say "$what: failed"; return 1; }
	printf '%s\n' "$out" | grep -Eq "$pat" || { printf '%s\n' "$out" | tail -n 20; say "$what: no '$pat'"; return 1; }
	say "ok: $what"
}

run_cli() {
	cp -r "$(git rev-parse --show-toplevel)/samples" "$ROOT/samples" &&
		expect "explain" '5\.1\.1' smtpdiag explain '550 5.1.1 user unknown' &&
		expect "decode of a sample bounce" '5\.1\.1' smtpdiag decode --format text /samples/bounces/postfix-userunknown.eml &&
		expect "man page" 'smtpdiag' sh -c 'test -f /usr/share/man/man1/smtpdiag.1.gz && echo smtpdiag' &&
		expect "pkg-config file at the multiarch path" '^libdir=/usr/lib/[a-z0-9_]+-linux-[a-z0-9_]+$' \
			sh -c 'grep ^libdir= /usr/lib/*/pkgconfig/smtpdiag.pc'
}

# serve on loopback, a page fetched with the root's own Perl (no curl in minbase)
run_serve() {
	in_root sh -c 'smtpdiag serve --listen 127.0.0.1:18025 >/tmp/serve.log 2>&1 & echo $! >/tmp/serve.pid' &&
		expect "serve answers on loopback" '5\.1\.1|user unknown' sh -c '
			for i in 1 2 3 4 5 6 7 8 9 10; do
				out=$(perl -MIO::Socket::INET -e "
					my \$s = IO::Socket::INET->new(q(127.0.0.1:18025)) or exit 1;
					print \$s qq(GET /api/v1/explain?q=5.1.1 HTTP/1.0\r\nHost: 127.0.0.1:18025\r\n\r\n);
					print while <\$s>;" 2>/dev/null) && [ -n "$out" ] && { printf "%s\n" "$out"; exit 0; }
				sleep 1
			done; cat /tmp/serve.log; exit 1'
	rc=$?
	in_root sh -c 'kill $(cat /tmp/serve.pid)' 2>/dev/null || true
	return $rc
}

# each SONAME the binary opens is on the root, and its package is a declared dependency
run_dlopen() {
	for so in $(in_root sh -c 'strings /usr/bin/smtpdiag 2>/dev/null || grep -ao "lib[a-z0-9]*\.so\.[0-9.]*" /usr/bin/smtpdiag' |
		grep -E '^lib(microhttpd|hogweed|pq|curl)\.so\.[0-9]+$' | sort -u); do
		pkg=$(in_root dpkg -S "*/$so" 2>/dev/null | head -n 1 | cut -d: -f1) ||
			{ say "$so is not installed"; return 1; }
		[ -n "$pkg" ] || { say "$so is not installed"; return 1; }
		in_root dpkg-query -W -f='${Depends}, ${Recommends}\n' smtpdiag | tr ',' '\n' | grep -q "^ *$pkg\\b" ||
			{ say "$so ($pkg) is installed but smtpdiag does not declare it"; return 1; }
		say "ok: $so from $pkg, declared by smtpdiag"
		found=$((${found:-0} + 1))
	done
	[ "${found:-0}" -eq 4 ] || { say "the binary names ${found:-0} of 4 run-time libraries"; return 1; }
}

say "suite $SUITE from $MIRROR, packages from $DEBS, root in $ROOT"
step "a minbase $SUITE root" "$WORK/debootstrap.log" make_root
step "mount /proc, resolv.conf" - setup_root
step "apt sources" - root_sources
step "apt-get install ./*.deb" "$WORK/apt.log" install_debs
step "explain, decode" - run_cli
step "serve on loopback" - run_serve
step "the run-time libraries" - run_dlopen
say "passed in $(($(date +%s) - START))s"
printf '%s' "$TIMES"
