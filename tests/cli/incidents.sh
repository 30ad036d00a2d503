#!/bin/sh
# CLI tests of `smtpdiag scan --incidents` over the incident fixtures
# (tests/fixtures/logs/incidents-*.log: Postfix and Exim lines of every kind,
# written from the MTAs' log formats and the replies the lists and providers
# document). Times are read as UTC.
. "$(dirname "$0")/lib.sh"
FX=tests/fixtures/logs
export TZ=UTC

# expect_count N PATTERN DESCRIPTION: N lines of the last stdout match PATTERN
expect_count() {
	c=$(grep -Ec -- "$2" "$TMP/out")
	ok_if "$([ "$c" -eq "$1" ] && echo 1)" "$3 ($c of $1)"
}
I='^\{"type":"incident",'

expect_exit 0 "postfix: --incidents" -- "$BIN" scan --incidents "$FX/incidents-postfix.log"
cp "$TMP/out" "$TMP/postfix.jsonl"
expect_count 24 "$I" "postfix: 24 incidents"
expect_count 1 '^\{"type":"incident_totals","records":30,"grouped":29,"ungrouped":1,"incidents":24,"dropped":0,' \
	"postfix: the totals add up (30 failure records: 29 grouped, 1 of no incident)"
# the first incident has most records: S3150 of one sending address, three recipients
n=$((n + 1))
if head -1 "$TMP/out" | grep -q '"kind":"blocklist","ip":"192.0.2.1","host":"mx1","provider":"Microsoft","list":"Microsoft S3150",.*"count":3,.*"recipients":3,'; then
	echo "ok $n - postfix: the S3150 block comes first, 3 records, 3 recipients"; else echo "not ok $n - postfix: first incident"; head -1 "$TMP/out" | sed 's/^/#   /'; fi
expect_count 1 "$I\"kind\":\"blocklist\",\"ip\":\"198.51.100.77\",\"host\":\"mx2\",\"provider\":\"Microsoft\",\"list\":\"Microsoft S3140\"" \
	"postfix: another sending address, another host: an incident of its own"
for l in 'Microsoft banned sending IP' Barracuda SpamCop UCEPROTECT SORBS Proofpoint Cloudmark 'Yahoo TSS04' Spamhaus; do
	expect_count 1 "$I\"kind\":\"blocklist\",\"ip\":\"192.0.2.1\",.*\"list\":\"$l\"" "postfix: block list $l named, keyed by the quoted address"
done
expect_count 1 "$I\"kind\":\"blocklist\",\"ip\":\"\",\"host\":\"mx1\",\"provider\":\"Mimecast\",\"list\":\"Mimecast\"" \
	"postfix: Mimecast's reputation refusal quotes no address: keyed by host, provider from the MX"
expect_count 1 "$I\"kind\":\"ratelimit\",\"ip\":\"192.0.2.1\",\"host\":\"mx1\",\"provider\":\"Google\",\"list\":\"Gmail unusual rate\"" \
	"postfix: Gmail's unusual rate, per address and provider"
expect_count 1 "$I\"kind\":\"ratelimit\",\"ip\":\"\",\"host\":\"mx1\"," "postfix: a rate limit that quotes no address is keyed by host"
expect_count 1 "$I\"kind\":\"deferring\",.*\"provider\":\"Google\"" "postfix: Google deferring (4.3.0)"
expect_count 1 "$I\"kind\":\"deferring\",.*\"reason\":\"expired\"" "postfix: qmgr's expiry is the destination deferring"
expect_count 1 "$I\"kind\":\"tls\",.*\"mx\":\"mx.example.org\",.*\"count\":2," "postfix: TLS failures towards one MX grouped"
expect_count 1 "$I\"kind\":\"tls\",.*\"mx\":\"mx.example.net\"," "postfix: TLS failing at another MX"
expect_count 1 "$I\"kind\":\"dns\",.*\"mx\":\"example.org\",.*\"first\":1772532002,\"last\":1772535629,\"count\":2," \
	"postfix: DNS failures for one destination, first and last time"
expect_count 1 "$I\"kind\":\"network\",.*\"mx\":\"mx.example.net\"," "postfix: a lost connection towards one MX"
expect_count 1 "$I\"kind\":\"auth\",.*\"provider\":\"Google\",.*\"domain\":\"example.com\",.*\"fixer\":\[\"sender-admin\"\]" \
	"postfix: Gmail's DMARC refusal per sending domain"
