/* exchange2007.c - Microsoft Exchange Server 2007 and later non-delivery
 * reports ("Undeliverable: ..."), in any of their languages.
 *
 *   Diagnostic information for administrators:
 *
 *   Generating server: mta2.example.jp
 *
 *   kijitora@example.jp
 *   #550 5.1.1 RESOLVER.ADR.RecipNotFound; not found ##
 *
 *   Original message headers:
 *
 * The headings are Exchange's own in the sender's language (Microsoft's
 * localized NDR documentation: "Diagnoseinformationen für Administratoren",
 * "Generierender Server", "Ursprüngliche Nachrichtenkopfzeilen", ...).
 */
#include "decode/formats/prov.h"
#include "smtp/reply.h"

/* "Diagnostic information for administrators:" */
static const char *const ex_admin[] = {
	"Diagnostic information for administrators",          /* en */
	"Diagnoseinformationen für Administratoren",          /* de */
	"Informations de diagnostic pour les administrateurs", /* fr */
	"Información de diagnóstico para administradores",    /* es */
	"Informazioni di diagnostica per gli amministratori",  /* it */
	"Diagnostisk information för administratörer",        /* sv */
	NULL,
};

/* "Generating server: host" */
static const char *const ex_server[] = {
	"Generating server", "Generierender Server", "Serveur de génération",
	"Servidor de generación", "Server di generazione", "Genererande server", NULL,
};

/* "Original message headers:" */
static const char *const ex_orig[] = {
	"Original message headers", "Ursprüngliche Nachrichtenkopfzeilen",
	"En-têtes de message d'origine", "Encabezados del mensaje original",
	"Intestazioni originali del messaggio", "Ursprungshuvuden", NULL,
};

/* Exchange's NDR codes and the reasons they state. */
static const pv_phrase ex_ndr[] = {
	{ "SMTPSEND.DNS.NonExistentDomain", SD_R_hostunknown },
	{ "SMTPSEND.DNS.MxLoopback", SD_R_networkerror },
	{ "RESOLVER.ADR.BadPrimary", SD_R_systemerror },
	{ "RESOLVER.ADR.RecipNotFound", SD_R_userunknown },
	{ "RESOLVER.ADR.ExRecipNotFound", SD_R_userunknown },
	{ "RESOLVER.ADR.RecipientNotFound", SD_R_userunknown },
	{ "RESOLVER.ADR.RecipLimit", SD_R_ratelimited },
	{ "RESOLVER.ADR.InvalidInSmtp", SD_R_systemerror },
	{ "RESOLVER.ADR.Ambiguous", SD_R_systemerror },
	{ "RESOLVER.RST.AuthRequired", SD_R_securityerror },
	{ "RESOLVER.RST.NotAuthorized", SD_R_rejected },
	{ "RESOLVER.RST.RecipSizeLimit", SD_R_emailtoolarge },
	{ "QUEUE.Expired", SD_R_expired },
	{ NULL, 0 },
};

/* "Undeliverable:" in the languages Exchange speaks. */
static const char *const ex_subjects[] = {
	"Undeliverable:", "Undeliverable message", "Unzustellbar:", "Non remis", "Onbestelbaar:",
	"Non recapitabile:", "No se puede entregar:", "Não é possível entregar:", "Olevererbart:",
	"Ikke leveret:", "Kan ikke leveres:", "Nie można dostarczyć:", "Nedoručitelné:",
	"Kézbesíthetetlen:", "Teslim Edilemeyen:", "Недоставляемое", "配信不能:", "無法傳遞:",
	"无法投递:", "전달되지 않음:", NULL,
};

static int language_tag(sd_str v)
{
	v = sd_trim(v);
	return (v.n == 2 || (v.n == 5 && v.p[2] == '-')) && sd_isalpha((unsigned char)v.p[0]) &&
	       sd_isalpha((unsigned char)v.p[1]);
}

/* The line Exchange's (and Exchange Online's) report opens with. */
static const char *const ex_opening[] = { "Delivery has failed to these recipients or groups:", NULL };

