#!/bin/sh
# CLI tests of POST /api/v1/events: every fixture family posted to a server
# without keys (the counts, the results, the errors, the query options), then to
# one with a key for each signing service: Mailgun's HMAC (good, bad, stale, as
# JSON and as a legacy form), Postmark's Basic credentials, SendGrid's ECDSA
# signature (a key pair made here with openssl). Loopback only; every curl has
# --max-time and the servers are killed on exit whatever happens.
. "$(dirname "$0")/lib.sh"

for tool in curl openssl; do
	if ! command -v $tool >/dev/null 2>&1; then
		echo "not ok 1 - $tool is missing (sh tools/install-deps.sh installs it)"
		exit 1
	fi
done
FIX=tests/fixtures/esp
PIDS=""
trap 'for p in $PIDS; do kill -9 "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT

# serve NAME ARGS...: a server on a free loopback port; sets URL
serve() {
	log="$TMP/$1.log"; shift
	"$BIN" serve --listen 127.0.0.1:0 --quiet "$@" 2>"$log" &
	PIDS="$PIDS $!"
	URL=""
	for _ in $(seq 100); do
		URL=$(sed -n 's|.*listening on \(http://127\.0\.0\.1:[0-9]*\)/.*|\1|p' "$log")
		[ -n "$URL" ] && break
		sleep 0.1
	done
}

# post QUERY CURL-ARGS...: POST to /api/v1/events; body in $TMP/out, headers in $TMP/hdr, status in $ST
post() {
	q=$1; shift
	ST=$(curl -s --max-time 10 -o "$TMP/out" -D "$TMP/hdr" -w '%{http_code}' -X POST "$@" \
		"$URL/api/v1/events$q" 2>"$TMP/err") || ST=curl-failed
}

check() { # CONDITION-STATUS DESC
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else
		echo "not ok $n - $2 (status $ST)"; head -c 300 "$TMP/out" | sed 's/^/#   /'; echo; fi
}
has() { grep -Eq -- "$1" "$TMP/out"; }
status_is() { [ "$ST" = "$1" ]; }

json() { # QUERY FILE [CURL-ARGS...]
	jq=$1; jf=$2; shift 2
	post "$jq" -H 'Content-Type: application/json' --data-binary "@$jf" "$@"
}

COUNTS='"counts":\{"events":[0-9]+,"decided":[0-9]+,"ignored":[0-9]+,"errors":[0-9]+\}'

# ---- no keys: each family, the shape, errors, query options ----
serve plain --max-body 16K
if [ -z "$URL" ]; then echo "not ok 1 - the server did not start"; cat "$TMP/plain.log"; exit 1; fi

