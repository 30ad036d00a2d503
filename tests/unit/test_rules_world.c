/* test_rules_world.c - reason rules against replies as MTAs and providers write
 * them: texts with no reply code (connection, DNS, TLS, loops, expiry), the
 * common failure phrases in other languages, and texts that state no failure.
 * Every line below is written for this test in the shape the named MTA or
 * provider uses; the addresses are documentation ones. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "verdict/classify.h"
#include "verdict/verdict.h"
#include "smtpdiag.h"

typedef struct {
	const char *text, *reason;
} row;

/* What the sending MTA writes when there was no SMTP reply to quote. */
static const row nocode[] = {
	/* Postfix smtp_connect.c, smtp_proto.c, dns_lookup.c */
	{ "connect to mx.example.com[192.0.2.5]:25: Connection timed out", "networkerror" },
	{ "connect to mx.example.com[192.0.2.5]:25: Connection refused", "networkerror" },
	{ "connect to mx2.example.net[2001:db8::25]:25: No route to host", "networkerror" },
	{ "connect to mx.example.org[198.51.100.7]:25: Network is unreachable", "networkerror" },
	{ "delivery temporarily suspended: connect to mx.example.com[192.0.2.5]:25: Connection refused", "networkerror" },
	{ "lost connection with mx.example.com[192.0.2.5] while receiving the initial server greeting", "networkerror" },
	{ "lost connection with mx.example.com[192.0.2.5] while sending RCPT TO", "networkerror" },
	{ "lost connection with mail.example.org[203.0.113.9] while sending end of data -- message may be sent more than once", "networkerror" },
	{ "conversation with mx.example.com[192.0.2.5] timed out while sending message body", "networkerror" },
	{ "conversation with mx.example.net[198.51.100.3] timed out while performing the EHLO handshake", "networkerror" },
	{ "Host or domain name not found. Name service error for name=example.com type=MX: Host not found", "hostunknown" },
	{ "Host or domain name not found. Name service error for name=mail.example.org type=A: Host not found", "hostunknown" },
	{ "Host or domain name not found. Name service error for name=example.net type=AAAA: No address associated with hostname", "hostunknown" },
	{ "Host or domain name not found. Name service error for name=example.com type=MX: Host not found, try again", "networkerror" },
	{ "unable to look up host mx.example.com: Temporary failure in name resolution", "networkerror" },
	{ "Name service error for name=example.org type=MX: Malformed or unexpected name server reply", "networkerror" },
	{ "Domain example.com does not accept mail (nullMX)", "notaccept" },
	{ "556 5.1.10 <bob@example.com>: Recipient address rejected: Domain example.com does not accept mail (nullMX)", "notaccept" },
	{ "Cannot start TLS: handshake failure", "failedstarttls" },
	{ "TLS is required, but was not offered by host mx.example.com[192.0.2.5]", "failedstarttls" },
	{ "TLS is required, but host mx.example.com[192.0.2.5] refused to start TLS: 454 4.7.0 TLS not available", "failedstarttls" },
	{ "Server certificate not verified", "failedstarttls" },
	{ "Server certificate not trusted", "failedstarttls" },
	{ "mail for example.com loops back to myself", "systemerror" },
	/* Exim deliver.c, transports/smtp.c, routers/dnslookup.c */
	{ "retry timeout exceeded", "expired" },
	{ "all hosts for 'example.com' have been failing for a long time (and retry time not reached)", "expired" },
	{ "all relevant MX records point to non-existent hosts", "hostunknown" },
	{ "an MX or SRV record indicated no SMTP service", "notaccept" },
	{ "R=dnslookup T=remote_smtp defer (111): Connection refused", "networkerror" },
	{ "R=dnslookup T=remote_smtp defer (110): Connection timed out", "networkerror" },
	{ "H=mx.example.com [192.0.2.5] Connection refused", "networkerror" },
	{ "SMTP timeout after initial connection", "networkerror" },
	{ "Remote host mx.example.com [192.0.2.5] closed connection in response to end of data", "networkerror" },
	{ "host lookup did not complete", "networkerror" },
	{ "a TLS session is required, but an attempt to start TLS failed", "failedstarttls" },
	{ "a TLS session is required, but the server did not offer TLS support", "failedstarttls" },
	{ "TLS session: (SSL_connect): error:0A000086:SSL routines::certificate verify failed", "failedstarttls" },
	{ "Too many \"Received\" headers - suspected mail loop", "networkerror" },
	{ "lowest numbered MX record points to local host", "systemerror" },
	{ "Unrouteable address", "hostunknown" },
	/* Sendmail */
	{ "<bob@example.com>... Deferred: Connection refused by mx.example.com.", "networkerror" },
	{ "<bob@example.com>... Deferred: Connection timed out with mx.example.com.", "networkerror" },
	{ "<bob@example.com>... Deferred: Name server: example.com.: host name lookup failure", "networkerror" },
	{ "550 5.1.2 <bob@example.invalid>... Host unknown (Name server: example.invalid: host not found)", "hostunknown" },
	{ "554 5.0.0 <bob@example.com>... Service unavailable", "systemerror" },
	{ "<bob@example.com>... Deferred: 403 4.7.0 TLS handshake failed.", "failedstarttls" },
	{ "Returned mail: Cannot send message for 5 days", "expired" },
	{ "554 5.4.6 Too many hops 26 (25 max): from <alice@example.org> via mx.example.com, to <bob@example.com>", "networkerror" },
	/* qmail-remote, qmail-local */
	{ "Sorry, I couldn't find any host named example.invalid. (#5.1.2)", "hostunknown" },
	{ "Sorry, I couldn't find any host by that name. (#4.1.2)", "networkerror" },
	{ "Sorry, I couldn't find a mail exchanger or IP address. (#5.4.4)", "notaccept" },
	{ "Connected to 192.0.2.5 but connection died. (#4.4.2)", "networkerror" },
	{ "CNAME lookup failed temporarily. (#4.4.3)", "networkerror" },
	{ "This message is looping: it already has my Delivered-To line. (#5.4.6)", "networkerror" },
	{ "I'm not going to try again; this message has been in the queue too long.", "expired" },
	/* OpenSMTPD mta.c, queue.c */
	{ "Network error on destination MXs", "networkerror" },
	{ "Temporary failure in MX lookup", "networkerror" },
	{ "No valid route to remote MX", "networkerror" },
	{ "Envelope expired", "expired" },
	/* every MX refused at the SMTP level: a temporary failure of the relay, no null MX */
	{ "Destination seem to reject all mails", "networkerror" },
	/* Exchange / Microsoft 365, Gmail, Amazon SES */
	{ "554 5.4.4 SMTPSEND.DNS.NonExistentDomain; nonexistent domain", "hostunknown" },
	{ "554 5.4.4 SMTPSEND.DNS.MxLoopback; DNS records for the domain are configured in a loop", "systemerror" },
	{ "451 4.4.0 DNS query failed. The error was: DNS query failed with error: ErrorRetry", "networkerror" },
	{ "441 4.4.1 Error encountered while communicating with primary target IP address: \"Failed to connect. Winsock error code: 10060, Win32 error code: 10060.\"", "networkerror" },
	{ "550 4.4.7 QUEUE.Expired; message expired", "expired" },
	{ "550 5.4.6 Routing loop detected", "networkerror" },
	{ "DNS Error: Domain name not found", "hostunknown" },
	{ "DNS Error: DNS type 'mx' lookup of example.com responded with code NXDOMAIN", "hostunknown" },
	{ "DNS Error: DNS type 'mx' lookup of example.com responded with code SERVFAIL", "networkerror" },
	{ "554 4.4.7 Message expired: unable to deliver in 840 minutes.", "expired" },
	{ "530 5.7.0 Must issue a STARTTLS command first", "failedstarttls" },
	{ "454 4.7.0 TLS not available due to local problem", "failedstarttls" },
};

