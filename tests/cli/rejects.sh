#!/bin/sh
# Reject records: what the MTA's own server refused a client (docs/rejects.md),
# over fixtures written from the MTAs' format strings (Postfix smtpd_check.c
# log_whatsup(), cleanup_message.c cleanup_act_log(), postscreen_early.c and
# postscreen_smtpd.c; Exim's ACL log lines; Sendmail's ruleset and milter
# lines) and postfix-grok-patterns style envelopes. Times are read as UTC.
. "$(dirname "$0")/lib.sh"
FX=tests/fixtures/logs
export TZ=UTC

# rec FILE: the records of FILE as "key=value|..." lines, one a record, for grep
rec() {
	"$BIN" scan --utc "$1" | sed -E 's/,"(issues|fixer|evidence)":\[[^]]*\]//g' >"$TMP/json"
	# keep only the members the checks name, in a fixed order
	while IFS= read -r l; do
		out=""
		for k in queueid client clientip helo sender recipient stage replycode status deliverystatus reason advice list action; do
			v=$(printf '%s\n' "$l" | sed -nE "s/.*\"$k\":\"([^\"]*)\".*/\\1/p")
			out="$out$k=$v|"
		done
		w=$(printf '%s\n' "$l" | sed -nE 's/.*"warning":(true|false).*/\1/p')
		printf '%swarning=%s|\n' "$out" "$w"
	done <"$TMP/json"
}

# has FILE DESCRIPTION PATTERN: a record of FILE matches (grep -E on rec's lines)
has() {
	n=$((n + 1))
	if grep -Eq -- "$3" "$TMP/rec-$(basename "$1")"; then echo "ok $n - $2"; else
		echo "not ok $n - $2 (no record /$3/)"; sed 's/^/#   /' "$TMP/rec-$(basename "$1")" | head -3; fi
}

for f in postfix-rejects.log exim_rejectlog sendmail-rejects.log rejects-forms.log; do
	rec "$FX/$f" >"$TMP/rec-$f"
done

# ---- Postfix smtpd: every stage
P=$FX/postfix-rejects.log
has $P "CONNECT: client, ip, stage, code, status, reason" \
	'^queueid=\|client=unknown\|clientip=198\.51\.100\.20\|helo=\|sender=\|recipient=\|stage=CONNECT\|replycode=554\|status=5\.7\.1\|deliverystatus=5\.7\.1\|reason=blocked\|'
has $P "EHLO is the HELO stage, helo= read" \
	'client=bad\.example\.net\|clientip=198\.51\.100\.21\|helo=localhost\|sender=\|recipient=\|stage=HELO\|replycode=504\|status=5\.5\.2\|'
has $P "MAIL: the sender" \
	'helo=mail\.example\.net\|sender=ceo@example\.com\|recipient=\|stage=MAIL\|replycode=553\|status=5\.7\.1\|deliverystatus=5\.7\.1\|reason=rejected\|'
has $P "RCPT Relay access denied: normal policy, nothing for the operator to do" \
	'client=mail\.example\.net\|clientip=198\.51\.100\.22\|helo=mail\.example\.net\|sender=spammer@example\.net\|recipient=victim@example\.org\|stage=RCPT\|replycode=554\|status=5\.7\.1\|deliverystatus=5\.7\.1\|reason=norelaying\|advice=none\|list=\|action=rejected\|warning=false'
has $P "RCPT User unknown inbound: the remote sender's problem" \
	'client=unknown\|clientip=203\.0\.113\.40\|helo=bot\|sender=a@example\.net\|recipient=nobody@example\.com\|stage=RCPT\|replycode=550\|status=5\.1\.1\|deliverystatus=5\.1\.1\|reason=userunknown\|advice=none\|'
has $P "RCPT blocked using: the zone in list (a reply with '; ' of its own)" \
	'clientip=203\.0\.113\.41\|helo=pc41\|sender=x@example\.net\|recipient=alice@example\.com\|stage=RCPT\|replycode=554\|status=5\.7\.1\|deliverystatus=5\.7\.1\|reason=blocked\|advice=none\|list=zen\.spamhaus\.org\|'
has $P "RCPT 450 no reverse hostname" \
	'clientip=203\.0\.113\.42\|helo=pc42\|sender=y@example\.net\|recipient=bob@example\.com\|stage=RCPT\|replycode=450\|status=4\.7\.1\|deliverystatus=4\.7\.1\|reason=requireptr\|'
