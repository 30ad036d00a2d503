#!/bin/sh
# CLI tests of `smtpdiag decode` over ESP webhook events (tests/fixtures/esp/).
. "$(dirname "$0")/lib.sh"
E=tests/fixtures/esp

# expect_rec FILE RECIPIENT PATTERN...: the record of RECIPIENT in the last
# stdout matches every PATTERN (grep -E), one test for all of them.
expect_rec() {
	n=$((n + 1))
	line=$(grep -F "\"recipient\":\"$1\"" "$TMP/out" | head -1)
	shift
	what=$*
	for pat in "$@"; do
		if ! printf '%s\n' "$line" | grep -Eq -- "$pat"; then
			echo "not ok $n - $what (lacks /$pat/)"; printf '#   %s\n' "$line" | cut -c1-300
			return
		fi
	done
	echo "ok $n - $what"
}
# expect_no_rec RECIPIENT PATTERN DESCRIPTION: no record of RECIPIENT in
# the last stdout matches PATTERN ('.' : there is no record of it at all).
expect_no_rec() {
	n=$((n + 1))
	if grep -F "\"recipient\":\"$1\"" "$TMP/out" | grep -Eq -- "$2"; then
		echo "not ok $n - $3"; grep -F "\"recipient\":\"$1\"" "$TMP/out" | head -1 | cut -c1-300 | sed 's/^/#   /'
	else
		echo "ok $n - $3"
	fi
}
# expect_counts WHAT FILE EVENTS DECIDED IGNORED: decode --summary of FILE reads
# EVENTS events, of which DECIDED give records and IGNORED are ignored
expect_counts() {
	expect_exit 0 "$1: summary" -- "$BIN" decode --summary "$2"
	expect_out "^events: +$3\$" "$1: $3 events read"
	expect_out "^  decided: +$4\$" "$1: $4 decided"
	expect_out "^  ignored: +$5\$" "$1: $5 ignored"
}
FAIL='"action":"failed"'
DELAY='"action":"delayed"'
HARD='"hardbounce":true'
SOFT='"hardbounce":false'
FEED='"reason":"feedback"'

expect_exit 0 "SES: SNS notification with the event in Message" -- "$BIN" decode "$E/ses/sns-bounce-permanent.json"
expect_lines 1 "SES: one bounced recipient" out
expect_rec gone@mail.example.net "$FAIL" "$HARD" '"reason":"userunknown"' '"replycode":"550"' \
	'"esp":"ses"' '"esp_event":"bounce/Permanent/General"' '"addresser":"billing@shop.example.com"' \
	'"timestamp":1709547302'
expect_exit 0 "SES: raw transient bounce" -- "$BIN" decode "$E/ses/raw-bounce-transient.json"
expect_rec full@mail.example.org "$FAIL" "$SOFT" '"reason":"mailboxfull"' '"deliverystatus":"4\.'
expect_exit 0 "SES: suppressed" -- "$BIN" decode "$E/ses/bounce-suppressed.json"
expect_rec listed@mail.example.net "$FAIL" '"reason":"suppressed"'
expect_exit 0 "SES: complaint" -- "$BIN" decode "$E/ses/complaint.json"
expect_rec angry@mail.example.net "$FEED" '"esp_event":"complaint/abuse"'
expect_exit 0 "SES: delivery delay" -- "$BIN" decode "$E/ses/delivery-delay.json"
expect_rec slow@mail.example.org "$DELAY" "$SOFT" '"retry":true' '"replycode":"421"'
expect_exit 0 "SES: a delivery gives nothing" -- "$BIN" decode "$E/ses/delivery.json"
expect_lines 0 "SES: no record for a delivery" out
expect_exit 0 "SES: a delivery with --all-events" -- "$BIN" decode --all-events "$E/ses/delivery.json"
expect_rec ok@mail.example.org '"reason":"delivered"' '"action":"delivered"'

# SES as it documents its event types: Rendering Failure and Reject (nothing
# sent: the sender's template, a virus), DeliveryDelay by delay type, a complaint
# that is the account's suppression list; not-spam, Send and Subscription ignored
expect_exit 0 "SES: the documented event types" -- "$BIN" decode "$E/ses/events.jsonl"
expect_lines 6 "SES: six records (not-spam, Send and Subscription give none)" out
expect_rec render@mail.example.net "$FAIL" '"reason":"contenterror"' '"advice":"fix-message"' \
	'"esp_event":"renderingfailure/WelcomeTemplate"' "Attribute 'name' is not present"
