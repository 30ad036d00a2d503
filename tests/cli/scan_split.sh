#!/bin/sh
# scan --summary -j N over ONE large plain file: the file is read as up to N
# pieces cut at line ends (each at least $SMTPDIAG_SCAN_PIECE_MIN bytes, small
# here so that a test log is cut), and the counts are those of one thread.
. "$(dirname "$0")/lib.sh"
FX=tests/fixtures/logs
export TZ=UTC
export SMTPDIAG_SCAN_PIECE_MIN=4096

# a log of every fixture many times over, an over-limit line among them, and a
# last line without its line end
log=$TMP/big.log
i=0
while [ $i -lt 12 ]; do
	cat "$FX/postfix.log" "$FX/exim_mainlog" "$FX/sendmail.log" "$FX/opensmtpd.log" "$FX/syslog-forms.log"
	if [ $i -eq 5 ]; then
		printf 'Mar  1 10:00:00 mx postfix/smtp[1]: 4AB: to=<long@example.org>, relay=none, status=deferred (%070000d)\n' 0
	fi
	i=$((i + 1))
done >"$log"
printf 'Mar  1 10:00:01 mx postfix/smtp[2]: 4AC: to=<last@example.org>, relay=none, delay=1, dsn=4.4.1, status=deferred (connect to mx.example.org[192.0.2.9]:25: Connection timed out)' >>"$log"
gzip -c "$FX/postfix.log" >"$TMP/small.gz"

expect_exit 0 "-j 1 --summary --format jsonl" -- "$BIN" scan -j 1 --summary --format jsonl "$log"
cp "$TMP/out" "$TMP/j1.json"
expect_out '"inputs":1,"failed_inputs":0,' "one input"
expect_out '"overlimit":1,' "the over-limit line counted once"
for j in 2 3 7; do
	expect_exit 0 "-j $j --summary --format jsonl on one file" -- "$BIN" scan -j $j --summary --format jsonl "$log"
	expect_same "-j $j counts what -j 1 counts" "$TMP/out" "$TMP/j1.json"
done
expect_exit 0 "-j 1 --summary (text)" -- "$BIN" scan -j 1 --summary "$log"
cp "$TMP/out" "$TMP/j1.txt"
expect_exit 0 "-j 2 --summary (text)" -- "$BIN" scan -j 2 --summary "$log"
expect_same "-j 2 report is the -j 1 report" "$TMP/out" "$TMP/j1.txt"
expect_out '^inputs: +1 \(0 could not be read\)$' "the pieces count as one input"

# with other inputs: a gzip file and a file below two pieces are read whole
expect_exit 0 "-j 1 over three inputs" -- "$BIN" scan -j 1 --summary --format jsonl "$FX/exim_mainlog" "$log" "$TMP/small.gz"
cp "$TMP/out" "$TMP/m1.json"
expect_exit 0 "-j 3 over three inputs" -- "$BIN" scan -j 3 --summary --format jsonl "$FX/exim_mainlog" "$log" "$TMP/small.gz"
expect_same "-j 3 over a cut file, a small one and a gzip one counts what -j 1 counts" "$TMP/out" "$TMP/m1.json"
expect_out '"inputs":3,"failed_inputs":0,' "three inputs"

# without --summary the records come out whole and in order, as from one thread
"$BIN" scan "$log" >"$TMP/seq.jsonl" 2>/dev/null
expect_exit 0 "-j 2 JSON Lines of one file" -- "$BIN" scan -j 2 "$log"
expect_same "-j 2 without --summary reads the file whole, in order" "$TMP/out" "$TMP/seq.jsonl"

# a CSV log whose header names its own column order: every piece reads the
# columns of the file's header, not the default order
csv=$TMP/acct.csv
head -1 "$FX/powermta-fields.csv" >"$csv"
i=0
while [ $i -lt 400 ]; do
	tail -n +2 "$FX/powermta-fields.csv"
	i=$((i + 1))
done >>"$csv"
expect_exit 0 "-j 1 --summary of a PowerMTA file with its header" -- "$BIN" scan -j 1 --summary --format jsonl "$csv"
cp "$TMP/out" "$TMP/c1.json"
expect_out '"malformed":0,' "-j 1: every PowerMTA row read"
expect_exit 0 "-j 3 --summary of the PowerMTA file" -- "$BIN" scan -j 3 --summary --format jsonl "$csv"
expect_same "-j 3 reads the header's columns in every piece" "$TMP/out" "$TMP/c1.json"
