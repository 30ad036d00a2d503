#!/bin/sh
# Complaints (docs/complaints.md): feedback reports (RFC 5965, RFC 6591, RFC
# 6590 redaction, Microsoft- and Yahoo-like loops) and the services'
# complaint events, what the store suppresses, and the complaint rate per
# sending domain and day, on SQLite and on a throw-away PostgreSQL cluster.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg_lib.sh"
FIX=tests/fixtures/decode/complaints

# field FILE NAME: the value of one string member of decode's first record
field() {
	"$BIN" decode "$1" 2>/dev/null | head -1 | sed -n "s/.*\"$2\":\"\([^\"]*\)\".*/\1/p"
}

# ---- what each report says ----
check() { # FILE RECIPIENT ADVICE SENDERDOMAIN
	n=$((n + 1))
	r=$(field "$FIX/$1" recipient) a=$(field "$FIX/$1" advice) s=$(field "$FIX/$1" senderdomain)
	if [ "$r $a $s" = "$2 $3 $4" ]; then echo "ok $n - $1: $2, $3, sender $4"; else
		echo "not ok $n - $1: got '$r $a $s', want '$2 $3 $4'"; fi
}
check abuse.eml carol@example.net suppress-recipient example.org
check not-spam.eml nina@example.net none example.org
check virus.eml vic@example.net fix-message example.org
check auth-failure.eml alan@example.net fix-sender-authentication example.org
check redacted.eml redacted@example.net none example.org
check yahoo-cfl.eml dave@example.com suppress-recipient example.org
check jmrp.eml frank@example.com suppress-recipient example.org
check jmrp-redacted.eml xxxxxxxx@example.com none example.org
check rfc822-headers.eml erin@example.net suppress-recipient news.example.org
expect_exit 0 "decode: each report gives one record" -- "$BIN" decode "$FIX"
expect_lines 9 "nine reports, nine records" out
expect_out '"evidence":\["hint:format -> feedback","feedback:recipient redacted -> none"\]' \
	"the trail names the redaction"
expect_out '"feedbacktype":"auth-failure".*"feedback:auth-failure -> fix-sender-authentication"' \
	"the trail names the authentication failure report"

# ---- the store: who is suppressed ----
# deliveries: 1500 for example.org and 400 for news.example.org on the reports'
# day, 2000 for shop.example.com, 50 for example.org the day after
deliveries() {
	awk 'BEGIN {
		t = 1773129600
		for (i = 0; i < 1500; i++) d("u" i "@example.com", "news@Example.org", t + i)
		for (i = 0; i < 400; i++) d("w" i "@example.com", "bounce@news.example.org", t + i)
		for (i = 0; i < 2000; i++) d("s" i "@example.com", "shop@shop.example.com", t + i)
		for (i = 0; i < 50; i++) d("n" i "@example.com", "news@example.org", t + 86400 + i)
		c("k1@example.com", "shop@shop.example.com", t + 5)
		c("k2@example.com", "news@quiet.example.net", t + 5)
		# the edges: 1 in 1000 is at the ceiling, 3 in 1000 at the limit, 1 in 1001 under both
		for (i = 0; i < 1000; i++) d("e" i "@example.com", "a@at-ceiling.example", t + i)
		c("e1@example.com", "a@at-ceiling.example", t + 7)
		for (i = 0; i < 1000; i++) d("f" i "@example.com", "a@at-limit.example", t + i)
		for (i = 1; i <= 3; i++) c("f" i "@example.com", "a@at-limit.example", t + 7)
		for (i = 0; i < 1001; i++) d("g" i "@example.com", "a@under.example", t + i)
		c("g1@example.com", "a@under.example", t + 7)
	}
	function d(r, s, ts) {
		printf "{\"recipient\":\"%s\",\"addresser\":\"%s\",\"reason\":\"delivered\",\"action\":\"delivered\",\"timestamp\":%d}\n", r, s, ts
	}
	function c(r, s, ts) {
		printf "{\"recipient\":\"%s\",\"addresser\":\"%s\",\"reason\":\"feedback\",\"feedbacktype\":\"abuse\",\"advice\":\"suppress-recipient\",\"timestamp\":%d}\n", r, s, ts
	}'
}
deliveries >"$TMP/deliveries.jsonl"

fill() { # STORE
	"$BIN" decode --store "$1" "$FIX" >/dev/null 2>"$TMP/fill.err" &&
		"$BIN" store --store "$1" ingest "$TMP/deliveries.jsonl" >/dev/null 2>>"$TMP/fill.err"
}