/* Replies that had no reason or a wrong one. */
static const row fixed[] = {
	{ "550 Spam message rejected", "spamdetected" },
	{ "550 5.7.1 Message rejected due to content restrictions", "policyviolation" },
	{ "450 4.7.1 Client host rejected: cannot find your reverse hostname, [192.0.2.1]", "requireptr" },
	{ "450 4.7.1 Client host rejected: cannot find your hostname, [192.0.2.1]", "requireptr" },
	{ "554 5.7.1 Your IP 192.0.2.1 is listed in a DNS blocklist", "blocked" },
	{ "550 5.7.1 Your IP address has been blacklisted", "blocked" },
	{ "554 Rejected: sending IP 192.0.2.1 is listed on zen.spamhaus.org", "blocked" },
	{ "550 5.7.25 The IP address sending this message does not have a PTR record setup", "requireptr" },
};

/* The common failures in the languages receivers answer in. */
static const row i18n[] = {
	/* German */
	{ "550 Mailbox nicht vorhanden", "userunknown" },
	{ "550 5.1.1 <bob@example.de>: Empfänger unbekannt", "userunknown" },
	{ "550 5.1.1 Benutzer unbekannt", "userunknown" },
	{ "550 Unbekannter Empfänger <bob@example.de>", "userunknown" },
	{ "550 5.1.1 Das Postfach existiert nicht", "userunknown" },
	{ "552 5.2.2 Das Postfach des Empfängers ist voll", "mailboxfull" },
	{ "452 4.2.2 Mailbox voll / mailbox full", "mailboxfull" },
	{ "552 Speicherplatz überschritten", "mailboxfull" },
	{ "554 5.7.1 Nachricht als Spam eingestuft", "spamdetected" },
	{ "554 Ihre IP-Adresse ist gesperrt", "blocked" },
	{ "550 5.7.1 Relaying nicht erlaubt", "norelaying" },
	{ "552 5.3.4 Nachricht ist zu groß", "emailtoolarge" },
	/* French */
	{ "550 5.1.1 Utilisateur inconnu", "userunknown" },
	{ "550 Destinataire inconnu <bob@example.fr>", "userunknown" },
	{ "550 5.1.1 Adresse e-mail inconnue", "userunknown" },
	{ "550 Cette boîte aux lettres n'existe pas", "userunknown" },
	{ "552 5.2.2 Boîte aux lettres pleine", "mailboxfull" },
	{ "452 4.2.2 Quota dépassé", "mailboxfull" },
	{ "554 5.7.1 Message considéré comme spam", "spamdetected" },
	{ "554 Votre adresse IP est bloquée", "blocked" },
	{ "554 5.7.1 Relais refusé", "norelaying" },
	{ "552 5.3.4 Message trop volumineux", "emailtoolarge" },
	/* Spanish */
	{ "550 5.1.1 Usuario desconocido", "userunknown" },
	{ "550 La dirección de correo no existe", "userunknown" },
	{ "550 5.1.1 El buzón no existe", "userunknown" },
	{ "552 5.2.2 El buzón del destinatario está lleno", "mailboxfull" },
	{ "452 Cuota excedida", "mailboxfull" },
	{ "554 5.7.1 Mensaje rechazado como spam", "spamdetected" },
	{ "554 Su IP está en una lista negra", "blocked" },
	{ "550 5.7.1 Relay no permitido", "norelaying" },
	{ "552 El mensaje es demasiado grande", "emailtoolarge" },
	/* Italian */
	{ "550 5.1.1 Utente sconosciuto", "userunknown" },
	{ "550 Indirizzo inesistente", "userunknown" },
	{ "552 5.2.2 Casella di posta piena", "mailboxfull" },
	{ "452 Quota superata", "mailboxfull" },
	{ "554 Messaggio rifiutato come spam", "spamdetected" },
	{ "554 Il tuo indirizzo IP è bloccato", "blocked" },
	{ "550 Relay non permesso", "norelaying" },
	{ "552 Messaggio troppo grande", "emailtoolarge" },
	/* Portuguese */
	{ "550 5.1.1 Usuário desconhecido", "userunknown" },
	{ "550 Endereço inexistente", "userunknown" },
	{ "552 A caixa postal do destinatário está cheia", "mailboxfull" },
	{ "452 Quota excedida", "mailboxfull" },
	{ "554 Mensagem rejeitada como spam", "spamdetected" },
	{ "550 Relay não permitido", "norelaying" },
	{ "552 Mensagem muito grande", "emailtoolarge" },
	/* Dutch */
	{ "550 5.1.1 Onbekende gebruiker", "userunknown" },
	{ "550 Dit e-mailadres bestaat niet", "userunknown" },
	{ "552 Mailbox van de ontvanger is vol", "mailboxfull" },
	{ "554 Bericht als spam aangemerkt", "spamdetected" },
	{ "554 Uw IP-adres is geblokkeerd", "blocked" },
	{ "550 Relay niet toegestaan", "norelaying" },
	{ "552 Het bericht is te groot", "emailtoolarge" },
	/* Polish */
	{ "550 5.1.1 Nieznany użytkownik", "userunknown" },
	{ "550 Użytkownik nie istnieje", "userunknown" },
	{ "550 Nie ma takiego użytkownika", "userunknown" },
	{ "552 Skrzynka odbiorcy jest pełna", "mailboxfull" },
	{ "554 Wiadomość uznana za spam", "spamdetected" },
	{ "554 Adres IP jest na czarnej liście", "blocked" },
	{ "552 Wiadomość jest zbyt duża", "emailtoolarge" },
	/* Russian */
	{ "550 Пользователь не найден", "userunknown" },
	{ "550 5.1.1 Почтовый ящик не существует", "userunknown" },
	{ "550 Нет такого пользователя", "userunknown" },
	{ "552 Почтовый ящик получателя переполнен", "mailboxfull" },
	{ "452 Превышена квота", "mailboxfull" },
	{ "554 Сообщение отклонено как спам", "spamdetected" },
	{ "554 Ваш IP-адрес заблокирован", "blocked" },
	{ "550 Пересылка запрещена", "norelaying" },
	{ "552 Сообщение слишком большое", "emailtoolarge" },
	/* Japanese */
	{ "550 宛先不明のため配信できませんでした", "userunknown" },
	{ "550 ユーザーが存在しません", "userunknown" },
	{ "550 メールアドレスが見つかりません", "userunknown" },
	{ "552 メールボックスがいっぱいです", "mailboxfull" },
	{ "552 容量超過のため受信できません", "mailboxfull" },
	{ "554 迷惑メールと判定されました", "spamdetected" },
	{ "550 中継は許可されていません", "norelaying" },
	{ "552 メールサイズが大きすぎます", "emailtoolarge" },
	/* Chinese */
	{ "550 用户不存在", "userunknown" },
	{ "550 收件人不存在: bob@example.cn", "userunknown" },
	{ "550 用戶不存在", "userunknown" },
	{ "552 邮箱已满", "mailboxfull" },
	{ "552 收件人信箱已滿", "mailboxfull" },
	{ "554 邮件被判定为垃圾邮件", "spamdetected" },
	{ "554 您的IP已被列入黑名单", "blocked" },
	{ "553 拒绝中继", "norelaying" },
	{ "552 邮件大小超过限制", "emailtoolarge" },
	/* Korean */
	{ "550 존재하지 않는 사용자입니다", "userunknown" },
	{ "550 수신자가 존재하지 않습니다", "userunknown" },
	{ "552 메일함 용량 초과", "mailboxfull" },
	{ "554 스팸으로 분류되었습니다", "spamdetected" },
	{ "550 릴레이 거부", "norelaying" },
	{ "552 메일 크기 초과", "emailtoolarge" },
};