expect_count 1 "$I\"kind\":\"auth\",.*\"provider\":\"example.net\",.*\"domain\":\"example.com\"" "postfix: SPF failure per sending domain"
expect_count 1 "$I\"kind\":\"brokencheck\",.*\"list\":\"Spamhaus\",.*\"queryerror\":\"query through a public or open resolver\",.*\"fixer\":\[\"recipient-admin\"\],.*\"count\":2," \
	"postfix: a receiver's Spamhaus check through an open resolver (text and 127.255.255.254)"
expect_count 1 "$I\"kind\":\"brokencheck\",.*\"queryerror\":\"query refused by the block list\"" "postfix: a list's query refused"
expect_count 0 "$I.*\"reason\":\"userunknown\"" "postfix: a failure of one recipient makes no incident"
expect_count 14 '^\{"type":"domain_hour",' "postfix: domain-hour rows"
expect_count 1 '^\{"type":"domain_hour","domain":"example.org","hour":1772535600,"deferred":1,"bounced":0,"expired":0\}' \
	"postfix: the next hour's deferral in its own row"
expect_count 1 '^\{"type":"domain_hour","domain":"hotmail.com","hour":1772532000,"deferred":0,"bounced":2,"expired":0\}' \
	"postfix: bounces per domain and hour"

expect_exit 0 "exim: --incidents" -- "$BIN" scan --incidents "$FX/incidents-exim.log"
expect_count 7 "$I" "exim: 7 incidents"
expect_count 1 "$I\"kind\":\"blocklist\",\"ip\":\"192.0.2.1\",\"host\":\"\",\"provider\":\"Yahoo\",\"list\":\"Yahoo TSS04\",.*\"count\":2,.*\"recipients\":2," \
	"exim: Yahoo's TSS04 deferrals of one address grouped (provider from H=)"
expect_count 1 "$I\"kind\":\"blocklist\",\"ip\":\"192.0.2.1\",.*\"provider\":\"Google\",\"list\":\"Gmail unusual rate\",.*\"reason\":\"blocked\"" \
	"exim: Gmail's 550 unusual rate, its lines joined with \\\\n, is a block of the address"
expect_count 1 "$I\"kind\":\"auth\",.*\"domain\":\"example.com\"" "exim: DMARC per sending domain (the sender's)"
expect_count 1 "$I\"kind\":\"dns\",.*\"mx\":\"example.net\"" "exim: host lookup did not complete: DNS"
expect_count 1 "$I\"kind\":\"tls\",.*\"mx\":\"mx.example.org\"" "exim: TLS certificate failure towards one MX"
expect_count 1 "$I\"kind\":\"network\",.*\"mx\":\"mx2.example.com\"" "exim: connection timed out towards one MX"

# the readable report
expect_exit 0 "postfix: --incidents --format text" -- "$BIN" scan --incidents --format text "$FX/incidents-postfix.log"
expect_out '^incidents: 24 \(failure records 30: 29 grouped, 1 of no incident, 0 past the limit of 4096 incidents\)$' "text: the counts"
expect_out '^blocklist: Microsoft S3150$' "text: an incident's title"
expect_out '^  sending:    ip 192\.0\.2\.1 \(logged by mx1\)$' "text: the sending address"
expect_out '^  seen:       3 times, 3 recipients, 2026-03-03 10:00:04 \.\. 2026-03-03 10:00:17 UTC$' "text: count, recipients, times"
expect_out '^  advice:     .*sender\.office\.com' "text: the list's own advice"
expect_out '^  2026-03-03 11:00 +example\.org +1 +0 +0$' "text: the hour view"

# -j 2 over two inputs gives what one thread gives
expect_exit 0 "both fixtures in one thread" -- "$BIN" scan --incidents "$FX/incidents-postfix.log" "$FX/incidents-exim.log"
cp "$TMP/out" "$TMP/one"
expect_exit 0 "both fixtures with -j 2" -- "$BIN" scan --incidents -j 2 "$FX/incidents-postfix.log" "$FX/incidents-exim.log"
expect_same "-j 2 merges to the same incidents" "$TMP/one" "$TMP/out"

# the note of lines that could not be read still goes to stderr
expect_exit 0 "--incidents over a log with a malformed line" -- "$BIN" scan --incidents "$FX/postfix.log"
expect_err "^smtpdiag: scan: 1 malformed line and 0 over a limit skipped" "--incidents: the malformed line is told"
expect_out '^\{"type":"incident_totals",' "--incidents: the totals still written"

# usage
expect_exit 2 "--incidents with --summary" -- "$BIN" scan --incidents --summary "$FX/incidents-postfix.log"
expect_err "leave out --summary" "the usage error says why"