has $P "DATA stage, null sender" \
	'clientip=198\.51\.100\.22\|helo=mail\.example\.net\|sender=\|recipient=\|stage=DATA\|replycode=554\|status=5\.5\.1\|'
has $P "END-OF-MESSAGE with a queue id is END-OF-DATA" \
	'^queueid=4C1D2E3F4A\|client=mail\.example\.net\|clientip=198\.51\.100\.22\|helo=mail\.example\.net\|sender=big@example\.net\|recipient=carol@example\.com\|stage=END-OF-DATA\|replycode=552\|status=5\.3\.4\|deliverystatus=5\.3\.4\|reason=emailtoolarge\|'
has $P "reject_warning is a warning" \
	'clientip=203\.0\.113\.43\|helo=pc43\|sender=z@example\.net\|recipient=dave@example\.com\|stage=RCPT\|replycode=450\|status=4\.7\.1\|deliverystatus=4\.7\.1\|reason=requireptr\|.*warning=true'
has $P "milter-reject: status without a reply code" \
	'^queueid=4C1D2E3F4B\|client=mail\.example\.net\|clientip=198\.51\.100\.22\|helo=mail\.example\.net\|sender=s@example\.net\|recipient=erin@example\.com\|stage=END-OF-DATA\|replycode=\|status=5\.7\.1\|deliverystatus=5\.7\.1\|reason=spamdetected\|.*warning=false'
has $P "cleanup header_checks: HEADER stage, a header with ';'" \
	'^queueid=4C1D2E3F4C\|client=mail\.example\.net\|clientip=198\.51\.100\.22\|helo=mail\.example\.net\|sender=s@example\.net\|recipient=frank@example\.com\|stage=HEADER\|replycode=\|status=5\.7\.1\|deliverystatus=5\.7\.1\|reason=spamdetected\|'
has $P "cleanup body_checks: BODY stage" \
	'^queueid=4C1D2E3F4D\|client=mail\.example\.net\|clientip=198\.51\.100\.22\|helo=mail\.example\.net\|sender=s@example\.net\|recipient=grace@example\.com\|stage=BODY\|replycode=\|status=5\.7\.1\|'
has $P "own lookup failure: the operator acts" \
	'clientip=203\.0\.113\.44\|helo=pc44\|sender=q@example\.net\|recipient=heidi@example\.com\|stage=RCPT\|replycode=451\|status=4\.3\.0\|deliverystatus=4\.3\.0\|reason=systemerror\|advice=contact-recipient-admin\|'
has $P "VRFY stage" 'recipient=root\|stage=VRFY\|replycode=550\|status=5\.1\.1\|'
has $P "IPv6 client, submission instance" \
	'client=unknown\|clientip=2001:db8:5::17\|helo=\[IPv6:2001:db8:5::17\]\|sender=me@example\.com\|recipient=lou@example\.org\|stage=RCPT\|replycode=554\|status=5\.7\.1\|deliverystatus=5\.7\.1\|reason=norelaying\|'

# ---- postscreen
has $P "postscreen PREGREET: a finding, a warning" \
	'client=\|clientip=203\.0\.113\.50\|helo=\|sender=\|recipient=\|stage=POSTSCREEN\|replycode=\|status=\|deliverystatus=\|reason=syntaxerror\|advice=none\|list=\|action=rejected\|warning=true'
has $P "postscreen DNSBL rank: blocked, a warning" \
	'clientip=203\.0\.113\.51\|helo=\|sender=\|recipient=\|stage=POSTSCREEN\|replycode=\|status=\|deliverystatus=\|reason=blocked\|.*warning=true'
has $P "postscreen's enforced reply: RCPT, fields with ', ', list" \
	'client=\|clientip=203\.0\.113\.51\|helo=bot51\.example\.net\|sender=spam@example\.net\|recipient=kim@example\.com\|stage=RCPT\|replycode=550\|status=5\.7\.1\|deliverystatus=5\.7\.1\|reason=blocked\|advice=none\|list=zen\.spamhaus\.org\|action=rejected\|warning=false'
