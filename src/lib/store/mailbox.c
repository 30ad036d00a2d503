/* store/mailbox.c - how far each bounce mailbox has been read: an IMAP
 * folder's UIDVALIDITY and the highest UID whose records are in the store,
 * and the UIDL of each POP3 message read. The CLI saves them only after a
 * message's records are committed, so a run cut short reads again at most the
 * message it was on, and that message's records are duplicates by their keys. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/store.h"

static int name_ok(smtpdiag_store *s, const char *mailbox, const char *uidl, smtpdiag_error *err)
{
	if (!s || !mailbox || !*mailbox)
		return st_err(err, SMTPDIAG_EINVAL, "no store or mailbox");
	if (strlen(mailbox) > SMTPDIAG_STORE_MAX_MAILBOX)
		return st_err(err, SMTPDIAG_ELIMIT, "mailbox name longer than %d bytes "
			      "(SMTPDIAG_STORE_MAX_MAILBOX)", SMTPDIAG_STORE_MAX_MAILBOX);
	if (uidl && (!*uidl || strlen(uidl) > SMTPDIAG_STORE_MAX_UIDL))
		return st_err(err, SMTPDIAG_ELIMIT, "a UIDL of 1 to %d bytes is expected "
			      "(SMTPDIAG_STORE_MAX_UIDL)", SMTPDIAG_STORE_MAX_UIDL);
	return 0;
}

typedef struct mb_row {
	int found;
	int64_t uidvalidity, last_uid;
} mb_row;

static int on_row(void *ctx, const char *const *col, int ncol)
{
	mb_row *r = ctx;

	r->found = 1;
	if (ncol >= 2 && col[0] && col[1]) {
		r->uidvalidity = strtoll(col[0], NULL, 10);
		r->last_uid = strtoll(col[1], NULL, 10);
	}
	return 0;
}

int smtpdiag_store_mailbox_get(smtpdiag_store *s, const char *mailbox, int64_t *uidvalidity,
			       int64_t *last_uid, smtpdiag_error *err)
{
	st_val p = { mailbox, 0 };
	mb_row r = { 0, 0, 0 };
	int rc;

	if ((rc = name_ok(s, mailbox, NULL, err)) < 0)
		return rc;
	rc = s->be->query(s, "SELECT uidvalidity, last_uid FROM mailboxes WHERE mailbox = $1", &p, 1,
			  on_row, &r, NULL, err);
	if (rc < 0)
		return rc;
	if (!r.found)
		return st_err(err, SMTPDIAG_ENOTFOUND, "the store has not read %.200s yet", mailbox);
	if (uidvalidity)
		*uidvalidity = r.uidvalidity;
	if (last_uid)
		*last_uid = r.last_uid;
	return 0;
}

int smtpdiag_store_mailbox_set(smtpdiag_store *s, const char *mailbox, int64_t uidvalidity,
			       int64_t last_uid, smtpdiag_error *err)
{
	st_val p[4] = { { mailbox, 0 }, { NULL, uidvalidity }, { NULL, last_uid }, { NULL, (int64_t)time(NULL) } };
	int rc;

	if ((rc = name_ok(s, mailbox, NULL, err)) < 0)
		return rc;
	if (uidvalidity < 0 || last_uid < 0)
		return st_err(err, SMTPDIAG_EINVAL, "a UIDVALIDITY or UID below 0");
	return s->be->query(s, "INSERT INTO mailboxes (mailbox, uidvalidity, last_uid, updated)"
			    " VALUES ($1, $2, $3, $4) ON CONFLICT (mailbox) DO UPDATE SET"
			    " uidvalidity = excluded.uidvalidity, last_uid = excluded.last_uid,"
			    " updated = excluded.updated", p, 4, NULL, NULL, NULL, err);
}

int smtpdiag_store_uidl_seen(smtpdiag_store *s, const char *mailbox, const char *uidl, smtpdiag_error *err)
{
	st_val p[2] = { { mailbox, 0 }, { uidl, 0 } };
	mb_row r = { 0, 0, 0 };
	int rc;

	if ((rc = name_ok(s, mailbox, uidl, err)) < 0)
		return rc;
	rc = s->be->query(s, "SELECT seen, seen FROM mailbox_uidls WHERE mailbox = $1 AND uidl = $2", p, 2,
			  on_row, &r, NULL, err);
	return rc < 0 ? rc : r.found;
}

int smtpdiag_store_uidl_add(smtpdiag_store *s, const char *mailbox, const char *uidl, smtpdiag_error *err)
{
	st_val p[3] = { { mailbox, 0 }, { uidl, 0 }, { NULL, (int64_t)time(NULL) } };
	int rc;

	if ((rc = name_ok(s, mailbox, uidl, err)) < 0)
		return rc;
	return s->be->query(s, "INSERT INTO mailbox_uidls (mailbox, uidl, seen) VALUES ($1, $2, $3)"
			    " ON CONFLICT (mailbox, uidl) DO NOTHING", p, 3, NULL, NULL, NULL, err);
}
