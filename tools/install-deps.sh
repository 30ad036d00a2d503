#!/bin/sh
# install-deps.sh [--list] [build|test|all]: install the Debian packages smtpdiag needs, if missing.
# build: what compiling the library and the CLI (gcc) and `make run` need;
# test: what `make check` needs on top of that; all (the default): both.
# --list prints the tier's packages, one a line, and installs nothing.
# BENCH=1 adds what the benchmarks need. As root it runs apt-get itself; otherwise through sudo.
set -e
# One package a line, each with a comment saying why (what follows # is dropped); a new
# package goes on its own line in the tier that needs it.
# The build tier: every library's -dev package is needed at build time, also for the
# libraries opened at run time (libmicrohttpd, libpq, hogweed, libcurl): their headers are compiled
# against, and tools/sonames.sh reads their SONAMEs from the -dev package's lib*.so link.
PKGS_BUILD=$(sed 's/#.*//' <<'END'
build-essential     # cc, make, binutils (objdump, also for tests/cli/install.sh)
pkg-config          # the compiler and linker flags of the libraries
libvectorscan-dev   # the rule matcher (Vectorscan)
libmicrohttpd-dev   # serve's HTTP server (opened at run time)
zlib1g-dev          # decode's compressed input
libjansson-dev      # JSON input and output
libsqlite3-dev      # the SQLite store
libpq-dev           # the PostgreSQL store (opened at run time)
nettle-dev          # SHA-1 and base64 (linked); hogweed: serve's webhook signatures (opened at run time)
libcurl4-openssl-dev # bounce mailboxes (IMAP, POP3) and webhooks out (opened at run time)
END
)
# The test tier: what `make check` needs on top (tests/browser/run.sh installs Chromium and
# Node itself).
PKGS_TEST=$(sed 's/#.*//' <<'END'
clang               # make sanitize (ASan+UBSan) and the libFuzzer targets
libclang-rt-dev     # the sanitizer and libFuzzer runtimes of clang
libcmocka-dev       # the unit tests (tests/unit)
curl                # tests/cli/serve.sh and events.sh
openssl             # tests/cli/serve.sh and events.sh
jq                  # tests/cli/serve_verdict.sh and store_lib.sh
postgresql          # tests/cli/store_pg.sh starts a throw-away cluster
postfix             # tests/cli/socketmap*.sh: postmap, and a throw-away instance (installed unconfigured, not started)
groff-base          # tests/cli/manpages.sh renders the man pages
man-db              # tests/cli/manpages.sh renders the man pages
golang-go           # tests/cli/go_binding.sh builds and tests the Go binding (bindings/go)
dovecot-imapd       # tests/cli/mailbox.sh starts a throw-away Dovecot of its own (the system one is not used)
dovecot-pop3d       # tests/cli/mailbox.sh reads a POP3 mailbox of that Dovecot
python3             # tests/cli/python.sh (the Python binding), systemd.sh (a NOTIFY_SOCKET listener) and webhook.sh (the receiver)
python3-pytest      # tests/cli/python.sh runs the Python binding's pytest tests
python3-setuptools  # tests/cli/python.sh: pip installs the binding offline with setuptools
python3-venv        # tests/cli/python.sh installs the binding into a throw-away venv
python3-pip         # tests/cli/python.sh: pip install --no-index ./bindings/python
systemd             # tests/cli/systemd.sh: systemd-analyze verify and systemd-socket-activate
dpkg-dev            # make deb-check: dpkg-buildpackage; dpkg-shlibdeps (also tests/cli/debian.sh)
debhelper           # make deb-check: the packages' build (debhelper 13)
fakeroot            # make deb-check: dpkg-buildpackage as a plain user
lintian             # make deb-check: lints the packages
debootstrap         # make deb-check and fresh-check: the new Debian root
buildah             # make deb-check: builds the container of Containerfile
END
)
# BENCH=1: the benchmarks (make bench)
PKGS_BENCH=$(sed 's/#.*//' <<'END'
bc                  # bench scripts' arithmetic
time                # bench scripts' timings
wrk                 # the HTTP load of serve
libsisimai-perl     # bench/sisimai.sh runs Sisimai side by side with decode
pflogsumm           # bench/summary.sh times Debian's pflogsumm on the log scan --summary reads
END
)

LIST=""
[ "${1:-}" = --list ] && { LIST=1; shift; }
case ${1:-all} in
build) PKGS=$PKGS_BUILD ;;
test) PKGS=$PKGS_TEST ;;
all) PKGS="$PKGS_BUILD $PKGS_TEST" ;;
*) echo "usage: install-deps.sh [--list] [build|test|all]" >&2; exit 2 ;;
esac
[ -n "${BENCH:-}" ] && PKGS="$PKGS $PKGS_BENCH"
if [ -n "$LIST" ]; then
	printf '%s\n' $PKGS
	exit 0
fi
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
# postfix: installed with debconf's "No configuration" (no /etc/postfix/main.cf, no system
# MTA), and no service started while installing: a policy-rc.d of our own denies it (101)
# unless the machine has one; the tests start an instance of their own.
rcd=""
case " $missing " in *" postfix "*)
	echo "postfix postfix/main_mailer_type select No configuration" | $SUDO debconf-set-selections
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		rcd=/usr/sbin/policy-rc.d
		printf '#!/bin/sh\n# install-deps.sh: no service starts while installing\nexit 101\n' | $SUDO tee $rcd >/dev/null
		$SUDO chmod 755 $rcd
		trap '$SUDO rm -f $rcd' EXIT
	fi ;;
esac
$SUDO apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
# Dovecot's package may start a system server on the mail ports: the tests start their own, so
# one installed just now is stopped and not started at boot
case " $missing " in *" dovecot-"*)
	$SUDO systemctl disable --now dovecot.service dovecot.socket >/dev/null 2>&1 || true ;;
esac