expect_rec virus@mail.example.net "$FAIL" '"reason":"virusdetected"' '"esp_event":"reject/Bad content"'
expect_rec byoip@mail.example.org "$DELAY" '"reason":"requireptr"' '"retry":true'
expect_rec deferred@mail.example.org "$DELAY" '"retry":true' '"esp_event":"deliverydelay/SendingDeferral"'
expect_rec listed-c@mail.example.net "$FAIL" '"reason":"suppressed"' '"esp_event":"complaint/OnAccountSuppressionList"'
expect_rec fraud@mail.example.net "$FEED" '"feedbacktype":"fraud"'
expect_exit 0 "SES: ignored by name" -- "$BIN" decode --summary "$E/ses/events.jsonl"
expect_out '^  decided: +6$' "SES: six events decided"
expect_out '^  ignored: +3$' "SES: not-spam, Send and Subscription ignored"
expect_exit 0 "SES: every bounce type and sub-type" -- "$BIN" decode "$E/ses/bounce-types.jsonl"
expect_lines 10 "SES: one record per bounce" out
expect_rec undetermined@mail.example.net "$FAIL" '"esp_event":"bounce/Undetermined/Undetermined"'
expect_rec general@mail.example.net "$FAIL" '"esp_event":"bounce/Permanent/General"'
expect_rec noemail@mail.example.net "$FAIL" "$HARD" '"reason":"userunknown"'
expect_rec suppressed@mail.example.net "$FAIL" '"reason":"suppressed"'
expect_rec onaccount@mail.example.net "$FAIL" '"reason":"suppressed"'
expect_rec tgeneral@mail.example.net "$FAIL" "$SOFT" '"esp_event":"bounce/Transient/General"'
expect_rec mbfull@mail.example.net "$FAIL" "$SOFT" '"reason":"mailboxfull"'
expect_rec toolarge@mail.example.net "$FAIL" "$SOFT" '"reason":"emailtoolarge"'
expect_rec content@mail.example.net "$FAIL" "$SOFT" '"reason":"contenterror"'
expect_rec attach@mail.example.net "$FAIL" "$SOFT" '"reason":"contenterror"'

expect_exit 0 "SendGrid: an array of events" -- "$BIN" decode "$E/sendgrid/events.json"
expect_lines 5 "SendGrid: bounce, blocked, deferred, dropped, spamreport" out
expect_rec nobody@mail.example.net "$FAIL" "$HARD" '"reason":"userunknown"' '"esp_event":"bounce/bounce/Invalid Address"'
expect_rec listed@mail.example.org "$FAIL" "$SOFT" '"reason":"blocked"' '"esp_event":"bounce/blocked'
expect_rec later@mail.example.org "$DELAY" "$SOFT" '"replycode":"451"'
expect_rec suppressed@mail.example.net "$FAIL" '"reason":"suppressed"' '"esp_event":"dropped"'
expect_rec angry@mail.example.net "$FEED"
expect_exit 0 "SendGrid: --all-events adds delivered and open" -- "$BIN" decode --all-events "$E/sendgrid/events.json"
expect_lines 7 "SendGrid: seven records" out
expect_exit 0 "surrogate pairs decode to one character" -- "$BIN" decode "$E/sendgrid/surrogate.json"
expect_out "mailbox $(printf '\360\237\230\200') unknown" "U+1F600 from \\ud83d\\ude00"

expect_exit 0 "Mailgun: failed, permanent" -- "$BIN" decode "$E/mailgun/failed-permanent.json"
expect_rec alice@mail.example.net "$FAIL" "$HARD" '"reason":"userunknown"' '"replycode":"550"' \
	'"esp_event":"failed/permanent/bounce"' '"subject":"Spring sale"'
expect_exit 0 "Mailgun: failed, temporary" -- "$BIN" decode "$E/mailgun/failed-temporary.json"
expect_rec bob@mail.example.org "$DELAY" "$SOFT" '"reason":"mailboxfull"'
expect_exit 0 "Mailgun: complained" -- "$BIN" decode "$E/mailgun/complained.json"
expect_rec angry@mail.example.net "$FEED"
expect_exit 0 "Mailgun: legacy form post" -- "$BIN" decode "$E/mailgun/legacy-bounced.form"
expect_rec carol@mail.example.net "$FAIL" "$HARD" '"reason":"userunknown"' '"esp":"mailgun"'

expect_exit 0 "Mailgun: rejected names its recipients in the To header" -- "$BIN" decode "$E/mailgun/rejected.json"
expect_lines 2 "Mailgun: rejected, one record per recipient" out
expect_rec jo@mail.example.net "$FAIL" '"reason":"rejected"' '"advice":"fix-sender-config"' '"esp_event":"rejected"' \
	'Sandbox subdomains'
