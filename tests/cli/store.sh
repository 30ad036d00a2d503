#!/bin/sh
# smtpdiag store on SQLite: ingest and its counts, the policy (hard, complaint,
# soft window, delivery reset, sender-side), release, prune, decode/scan
# --store, several writers at once, and a run killed midway.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/store_lib.sh"
FIX=tests/fixtures/store
S="$TMP/s.db"

# ---- ingest: counts add up, bad lines named with file:line, twice changes nothing ----
expect_exit 1 "ingest with bad lines exits 1" -- "$BIN" store --store "sqlite:$S" ingest "$FIX/mixed.jsonl"
expect_out '^read 11 = recorded 6 \+ duplicates 1 \+ errors 4$' "read = recorded + duplicates + errors"
expect_err 'mixed\.jsonl:6: not JSON' "a bad line is named by file:line"
expect_err 'mixed\.jsonl:7: no verdict' "a record without a reason is no verdict"
expect_err 'mixed\.jsonl:9: .*wrong type' "a field of the wrong type is an error"
expect_lines 4 "one stderr line per bad line" err
expect_exit 1 "ingest again" -- "$BIN" store --store "sqlite:$S" ingest - <"$FIX/mixed.jsonl"
expect_out '^read 11 = recorded 0 \+ duplicates 7 \+ errors 4$' "the same records again change nothing"
expect_exit 0 "suppressed" -- "$BIN" store --store "sqlite:$S" suppressed --format csv
expect_out '^gone@mail\.example,hard,userunknown,5\.1\.1,550,' "a hard bounce suppresses at once"
expect_out '^angry@mail\.example,complaint,feedback,' "a complaint suppresses at once"
expect_out '^bob@example\.org,hard,userunknown' "scan's records are read too"
n=$((n + 1))
if grep -q '^fine@' "$TMP/out"; then echo "not ok $n - a sender-side failure suppressed its recipient"; else
	echo "ok $n - sender-side failures never suppress the recipient"; fi
expect_exit 0 "stats" -- "$BIN" store --store "sqlite:$S" stats
expect_out '^  shop\.example +2$' "sender-side failures counted by sending domain"
expect_out '^  192\.0\.2\.7 +1$' "... and by IP when known"
expect_out '^  suppressed +3$' "three addresses suppressed"

# ---- soft bounces: 5 within 14 days after the last delivery ----
now_times "$FIX/soft.jsonl" >"$TMP/soft.jsonl"
expect_exit 0 "ingest soft bounces" -- "$BIN" store --store "sqlite:$TMP/soft.db" ingest "$TMP/soft.jsonl"
expect_exit 0 "suppressed (soft)" -- "$BIN" store --store "sqlite:$TMP/soft.db" suppressed --format csv
expect_out '^full@mail\.example,soft,mailboxfull,4\.2\.2,452,' "5 soft bounces in 8 days suppress (address lowercased)"
expect_lines 2 "only that one of the soft addresses" out
expect_exit 0 "--soft-limit 4" -- "$BIN" store --store "sqlite:$TMP/soft.db" suppressed --format csv
printf 'soft_limit = 4 # fewer\nsoft_window_days=30\n' >"$TMP/policy"
rm -f "$TMP/soft2.db"
expect_exit 0 "ingest with a policy file" -- "$BIN" store --store "sqlite:$TMP/soft2.db" --policy "$TMP/policy" ingest "$TMP/soft.jsonl"
expect_exit 0 "suppressed with the policy" -- "$BIN" store --store "sqlite:$TMP/soft2.db" suppressed --format csv
expect_out '^four@' "policy soft_limit=4: 4 soft bounces suppress"
expect_out '^spread@' "policy soft_window_days=30: 5 in 28 days suppress"
n=$((n + 1))
if grep -q '^reset@' "$TMP/out"; then echo "not ok $n - a delivery did not reset the soft count"; else
	echo "ok $n - a delivery after soft bounces resets the count"; fi
tac "$TMP/soft.jsonl" >"$TMP/soft-rev.jsonl"
"$BIN" store --store "sqlite:$TMP/rev.db" --soft-limit 4 --soft-window 30 ingest "$TMP/soft-rev.jsonl" >/dev/null
"$BIN" store --store "sqlite:$TMP/rev.db" suppressed --format json >"$TMP/rev.out"
"$BIN" store --store "sqlite:$TMP/soft2.db" suppressed --format json >"$TMP/fwd.out"
expect_same "the state does not depend on the order records arrive in" "$TMP/fwd.out" "$TMP/rev.out"
expect_exit 2 "a bad policy value is a usage error" -- "$BIN" store --store "sqlite:$TMP/x.db" --soft-limit 0 stats
expect_exit 2 "an option of another subcommand is refused" -- "$BIN" store --store "sqlite:$TMP/x.db" stats --by me

