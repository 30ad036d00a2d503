#!/bin/sh
# smtpdiag store on SQLite, opening the file: two writers starting together on
# a new file both record everything; a read-only store (file mode, a directory
# that is not writable) is readable by stats, suppressed and show, and a write
# into it fails clearly.
. "$(dirname "$0")/lib.sh"
FIX=tests/fixtures/store

# ---- two ingests at once on a new file, ROUNDS times ----
ROUNDS=${ROUNDS:-10}
sh tools/gen-verdicts.sh 60 20 3 >"$TMP/a.jsonl"
sh tools/gen-verdicts.sh 60 20 4 >"$TMP/b.jsonl"
cat "$TMP/a.jsonl" "$TMP/b.jsonl" >"$TMP/ab.jsonl"
"$BIN" store --store "sqlite:$TMP/whole.db" ingest "$TMP/ab.jsonl" >/dev/null 2>&1
"$BIN" store --store "sqlite:$TMP/whole.db" stats >"$TMP/whole.stats"
bad=0
i=0
while [ "$i" -lt "$ROUNDS" ]; do
	i=$((i + 1))
	rm -f "$TMP/new.db" "$TMP/new.db-wal" "$TMP/new.db-shm"
	"$BIN" store --store "sqlite:$TMP/new.db" ingest "$TMP/a.jsonl" >"$TMP/r1" 2>&1 &
	p=$!
	"$BIN" store --store "sqlite:$TMP/new.db" ingest "$TMP/b.jsonl" >"$TMP/r2" 2>&1
	r2=$?
	wait "$p"
	r1=$?
	"$BIN" store --store "sqlite:$TMP/new.db" stats >"$TMP/new.stats" 2>&1
	if [ "$r1" -ne 0 ] || [ "$r2" -ne 0 ] || ! cmp -s "$TMP/new.stats" "$TMP/whole.stats"; then
		bad=$((bad + 1))
		sed 's/^/#   round '"$i"': /' "$TMP/r1" "$TMP/r2" | grep -v ' read ' | head -2
	fi
done
n=$((n + 1))
if [ "$bad" -eq 0 ]; then echo "ok $n - two ingests started together on a new file: both succeed, counts add up ($ROUNDS rounds)"; else
	echo "not ok $n - two ingests on a new file: $bad of $ROUNDS rounds lost records or failed"; fi

# ---- read-only stores ----
# Root ignores file modes, so each case runs the read commands as an
# unprivileged user (nobody, through runuser or setpriv) when the tests run as
# root, and for a directory that is not writable by anyone, root included,
# also with chattr +i when the file system has it.
RO=$(mktemp -d /tmp/smtpdiag-ro.XXXXXX)
trap 'chattr -i "$RO/dir" 2>/dev/null; rm -rf "$TMP" "$RO"' EXIT
chmod 755 "$RO"
mkdir "$RO/dir" "$RO/open"
"$BIN" store --store "sqlite:$RO/dir/s.db" ingest "$FIX/soft.jsonl" >/dev/null 2>&1
"$BIN" store --store "sqlite:$RO/dir/s.db" ingest "$FIX/mixed.jsonl" >/dev/null 2>&1
cp "$RO/dir/s.db" "$RO/open/s.db"
"$BIN" store --store "sqlite:$RO/dir/s.db" stats >"$TMP/ro.want"
chmod 444 "$RO/dir/s.db" "$RO/open/s.db"
chmod 755 "$RO/dir"
chmod 1777 "$RO/open"

AS=""
if [ "$(id -u)" -eq 0 ]; then
	if runuser -u nobody -- true 2>/dev/null; then AS="runuser -u nobody --"
	elif setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
		AS="setpriv --reuid=65534 --regid=65534 --clear-groups"
	fi
fi

# ro_reads LABEL DIR: stats, suppressed and show read the store in DIR
ro_reads() {
	expect_exit 0 "$1: store stats reads it" -- $AS "$BIN" store --store "sqlite:$2/s.db" stats
	expect_same "$1: ... and gives what the writable store gave" "$TMP/out" "$TMP/ro.want"
	expect_exit 0 "$1: store suppressed reads it" -- $AS "$BIN" store --store "sqlite:$2/s.db" suppressed --format csv
	expect_out '^gone@mail\.example,hard,' "$1: ... with its suppressed addresses"
	expect_exit 0 "$1: store show reads it" -- $AS "$BIN" store --store "sqlite:$2/s.db" show gone@mail.example
	expect_out '^suppressed +yes, hard' "$1: ... with the address's state"
}

if [ "$(id -u)" -ne 0 ] || [ -n "$AS" ]; then
	ro_reads "a file of mode 0444 in a directory not writable" "$RO/dir"
	ro_reads "a file of mode 0444 in a writable directory" "$RO/open"
	expect_exit 3 "a write into the read-only store fails" -- $AS "$BIN" store --store "sqlite:$RO/dir/s.db" ingest "$FIX/mixed.jsonl"
	expect_err 'sqlite: .*(readonly database|unable to open)' "... saying why"
else
	n=$((n + 1))
	echo "not ok $n - running as root without runuser or setpriv: no unprivileged user to test a read-only file with"
fi

# root too: a directory made immutable (chattr +i) is not writable by anyone
rm -f "$RO/dir/s.db-wal" "$RO/dir/s.db-shm" # as a store is when its last writer has closed it
if chattr +i "$RO/dir" 2>/dev/null; then
	AS=""
	ro_reads "as $(id -un), in an immutable directory" "$RO/dir"
	n=$((n + 1))
	if ls "$RO/dir" | grep -q -- '-shm\|-wal'; then echo "not ok $n - the reads created a -wal or -shm file"; else
		echo "ok $n - the reads created no -wal or -shm file (immutable=1)"; fi
	chattr -i "$RO/dir"
else
	echo "# chattr +i is not available on this file system ($(stat -f -c %T "$RO")): the immutable directory case runs only as an unprivileged user above"
fi