/* Mailbox providers' own codes and wordings, in the words of their error-code
 * pages (Gmail's localised pages, WEB.DE/GMX, QQ Mail, NetEase, Aruba, docomo). */
static const row providers[] = {
	{ "421 4.2.1 L'utilisateur que vous tentez de contacter reçoit des e-mails à un rythme trop élevé.", "ratelimited" },
	{ "450 4.2.1 Пользователь получает электронные письма слишком быстро", "ratelimited" },
	{ "450 4.2.1 L'utente sta ricevendo email troppo rapidamente", "ratelimited" },
	{ "421 Troppi messaggi inviati, riprova più tardi", "ratelimited" },
	{ "550 Слишком много писем с вашего адреса", "ratelimited" },
	{ "421 Es wurden zu viele E-Mails in zu kurzer Zeit eingeliefert", "ratelimited" },
	{ "550 5.7.1 Versand über einen Server, der laut SPF-Eintrag der Domain nicht erlaubt ist", "authfailure" },
	{ "550 5.7.1 SPF-Prüfung fehlgeschlagen", "authfailure" },
	{ "550 收件人短时间内收到大量邮件，暂时禁止发信", "ratelimited" },
	{ "550 该服务器IP的发信频率超过限制", "ratelimited" },
	{ "550 该邮件被多数用户投诉为垃圾邮件", "spamdetected" },
	{ "451 邮件正文带有垃圾邮件特征，被临时拒收", "spamdetected" },
	{ "550 받는 사람이 보낸 사람 example.com 의 메일을 차단했습니다", "filtered" },
	{ "kqrM2p00Z1aBcD3e4fGhIj policy violation", "ratelimited" },
	{ "450 Reject due to policy violations. For explanation visit https://postmaster.gmx.net/en/case?c=poli", "policyviolation" },
	{ "550 MI:IMF 163 mx1,QMCowAB 1700000000", "rejected" },
	{ "451 Requested mail action not taken: too much fail authentication", "securityerror" },
	{ "500 Line Too Long", "notcompliantrfc" },
};

