#!/bin/sh
# CLI tests of user rules (--rules FILE, $SMTPDIAG_RULES; docs/rules.md) in
# explain, decode, scan and serve: the rule decides and the evidence says so,
# --why prints the trail, the flag wins over the variable, and a bad file
# exits 2 naming FILE:LINE.
. "$(dirname "$0")/lib.sh"

R=tests/fixtures/rules/example.rules
LOG=tests/fixtures/logs/postfix.log
EML=tests/fixtures/decode/dsn-single.eml

# ---- explain ----
expect_exit 0 "explain --rules: text" -- "$BIN" explain --json --rules "$R" "452 4.2.2 Mailbox quota exceeded for this user"
expect_out '"reason":"mailboxfull"' "explain: the rule's reason"
expect_out '"evidence":\["user:example.rules:4 -> mailboxfull"' "explain: the evidence names the rule first"
expect_out '"label":"quota"}' "explain: the label is the last field"
expect_exit 0 "explain --why" -- "$BIN" explain --why --rules "$R" "552 mailbox quota exceeded"
expect_out '^Why ' "explain --why: a Why section"
expect_out '1\. user:example.rules:4 -> mailboxfull' "explain --why: the rule's step"
expect_out '^Label: quota' "explain: the label in the readable output"
expect_exit 0 "explain without rules" -- "$BIN" explain --json "552 mailbox quota exceeded"
n=$((n + 1))
if grep -q '"label"' "$TMP/out" || grep -q 'user:' "$TMP/out"; then echo "not ok $n - explain without rules: no label, no user step"; else
	echo "ok $n - explain without rules: no label, no user step"; fi
expect_exit 0 "explain without --why" -- "$BIN" explain --rules "$R" "552 mailbox quota exceeded"
n=$((n + 1))
if grep -q '^Why' "$TMP/out"; then echo "not ok $n - no Why section without --why"; else echo "ok $n - no Why section without --why"; fi

# ---- decode ----
expect_exit 0 "decode --rules: a bounce" -- "$BIN" decode --rules "$R" "$EML"
expect_out '"reason":"filtered"' "decode: the rule's reason"
expect_out '"advice":"contact-recipient-admin"' "decode: the rule's advice"
expect_out '"hardbounce":false' "decode: filtered is no hard bounce (the policy's)"
expect_out '"evidence":\["user:example.rules:7 -> filtered","user:example.rules:7 -> advice=contact-recipient-admin label=vip"\],"label":"vip"' "decode: evidence and label"
expect_exit 0 "decode --format text --why" -- "$BIN" decode --format text --why --rules "$R" "$EML"
expect_out '^bob@example.com +filtered ' "decode text: the row"
expect_out '^    why: user:example.rules:7 -> filtered$' "decode text --why: the trail under the row"
expect_exit 0 "decode without rules" -- "$BIN" decode "$EML"
expect_out '"reason":"userunknown"' "decode without rules: the built-in verdict"

# ---- scan ----
grep 'to=<bob@example.org>' "$LOG" | head -1 >"$TMP/one.log"
expect_exit 0 "scan --rules: a log line" -- "$BIN" scan --rules "$R" "$TMP/one.log"
expect_out '"reason":"suspend"' "scan: the rule's reason"
expect_out '"evidence":\["user:example.rules:10 -> suspend"' "scan: the evidence names the rule"
expect_out '"label":"ops"' "scan: the label"
expect_exit 0 "scan --format text --why" -- "$BIN" scan --format text --why --rules "$R" "$TMP/one.log"
expect_out '^    why: user:example.rules:10 -> suspend$' "scan text --why: the trail"
expect_exit 0 "scan -j 2 shares the rules" -- "$BIN" scan -j 2 --rules "$R" "$TMP/one.log" "$TMP/one.log"
expect_lines 2 "scan -j 2: two records" out
expect_out '"label":"ops"' "scan -j 2: the rule decided"