for dir in "$FIX"/*/; do
	fam=$(basename "$dir")
	[ "$fam" = bad ] && continue
	got=0
	for f in "$dir"*; do
		json "" "$f"
		status_is 200 && has "$COUNTS" && has '"errors":0\}' && has '^\{"results":\['
		check $? "events: $fam/$(basename "$f") gives 200, results and counts, no errors"
		has "\"esp\":\"$fam\"" && got=1
	done
	[ $got = 1 ]
	check $? "events: $fam posts give verdicts with esp $fam"
done

post "" --data-binary "@$FIX/mailgun/legacy-bounced.form"
status_is 200 && has '"esp":"mailgun"' && has '"events":1,"decided":1'
check $? "events: a form-encoded post (curl's default type) is read"
json "" "$FIX/sendgrid/events.json"
has '"events":7,"decided":5,"ignored":2,"errors":0' && [ "$(grep -c '^\{"action"' "$TMP/out")" -eq 5 ]
check $? "events: a SendGrid batch: 7 events, 5 decided, 5 records"
post "" -H 'Content-Type: application/x-ndjson' --data-binary "@$FIX/brevo/events.jsonl"
status_is 200 && has '"events":5,"decided":5'
check $? "events: JSON Lines as application/x-ndjson"

json "" "$FIX/bad/mixed.jsonl"
status_is 200 && has '"errors":2\}' && has '\{"event":2,"line":3,"column":1,"message":"[^"]+"\}' &&
	has '\{"event":3,"line":3,"column":null,"message":"not an event of a known service"\}'
check $? "events: a body with bad lines: 200, each error with its event, line, column"
post "" -H 'Content-Type: application/json' --data-binary '{"event": '
status_is 400 && has '"errors":1\}' && has '"line":1,"column":[0-9]+' && has '"status":400'
check $? "events: a malformed body is 400 with the counts and where it broke"
post "" -H 'Content-Type: application/json' --data-binary '{"hello": "world"}'
status_is 400 && has 'not an event of a known service'
check $? "events: JSON of no known service is 400"
post "" -H 'Content-Type: application/json' --data-binary ''
status_is 400 && has '"error":"empty body'
check $? "events: an empty body is 400"
head -c 20000 /dev/zero | tr '\0' ' ' >"$TMP/big"
json "" "$TMP/big"
status_is 413
check $? "events: a body over --max-body is 413"
post "" -H 'Content-Type: multipart/form-data; boundary=x' --data-binary 'x'
status_is 415
check $? "events: multipart/form-data is 415"
ST=$(curl -s --max-time 10 -o "$TMP/out" -w '%{http_code}' "$URL/api/v1/events")
status_is 405
check $? "events: GET is 405"

# bounded answers: at most SMTPDIAG_MAX_EVENT_ERRORS (100) error objects, then one
# {"more":K}; results up to 8 x --max-body, then "results_left_out"
awk 'BEGIN { printf "["; for (i = 0; i < 5000; i++) printf "%s{}", (i ? "," : ""); printf "]" }' >"$TMP/empties.json"
json "" "$TMP/empties.json"
status_is 400 && has '"events":5000,"decided":0,"ignored":0,"errors":5000' &&
	[ "$(grep -c '^{"event":' "$TMP/out")" -eq 100 ] && has '^\{"more":4900,"message":"and 4900 more errors' &&
	[ "$(wc -c <"$TMP/out")" -lt 40000 ]
check $? "events: 5,000 bad values give 100 error objects and one \"more\", the counts complete"
awk 'BEGIN { printf "["; for (i = 0; i < 250; i++) printf "%s{\"email\":\"u%d@b.example\",\"event\":\"bounce\",\"sg_event_id\":\"x\"}", (i ? "," : ""), i; printf "]" }' >"$TMP/many.json"
json "" "$TMP/many.json"
left=$(sed -n 's/.*"results_left_out":\([0-9]*\).*/\1/p' "$TMP/out")
status_is 200 && has '"events":250,"decided":250' && [ -n "$left" ] && [ "$left" -gt 0 ] &&
	[ $(($(grep -c '^{"action"' "$TMP/out") + left)) -eq 250 ] && [ "$(wc -c <"$TMP/out")" -le $((8 * 16384 + 170000)) ]
check $? "events: results past 8 x --max-body are left out and counted (\"results_left_out\")"

json "?esp=nosuch" "$FIX/ses/complaint.json"
status_is 400 && has 'unknown service'
check $? "events: ?esp= of no service is 400"
json "?esp=postmark" "$FIX/ses/complaint.json"
status_is 200 && ! has '"esp":"ses"'
check $? "events: ?esp= reads every event as that service's"
json "?esp=kumomta" "$FIX/kumomta/batch.json"
status_is 200 && has '"events":2,"decided":2' && has '"esp":"kumomta"' && has '"action":"delayed"'
check $? "events: ?esp=kumomta reads a batch of KumoMTA's log records"
json "?esp=powermta" "$FIX/powermta/documented.json"
status_is 200 && has '"events":12,"decided":8,"ignored":4,"errors":0' && has '"esp_event":"rb/failed/bad-mailbox"'
check $? "events: ?esp=powermta reads PowerMTA's accounting records"
json "?taxonomy=ses,postmark" "$FIX/ses/sns-bounce-permanent.json"
has '"taxonomy":\{"ses":"Permanent/[A-Za-z]+","postmark":"[A-Za-z]+/[0-9]+"\}\}'
check $? "events: ?taxonomy= adds each record's categories"
json "?taxonomy=nosuch" "$FIX/ses/sns-bounce-permanent.json"
status_is 400
check $? "events: ?taxonomy= of no taxonomy is 400"
json "" "$FIX/ses/delivery.json"
has '"decided":0,"ignored":1'
check $? "events: a delivery is ignored by default"
json "?all-events=1" "$FIX/ses/delivery.json"
has '"decided":1,"ignored":0' && has '"reason":"delivered"'
check $? "events: ?all-events=1 reports deliveries"

