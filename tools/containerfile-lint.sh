#!/bin/sh
# containerfile-lint.sh FILE: what the Containerfile must do, checked (hadolint is not
# in Debian): FROM a local base (localhost/...), the .deb packages installed with
# apt-get, a non-root USER, EXPOSE 8025, a HEALTHCHECK, serve as the command.
f=${1:-Containerfile}
bad=0
# the instructions one a line: continuation lines joined
text=$(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$f")
need() {
	if printf '%s\n' "$text" | grep -Eq "$1"; then echo "ok - $2"; else echo "not ok - $2"; bad=1; fi
}
need '^FROM localhost/' "FROM a local base image (localhost/...)"
need '^RUN .*apt-get install .*\.deb' "installs the Debian packages with apt-get"
need '^USER [^0r]' "runs as a non-root USER"
need '^EXPOSE 8025$' "EXPOSE 8025"
need '^HEALTHCHECK ' "a HEALTHCHECK"
need '^(CMD|ENTRYPOINT) .*serve' "serve is the command"
if printf '%s\n' "$text" | grep -E '^USER ' | tail -n 1 | grep -Eq '^USER (0|root)([: ]|$)'; then echo "not ok - the last USER is root"; bad=1; fi
exit $bad
