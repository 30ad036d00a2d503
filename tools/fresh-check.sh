#!/bin/sh
# fresh-check: the README's two commands on a new machine. Builds a minimal
# Debian root (debootstrap --variant=minbase), installs git and make only,
# clones the current commit into it, then runs `make run` once and `make check`
# once inside it (chroot, clean environment): each must succeed the first time.
# Nothing is kept or cached between runs. Needs root (debootstrap, chroot,
# mount). The Debian mirror is the one the host's apt sources name for the
# suite. Knobs: SUITE (bookworm), MIRROR, TARGETS (the make targets, in turn:
# "run check"), SHARED_DIR (a folder to mount read-only as ../shared beside the
# clone, for conformance or bench; none by default: make check must not need
# it), STEP_TIMEOUT (seconds a command in the root may take: 1800), FRESH_DIR (where the
# root is made: /var/tmp), KEEP=1 (leave the root there).
set -eu
SUITE=${SUITE:-bookworm}
TARGETS=${TARGETS:-run check}
SHARED_DIR=${SHARED_DIR:-}
STEP_TIMEOUT=${STEP_TIMEOUT:-1800}
FRESH_DIR=${FRESH_DIR:-/var/tmp}
REPO=$(git rev-parse --show-toplevel)
COMMIT=$(git -C "$REPO" rev-parse HEAD)

say() { echo "fresh-check: $*"; }
die() { say "$*" >&2; exit 1; }
. "$(dirname "$0")/root-lib.sh"

[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot and mount)"

MIRROR=${MIRROR:-$(host_uri "$SUITE")}
[ -n "$MIRROR" ] || die "no apt source for $SUITE in /etc/apt (set MIRROR)"

if [ -n "$(git -C "$REPO" status --porcelain --untracked-files=no)" ]; then
	say "note: uncommitted changes are not checked; this checks commit $COMMIT"
fi

new_work smtpdiag-fresh
# git and make, as on a machine that has only those; then apt's lists go, as nothing is cached
root_git_make() {
	in_root apt-get update -qq &&
		in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends git make &&
		in_root apt-get clean &&
		rm -rf "$ROOT"/var/lib/apt/lists/*
}

clone() {
	git clone -q --no-hardlinks "$REPO" "$ROOT/root/smtpdiag" &&
		git -C "$ROOT/root/smtpdiag" checkout -q --detach "$COMMIT"
}

make_in_root() {
	in_root sh -c "cd /root/smtpdiag && make $1"
}

say "suite $SUITE from $MIRROR, commit $COMMIT, root in $ROOT"
step "debootstrap on the host" - host_debootstrap
step "debootstrap --variant=minbase $SUITE" "$WORK/debootstrap.log" \
	debootstrap --variant=minbase "$SUITE" "$ROOT" "$MIRROR"
step "mount /proc, resolv.conf" - setup_root
step "apt sources" - root_sources
step "install git and make (apt-get)" "$WORK/apt.log" root_git_make
step "git clone of $(git -C "$REPO" rev-parse --short HEAD)" - clone
if [ -n "$SHARED_DIR" ]; then
	step "mount $SHARED_DIR as ../shared, read-only" - mount_in /root/shared --bind -o ro "$SHARED_DIR"
else
	say "no ../shared beside the clone (SHARED_DIR=DIR mounts one)"
fi
# installed_count: how many Debian packages the root has installed
installed_count() {
	in_root dpkg-query -W -f='${db:Status-Abbrev}\n' | grep -c '^ii'
}

PKG_REPORT=""
for t in $TARGETS; do
	before=$(installed_count)
	step "make $t" - make_in_root "$t"
	after=$(installed_count)
	PKG_REPORT="$PKG_REPORT$(printf '  make %-10s installed %4s packages (%s -> %s), took %5ss' "$t" "$((after - before))" "$before" "$after" "$step_secs")
"
done

say "passed in $(($(date +%s) - START))s"
printf '%s' "$TIMES"
say "packages each target installed, and its wall time:"
printf '%s' "$PKG_REPORT"
