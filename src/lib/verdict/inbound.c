/* inbound.c - the receiving side's view of a refusal: a reply the reader's own
 * server gave a client (scan's reject records, docs/rejects.md).
 * The reason, hard or soft and retry are the engine's, as for any
 * reply; who is at fault and what the operator of the server does are read
 * here, from the reason, in one table:
 *   remote   the client or its sender caused it (an unknown recipient, a
 *            relay attempt, a block list, content, a protocol error): the
 *            server's policy did its work. Who acts: the sending side the
 *            reason names; advice none (nothing for the operator to do).
 *   own      the server's own system failed (storage, a lookup, a mailer):
 *            who acts: recipient-admin, the operator; advice
 *            contact-recipient-admin (the operator is the recipient's admin).
 *   user     a local mailbox refused (full): the local user and the operator;
 *            advice contact-recipient-admin.
 *   none     no reason was decided: no one, advice none. */
#include <stdio.h>

#include "verdict/engine.h"

enum { IN_REMOTE = 0, IN_OWN, IN_USER, IN_NONE };

static int side_of(int r)
{
	switch (r) {
	case SD_R_systemerror:
	case SD_R_systemfull:
	case SD_R_mailererror:
	case SD_R_networkerror:
		return IN_OWN;
	case SD_R_mailboxfull:
		return IN_USER;
	case SD_R_undefined:
	case SD_R_onhold:
	case SD_R_delivered:
	case SD_R_vacation:
		return IN_NONE;
	default:
		return IN_REMOTE;
	}
}

void sd_verdict_inbound(const sd_evidence *ev, sd_verdict *v)
{
	static const char *const side_name[] = { "remote sender", "own server", "local mailbox", "undecided" };
	int side = side_of(v->reason);
	unsigned remote = sd_reason_fixer(v->reason) & (SD_FIX_SENDER | SD_FIX_SENDER_ADMIN);

	(void)ev;
	switch (side) {
	case IN_OWN:
		v->fixer = SD_FIX_RECIPIENT_ADMIN;
		v->advice = sd_advice_name(SD_A_contact_recipient_admin);
		break;
	case IN_USER:
		v->fixer = SD_FIX_RECIPIENT | SD_FIX_RECIPIENT_ADMIN;
		v->advice = sd_advice_name(SD_A_contact_recipient_admin);
		break;
	case IN_NONE:
		v->fixer = 0;
		v->advice = sd_advice_name(SD_A_none);
		break;
	default:
		v->fixer = remote ? remote : SD_FIX_SENDER_ADMIN;
		v->advice = sd_advice_name(SD_A_none);
		break;
	}
	if (v->ntrail < SD_TRAIL_MAX)
		snprintf(v->trail[v->ntrail++], SD_TRAIL_LEN, "inbound:%s -> %s", side_name[side], v->advice);
}
