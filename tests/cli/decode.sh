#!/bin/sh
# CLI tests of `smtpdiag decode` over the bundled samples and odd inputs.
. "$(dirname "$0")/lib.sh"

expect_exit 0 "decode one DSN" -- "$BIN" decode samples/bounces/postfix-userunknown.eml
expect_lines 1 "one verdict" out
expect_out '"recipient":"nobody@example.org"' "recipient"
expect_out '"reason":"userunknown"' "reason"
expect_out '"deliverystatus":"5.1.1"' "status"
expect_out '"replycode":"550"' "reply code"
expect_out '"hardbounce":true' "hard bounce"
expect_out '"advice":"suppress-recipient"' "advice"
expect_out '"addresser":"newsletter@example.net"' "addresser from the returned headers"
expect_out '"origin":"samples/bounces/postfix-userunknown.eml"' "origin is the path"

expect_exit 0 "decode a 4xx delay" -- "$BIN" decode samples/bounces/exchange-431.eml
expect_lines 1 "a delay warning by default" out
expect_out '"action":"delayed"' "the MTA still tries"
expect_out '"replycode":"431"' "431 kept as sent"
expect_out '"retry":true' "a 431 is retried"
expect_out '"hardbounce":false' "a 431 is no hard bounce"
expect_out '"nonstandard-reply-code"' "431 flagged"

expect_exit 0 "a delay warning left out" -- "$BIN" decode --no-delayed samples/bounces/exchange-431.eml
expect_lines 0 "no verdict for a warning with --no-delayed" out

# Sisimai's token: SHA-1 of STX addresser RS recipient RS epoch ETX, lowercased
tok=$(printf '\002newsletter@example.net\036nobody@example.org\0361793664761\003' | sha1sum | cut -c1-40)
expect_exit 0 "a token" -- "$BIN" decode samples/bounces/postfix-userunknown.eml
expect_out "\"timestamp\":1793664761," "the time the token is made from"
expect_out "\"token\":\"$tok\"" "token as Sisimai makes it"

expect_exit 0 "decode an mbox" -- "$BIN" decode samples/two-bounces.mbox
expect_lines 2 "two verdicts" out
expect_out '"origin":"samples/two-bounces.mbox:2"' "mbox origin carries the message number"
expect_out '"reason":"mailboxfull"' "first: mailbox full"
expect_out '"reason":"hostunknown"' "second: host unknown"

expect_exit 0 "an mbox on stdin" -- sh -c "\"$BIN\" decode - <samples/two-bounces.mbox"
expect_lines 2 "two verdicts from stdin" out
expect_out '"origin":"-:2"' "stdin mbox origin"

expect_exit 0 "a non-bounce gives nothing" -- "$BIN" decode samples/not-a-bounce.eml
expect_lines 0 "no output for a non-bounce" out

expect_exit 0 "summary over the samples" -- "$BIN" decode --summary samples
expect_out '^inputs: +5$' "5 inputs"
expect_out '^  bounces: +4$' "4 bounces"
expect_out '^  non-bounces: +1$' "1 non-bounce"
expect_out '^  errors: +0$' "no errors"
expect_out '^results: +4$' "4 results"

expect_exit 0 "text table" -- "$BIN" decode --format text samples
expect_out '^RECIPIENT' "table header"
expect_out 'nobody@example.org +userunknown' "table row"

mkdir -p "$TMP/in"
: >"$TMP/in/empty.eml"
printf 'x' >"$TMP/in/tiny.eml"
cp samples/bounces/postfix-userunknown.eml "$TMP/in/good.eml"
expect_exit 1 "errors are counted, the run goes on" -- "$BIN" decode --summary "$TMP/in" "$TMP/missing"
expect_err "empty.eml: empty file" "empty file named"
expect_err "missing: No such file" "missing path named"
expect_err "tiny.eml: not an email" "a 1-byte file is an error, not a non-bounce"
expect_out '^results: +1$' "the good file still decoded"
n=$((n + 1))
in=$(sed -n 's/^inputs: *//p' "$TMP/out"); b=$(sed -n 's/^  bounces: *//p' "$TMP/out")
nb=$(sed -n 's/^  non-bounces: *//p' "$TMP/out"); e=$(sed -n 's/^  errors: *//p' "$TMP/out")
if [ "$in" -eq $((b + nb + e)) ] && [ "$in" -eq 4 ]; then echo "ok $n - counts add up ($in = $b + $nb + $e)"; else
	echo "not ok $n - counts do not add up ($in != $b + $nb + $e, or not 4 inputs)"; fi