expect_rec kim@mail.example.org "$FAIL" '"reason":"rejected"'
expect_exit 0 "Mailgun: severity and delivery-status" -- "$BIN" decode "$E/mailgun/events.jsonl"
expect_lines 3 "Mailgun: three failures (accepted, unsubscribed, stored, delivered give none)" out
expect_rec grey@mail.example.org "$DELAY" '"retry":true' '"deliverystatus":"4\.7\.1"' '"rhost":"mx\.mail\.example\.org"' \
	'"esp_event":"failed/temporary/greylisted"'
expect_rec was@mail.example.net "$FAIL" '"reason":"suppressed"'
expect_rec gone2@mail.example.net "$FAIL" "$HARD" '"deliverystatus":"5\.1\.1"' '"replycode":"550"'
expect_exit 0 "Mailgun: ignored by name" -- "$BIN" decode --summary "$E/mailgun/events.jsonl"
expect_out '^  ignored: +4$' "Mailgun: accepted, unsubscribed, stored, delivered ignored"

expect_exit 0 "Postmark: hard bounce" -- "$BIN" decode "$E/postmark/bounce-hard.json"
expect_rec dave@mail.example.net "$FAIL" "$HARD" '"reason":"userunknown"' '"esp_event":"Bounce/HardBounce/1"'
expect_exit 0 "Postmark: soft bounce without text" -- "$BIN" decode "$E/postmark/bounce-soft-notext.json"
expect_rec erin@mail.example.org "$FAIL" "$SOFT" '"deliverystatus":"4\.'
expect_exit 0 "Postmark: spam complaint" -- "$BIN" decode "$E/postmark/spam-complaint.json"
expect_rec frank@mail.example.net "$FEED"

expect_exit 0 "Postmark: every documented bounce type" -- "$BIN" decode "$E/postmark/bounce-types.jsonl"
expect_lines 14 "Postmark: 14 records (Unsubscribe, Subscribe, AutoResponder, AddressChange, OpenRelayTest, Unconfirmed, InboundError give none)" out
expect_rec transient@mail.example.net "$DELAY" '"retry":true' '"esp_event":"Bounce/Transient/2"'
expect_rec dns@mail.example.net "$FAIL" '"reason":"networkerror"'
expect_rec spamnote@mail.example.net "$FAIL" '"reason":"spamdetected"'
expect_rec unknown@mail.example.net "$FAIL" '"esp_event":"Bounce/Unknown/2048"'
expect_rec soft@mail.example.net "$FAIL" "$SOFT"
expect_rec virus@mail.example.net "$FAIL" '"reason":"virusdetected"'
expect_rec challenge@mail.example.net "$FAIL" '"reason":"filtered"'
expect_rec bad@mail.example.net "$FAIL" '"reason":"userunknown"'
expect_rec complaint@mail.example.net "$FEED"
expect_rec manual@mail.example.net "$FAIL" '"reason":"suppressed"'
expect_rec blocked@mail.example.net "$FAIL" '"reason":"blocked"'
expect_rec smtpapi@mail.example.net "$FAIL" '"reason":"rejected"'
expect_rec dmarc@mail.example.net "$FAIL" '"reason":"authfailure"'
expect_rec template@mail.example.net "$FAIL" '"reason":"contenterror"' '"advice":"fix-message"'
expect_exit 0 "Postmark: the types that are no failure are ignored by name" -- "$BIN" decode --summary "$E/postmark/bounce-types.jsonl"
expect_out '^  ignored: +7$' "Postmark: seven bounce types ignored"
expect_exit 0 "Postmark: SubscriptionChange" -- "$BIN" decode "$E/postmark/subscription-change.jsonl"
expect_lines 3 "Postmark: three suppressions (the reactivation gives none)" out
expect_rec hb@mail.example.net "$FAIL" '"reason":"suppressed"' '"esp_event":"SubscriptionChange/HardBounce/Recipient"'
expect_rec spam@mail.example.net "$FEED"
expect_rec byhand@mail.example.net "$FAIL" '"reason":"suppressed"' '"esp_event":"SubscriptionChange/ManualSuppression/Customer"'

expect_exit 0 "SparkPost: msys batch" -- "$BIN" decode "$E/sparkpost/batch.json"
expect_lines 4 "SparkPost: bounce, delay, complaint, out of band (the click is ignored)" out
expect_rec gina@mail.example.net "$FAIL" "$HARD" '"reason":"userunknown"' '"esp_event":"bounce/10"'
expect_rec hank@mail.example.org "$DELAY" "$SOFT" '"reason":"mailboxfull"'
expect_rec ivy@mail.example.net "$FEED"
expect_rec jack@mail.example.org "$FAIL" '"esp_event":"out_of_band/51"'