/* Texts that state no failure: auto-replies, deliveries, warnings that the
 * MTA still retries, ordinary prose. They may be read as an auto-reply or a
 * delivery, never as a failure. */
static const row nofail[] = {
	{ "I am out of the office until Monday and will reply when I return.", NULL },
	{ "Ich bin bis zum 3. Juni nicht im Büro. Ihre Nachricht wird nicht weitergeleitet.", NULL },
	{ "Je suis absent du bureau jusqu'au 12 mars. Je répondrai à mon retour.", NULL },
	{ "Estoy fuera de la oficina hasta el lunes.", NULL },
	{ "現在出張中のため、返信が遅れます。", NULL },
	{ "我正在休假，回来后会尽快回复您的邮件。", NULL },
	{ "250 2.0.0 Ok: queued as 3F2A1B2C3D", NULL },
	{ "Your message has been delivered to the following recipients: bob@example.com", NULL },
	{ "This is a delivery status notification: delivery to the following recipient succeeded.", NULL },
	{ "The server will retry delivery of this message; no action is required on your part.", NULL },
	{ "Thanks for the quick reply, the meeting room is booked for Tuesday.", NULL },
	{ "Please find the attached report on last quarter's network upgrade.", NULL },
	{ "The connection to the new office is ready, and the printer was moved upstairs.", NULL },
	{ "Das Postfach ist vollständig eingerichtet; das Passwort kommt per Post.", NULL },
	{ "Merci pour votre message, nous traitons votre demande.", NULL },
	{ "Gracias por su correo, le responderemos pronto.", NULL },
	{ "Grazie per il messaggio, la risposta arriverà presto.", NULL },
	{ "Dziękujemy za wiadomość.", NULL },
	{ "Спасибо за письмо, мы ответим в ближайшее время.", NULL },
	{ "感谢您的来信，我们会尽快处理。", NULL },
	{ "메일 감사합니다. 곧 답장 드리겠습니다.", NULL },
};

