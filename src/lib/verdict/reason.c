/* reason.c - decide the bounce reason of one recipient.
 *
 * The phrase lists live in the rules directory and are matched in one scan; this
 * file holds the order in which they are consulted and the checks that look
 * at the status, the reply code or the SMTP command as well. The order follows
 * the reference decoder (Sisimai 5): first the reasons whose own tests are
 * strongest, then a second pass on the text alone, then the status class. */
#include "verdict/verdict.h"
#include "verdict/rhost.h"

#define IN(r) ((ctx->set >> (r)) & 1)

typedef struct rctx {
	const sd_vd_in *in;
	sd_reasonset set;  /* reasons whose phrases occur in the text */
	int sname;         /* reason the status implies, -1 if none */
	int sreg;          /* the registry's reading of the status, -1 if none: after the phrases */
} rctx;

/* Whether any of the k phrases w occurs in the n bytes at p. */
static int any_phrase(const char *p, size_t n, const char *const *w, size_t k)
{
	for (size_t i = 0; i < k; i++)
		if (sd_memmem(p, n, w[i], strlen(w[i])))
			return 1;
	return 0;
}

/* Texts that name a refused recipient or client, not a refused sender, even
 * though they hold a "rejected" phrase. Postfix's block-list refusals
 * ("Sender address [example.com] blocked using dbl.example") refuse the
 * sender's reputation, not its envelope address: a block list decides. */
static int sd_rejected_isnot(const char *p, size_t n)
{
	static const char *const isnot[] = {
		"5.1.0 address rejected", "recipient address rejected", "sender ip address rejected",
		"] blocked using ",
	};

	return any_phrase(p, n, isnot, sizeof(isnot) / sizeof(isnot[0]));
}

/* Quotas of the sender's own account at its provider, not of a mailbox:
 * "550 5.2.2 Submission quota exceeded" (Microsoft), "Daily message quota
 * exceeded" (Amazon SES's own sending quota). */
static int sender_quota(const char *p, size_t n)
{
	static const char *const q[] = { "submission quota exceeded", "sending quota exceeded",
					 "daily message quota exceeded" };

	return any_phrase(p, n, q, sizeof(q) / sizeof(q[0]));
}

/* A block list's answer that is an error of the query, not a listing: Spamhaus
 * answers a query through a public or open resolver, or one of too many, with
 * 127.255.255.254 or .255 and a TXT that points at its returnc pages; its
 * range 127.255.255.0/24 holds only such errors (.252: a misspelt zone name).
 * An MTA that takes the answer for a listing refuses every sender, quoting the
 * address or the list's "query refused"; the receiver's DNS set-up is at
 * fault, so no block-list phrase beside it decides. */
static int dnsbl_query_error(const char *p, size_t n)
{
	static const char *const q[] = { "spamhaus.org/returnc/", "error: open resolver",
					 "error: excessive number of queries", "127.255.255.",
					 "query refused", "open resolver" };

	return any_phrase(p, n, q, sizeof(q) / sizeof(q[0]));
}

/* Whether any of the k words w stands in the lowercased text lc, not inside
 * another word. */
static int names_word(const char *lc, size_t n, const char *const *w, size_t k)
{
	for (size_t i = 0; i < k; i++)
		if (sd_has_word(lc, n, w[i], strlen(w[i]), 0))
			return 1;
	return 0;
}

/* The mailbox is full: its phrase, or its status unless the text is greylisting
 * (where the reading allows it), and not the sender's own quota. */
static int probe_mailboxfull(const rctx *ctx)
{
	const sd_vd_in *in = ctx->in;
	int by_status = ctx->sname == SD_R_mailboxfull &&
			!(in->greylist_over_status && sd_vd_greylisting(in->lc, in->diagn));

	return (IN(SD_R_mailboxfull) || by_status) && !sender_quota(in->lc, in->diagn);
}

/* A message refused for a URL or domain in its body on a block list (SURBL,
 * URIBL, a domain list read on links): the content is spam, though the phrase
 * "listed in" also reads as a block list of the sending IP. */
