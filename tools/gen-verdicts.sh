#!/bin/sh
# gen-verdicts.sh N [ADDRESSES] [SEED]: N verdict JSON Lines as decode writes
# them, over ADDRESSES recipients (default N/4) in 50 domains, for the store's
# tests and benchmark. Kinds: hard bounces, soft bounces (retry), deliveries,
# deferrals, complaints, sender-side failures (with sending domain and IP) and
# others; distinct times in the 20 days before now; every other record has a
# token.
n=${1:?usage: gen-verdicts.sh N [ADDRESSES] [SEED]}
a=${2:-$(( n / 4 > 0 ? n / 4 : 1 ))}
seed=${3:-1}
now=$(date +%s)
awk -v n="$n" -v a="$a" -v seed="$seed" -v now="$now" 'BEGIN {
	srand(seed)
	for (i = 0; i < n; i++) {
		# distinct times (up to 1.7 million records): records without a token stay distinct
		j = int(rand() * a); k = rand(); ts = now - 20 * 86400 + int(i * 20 * 86400 / n)
		rcpt = "user" j "@d" (j % 50) ".example"
		from = "news@s" (i % 7) ".example"; sd = "s" (i % 7) ".example"; ip = ""
		act = "failed"; hb = "false"; rt = "false"; st = ""; rc = ""
		if (k < 0.30) { rs = "userunknown"; st = "5.1.1"; rc = "550"; hb = "true"; adv = "suppress-recipient" }
		else if (k < 0.60) { rs = "mailboxfull"; st = "4.2.2"; rc = "452"; rt = "true"; adv = "retry" }
		else if (k < 0.70) { rs = "delivered"; st = "2.0.0"; rc = "250"; act = "delivered"; adv = "none" }
		else if (k < 0.80) { rs = "blocked"; st = "5.7.1"; rc = "554"; adv = "fix-sender-reputation"; ip = "192.0.2." (i % 200) }
		else if (k < 0.90) { rs = "ratelimited"; st = "4.7.0"; rc = "421"; rt = "true"; act = "delayed"; adv = "retry" }
		else if (k < 0.95) { rs = "feedback"; adv = "suppress-recipient" }
		else { rs = "expired"; st = "4.4.7"; adv = "contact-recipient-admin" }
		tok = (i % 2) ? ("g" seed "x" i) : ""
		printf "{\"action\":\"%s\",\"addresser\":\"%s\",\"deliverystatus\":\"%s\",\"destination\":\"d%d.example\",", act, from, st, j % 50
		printf "\"diagnosticcode\":\"%s %s <%s>: generated for a test\",\"hardbounce\":%s,\"lhost\":\"%s\",", rc, st, rcpt, hb, ip
		printf "\"origin\":\"gen:%d\",\"reason\":\"%s\",\"recipient\":\"%s\",\"replycode\":\"%s\",", i, rs, rcpt, rc
		printf "\"senderdomain\":\"%s\",\"timestamp\":%d,\"token\":\"%s\",\"retry\":%s,\"advice\":\"%s\"}\n", sd, ts, tok, rt, adv
	}
}'