static int pick(sd_classifier *c, const char *t)
{
	return sd_reason_pick(sd_classify_scan(c, t, strlen(t)));
}

/* The whole verdict, through explain's reading of reply text. */
static int weigh(sd_classifier *c, const char *t)
{
	smtpdiag_explanation *e = NULL;
	smtpdiag_error err = { 0, "" };
	int r = -1;

	(void)c;
	if (smtpdiag_explain(t, strlen(t), SMTPDIAG_EXPLAIN_TEXT, &e, &err) == 0) {
		r = e->reason[0] ? sd_reason_index(e->reason) : -1;
		smtpdiag_explanation_free(e);
	}
	return r;
}

/* A row with no reason wants no failure: none, an auto-reply or a delivery. */
static int wrong(int r, const char *want)
{
	if (!want)
		return r >= 0 && r != SD_R_vacation && r != SD_R_delivered;
	return strcmp(sd_reason_name(r), want) != 0;
}

static void check_rows(const row *t, size_t n, int (*reason)(sd_classifier *, const char *))
{
	sd_classifier *c = sd_classifier_new();
	int bad = 0;

	assert_non_null(c);
	for (size_t i = 0; i < n; i++) {
		int r = reason(c, t[i].text);
		if (wrong(r, t[i].reason)) {
			print_error("'%s' -> '%s', want '%s'\n", t[i].text, sd_reason_name(r),
				    t[i].reason ? t[i].reason : "no failure");
			bad++;
		}
	}
	sd_classifier_free(c);
	assert_int_equal(bad, 0);
}

