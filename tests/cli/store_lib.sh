# Checks shared by tests/cli/store.sh (SQLite) and store_pg.sh (PostgreSQL).
# Needs lib.sh first. Not a suite of its own (tests/run.sh skips *_lib.sh).

# now_times FILE: @NOW@ and @NOW-Nd@ replaced by Unix times from now
now_times() {
	awk -v now="$(date +%s)" '{
		while (match($0, /@NOW(-[0-9]+d)?@/)) {
			d = substr($0, RSTART + 4, RLENGTH - 5); sub(/^-/, "", d); sub(/d$/, "", d)
			$0 = substr($0, 1, RSTART - 1) (now - d * 86400) substr($0, RSTART + RLENGTH)
		}
		print
	}' "$1"
}

# same_state WHAT URL1 URL2: the two stores give the same stats and the same
# suppressed addresses (with their counts, reasons and times)
same_state() {
	"$BIN" store --store "$2" stats >"$TMP/st1"
	"$BIN" store --store "$3" stats >"$TMP/st2"
	expect_same "$1: stats" "$TMP/st1" "$TMP/st2"
	"$BIN" store --store "$2" suppressed --format json >"$TMP/st1"
	"$BIN" store --store "$3" suppressed --format json >"$TMP/st2"
	expect_same "$1: suppressed addresses" "$TMP/st1" "$TMP/st2"
}

# store_corpus_checks NAME URL VERDICTS: ingest twice, same stats; every hard
# bounce suppressed, no sender-side-only recipient suppressed. Leaves
# $TMP/c.stats (SQLite) or $TMP/c-NAME.stats.
store_corpus_checks() {
	name=$1; url=$2; v=$3
	"$BIN" store --store "$url" ingest "$v" >"$TMP/i1" 2>&1
	"$BIN" store --store "$url" stats >"$TMP/s1"
	"$BIN" store --store "$url" ingest "$v" >"$TMP/i2" 2>&1
	"$BIN" store --store "$url" stats >"$TMP/s2"
	expect_same "$name: the corpus ingested twice gives the same stats" "$TMP/s1" "$TMP/s2"
	n=$((n + 1))
	if grep -Eq '^read ([0-9]+) = recorded 0 \+ duplicates \1 \+ errors 0$' "$TMP/i2"; then
		echo "ok $n - $name: the second ingest finds only duplicates"; else
		echo "not ok $n - $name: second ingest: $(cat "$TMP/i2")"; fi
	if [ "$name" = sqlite ]; then cp "$TMP/s1" "$TMP/c.stats"; else cp "$TMP/s1" "$TMP/c-$name.stats"; fi
	"$BIN" store --store "$url" suppressed --format json | jq -r .address | sort -u >"$TMP/sup"
	# recipients of hard bounces (not sender-side, not deferrals), and of sender-side failures only
	jq -r 'select((.hardbounce or .advice == "suppress-recipient") and (.advice | test("^fix-") | not)
		and .action != "delayed" and .recipient != "") | .recipient | ascii_downcase' "$v" | sort -u >"$TMP/hard"
	jq -r 'select(.advice | test("^fix-")) | .recipient | ascii_downcase' "$v" | sort -u >"$TMP/sender"
	jq -r 'select((.advice | test("^fix-") | not) and .recipient != "") | .recipient | ascii_downcase' "$v" | sort -u >"$TMP/other"
	missing=$(comm -23 "$TMP/hard" "$TMP/sup" | wc -l)
	n=$((n + 1))
	if [ "$missing" -eq 0 ]; then echo "ok $n - $name: every hard-bounced recipient ($(wc -l <"$TMP/hard")) is suppressed"; else
		echo "not ok $n - $name: $missing hard-bounced recipients are not suppressed"; comm -23 "$TMP/hard" "$TMP/sup" | head -3 | sed 's/^/#   /'; fi
	comm -23 "$TMP/sender" "$TMP/other" >"$TMP/sender-only"
	bad=$(comm -12 "$TMP/sender-only" "$TMP/sup" | wc -l)
	n=$((n + 1))
	if [ "$bad" -eq 0 ]; then echo "ok $n - $name: no recipient of only sender-side failures ($(wc -l <"$TMP/sender-only")) is suppressed"; else
		echo "not ok $n - $name: $bad recipients of sender-side failures are suppressed"; fi
}