# ---- keys: the signing services ----
printf 'whsec-test-0123456789\n' >"$TMP/mailgun.key"
printf 'hook:s3cret\n' >"$TMP/postmark.auth"
openssl ecparam -name prime256v1 -genkey -noout -out "$TMP/sg.pem" 2>/dev/null &&
	openssl ec -in "$TMP/sg.pem" -pubout -out "$TMP/sg.pub" 2>/dev/null
openssl ec -in "$TMP/sg.pem" -pubout -outform DER 2>/dev/null | base64 -w0 >"$TMP/sg.b64"

expect_exit 2 "serve: a key file that is missing is a usage error" -- \
	"$BIN" serve --listen 127.0.0.1:0 --mailgun-signing-key "$TMP/none"
expect_err 'mailgun-signing-key' "serve: the error names the option"
expect_exit 2 "serve: Postmark credentials without a colon are refused" -- \
	"$BIN" serve --listen 127.0.0.1:0 --postmark-basic-auth "$TMP/mailgun.key"
expect_exit 2 "serve: a SendGrid key that is no P-256 public key is refused" -- \
	"$BIN" serve --listen 127.0.0.1:0 --sendgrid-public-key "$TMP/postmark.auth"

serve keyed --mailgun-signing-key "$TMP/mailgun.key" --postmark-basic-auth "$TMP/postmark.auth" \
	--sendgrid-public-key "$TMP/sg.pub"
if [ -z "$URL" ]; then echo "not ok $((n + 1)) - the server with keys did not start"; cat "$TMP/keyed.log"; exit 1; fi

# mailgun BODY-FILE TIMESTAMP [KEY]: a Mailgun JSON post signed at that time (by default with the key)
mailgun() {
	tok=9f8e7d6c5b4a39281706f5e4d3c2b1a0$2
	sig=$(printf '%s%s' "$2" "$tok" | openssl dgst -sha256 -hmac "${3:-$(cat "$TMP/mailgun.key")}" | sed 's/^.*= //')
	printf '{"signature":{"timestamp":"%s","token":"%s","signature":"%s"},"event-data":%s}' \
		"$2" "$tok" "$sig" "$(cat "$1")" >"$TMP/mg.json"
}
printf '{"event":"failed","severity":"permanent","recipient":"gone@example.net","delivery-status":{"code":550,"message":"5.1.1 no such user"}}' >"$TMP/mg-event"
now=$(date +%s)

mailgun "$TMP/mg-event" "$now"
json "" "$TMP/mg.json"
status_is 200 && has '"esp":"mailgun"' && has '"decided":1'
check $? "mailgun: a good signature is taken"
mailgun "$TMP/mg-event" "$now" another-key
json "" "$TMP/mg.json"
status_is 401 && has '"error":"Mailgun signature does not match' && ! has '"results"'
check $? "mailgun: a wrong signature is 401 and nothing is decoded"
mailgun "$TMP/mg-event" "$((now - 1200))"
json "" "$TMP/mg.json"
status_is 401 && has 'minutes off the clock'
check $? "mailgun: a signature 20 minutes old is 401"
json "" "$FIX/mailgun/failed-permanent.json"
status_is 401
check $? "mailgun: the fixture's old signature is 401"
json "?esp=mailgun" "$FIX/ses/complaint.json"
status_is 401 && has 'without a signature'
check $? "mailgun: ?esp=mailgun cannot pass an unsigned body"
tok=0123456789abcdef0123456789abcdef0123456789abcdef01
sig=$(printf '%s%s' "$now" "$tok" | openssl dgst -sha256 -hmac "$(cat "$TMP/mailgun.key")" | sed 's/^.*= //')
post "" --data-binary "event=bounced&recipient=gone%40example.net&code=550&error=5.1.1+unknown&timestamp=$now&token=$tok&signature=$sig"
status_is 200 && has '"esp":"mailgun"'
check $? "mailgun: a signed legacy form post is taken"
post "" --data-binary "event=bounced&recipient=gone%40example.net&code=550&error=5.1.1+unknown&timestamp=$now&token=$tok&signature=${sig}00"
status_is 401
check $? "mailgun: a legacy form post with a wrong signature is 401"