has $P "postscreen COMMAND PIPELINING" 'clientip=203\.0\.113\.52\|.*stage=POSTSCREEN\|.*reason=syntaxerror\|.*warning=true'
has $P "postscreen NON-SMTP COMMAND" 'clientip=203\.0\.113\.53\|.*stage=POSTSCREEN\|.*reason=syntaxerror\|.*warning=true'
has $P "postscreen BARE NEWLINE" 'clientip=203\.0\.113\.54\|.*stage=POSTSCREEN\|.*reason=syntaxerror\|.*warning=true'
has $P "postscreen HANGUP: no reason, no one at fault" 'clientip=203\.0\.113\.55\|.*stage=POSTSCREEN\|.*warning=true'
n=$((n + 1))
if ! grep -q 'recipient=ivan@\|recipient=judy@' "$TMP/rec-postfix-rejects.log"; then
	echo "ok $n - filter: and cleanup's warning: are no rejects"; else echo "not ok $n - filter: or warning: made a record"; fi

expect_exit 0 "postfix rejects: --summary" -- "$BIN" scan --summary "$P"
expect_out '^lines read: +30$' "30 lines read"
expect_out '^  delivery lines: 0 \(records: 23\)' "no delivery line, 23 records"
expect_out '^  skipped: +7 ' "connect, filter, client=, message-id=, warning:, CONNECT, DISCONNECT skipped"
expect_out '^  reject lines: +23 ' "23 reject lines: the lines add up"
expect_out '^rejects \(this server.s refusals\): 23 \(7 only logged: warnings\)' "rejects and warnings (reject_warning, postscreen's findings) counted"
expect_out '^ +5  blocked$' "by reason"
expect_out '^ +13  203\.0\.113\.0/24$' "by client network, /24"
expect_out '^ +1  2001:db8:5::/48$' "IPv6 network, /48"
expect_out '^ +2  zen\.spamhaus\.org$' "by block list"

# ---- Exim
E=$FX/exim_rejectlog
has $E "exim RCPT: (helo) [ip]:port, I=, F=" \
	'^queueid=\|client=\|clientip=198\.51\.100\.30\|helo=bot\.example\|sender=spam@example\.net\|recipient=nobody@example\.com\|stage=RCPT\|replycode=\|status=\|deliverystatus=\|reason=userunknown\|advice=none\|list=\|action=rejected\|warning=false'
has $E "exim relay not permitted: name [ip]" \
	'client=mail\.example\.net\|clientip=198\.51\.100\.31\|helo=\|sender=s@example\.net\|recipient=lou@example\.org\|stage=RCPT\|replycode=\|status=\|deliverystatus=\|reason=norelaying\|'
has $E "exim temporarily rejected: name (helo) [ip]" \
	'client=mail\.example\.net\|clientip=198\.51\.100\.32\|helo=helo\.example\.net\|sender=s@example\.net\|recipient=amy@example\.com\|stage=RCPT\|'
has $E "exim rejected MAIL: the sender from the command" \
	'clientip=203\.0\.113\.33\|helo=pc33\|sender=forged@example\.com\|recipient=\|stage=MAIL\|replycode=\|status=\|deliverystatus=\|reason=rejected\|'
has $E "exim rejected after DATA, with a message id" \
	'^queueid=1rhAbc-000123-AB\|client=mail\.example\.net\|clientip=198\.51\.100\.34\|helo=helo\.example\.net\|sender=s@example\.net\|recipient=\|stage=END-OF-DATA\|replycode=\|status=\|deliverystatus=\|reason=virusdetected\|'
has $E "exim rejected EHLO or HELO" 'clientip=203\.0\.113\.35\|helo=localhost\|sender=\|recipient=\|stage=HELO\|'
has $E "exim rejected connection: is listed at ZONE" 'clientip=203\.0\.113\.36\|helo=\|sender=\|recipient=\|stage=CONNECT\|.*list=zen\.spamhaus\.org\|'
has $E "exim dnslists message: blocked using ZONE" 'clientip=203\.0\.113\.37\|helo=pc37\|sender=x@example\.net\|recipient=cat@example\.com\|stage=RCPT\|.*reason=blocked\|.*list=bl\.spamcop\.net\|'
has $E "exim protocol synchronization error: a rejected connection" 'clientip=203\.0\.113\.38\|helo=\|sender=\|recipient=\|stage=CONNECT\|replycode=\|status=\|deliverystatus=\|reason=syntaxerror\|advice=none\|'
expect_exit 0 "exim reject log: --summary" -- "$BIN" scan --summary "$E"
expect_out '^lines read: +12$' "12 lines read"
expect_out '^  skipped: +3 ' "the reject log's header lines are skipped"
expect_out '^  reject lines: +9 ' "9 reject lines"

