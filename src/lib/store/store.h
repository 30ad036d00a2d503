/* store/store.h - the store's internals: one record as the backends take it,
 * the backend interface, and the SQL both backends share. */
#ifndef SD_STORE_H
#define SD_STORE_H

#include <stdint.h>
#include "smtpdiag.h"

#define ST_MAX_FIELD 1024    /* bytes of one text field of a record (more: SMTPDIAG_ELIMIT) */
#define ST_MAX_DIAG 1000     /* bytes of diagnosticcode kept (cut at a UTF-8 boundary) */
#define ST_KEY_MAX 160       /* bytes of a record's key */
#define ST_FIX_MAX 16384     /* bytes of a record's fields rewritten as valid UTF-8 (more: SMTPDIAG_ELIMIT) */
#define ST_SQL_MAX 8192      /* bytes of one statement after rewriting for a backend */
#define ST_MAX_PARAMS 16     /* bound parameters of one query */
#define ST_NO_TIME_MIN INT64_C(9000000000000000000) /* "no such event" for a minimum */
#define ST_SCHEMA_VERSION 1
#define ST_DAY 86400
#define ST_STR_(x) #x
#define ST_STR(x) ST_STR_(x)

/* What a record is to the store, from the verdict's own fields. */
enum st_kind {
	ST_HARD = 'h',       /* hardbounce, or advice suppress-recipient */
	ST_COMPLAINT = 'c',  /* reason feedback (not feedbacktype not-spam) */
	ST_SOFT = 's',       /* retry=true failure */
	ST_DEFERRED = 'f',   /* the MTA keeps trying (action delayed/deferred) */
	ST_DELIVERED = 'd',  /* reason delivered, action delivered/sent */
	ST_SENDER = 'x',     /* advice fix-sender-* or fix-message: never suppresses */
	ST_REDACTED = 'r',   /* reason feedback, advice none: a complaint whose report hid the
			      * recipient; counted in the complaint rate, never suppresses
			      * (counted as other in the address's counts) */
	ST_OTHER = 'o'       /* anything else (vacation, expired, undefined ...) */
};

/* One verdict. Strings are NUL-terminated, never NULL, and live for the call
 * they are given to. */
typedef struct st_rec {
	char key[ST_KEY_MAX];
	char recipient[ST_MAX_FIELD]; /* lowercased; "" when the record names none */
	const char *domain;           /* in recipient, after its last '@' */
	const char *addresser, *senderdomain, *reason, *status, *replycode, *action;
	const char *advice, *origin, *ip;
	const char *feedbacktype;     /* a feedback report's type ("not-spam": no complaint) */
	char diag[ST_MAX_DIAG + 1];
	char fixed[ST_FIX_MAX];       /* the fields that were not valid UTF-8, rewritten */
	int64_t ts;
	int hardbounce, retry;
	char kind;                    /* enum st_kind */
} st_rec;

/* jline.c: the verdict members of one JSON Lines record, without a document. */
enum st_jfield {
	ST_JF_RECIPIENT, ST_JF_TOKEN, ST_JF_DIAG, ST_JF_ADDRESSER, ST_JF_SENDER, ST_JF_SENDERDOMAIN,
	ST_JF_REASON, ST_JF_DSTATUS, ST_JF_STATUS, ST_JF_REPLYCODE, ST_JF_ACTION, ST_JF_ADVICE,
	ST_JF_ORIGIN, ST_JF_QUEUEID, ST_JF_LHOST, ST_JF_HOST, ST_JF_TIMESTAMP, ST_JF_HARDBOUNCE,
	ST_JF_RETRY, ST_JF_FEEDBACKTYPE, ST_JF_COUNT
};
typedef struct st_jfields {
	const char *s[ST_JF_COUNT]; /* string members ("" when absent or null), in the scratch */
	int64_t ts;
	int hardbounce, retry;
	unsigned present;           /* bit per enum st_jfield: the member is there (even null) */
} st_jfields;
/* 0 and f filled, or -1: not sure, ask jansson. scratch: len + ST_JF_COUNT bytes. */
int st_jline(st_jfields *f, const char *line, size_t len, char *scratch);
#define ST_JLINE_SCRATCH(len) ((len) + ST_JF_COUNT)