mkdir -p "$TMP/md/cur" "$TMP/md/new" "$TMP/md/tmp"
cp samples/bounces/postfix-userunknown.eml "$TMP/md/cur/1.eml"
cp samples/bounces/exchange-431.eml "$TMP/md/new/2.eml"
printf 'half-written' >"$TMP/md/tmp/3.eml"
expect_exit 0 "a Maildir: cur and new, not tmp" -- "$BIN" decode "$TMP/md"
expect_lines 2 "two verdicts from the Maildir" out

tr '\n' '\r' <samples/bounces/postfix-userunknown.eml >"$TMP/cr.eml"
sed 's/$/\r/' samples/bounces/postfix-userunknown.eml >"$TMP/crlf.eml"
expect_exit 0 "CR line ends" -- "$BIN" decode "$TMP/cr.eml"
expect_out '"reason":"userunknown"' "same verdict with CR"
expect_exit 0 "CRLF line ends" -- "$BIN" decode "$TMP/crlf.eml"
expect_out '"reason":"userunknown"' "same verdict with CRLF"

d="$TMP/deep"
for i in $(seq 1 34); do d="$d/d"; done
mkdir -p "$d" && cp samples/bounces/postfix-userunknown.eml "$d/x.eml"
expect_exit 1 "directories nested past the limit" -- "$BIN" decode "$TMP/deep"
expect_err "deeper than 32 levels" "the depth limit is named"
# symbolic links: each directory is read once, a loop is one error, links to files are followed
mkdir -p "$TMP/self"
cp samples/bounces/postfix-userunknown.eml "$TMP/self/1.eml"
ln -s . "$TMP/self/a"
ln -s . "$TMP/self/b"
expect_exit 1 "two self-links end" -- timeout 10 "$BIN" decode "$TMP/self"
expect_lines 1 "the message behind two self-links decoded once" out
expect_lines 2 "one error per looping link" err
expect_err "self/a: directory loop: leads back to .*/self$" "the loop names where it leads"
mkdir -p "$TMP/mdl/cur" "$TMP/mdl/new" "$TMP/mdl/tmp"
cp samples/bounces/postfix-userunknown.eml "$TMP/mdl/cur/1.eml"
cp samples/bounces/exchange-431.eml "$TMP/mdl/new/2.eml"
ln -s .. "$TMP/mdl/cur/up"
expect_exit 1 "a Maildir with cur/up -> .." -- timeout 10 "$BIN" decode "$TMP/mdl"
expect_lines 2 "each Maildir message decoded once" out
expect_err "cur/up: directory loop" "the up link reported"
expect_lines 1 "reported once" err
mkdir -p "$TMP/two/shared" "$TMP/two/in"
cp samples/bounces/postfix-userunknown.eml "$TMP/two/shared/1.eml"
ln -s ../shared "$TMP/two/in/x"
ln -s ../shared "$TMP/two/in/y"
ln -s ../shared/1.eml "$TMP/two/in/z.eml"
expect_exit 1 "two links to one directory" -- timeout 10 "$BIN" decode "$TMP/two/in"
expect_lines 2 "the directory read once, the file link followed" out
expect_err "in/y: directory already read" "the second link named"
d="$TMP/long"
name=$(printf '%0250d' 0)
file=$(printf '%0100d.eml' 0)
src="$PWD/samples/bounces/postfix-userunknown.eml"
mkdir -p "$d"
(cd "$d" && for i in $(seq 1 16); do mkdir "$name" && cd "$name" || exit 1; done && cp "$src" "$file")
expect_exit 1 "a path over 4096 bytes" -- timeout 10 "$BIN" decode "$d"
expect_err "$name/$file: path longer than 4096 bytes" "the long path is named, not cut"
n=$((n + 1)); if grep -q "No such file" "$TMP/err"; then echo "not ok $n - a long path is no missing file"; else echo "ok $n - a long path is no missing file"; fi

