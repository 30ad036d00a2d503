#!/bin/sh
# CLI tests of `smtpdiag scan` over the logs that are no syslog lines
# (tests/fixtures/logs/, written from the vendors' documented formats):
# PowerMTA accounting, KumoMTA JSON records, Exchange message tracking and
# Microsoft 365 message trace exports. Times are read as UTC.
. "$(dirname "$0")/lib.sh"
FX=tests/fixtures/logs
export TZ=UTC

# counts FILE LINES DELIVERY RECORDS SKIPPED MALFORMED: --summary adds up
counts() {
	expect_exit 0 "$1: --summary" -- "$BIN" scan --summary "$FX/$1"
	expect_out "^lines read: +$2\$" "$1: $2 lines read"
	expect_out "^  delivery lines: $3 \\(records: $4\\)" "$1: $3 delivery lines, $4 records"
	expect_out "^  skipped: +$5 " "$1: $5 skipped (headers, records that are no attempt)"
	expect_out "^  malformed: +$6\$" "$1: $6 malformed"
}

# --- PowerMTA
counts powermta.csv 11 6 6 3 2
counts powermta-noheader.csv 2 2 2 0 0
expect_exit 0 "powermta: JSON Lines" -- "$BIN" scan "$FX/powermta.csv"
expect_lines 6 "powermta: one object per record" out
expect_out '"format":"powermta","queueid":"env-0001","recipient":"alice@example.org","orig_recipient":"","sender":"bounces@news.example.com","relay":"mx1.example.org \(192.0.2.10\)","action":"sent","replycode":"250","status":"2.0.0","dsn":"2.0.0"' "powermta: d is sent, envId, dsnMta"
expect_out '"timestamp":1705072501,"timezoneoffset":"-0500"' "powermta: timeLogged with its offset"
expect_out '"recipient":"bob@example.net","orig_recipient":"bob@example.net".*"action":"bounced","replycode":"550","status":"5.1.1".*"diagnosticcode":"550 5.1.1 <bob@example.net>: Recipient address rejected: User unknown in virtual mailbox table".*"delay":5,"reason":"userunknown","hardbounce":true,"retry":false' "powermta: b, quoted dsnDiag, verdict userunknown"
expect_out '"recipient":"carol@yahoo.example".*"action":"deferred","replycode":"421","status":"4.7.0".*"reason":"badreputation","hardbounce":false,"retry":true' "powermta: t is deferred, Yahoo TSS04 is reputation"
expect_out '"recipient":"dave@slow.example".*"action":"expired".*"dsn":"4.4.7","diagnosticcode":"451 4.4.1 No answer from host, message expired after \\"5 days\\""' "powermta: b with 4.4.7 is expired; doubled quotes"
expect_out '"recipient":"","orig_recipient":"","sender":"","relay":"mx.down.example \(192.0.2.99\)","action":"deferred","replycode":"421".*"reason":"networkerror"' "powermta: tq, a queue's deferral without recipient"
expect_out '"timezoneoffset":"\+0000".*"recipient":"erin@example.com".*"action":"bounced","replycode":"552"' "powermta: rb, Unix time"
expect_exit 0 "powermta: default order" -- "$BIN" scan "$FX/powermta-noheader.csv"
expect_out '"recipient":"judy@outlook.example".*"action":"bounced","replycode":"550","status":"5.7.1".*"reason":"blocked"' "powermta: no header, default columns, Spamhaus block"
# a header of another order is in force for its own file only
expect_exit 0 "powermta: header per input" -- "$BIN" scan "$FX/powermta-fields.csv" "$FX/powermta-noheader.csv"
expect_lines 4 "powermta: 2 + 2 records" out
expect_out '"recipient":"leo@gmail.example".*"replycode":"550","status":"5.7.26".*"reason":"authfailure"' "powermta: record-fields order, Gmail 5.7.26"
expect_out '"recipient":"ivan@example.org","orig_recipient":"","sender":"bounces@news.example.com"' "powermta: the next input without header reads the default order"
expect_exit 0 "powermta: -j 2 keeps each input's header" -- "$BIN" scan -j 2 "$FX/powermta-fields.csv" "$FX/powermta-noheader.csv"
expect_out '"recipient":"ivan@example.org","orig_recipient":"","sender":"bounces@news.example.com"' "powermta: -j 2, default order in the second input"

# --- KumoMTA
counts kumomta.jsonl 12 7 7 4 1
expect_exit 0 "kumomta: JSON Lines" -- "$BIN" scan "$FX/kumomta.jsonl"
expect_lines 7 "kumomta: one object per record" out
expect_out '"program":"kumod","format":"kumomta","queueid":"1d98076abbbc11ed940250ebf67f93bd","recipient":"alice@example.org","orig_recipient":"","sender":"news@sender.example.com","relay":"mx1.example.org\[192.0.2.10\]","action":"sent","replycode":"250","status":"2.0.0"' "kumomta: Delivery is sent, peer_address as relay"
expect_out '"recipient":"bob@gmail.example".*"action":"bounced","replycode":"550","status":"5.1.1".*"diagnosticcode":"550 5.1.1 The email account that you tried to reach does not exist.*"command":"RCPT","delay":5,"reason":"userunknown","hardbounce":true' "kumomta: Bounce, reply from code + enhanced_code + content, RCPT"
expect_out '"timestamp":1705072560,.*"recipient":"carol@yahoo.example".*"action":"deferred","replycode":"421","status":"4.7.0".*"command":"MAIL","delay":62,"reason":"badreputation"' "kumomta: TransientFailure, RFC 3339 times"
expect_out '"recipient":"dave@down.example","orig_recipient":"","sender":"news@sender.example.com","relay":"source2->mx.down.example","action":"deferred","replycode":"451","status":"4.4.1".*"reason":"networkerror"' "kumomta: internal connection failure, site as relay"
expect_out '"recipient":"dave@down.example".*"action":"expired","replycode":"551","status":"5.4.7".*"delay":432002,"reason":"expired"' "kumomta: Expiration"
expect_out '"recipient":"erin@example.net".*"action":"bounced","replycode":"551","status":"5.7.1"' "kumomta: AdminBounce"
expect_out '"recipient":"frank@example.com".*"relay":"mx.example.com\[203.0.113.8\]","action":"bounced","replycode":"552","status":"5.2.2".*"reason":"mailboxfull"' "kumomta: OOB"

