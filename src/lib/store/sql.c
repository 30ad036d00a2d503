/* sql.c - the schema and the statements SQLite and PostgreSQL share.
 *
 * Statements are written once, with $1.. parameters and LEAST/GREATEST; the
 * SQLite backend rewrites those to ?1.. and min/max. Every count in
 * `addresses` is kept by arithmetic in the upsert, and every "first" or "last"
 * by a comparison of (time, key), so the state of an address does not depend
 * on the order its events arrive in, nor on which writer recorded them. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "store/store.h"

const char *const st_schema[] = {
	"CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)",
	/* one row per verdict recorded, keyed by token or a hash of its fields */
	"CREATE TABLE IF NOT EXISTS events ("
	" key TEXT PRIMARY KEY, recipient TEXT NOT NULL, domain TEXT NOT NULL, kind TEXT NOT NULL,"
	" ts BIGINT NOT NULL, reason TEXT NOT NULL, status TEXT NOT NULL, replycode TEXT NOT NULL,"
	" action TEXT NOT NULL, hardbounce INTEGER NOT NULL, retry INTEGER NOT NULL,"
	" advice TEXT NOT NULL, addresser TEXT NOT NULL, senderdomain TEXT NOT NULL,"
	" ip TEXT NOT NULL, origin TEXT NOT NULL, diag TEXT NOT NULL)",
	"CREATE INDEX IF NOT EXISTS events_recipient ON events (recipient, ts)",
	/* one row per recipient address: counts and the events that decide */
	"CREATE TABLE IF NOT EXISTS addresses ("
	" address TEXT PRIMARY KEY, domain TEXT NOT NULL,"
	" first_seen BIGINT NOT NULL, last_seen BIGINT NOT NULL, events BIGINT NOT NULL,"
	" last_key TEXT NOT NULL, last_reason TEXT NOT NULL, last_status TEXT NOT NULL,"
	" last_code TEXT NOT NULL,"
	" hard_count BIGINT NOT NULL, hard_last BIGINT NOT NULL,"
	" complaint_count BIGINT NOT NULL, complaint_last BIGINT NOT NULL,"
	" sup_ts BIGINT NOT NULL, sup_key TEXT NOT NULL, sup_kind TEXT NOT NULL,"
	" sup_reason TEXT NOT NULL, sup_status TEXT NOT NULL, sup_code TEXT NOT NULL,"
	" soft_count BIGINT NOT NULL, soft_ts BIGINT NOT NULL, soft_key TEXT NOT NULL,"
	" soft_reason TEXT NOT NULL, soft_status TEXT NOT NULL, soft_code TEXT NOT NULL,"
	" deferred_count BIGINT NOT NULL, delivered_count BIGINT NOT NULL,"
	" last_delivery BIGINT NOT NULL, sender_count BIGINT NOT NULL, other_count BIGINT NOT NULL,"
	" soft_trigger BIGINT NOT NULL DEFAULT 0,"
	" released_at BIGINT NOT NULL DEFAULT 0, released_by TEXT NOT NULL DEFAULT '')",
	"CREATE INDEX IF NOT EXISTS addresses_domain ON addresses (domain)",
	"CREATE TABLE IF NOT EXISTS releases (address TEXT NOT NULL, at BIGINT NOT NULL,"
	" by_user TEXT NOT NULL, was_suppressed INTEGER NOT NULL)",
	/* webhooks out (outbox.c): one row per item, written with the records of
	 * its batch; id is the delivery id (text: the same SQL on both), seq the
	 * order of writing (max + 1 in the writer's transaction), state p pending,
	 * d delivered, f failed */
	ST_OUTBOX_TABLE, ST_OUTBOX_ORDER, ST_OUTBOX_SEQ,
	/* bounce mailboxes (store/mailbox.c): how far each IMAP folder has been
	 * read, keyed by its URL without a password, and the POP3 messages read;
	 * new tables, created where missing, so the schema version stays */
	"CREATE TABLE IF NOT EXISTS mailboxes (mailbox TEXT PRIMARY KEY, uidvalidity BIGINT NOT NULL,"
	" last_uid BIGINT NOT NULL, updated BIGINT NOT NULL)",
	"CREATE TABLE IF NOT EXISTS mailbox_uidls (mailbox TEXT NOT NULL, uidl TEXT NOT NULL,"
	" seen BIGINT NOT NULL, PRIMARY KEY (mailbox, uidl))",
	NULL
};

const char st_event_cols[] =
	"key, recipient, domain, kind, ts, reason, status, replycode, action, hardbounce, retry,"
	" advice, addresser, senderdomain, ip, origin, diag";