# ---- Sendmail
S=$FX/sendmail-rejects.log
has $S "sendmail check_rcpt: Relaying denied" \
	'^queueid=424A0001008001\|client=mail\.example\.net\|clientip=198\.51\.100\.40\|helo=\|sender=\|recipient=lou@example\.org\|stage=RCPT\|replycode=550\|status=5\.7\.1\|deliverystatus=5\.7\.1\|reason=norelaying\|advice=none\|'
has $S "sendmail check_mail: the sender" \
	'clientip=198\.51\.100\.41\|helo=\|sender=s@nowhere\.example\|recipient=\|stage=MAIL\|replycode=553\|status=5\.1\.8\|deliverystatus=5\.1\.8\|reason=rejected\|'
has $S "sendmail check_relay: (may be forged)" \
	'client=pc42\.example\.net\|clientip=203\.0\.113\.42\|helo=\|sender=\|recipient=\|stage=CONNECT\|replycode=554\|status=5\.7\.1\|deliverystatus=5\.7\.1\|reason=blocked\|'
has $S "sendmail relay=[ip]" 'client=\|clientip=203\.0\.113\.43\|helo=\|sender=\|recipient=nobody@example\.com\|stage=RCPT\|replycode=550\|status=5\.1\.1\|deliverystatus=5\.1\.1\|reason=userunknown\|'
has $S "sendmail Milter: data" 'stage=END-OF-DATA\|replycode=554\|status=5\.7\.1\|'
has $S "sendmail Milter: to=" 'recipient=max@example\.com\|stage=RCPT\|replycode=550\|status=5\.7\.1\|'

# ---- envelopes: RFC 5424, RFC 3339, IPv6, "unknown", Exim through syslog
F=$FX/rejects-forms.log
has $F "RFC 5424 line, IPv6 client" \
	'client=unknown\|clientip=2001:db8::25\|helo=v6\.example\.net\|sender=a@example\.net\|recipient=nobody@example\.com\|stage=RCPT\|replycode=550\|status=5\.1\.1\|deliverystatus=5\.1\.1\|reason=userunknown\|'
has $F "RFC 3339 line, client port logged" \
	'client=unknown\|clientip=198\.51\.100\.60\|helo=pc60\|sender=s@example\.net\|recipient=lou@example\.org\|stage=RCPT\|replycode=554\|status=5\.7\.1\|deliverystatus=5\.7\.1\|reason=norelaying\|'
has $F "postscreen, IPv6, Z time" \
	'clientip=2001:db8:1:2::61\|helo=v6bot\|sender=x@example\.net\|recipient=amy@example\.com\|stage=RCPT\|replycode=550\|status=5\.7\.1\|deliverystatus=5\.7\.1\|reason=blocked\|.*list=b\.barracudacentral\.org\|'
has $F "IPv6: before the address is dropped" \
	'client=unknown\|clientip=2001:db8::62\|helo=pc62\|sender=bad@nxdomain\.example\|recipient=bob@example\.com\|stage=RCPT\|replycode=450\|status=4\.1\.8\|deliverystatus=4\.1\.8\|reason=rejected\|'
has $F "exim through syslog, its own time inside" \
	'clientip=198\.51\.100\.63\|helo=pc63\|sender=x@example\.net\|recipient=cat@example\.com\|stage=RCPT\|.*reason=userunknown\|'
has $F "postscreen BLACKLISTED: blocked, a warning" 'clientip=198\.51\.100\.64\|.*stage=POSTSCREEN\|.*reason=blocked\|advice=none\|.*warning=true'
has $F "postscreen COMMAND LENGTH LIMIT: a protocol error" 'clientip=198\.51\.100\.65\|.*stage=POSTSCREEN\|.*reason=syntaxerror\|.*warning=true'
has $F "postscreen COMMAND TIME LIMIT: no reason read from its words (after EHLO names no refusal)" 'clientip=2001:db8:9::66\|.*stage=POSTSCREEN\|.*reason=undefined\|advice=none\|.*warning=true'
has $F "postscreen too many connections: CONNECT, no fields" 'clientip=198\.51\.100\.67\|helo=\|sender=\|recipient=\|stage=CONNECT\|replycode=\|.*warning=false'
has $P "postscreen HANGUP: undefined, no one at fault" 'clientip=203\.0\.113\.55\|.*stage=POSTSCREEN\|.*reason=undefined\|advice=none\|'
expect_exit 0 "times" -- "$BIN" scan --utc "$F"
expect_out '"timestamp":1709542801,"timezoneoffset":"\+0100".*"clientip":"2001:db8::25"' "RFC 5424 time with its offset"
expect_out '"timestamp":1709542803,"timezoneoffset":"\+0000".*"clientip":"2001:db8:1:2::61"' "RFC 3339 Z time"