# store_concurrent_checks NAME URL1 URL4 VERDICTS: 4 ingests of disjoint
# quarters at once end with the state of one ingest of the whole.
store_concurrent_checks() {
	name=$1; one=$2; four=$3; v=$4
	total=$(wc -l <"$v")
	q=$(( (total + 3) / 4 ))
	split -l "$q" -d "$v" "$TMP/quarter."
	"$BIN" store --store "$one" ingest "$v" >/dev/null
	"$BIN" store --store "$four" ingest /dev/null >/dev/null # the schema, made once
	for f in "$TMP"/quarter.0*; do
		"$BIN" store --store "$four" ingest "$f" >"$f.out" 2>&1 &
	done
	wait
	n=$((n + 1))
	got=$(cat "$TMP"/quarter.0*.out | sed -n 's/^read \([0-9]*\) = recorded \([0-9]*\) .*/\2/p' | awk '{ s += $1 } END { print s + 0 }')
	if [ "$got" -eq "$total" ]; then echo "ok $n - $name: 4 writers at once recorded all $total records"; else
		echo "not ok $n - $name: 4 writers recorded $got of $total"; cat "$TMP"/quarter.0*.out | sed 's/^/#   /' | head; fi
	same_state "$name: 4 writers at once end with the state of one (no lost update)" "$one" "$four"
	rm -f "$TMP"/quarter.0*
}

# store_kill_checks NAME URL WHOLE VERDICTS: SIGKILL an ingest midway; what
# was committed is whole batches; running it again ends as one clean run.
store_kill_checks() {
	name=$1; url=$2; whole=$3; v=$4
	batch=$(sed -n 's/^#define SMTPDIAG_STORE_BATCH \([0-9]*\).*/\1/p' include/smtpdiag.h)
	"$BIN" store --store "$url" ingest /dev/null >/dev/null # the schema
	"$BIN" store --store "$url" ingest "$v" >/dev/null 2>&1 &
	pid=$!
	i=0
	while [ $i -lt 200 ]; do
		c=$("$BIN" store --store "$url" stats 2>/dev/null | awk '$1 == "events" { print $2 }')
		[ "${c:-0}" -ge "$batch" ] && break
		sleep 0.05; i=$((i + 1))
	done
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	c=$("$BIN" store --store "$url" stats 2>/dev/null | awk '$1 == "events" { print $2 }')
	n=$((n + 1))
	if [ "${c:-0}" -ge "$(wc -l <"$v")" ]; then
		echo "not ok $n - $name: the ingest ended before the kill ($c records): give it a larger file"
	elif [ "${c:-0}" -gt 0 ] && [ $(( ${c:-0} % batch )) -eq 0 ]; then
		echo "ok $n - $name: killed midway, whole batches only were kept ($c records)"
	else
		echo "not ok $n - $name: killed midway, $c records kept: not whole batches of $batch"; fi
	"$BIN" store --store "$url" ingest "$v" >"$TMP/rerun" 2>&1
	"$BIN" store --store "$whole" ingest "$v" >/dev/null 2>&1
	n=$((n + 1))
	if grep -Eq "^read [0-9]+ = recorded [0-9]+ \+ duplicates ${c:-x} \+ errors 0$" "$TMP/rerun"; then
		echo "ok $n - $name: the rerun finds every committed record ($c) and records the rest"; else
		echo "not ok $n - $name: rerun after kill: $(cat "$TMP/rerun")"; fi
	same_state "$name: after the rerun the state is that of one clean run" "$url" "$whole"
}