static int names_link(const char *lc, size_t n)
{
	static const char *const w[] = { "url", "urls", "uri", "uris", "link", "links", "surbl", "uribl" };

	return names_word(lc, n, w, sizeof(w) / sizeof(w[0]));
}

/* X.1.0 (other address status) names no address: a phrase may say it is
 * the sender's ("550 5.1.0 Sender denied"). */
static int status_x10(const rctx *ctx)
{
	const char *s = ctx->in->status;

	return s[0] && !strcmp(s + 1, ".1.0");
}

static int is_cmd(const rctx *ctx, const char *c)
{
	return strcmp(ctx->in->command, c) == 0;
}

/* Commands sent before DATA: a content reason cannot come from them. */
static int before_data(const rctx *ctx)
{
	static const char *const cmds[] = { "CONN", "EHLO", "HELO", "MAIL", "RCPT" };

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (is_cmd(ctx, cmds[i]))
			return 1;
	return 0;
}

int sd_vd_retried(int r)
{
	return r < 0 || r == SD_R_undefined || r == SD_R_onhold || r == SD_R_systemerror ||
	       r == SD_R_securityerror || r == SD_R_expired || r == SD_R_networkerror ||
	       r == SD_R_hostunknown || r == SD_R_userunknown;
}

static int explicit_reason(int r)
{
	return r >= 0 && r != SD_R_undefined && r != SD_R_onhold;
}

/* The reason when the status says it plainly, or the phrases do. */
static int simple(const rctx *ctx, int r)
{
	return ctx->sname == r || IN(r);
}

static int probe_userunknown(const rctx *ctx)
{
	static const int others[] = { SD_R_norelaying, SD_R_blocked, SD_R_mailboxfull,
				      SD_R_hasmoved, SD_R_rejected, SD_R_notaccept };

	if (ctx->sname == SD_R_suspend)
		return 0;
	if (ctx->sname != SD_R_userunknown)
		return is_cmd(ctx, "RCPT") && IN(SD_R_userunknown);
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		if (IN(others[i]) && (others[i] != SD_R_rejected || !sd_rejected_isnot(ctx->in->lc, ctx->in->diagn)))
			return 0;
	return 1;
}

/* A recipient's own refusal of the sender (docomo's and softbank's
 * "受信拒否", "you have been blocked by the recipient") is given at RCPT TO
 * as often as after DATA, since it needs no content: where the reading allows
 * it, its phrase counts before DATA too, when the status says no more than
 * that the sender is not authorized (X.7.1) or there is none. A phrase of an
 * unknown user stays that. */
static int recipient_refusal(const rctx *ctx)
{
	return ctx->in->refusal_any_command && IN(SD_R_filtered) && !IN(SD_R_userunknown) &&
	       (ctx->sname < 0 || ctx->sname == SD_R_securityerror);
}

static int probe_filtered(const rctx *ctx)
{
	if (ctx->sname == SD_R_suspend)
		return 0;
	if (ctx->sname != SD_R_filtered && before_data(ctx))
		return recipient_refusal(ctx);
	return IN(SD_R_userunknown) || IN(SD_R_filtered);
}

static int rejected_text(const rctx *ctx)
{
	return IN(SD_R_rejected) && !sd_rejected_isnot(ctx->in->lc, ctx->in->diagn);
}

static int probe_rejected(const rctx *ctx)
{
	int t = ctx->sname;

	if (t == SD_R_rejected)
		return 1;
	if (t == SD_R_userunknown && status_x10(ctx))
		return rejected_text(ctx);
	/* X.7.27 is the sender's null MX (RFC 7505 4.2) when the text says the
	 * sender was refused; "Host does not accept mail" stays notaccept */
	if (t == SD_R_notaccept && !strcmp(ctx->in->status + 1, ".7.27"))
		return rejected_text(ctx);
	if (is_cmd(ctx, "MAIL"))
		return rejected_text(ctx);
	if (is_cmd(ctx, "DATA") && t != SD_R_userunknown)
		return rejected_text(ctx);
	if (!explicit_reason(t) || t == SD_R_securityerror || t == SD_R_systemerror)
		return rejected_text(ctx);
	return 0;
}