expect_exit 0 "SparkPost: the documented event types" -- "$BIN" decode "$E/sparkpost/documented.json"
expect_lines 5 "SparkPost: five records (auto-reply, unsubscribe request, injection, unsubscribes, relay give none)" out
expect_rec gen-fail@mail.example.net "$FAIL" '"reason":"contenterror"' '"advice":"fix-message"' '"esp_event":"generation_failure"'
expect_rec gen-rej@mail.example.net "$FAIL" '"reason":"suppressed"' '"esp_event":"generation_rejection/25"'
expect_rec policy@mail.example.net "$FAIL" '"esp_event":"policy_rejection/25"' 'Unconfigured Sending Domain'
expect_rec oob@mail.example.net "$FAIL" "$HARD" '"reason":"userunknown"' '"esp_event":"out_of_band/10"'
expect_rec generic@mail.example.org '"esp_event":"bounce/40"'
expect_exit 0 "SparkPost: ignored by name" -- "$BIN" decode --summary "$E/sparkpost/documented.json"
expect_out '^  ignored: +6$' "SparkPost: six events ignored"

expect_exit 0 "Mandrill: mandrill_events form field" -- "$BIN" decode "$E/mandrill/events.form"
expect_lines 5 "Mandrill: five events" out
expect_rec liam@mail.example.net "$FAIL" "$HARD" '"reason":"userunknown"' '"esp_event":"hard_bounce/bad_mailbox"'
expect_rec mia@mail.example.org "$FAIL" "$SOFT" '"reason":"mailboxfull"'
expect_rec ned@mail.example.net "$FAIL" '"reason":"suppressed"'
expect_rec olga@mail.example.net "$FEED"
expect_rec pat@mail.example.org "$DELAY" "$SOFT" '"replycode":"421"'

expect_exit 0 "Brevo: JSON Lines" -- "$BIN" decode "$E/brevo/events.jsonl"
expect_lines 5 "Brevo: five events" out
expect_rec quinn@mail.example.net "$FAIL" "$HARD" '"reason":"userunknown"'
expect_rec rose@mail.example.org "$FAIL" "$SOFT" '"reason":"mailboxfull"'
expect_rec sam@mail.example.net "$FAIL" '"reason":"suppressed"'
expect_rec tina@mail.example.net "$FEED"
expect_rec uma@mail.example.org "$DELAY" "$SOFT"

expect_exit 0 "Mailjet" -- "$BIN" decode "$E/mailjet/events.json"
expect_rec victor@mail.example.net "$FAIL" '"reason":"userunknown"' '"esp_event":"bounce/recipient/user unknown"'
expect_rec wendy@mail.example.org "$DELAY" "$SOFT" '"reason":"mailboxfull"'
expect_rec xena@mail.example.net "$FAIL" '"reason":"suppressed"'
expect_rec yuri@mail.example.net "$FEED"
expect_exit 0 "Mailjet: each documented event" -- "$BIN" decode "$E/mailjet/documented.json"
expect_lines 5 "Mailjet: two deferrals, a bounce, two blocked (a duplicate in campaign, unsub, sent, open, click give none)" out
expect_rec greta@mail.example.org "$DELAY" "$SOFT" '"retry":true' '"esp_event":"bounce/domain/greylisted"'
expect_rec sid@mail.example.org "$DELAY" "$SOFT" '"esp_event":"bounce/system/connection issue"'
expect_rec hugo@mail.example.net "$FAIL" "$HARD" '"reason":"userunknown"'
expect_rec iris@mail.example.net "$FAIL" '"reason":"suppressed"' '"esp_event":"blocked/mailjet/spam preblocked"'
expect_rec jules@mail.example.net "$FAIL" '"reason":"contenterror"'
expect_no_rec kim@mail.example.net . "Mailjet: a duplicate in campaign is no failure (its first copy was sent)"
expect_counts "Mailjet" "$E/mailjet/documented.json" 10 5 5
expect_exit 0 "Mailjet: --all-events" -- "$BIN" decode --all-events "$E/mailjet/documented.json"
expect_lines 8 "Mailjet: sent, open and click too, never unsub or a duplicate" out

expect_exit 0 "Postal: delivery failed" -- "$BIN" decode "$E/postal/delivery-failed.json"
expect_rec zoe@mail.example.net "$FAIL" "$HARD" '"reason":"userunknown"' '"esp_event":"MessageDeliveryFailed/HardFail"'
expect_exit 0 "Postal: delayed" -- "$BIN" decode "$E/postal/delayed.json"
expect_rec amy@mail.example.org "$DELAY" "$SOFT" '"replycode":"451"'
expect_exit 0 "Postal: each documented event" -- "$BIN" decode "$E/postal/documented.jsonl"
expect_lines 3 "Postal: a bounce, two held (a pending status, sent, loaded, clicked, DNS, send limit give none)" out
expect_rec una@mail.example.net "$FAIL" '"esp_event":"MessageBounced"' '"timestamp":1709553299' \
	'"messageid":"8e9d0f8b-7b66-4f9f-8b3c-2d1f3a4b5c01@rp.postal.shop.example.com"'