expect_exit 1 "a device is no input" -- "$BIN" decode /dev/null
expect_err "/dev/null: not a regular file or directory" "why it was refused"

expect_exit 2 "no input" -- "$BIN" decode
expect_exit 2 "bad format" -- "$BIN" decode --format xml samples
expect_exit 2 "unknown option" -- "$BIN" decode --bogus samples
expect_exit 0 "help" -- "$BIN" decode --help
expect_out "usage: smtpdiag decode" "help text"

# limits said out loud: a DSN for 1,500 recipients gives the first 1,024
# verdicts, an error line that names SMTPDIAG_MAX_RECIPIENTS, exit 1, and the
# summary counts it; an events file of 5,000 bad values writes 100 error lines
# and one "and 4900 more"
dsn_for 1500 >"$TMP/many-rcpt.eml"
expect_exit 1 "a DSN over the recipient limit: exit 1" -- "$BIN" decode "$TMP/many-rcpt.eml"
expect_lines 1024 "a DSN over the recipient limit: its first 1,024 verdicts" out
expect_err 'many-rcpt.eml: more than 1024 recipients \(SMTPDIAG_MAX_RECIPIENTS\)' "the error names the limit"
expect_exit 1 "a DSN over the recipient limit, --summary" -- "$BIN" decode --summary "$TMP/many-rcpt.eml"
expect_out '^  errors: +1$' "the summary counts it among the errors"
expect_out '^    over 1024 recipients: 1$' "the summary counts it over the recipient limit"
awk 'BEGIN { printf "["; for (i = 0; i < 5000; i++) printf "%s{}", (i ? "," : ""); printf "]" }' >"$TMP/empties.json"
expect_exit 1 "5,000 bad events" -- "$BIN" decode --summary "$TMP/empties.json"
expect_lines 101 "100 error lines and one more" err
expect_err 'empties.json: and 4900 more errors' "the last line says how many more"
expect_out '^  errors: +5000$' "every bad event is counted"

# --reasons: the one verdict by default, the reference decoder's readings on request
# (docs/reasons.md, "Modes")
expect_exit 0 "a 431 STOREDRV delay, the one verdict" -- "$BIN" decode samples/bounces/exchange-431.eml
expect_out '"reason":"systemfull"' "X.3.1 is the mail system's storage"
expect_exit 0 "the same, --reasons sisimai" -- "$BIN" decode --reasons sisimai samples/bounces/exchange-431.eml
expect_out '"reason":"mailboxfull"' "the reference decoder reads the full phrase"
expect_exit 0 "SMTPDIAG_REASONS=sisimai" -- env SMTPDIAG_REASONS=sisimai "$BIN" decode samples/bounces/exchange-431.eml
expect_out '"reason":"mailboxfull"' "the mode from the environment"
expect_exit 0 "--reasons default beats the environment" -- env SMTPDIAG_REASONS=sisimai "$BIN" decode --reasons default samples/bounces/exchange-431.eml
expect_out '"reason":"systemfull"' "the option wins"
cat >"$TMP/delay.eml" <<'MSG'
From: MAILER-DAEMON@relay.example.com
To: sender@example.com
Subject: Delayed Mail (still being retried)
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="b1"

--b1
Content-Type: text/plain

Your message is delayed.

--b1
Content-Type: message/delivery-status

Reporting-MTA: dns; relay.example.com

Final-Recipient: rfc822; user@example.org
Action: delayed
Status: 4.3.0
Diagnostic-Code: smtp; 451 4.3.0 Please come back in a moment

--b1--
MSG
expect_exit 0 "a 451 4.3.0 in a delay notice" -- "$BIN" decode "$TMP/delay.eml"
expect_out '"reason":"systemerror"' "read as the attempt it reports, as explain and scan read it"
expect_out '"retry":true' "retried"
expect_exit 0 "the same, --reasons sisimai" -- "$BIN" decode --reasons sisimai "$TMP/delay.eml"
expect_out '"reason":"expired"' "the reference decoder's expired"
expect_exit 2 "an unknown mode" -- "$BIN" decode --reasons strict samples
expect_err "unknown mode 'strict'" "the mode is named"
expect_exit 2 "an unknown mode in SMTPDIAG_REASONS" -- env SMTPDIAG_REASONS=x "$BIN" decode samples