# store_bytes_checks NAME URL1 URL2: bytes that are not UTF-8 (Latin-1) in a
# log line and in a bounce are recorded with the rest of their batch (as U+FFFD;
# an address keyed by U+FFFD and the byte's two hex digits, so cafe and cafe
# with another accent stay two), found again by the raw address, and a rerun
# finds only duplicates.
store_bytes_checks() {
	name=$1
	expect_exit 0 "$name: scan --store of lines with Latin-1 bytes" -- "$BIN" scan --store "$2" tests/fixtures/store/latin1.log
	expect_err '^read 3 = recorded 3 \+ duplicates 0 \+ errors 0$' "$name: ... records every line of the batch"
	expect_exit 0 "$name: scan --store again" -- "$BIN" scan --store "$2" tests/fixtures/store/latin1.log
	expect_err '^read 3 = recorded 0 \+ duplicates 3 \+ errors 0$' "$name: ... finds them all recorded"
	expect_exit 0 "$name: suppressed" -- "$BIN" store --store "$2" suppressed --format json
	expect_out "\"address\":\"caf$(printf '\357\277\275')e9@example.org\"" "$name: the address is keyed by U+FFFD and the byte's hex digits"
	expect_exit 0 "$name: show by the raw address" -- "$BIN" store --store "$2" show "$(printf 'caf\351@example.org')" --format json
	expect_out "\"diagnosticcode\":\"550 5.1.1 Benutzer unbekannt: M$(printf '\357\277\275')ller\"" "$name: ... the reply's Latin-1 byte is U+FFFD"
	expect_exit 0 "$name: show of the other accent" -- "$BIN" store --store "$2" show "$(printf 'caf\350@example.org')"
	expect_out '^events +1' "$name: ... is another address"
	expect_exit 0 "$name: decode --store of a bounce with Latin-1 bytes" -- "$BIN" decode --store "$3" tests/fixtures/store/latin1.eml
	expect_err '^read 1 = recorded 1 \+ duplicates 0 \+ errors 0$' "$name: ... records it"
}


# store_tie_checks NAME URL1 URL2: two records with one key (the same token; or
# no token and the same addresser, recipient, time and status) but different
# reasons, ingested in both orders into two fresh stores, leave the same state
# and history.
store_tie_checks() {
	name=$1
	printf '%s\n' \
		'{"action":"failed","recipient":"tie@mail.example","timestamp":1700000000,"deliverystatus":"5.1.1","reason":"userunknown","hardbounce":true,"retry":false,"advice":"suppress-recipient","token":"tie1"}' \
		'{"action":"failed","recipient":"tie2@mail.example","addresser":"a@shop.example","timestamp":1700000500,"deliverystatus":"4.2.2","reason":"mailboxfull","hardbounce":false,"retry":true,"advice":"retry"}' \
		>"$TMP/tie-a.jsonl"
	printf '%s\n' \
		'{"action":"delayed","recipient":"tie@mail.example","timestamp":1700000000,"deliverystatus":"4.4.1","reason":"networkerror","hardbounce":false,"retry":true,"advice":"retry","token":"tie1"}' \
		'{"action":"failed","recipient":"tie2@mail.example","addresser":"a@shop.example","timestamp":1700000500,"deliverystatus":"4.2.2","reason":"systemfull","hardbounce":true,"retry":false,"advice":"suppress-recipient"}' \
		>"$TMP/tie-b.jsonl"
	cat "$TMP/tie-a.jsonl" "$TMP/tie-b.jsonl" >"$TMP/tie-ab.jsonl"
	cat "$TMP/tie-b.jsonl" "$TMP/tie-a.jsonl" >"$TMP/tie-ba.jsonl"
	# in one batch, and in two batches (the second meets the stored record)
	"$BIN" store --store "$2" ingest "$TMP/tie-ab.jsonl" >/dev/null 2>&1
	"$BIN" store --store "$3" ingest "$TMP/tie-b.jsonl" >/dev/null 2>&1
	"$BIN" store --store "$3" ingest "$TMP/tie-a.jsonl" >/dev/null 2>&1
	for a in tie tie2; do
		"$BIN" store --store "$2" show "$a@mail.example" --format json >"$TMP/t1" 2>&1
		"$BIN" store --store "$3" show "$a@mail.example" --format json >"$TMP/t2" 2>&1
		expect_same "$name: two records of one key ($a), in either order: the same state and history" "$TMP/t1" "$TMP/t2"
	done
	"$BIN" store --store "$2" suppressed --format json >"$TMP/t1" 2>&1
	"$BIN" store --store "$3" suppressed --format json >"$TMP/t2" 2>&1
	expect_same "$name: ... and the same suppressed addresses" "$TMP/t1" "$TMP/t2"
	"$BIN" store --store "$2" stats >"$TMP/t1" 2>&1
	"$BIN" store --store "$3" stats >"$TMP/t2" 2>&1
	expect_same "$name: ... and the same stats" "$TMP/t1" "$TMP/t2"
	"$BIN" store --store "$4" ingest "$TMP/tie-ba.jsonl" >/dev/null 2>&1
	"$BIN" store --store "$2" suppressed --format json >"$TMP/t1" 2>&1
	"$BIN" store --store "$4" suppressed --format json >"$TMP/t2" 2>&1
	expect_same "$name: ... also when both orders come in one batch" "$TMP/t1" "$TMP/t2"
}