expect_no_rec una@mail.example.net '"action":"delayed"|"reason":"expired"|"retry":true' "Postal: a bounce is no delay"
expect_rec vera@mail.example.net "$FAIL" '"reason":"suppressed"' '"esp_event":"MessageHeld/Held"'
expect_rec walt@mail.example.org "$DELAY" '"retry":true'
expect_no_rec walt@mail.example.org '"reason":"suppressed"' "Postal: held for the send limit suppresses nobody"
expect_no_rec xavi@mail.example.org . "Postal: a status of no failure gives no record"
expect_counts "Postal" "$E/postal/documented.jsonl" 9 3 6

expect_exit 0 "Resend: bounced, suppressed" -- "$BIN" decode "$E/resend/bounced-suppressed.json"
expect_rec ben@mail.example.net "$FAIL" '"reason":"suppressed"' '"esp_event":"email.bounced/Permanent/Suppressed"'
expect_exit 0 "Resend: delivery delayed" -- "$BIN" decode "$E/resend/delivery-delayed.json"
expect_rec cleo@mail.example.org "$DELAY" "$SOFT"
expect_exit 0 "Resend: complained" -- "$BIN" decode "$E/resend/complained.json"
expect_rec dora@mail.example.net "$FEED"

expect_exit 0 "MailerSend: hard bounced" -- "$BIN" decode "$E/mailersend/hard-bounced.json"
expect_rec eli@mail.example.net "$FAIL" "$HARD" '"reason":"hostunknown"'
expect_exit 0 "MailerSend: soft bounced" -- "$BIN" decode "$E/mailersend/soft-bounced.json"
expect_rec fay@mail.example.org "$FAIL" "$SOFT" '"reason":"mailboxfull"'

expect_exit 0 "Mailtrap" -- "$BIN" decode "$E/mailtrap/events.json"
expect_lines 3 "Mailtrap: bounce, soft bounce, spam (the delivery is ignored)" out
expect_rec gus@mail.example.net "$FAIL" "$HARD" '"reason":"userunknown"'
expect_rec hal@mail.example.org "$DELAY" "$SOFT"
expect_rec ida@mail.example.net "$FEED"
expect_exit 0 "Mailtrap: each documented event, JSON Lines" -- "$BIN" decode "$E/mailtrap/documented.jsonl"
expect_lines 5 "Mailtrap: bounce, soft bounce, suspension, reject, spam" out
expect_rec nora@mail.example.net "$FAIL" '"replycode":"555"' '"esp_event":"bounce/spam"'
expect_rec otto@mail.example.org "$DELAY" "$SOFT" '"replycode":"451"'
expect_rec pia@mail.example.org "$DELAY" '"retry":true' '"esp_event":"suspension"'
expect_no_rec pia@mail.example.org '"reason":"suppressed"|"action":"failed"' "Mailtrap: a suspension is no recipient failure"
expect_rec quin@mail.example.net "$FAIL" '"reason":"suppressed"'
expect_rec ruth@mail.example.net "$FEED"
expect_counts "Mailtrap" "$E/mailtrap/documented.jsonl" 10 5 5

expect_exit 0 "UniSender Go" -- "$BIN" decode "$E/unisender/events.json"
expect_rec kai@mail.example.net "$FAIL" "$HARD" '"reason":"userunknown"'
expect_rec lea@mail.example.org "$DELAY" "$SOFT" '"reason":"mailboxfull"'
expect_rec max@mail.example.net "$FEED"
expect_exit 0 "UniSender Go: each documented status" -- "$BIN" decode "$E/unisender/documented.json"
expect_lines 4 "UniSender Go: two hard bounces, a soft bounce, spam" out
expect_rec abel@mail.example.net "$FAIL" "$HARD" '"reason":"userunknown"' '"esp_event":"transactional_email_status/hard_bounced/err_user_unknown"'
expect_rec bea@mail.example.org "$DELAY" "$SOFT" '"retry":true'
expect_rec cyd@mail.example.net "$FEED"
expect_rec eda@mail.example.net "$FAIL" '"reason":"suppressed"' '"esp_event":"transactional_email_status/hard_bounced/err_unreachable"'
expect_counts "UniSender Go" "$E/unisender/documented.json" 11 4 7
expect_exit 0 "UniSender Go: --all-events" -- "$BIN" decode --all-events "$E/unisender/documented.json"
expect_lines 7 "UniSender Go: delivered, opened, clicked too" out

