# root-lib.sh: the helpers of the scripts that make a new Debian root (debootstrap) and
# run things in it: tools/fresh-check.sh, tools/deb-root-check.sh. Sourced; the caller
# sets SUITE, STEP_TIMEOUT and FRESH_DIR, defines say() and die(), then calls new_work.

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


# new_work NAME: a new folder FRESH_DIR/NAME.XXXXXX (WORK) for the root (ROOT), removed with
# what is mounted in it on exit (cleanup); the clock of step starts.
new_work() {
	WORK=$(mktemp -d "$FRESH_DIR/$1.XXXXXX")
	WORK=$(cd "$WORK" && pwd -P)
	ROOT=$WORK/root
	MOUNTS=""
	trap cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	START=$(date +%s)
	TIMES=""
}