/* record.c: fill r from a verdict (scratch, when not NULL, of
 * ST_JLINE_SCRATCH(len) bytes, lets it skip jansson). 0, or SMTPDIAG_EPARSE / SMTPDIAG_ELIMIT. */
int st_rec_json(st_rec *r, const char *line, size_t len, char *scratch, void **hold,
		smtpdiag_error *err);
void st_rec_release(void *hold);
int st_rec_fact(st_rec *r, const smtpdiag_fact *f, smtpdiag_error *err);
int st_rec_logrec(st_rec *r, const smtpdiag_logrec *l, smtpdiag_error *err);
const char *st_kind_name(char kind);
/* An address as the store keys it: ASCII lowercased, and each byte that is not
 * valid UTF-8 written as U+FFFD and its two hex digits ("caf\xe9" -> "caf\uFFFDE9"),
 * so every text reaching the database is UTF-8 and two addresses stay two.
 * 0, or -1 when it does not fit in cap. */
int st_address(char *out, size_t cap, const char *in);
/* in as valid UTF-8 (each invalid byte U+FFFD, as the JSON writer does), cut at
 * a character boundary to fit in cap. */
void st_utf8(char *out, size_t cap, const char *in);

/* A query parameter: text, or an integer when s is NULL. */
typedef struct st_val {
	const char *s;
	int64_t i;
} st_val;

/* A result row: ncol columns as text (NULL for SQL NULL). Non-zero stops. */
typedef int (*st_row_fn)(void *ctx, const char *const *col, int ncol);

typedef struct st_backend {
	const char *name;
	int (*open)(smtpdiag_store *s, const char *url, smtpdiag_error *err);
	void (*close)(smtpdiag_store *s);
	/* a batch: add records, then commit (with *recorded the new ones) or drop */
	int (*add)(smtpdiag_store *s, const st_rec *r, smtpdiag_error *err);
	int (*commit)(smtpdiag_store *s, uint64_t *recorded, smtpdiag_error *err);
	void (*drop)(smtpdiag_store *s);
	/* one statement ($1.. parameters; LEAST/GREATEST), rows to fn; *changed
	 * (may be NULL) the rows it changed */
	int (*query)(smtpdiag_store *s, const char *sql, const st_val *p, int np, st_row_fn fn,
		     void *ctx, uint64_t *changed, smtpdiag_error *err);
	int (*begin)(smtpdiag_store *s, smtpdiag_error *err);
	int (*end)(smtpdiag_store *s, int ok, smtpdiag_error *err);
} st_backend;

struct smtpdiag_store {
	const st_backend *be;
	void *impl;
	smtpdiag_policy pol;
	smtpdiag_store_options opt;
	smtpdiag_store_counts c;
	uint64_t batch;      /* records added to the open batch */
	char *scratch;       /* st_rec_json's, for the longest line so far */
	size_t scratch_cap;
	/* the outbox (outbox.c) */
	int ob_mode;         /* SMTPDIAG_OUTBOX_* or 0 */
	int ob_ready;        /* its tables are there */
	int ob_fresh;        /* set by a backend's add: 1 a new record, 0 seen before, -1 unknown */
	struct st_ob_cand *ob;  /* the open batch's records that may write an item */
	size_t ob_n, ob_cap;
};

extern const st_backend st_sqlite, st_pg;

/* The outbox's table (outbox.c), in st_schema and made again by outbox.c on a
 * store made before it. */
