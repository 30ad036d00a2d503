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

# Delivery-failure notices as mail systems word them (Exchange Online's and
# Outlook's NDRs per locale, gromox's bounce templates, Sendmail): a notice
# with a failure word and no cause is explained as onhold, never exit 2; one
# that names its cause gets the cause's reason; temporary and delay words
# make it a retry. Prose that tells of a delivery that happened still exits 2.
notice() {
	expect_exit 0 "notice: $1" -- "$BIN" explain --json --text "$2"
	expect_out "\"reason\":\"$3\"" "$1 is $3"
	expect_out "\"retry\":$4" "$1 retry $4"
}
notice "en couldn't be delivered" "Your message couldn't be delivered to the recipient. Contact your email admin." onhold false
notice "en returned mail" "Returned mail: see transcript for details" onhold false
notice "en Sendmail's heading" "----- The following addresses had permanent fatal errors -----" onhold false
notice "en delivery problems" "--- The following addresses had delivery problems ---" onhold false
notice "en an error occurred" "An error occurred while trying to deliver the mail to the following recipients: ann@example.org" onhold false
notice "en RFC 3464 delay" "This is only a notification about a delay in the delivery of your message." onhold true
notice "en feedback report" "This is an email abuse report for an email message received from IP 192.0.2.1 on Thu, 8 Mar 2005 14:00:00 EDT." feedback false
expect_exit 2 "prose about deliveries is no notice" -- "$BIN" explain --text "We had no delivery problems this month, and the parcel came on time."
notice "en delayed" "Delivery is delayed to these recipients or groups:" onhold true
notice "de undeliverable" "Unzustellbar: Angebot für Dezember" onhold false
notice "de address not found" "Die E-Mail-Adresse des Empfängers wurde im E-Mail-System des Empfängers nicht gefunden." userunknown false
notice "fr not delivered" "Votre message n'a pas pu être remis au destinataire." onhold false
notice "fr delayed" "La remise à ces destinataires ou groupes est retardée :" onhold true
notice "es not delivered" "Su mensaje no ha podido ser entregado al destinatario." onhold false
notice "es temporary error" "Error temporal: el mensaje todavía no se ha entregado." onhold true
notice "it undeliverable" "Impossibile recapitare il messaggio ai destinatari." onhold false
notice "it permanent error" "Errore permanente: il messaggio è stato restituito al mittente." onhold false
notice "pt not delivered" "Sua mensagem não pôde ser entregue ao destinatário." onhold false
notice "nl not delivered" "Uw bericht kon niet worden bezorgd bij de ontvanger." onhold false
notice "pl not delivered" "Nie można dostarczyć wiadomości do adresata." onhold false
notice "pl address not found" "Nie znaleziono adresu e-mail adresata w jego systemie poczty e-mail." userunknown false
notice "ru not delivered" "Сообщение не доставлено одному или нескольким получателям." onhold false
notice "ru temporary error" "Временная ошибка: сообщение не доставлено." onhold true
notice "uk not delivered" "Повідомлення не доставлено одержувачу." onhold false
notice "cs not delivered" "Zprávu nelze doručit příjemci." onhold false
notice "hu not delivered" "Az üzenetet nem sikerült kézbesíteni a címzettnek." onhold false
notice "ro not delivered" "Mesajul nu a putut fi livrat destinatarului." onhold false
notice "el not delivered" "Δεν ήταν δυνατή η παράδοση του μηνύματος στον παραλήπτη." onhold false
notice "tr not delivered" "İleti alıcıya teslim edilemedi." onhold false
notice "sv not delivered" "Meddelandet kunde inte levereras till mottagaren." onhold false
notice "da not delivered" "Meddelelsen kunne ikke leveres til modtageren." onhold false
notice "nb not delivered" "Meldingen kunne ikke leveres til mottakeren." onhold false
notice "fi not delivered" "Viestiä ei voitu toimittaa vastaanottajalle." onhold false
notice "vi not delivered" "Không thể gửi thư đến người nhận." onhold false
notice "id not delivered" "Pesan tidak dapat dikirim ke penerima." onhold false
notice "he not delivered" "לא ניתן היה למסור את ההודעה לנמען." onhold false
notice "ar not delivered" "تعذر تسليم الرسالة إلى المستلم." onhold false
notice "th not delivered" "ไม่สามารถส่งข้อความถึงผู้รับได้" onhold false
notice "ja undeliverable" "配信不能: 月次報告書" onhold false
notice "ja no such user" "受信者が存在していないため、メール送信失敗" userunknown false
notice "ja temporary error" "一時的なエラーのため配信できませんでした" onhold true
notice "zh not delivered" "无法传递到以下收件人或组:" onhold false
notice "zh mailbox full" "投递失败，收件人邮箱已满" mailboxfull true
notice "zh too large" "投递失败，邮件过大" emailtoolarge false
notice "zh delayed" "邮件投递延迟，系统将继续尝试" onhold true
notice "ko not delivered" "다음 받는 사람 또는 그룹에게 배달하지 못했습니다." onhold false
notice "ko undeliverable" "배달되지 않음: 월간 보고서" onhold false