expect_exit 0 "--esp names the service" -- "$BIN" decode --esp sendgrid "$E/sendgrid/events.json"
expect_lines 5 "--esp sendgrid: the same five records" out
expect_exit 2 "--esp with an unknown name is a usage error" -- "$BIN" decode --esp nosuch "$E/sendgrid/events.json"
expect_err "unknown service 'nosuch'" "the unknown name is named"

expect_exit 1 "a bad line and an unknown event do not lose the others" -- "$BIN" decode "$E/bad/mixed.jsonl"
expect_lines 2 "the two good events decode" out
expect_err 'mixed.jsonl: line 3, column 1: ' "the bad JSON is named with line and column"
expect_err 'line 3: event 3: not an event of a known service' "the unknown event is named"
expect_exit 1 "summary counts add up" -- "$BIN" decode --summary "$E/bad/mixed.jsonl"
expect_out '^events: +4$' "4 events read"
expect_out '^  decided: +2$' "2 decided"
expect_out '^  ignored: +0$' "0 ignored"
expect_out '^  errors: +2$' "2 errors"
expect_exit 0 "summary over all fixtures" -- "$BIN" decode --summary "$E/ses" "$E/sendgrid/events.json"
expect_out '^  ignored: +6$' "deliveries, opens, sends, subscriptions and not-spam are counted as ignored"

expect_exit 0 "--taxonomy adds other systems' words" -- "$BIN" decode --taxonomy ses --taxonomy sparkpost \
	--taxonomy postmark --taxonomy kumomta --taxonomy powermta "$E/sendgrid/events.json"
expect_rec nobody@mail.example.net '"taxonomy":\{"ses":"Permanent/NoEmail","sparkpost":"10","postmark":"HardBounce/1","kumomta":"InvalidRecipient","powermta":"bad-mailbox"\}\}$'
expect_rec suppressed@mail.example.net '"ses":"Permanent/Suppressed"' '"sparkpost":"25"'
expect_rec angry@mail.example.net '"ses":"Complaint"' '"postmark":"SpamComplaint/100001"'
expect_exit 0 "--taxonomy on a bounce email" -- "$BIN" decode --taxonomy ses samples/bounces/exchange-431.eml
expect_out '"taxonomy":\{"ses":"Transient/' "a 4xx is Transient in SES's words"
expect_exit 0 "--taxonomy postmark on a full mail system" -- "$BIN" decode --taxonomy postmark \
	samples/bounces/exchange-431.eml
expect_out '"taxonomy":\{"postmark":"SoftBounce/4096"\}' "a full mail system is a SoftBounce in Postmark's words"
expect_exit 2 "--taxonomy with an unknown name is a usage error" -- "$BIN" decode --taxonomy nope "$E/sendgrid/events.json"

# SendGrid, Mandrill, Brevo, Resend and MailerSend as each documents its
# event types: every one read or ignored by name
expect_exit 0 "SendGrid: each documented event" -- "$BIN" decode "$E/sendgrid/documented.json"
expect_lines 12 "SendGrid: seven drops, a deferral, three bounces, a spam report" out
expect_rec drop-bounced@mail.example.net "$FAIL" '"reason":"suppressed"' '"esp_event":"dropped"'
expect_rec drop-unsub@mail.example.net "$FAIL" '"reason":"suppressed"'
expect_rec drop-spam@mail.example.net "$FAIL" '"reason":"suppressed"'
expect_rec drop-invalid@mail.example.net "$FAIL" '"reason":"syntaxerror"'
expect_rec drop-content@mail.example.net "$FAIL" '"reason":"spamdetected"'
expect_rec drop-smtpapi@mail.example.net "$FAIL" '"reason":"rejected"' '"advice":"fix-sender-config"'
expect_rec drop-quota@mail.example.net "$FAIL" '"reason":"rejected"'
expect_rec grey@mail.example.org "$DELAY" '"retry":true' '"replycode":"451"' '"esp_event":"deferred"'
expect_rec hard@mail.example.net "$FAIL" "$HARD" '"reason":"userunknown"' '"esp_event":"bounce/bounce/Invalid Address"'
expect_rec blockedip@mail.example.net "$FAIL" "$SOFT" '"reason":"blocked"' '"esp_event":"bounce/blocked/Reputation"'
expect_rec notext@mail.example.net "$FAIL" '"reason":"userunknown"'
expect_rec angry2@mail.example.net "$FEED"
expect_no_rec proc@mail.example.net . "SendGrid: processed gives no record"
expect_counts "SendGrid" "$E/sendgrid/documented.json" 20 12 8
expect_exit 0 "SendGrid: --all-events" -- "$BIN" decode --all-events "$E/sendgrid/documented.json"
expect_lines 15 "SendGrid: delivered, open and click too, never the unsubscribes or the account" out

