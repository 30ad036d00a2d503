# PostgreSQL for tests and benchmarks: a throw-away cluster in a temporary
# directory, run by an unprivileged user (nobody when run as root), on a Unix
# socket only. Source it, then: pg_find (sets PGBIN, or returns 1), pg_start
# (sets PGDIR and PG, the URL of database postgres; returns 1 when it does
# not start), pg_db NAME (creates it, prints its URL), pg_stop.

pg_bindir() {
	d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
	[ -n "$d" ] && [ -x "$d/initdb" ] && { echo "$d"; return; }
	command -v pg_config >/dev/null && [ -x "$(pg_config --bindir)/initdb" ] && pg_config --bindir
}

# PGBIN, installing the package (tools/install-deps.sh) when missing and allowed
pg_find() {
	PGBIN=$(pg_bindir)
	if [ -z "$PGBIN" ] && { [ "$(id -u)" -eq 0 ] || [ -n "${CI:-}" ]; }; then
		sh tools/install-deps.sh >/dev/null 2>&1
		PGBIN=$(pg_bindir)
	fi
	[ -n "$PGBIN" ]
}

pg_start() {
	PGDIR=$(mktemp -d /tmp/smtpdiag-pg.XXXXXX)
	if [ "$(id -u)" -eq 0 ]; then
		chown nobody "$PGDIR"
		AS="runuser -u nobody --"
		PGUSER=nobody
	else
		AS=""
		PGUSER=$(id -un)
	fi
	PORT=$((50000 + $$ % 10000))
	$AS "$PGBIN/initdb" -D "$PGDIR/data" -A trust -U "$PGUSER" -E UTF8 --locale=C >"$PGDIR/initdb.log" 2>&1 &&
		$AS "$PGBIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/log" -w \
			-o "-k $PGDIR -c listen_addresses='' -p $PORT ${PGOPTS:-}" start >/dev/null 2>&1 || return 1
	PG="postgresql:///postgres?host=$PGDIR&port=$PORT&user=$PGUSER"
}

# pg_setup: pg_find and pg_start for a test, its first line said: a failure in
# CI when PostgreSQL is missing, else a skip (exit 0); exits when it does not start
pg_setup() {
	if ! pg_find; then
		if [ -n "${CI:-}" ]; then
			echo "not ok 1 - PostgreSQL (Debian package postgresql) is not installed and could not be"
			exit 1
		fi
		echo "ok 1 - # SKIP PostgreSQL is not installed (apt-get install postgresql) and could not be installed here"
		exit 0
	fi
	n=$((n + 1))
	if PGOPTS="-c fsync=off" pg_start; then
		echo "ok $n - a throw-away PostgreSQL cluster runs on a Unix socket"
	else
		echo "not ok $n - the PostgreSQL cluster did not start"
		sed 's/^/#   /' "$PGDIR/initdb.log" "$PGDIR/log" 2>/dev/null | tail -5
		exit 1
	fi
}

pg_db() {
	"$PGBIN/psql" -XAtq "$PG" -c "CREATE DATABASE $1" >/dev/null 2>&1
	echo "postgresql:///$1?host=$PGDIR&port=$PORT&user=$PGUSER"
}

pg_stop() {
	[ -n "${PGDIR:-}" ] || return 0
	$AS "$PGBIN/pg_ctl" -D "$PGDIR/data" -m immediate stop >/dev/null 2>&1
	rm -rf "$PGDIR"
}