#define ST_OUTBOX_TABLE "CREATE TABLE IF NOT EXISTS outbox (id TEXT PRIMARY KEY, seq BIGINT NOT NULL," \
	" address TEXT NOT NULL, event TEXT NOT NULL, body TEXT NOT NULL, state TEXT NOT NULL," \
	" created BIGINT NOT NULL, tries INTEGER NOT NULL, next_at BIGINT NOT NULL," \
	" answer TEXT NOT NULL)"
#define ST_OUTBOX_ORDER "CREATE INDEX IF NOT EXISTS outbox_order ON outbox (state, address, seq)"
#define ST_OUTBOX_SEQ "CREATE INDEX IF NOT EXISTS outbox_seq ON outbox (seq)"

/* sql.c: the schema and the statements both backends run. */
extern const char *const st_schema[];
extern const char st_event_cols[];   /* 17 columns, in st_rec's order */
extern const char st_addr_cols[];    /* 30 columns an address upsert gives */
extern const char st_addr_upsert_tail[];
#define ST_EVENT_NCOLS 17
#define ST_ADDR_NCOLS 30
/* The tie rule: of two records with one key, the store keeps the smaller by
 * these columns, in this order, text compared bytewise (docs/store.md). t is
 * "" or a table name and a dot; SQLite drops the COLLATE (its own is bytewise). */
#define ST_C " COLLATE \"C\""
#define ST_TIE(t) "(" t "ts, " t "recipient" ST_C ", " t "kind" ST_C ", " t "reason" ST_C ", " \
	t "status" ST_C ", " t "replycode" ST_C ", " t "action" ST_C ", " t "hardbounce, " t "retry, " \
	t "advice" ST_C ", " t "addresser" ST_C ", " t "senderdomain" ST_C ", " t "ip" ST_C ", " \
	t "origin" ST_C ", " t "diag" ST_C ")"
/* The same of a record bound as st_event_cols ($1 key .. $17 diag). */
#define ST_TIE_PARAMS "($5, $2" ST_C ", $4" ST_C ", $6" ST_C ", $7" ST_C ", $8" ST_C ", $9" ST_C \
	", $10, $11, $12" ST_C ", $13" ST_C ", $14" ST_C ", $15" ST_C ", $16" ST_C ", $17" ST_C ")"
/* Every column of an address from its events again (a record replaced under
 * the tie rule moved or changed what it counted), keeping its release;
 * deleted when no event is left. lock, when not NULL, is run after the row is
 * made and before it is computed ($1 the address). */
int st_rebuild(smtpdiag_store *s, const char *address, const char *lock, smtpdiag_error *err);
int st_err(smtpdiag_error *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Run the schema statements and record the version (inside the caller's transaction). */
int st_migrate(smtpdiag_store *s, smtpdiag_error *err);
/* The schema's version into *v (-1: none recorded); SMTPDIAG_ESTORE when it is newer
 * than this library's. The schema_version table must exist. */
int st_schema_version(smtpdiag_store *s, long *v, smtpdiag_error *err);

/* outbox.c. st_outbox_note: after a backend's add took r (s->ob_fresh set).
 * st_outbox_write: in the batch's transaction, after its records: the items
 * of the new ones (fresh_sql, when not NULL, lists the keys of the batch's new
 * records for those the add could not tell). st_outbox_clear: the batch is
 * over. st_outbox_released: in a release's transaction. */
int st_outbox_note(smtpdiag_store *s, const st_rec *r, smtpdiag_error *err);
int st_outbox_write(smtpdiag_store *s, const char *fresh_sql, smtpdiag_error *err);
void st_outbox_clear(smtpdiag_store *s);
int st_outbox_released(smtpdiag_store *s, const char *address, const char *by, int64_t at,
		       smtpdiag_error *err);

/* query.c: every address matching where (SQL after WHERE), judged at now, to fn. */
int st_each_address(smtpdiag_store *s, const char *where, const st_val *p, int np, int64_t now,
		    smtpdiag_addr_fn fn, void *ctx, smtpdiag_error *err);

#endif