static int probe_spam(const rctx *ctx)
{
	if (!ctx->in->status[0])
		return 0;
	if (ctx->sname == SD_R_spamdetected)
		return 1;
	/* a virus phrase is the more specific verdict ("Reject, id=... - virus: X") */
	return !before_data(ctx) && IN(SD_R_spamdetected) && !IN(SD_R_virusdetected);
}

static int probe_norelaying(const rctx *ctx)
{
	int r = ctx->in->reason;

	if (r == SD_R_securityerror || r == SD_R_systemerror || r == SD_R_undefined)
		return 0;
	if (is_cmd(ctx, "CONN") || is_cmd(ctx, "EHLO") || is_cmd(ctx, "HELO"))
		return 0;
	return IN(SD_R_norelaying);
}

static int probe_hostunknown(const rctx *ctx)
{
	if (ctx->sname == SD_R_hostunknown)
		return !IN(SD_R_networkerror);
	return IN(SD_R_hostunknown);
}

/* X.7.1 ("delivery not authorized", RFC 3463 3.8) implies blocked on its own;
 * where the reading lets a phrase speak over a status that names only its
 * subject, a TLS phrase beside it says what was not authorized ("450 4.7.1
 * Session encryption is required"). */
static int probe_blocked(const rctx *ctx)
{
	if (IN(SD_R_blocked))
		return 1;
	return ctx->sname == SD_R_blocked && !(ctx->in->phrase_over_subject && IN(SD_R_failedstarttls));
}

/* First pass: reasons in order, each with its own test. A sending service's
 * notice that it did not send to a suppressed address comes first: it says
 * what happened, whatever the words it gives for the address's history. */
static int first_pass(const rctx *ctx)
{
	static const int order[] = {
		SD_R_suppressed, SD_R_mailboxfull, SD_R_emailtoolarge, SD_R_suspend, SD_R_hasmoved, SD_R_norelaying,
		SD_R_authfailure, SD_R_userunknown, SD_R_filtered, SD_R_requireptr,
		SD_R_notcompliantrfc, SD_R_badreputation, SD_R_contenterror, SD_R_rejected,
		SD_R_hostunknown, SD_R_spamdetected, SD_R_ratelimited, SD_R_blocked,
	};
	const sd_vd_in *in = ctx->in;

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		int r = order[i], hit;
		if (in->reason == r)
			return r;
		switch (r) {
		case SD_R_suspend: hit = in->replycode == 525 || IN(r); break;
		case SD_R_mailboxfull: hit = probe_mailboxfull(ctx); break;
		case SD_R_hasmoved: case SD_R_notcompliantrfc: case SD_R_badreputation: case SD_R_suppressed:
			hit = IN(r);
			break;
		case SD_R_norelaying: hit = probe_norelaying(ctx); break;
		case SD_R_userunknown: hit = probe_userunknown(ctx); break;
		case SD_R_filtered: hit = probe_filtered(ctx); break;
		case SD_R_contenterror: hit = !probe_spam(ctx) && simple(ctx, r); break;
		case SD_R_rejected: hit = probe_rejected(ctx); break;
		case SD_R_hostunknown: hit = probe_hostunknown(ctx); break;
		case SD_R_spamdetected: hit = probe_spam(ctx); break;
		case SD_R_blocked:
			hit = probe_blocked(ctx) && !dnsbl_query_error(in->lc, in->diagn) &&
			      !(IN(SD_R_spamdetected) && names_link(in->lc, in->diagn));
			break;
		default: hit = simple(ctx, r); break;
		}
		if (hit)
			return r;
	}
	return -1;
}

/* The MTA gave up on this recipient: a transient status on a failed action, or
 * an expired one. A network phrase then tells why; the verdict is the expiry. */
