/* test_families.c - the word families, family x language x with and without a
 * reply code.
 *
 * Each family (a rate or too many connections, greylisting, a block list, a
 * virus, spam, SPF/DKIM/DMARC, a policy, a full mailbox, an unknown user or
 * domain, a disabled account, relaying, size) is worded here as receivers word
 * it in each language, and each wording is read twice by explain: after a
 * reply code and a status that name only their subject (X.7.1, X.2.0, X.n.0,
 * or a bare 5xx), and, where the family can stand on its own, as a text with
 * no code at all. The verdict must be the family's, with the retry, hard
 * bounce and advice the conventions of ../shared/verdicts/README.md give it;
 * a text with a failure in it is always explained (never "nothing to
 * explain"). The matrix is generated from the two tables below. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "smtpdiag.h"

typedef struct family {
	const char *name;   /* the family */
	const char *code;   /* the reply code and status it is put after */
	const char *reason; /* the verdict, with code and (where nocode) without */
	int hard, retry;
	const char *advice;
	int nocode;         /* 1: the wording also stands without a code */
	int nocode_retry;   /* retry of the text without a code */
	const char *nocode_advice;
} family;

static const family fams[] = {
	{ "rate", "421 4.7.0", "ratelimited", 0, 1, "retry", 1, 1, "retry" },
	{ "greylist", "450 4.7.1", "blocked", 0, 1, "retry", 0, 0, NULL },
	{ "blocklist", "554 5.7.1", "blocked", 0, 0, "fix-sender-reputation", 1, 0, "fix-sender-reputation" },
	{ "virus", "554 5.7.1", "virusdetected", 0, 0, "fix-message", 1, 0, "fix-message" },
	{ "spam", "550 5.7.1", "spamdetected", 0, 0, "fix-message", 1, 0, "fix-message" },
	{ "auth", "550 5.7.1", "authfailure", 0, 0, "fix-sender-authentication", 1, 0, "fix-sender-authentication" },
	{ "policy", "550 5.7.1", "policyviolation", 0, 0, "fix-message", 1, 0, "fix-message" },
	{ "full", "552 5.2.0", "mailboxfull", 0, 1, "retry", 1, 1, "retry" },
	{ "nouser", "550", "userunknown", 1, 0, "suppress-recipient", 1, 0, "suppress-recipient" },
	{ "nodomain", "550", "hostunknown", 1, 0, "suppress-recipient", 1, 0, "suppress-recipient" },
	{ "disabled", "550", "suspend", 0, 0, "suppress-recipient", 1, 0, "suppress-recipient" },
	{ "relay", "550", "norelaying", 0, 0, "fix-sender-config", 1, 0, "fix-sender-config" },
	{ "size", "552", "emailtoolarge", 0, 0, "fix-message", 1, 0, "fix-message" },
};

typedef struct wording {
	const char *family, *lang, *text;
} wording;

