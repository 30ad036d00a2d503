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

[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot and mount)"

# host_uri SUITE: the first URI of an enabled apt source of the host for SUITE,
# deb822 (*.sources) or one-line (*.list).
host_uri() {
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v suite="$1" 'BEGIN { RS = "" }
		{
			uri = ""; deb = 0; hit = 0; off = 0
			n = split($0, line, "\n")
			for (i = 1; i <= n; i++) {
				split(line[i], w, /[ \t]+/)
				if (w[1] == "Types:" && line[i] ~ /[ \t]deb([ \t]|$)/) deb = 1
				if (w[1] == "URIs:") uri = w[2]
				if (w[1] == "Suites:" && (" " line[i] " ") ~ ("[ \t]" suite "[ \t]")) hit = 1
				if (w[1] == "Enabled:" && w[2] == "no") off = 1
			}
			if (deb && hit && !off && uri != "") { print uri; exit }
		}' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk -v suite="$1" '$1 == "deb" {
			i = 2
			if ($i ~ /^\[/) { while (i < NF && $i !~ /\]$/) i++; i++ }
			if ($(i + 1) == suite) { print $i; exit }
		}' "$f"
	done | head -n 1
}

MIRROR=${MIRROR:-$(host_uri "$SUITE")}
[ -n "$MIRROR" ] || die "no apt source for $SUITE in /etc/apt (set MIRROR)"

if [ -n "$(git -C "$REPO" status --porcelain --untracked-files=no)" ]; then
	say "note: uncommitted changes are not checked; this checks commit $COMMIT"
fi

WORK=$(mktemp -d "$FRESH_DIR/smtpdiag-fresh.XXXXXX")
WORK=$(cd "$WORK" && pwd -P)
ROOT=$WORK/root
MOUNTS=""

cleanup() {
	# anything a step left running inside the root (a test's server, say) ends first
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$ROOT" ] && kill -9 "${p#/proc/}" 2>/dev/null
	done
	for m in $MOUNTS; do
		umount "$m" 2>/dev/null || umount -l "$m" || say "could not unmount $m"
	done
	MOUNTS=""
	if grep -q " $WORK/" /proc/self/mounts; then
		say "something is still mounted under $WORK: not removing it"
	elif [ "${KEEP:-}" = 1 ]; then
		say "kept $ROOT"
	else
		rm -rf --one-file-system "$WORK"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# mount_in DIR MOUNT-ARGUMENTS...: mount on DIR in the root, unmounted (last first) on exit
mount_in() {
	dir=$ROOT$1
	shift
	mkdir -p "$dir" && mount "$@" "$dir" || return
	MOUNTS="$dir $MOUNTS"
}

# A clean environment inside the root, as a fresh login would have (plus a proxy if the host
# uses one). A hung test must not hang the check: what runs is ended after STEP_TIMEOUT.
in_root() {
	timeout -k 10 "$STEP_TIMEOUT" chroot "$ROOT" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		${http_proxy:+http_proxy=$http_proxy} ${https_proxy:+https_proxy=$https_proxy} \
		${no_proxy:+no_proxy=$no_proxy} "$@"
}

START=$(date +%s)
TIMES=""
# step NAME LOG COMMAND...: run, time, and stop at the first failure saying which step.
# Its variables are named step_*: the commands run in the same shell. set -e does not act
# inside a command tested by ||, so the step functions chain with && themselves.
# With LOG "-" the output shows; otherwise it goes to that file, and its end shows on failure.
step() {
	step_name=$1; step_log=$2; shift 2
	say "== $step_name"
	step_start=$(date +%s)
	if [ "$step_log" = - ]; then
		"$@" && step_rc=0 || step_rc=$?
	else
		"$@" >"$step_log" 2>&1 && step_rc=0 || step_rc=$?
		[ "$step_rc" -eq 0 ] || tail -n 30 "$step_log"
	fi
	step_secs=$(($(date +%s) - step_start))
	TIMES="$TIMES$(printf '  %-40s %5ss' "$step_name" "$step_secs")
"
	[ "$step_rc" -eq 0 ] && return 0
	printf '%s' "$TIMES"
	step_why=""
	[ "$step_rc" -eq 124 ] && step_why=", timed out: STEP_TIMEOUT=$STEP_TIMEOUT"
	die "FAILED at step '$step_name' (exit $step_rc after ${step_secs}s$step_why)"
}

host_debootstrap() {
	command -v debootstrap >/dev/null 2>&1 && return 0
	apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap
}

setup_root() {
	mount_in /proc -t proc proc || return
	# debootstrap makes /dev/null and the like; where it could not (a container), use the host's /dev
	if [ ! -c "$ROOT/dev/null" ]; then
		mount_in /dev --bind /dev || return
	fi
	cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf"
}

# the updates and security suites too, as an installed Debian has them, where the host has them
root_sources() {
	for s in "$SUITE-updates" "$SUITE-security"; do
		uri=$(host_uri "$s")
		[ -z "$uri" ] || echo "deb $uri $s main"
	done >>"$ROOT/etc/apt/sources.list"
	cat "$ROOT/etc/apt/sources.list"
}

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
