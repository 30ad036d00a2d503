/* engine.c - the verdict engine (engine.h): the reason in its order of
 * evidence, then hard/soft, retry, advice and who acts, with the trail. */
#include "verdict/engine.h"
#include "kb/codes.h"

#include <stdarg.h>
#include <stdio.h>
#include <strings.h>

/* ---- the trail ---- */

static void step(sd_verdict *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void step(sd_verdict *v, const char *fmt, ...)
{
	va_list ap;

	if (v->ntrail >= SD_TRAIL_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(v->trail[v->ntrail++], SD_TRAIL_LEN, fmt, ap);
	va_end(ap);
}

void sd_evidence_init(sd_evidence *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->status = ev->text = ev->diagtype = ev->command = "";
	ev->rhost = ev->lhost = ev->destination = ev->feedbacktype = "";
	ev->hint = -1;
}

/* ---- the mode ---- */

/* The readings the mode switches, read from the evidence's mode here and
 * nowhere else (docs/reasons.md, "Modes"). */
typedef struct reading {
	int delay_is_attempt;  /* a delay notice is read as its last attempt */
	int rcpt_by_default;   /* a failure that names no command answered RCPT TO */
	int storage_is_system; /* X.3.1 with a "full" phrase is the system's storage */
	int refusal_any_command; /* a recipient's refusal counts before DATA too */
	int provider_codes;      /* a mailbox provider's own code decides over its words */
	int words_when_silent; /* the word families read what no rule named */
	int greylist_over_status; /* greylisting is a deferral whatever mailbox status it carries */
	int registry_codes;    /* the registry's reading of a status or reply code alone */
} reading;

static reading reading_of(unsigned mode)
{
	int one = mode != SD_MODE_SISIMAI;

	/* each reading by its name: a new one added above is never left out */
	return (reading){ .delay_is_attempt = one, .rcpt_by_default = one, .storage_is_system = one,
			  .refusal_any_command = one, .provider_codes = one, .words_when_silent = one,
			  .greylist_over_status = one, .registry_codes = one };
}

/* The evidence as the mode reads it: the default reads a delay notice by the
 * codes of the attempt it reports (the MTA retries, as after one deferred
 * attempt: RFC 3464 2.3.3), and a failure with no command as the answer to
 * RCPT TO (most replies a sender meets answer a recipient). */
static void read_evidence(const reading *rd, const sd_evidence *in, sd_evidence *ev)
{
	int cls = in->replycode / 100;

	*ev = *in;
	if (rd->delay_is_attempt && ev->action == SD_EV_DELAYED)
		ev->action = SD_EV_ATTEMPT;
	if (!cls && in->status[0] && in->status[1] == '.')
		cls = in->status[0] - '0';
	if (rd->rcpt_by_default && !ev->command[0] && !strcmp(ev->diagtype, "SMTP") &&
	    (cls == 4 || cls == 5 || (!cls && ev->textn)))
		ev->command = "RCPT";
	/* the text's temporary words, read once, where a verdict may ask them: no
	 * status, or no reply code beside a status that gives only its class */
	ev->temporary = ev->textn && (!ev->status[0] || (!ev->replycode && !strcmp(ev->status + 1, ".0.0"))) &&
			sd_vd_is_temporary(ev->text, ev->textn);
}

/* ---- the class ---- */

static int is_cls(int c)
{
	return c == 2 || c == 4 || c == 5;
}

/* The reply code's class (what an SMTP client acts on, RFC 5321 4.2.1), else
 * the status class, else what the MTA did, else the text's own words. */
static int class_of(const sd_evidence *ev)
{
	if (is_cls(ev->replycode / 100))
		return ev->replycode / 100;
	if (ev->status[0] && ev->status[1] == '.' && is_cls(ev->status[0] - '0'))
		return ev->status[0] - '0';
	switch (ev->action) {
	case SD_EV_DELIVERED: return 2;
	case SD_EV_DELAYED: case SD_EV_ATTEMPT: return 4;
	case SD_EV_FAILED: case SD_EV_EXPIRED: return 5;
	default: break;
	}
	if (!ev->textn)
		return 0;
	return ev->temporary ? 4 : 5;
}

/* ---- the reason ---- */

static const char *action_word(int a)
{
	static const char *const w[] = { "", "failed", "delayed", "expired", "delivered", "deferred" };
	return a >= 0 && a <= SD_EV_ATTEMPT ? w[a] : "";
}

static int decided(int r)
{
	return r >= 0 && r != SD_R_onhold && r != SD_R_undefined;
}

/* The first phrase rule that matched, of reason r or (other) of any reason. */
static int cite_rule(sd_verdict *v, const sd_matches *m, int r, int other)
{
	if ((m->set >> r) & 1) {
		step(v, "rule:%s -> %s", sd_rule_where(m->first[r]), sd_reason_name(r));
		return 1;
	}
	for (int i = 0; other && i < SD_R_COUNT; i++)
		if ((m->set >> i) & 1) {
			step(v, "rule:%s (%s) -> %s", sd_rule_where(m->first[i]), sd_reason_name(i),
			     sd_reason_name(r));
			return 1;
		}
	return 0;
}

/* What, besides a phrase, made the reference order choose r. */
static void cite_other(sd_verdict *v, const sd_evidence *ev, const sd_vd_why *w, int r)
{
	const char *st = ev->status;

	v->by = SD_BY_STATUS;
	if (r == SD_R_expired && ev->action == SD_EV_FAILED && st[0] == '4') {
		/* a failure report of a transient status: the MTA gave up */
		v->by = SD_BY_ACTION;
		step(v, "action:failed (%s) -> expired", st);
	} else if (w->sname == r && w->sregistry)
		step(v, "status:%s (registry) -> %s", st, sd_reason_name(r)); /* rules/status-reasons.tsv's registry row */
	else if (w->sname == r)
		step(v, "status:%s -> %s", st, sd_reason_name(r));
	else if ((r == SD_R_securityerror || r == SD_R_contenterror) && st[0] && (st[2] == '6' || st[2] == '7'))
		step(v, "status:%s (X.%c.x) -> %s", st, st[2], sd_reason_name(r));
	else if (r == SD_R_mailererror && !strncmp(ev->diagtype, "X-UNIX", 6))
		step(v, "mailer:%s -> mailererror", ev->diagtype);
	else if (r == SD_R_expired && (ev->action == SD_EV_DELAYED || ev->action == SD_EV_EXPIRED))
		step(v, "action:%s -> expired", action_word(ev->action));
	else if (r == SD_R_blocked && (!strcmp(ev->command, "EHLO") || !strcmp(ev->command, "HELO")))
		step(v, "command:%s -> blocked", ev->command);
	else if (ev->replycode && (r == SD_R_suspend || r == SD_R_syntaxerror))
		step(v, "reply:%d -> %s", ev->replycode, sd_reason_name(r));
	else if (!cite_rule(v, &w->m, r, 1))
		step(v, "order -> %s", sd_reason_name(r));
}

/* Why sd_vd_reason() chose r, for the trail. */
static void cite(sd_verdict *v, const sd_evidence *ev, const sd_vd_in *in, const sd_vd_why *w, int r)
{
	switch (w->src) {
	case SD_SRC_HINT: v->by = SD_BY_HINT; step(v, "hint:format -> %s", sd_reason_name(r)); return;
	case SD_SRC_DELIVERED: v->by = SD_BY_STATUS; step(v, "status:%s -> delivered", ev->status); return;
	case SD_SRC_MAILER: v->by = SD_BY_RULE; step(v, "mailer:local delivery agent -> %s", sd_reason_name(r)); return;
	case SD_SRC_RHOST: v->by = SD_BY_RULE; step(v, "rhost:%s -> %s", in->rhost, sd_reason_name(r)); return;
	default: break;
	}
	if (in->reason == r && decided(r)) {
		v->by = SD_BY_HINT;
		step(v, "hint:format -> %s", sd_reason_name(r));
	} else if (decided(r) && cite_rule(v, &w->m, r, 0)) {
		v->by = SD_BY_RULE;
	} else if (decided(r)) {
		cite_other(v, ev, w, r);
	}
	else if (decided(r) && w->sname == r && r != SD_R_vacation)
		step(v, "status:%s -> %s", ev->status, sd_reason_name(r));
}

/* ---- when no rule speaks ----
 *
 * The postmaster's reading of a failure that no phrase, no provider row and no
 * remote host named, in one place: a status whose detail names the failure
 * decides (rules/status-reasons.tsv, asked in the reference order above), and
 * so does a reply code with a meaning of its own (RFC 4954, RFC 7504, the
 * syntax replies). A status that names only its subject (X.n.0, and X.7.1
 * "delivery not authorized", RFC 3463 3.8) and the reply codes that say only
 * that the action failed (421, 450-452, 550-554) are read by the word families
 * of rules/families.rules that fit the subject; then by the subject (X.5.x a
 * protocol error; in one attempt 4.3.x the receiving system, 4.4.x the network),
 * then by the reply code (431/452 storage; in one attempt 421/451 the receiving
 * system); a text with none of these is onhold. */

/* Reply codes whose meaning is a reason of their own (RFC 5321, RFC 4954,
 * RFC 7504): they decide before the words. */
static int reply_names(const sd_evidence *ev, const reading *rd)
{
	int rc = ev->replycode;
	int rcpt = !strcmp(ev->command, "RCPT");

	if (rc == 530 || rc == 534 || rc == 535 || rc == 538)
		return SD_R_securityerror; /* the client's authentication (RFC 4954) */
	if (rc == 521 || rc == 556)
		return SD_R_notaccept; /* the host takes no mail (RFC 7504) */
	if (rc == 555 || (rc >= 500 && rc <= 504))
		return SD_R_syntaxerror;
	if (rc == 553 && !rcpt)
		return SD_R_rejected; /* mailbox name not allowed: the sender's */
	if (!rd->registry_codes)
		return -1;
	if (rc == 553)
		return SD_R_userunknown; /* mailbox name not allowed: the recipient's (RFC 5321 4.2.3) */
	if (rc == 551)
		return SD_R_hasmoved; /* user not local; please try <forward-path> (RFC 5321 3.4) */
	if (rc == 455)
		return SD_R_syntaxerror; /* unable to accommodate the parameters (RFC 5321 4.2.3) */
	if (rc == 454 && !strcmp(ev->command, "STARTTLS"))
		return SD_R_failedstarttls; /* TLS not available for a temporary reason (RFC 3207 4) */
	if (rc == 432 || rc == 454)
		return SD_R_securityerror; /* password transition, temporary AUTH failure (RFC 4954 6) */
	return -1;
}

/* Reply codes that say only that the action failed, read after the words. */
static int reply_class(const sd_evidence *ev, const reading *rd)
{
	int rc = ev->replycode;

	if (rc == 431 || rc == 452)
		return SD_R_systemfull; /* insufficient system storage */
	if (rc == 552 && rd->registry_codes) {
		/* exceeded storage allocation (RFC 5321 4.2.3), the mailbox's; a
		 * message over the declared or fixed size when it answers MAIL
		 * FROM's SIZE or the data (RFC 1870 6) */
		if (!strcmp(ev->command, "DATA") || !strcmp(ev->command, "MAIL"))
			return SD_R_emailtoolarge;
		return SD_R_mailboxfull;
	}
	if ((rc == 421 || rc == 451) && ev->action == SD_EV_ATTEMPT)
		return SD_R_systemerror; /* service not available, local error in processing */
	return -1;
}

/* The subject of an enhanced status (RFC 3463 3.1), when nothing more
 * specific decided: the protocol (X.5.x) is a syntax error; in one failed
 * attempt, a transient trouble of the mail system (4.3.x) or of the network
 * and routing (4.4.x) is the receiving system's or the path's. (A bounce or
 * a delay notice keeps the reference decoder's reading: a delay is expired.) */
static int status_subject(const sd_evidence *ev)
{
	const char *s = ev->status;

	if (!s[0] || s[1] != '.' || !s[2] || s[3] != '.')
		return -1;
	if (s[2] == '5')
		return SD_R_syntaxerror;
	if (ev->action != SD_EV_ATTEMPT || s[0] != '4')
		return -1;
	if (s[2] == '3')
		return SD_R_systemerror;
	if (s[2] == '4')
		return SD_R_networkerror;
	return -1;
}

/* A status that names only its subject: detail 0, or X.7.1 (delivery not
 * authorized, message refused: the generic refusal by policy). */
static int status_generic(const char *s)
{
	return s[0] && s[1] == '.' && s[2] && s[3] == '.' && (!strcmp(s + 4, "0") || !strcmp(s + 2, "7.1"));
}

/* The reference order took r from the status alone, and the status names only
 * its subject: the status-reasons row of a generic status, or the class
 * default of an X.6.x or X.7.x status no row names. */
static int by_subject_only(const sd_evidence *ev, const sd_vd_why *w, int r, const sd_verdict *v)
{
	const char *st = ev->status;

	if (v->by != SD_BY_STATUS || w->src != SD_SRC_TEXT || !st[0] || st[1] != '.')
		return 0;
	if (w->sname == r)
		return status_generic(st);
	return w->sname < 0 && ((r == SD_R_securityerror && st[2] == '7') || (r == SD_R_contenterror && st[2] == '6'));
}

#define B(r) (1ull << SD_R_##r)

/* The families a status's subject rules out (RFC 3463 3.1): an address status
 * is not about the content, a network one not about the mailbox ... */
static sd_reasonset subject_excludes(const char *st)
{
	static const sd_reasonset content = B(spamdetected) | B(virusdetected) | B(policyviolation) | B(emailtoolarge);

	if (!st[0] || st[1] != '.')
		return 0;
	switch (st[2]) {
	case '1': return content | B(mailboxfull) | B(systemfull);
	case '2': /* X.2.x: the mailbox exists (RFC 3463 3.3) */
		return B(userunknown) | B(hostunknown) | B(norelaying) | B(systemfull);
	case '3': return B(userunknown) | B(hostunknown) | B(suspend) | B(mailboxfull);
	case '4': return content | B(mailboxfull) | B(suspend) | B(userunknown);
	case '5': return B(mailboxfull) | B(suspend) | B(userunknown) | B(hostunknown) | B(spamdetected) | B(virusdetected);
	case '6': return B(userunknown) | B(hostunknown) | B(suspend) | B(mailboxfull) | B(norelaying) | B(systemfull);
	case '7': return B(mailboxfull) | B(systemfull);
	default: return 0;
	}
}

/* The word family that speaks, the most specific first: a virus before the
 * spam it travels in, SPF/DKIM/DMARC before the block or the policy that
 * names them, a storage, a size, a header or an address word before a block,
 * a block list or greylisting before a rate ("greylisted, please retry
 * later"). */
static int family(const sd_evidence *ev, const sd_matches *fm, sd_verdict *v)
{
	static const int order[] = {
		SD_R_virusdetected, SD_R_authfailure, SD_R_spamdetected, SD_R_systemfull, SD_R_mailboxfull,
		SD_R_emailtoolarge, SD_R_notcompliantrfc, SD_R_suspend, SD_R_hostunknown, SD_R_userunknown,
		SD_R_norelaying, SD_R_blocked, SD_R_ratelimited, SD_R_policyviolation, SD_R_systemerror,
		SD_R_networkerror,
	};
	static const sd_reasonset topics = (1ull << SD_R_virusdetected) | (1ull << SD_R_spamdetected) |
					   (1ull << SD_R_authfailure) | (1ull << SD_R_policyviolation);
	sd_reasonset fam = fm->fam & ~subject_excludes(ev->status);

	/* without a code a topic states a failure only beside a word of refusal
	 * or of detection (families.rules marks them as onhold and undefined) */
	if (!ev->replycode && !ev->status[0] && !(fm->fam & ((1ull << SD_R_onhold) | (1ull << SD_R_undefined))))
		fam &= ~topics;

	for (size_t i = 0; fam && i < sizeof(order) / sizeof(order[0]); i++) {
		int r = order[i];
		if ((fam >> r) & 1) {
			v->by = SD_BY_RULE;
			step(v, "family:%s -> %s", sd_rule_where(fm->ffirst[r]), sd_reason_name(r));
			return r;
		}
	}
	return -1;
}

#undef B

/* r is what the reference order decided (onhold or undefined when nothing did).
 * The word families are scanned here, when they are asked, and only then. */
static int no_rule_speaks(sd_classifier *c, const sd_evidence *ev, const reading *rd, const sd_vd_why *w, int r,
			  sd_verdict *v)
{
	reading plain = *rd; /* the same without the registry's reading, to mark it in the trail */
	int subject_only = decided(r) && by_subject_only(ev, w, r, v), f;
	sd_matches fm;

	plain.registry_codes = 0;
	if (decided(r) && !subject_only)
		return r;
	fm.fam = 0;
	if (rd->words_when_silent && w->src == SD_SRC_TEXT && ev->textn)
		sd_classify_families(c, ev->text, ev->textn, &fm);
	if (!decided(r) && (f = reply_names(ev, rd)) >= 0) {
		v->by = SD_BY_REPLY;
		step(v, "reply:%d%s -> %s", ev->replycode, reply_names(ev, &plain) != f ? " (registry)" : "",
		     sd_reason_name(f));
		return f;
	}
	if ((f = family(ev, &fm, v)) >= 0)
		return f;
	if (subject_only)
		return r; /* the subject's own reading, already in the trail */
	v->by = SD_BY_STATUS;
	if ((f = status_subject(ev)) >= 0) {
		step(v, "status:%s (X.%c.x) -> %s", ev->status, ev->status[2], sd_reason_name(f));
		return f;
	}
	v->by = SD_BY_REPLY;
	if ((f = reply_class(ev, rd)) >= 0) {
		step(v, "reply:%d%s -> %s", ev->replycode, reply_class(ev, &plain) != f ? " (registry)" : "",
		     sd_reason_name(f));
		return f;
	}
	v->by = SD_BY_OTHER;
	f = ev->textn ? SD_R_onhold : SD_R_undefined;
	if (f == SD_R_onhold && ((fm.fam >> SD_R_onhold) & 1)) {
		/* a word of refusal: a failure is stated, its reason is not */
		v->by = SD_BY_RULE;
		step(v, "family:%s (a refusal, no reason named) -> onhold", sd_rule_where(fm.ffirst[SD_R_onhold]));
		return f;
	}
	step(v, "undecided -> %s", sd_reason_name(f));
	return f;
}

static void lowercase(const sd_evidence *ev, sd_vd_in *in, char *buf)
{
	size_t n = ev->textn < SD_VD_TEXT_MAX ? ev->textn : SD_VD_TEXT_MAX - 1;

	if (ev->lc) {
		in->lc = ev->lc;
		return;
	}
	for (size_t i = 0; i < n; i++)
		buf[i] = (char)sd_tolower((unsigned char)ev->text[i]);
	buf[n] = 0;
	in->lc = buf;
	in->diagn = n;
}

static int reference_reason(sd_classifier *c, const sd_evidence *ev, const reading *rd, sd_verdict *v, sd_vd_why *w)
{
	char lc[SD_VD_TEXT_MAX];
	sd_vd_in in;
	int r;

	memset(&in, 0, sizeof(in));
	in.reason = ev->hint;
	in.status = ev->status;
	in.replycode = ev->replycode;
	in.diag = ev->text;
	in.diagn = ev->textn;
	lowercase(ev, &in, lc);
	in.diagtype = ev->diagtype;
	in.command = ev->command;
	in.action = ev->action == SD_EV_EXPIRED ? "delayed" : action_word(ev->action);
	in.rhost = ev->rhost;
	in.lhost = ev->lhost;
	in.destination = ev->destination;
	in.refusal_any_command = rd->refusal_any_command;
	in.provider_codes = rd->provider_codes;
	in.phrase_over_subject = rd->words_when_silent;
	in.greylist_over_status = rd->greylist_over_status;
	in.registry_codes = rd->registry_codes;
	r = sd_vd_reason(c, &in, w);
	cite(v, ev, &in, w, r);
	if (w->src == SD_SRC_RHOST && w->advice >= 0)
		v->host_advice = w->advice;
	return r;
}

/* The first user rule that matches, asked before anything else. */
static int ask_user(const sd_evidence *ev, sd_user_hit *h)
{
	memset(h, 0, sizeof(*h));
	h->reason = h->hard = h->retry = -1;
	h->label = "";
	if (!ev->user || ev->user(ev->user_ctx, ev, h) != 1)
		return 0;
	if (h->reason >= SD_R_COUNT)
		h->reason = -1;
	return 1;
}

static int user_reason(const sd_user_hit *h, sd_verdict *v)
{
	if (!h || h->reason < 0)
		return -1;
	v->by = SD_BY_USER;
	step(v, "%s -> %s", h->who, sd_reason_name(h->reason));
	return h->reason;
}

/* " key=value" appended to w (cap bytes; cut when full). */
static void put_field(char *w, size_t cap, const char *key, const char *val)
{
	size_t k = strlen(w);

	snprintf(w + k, cap - k, " %s=%s", key, val);
}

/* The fields a user rule sets replace the policy's, and only those; a hard
 * bounce it sets is not retried, a retry it sets is no hard bounce, unless it
 * sets both. The step is kept even when the trail is full. */
static void user_fields(const sd_user_hit *h, sd_verdict *v)
{
	char what[SD_TRAIL_LEN] = "";

	if (h->advice) {
		v->advice = h->advice;
		put_field(what, sizeof(what), "advice", h->advice);
	}
	if (h->hard >= 0) {
		v->hard = h->hard;
		v->retry = h->hard && h->retry < 0 ? 0 : v->retry;
		put_field(what, sizeof(what), "hard", h->hard ? "yes" : "no");
	}
	if (h->retry >= 0) {
		v->retry = h->retry;
		v->hard = h->retry && h->hard < 0 ? 0 : v->hard;
		put_field(what, sizeof(what), "retry", h->retry ? "yes" : "no");
	}
	if (h->label[0]) {
		v->label = h->label;
		put_field(what, sizeof(what), "label", h->label);
	}
	if (!what[0])
		return;
	if (v->ntrail >= SD_TRAIL_MAX)
		v->ntrail = SD_TRAIL_MAX - 1;
	step(v, "%s ->%s", h->who, what);
}

/* A provider's row that matched a long enough part of its own wording names the
 * reason: the provider documents what its text means. */
static int vendor_reason(sd_verdict *v)
{
	int r = v->vendor && v->vendor->reason ? sd_reason_index(v->vendor->reason) : -1;

	if (r < 0)
		return -1;
	v->by = SD_BY_VENDOR;
	step(v, "vendor:%s %s -> %s", v->vendor->vendor, v->vendor->status, sd_reason_name(r));
	return r;
}

static int decide_reason(sd_classifier *c, const sd_evidence *ev, const reading *rd, sd_verdict *v,
			 const sd_user_hit *h)
{
	sd_vd_why why;
	int r = user_reason(h, v);

	if (r >= 0)
		return r;
	v->by = SD_BY_ACTION;
	if (ev->action == SD_EV_EXPIRED) {
		step(v, "action:expired -> expired");
		return SD_R_expired;
	}
	if (ev->action == SD_EV_DELIVERED) {
		step(v, "action:delivered -> delivered");
		return SD_R_delivered;
	}
	r = reference_reason(c, ev, rd, v, &why);
	if (rd->storage_is_system && r == SD_R_mailboxfull && ev->status[0] && !strncmp(ev->status + 1, ".3.1", 5)) {
		/* X.3.1 is the mail system's storage (RFC 3463 3.4), not a quota:
		 * "431 4.3.1 STOREDRV; mailbox disk is full" is the server's disk */
		step(v, "status:%s (system storage) -> systemfull", ev->status);
		return SD_R_systemfull;
	}
	if (rd->registry_codes && r == SD_R_expired && v->by == SD_BY_STATUS && ev->action == SD_EV_ATTEMPT &&
	    ev->status[0] && !strcmp(ev->status + 1, ".4.1")) {
		/* X.4.1 "no answer from host" in one attempt is that attempt's
		 * network failure (RFC 3463 3.5); the MTA still retries */
		step(v, "status:%s (registry: one attempt) -> networkerror", ev->status);
		return SD_R_networkerror;
	}
	if (rd->registry_codes && r == SD_R_suspend && v->by == SD_BY_STATUS && !strcmp(ev->command, "AUTH")) {
		/* X.7.13 / 525 "user account disabled" answering AUTH: the sending
		 * account the client logged in with (RFC 5248 2.4), not a mailbox */
		step(v, "command:AUTH (registry) -> securityerror");
		return SD_R_securityerror;
	}
	if (decided(r) && v->by != SD_BY_STATUS)
		return r;
	/* a provider's row says what its own text means; that outranks what the
	 * status, the reply code or the MTA's action imply on their own */
	if (vendor_reason(v) >= 0)
		return sd_reason_index(v->vendor->reason);
	return no_rule_speaks(c, ev, rd, &why, r, v);
}

/* ---- hard, retry, advice, who acts ---- */

/* Statuses and replies that name the sending side (RFC 3463, RFC 7372,
 * RFC 7505, RFC 4954): 1 sender's configuration, 2 its authentication, 3 its
 * configuration whatever the reason's advice (X.7.19: the originator decides
 * whether to send again without RRVS, RFC 7293 7.2). */
static int sender_side(const sd_evidence *ev, const sd_status *st, int any_x5)
{
	static const struct {
		short sub, det, kind;
	} tab[] = {
		{ 1, 7, 1 }, { 1, 8, 1 }, { 7, 8, 2 }, { 7, 9, 2 }, { 7, 10, 1 }, { 7, 11, 2 },
		{ 7, 14, 2 }, { 7, 19, 3 }, { 7, 20, 2 }, { 7, 21, 2 }, { 7, 22, 2 }, { 7, 23, 2 }, { 7, 24, 2 },
		{ 7, 25, 1 }, { 7, 26, 2 }, { 7, 27, 1 }, { 7, 29, 1 }, { 7, 30, 2 },
	};
	int rc = ev->replycode;

	if (rc == 530 || rc == 534 || rc == 535 || rc == 538)
		return 2;
	if (any_x5 && st && st->subject == 5) /* the client's use of the protocol */
		return 1;
	for (size_t i = 0; st && i < sizeof(tab) / sizeof(tab[0]); i++)
		if (st->subject == tab[i].sub && st->detail == tab[i].det)
			return tab[i].kind;
	return 0;
}

/* A vendor row's advice (the table's advice column, in the advice vocabulary
 * of reasons.def) and who acts on it. */
static int vendor_step(sd_verdict *v)
{
	int a = v->vendor && v->vendor->advice ? sd_advice_index(v->vendor->advice, strlen(v->vendor->advice)) : -1;

	if (a < 0 || a == SD_A_none)
		return 0;
	/* the row speaks of its own failure: a text whose own phrase names the
	 * sender's reputation or authentication, which the row does not give,
	 * reports another failure in the row's words ("Delivery not authorized,
	 * message refused: sender reputation too low") */
	if (v->by == SD_BY_RULE && v->vendor->reason && sd_reason_index(v->vendor->reason) != v->reason &&
	    (!strcmp(sd_reason_advice(v->reason), "fix-sender-reputation") ||
	     !strcmp(sd_reason_advice(v->reason), "fix-sender-authentication"))) {
		v->vendor = NULL;
		return 0;
	}
	v->advice = sd_advice_name(a);
	if (sd_advice_fixer(a))
		v->fixer = sd_advice_fixer(a);
	step(v, "vendor:%s %s -> %s", v->vendor->vendor, v->vendor->status, v->advice);
	return 1;
}

/* Who acts when the remote host's own phrase names it (rhost_tab.c): its
 * component string says which part of the receiving organisation refused,
 * more precisely than a vendor row matched on the status and words. */
static int host_step(sd_verdict *v)
{
	if (v->host_advice < 0 || v->host_advice == SD_A_none)
		return 0;
	v->advice = sd_advice_name(v->host_advice);
	if (sd_advice_fixer(v->host_advice))
		v->fixer = sd_advice_fixer(v->host_advice);
	step(v, "rhost: who acts -> %s", v->advice);
	return 1;
}

/* The MTA gave up: nothing to retry, whatever the class. */
static int gave_up(const sd_evidence *ev, const sd_status *st, int r)
{
	if (ev->action == SD_EV_EXPIRED || (st && st->subject == 4 && st->detail == 7))
		return 1;
	return r == SD_R_expired && ev->action != SD_EV_DELAYED && ev->action != SD_EV_ATTEMPT;
}

static void sender_policy(const sd_evidence *ev, const sd_status *st, sd_verdict *v)
{
	/* a status that names the sender's side (its null MX, SPF, DKIM, DMARC,
	 * credentials) counts whatever rule named the reason; the protocol's
	 * X.5.x only when no rule did */
	int side;

	if (v->by == SD_BY_USER) /* the user named the reason: its own policy */
		return;
	side = sender_side(ev, st, v->by >= SD_BY_STATUS || v->by == SD_BY_OTHER);
	if (!side && !(v->vendor && v->vendor->advice && !strncmp(v->vendor->advice, "fix-", 4)))
		return;
	v->hard = 0;
	if ((!strncmp(v->advice, "fix-", 4) && (side != 3 || !strcmp(v->advice, "fix-sender-config"))) ||
	    (v->vendor && !strcmp(v->advice, "retry")))
		return;
	v->retry = 0;
	v->advice = side == 2 ? "fix-sender-authentication" : "fix-sender-config";
	v->fixer = SD_FIX_SENDER_ADMIN;
	step(v, "policy:sender side (%s) -> %s", st && st->text[0] ? st->text : "reply", v->advice);
}

/* A permanent refusal (a 5xx reply or a 5.x.x status) for a fault of the
 * receiving system or its routing (its directory, store, configuration, a
 * loop) that names its status: retrying the same message does not clear it; its admin must act. */
/* The text names a mail loop ("loops back to myself", "forwarding loop",
 * "Loop detected", "is looping"): the word, not "loopback" or "sloop". */
static int names_loop(const char *t, size_t n)
{
	static const char *const w[] = { "loop", "loops", "looping", "looped" };

	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (sd_has_word(t, n, w[i], strlen(w[i]), 1))
			return 1;
	return 0;
}

static int receiver_fault_permanent(const sd_evidence *ev, int r)
{
	if (r != SD_R_systemerror && r != SD_R_networkerror)
		return 0;
	if (ev->replycode)
		return ev->replycode / 100 == 5;
	/* a loop the sending MTA found itself (no reply, no status; Sendmail's
	 * "MX list for example.org points back to mx.example.com" names it
	 * without the word): the same
	 * message loops again however often it is sent (RFC 5321 6.3); a DSN
	 * writer's 5.0.0 beside it says no more than the class */
	if ((!ev->status[0] || !strcmp(ev->status, "5.0.0")) && ev->textn &&
	    (names_loop(ev->text, ev->textn) || sd_memcasemem(ev->text, ev->textn, "points back to", 14)))
		return 1;
	/* 5.0.0 is what a DSN writer puts for any failure: it does not say the
	 * receiving side refused for good */
	return ev->status[0] == '5' && ev->status[1] == '.' && strcmp(ev->status + 1, ".0.0") != 0;
}

/* A feedback report is a complaint about the recipient's mail unless its
 * Feedback-Type (RFC 5965 3.5, RFC 6650, RFC 6591) says otherwise
 * (docs/complaints.md): not-spam takes a complaint back, auth-failure reports
 * the sender's SPF, DKIM or DMARC failing, virus the message's content; none of
 * them is the recipient's wish to hear no more. A complaint whose report hid
 * the recipient names no address to suppress. */
static void feedback_policy(const sd_evidence *ev, sd_verdict *v)
{
	static const struct {
		const char *type, *advice;
		unsigned fixer;
	} map[] = {
		{ "not-spam", "none", 0 },
		{ "auth-failure", "fix-sender-authentication", SD_FIX_SENDER_ADMIN },
		{ "virus", "fix-message", SD_FIX_SENDER },
	};

	if (v->reason != SD_R_feedback || v->by == SD_BY_USER)
		return;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(ev->feedbacktype, map[i].type)) {
			v->advice = map[i].advice;
			v->fixer = map[i].fixer;
			step(v, "feedback:%s -> %s", map[i].type, map[i].advice);
			return;
		}
	if (ev->redacted) {
		v->advice = "none";
		v->fixer = 0;
		step(v, "feedback:recipient redacted -> none");
	}
}

/* A permanent refusal the text says lifts with time (sd_vd_lifts_by_itself):
 * not when the user's rules or a vendor's row named the verdict, not for a bad
 * address (a hard bounce stays one), not when the sender must change its
 * set-up, authentication or message first (their "try again" is after the
 * fix), not for a fault of the receiving system's routing. */
static int lifts_by_itself(const sd_evidence *ev, const sd_verdict *v)
{
	if (v->by == SD_BY_USER || v->hard || v->retry || !ev->textn)
		return 0;
	if (v->vendor && v->vendor->advice && strcmp(v->vendor->advice, "retry") != 0)
		return 0;
	if (!strcmp(v->advice, "fix-sender-authentication") || !strcmp(v->advice, "fix-sender-config") ||
	    !strcmp(v->advice, "fix-message"))
		return 0;
	return sd_vd_lifts_by_itself(ev->text, ev->textn);
}

static void policy(const sd_evidence *ev, const sd_status *st, sd_verdict *v)
{
	int r = v->reason;

	v->advice = sd_reason_advice(r);
	v->fixer = sd_reason_fixer(r);
	if (receiver_fault_permanent(ev, r)) {
		v->advice = "contact-recipient-admin";
		v->fixer = SD_FIX_RECIPIENT_ADMIN;
	}
	v->hard = v->cls == 5 && sd_reason_hard(r);
	v->retry = v->cls != 2 && !strcmp(v->advice, "retry"); /* reasons that clear with time */
	if (v->by != SD_BY_USER && (vendor_step(v) | host_step(v))) {
		v->retry = !strcmp(v->advice, "retry") || (v->retry && !strcmp(v->advice, "contact-recipient-admin"));
		v->hard = v->hard && !strcmp(v->advice, "suppress-recipient");
	}
	sender_policy(ev, st, v);
	feedback_policy(ev, v);
	if (r == SD_R_delivered || r == SD_R_vacation || r == SD_R_feedback) {
		v->retry = v->hard = 0;
	} else if (gave_up(ev, st, r)) {
		v->retry = v->hard = 0;
		if (!strcmp(v->advice, "retry")) {
			v->advice = sd_reason_advice(SD_R_expired);
			v->fixer = sd_reason_fixer(SD_R_expired);
		}
		step(v, "policy:the MTA gave up -> no retry");
	} else if (v->cls == 4) {
		v->hard = 0;
		v->retry = 1;
		v->advice = "retry";
		step(v, "policy:4xx -> retry");
	} else if (!ev->replycode && ev->temporary) {
		/* no server reply, and a DSN writer's 5.0.0 says only the class it
		 * gave up with: the words say the refusal lifts by itself, so
		 * the same as the bare text, a retry */
		v->hard = 0;
		v->retry = 1;
		v->advice = "retry";
		step(v, "policy:the text says temporary -> retry");
	} else if (v->cls == 5 && lifts_by_itself(ev, v)) {
		/* a 5xx the receiver means as a deferral: greylisting sent as 550,
		 * a rate limit or a block it says lifts ("try again later"); the
		 * same message goes through later, as after a 4xx, so it is kept
		 * and retried, and the address is not suppressed (what serve
		 * --socketmap rewrites for Postfix, docs/socketmap.md) */
		v->retry = 1;
		v->advice = "retry";
		step(v, "policy:5xx, the text says it lifts by itself -> retry");
	}
}

/* The status of a verdict whose evidence has none: only the class the bounce
 * shows, X.0.0 (registered: other or undefined status), never a detail the
 * bounce did not say (docs/reasons.md, "The status when the bounce has
 * none"). None for feedback, auto-replies and deliveries. */
static const char *implied_status(const sd_evidence *ev, const sd_verdict *v)
{
	int r = v->reason;

	if (ev->status[0] || r == SD_R_feedback || r == SD_R_vacation || r == SD_R_delivered)
		return "";
	/* transient: the reply code's class, the text's words, or a warning
	 * without a reply code */
	if (ev->replycode / 100 == 4 || ev->temporary ||
	    (ev->warning && !ev->replycode))
		return "4.0.0";
	return "5.0.0";
}

void sd_verdict_decide(sd_classifier *c, const sd_evidence *given, sd_verdict *v)
{
	reading rd = reading_of(given->mode);
	sd_status st;
	const sd_status *pst = NULL;
	sd_evidence read, *ev = &read;
	sd_user_hit uh;
	int user;

	memset(v, 0, sizeof(*v));
	v->label = "";
	v->host_advice = -1;
	read_evidence(&rd, given, &read);
	user = ask_user(given, &uh);
	if (ev->status[0] && sd_status_parse(ev->status, strlen(ev->status), &st))
		pst = &st;
	v->cls = class_of(ev);
	v->asked = ev->textn && ev->action != SD_EV_DELIVERED;
	if (ev->textn && ev->action != SD_EV_DELIVERED)
		v->vendor = sd_vendor_match(ev->replycode, pst, ev->text, ev->textn);
	v->matched = v->vendor;
	if (v->vendor && strlen(v->vendor->snippet) < SD_VENDOR_MIN_SNIPPET)
		v->vendor = NULL;
	v->reason = decide_reason(c, ev, &rd, v, user ? &uh : NULL);
	if (v->reason == SD_R_delivered) {
		v->cls = 2;
		v->vendor = NULL;
	}
	policy(ev, pst, v);
	if (ev->inbound)
		sd_verdict_inbound(ev, v);
	if (user)
		user_fields(&uh, v);
	v->implied = implied_status(ev, v);
}

/* ---- names ---- */

const char *const *sd_verdict_trail(sd_arena *a, const sd_verdict *v)
{
	static const char *const none[] = { NULL };
	const char **l = sd_arena_alloc(a, sizeof(char *) * (size_t)(v->ntrail + 1));

	if (!l)
		return none;
	for (int i = 0; i < v->ntrail; i++) {
		l[i] = sd_arena_strndup(a, v->trail[i], strlen(v->trail[i]));
		if (!l[i])
			return none;
	}
	l[v->ntrail] = NULL;
	return l;
}

const char *const *sd_fixer_list(unsigned f)
{
	static const char *const lists[16][5] = {
		{ NULL },
		{ "sender", NULL },
		{ "sender-admin", NULL },
		{ "sender", "sender-admin", NULL },
		{ "recipient", NULL },
		{ "sender", "recipient", NULL },
		{ "sender-admin", "recipient", NULL },
		{ "sender", "sender-admin", "recipient", NULL },
		{ "recipient-admin", NULL },
		{ "sender", "recipient-admin", NULL },
		{ "sender-admin", "recipient-admin", NULL },
		{ "sender", "sender-admin", "recipient-admin", NULL },
		{ "recipient", "recipient-admin", NULL },
		{ "sender", "recipient", "recipient-admin", NULL },
		{ "sender-admin", "recipient", "recipient-admin", NULL },
		{ "sender", "sender-admin", "recipient", "recipient-admin", NULL },
	};
	return lists[f & 15];
}

const char *sd_fixer_text(unsigned f)
{
	static const char *const text[16] = {
		"", "sender", "sender-admin", "sender,sender-admin", "recipient", "sender,recipient",
		"sender-admin,recipient", "sender,sender-admin,recipient", "recipient-admin",
		"sender,recipient-admin", "sender-admin,recipient-admin",
		"sender,sender-admin,recipient-admin", "recipient,recipient-admin",
		"sender,recipient,recipient-admin", "sender-admin,recipient,recipient-admin",
		"sender,sender-admin,recipient,recipient-admin",
	};
	return text[f & 15];
}