/* How receivers word each family, language by language. */
static const wording words[] = {
	/* too many connections, busy, too frequent, rate limits */
	{ "rate", "en", "Too many connections from your IP address" },
	{ "rate", "en", "Server busy, too frequent connects" },
	{ "rate", "en", "Connection rate limit exceeded, try another server" },
	{ "rate", "de", "Zu viele Verbindungen von Ihrer IP-Adresse" },
	{ "rate", "de", "Es wurden zu viele E-Mails in zu kurzer Zeit eingeliefert" },
	{ "rate", "fr", "Trop de connexions, veuillez verifier votre configuration" },
	{ "rate", "es", "Demasiadas conexiones desde su servidor" },
	{ "rate", "it", "Troppe connessioni dal tuo indirizzo" },
	{ "rate", "pt", "Muitas conexões simultâneas do seu servidor" },
	{ "rate", "nl", "Te veel verbindingen vanaf uw server" },
	{ "rate", "pl", "Zbyt wiele połączeń z Twojego serwera" },
	{ "rate", "ru", "Слишком много соединений с вашего адреса" },
	{ "rate", "uk", "Забагато з'єднань з вашої адреси" },
	{ "rate", "cs", "Příliš mnoho spojení z vaší adresy" },
	{ "rate", "tr", "Çok fazla bağlantı, daha sonra deneyin" },
	{ "rate", "hu", "Túl sok kapcsolat a címéről" },
	{ "rate", "ro", "Prea multe conexiuni de la serverul dumneavoastră" },
	{ "rate", "el", "Πάρα πολλές συνδέσεις από τη διεύθυνσή σας" },
	{ "rate", "sv", "För många anslutningar från din server" },
	{ "rate", "da", "For mange forbindelser fra din server" },
	{ "rate", "nb", "For mange tilkoblinger fra serveren din" },
	{ "rate", "fi", "Liian monta yhteyttä palvelimeltasi" },
	{ "rate", "vi", "Quá nhiều kết nối từ máy chủ của bạn" },
	{ "rate", "id", "Terlalu banyak koneksi dari server Anda" },
	{ "rate", "ja", "接続数が多すぎます" },
	{ "rate", "zh", "发信频率过快" },
	{ "rate", "zh-Hant", "連線數過多" },
	{ "rate", "ko", "연결이 너무 많습니다" },
	/* greylisting */
	{ "greylist", "en", "Greylisted, please retry later" },
	{ "greylist", "en", "Recipient address rejected: greylisting in progress" },
	{ "greylist", "de", "Greylisting aktiv, bitte später erneut versuchen" },
	{ "greylist", "fr", "Mise en liste grise, veuillez réessayer plus tard" },
	{ "greylist", "es", "Lista gris: inténtelo de nuevo más tarde" },
	{ "greylist", "it", "Lista grigia: riprovare più tardi" },
	{ "greylist", "pt", "Lista cinza: tente novamente mais tarde" },
	{ "greylist", "nl", "Grijze lijst: probeer het later opnieuw" },
	{ "greylist", "pl", "Szara lista: spróbuj ponownie później" },
	{ "greylist", "ru", "Серый список: попробуйте позже" },
	{ "greylist", "ja", "グレーリストにより一時的に拒否しました" },
	{ "greylist", "zh", "灰名单，请稍后重试" },
	/* block lists, reputation */
	{ "blocklist", "en", "Your IP is listed on a DNS block list" },
	{ "blocklist", "en", "Sending host has a poor reputation" },
	{ "blocklist", "de", "Ihr Server steht auf einer Sperrliste" },
	{ "blocklist", "fr", "Votre serveur figure sur une liste noire" },
	{ "blocklist", "es", "Su servidor aparece en una lista negra" },
	{ "blocklist", "it", "Il server è in lista nera" },
	{ "blocklist", "pt", "Seu servidor está em uma lista negra" },
	{ "blocklist", "nl", "Uw server staat op een zwarte lijst" },
	{ "blocklist", "pl", "Serwer jest na czarnej liście" },
	{ "blocklist", "ru", "Ваш сервер в чёрном списке" },
	{ "blocklist", "cs", "Server je na černé listině" },
	{ "blocklist", "tr", "Sunucunuz kara listede" },
	{ "blocklist", "sv", "Din server är svartlistad" },
	{ "blocklist", "id", "Server Anda masuk daftar hitam" },
	{ "blocklist", "ja", "ブラックリストに登録されています" },
	{ "blocklist", "zh", "您的IP在黑名单中" },
	{ "blocklist", "ko", "블랙리스트에 등록된 서버입니다" },
	/* virus, malware */
	{ "virus", "en", "Malware detected in attachment" },
	{ "virus", "de", "Die Nachricht enthält einen Virus" },
	{ "virus", "fr", "Virus détecté dans le message" },
	{ "virus", "es", "Virus detectado en el mensaje" },
	{ "virus", "it", "Rilevato virus nel messaggio" },
	{ "virus", "pt", "Vírus detectado na mensagem" },
	{ "virus", "nl", "Virus gevonden in het bericht" },
	{ "virus", "pl", "Wykryto wirusa w wiadomości" },
	{ "virus", "ru", "Обнаружен вирус в письме" },
	{ "virus", "uk", "Виявлено вірус у листі" },
	{ "virus", "cs", "Zpráva obsahuje virus" },
	{ "virus", "tr", "İletide virüs bulundu" },
	{ "virus", "hu", "Vírust találtunk az üzenetben" },
	{ "virus", "ro", "Virus detectat în mesaj" },
	{ "virus", "el", "Εντοπίστηκε ιός στο μήνυμα" },
	{ "virus", "sv", "Virus hittades i meddelandet" },
	{ "virus", "fi", "Viestistä löytyi virus" },
	{ "virus", "vi", "Phát hiện virus trong thư" },
	{ "virus", "id", "Virus terdeteksi dalam pesan" },
	{ "virus", "ja", "ウイルスが検出されました" },
	{ "virus", "zh", "邮件包含病毒" },
	{ "virus", "zh-Hant", "郵件含有病毒" },
	{ "virus", "ko", "바이러스가 발견되었습니다" },
	/* spam, phishing */
	{ "spam", "en", "Phishing message rejected" },
	{ "spam", "de", "Unerwünschte Werbung abgelehnt" },
	{ "spam", "fr", "Pourriel refusé" },
	{ "spam", "es", "Correo no deseado rechazado" },
	{ "spam", "it", "Posta indesiderata rifiutata" },
	{ "spam", "ru", "Письмо похоже на спам" },
	{ "spam", "uk", "Лист схожий на спам" },
	{ "spam", "cs", "Nevyžádaná pošta odmítnuta" },
	{ "spam", "tr", "İstenmeyen ileti reddedildi" },
	{ "spam", "sv", "Meddelandet avvisades som skräppost" },
	{ "spam", "fi", "Roskapostia ei hyväksytä" },
	{ "spam", "vi", "Thư rác bị từ chối" },
	{ "spam", "el", "Απορρίφθηκε ως ανεπιθύμητο" },
	{ "spam", "ja", "迷惑メールのため拒否しました" },
	{ "spam", "zh", "垃圾邮件，拒绝接收" },
	{ "spam", "ko", "스팸 메일로 거부되었습니다" },
	/* SPF, DKIM, DMARC */
	{ "auth", "en", "SPF check failed for example.com" },
	{ "auth", "en", "Rejected by the DMARC policy of example.com" },
	{ "auth", "de", "SPF-Prüfung fehlgeschlagen" },
	{ "auth", "fr", "Échec de la vérification SPF" },
	{ "auth", "es", "Fallo en la verificación DKIM" },
	{ "auth", "it", "Verifica DMARC non superata" },
	{ "auth", "pt", "Falha na verificação SPF" },
	{ "auth", "pl", "Weryfikacja SPF nie powiodła się" },
	{ "auth", "ru", "Проверка SPF не пройдена" },
	{ "auth", "ja", "SPF認証に失敗しました" },
	{ "auth", "zh", "SPF验证失败" },
	{ "auth", "ko", "DMARC 검증 실패" },
	/* policy */
	{ "policy", "en", "Message refused: local policies" },
	{ "policy", "de", "Abgelehnt gemäß unserer Richtlinie" },
	{ "policy", "fr", "Refusé selon notre politique" },
	{ "policy", "es", "Rechazado por la política del servidor" },
	{ "policy", "nl", "Geweigerd volgens ons beleid" },
	{ "policy", "pl", "Odrzucono zgodnie z polityką serwera" },
	{ "policy", "ru", "Отклонено согласно политике сервера" },
	{ "policy", "ja", "ポリシーにより拒否しました" },
	{ "policy", "zh", "违反策略，拒绝接收" },
	{ "policy", "ko", "정책에 의해 거부되었습니다" },
	/* full mailbox */
	{ "full", "en", "Mailbox quota exceeded" },
	{ "full", "de", "Postfach des Empfängers ist voll" },
	{ "full", "fr", "Boîte aux lettres pleine" },
	{ "full", "es", "Buzón lleno" },
	{ "full", "it", "Casella piena" },
	{ "full", "pt", "Caixa postal cheia" },
	{ "full", "nl", "Mailbox is vol" },
	{ "full", "pl", "Skrzynka odbiorcy jest pełna" },
	{ "full", "ru", "Почтовый ящик переполнен" },
	{ "full", "uk", "Скринька переповнена" },
	{ "full", "cs", "Schránka je plná" },
	{ "full", "tr", "Posta kutusu dolu" },
	{ "full", "hu", "A postafiók megtelt" },
	{ "full", "ro", "Căsuța poștală este plină" },
	{ "full", "el", "Το γραμματοκιβώτιο είναι γεμάτο" },
	{ "full", "sv", "Brevlådan är full" },
	{ "full", "da", "Postkassen er fuld" },
	{ "full", "fi", "Postilaatikko on täynnä" },
	{ "full", "vi", "Hộp thư đã đầy" },
	{ "full", "id", "Kotak surat penuh" },
	{ "full", "ja", "メールボックスがいっぱいです" },
	{ "full", "zh", "邮箱已满" },
	{ "full", "ko", "메일함이 가득 찼습니다" },
	/* no such user */
	{ "nouser", "en", "No such user here" },
	{ "nouser", "de", "Benutzer unbekannt" },
	{ "nouser", "fr", "Destinataire inconnu" },
	{ "nouser", "cs", "Uživatel neexistuje" },
	{ "nouser", "tr", "Kullanıcı bulunamadı" },
	{ "nouser", "hu", "Ismeretlen felhasználó" },
	{ "nouser", "ro", "Utilizatorul nu există" },
	{ "nouser", "el", "Ο χρήστης δεν υπάρχει" },
	{ "nouser", "uk", "Користувача не знайдено" },
	{ "nouser", "sv", "Användaren finns inte" },
	{ "nouser", "da", "Brugeren findes ikke" },
	{ "nouser", "nb", "Brukeren finnes ikke" },
	{ "nouser", "fi", "Vastaanottajaa ei löydy" },
	{ "nouser", "vi", "Người dùng không tồn tại" },
	{ "nouser", "id", "Pengguna tidak ditemukan" },
	{ "nouser", "ja", "ユーザーが存在しません" },
	{ "nouser", "zh", "用户不存在" },
	{ "nouser", "ko", "존재하지 않는 사용자입니다" },
	/* no such domain */
	{ "nodomain", "en", "Unknown domain example.invalid" },
	{ "nodomain", "de", "Die Domain example.invalid existiert nicht" },
	{ "nodomain", "fr", "Domaine inconnu : example.invalid" },
	{ "nodomain", "es", "El dominio example.invalid no existe" },
	{ "nodomain", "it", "Dominio inesistente" },
	{ "nodomain", "pt", "Domínio desconhecido" },
	{ "nodomain", "nl", "Het domein example.invalid bestaat niet" },
	{ "nodomain", "pl", "Domena example.invalid nie istnieje" },
	{ "nodomain", "ru", "Домен не найден" },
	{ "nodomain", "cs", "Doména neexistuje" },
	{ "nodomain", "ja", "ドメインが存在しません" },
	{ "nodomain", "zh", "域名不存在" },
	{ "nodomain", "ko", "도메인이 존재하지 않습니다" },
	/* the recipient's account is disabled */
	{ "disabled", "en", "This account has been disabled" },
	{ "disabled", "de", "Das Konto des Empfängers wurde deaktiviert" },
	{ "disabled", "fr", "Ce compte est désactivé" },
	{ "disabled", "es", "La cuenta está desactivada" },
	{ "disabled", "pt", "Conta desativada" },
	{ "disabled", "pl", "Konto odbiorcy zostało zablokowane" },
	{ "disabled", "ru", "Аккаунт заблокирован" },
	{ "disabled", "ja", "アカウントが停止されています" },
	{ "disabled", "zh", "邮箱已被冻结" },
	{ "disabled", "ko", "계정이 정지되었습니다" },
	/* relaying */
	{ "relay", "en", "Relaying denied" },
	{ "relay", "de", "Relaying nicht erlaubt" },
	{ "relay", "fr", "Relais refusé" },
	{ "relay", "es", "Relay no permitido" },
	{ "relay", "cs", "Relay není povolen" },
	{ "relay", "tr", "Relay izin verilmiyor" },
	{ "relay", "ja", "中継は許可されていません" },
	{ "relay", "zh", "拒绝中继" },
	/* size */
	{ "size", "en", "Message size exceeds the limit" },
	{ "size", "de", "Nachricht ist zu groß" },
	{ "size", "fr", "Message trop volumineux" },
	{ "size", "es", "El mensaje es demasiado grande" },
	{ "size", "it", "Messaggio troppo grande" },
	{ "size", "cs", "Zpráva je příliš velká" },
	{ "size", "tr", "İleti çok büyük" },
	{ "size", "sv", "Meddelandet är för stort" },
	{ "size", "ja", "メールサイズが大きすぎます" },
	{ "size", "zh", "邮件太大" },
};