#define CHECK(t, f) check_rows(t, sizeof(t) / sizeof(t[0]), f)

static void test_nocode(void **state)
{
	(void)state;
	CHECK(nocode, pick);
}

static void test_fixed(void **state)
{
	(void)state;
	CHECK(fixed, pick);
}

static void test_i18n(void **state)
{
	(void)state;
	CHECK(i18n, pick);
}

/* The reason decision that weighs the status and the reply code agrees on the
 * replies that carry codes, and on the texts without one. */
static void test_weighed(void **state)
{
	static const row t[] = {
		{ "550 5.7.1 Message rejected due to content restrictions", "policyviolation" },
		{ "450 4.7.1 Client host rejected: cannot find your reverse hostname, [192.0.2.1]", "requireptr" },
		{ "550 Spam message rejected", "spamdetected" },
		{ "connect to mx.example.com[192.0.2.5]:25: Connection timed out", "networkerror" },
		{ "lost connection with mx.example.com[192.0.2.5] while receiving the initial server greeting", "networkerror" },
		{ "Domain example.com does not accept mail (nullMX)", "notaccept" },
		{ "Cannot start TLS: handshake failure", "failedstarttls" },
		{ "retry timeout exceeded", "expired" },
	};

	(void)state;
	CHECK(t, weigh);
}

static void test_providers(void **state)
{
	(void)state;
	CHECK(providers, pick);
}

/* A text without a code says its failure is transient in the words of the
 * rules' languages; a longer word that holds one is not it. */