json "" "$FIX/postmark/bounce-hard.json"
status_is 401 && grep -qi '^WWW-Authenticate: Basic' "$TMP/hdr"
check $? "postmark: no credentials is 401 asking for Basic"
json "" "$FIX/postmark/bounce-hard.json" -u hook:wrong
status_is 401 && has 'wrong HTTP Basic credentials'
check $? "postmark: wrong credentials are 401"
json "" "$FIX/postmark/bounce-hard.json" -u hook:s3cret
status_is 200 && has '"esp":"postmark"'
check $? "postmark: the right credentials are taken"

# sendgrid TIMESTAMP BODY-FILE: the signature header value for them
sendgrid() {
	{ printf '%s' "$1"; cat "$2"; } | openssl dgst -sha256 -sign "$TMP/sg.pem" | base64 -w0
}
body="$FIX/sendgrid/events.json"
sig=$(sendgrid "$now" "$body")
json "" "$body" -H "X-Twilio-Email-Event-Webhook-Signature: $sig" -H "X-Twilio-Email-Event-Webhook-Timestamp: $now"
status_is 200 && has '"decided":5'
check $? "sendgrid: a good ECDSA signature is taken"
json "" "$body" -H "X-Twilio-Email-Event-Webhook-Signature: $sig" -H "X-Twilio-Email-Event-Webhook-Timestamp: $((now + 1))"
status_is 401 && has 'does not match the public key'
check $? "sendgrid: the same signature with another timestamp is 401"
sed 's/bounce/bounced/' "$body" >"$TMP/sg-tampered.json"
json "" "$TMP/sg-tampered.json" -H "X-Twilio-Email-Event-Webhook-Signature: $sig" -H "X-Twilio-Email-Event-Webhook-Timestamp: $now"
status_is 401
check $? "sendgrid: a changed body is 401"
json "" "$body"
status_is 401 && has 'without its signature'
check $? "sendgrid: no signature headers is 401"
json "" "$body" -H "X-Twilio-Email-Event-Webhook-Signature: bm90IGRlcg==" -H "X-Twilio-Email-Event-Webhook-Timestamp: $now"
status_is 401 && has 'not an ECDSA signature'
check $? "sendgrid: a signature that is no DER is 401"

# ---- replays: a signature is taken once; one Mailgun signature, one event ----
sg_now=$sig # the SendGrid signature above, for the server below
mailgun "$TMP/mg-event" "$((now - 5))"
json "" "$TMP/mg.json"
status_is 200 && has '"decided":1'
check $? "replay: a signed Mailgun post is taken"
json "" "$TMP/mg.json"
status_is 409 && has 'already used' && ! has '"results"'
check $? "replay: the same Mailgun post again is 409 and nothing is decoded"
printf '{"event":"failed","severity":"permanent","recipient":"victim@example.net","delivery-status":{"code":550,"message":"5.1.1 gone"}}' >"$TMP/mg-other"
mailgun "$TMP/mg-other" "$((now - 5))"
json "" "$TMP/mg.json"
status_is 409 && ! has 'victim@'
check $? "replay: the same Mailgun signature over another body is 409"
mailgun "$TMP/mg-event" "$((now - 6))"
printf '{"signature":{"timestamp":"%s","token":"%s","signature":"%s"},"events":[%s,%s]}' \
	"$((now - 6))" "$tok" "$sig" "$(cat "$TMP/mg-event")" "$(cat "$TMP/mg-other")" >"$TMP/mg-two.json"