static const family *family_of(const char *name)
{
	for (size_t i = 0; i < sizeof(fams) / sizeof(fams[0]); i++)
		if (!strcmp(fams[i].name, name))
			return &fams[i];
	return NULL;
}

/* One cell: explain the text; 1 when the verdict is the wanted one. */
static int cell(const char *text, const char *reason, int hard, int retry, const char *advice)
{
	smtpdiag_explanation *e = NULL;
	smtpdiag_error err = { 0, "" };
	int ok;

	if (smtpdiag_explain(text, strlen(text), SMTPDIAG_EXPLAIN_TEXT, &e, &err) != 0) {
		print_message("  '%s': not explained (%s)\n", text, err.message);
		return 0;
	}
	ok = !strcmp(e->reason, reason) && e->hardbounce == hard && e->retry == retry && !strcmp(e->advice, advice);
	if (!ok)
		print_message("  '%s': %s hard=%d retry=%d %s, want %s hard=%d retry=%d %s\n", text, e->reason,
			      e->hardbounce, e->retry, e->advice, reason, hard, retry, advice);
	smtpdiag_explanation_free(e);
	return ok;
}

static void test_matrix(void **state)
{
	char text[512];
	int cells = 0, bad = 0, langs[sizeof(fams) / sizeof(fams[0])] = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		const wording *w = &words[i];
		const family *f = family_of(w->family);
		assert_non_null(f);
		langs[f - fams]++;
		snprintf(text, sizeof(text), "%s %s", f->code, w->text);
		cells++;
		bad += !cell(text, f->reason, f->hard, f->retry, f->advice);
		if (!f->nocode)
			continue;
		cells++;
		bad += !cell(w->text, f->reason, f->hard, f->nocode_retry, f->nocode_advice);
	}
	print_message("word families: %d of %d cells right\n", cells - bad, cells);
	for (size_t i = 0; i < sizeof(fams) / sizeof(fams[0]); i++)
		assert_true(langs[i] >= 8); /* every family in at least eight wordings */
	assert_int_equal(bad, 0);
}