# ---- show, release, prune ----
expect_exit 0 "show" -- "$BIN" store --store "sqlite:$S" show GONE@mail.example
expect_out '^suppressed +yes, hard' "show gives the state"
expect_out 'hard +userunknown +5\.1\.1 +550' "and the history"
expect_exit 1 "show of an unknown address exits 1" -- "$BIN" store --store "sqlite:$S" show nobody@mail.example
expect_exit 0 "release" -- "$BIN" store --store "sqlite:$S" release gone@mail.example --by tester
expect_out '^released gone@mail\.example \(by tester\)' "release says who"
expect_exit 0 "show after release" -- "$BIN" store --store "sqlite:$S" show gone@mail.example --format json
expect_out '"suppressed":false,.*"released_by":"tester"' "released, with who"
expect_out '"history":\[\{"key":"ta1b2c3","kind":"hard"' "the history stays"
printf '%s\n' "{\"action\":\"failed\",\"recipient\":\"gone@mail.example\",\"timestamp\":$(($(date +%s) + 60)),\"deliverystatus\":\"5.1.1\",\"reason\":\"userunknown\",\"hardbounce\":true,\"advice\":\"suppress-recipient\"}" |
	"$BIN" store --store "sqlite:$S" ingest >/dev/null
expect_exit 0 "suppressed after a later bounce" -- "$BIN" store --store "sqlite:$S" suppressed --format json --domain MAIL.example --reason userunknown
expect_out '"address":"gone@mail\.example","domain":"mail\.example","suppressed":true' "a hard bounce after the release suppresses again"
expect_lines 1 "--domain and --reason filter" out
expect_exit 0 "prune" -- "$BIN" store --store "sqlite:$S" prune --older-than 36500
expect_out '^pruned 0 events' "nothing is a hundred years old"
expect_exit 0 "prune old" -- "$BIN" store --store "sqlite:$S" prune --older-than 1
expect_out '^pruned 6 events and 1 addresses' "old events and the unsuppressed addresses are pruned"

# ---- decode --store and scan --store record what ingest would ----
CORPUS=../shared/corpus/set-of-emails/maildir/bsd
if [ -d "$CORPUS" ]; then
	"$BIN" decode "$CORPUS" >"$TMP/corpus.jsonl" 2>/dev/null
	store_corpus_checks sqlite "sqlite:$TMP/c.db" "$TMP/corpus.jsonl"
	"$BIN" decode --store "sqlite:$TMP/d.db" "$CORPUS" >/dev/null 2>"$TMP/err"
	expect_err '^read [0-9]+ = recorded [0-9]+ \+ duplicates [0-9]+ \+ errors 0$' "decode --store gives its counts on stderr"
	"$BIN" store --store "sqlite:$TMP/d.db" stats >"$TMP/d.stats"
	expect_same "decode --store records what decode | store ingest does" "$TMP/d.stats" "$TMP/c.stats"
else
	echo "# SKIP corpus checks: $CORPUS is absent"
fi
expect_exit 0 "scan --store" -- "$BIN" scan --store "sqlite:$TMP/scan.db" tests/fixtures/logs/postfix.log
"$BIN" scan tests/fixtures/logs/postfix.log 2>/dev/null | "$BIN" store --store "sqlite:$TMP/scan2.db" ingest >/dev/null
"$BIN" store --store "sqlite:$TMP/scan.db" stats >"$TMP/a"
"$BIN" store --store "sqlite:$TMP/scan2.db" stats >"$TMP/b"
expect_same "scan --store records what scan | store ingest does" "$TMP/a" "$TMP/b"

# ---- bytes that are not UTF-8 ----
store_bytes_checks sqlite "sqlite:$TMP/latin1.db" "sqlite:$TMP/latin1-d.db"
store_tie_checks sqlite "sqlite:$TMP/tie1.db" "sqlite:$TMP/tie2.db" "sqlite:$TMP/tie3.db"

# ---- writers at once, and a run killed midway ----
sh tools/gen-verdicts.sh 40000 6000 7 >"$TMP/gen.jsonl"
store_concurrent_checks sqlite "sqlite:$TMP/one.db" "sqlite:$TMP/four.db" "$TMP/gen.jsonl"
sh tools/gen-verdicts.sh 250000 20000 8 >"$TMP/big.jsonl"
store_kill_checks sqlite "sqlite:$TMP/killed.db" "sqlite:$TMP/whole.db" "$TMP/big.jsonl"