expect_exit 0 "Mandrill: each documented event, message and sync" -- "$BIN" decode "$E/mandrill/documented.json"
expect_lines 7 "Mandrill: a deferral, two bounces, spam, a reject, two blacklist adds" out
expect_rec later@mail.example.org "$DELAY" '"retry":true' '"replycode":"451"'
expect_rec bad@mail.example.net "$FAIL" "$HARD" '"reason":"userunknown"'
expect_rec full@mail.example.org "$FAIL" "$SOFT" '"reason":"mailboxfull"'
expect_rec angry@mail.example.net "$FEED"
expect_rec listed@mail.example.net "$FAIL" '"reason":"suppressed"' '"esp_event":"reject"'
expect_rec blk-hard@mail.example.net "$FAIL" '"reason":"suppressed"' '"esp_event":"blacklist/add/hard-bounce"'
expect_rec blk-spam@mail.example.net "$FEED" '"esp_event":"blacklist/add/spam"'
expect_no_rec blk-unsub@mail.example.org . "Mandrill: a blacklist add for an unsubscribe is no failure"
expect_no_rec blk-gone@mail.example.net . "Mandrill: a blacklist remove gives no record"
expect_counts "Mandrill" "$E/mandrill/documented.json" 15 7 8

expect_exit 0 "Brevo: each documented event, transactional and marketing" -- "$BIN" decode "$E/brevo/documented.jsonl"
expect_lines 8 "Brevo: two bounces, blocked, spam, invalid, deferred, error, a campaign bounce" out
expect_rec hb@mail.example.net "$FAIL" "$HARD" '"reason":"userunknown"'
expect_rec sb@mail.example.org "$FAIL" "$SOFT" '"reason":"mailboxfull"'
expect_rec blk@mail.example.net "$FAIL" '"reason":"suppressed"' '"esp_event":"blocked"'
expect_rec sp@mail.example.net "$FEED"
expect_rec inv@mail.example.net "$FAIL" '"reason":"userunknown"'
expect_rec def@mail.example.org "$DELAY" '"retry":true' '"replycode":"421"'
expect_rec err@mail.example.net "$FAIL" '"reason":"rejected"'
expect_rec mk-hb@mail.example.net "$FAIL" '"esp_event":"hard_bounce"'
expect_counts "Brevo" "$E/brevo/documented.jsonl" 18 8 10
expect_exit 0 "Brevo: --all-events" -- "$BIN" decode --all-events "$E/brevo/documented.jsonl"
expect_lines 14 "Brevo: delivered, opens, proxy opens and clicks too" out

expect_exit 0 "Resend: each documented event" -- "$BIN" decode "$E/resend/documented.jsonl"
expect_lines 9 "Resend: a delay, a complaint, four bounces, a failure, two suppressions" out
expect_rec delay@mail.example.org "$DELAY" '"retry":true'
expect_rec cmp@mail.example.net "$FEED"
expect_rec perm@mail.example.net "$FAIL" "$HARD" '"reason":"userunknown"'
expect_rec trans@mail.example.org "$FAIL" "$SOFT" '"reason":"mailboxfull"' '"esp_event":"email.bounced/Transient/MailboxFull"'
expect_rec und@mail.example.net "$FAIL" '"esp_event":"email.bounced/Undetermined/Undetermined"'
expect_rec supp@mail.example.net "$FAIL" '"reason":"suppressed"'
expect_rec failed@mail.example.net "$FAIL" '"reason":"rejected"' '"esp_event":"email.failed"'
expect_rec sup-bounce@mail.example.net "$FAIL" '"reason":"suppressed"' '"esp_event":"suppression.added/bounce"'
expect_rec sup-cmp@mail.example.net "$FEED"
expect_counts "Resend" "$E/resend/documented.jsonl" 22 9 13

expect_exit 0 "MailerSend: each documented event" -- "$BIN" decode "$E/mailersend/documented.jsonl"
expect_lines 3 "MailerSend: two bounces and a complaint" out
expect_rec msb@mail.example.org "$FAIL" "$SOFT" '"reason":"mailboxfull"'
expect_rec mhb@mail.example.net "$FAIL" "$HARD" '"reason":"userunknown"'
expect_rec mspam@mail.example.net "$FEED"
expect_counts "MailerSend" "$E/mailersend/documented.jsonl" 18 3 15