# ---- SMTPDIAG_RULES, and --rules wins over it ----
expect_exit 0 "SMTPDIAG_RULES is read" -- env SMTPDIAG_RULES="$R" "$BIN" scan "$TMP/one.log"
expect_out '"label":"ops"' "SMTPDIAG_RULES: the rule decided"
printf 'match "user unknown" reason=hasmoved label=flag\n' >"$TMP/flag.rules"
expect_exit 0 "--rules wins over SMTPDIAG_RULES" -- env SMTPDIAG_RULES="$R" "$BIN" scan --rules "$TMP/flag.rules" "$TMP/one.log"
expect_out '"evidence":\["user:flag.rules:1 -> hasmoved"' "--rules wins: its rule decided"
expect_exit 0 "SMTPDIAG_RULES empty: none" -- env SMTPDIAG_RULES= "$BIN" scan "$TMP/one.log"
expect_out '"reason":"userunknown"' "SMTPDIAG_RULES empty: the built-in verdict"

# ---- bad files exit 2 with FILE:LINE ----
printf '# ok\nmatch "x" reason=userunknown\nregex /foo(/ reason=filtered\n' >"$TMP/bad.rules"
for cmd in explain decode scan; do
	case $cmd in explain) arg=550 ;; decode) arg=$EML ;; scan) arg=$TMP/one.log ;; esac
	expect_exit 2 "$cmd: a bad regex exits 2" -- "$BIN" "$cmd" --rules "$TMP/bad.rules" "$arg"
	expect_err "^smtpdiag: $cmd: .*bad.rules:3: bad regex" "$cmd: the error names file:line"
	expect_lines 0 "$cmd: nothing on stdout" out
done
expect_exit 2 "SMTPDIAG_RULES bad: exits 2" -- env SMTPDIAG_RULES="$TMP/bad.rules" "$BIN" decode "$EML"
expect_err 'bad.rules:3: bad regex' "SMTPDIAG_RULES bad: file:line"
for re in '$' '^' '\b' 'x*'; do
	printf '# ok\nmatch "x" reason=userunknown\nregex /%s/ reason=filtered\n' "$re" >"$TMP/empty.rules"
	expect_exit 2 "decode: a regex that matches an empty text (/$re/) exits 2" -- "$BIN" decode --rules "$TMP/empty.rules" "$EML"
	expect_err "empty.rules:3: bad regex: it matches an empty text" "/$re/: the error names file:line and why"
done
printf 'match "x" reason=nope\n' >"$TMP/bad2.rules"
expect_exit 2 "unknown reason exits 2" -- "$BIN" explain --rules "$TMP/bad2.rules" 550
expect_err "bad2.rules:1: unknown reason 'nope'" "unknown reason: file:line"
expect_exit 2 "a missing file exits 2" -- "$BIN" scan --rules "$TMP/none.rules" "$TMP/one.log"
expect_err 'none.rules: No such file' "a missing file is named"
expect_exit 2 "serve: a bad file exits 2 before listening" -- "$BIN" serve --listen 127.0.0.1:0 --rules "$TMP/bad.rules"
expect_err 'smtpdiag: serve: .*bad.rules:3: bad regex' "serve: file:line"

# ---- serve: the API with the rules ----
if command -v curl >/dev/null 2>&1; then
	"$BIN" serve --quiet --listen 127.0.0.1:0 --rules "$R" 2>"$TMP/serve.log" &
	SPID=$!
	trap 'kill -9 $SPID 2>/dev/null; rm -rf "$TMP"' EXIT
	wait_port "$TMP/serve.log"
	curl -s --max-time 10 -H "Content-Type: text/plain" --data-binary "552 mailbox quota exceeded" "http://127.0.0.1:$PORT/api/v1/explain?mode=text" >"$TMP/out" 2>"$TMP/err"
	expect_out '"label":"quota"' "serve --rules: /api/v1/explain"
	curl -s --max-time 10 -H 'Content-Type: message/rfc822' --data-binary @"$EML" "http://127.0.0.1:$PORT/api/v1/decode" >"$TMP/out" 2>"$TMP/err"
	expect_out '"evidence":\["user:example.rules:7 -> filtered"' "serve --rules: /api/v1/decode"
	kill "$SPID" 2>/dev/null
	wait "$SPID" 2>/dev/null
fi