/* What words never do: decide against a status detail or a reply code of its
 * own, or make a failure of a text that states none. */
static void test_limits(void **state)
{
	static const char *const nofail[] = {
		"Thanks, the server upgrade is done and the policy document is attached.",
		"Der Server ist jetzt eingerichtet; die Richtlinie liegt bei.",
		"Merci, la politique de sauvegarde est à jour.",
	};
	smtpdiag_error err = { 0, "" };
	smtpdiag_explanation *e = NULL;

	(void)state;
	/* a status detail decides before the words (X.1.1: no such user) */
	assert_true(cell("550 5.1.1 Too many connections from your IP address", "userunknown", 1, 0, "suppress-recipient"));
	/* a reply code with a meaning of its own (RFC 4954) decides before the words */
	assert_true(cell("535 Server busy", "securityerror", 0, 0, "fix-sender-authentication"));
	/* X.2.x says the mailbox exists (RFC 3463 3.3): no word of an unknown
	 * address or domain overrides it; without the status the word speaks */
	assert_true(cell("550 5.2.0 Unknown domain example.invalid", "filtered", 0, 0, "suppress-recipient"));
	assert_true(cell("550 Unknown domain example.invalid", "hostunknown", 1, 0, "suppress-recipient"));
	/* a header the RFCs require, an attachment the receiver bans: the message's
	 * form and content, not the sending client */
	assert_true(cell("550 5.7.1 Duplicate Message-ID header", "notcompliantrfc", 0, 0, "fix-message"));
	assert_true(cell("554 5.7.1 This message has been blocked because it contains a banned attachment", "policyviolation", 0, 0, "fix-message"));
	/* the domain named between the words */
	assert_true(cell("550 5.4.310 DNS domain nosuch.example does not exist", "hostunknown", 1, 0, "suppress-recipient"));
	/* a status subject rules out the families it contradicts: X.4.x is not the content */
	assert_true(cell("421 4.4.0 virus scanner unreachable, connection timed out", "networkerror", 0, 1, "retry"));
	for (size_t i = 0; i < sizeof(nofail) / sizeof(nofail[0]); i++) {
		int rc = smtpdiag_explain(nofail[i], strlen(nofail[i]), SMTPDIAG_EXPLAIN_TEXT, &e, &err);
		if (rc == 0)
			print_message("  '%s' read as %s\n", nofail[i], e->reason);
		smtpdiag_explanation_free(e);
		e = NULL;
		assert_int_equal(rc, SMTPDIAG_ENOTFOUND);
	}
}