const char st_addr_cols[] =
	"address, domain, first_seen, last_seen, events, last_key, last_reason, last_status,"
	" last_code, hard_count, hard_last, complaint_count, complaint_last, sup_ts, sup_key,"
	" sup_kind, sup_reason, sup_status, sup_code, soft_count, soft_ts, soft_key, soft_reason,"
	" soft_status, soft_code, deferred_count, delivered_count, last_delivery, sender_count,"
	" other_count";

#define NEWER(t, k) "(excluded." t " > addresses." t " OR (excluded." t " = addresses." t \
	" AND excluded." k " > addresses." k "))"
#define OLDER(t, k) "(excluded." t " < addresses." t " OR (excluded." t " = addresses." t \
	" AND excluded." k " < addresses." k "))"
#define PICK(col, cond) col " = CASE WHEN " cond " THEN excluded." col " ELSE addresses." col " END, "
#define ADD(col) col " = addresses." col " + excluded." col ", "
#define LAST NEWER("last_seen", "last_key")
#define SUP OLDER("sup_ts", "sup_key")
#define SOFT NEWER("soft_ts", "soft_key")

/* The columns an upsert gives, in this order (30). */
const char st_addr_upsert_tail[] =
	" ON CONFLICT (address) DO UPDATE SET "
	"first_seen = LEAST(addresses.first_seen, excluded.first_seen), "
	PICK("last_key", LAST) PICK("last_reason", LAST) PICK("last_status", LAST)
	PICK("last_code", LAST)
	"last_seen = GREATEST(addresses.last_seen, excluded.last_seen), "
	ADD("events") ADD("hard_count") ADD("complaint_count")
	"hard_last = GREATEST(addresses.hard_last, excluded.hard_last), "
	"complaint_last = GREATEST(addresses.complaint_last, excluded.complaint_last), "
	PICK("sup_key", SUP) PICK("sup_kind", SUP) PICK("sup_reason", SUP) PICK("sup_status", SUP)
	PICK("sup_code", SUP)
	"sup_ts = LEAST(addresses.sup_ts, excluded.sup_ts), "
	ADD("soft_count")
	PICK("soft_key", SOFT) PICK("soft_reason", SOFT) PICK("soft_status", SOFT) PICK("soft_code", SOFT)
	"soft_ts = GREATEST(addresses.soft_ts, excluded.soft_ts), "
	ADD("deferred_count") ADD("delivered_count") ADD("sender_count") ADD("other_count")
	"last_delivery = GREATEST(addresses.last_delivery, excluded.last_delivery)";

/* ---- an address from its events (st_rebuild) ---- */

#define EV_R " FROM events WHERE recipient = $1"
#define N_IF(cond) "count(CASE WHEN " cond " THEN 1 END)"
#define MAX_IF(cond) "coalesce(max(CASE WHEN " cond " THEN ts END), -1)"
#define ROW1(col, where, order) "coalesce((SELECT " col EV_R where " ORDER BY " order " LIMIT 1), '')"
#define LAST_(col) ROW1(col, "", "ts DESC, key DESC")
#define SUP_(col) ROW1(col, " AND kind IN ('h', 'c')", "ts, key")
#define SOFT_(col) ROW1(col, " AND kind = 's'", "ts DESC, key DESC")
#define SET_(col) col " = excluded." col ", "

static const char rebuild_row[] =
	"INSERT INTO addresses (address, domain, first_seen, last_seen, events, last_key, last_reason,"
	" last_status, last_code, hard_count, hard_last, complaint_count, complaint_last, sup_ts, sup_key,"
	" sup_kind, sup_reason, sup_status, sup_code, soft_count, soft_ts, soft_key, soft_reason,"
	" soft_status, soft_code, deferred_count, delivered_count, last_delivery, sender_count,"
	" other_count) VALUES ($1, '', 0, 0, 0, '', '', '', '', 0, -1, 0, -1, 0, '', '', '', '', '', 0,"
	" -1, '', '', '', '', 0, 0, -1, 0, 0) ON CONFLICT (address) DO NOTHING";