static int is_exchange2007(sd_ctx *c)
{
	sd_str subj = sd_trim(c->subject);
	int known = mta_starts(subj, "=?"); /* encoded words: the body check decides */

	if (sd_ctx_pasted(c, ex_opening))
		return 1; /* the body pasted alone */
	if (sd_ctx_headerless(c) && pv_exchange_admin(mta_body(c)).p)
		return 1; /* pasted alone in another language, or Outlook.com's newer
			   * "Your message to ... couldn't be delivered": the heading
			   * for administrators is the report's own */

	for (int i = 0; ex_subjects[i] && !known; i++)
		known = mta_starts(subj, ex_subjects[i]);
	return known && language_tag(mta_hdr(c, "Content-Language"));
}

/* A line with "NNN X.Y.Z text": take it as the recipient's error. */
static int code_line(sd_str line)
{
	sd_found f[2];

	return sd_find_codes(line.p, line.n, f, 2) && f[0].replycode >= 400 && f[0].status.text[0];
}

/* "Remote Server returned '550" with the status on the next line: a line a mail
 * client broke after the reply code. */
static int code_at_end(sd_str line)
{
	size_t n = line.n;

	while (n && sd_isdigit((unsigned char)line.p[n - 1]))
		n--;
	return line.n - n == 3 && (line.p[n] == '4' || line.p[n] == '5') && n &&
	       (line.p[n - 1] == '\'' || line.p[n - 1] == '#' || line.p[n - 1] == ' ');
}

sd_str pv_exchange_admin(sd_str body)
{
	for (int i = 0; ex_admin[i]; i++) {
		sd_str t = pv_after_line(body, ex_admin[i]);
		if (t.p)
			return t;
	}
	return SD_NULLSTR;
}

/* "Generating server: host" in any language -> host; SD_NULLSTR if not one. */
static sd_str server_line(sd_str t)
{
	for (int i = 0; ex_server[i]; i++)
		if (mta_starts(t, ex_server[i]))
			return sd_trim(mta_after(t, ":"));
	return SD_NULLSTR;
}

static void ex_text(sd_ctx *c, sd_str body)
{
	sd_str text = pv_cut(pv_exchange_admin(body), ex_orig), line;
	sd_str lhost = SD_NULLSTR;
	size_t pos = 0;
	sd_rcpt *r = NULL;
	int n = 0;

	while (text.p && n++ < PV_MAX_LINES && sd_next_line(text, &pos, &line)) {
		sd_str t = sd_trim(line);
		sd_str host = server_line(t);
		if (host.p)
			lhost = host;
		else if (mta_is_addr(mta_before(t, "<mailto:")) && (r = pv_rcpt(c, mta_before(t, "<mailto:"))))
			r->lhost = lhost;
		else if (r && code_line(t))
			r->diagnostic = t;
		else if (r && code_at_end(t))
			r->diagnostic = t;
		else if (r && r->diagnostic.n && code_at_end(r->diagnostic))
			r->diagnostic = mta_join(c->a, r->diagnostic, t);
		else if (r && r->diagnostic.n && r->diagnostic.p[r->diagnostic.n - 1] == '=')
			r->diagnostic = mta_join(c->a, (sd_str){ r->diagnostic.p, r->diagnostic.n - 1 }, t);
	}
}

int pv_exchange_ndr(sd_ctx *c)
{
	size_t from = c->nrcpt;
	sd_str body = mta_body(c);
	int n = mta_dsn(c);

	if (n < 0)
		return n;
	if (n == 0)
		ex_text(c, body);
	for (size_t i = from; i < c->nrcpt; i++) {
		sd_rcpt *r = &c->rcpts[i];
		mta_take_codes(c->a, r, r->diagnostic);
		r->reason = pv_phrase_find(r->diagnostic, ex_ndr);
	}
	for (int i = 0; c->nrcpt > from && ex_orig[i]; i++)
		if (pv_after_line(body, ex_orig[i]).p) {
			pv_original(c, body, ex_orig[i]);
			break;
		}
	return (int)(c->nrcpt - from);
}

int sd_fmt_exchange2007(sd_ctx *c)
{
	if (!is_exchange2007(c))
		return 0;
	if (!mta_part(c, "message/delivery-status") && !pv_exchange_admin(mta_body(c)).p)
		return 0;
	return pv_exchange_ndr(c);
}