prose() {
	expect_exit 2 "prose: $1" -- "$BIN" explain --text "$2"
}
prose "en delivered" "Your parcel was delivered yesterday at noon."
prose "en delayed train" "The train was delayed by ten minutes."
prose "en temporary permit" "The temporary parking permit is attached."
prose "de delivered" "Ihre Bestellung wurde heute zugestellt."
prose "fr delivered" "Votre colis a été remis au gardien."
prose "es delivered" "Su pedido fue entregado ayer."
prose "it delivered" "Il pacco è stato consegnato ieri."
prose "pt delivered" "Sua encomenda foi entregue ontem."
prose "nl delivered" "Uw pakket is gisteren bezorgd."
prose "pl delivered" "Paczka została dostarczona wczoraj."
prose "ru delivered" "Посылка доставлена вчера."
prose "cs delivered" "Zásilka byla doručena včera."
prose "el delivered" "Το δέμα παραδόθηκε χθες."
prose "tr delivered" "Paket dün teslim edildi."
prose "sv delivered" "Paketet levererades i går."
prose "ja delivered" "荷物は昨日配達されました。"
prose "zh delivered" "您的包裹已送达。"
prose "ko delivered" "소포가 어제 배달되었습니다."

# The cause in the words of localized NDRs, and refusals and delays in the
# languages whose stems the lines above miss.
notice "it mailbox full" "La cassetta postale del destinatario è piena e al momento non può accettare messaggi." mailboxfull true
notice "sv mailbox full" "Mottagarens postlåda är full och kan inte ta emot meddelanden just nu." mailboxfull true
notice "da mailbox full" "Modtagerens postkasse er fuld og kan ikke modtage meddelelser lige nu." mailboxfull true
notice "nb mailbox full" "Mottakerens postboks er full og kan ikke motta meldinger nå." mailboxfull true
notice "ro mailbox full" "Cutia poștală a destinatarului este plină." mailboxfull true
notice "el mailbox full" "Το γραμματοκιβώτιο του παραλήπτη είναι πλήρες." mailboxfull true
notice "vi mailbox full" "Hộp thư của người nhận đã đầy." mailboxfull true
notice "ko too large" "메시지가 너무 큽니다." emailtoolarge false
notice "fi rejected" "Viesti hylättiin." onhold false
notice "hu rejected" "Az üzenetet elutasították." onhold false
notice "he rejected" "ההודעה נדחתה." onhold false
notice "ar rejected" "تم رفض الرسالة." onhold false
notice "th rejected" "ข้อความถูกปฏิเสธ" onhold false
notice "fi delayed" "Sähköpostin toimitus viivästyi." onhold true
notice "sv delayed" "Leveransen är försenad." onhold true
notice "cs delayed" "Doručení zprávy je zpožděno." onhold true
notice "da delayed" "Levering af meddelelsen er forsinket." onhold true
notice "el delayed" "Η παράδοση του μηνύματος καθυστερεί." onhold true
notice "tr delayed" "Mesaj teslimatı gecikti." onhold true
notice "uk delayed" "Доставку повідомлення затримано." onhold true
notice "vi delayed" "Việc gửi thư bị trì hoãn." onhold true
notice "id delayed" "Pengiriman pesan tertunda." onhold true
notice "he delayed" "המסירה של ההודעה מתעכבת." onhold true
notice "ar temporary error" "خطأ مؤقت في الخادم" onhold true
notice "th delayed" "การส่งข้อความล่าช้า" onhold true
prose "fi late train" "Juna on myöhässä kymmenen minuuttia."
prose "ru late train" "Поезд задерживается на десять минут."
prose "ar meeting" "تم تأكيد الاجتماع غدا."

# Gmail's notices and their localized "address not found"; Sendmail's delay
# warning, which is a retry.
notice "Gmail temporary problem" "Delivery incomplete. There was a temporary problem delivering your message to jo@example.com. Gmail will retry for 47 more hours." onhold true
notice "Sendmail delay warning" "Warning: could not send message for past 4 hours" onhold true
notice "de inbox full" "Der Posteingang des Empfängers ist voll." mailboxfull true
notice "de address not found" "Adresse nicht gefunden" userunknown false
notice "es not delivered" "Mensaje no entregado" onhold false
notice "nl address not found" "Adres niet gevonden" userunknown false
notice "pl address not found" "Nie znaleziono adresu" userunknown false
notice "sv address not found" "Adressen hittades inte" userunknown false
notice "da address not found" "Adressen blev ikke fundet" userunknown false
notice "hu address not found" "A cím nem található" userunknown false
notice "ro address not found" "Adresa nu a fost găsită" userunknown false
notice "vi address not found" "Không tìm thấy địa chỉ" userunknown false
notice "ja not delivered" "メッセージが配信されませんでした" onhold false
notice "zh address not found" "找不到地址" userunknown false
notice "zh not delivered" "邮件未送达" onhold false
notice "ko address not found" "주소를 찾을 수 없음" userunknown false
prose "en problem solved" "We had a problem with the printer, now solved."
prose "de address list" "Die Adresse steht im Anhang."