# KumoMTA's log hook and PowerMTA's accounting webhook: their record types
# as scan reads their log files
expect_exit 0 "KumoMTA: each documented record type" -- "$BIN" decode "$E/kumomta/documented.jsonl"
expect_lines 7 "KumoMTA: two bounces, a transient failure, an expiration, an admin bounce, an OOB, a feedback report" out
expect_rec k-bounce@mail.example.net "$FAIL" "$HARD" '"reason":"userunknown"' '"esp":"kumomta"' \
	'"esp_event":"Bounce/InvalidRecipient"' '"replycode":"550"' '"rhost":"mx\.mail\.example\.net"'
expect_rec k-grey@mail.example.org "$DELAY" '"retry":true' '"replycode":"451"'
expect_rec k-exp@mail.example.org '"reason":"expired"' '"retry":false'
expect_rec k-admin@mail.example.org "$FAIL" '"reason":"rejected"'
expect_rec k-oob@mail.example.net "$FAIL" "$HARD" '"reason":"userunknown"'
expect_rec k-fbl@mail.example.net "$FEED" '"feedbacktype":"abuse"'
expect_no_rec fbl@fbl.shop.example.com . "KumoMTA: a feedback report is the complainer's, not the report address's"
expect_no_rec k-auto@mail.example.org . "KumoMTA: an auto-reply read back is no failure"
expect_rec k-codes@mail.example.net "$FAIL" '"replycode":"550"' '"deliverystatus":"5\.1\.1"' '"reason":"userunknown"'
expect_counts "KumoMTA" "$E/kumomta/documented.jsonl" 13 7 6
expect_exit 0 "KumoMTA: a batch of records" -- "$BIN" decode "$E/kumomta/batch.json"
expect_lines 2 "KumoMTA: both records of the batch" out
expect_exit 0 "KumoMTA: --all-events" -- "$BIN" decode --all-events "$E/kumomta/documented.jsonl"
expect_rec k-ok@mail.example.org '"reason":"delivered"'

expect_exit 0 "PowerMTA: each documented record type" -- "$BIN" decode "$E/powermta/documented.json"
expect_lines 8 "PowerMTA: bounces, an expiry, a transient, remote bounce and status, a feedback report" out
expect_rec p-bad@mail.example.net "$FAIL" "$HARD" '"reason":"userunknown"' '"esp":"powermta"' \
	'"esp_event":"b/failed/bad-mailbox"' '"addresser":"bounce@shop.example.com"'
expect_rec p-exp@mail.example.org '"reason":"expired"' '"retry":false'
expect_rec p-grey@mail.example.org "$DELAY" '"retry":true' '"replycode":"451"'
expect_rec p-rb@mail.example.net "$FAIL" '"reason":"userunknown"'
expect_rec p-rs-delay@mail.example.org "$DELAY" '"retry":true'
expect_rec p-rs-fail@mail.example.net "$FAIL" '"replycode":"550"'
expect_rec p-fbl@mail.example.net "$FEED"
expect_rec p-spam@mail.example.net "$FAIL" '"timestamp":1709554800'
expect_no_rec p-recv@mail.example.org . "PowerMTA: a received record gives none"
expect_counts "PowerMTA" "$E/powermta/documented.json" 12 8 4
expect_exit 0 "PowerMTA: a form-encoded record" -- "$BIN" decode "$E/powermta/bounce.form"
expect_rec p-form@mail.example.net "$FAIL" '"reason":"userunknown"' '"esp":"powermta"'
expect_exit 0 "--esp powermta" -- "$BIN" decode --esp powermta "$E/powermta/documented.json"
expect_lines 8 "--esp powermta: the same eight records" out

# docs/events.md names every event type and status these readers' tables know
for svc in mailjet mailtrap postal unisender sendgrid mandrill brevo resend mailersend kumomta mta/kumo mta/pmta; do
	f=src/lib/esp/$svc.c
	case $svc in mta/*) f=src/lib/$svc.c ;; esac
	grep -o '{ "[^"]*", \("[^"]*", \)\{0,1\}SD_\(ESP\|MTA\)_' "$f" | sed 's/^{ "\([^"]*\)".*/\1/' >"$TMP/words"
	n=$((n + 1))
	miss=""
	while read -r w; do
		grep -qF "\`$w\`" docs/events.md || miss="$miss $w"
	done <"$TMP/words"
	if [ -s "$TMP/words" ] && [ -z "$miss" ]; then echo "ok $n - docs/events.md names the $svc events of the code"
	else echo "not ok $n - docs/events.md lacks $svc events:$miss"; fi
done