json "" "$TMP/mg-two.json"
status_is 401 && has 'holds one event' && has 'holds 2'
check $? "replay: one Mailgun signature over two events is 401"
json "" "$TMP/mg.json"
status_is 200
check $? "replay: a refused post does not use up its signature"
ftok=fedcba9876543210fedcba9876543210fedcba9876543210fe
fsig=$(printf '%s%s' "$now" "$ftok" | openssl dgst -sha256 -hmac "$(cat "$TMP/mailgun.key")" | sed 's/^.*= //')
form="event=bounced&recipient=gone%40example.net&code=550&error=5.1.1+unknown&timestamp=$now&token=$ftok&signature=$fsig"
post "" --data-binary "$form"
post "" --data-binary "$(echo "$form" | sed 's/gone%40/other%40/')"
status_is 409
check $? "replay: a legacy form post's signature again, another recipient, is 409"

sgsig=$(sendgrid "$((now - 2))" "$body")
json "" "$body" -H "X-Twilio-Email-Event-Webhook-Signature: $sgsig" -H "X-Twilio-Email-Event-Webhook-Timestamp: $((now - 2))"
status_is 200
check $? "replay: a signed SendGrid post is taken"
sgsig=$(sendgrid "$((now - 2))" "$body")
json "" "$body" -H "X-Twilio-Email-Event-Webhook-Signature: $sgsig" -H "X-Twilio-Email-Event-Webhook-Timestamp: $((now - 2))"
status_is 409 && has 'already used'
check $? "replay: the same SendGrid timestamp and body again (signed anew) is 409"
old=$((now - 600))
sgsig=$(sendgrid "$old" "$body")
json "" "$body" -H "X-Twilio-Email-Event-Webhook-Signature: $sgsig" -H "X-Twilio-Email-Event-Webhook-Timestamp: $old"
status_is 401 && has 'minutes off the clock'
check $? "replay: a SendGrid signature 10 minutes old is 401"
late=$((now + 600))
sgsig=$(sendgrid "$late" "$body")
json "" "$body" -H "X-Twilio-Email-Event-Webhook-Signature: $sgsig" -H "X-Twilio-Email-Event-Webhook-Timestamp: $late"
status_is 401 && has 'minutes off the clock'
check $? "replay: a SendGrid signature 10 minutes ahead is 401"
sig=$sg_now

json "" "$FIX/ses/sns-bounce-permanent.json"
status_is 200 && has '"esp":"ses"'
check $? "keys: a service without a key is taken unchecked"
json "" "$FIX/bad/mixed.jsonl"
status_is 401
check $? "keys: a body that mixes in a keyed service's events needs its signature"

kill "$(echo "$PIDS" | awk '{ print $NF }')" 2>/dev/null
serve b64 --sendgrid-public-key "$TMP/sg.b64"
json "" "$body" -H "X-Twilio-Email-Event-Webhook-Signature: $sig" -H "X-Twilio-Email-Event-Webhook-Timestamp: $now"
status_is 200 && has '"decided":5'
check $? "sendgrid: the key as bare base64 DER (as SendGrid shows it) works too"

# /api/v1/decode: a DSN over the recipient limit is an error that names it, with its first verdicts
serve dec
dsn_for 1500 >"$TMP/many-rcpt.eml"
ST=$(curl -s --max-time 10 -o "$TMP/out" -w '%{http_code}' -H 'Content-Type: message/rfc822' \
	--data-binary "@$TMP/many-rcpt.eml" "$URL/api/v1/decode") || ST=curl-failed
status_is 200 && has '"counts":\{"messages":1,"bounces":0,"not_bounces":0,"errors":1,"results":1024\}' &&
	has '"error":"more than 1024 recipients \(SMTPDIAG_MAX_RECIPIENTS\)'
check $? "decode: a DSN over the recipient limit: 1,024 results and an error that names the limit"