static int gave_up(const rctx *ctx)
{
	const sd_vd_in *in = ctx->in;

	if (!strcmp(in->action, "expired"))
		return 1;
	return !strcmp(in->action, "failed") && in->status[0] == '4';
}

/* Two attempt failures the reference decoder counts among its expiry phrases:
 * in a report that the MTA gave up, or in a delay notice (which that decoder
 * reads as "expired" too), a connection that timed out or a server that never
 * answered is the expiry; in one attempt (a log line, a reply on its own)
 * they are that attempt's network failure. */
static int timed_out(const rctx *ctx)
{
	static const char *const t[] = { "connection timed out", "server did not respond",
					 /* Gmail's wording of the same */
					 "did not accept our requests to connect" };

	return any_phrase(ctx->in->lc, ctx->in->diagn, t, sizeof(t) / sizeof(t[0]));
}

/* The text or the MTA's action says it gave up; a network phrase beside an
 * expiry phrase only tells why. */
static int expiry(const rctx *ctx)
{
	int delay = !strcmp(ctx->in->action, "delayed");

	if (gave_up(ctx))
		return IN(SD_R_expired) || (IN(SD_R_networkerror) && timed_out(ctx));
	if (delay && IN(SD_R_networkerror) && timed_out(ctx))
		return 1;
	/* a delay notice ("could not be delivered for more than 4 hours") still
	 * retries: its network phrase is the reason */
	return IN(SD_R_expired) && IN(SD_R_networkerror) && !delay;
}

/* Microsoft's X.7.500-X.7.699: access from the sending IP denied or throttled
 * ("451 4.7.500-699 (ASxxx) Access denied, please try again later", "550
 * 5.7.606-649 Access denied, banned sending IP"), read when no phrase said more. */
static int ms_access_range(const char *st)
{
	unsigned long v = 0;
	size_t i = 4;

	if (!st[0] || st[1] != '.' || st[2] != '7' || st[3] != '.')
		return 0;
	for (; st[i] >= '0' && st[i] <= '9' && i < 8; i++)
		v = v * 10 + (unsigned long)(st[i] - '0');
	return !st[i] && i == 7 && v >= 500 && v <= 699;
}

/* The word HELO or EHLO in a lowercased text, not inside another word. */
static int names_helo(const char *lc, size_t n)
{
	static const char *const w[] = { "helo", "ehlo" };

	return names_word(lc, n, w, 2);
}

/* Second pass: phrases alone, then the status class, the mailer, the command. */
static int another(const rctx *ctx)
{
	static const int order[] = {
		SD_R_mailboxfull, SD_R_authfailure, SD_R_badreputation, SD_R_ratelimited,
		SD_R_virusdetected, SD_R_spamdetected, SD_R_policyviolation, SD_R_norelaying,
		SD_R_systemerror, SD_R_networkerror, SD_R_suspend, SD_R_contenterror, SD_R_systemfull,
		SD_R_notaccept, SD_R_expired, SD_R_failedstarttls, SD_R_securityerror,
		SD_R_suppressed, SD_R_mailererror,
	};
	const sd_vd_in *in = ctx->in;
	const char *st = in->status;
	int t = ctx->sname, rc = in->replycode;

	if (explicit_reason(in->reason))
		return in->reason;
	if (t == SD_R_blocked && (!probe_blocked(ctx) || dnsbl_query_error(in->lc, in->diagn)))
		t = -1; /* the TLS phrase, or the list's query error, says what X.7.1 does not */
	if (!(sd_vd_retried(t) || strcmp(in->diagtype, "SMTP") != 0))
		return t;
	if (expiry(ctx))
		return SD_R_expired;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (IN(order[i]) && (order[i] != SD_R_mailboxfull || !sender_quota(in->lc, in->diagn)))
			return order[i];
	if (t >= 0)
		return t;
	if (ctx->sreg >= 0)
		return ctx->sreg;
	if (ms_access_range(st))
		return SD_R_blocked;
	if (st[0] && st[1] == '.' && (st[2] == '6' || st[2] == '7') && st[3] == '.')
		return st[2] == '6' ? SD_R_contenterror : SD_R_securityerror;
	if (!strncmp(in->diagtype, "X-UNIX", 6))
		return SD_R_mailererror;
	if ((rc > 400 && rc < 408) || (rc > 500 && rc < 508))
		return SD_R_syntaxerror;
	if (!strcmp(in->action, "delayed") || !strcmp(in->action, "expired"))
		return SD_R_expired;
	if (!strcmp(in->command, "EHLO") || !strcmp(in->command, "HELO"))
		return SD_R_blocked;
	/* a refusal whose text names the HELO it judged, given at a later
	 * command: Postfix delays a HELO restriction's reject to RCPT TO by
	 * default (smtpd_delay_reject), other MTAs do the same */
	if (names_helo(in->lc, in->diagn))
		return SD_R_blocked;
	return -1;
}

