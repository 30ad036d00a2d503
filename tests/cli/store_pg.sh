#!/bin/sh
# smtpdiag store on PostgreSQL: a throw-away cluster started here (initdb in a
# temporary directory, a Unix socket only, stopped on exit), then the same
# checks as on SQLite, the same results in both stores, 4 writers at once with
# no lost update, and an ingest killed midway.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/store_lib.sh"
. "$(dirname "$0")/pg_lib.sh"
FIX=tests/fixtures/store

trap 'pg_stop; rm -rf "$TMP"' EXIT INT TERM
pg_setup
mkdb() { pg_db "$1"; }

# ---- the schema, made and versioned on first use ----
M=$(mkdb mixed)
expect_exit 1 "ingest with bad lines exits 1" -- "$BIN" store --store "$M" ingest "$FIX/mixed.jsonl"
expect_out '^read 11 = recorded 6 \+ duplicates 1 \+ errors 4$' "read = recorded + duplicates + errors, as on SQLite"
n=$((n + 1))
v=$("$PGBIN/psql" -XAtq "$M" -c "SELECT version FROM schema_version" 2>&1)
if [ "$v" = 1 ]; then echo "ok $n - the schema version is recorded"; else echo "not ok $n - schema_version: $v"; fi
expect_exit 1 "ingest again" -- "$BIN" store --store "$M" ingest "$FIX/mixed.jsonl"
expect_out '^read 11 = recorded 0 \+ duplicates 7 \+ errors 4$' "the same records again change nothing"
"$BIN" store --store "sqlite:$TMP/mixed.db" ingest "$FIX/mixed.jsonl" >/dev/null 2>&1
same_state "mixed records: PostgreSQL as SQLite" "$M" "sqlite:$TMP/mixed.db"
expect_exit 0 "release" -- "$BIN" store --store "$M" release gone@mail.example --by tester
expect_exit 0 "show" -- "$BIN" store --store "$M" show gone@mail.example --format json
expect_out '"suppressed":false,.*"released_by":"tester"' "released, with who"
expect_exit 0 "prune" -- "$BIN" store --store "$M" prune --older-than 1
expect_out '^pruned 6 events and 2 addresses' "prune: old events, and the addresses no longer suppressed"

# ---- the soft window ----
now_times "$FIX/soft.jsonl" >"$TMP/soft.jsonl"
P=$(mkdb soft)
"$BIN" store --store "$P" --soft-limit 4 --soft-window 30 ingest "$TMP/soft.jsonl" >/dev/null
"$BIN" store --store "sqlite:$TMP/soft.db" --soft-limit 4 --soft-window 30 ingest "$TMP/soft.jsonl" >/dev/null
same_state "soft bounces and a delivery: PostgreSQL as SQLite" "$P" "sqlite:$TMP/soft.db"

# ---- the corpus, twice, in both stores ----
CORPUS=../shared/corpus/set-of-emails/maildir/bsd
if [ -d "$CORPUS" ]; then
	"$BIN" decode "$CORPUS" >"$TMP/corpus.jsonl" 2>/dev/null
	store_corpus_checks postgresql "$(mkdb corpus)" "$TMP/corpus.jsonl"
	"$BIN" store --store "sqlite:$TMP/corpus.db" ingest "$TMP/corpus.jsonl" >/dev/null
	"$BIN" store --store "sqlite:$TMP/corpus.db" stats >"$TMP/c-sqlite.stats"
	expect_same "the corpus: the same stats in SQLite and PostgreSQL" "$TMP/c-sqlite.stats" "$TMP/c-postgresql.stats"
	"$BIN" decode --store "$(mkdb direct)" "$CORPUS" >/dev/null 2>"$TMP/err"
	expect_err '^read [0-9]+ = recorded [0-9]+ \+ duplicates [0-9]+ \+ errors 0$' "decode --store postgresql://"
else
	echo "# SKIP corpus checks: $CORPUS is absent"
fi

# ---- bytes that are not UTF-8 ----
store_bytes_checks postgresql "$(mkdb latin1)" "$(mkdb latin1d)"
store_tie_checks postgresql "$(mkdb tie1)" "$(mkdb tie2)" "$(mkdb tie3)"

# ---- many writers, and a run killed midway ----
sh tools/gen-verdicts.sh 40000 3000 11 >"$TMP/gen.jsonl"
F=$(mkdb four)
store_concurrent_checks postgresql "$(mkdb one)" "$F" "$TMP/gen.jsonl"
"$BIN" store --store "sqlite:$TMP/gen.db" ingest "$TMP/gen.jsonl" >/dev/null
same_state "4 PostgreSQL writers end as one SQLite writer" "sqlite:$TMP/gen.db" "$F"
sh tools/gen-verdicts.sh 250000 20000 12 >"$TMP/big.jsonl"
store_kill_checks postgresql "$(mkdb killed)" "$(mkdb whole)" "$TMP/big.jsonl"
