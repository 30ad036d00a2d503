#!/bin/sh
# CLI tests of `smtpdiag explain --text` on texts with no reply code: what the
# sending MTA writes itself when no server answered (connection, DNS, TLS,
# loops, expiry). A rule names the reason; explain exits 0.
. "$(dirname "$0")/lib.sh"

nocode() {
	expect_exit 0 "no code: $1" -- "$BIN" explain --json --text "$2"
	expect_out "\"reason\":\"$3\"" "$1 is $3"
}

nocode "Postfix connect timeout" "connect to mx.example.com[192.0.2.5]:25: Connection timed out" networkerror
nocode "Postfix connect refused" "connect to mx.example.com[192.0.2.5]:25: Connection refused" networkerror
nocode "Postfix lost connection at the greeting" "lost connection with mx.example.com[192.0.2.5] while receiving the initial server greeting" networkerror
nocode "Postfix host not found" "Host or domain name not found. Name service error for name=example.com type=MX: Host not found" hostunknown
nocode "Postfix DNS try again" "Host or domain name not found. Name service error for name=example.com type=MX: Host not found, try again" networkerror
nocode "Postfix null MX" "Domain example.com does not accept mail (nullMX)" notaccept
nocode "Postfix TLS handshake" "Cannot start TLS: handshake failure" failedstarttls
nocode "Postfix TLS not offered" "TLS is required, but was not offered by host mx.example.com[192.0.2.5]" failedstarttls
nocode "Postfix loop" "mail for example.com loops back to myself" systemerror
nocode "Exim retry timeout" "retry timeout exceeded" expired
nocode "Exim no MX hosts" "all relevant MX records point to non-existent hosts" hostunknown
nocode "Sendmail refused" "<bob@example.com>... Deferred: Connection refused by mx.example.com." networkerror
nocode "Sendmail host unknown" "Host unknown (Name server: example.invalid: host not found)" hostunknown
nocode "qmail no host" "Sorry, I couldn't find any host named example.invalid. (#5.1.2)" hostunknown
nocode "qmail connection died" "Connected to 192.0.2.5 but connection died. (#4.4.2)" networkerror

expect_exit 0 "no code: advice follows the reason" -- "$BIN" explain --json --text "connect to mx.example.com[192.0.2.5]:25: Connection refused"
expect_out '"advice":"retry"' "a network error is retried"
expect_out '"replycode":""' "no code is invented"
expect_out '"status":""' "no status is invented"
expect_exit 0 "no code: readable output" -- "$BIN" explain --text "Cannot start TLS: handshake failure"
expect_out "No reply code: failedstarttls" "the title names the reason, not a code"

expect_exit 2 "no code and no known failure" -- "$BIN" explain --text "Thanks for the quick reply, the meeting room is booked."
expect_err "no SMTP reply code" "says what is missing"

# The word families (rules/families.rules): a text that states a failure in any
# language the rules cover is explained (exit 0) by the family's reason; a text
# that only speaks of a topic ("policy", "virus") without a word of refusal is
# no failure and exits 2.
nocode "German rate" "Es wurden zu viele E-Mails in zu kurzer Zeit eingeliefert" ratelimited
nocode "Chinese rate" "该IP同时并发连接数过大，被临时禁止连接" ratelimited
nocode "Czech rate" "Příliš mnoho spojení z vaší adresy" ratelimited
nocode "German unknown domain" "Die Domain example.invalid existiert nicht" hostunknown
nocode "French unknown domain" "Domaine introuvable : example.invalid" hostunknown
nocode "Spanish full mailbox" "El buzón del destinatario está lleno y no puede aceptar mensajes." mailboxfull
nocode "Swedish spam" "Meddelandet avvisades som skräppost" spamdetected
nocode "Greek virus" "Εντοπίστηκε ιός στο μήνυμα" virusdetected
nocode "Japanese virus" "ウイルスが検出されました" virusdetected
nocode "Russian policy" "Отклонено согласно политике сервера" policyviolation
nocode "Korean SPF" "DMARC 검증 실패" authfailure

expect_exit 2 "a topic word without a refusal is no failure" -- "$BIN" explain --text "Thanks, the policy document and the virus scanner report are attached."
expect_err "nothing to explain" "says there is nothing to explain"
expect_exit 2 "German prose with a storage word is no failure" -- "$BIN" explain --text "Das Postfach ist vollständig eingerichtet; das Passwort kommt per Post."

# With a code, a failure word decides what the code and a status that names
# only its subject leave open: never onhold.
coded() {
	expect_exit 0 "coded: $1" -- "$BIN" explain --json --text "$2"
	expect_out "\"reason\":\"$3\"" "$1 is $3"
}
coded "5.7.1 with a virus" "554 5.7.1 Malware detected in attachment" virusdetected
coded "5.7.1 with SPF" "550 5.7.1 Message rejected: SPF check failed for example.com" authfailure
coded "4.7.1 busy" "450 4.7.1 Server busy, too frequent connects" ratelimited
coded "greylisting in French" "450 4.2.0 Mise en liste grise, veuillez réessayer plus tard" blocked
coded "421 too many connections in Ukrainian" "421 Забагато з'єднань, спробуйте пізніше" ratelimited
coded "5.7.1 relaying in Czech" "554 5.7.1 Relay není povolen" norelaying

# A word of refusal alone states a failure whose reason no word names: it is
# explained, as onhold, never "nothing to explain".
nocode "English refusal" "Delivery to the following recipient failed permanently" onhold
nocode "Chinese refusal" "您发送的邮件被对方服务器拒绝" onhold
nocode "Chinese recipient refuses" "收件人拒收" filtered
nocode "Chinese wrong address" "该邮件被退回：收件人地址错误" userunknown
expect_exit 2 "a word of detection alone is no failure" -- "$BIN" explain --text "We found the report you asked for."