# ---- JSON: the reject record's keys; delivery records keep theirs
expect_exit 0 "JSON" -- "$BIN" scan "$P"
expect_out '"action":"rejected",.*"evidence":\[[^]]*"inbound:remote sender -> none"\],"client":"mail\.example\.net","clientip":"198\.51\.100\.22","helo":"mail\.example\.net","stage":"RCPT","list":"","warning":false,"deliverystatus":"5\.7\.1"\}$' \
	"a reject record ends in client, clientip, helo, stage, list, warning, deliverystatus; its trail names the view"
expect_out '"fixer":\["recipient-admin"\].*"inbound:own server -> contact-recipient-admin"' "own failure: recipient-admin acts"
expect_exit 0 "delivery JSON" -- "$BIN" scan "$FX/postfix.log"
n=$((n + 1))
if grep -q '"clientip"\|"stage"\|"deliverystatus"\|"warning"' "$TMP/out"; then echo "not ok $n - delivery records got reject keys"; else
	echo "ok $n - delivery records have no reject keys"; fi

# ---- --rejects, --failures
cat "$FX/postfix.log" "$P" >"$TMP/mixed.log"
expect_exit 0 "--rejects" -- "$BIN" scan --rejects "$TMP/mixed.log"
expect_lines 23 "--rejects writes the 23 rejects" out
expect_count() { n=$((n + 1)); got=$(grep -c -- "$1" "$TMP/out"); if [ "$got" -eq "$2" ]; then echo "ok $n - $3"; else echo "not ok $n - $3 ($got, want $2)"; fi; }
expect_count '"action":"rejected"' 23 "only rejects"
expect_exit 0 "--failures" -- "$BIN" scan --failures "$TMP/mixed.log"
expect_count '"action":"rejected"' 0 "--failures leaves the rejects out"
"$BIN" scan --failures "$FX/postfix.log" >"$TMP/f1" 2>/dev/null
n=$((n + 1))
if cmp -s "$TMP/f1" "$TMP/out"; then echo "ok $n - --failures writes the delivery failures as before"; else echo "not ok $n - --failures changed"; fi
expect_exit 0 "--failures --rejects" -- "$BIN" scan --failures --rejects "$TMP/mixed.log"
expect_count '"action":"rejected"' 23 "both: the rejects"
expect_count '"action":"sent"' 0 "both: no sent attempt"
expect_exit 0 "--summary JSON" -- "$BIN" scan --summary --format json "$TMP/mixed.log"
expect_out '"reject":23,' "JSON: the reject line counter"
expect_out '"rejects":\{"count":23,"warnings":7,"reason":\{"rows":\[\{"key":"blocked","count":5\}' "JSON: the rejects tables"
expect_out '"network":\{"rows":\[\{"key":"203\.0\.113\.0/24","count":13\},\{"key":"198\.51\.100\.0/24","count":9\}' "JSON: by network"
expect_out '"list":\{"rows":\[\{"key":"zen\.spamhaus\.org","count":2\}\]' "JSON: by list"
expect_out '"action":\{"rows":\[\{"key":"rejected","count":23\}' "JSON: rejects by action"

# ---- the store: a reject is no bounce of its recipient
expect_exit 0 "scan --store" -- "$BIN" scan --store "sqlite:$TMP/rej.db" "$P"
expect_exit 0 "stats" -- "$BIN" store --store "sqlite:$TMP/rej.db" stats --format json
expect_out '"kind":\{"other":23\}' "every reject is kind other: none a hard bounce"
expect_exit 0 "show" -- "$BIN" store --store "sqlite:$TMP/rej.db" show nobody@example.com --format json
expect_out '"suppressed":false' "User unknown refused inbound does not suppress the address"
expect_out '"kind":"other"' "recorded as other"
"$BIN" scan "$P" | "$BIN" store --store "sqlite:$TMP/rej2.db" ingest >/dev/null 2>&1
expect_exit 0 "ingest of scan's JSON" -- "$BIN" store --store "sqlite:$TMP/rej2.db" show nobody@example.com --format json
expect_out '"suppressed":false' "store ingest of a reject record does not suppress either"