static const char rebuild_set[] =
	"INSERT INTO addresses (address, domain, first_seen, last_seen, events, last_key, last_reason,"
	" last_status, last_code, hard_count, hard_last, complaint_count, complaint_last, sup_ts, sup_key,"
	" sup_kind, sup_reason, sup_status, sup_code, soft_count, soft_ts, soft_key, soft_reason,"
	" soft_status, soft_code, deferred_count, delivered_count, last_delivery, sender_count,"
	" other_count) SELECT recipient, min(domain), min(ts), max(ts), count(*), "
	LAST_("key") ", " LAST_("reason") ", " LAST_("status") ", " LAST_("replycode") ", "
	N_IF("kind = 'h'") ", " MAX_IF("kind = 'h'") ", " N_IF("kind = 'c'") ", " MAX_IF("kind = 'c'") ", "
	"coalesce(min(CASE WHEN kind IN ('h', 'c') THEN ts END), 9000000000000000000), " /* ST_NO_TIME_MIN */
	SUP_("key") ", " SUP_("kind") ", " SUP_("reason") ", " SUP_("status") ", " SUP_("replycode") ", "
	N_IF("kind = 's'") ", " MAX_IF("kind = 's'") ", "
	SOFT_("key") ", " SOFT_("reason") ", " SOFT_("status") ", " SOFT_("replycode") ", "
	N_IF("kind = 'f'") ", " N_IF("kind = 'd'") ", " MAX_IF("kind = 'd'") ", "
	N_IF("kind = 'x'") ", " N_IF("kind IN ('o', 'r')") EV_R " GROUP BY recipient"
	" ON CONFLICT (address) DO UPDATE SET "
	SET_("domain") SET_("first_seen") SET_("last_seen") SET_("events") SET_("last_key")
	SET_("last_reason") SET_("last_status") SET_("last_code") SET_("hard_count") SET_("hard_last")
	SET_("complaint_count") SET_("complaint_last") SET_("sup_ts") SET_("sup_key") SET_("sup_kind")
	SET_("sup_reason") SET_("sup_status") SET_("sup_code") SET_("soft_count") SET_("soft_ts")
	SET_("soft_key") SET_("soft_reason") SET_("soft_status") SET_("soft_code")
	SET_("deferred_count") SET_("delivered_count") SET_("last_delivery") SET_("sender_count")
	"other_count = excluded.other_count";

/* the soft window as sqlite.c and pg.c keep it: only once soft_limit ($4) is reached */
static const char rebuild_soft[] =
	"UPDATE addresses SET soft_trigger = CASE WHEN soft_count >= $4 THEN coalesce((SELECT max(w.ts)"
	" FROM (SELECT e.ts, lag(e.ts, $2) OVER (ORDER BY e.ts) AS tp FROM events e"
	" WHERE e.recipient = addresses.address AND e.kind = 's' AND e.ts > addresses.last_delivery) w"
	" WHERE w.tp IS NOT NULL AND w.ts - w.tp <= $3), 0) ELSE 0 END WHERE address = $1";

static const char rebuild_gone[] =
	"DELETE FROM addresses WHERE address = $1 AND NOT EXISTS (SELECT 1" EV_R ")";

int st_rebuild(smtpdiag_store *s, const char *address, const char *lock, smtpdiag_error *err)
{
	st_val p[4] = { { address, 0 }, { NULL, s->pol.soft_limit - 1 },
			{ NULL, (int64_t)s->pol.soft_window_days * ST_DAY }, { NULL, s->pol.soft_limit } };
	const char *sql[] = { rebuild_row, lock, rebuild_set, rebuild_soft, rebuild_gone };
	const int np[] = { 1, 1, 1, 4, 1 };
	int rc;

	for (size_t i = 0; i < sizeof(sql) / sizeof(sql[0]); i++)
		if (sql[i] && (rc = s->be->query(s, sql[i], p, np[i], NULL, NULL, NULL, err)) < 0)
			return rc;
	return 0;
}

int st_err(smtpdiag_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->code = code;
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof(err->message), fmt, ap);
		va_end(ap);
	}
	return code;
}

static int got_version(void *ctx, const char *const *col, int ncol)
{
	long *v = ctx;

	if (ncol > 0 && col[0])
		*v = strtol(col[0], NULL, 10);
	return 0;
}

int st_schema_version(smtpdiag_store *s, long *v, smtpdiag_error *err)
{
	int rc;

	*v = -1;
	rc = s->be->query(s, "SELECT max(version) FROM schema_version", NULL, 0, got_version, v, NULL, err);
	if (rc < 0)
		return rc;
	if (*v > ST_SCHEMA_VERSION)
		return st_err(err, SMTPDIAG_ESTORE, "the store's schema is version %ld, newer than this "
			      "smtpdiag's (%d)", *v, ST_SCHEMA_VERSION);
	return 0;
}

int st_migrate(smtpdiag_store *s, smtpdiag_error *err)
{
	long v = -1;
	st_val p = { NULL, ST_SCHEMA_VERSION };
	int rc;

	for (int i = 0; st_schema[i]; i++)
		if ((rc = s->be->query(s, st_schema[i], NULL, 0, NULL, NULL, NULL, err)) < 0)
			return rc;
	if ((rc = st_schema_version(s, &v, err)) < 0)
		return rc;
	if (v == ST_SCHEMA_VERSION)
		return 0;
	/* version 1 is the first: nothing to migrate from yet */
	return s->be->query(s, "INSERT INTO schema_version (version) VALUES ($1)", &p, 1, NULL, NULL, NULL, err);
}