store_checks() { # NAME STORE
	n=$((n + 1))
	if fill "$2"; then echo "ok $n - $1: the reports and the deliveries are recorded"; else
		echo "not ok $n - $1: recording failed"; sed 's/^/#   /' "$TMP/fill.err" | head -5; fi
	expect_exit 0 "$1: store suppressed" -- "$BIN" store --store "$2" suppressed --format csv
	n=$((n + 1))
	got=$(cut -d, -f1,2 "$TMP/out" | sed 1d | tr '\n' ' ')
	want="carol@example.net,complaint dave@example.com,complaint e1@example.com,complaint erin@example.net,complaint f1@example.com,complaint f2@example.com,complaint f3@example.com,complaint frank@example.com,complaint g1@example.com,complaint k1@example.com,complaint k2@example.com,complaint "
	if [ "$got" = "$want" ]; then echo "ok $n - $1: the complaints suppress at once, nothing else does"; else
		echo "not ok $n - $1: suppressed: $got"; fi
	expect_exit 0 "$1: show a redacted recipient" -- "$BIN" store --store "$2" show redacted@example.net --format json
	expect_out '"suppressed":false' "$1: a redacted recipient is not suppressed"
	expect_out '"kind":"complaint-redacted"' "$1: its event is a complaint-redacted"
	expect_exit 0 "$1: show a not-spam report's recipient" -- "$BIN" store --store "$2" show nina@example.net --format json
	expect_out '"suppressed":false.*"kind":"other"' "$1: not-spam is no complaint"
	expect_exit 0 "$1: show an auth-failure report's recipient" -- "$BIN" store --store "$2" show alan@example.net --format json
	expect_out '"suppressed":false.*"kind":"sender"' "$1: auth-failure is the sender's, never suppresses"
	expect_exit 0 "$1: store stats" -- "$BIN" store --store "$2" stats
	cp "$TMP/out" "$TMP/stats-$1.txt"
	expect_out '^  example\.org 2026-03-10 +5 +1500 +0\.3333% +over-limit$' \
		"$1: 5 complaints (2 of them redacted) in 1500 deliveries: over the 0.3% limit"
	expect_out '^  news\.example\.org 2026-03-10 +1 +400 +0\.2500% +over-ceiling$' \
		"$1: 1 in 400: over the 0.1% ceiling"
	expect_out '^  shop\.example\.com 2026-03-10 +1 +2000 +0\.0500% +ok$' "$1: 1 in 2000: ok"
	expect_out '^  quiet\.example\.net 2026-03-10 +1 +0 +- +unknown$' "$1: no delivery recorded: the rate is unknown"
	expect_out '^  at-ceiling\.example 2026-03-10 +1 +1000 +0\.1000% +over-ceiling$' "$1: 0.1% exactly is at the ceiling"
	expect_out '^  at-limit\.example 2026-03-10 +3 +1000 +0\.3000% +over-limit$' "$1: 0.3% exactly is at the limit"
	expect_out '^  under\.example 2026-03-10 +1 +1001 +0\.0999% +ok$' "$1: 1 in 1001 is under the ceiling"
	n=$((n + 1))
	if sed -n '/^complaint-rate/,$p' "$TMP/out" | grep -q '2026-03-11'; then echo "not ok $n - $1: a day without complaints has a row"; else
		echo "ok $n - $1: a day without complaints has no row"; fi
	expect_exit 0 "$1: store stats --format json" -- "$BIN" store --store "$2" stats --format json
	cp "$TMP/out" "$TMP/stats-$1.json"
	expect_out '"complaint-rate":\{.*"example\.org 2026-03-10":\{"complaints":5,"delivered":1500,"rate":0\.003333,"level":"over-limit"\}' \
		"$1: JSON: the rows keyed by domain and day"
	expect_out '"quiet\.example\.net 2026-03-10":\{"complaints":1,"delivered":0,"rate":null,"level":"unknown"\}' \
		"$1: JSON: an unknown rate is null"
	expect_out '"kind":\{[^}]*"complaint-redacted":2' "$1: the kind table counts the redacted complaints"
}

store_checks sqlite "sqlite:$TMP/c.db"

# ---- the services' complaint events suppress at once ----
S="sqlite:$TMP/esp.db"
for svc in brevo mailgun mailjet mailtrap mandrill postmark resend sendgrid ses sparkpost unisender; do
	"$BIN" decode tests/fixtures/esp/$svc 2>/dev/null | grep '"reason":"feedback"' >"$TMP/$svc.jsonl"
	n=$((n + 1))
	if [ -s "$TMP/$svc.jsonl" ]; then echo "ok $n - $svc: its fixtures hold a complaint event"; else
		echo "not ok $n - $svc: no complaint event read"; continue; fi
	"$BIN" store --store "$S" ingest "$TMP/$svc.jsonl" >/dev/null 2>&1
	n=$((n + 1))
	bad=""
	for a in $(sed -n 's/.*"recipient":"\([^"]*\)".*/\1/p' "$TMP/$svc.jsonl"); do
		"$BIN" store --store "$S" show "$a" --format json 2>/dev/null |
			grep -q '"suppressed":true,"cause":"complaint"' || bad="$bad $a"
	done
	if [ -z "$bad" ]; then echo "ok $n - $svc: each complaint event suppresses its address at once"; else
		echo "not ok $n - $svc: not suppressed:$bad"; fi
done

# ---- the same on PostgreSQL ----
if ! pg_find; then
	if [ -n "${CI:-}" ]; then
		echo "not ok $((n + 1)) - PostgreSQL (Debian package postgresql) is not installed and could not be"
		exit 1
	fi
	echo "ok $((n + 1)) - # SKIP PostgreSQL is not installed (apt-get install postgresql) and could not be installed here"
	exit 0
fi
trap 'pg_stop; rm -rf "$TMP"' EXIT INT TERM
n=$((n + 1))
if PGOPTS="-c fsync=off" pg_start; then echo "ok $n - a throw-away PostgreSQL cluster runs"; else
	echo "not ok $n - the PostgreSQL cluster did not start"; exit 1; fi
store_checks postgresql "$(pg_db complaints)"
expect_same "the same text stats on SQLite and PostgreSQL" "$TMP/stats-sqlite.txt" "$TMP/stats-postgresql.txt"
expect_same "the same JSON stats on SQLite and PostgreSQL" "$TMP/stats-sqlite.json" "$TMP/stats-postgresql.json"
