#!/bin/sh
# container-check.sh DIR: the Containerfile checked (tools/containerfile-lint.sh), then
# built with buildah from a local Debian base (a minbase root made with debootstrap,
# imported: no registry) and the packages of DIR, run, and its health check asked.
# Where buildah/podman cannot run (not root, no buildah, no user namespaces), it says
# why and only the lint counts: under CI=true that is a failure unless CONTAINER=lint.
set -eu
DEBS=$(cd "${1:?usage: container-check.sh DIR}" && pwd)
say() { echo "container-check: $*"; }
sh "$(dirname "$0")/containerfile-lint.sh" Containerfile
cannot() {
	say "cannot build the image here: $*; the Containerfile was only linted"
	[ "${CI:-}" = true ] && [ "${CONTAINER:-}" != lint ] && exit 1
	exit 0
}
[ "$(id -u)" -eq 0 ] || cannot "needs root"
command -v buildah >/dev/null 2>&1 || cannot "buildah missing (tools/install-deps.sh)"
[ -n "${BASE_ROOT:-}" ] || cannot "no minbase root (BASE_ROOT; tools/deb.sh check makes one)"

WORK=$(mktemp -d "${FRESH_DIR:-/var/tmp}/smtpdiag-image.XXXXXX")
B="buildah --root $WORK/storage --runroot $WORK/run --storage-driver vfs"
export BUILDAH_ISOLATION=chroot
cleanup() { $B rm --all >/dev/null 2>&1; $B rmi --all --force >/dev/null 2>&1; rm -rf "$WORK"; }
trap cleanup EXIT
fail() { say "FAILED: $*" >&2; exit 1; }
start=$(date +%s)

# the base: the minbase root, copied into an empty image
c=$($B from scratch) || cannot "buildah from scratch fails (user namespaces or storage?)"
$B copy --quiet "$c" "$BASE_ROOT/" / >/dev/null || cannot "buildah copy fails"
$B commit --quiet "$c" localhost/debian:bookworm >/dev/null || cannot "buildah commit fails"
say "base localhost/debian:bookworm from $BASE_ROOT ($(($(date +%s) - start))s)"

mkdir "$WORK/ctx" && cp Containerfile "$DEBS"/*.deb "$WORK/ctx/"
$B bud --quiet --format docker --isolation chroot -f "$WORK/ctx/Containerfile" -t localhost/smtpdiag "$WORK/ctx" >"$WORK/bud.log" 2>&1 ||
	{ tail -n 30 "$WORK/bud.log"; fail "the image does not build"; }
say "image localhost/smtpdiag built ($(($(date +%s) - start))s)"
user=$($B inspect --type image --format '{{.Docker.Config.User}}' localhost/smtpdiag)
[ -n "$user" ] && [ "$user" != root ] && [ "$user" != 0 ] || fail "the image runs as '$user'"
hc=$($B inspect --type image --format '{{if .Docker.Config.Healthcheck}}{{range .Docker.Config.Healthcheck.Test}}{{.}} {{end}}{{end}}' localhost/smtpdiag)
case $hc in "CMD-SHELL "*) hc=${hc#CMD-SHELL } ;; *) fail "no shell health check in the image: '$hc'" ;; esac
cmd=$($B inspect --type image --format '{{range .Docker.Config.Cmd}}{{.}} {{end}}' localhost/smtpdiag)
# the image's command, then its health check, in a container of the image (host network)
r=$($B from localhost/smtpdiag)
out=$($B run "$r" -- sh -c "id -un; $cmd & sleep 2; $hc && echo healthy; kill \$!" 2>&1) || true
printf '%s\n' "$out" | sed 's/^/  /'
printf '%s\n' "$out" | grep -qx "$user" || fail "the container does not run as $user"
printf '%s\n' "$out" | grep -qx healthy || fail "the health check fails"
say "ok: runs as $user, serves on 8025, healthy ($(($(date +%s) - start))s)"