static void test_temporary(void **state)
{
	static const struct {
		const char *text;
		int temp;
	} t[] = {
		{ "Indirizzo IP bloccato temporaneamente per sospetto abuso", 1 },
		{ "Votre adresse IP est bloquée temporairement", 1 },
		{ "Die Annahme wurde vorübergehend verweigert", 1 },
		{ "Die Zustellung ist temporär nicht erlaubt", 1 },
		{ "Adres IP zablokowany tymczasowo", 1 },
		{ "Ваш IP временно заблокирован", 1 },
		{ "Mailbox temporarily disabled", 1 },
		/* delivery notices: temporary errors and delays, in the notices' languages */
		{ "Delivery is delayed to these recipients or groups", 1 },
		{ "Die Zustellung an diese Empf\xc3\xa4nger ist verz\xc3\xb6gert", 1 },
		{ "La remise est retard\xc3\xa9" "e", 1 },
		{ "Error temporal: el mensaje no se ha entregado", 1 },
		{ "Errore temporaneo del server", 1 },
		{ "Erro tempor\xc3\xa1rio na entrega", 1 },
		{ "B\xc5\x82\xc4\x85" "d tymczasowy serwera", 1 },
		{ "\xd0\x92\xd1\x80\xd0\xb5\xd0\xbc\xd0\xb5\xd0\xbd\xd0\xbd\xd0\xb0\xd1\x8f \xd0\xbe\xd1\x88\xd0\xb8\xd0\xb1\xd0\xba\xd0\xb0", 1 }, /* Временная ошибка */
		{ "Tillf\xc3\xa4lligt fel, f\xc3\xb6rs\xc3\xb6k igen", 1 },
		{ "Ge\xc3\xa7ici hata", 1 },
		{ "\xe4\xb8\x80\xe6\x99\x82\xe7\x9a\x84\xe3\x81\xaa\xe3\x82\xa8\xe3\x83\xa9\xe3\x83\xbc", 1 }, /* 一時的なエラー */
		{ "\xe9\x82\xae\xe4\xbb\xb6\xe6\x8a\x95\xe9\x80\x92\xe5\xbb\xb6\xe8\xbf\x9f", 1 }, /* 邮件投递延迟 */
		{ "Leveransen \xc3\xa4r f\xc3\xb6rsenad", 1 },
		{ "Levering af meddelelsen er forsinket", 1 },
		{ "Doru\xc4\x8d" "en\xc3\xad zpr\xc3\xa1vy je zpo\xc5\xbe" "d\xc4\x9bno", 1 },
		{ "Mesaj teslimat\xc4\xb1 gecikti", 1 },
		{ "Pengiriman pesan tertunda", 1 },
		{ "\xd8\xae\xd8\xb7\xd8\xa3 \xd9\x85\xd8\xa4\xd9\x82\xd8\xaa \xd9\x81\xd9\x8a \xd8\xa7\xd9\x84\xd8\xae\xd8\xa7\xd8\xaf\xd9\x85", 1 }, /* ar: a temporary server error */
		{ "\xe0\xb8\x81\xe0\xb8\xb2\xe0\xb8\xa3\xe0\xb8\xaa\xe0\xb9\x88\xe0\xb8\x87\xe0\xb8\x82\xe0\xb9\x89\xe0\xb8\xad\xe0\xb8\x84\xe0\xb8\xa7\xe0\xb8\xb2\xe0\xb8\xa1\xe0\xb8\xa5\xe0\xb9\x88\xe0\xb8\xb2\xe0\xb8\x8a\xe0\xb9\x89\xe0\xb8\xb2", 1 }, /* th: the sending is late */
		{ "Permanent error: the message could not be delivered", 0 },
		{ "Erreur permanente : message non remis", 0 },
		{ "Mailbox does not exist", 0 },
		{ "A contemporary design was rejected", 0 },
	};
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (sd_vd_is_temporary(t[i].text, strlen(t[i].text)) != t[i].temp) {
			print_message("temporary? '%s': want %d\n", t[i].text, t[i].temp);
			bad++;
		}
	assert_int_equal(bad, 0);
}

static void test_nofail(void **state)
{
	(void)state;
	CHECK(nofail, pick);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nocode),
		cmocka_unit_test(test_fixed),
		cmocka_unit_test(test_i18n),
		cmocka_unit_test(test_weighed),
		cmocka_unit_test(test_providers),
		cmocka_unit_test(test_temporary),
		cmocka_unit_test(test_nofail),
	};
	return cmocka_run_group_tests_name("rules_world", tests, NULL, NULL);
}