/* No test above took a phrase that matched (a recipient phrase with no
 * command, a suppression notice of a sending service): a text that holds a
 * failure phrase is not left undecided; the phrase's reason is taken, in the
 * priority of order.rules. A success or an auto-reply phrase is no failure. */
static int fallback(const rctx *ctx)
{
	sd_reasonset none = (1ull << SD_R_delivered) | (1ull << SD_R_vacation) | (1ull << SD_R_onhold) |
			    (1ull << SD_R_undefined);
	int r = sd_reason_pick(ctx->set & ~none);

	if (r >= 0)
		return r;
	return ctx->in->diagn ? SD_R_onhold : SD_R_undefined;
}

static int text_reason(const rctx *ctx)
{
	const sd_vd_in *in = ctx->in;
	int r = -1;

	if (!strcmp(in->diagtype, "SMTP") || !in->diagtype[0])
		r = first_pass(ctx);
	if (r >= 0 && r != SD_R_undefined)
		return r;
	r = another(ctx);
	if (r == SD_R_undefined)
		r = -1;
	if (r < 0 && !strcmp(in->action, "delayed"))
		r = SD_R_expired;
	if (r >= 0)
		return r;
	if (IN(SD_R_vacation))
		return SD_R_vacation;
	return fallback(ctx);
}

int sd_vd_reason(sd_classifier *cls, const sd_vd_in *in, sd_vd_why *why)
{
	rctx ctx = { in, 0, -1, -1 };
	sd_vd_why local;
	int r;

	if (!why)
		why = &local;
	why->sname = -1;
	why->sregistry = 0;
	why->m.set = why->m.fam = 0;
	why->advice = -1;
	why->src = SD_SRC_HINT;
	if (in->reason >= 0 && !sd_vd_retried(in->reason))
		return in->reason;
	why->src = SD_SRC_DELIVERED;
	if (in->status[0] == '2' && in->status[1] == '.')
		return SD_R_delivered;
	why->src = SD_SRC_MAILER;
	r = sd_lda_reason(in->lc, in->diagn, in->command);
	if (explicit_reason(r))
		return r;
	why->src = SD_SRC_RHOST;
	r = sd_rhost_decide(in, &why->advice);
	if (explicit_reason(r))
		return r;
	why->advice = -1;
	why->src = SD_SRC_TEXT;
	if (in->diagn)
		sd_classify_matches(cls, in->diag, in->diagn, &why->m);
	ctx.set = why->m.set;
	/* a status the registry reads is read where no phrase speaks: after
	 * them, in place of the reference decoder's row for it */
	if (in->status[0]) {
		int plain, reg;
		sd_status_readings(in->status, &plain, &reg);
		ctx.sreg = in->registry_codes ? reg : -1;
		ctx.sname = why->sname = ctx.sreg < 0 ? plain : -1;
	}
	r = text_reason(&ctx);
	if (ctx.sreg >= 0 && r == ctx.sreg) {
		why->sname = ctx.sreg; /* the trail names the status */
		why->sregistry = 1;
	}
	if (explicit_reason(r))
		return r;
	return in->diagn ? SD_R_onhold : SD_R_undefined;
}