# --- Exchange message tracking
# 5 head lines, RECEIVE, DSN and AGENTINFO skipped; DELIVER to two recipients
counts exchange-msgtrk.log 14 5 6 8 1
expect_exit 0 "exchange: JSON Lines" -- "$BIN" scan "$FX/exchange-msgtrk.log"
expect_lines 6 "exchange: one object per record" out
expect_out '"timestamp":1705072501,"timezoneoffset":"\+0000","host":"","program":"SMTP","format":"exchange","queueid":"41231686451201","recipient":"alice@example.org","orig_recipient":"","sender":"news@example.com","relay":"mx1.example.org\[192.0.2.10\]","action":"sent","replycode":"250","status":"2.6.0"' "exchange: SEND is sent, internal-message-id, relay"
expect_out '"recipient":"bob@example.net".*"action":"bounced","replycode":"550","status":"5.1.1".*"diagnosticcode":"550 5.1.1 RESOLVER.ADR.RecipNotFound; not found".*"reason":"userunknown","hardbounce":true' "exchange: FAIL with RESOLVER.ADR.RecipNotFound is userunknown"
expect_out '"recipient":"carol@slow.example".*"relay":"198.51.100.9","action":"deferred","replycode":"441","status":"4.4.1","dsn":"","diagnosticcode":"441 4.4.1 Error encountered while communicating with primary target IP address: \\"Failed to connect.*198.51.100.9:25".*"retry":true' "exchange: DEFER, the reply is LED="
expect_out '"program":"STOREDRIVER".*"recipient":"dave@example.com".*"action":"sent"' "exchange: DELIVER, first recipient"
expect_out '"recipient":"erin@example.com".*"action":"sent"' "exchange: DELIVER, second recipient"
expect_out '"recipient":"carol@slow.example".*"action":"expired","replycode":"550","status":"4.4.7".*"reason":"expired"' "exchange: FAIL with QUEUE.Expired is an expiry"
expect_exit 0 "exchange: no #Fields: the default order" -- "$BIN" scan "$FX/exchange-nofields.log"
expect_lines 2 "exchange: default order, 2 records" out
expect_out '"recipient":"judy@contoso.example".*"relay":"contoso-example.mail.protection.outlook.com\[52.101.68.12\]","action":"bounced","replycode":"550","status":"5.7.606".*"reason":"blocked"' "exchange: default order, Microsoft's banned sending IP"

# --- Microsoft 365 message trace
counts m365-trace.csv 9 4 4 5 0
counts m365-extended.csv 3 2 3 1 0
counts m365-detail.csv 3 1 1 2 0
expect_exit 0 "m365: Get-MessageTraceV2 export" -- "$BIN" scan "$FX/m365-trace.csv"
expect_out '"timestamp":1705072501,"timezoneoffset":"\+0000","host":"","program":"","format":"m365","queueid":"e4b3a6f2-1c2d-4e5f-8a9b-0c1d2e3f4a5b","recipient":"alice@example.org","orig_recipient":"","sender":"news@contoso.example","relay":"192.0.2.10","action":"sent"' "m365: Delivered is sent; en-US PM time, MessageTraceId, ToIP"
expect_out '"recipient":"bob@example.net".*"action":"bounced"' "m365: Failed is bounced"
expect_out '"timestamp":1705017900,.*"recipient":"carol@slow.example".*"action":"deferred"' "m365: Pending is deferred; 12:05 AM, a quoted subject with a comma"
expect_out '"timestamp":1705072740,.*"recipient":"frank@example.com".*"action":"sent"' "m365: ISO 8601 time with 7 fraction digits"
expect_exit 0 "m365: extended report" -- "$BIN" scan "$FX/m365-extended.csv"
expect_lines 3 "m365: extended, a record per recipient with a final event" out
expect_out '"queueid":"1341ac7b13fb42ab4d4408cf7f55890f","recipient":"alice@example.org".*"action":"sent"' "m365: extended, Receive, Send is sent"
expect_out '"recipient":"bob@example.net","orig_recipient":"","sender":"news@contoso.example".*"action":"bounced"' "m365: extended, Receive, Fail is bounced"
expect_out '"recipient":"carol@slow.example".*"action":"deferred"' "m365: extended, Defer is deferred"
expect_exit 0 "m365: trace detail" -- "$BIN" scan "$FX/m365-detail.csv"
expect_out '"recipient":"".*"action":"bounced","replycode":"550","status":"5.1.10".*"diagnosticcode":"550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient bob@example.net not found by SMTP address lookup".*"reason":"userunknown"' "m365: detail Fail, the reply is LED="
# every format of this file in one run, each input with its own header
expect_exit 0 "all formats in one run" -- "$BIN" scan --summary "$FX/powermta-fields.csv" "$FX/exchange-msgtrk.log" "$FX/m365-trace.csv" "$FX/kumomta.jsonl" "$FX/m365-extended.csv" "$FX/powermta-noheader.csv" "$FX/postfix.log"
expect_out '^  delivery lines: 36 \(records: 38\)' "all formats: 2 + 5 + 4 + 7 + 2 + 2 + 14 delivery lines"