/* decode reads the words in its default mode; --reasons sisimai keeps the
 * reference decoder's reading of the status (docs/reasons.md, "Modes"). */
static const char *mode_reason(unsigned flags, char *out, size_t n)
{
	static const char dsn[] =
		"From: MAILER-DAEMON@relay.example.com\nTo: sender@example.com\n"
		"Subject: Undelivered Mail Returned to Sender\nMIME-Version: 1.0\n"
		"Content-Type: multipart/report; report-type=delivery-status; boundary=\"f1\"\n\n"
		"--f1\nContent-Type: text/plain\n\nYour message could not be delivered.\n\n"
		"--f1\nContent-Type: message/delivery-status\n\nReporting-MTA: dns; relay.example.com\n\n"
		"Final-Recipient: rfc822; user@example.org\nAction: failed\nStatus: 5.7.1\n"
		"Remote-MTA: dns; mx.example.org\n"
		"Diagnostic-Code: smtp; 554 5.7.1 Die Nachricht enth\xc3\xa4lt einen Virus\n\n--f1--\n";
	smtpdiag_decoder *d = smtpdiag_decoder_new(flags);
	smtpdiag_error err = { 0, "" };

	assert_non_null(d);
	assert_int_equal(smtpdiag_decode(d, dsn, strlen(dsn), NULL, &err), 1);
	snprintf(out, n, "%s", smtpdiag_decoder_fact(d, 0)->reason);
	smtpdiag_decoder_free(d);
	return out;
}

static void test_modes(void **state)
{
	char r[32];

	(void)state;
	assert_string_equal(mode_reason(0, r, sizeof(r)), "virusdetected");
	assert_string_equal(mode_reason(SMTPDIAG_DECODE_REASONS_SISIMAI, r, sizeof(r)), "securityerror");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matrix),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_modes),
	};
	return cmocka_run_group_tests_name("families", tests, NULL, NULL);
}
