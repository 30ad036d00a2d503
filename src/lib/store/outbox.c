/* outbox.c - the outbox of webhooks out: items written in the transaction of
 * the records they tell of, taken oldest first per address, and marked as
 * delivered, due again later, or failed (docs/webhooks-out.md).
 *
 * While a batch is open, each record added is noted (its key, address and
 * JSON); before the batch commits, the backend calls st_outbox_write(), which
 * writes an item for each note whose record was new. A delivery id is the
 * record's key with a prefix ("v:" verdict, "s:" suppressed, "r:" released,
 * with the address and time): written twice, it stays one item. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/store.h"
#include "core/util.h"

#define OB_MAX_ID (ST_KEY_MAX + 8)    /* bytes of a delivery id of a record */

struct st_ob_cand {
	char *key, *address, *record; /* in one allocation */
	size_t n;                     /* its place in the batch */
	char kind;
	int fresh;                    /* as s->ob_fresh after the add */
};

/* as in st_schema, for a store made before the outbox */
static const char *const ob_schema[] = { ST_OUTBOX_TABLE, ST_OUTBOX_ORDER, ST_OUTBOX_SEQ, NULL };

static int64_t ob_now(int64_t now)
{
	return now ? now : (int64_t)time(NULL);
}

static int ready(smtpdiag_store *s, smtpdiag_error *err)
{
	int rc;

	if (s->ob_ready)
		return 0;
	for (int i = 0; ob_schema[i]; i++)
		if ((rc = s->be->query(s, ob_schema[i], NULL, 0, NULL, NULL, NULL, err)) < 0)
			return rc;
	s->ob_ready = 1;
	return 0;
}

int smtpdiag_store_outbox(smtpdiag_store *s, int events, smtpdiag_error *err)
{
	if (!s)
		return st_err(err, SMTPDIAG_EINVAL, "no store");
	if (events != 0 && events != SMTPDIAG_OUTBOX_VERDICTS && events != SMTPDIAG_OUTBOX_SUPPRESSIONS)
		return st_err(err, SMTPDIAG_EINVAL, "unknown outbox events %d", events);
	if (s->batch)
		return st_err(err, SMTPDIAG_EINVAL, "a batch is open: flush it first");
	s->ob_mode = events;
	return events ? ready(s, err) : 0;
}

/* ---- writing ---- */

int st_outbox_note(smtpdiag_store *s, const st_rec *r, smtpdiag_error *err)
{
	/* the record as the store keeps it, in the order of smtpdiag_store_event */
	smtpdiag_store_event e = { r->key, st_kind_name(r->kind), r->ts, r->reason, r->status, r->replycode,
				   r->action, r->advice, r->addresser, r->senderdomain, r->origin, r->diag,
				   r->hardbounce, r->retry };
	struct st_ob_cand *c;
	sd_buf rec;
	size_t kn = strlen(r->key), an = strlen(r->recipient);

	if (!s->ob_mode || s->ob_fresh == 0)
		return 0;
	if (s->ob_mode == SMTPDIAG_OUTBOX_SUPPRESSIONS && r->kind != ST_HARD &&
	    r->kind != ST_COMPLAINT && r->kind != ST_SOFT)
		return 0; /* only these can make an address suppressed */
	if (s->ob_n == s->ob_cap) {
		size_t cap = s->ob_cap ? s->ob_cap * 2 : 64;
		struct st_ob_cand *n = realloc(s->ob, cap * sizeof(*n));
		if (!n)
			return st_err(err, SMTPDIAG_ENOMEM, "out of memory");
		s->ob = n;
		s->ob_cap = cap;
	}
	sd_buf_init(&rec);
	sd_buf_put(&rec, r->key, kn + 1);
	sd_buf_put(&rec, r->recipient, an + 1);
	smtpdiag_store_event_json(&e, (smtpdiag_buf *)&rec);
	sd_buf_putc(&rec, 0);
	if (rec.oom) {
		sd_buf_free(&rec);
		return st_err(err, SMTPDIAG_ENOMEM, "out of memory");
	}
	c = &s->ob[s->ob_n++];
	c->key = rec.data;
	c->address = rec.data + kn + 1;
	c->record = rec.data + kn + 1 + an + 1;
	c->n = s->ob_n - 1;
	c->kind = r->kind;
	c->fresh = s->ob_fresh;
	return 0;
}

void st_outbox_clear(smtpdiag_store *s)
{
	for (size_t i = 0; i < s->ob_n; i++)
		free(s->ob[i].key);
	s->ob_n = 0;
	if (!s->ob_cap)
		return;
	free(s->ob);
	s->ob = NULL;
	s->ob_cap = 0;
}

static int enqueue(smtpdiag_store *s, const char *id, const char *address, const char *event,
		   const char *record, const char *state, int64_t now, smtpdiag_error *err)
{
	sd_buf b;
	st_val p[5] = { { id, 0 }, { address, 0 }, { event, 0 }, { NULL, 0 }, { NULL, now } };
	int rc;

	sd_buf_init(&b);
	sd_buf_puts(&b, "{\"id\":");
	sd_buf_json_cstr(&b, id);
	SD_JSTR(&b, "event", event);
	SD_JSTR(&b, "address", address);
	sd_buf_printf(&b, ",\"created\":%lld,\"record\":%s", (long long)now, record);
	if (state)
		sd_buf_printf(&b, ",\"state\":%s", state);
	sd_buf_putc(&b, '}');
	if (b.oom) {
		sd_buf_free(&b);
		return st_err(err, SMTPDIAG_ENOMEM, "out of memory");
	}
	p[3].s = b.data;
	rc = s->be->query(s, "INSERT INTO outbox (id, seq, address, event, body, state, created, tries,"
			  " next_at, answer) SELECT $1, coalesce(max(seq), 0) + 1, $2, $3, $4, 'p', $5, 0,"
			  " $5, '' FROM outbox WHERE 1 = 1 ON CONFLICT (id) DO NOTHING", p, 5, NULL, NULL,
			  NULL, err);
	sd_buf_free(&b);
	return rc;
}

typedef struct ob_state {
	sd_buf json;
	int suppressed, found;
} ob_state;

static int on_state(void *ctx, const smtpdiag_addr_state *a)
{
	ob_state *o = ctx;

	o->found = 1;
	o->suppressed = a->suppressed;
	sd_buf_reset(&o->json);
	smtpdiag_addr_state_json(a, (smtpdiag_buf *)&o->json);
	sd_buf_putc(&o->json, 0);
	return 0;
}

static int on_last(void *ctx, const char *const *col, int ncol)
{
	*(int *)ctx = ncol > 0 && col[0] && !strcmp(col[0], "suppressed");
	return 0;
}

/* An address that is suppressed now, whose last suppression item (if any)
 * is not "suppressed": an item. */
static int suppression(smtpdiag_store *s, const struct st_ob_cand *c, int64_t now, smtpdiag_error *err)
{
	ob_state o = { { NULL, 0, 0, 0 }, 0, 0 };
	st_val p = { c->address, 0 };
	char id[OB_MAX_ID];
	int told = 0, rc;

	if (!c->address[0])
		return 0;
	rc = st_each_address(s, "address = $1", &p, 1, now, on_state, &o, err);
	if (rc == 0 && o.found && o.suppressed)
		rc = s->be->query(s, "SELECT event FROM outbox WHERE address = $1 AND event IN"
				  " ('suppressed', 'released') ORDER BY seq DESC, id DESC LIMIT 1", &p, 1,
				  on_last, &told, NULL, err);
	if (rc == 0 && o.json.oom)
		rc = st_err(err, SMTPDIAG_ENOMEM, "out of memory");
	if (rc == 0 && o.found && o.suppressed && !told) {
		snprintf(id, sizeof(id), "s:%s", c->key);
		rc = enqueue(s, id, c->address, "suppressed", c->record, o.json.data, now, err);
	}
	sd_buf_free(&o.json);
	return rc;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct st_ob_cand *)a)->key, ((const struct st_ob_cand *)b)->key);
}

static int on_fresh(void *ctx, const char *const *col, int ncol)
{
	smtpdiag_store *s = ctx;
	struct st_ob_cand k, *c;

	if (ncol < 1 || !col[0])
		return 0;
	k.key = (char *)col[0];
	if ((c = bsearch(&k, s->ob, s->ob_n, sizeof(*s->ob), by_key)) && c->fresh < 0)
		c->fresh = 2; /* new in this attempt */
	return 0;
}

static int by_order(const void *a, const void *b)
{
	const struct st_ob_cand *x = a, *y = b;
	return x->n < y->n ? -1 : x->n > y->n;
}

int st_outbox_write(smtpdiag_store *s, const char *fresh_sql, smtpdiag_error *err)
{
	int64_t now = ob_now(0);
	char id[OB_MAX_ID];
	int rc = 0;

	if (!s->ob_mode || !s->ob_n)
		return 0;
	if (fresh_sql) {
		/* notes are in the order added: sorted by key to mark, then back */
		for (size_t i = 0; i < s->ob_n; i++)
			s->ob[i].fresh = s->ob[i].fresh == 2 ? -1 : s->ob[i].fresh;
		qsort(s->ob, s->ob_n, sizeof(*s->ob), by_key);
		rc = s->be->query(s, fresh_sql, NULL, 0, on_fresh, s, NULL, err);
		qsort(s->ob, s->ob_n, sizeof(*s->ob), by_order);
		if (rc < 0)
			return rc;
	}
	for (size_t i = 0; rc == 0 && i < s->ob_n; i++) {
		const struct st_ob_cand *c = &s->ob[i];
		if (c->fresh != 1 && c->fresh != 2)
			continue;
		if (s->ob_mode == SMTPDIAG_OUTBOX_SUPPRESSIONS) {
			rc = suppression(s, c, now, err);
			continue;
		}
		snprintf(id, sizeof(id), "v:%s", c->key);
		rc = enqueue(s, id, c->address, "verdict", c->record, NULL, now, err);
	}
	return rc;
}

int st_outbox_released(smtpdiag_store *s, const char *address, const char *by, int64_t at,
		       smtpdiag_error *err)
{
	sd_buf id, rec;
	int rc;

	if (s->ob_mode != SMTPDIAG_OUTBOX_SUPPRESSIONS)
		return 0;
	sd_buf_init(&id);
	sd_buf_init(&rec);
	sd_buf_printf(&id, "r:%s:%lld", address, (long long)at);
	sd_buf_puts(&rec, "{\"released_at\":");
	sd_buf_put_int(&rec, at);
	SD_JSTR(&rec, "released_by", by);
	sd_buf_putc(&rec, '}');
	if (id.oom || rec.oom)
		rc = st_err(err, SMTPDIAG_ENOMEM, "out of memory");
	else
		rc = enqueue(s, id.data, address, "released", rec.data, NULL, at, err);
	sd_buf_free(&id);
	sd_buf_free(&rec);
	return rc;
}

/* ---- taking ---- */

typedef struct ob_walk {
	smtpdiag_outbox_fn fn;
	void *ctx;
} ob_walk;

static int on_item(void *ctx, const char *const *c, int n)
{
	ob_walk *w = ctx;
	smtpdiag_outbox_item it;

	if (n < 6)
		return 0;
	it.id = c[0] ? c[0] : "";
	it.address = c[1] ? c[1] : "";
	it.event = c[2] ? c[2] : "";
	it.body = c[3] ? c[3] : "";
	it.tries = c[4] ? (int)strtol(c[4], NULL, 10) : 0;
	it.created = c[5] ? strtoll(c[5], NULL, 10) : 0;
	return w->fn(w->ctx, &it);
}

int smtpdiag_store_outbox_next(smtpdiag_store *s, int64_t now, unsigned max, smtpdiag_outbox_fn fn,
			       void *ctx, smtpdiag_error *err)
{
	ob_walk w = { fn, ctx };
	st_val p[2] = { { NULL, ob_now(now) }, { NULL, max } };
	int rc;

	if (!s || !fn)
		return st_err(err, SMTPDIAG_EINVAL, "no store or callback");
	if (max < 1 || max > SMTPDIAG_OUTBOX_MAX_NEXT)
		return st_err(err, SMTPDIAG_EINVAL, "items asked for not in 1..%d", SMTPDIAG_OUTBOX_MAX_NEXT);
	if ((rc = ready(s, err)) < 0)
		return rc;
	return s->be->query(s, "SELECT id, address, event, body, tries, created FROM outbox o"
			    " WHERE state = 'p' AND next_at <= $1 AND NOT EXISTS (SELECT 1 FROM outbox e"
			    " WHERE e.state = 'p' AND e.address = o.address AND (e.seq < o.seq OR"
			    " (e.seq = o.seq AND e.id < o.id))) ORDER BY seq, id LIMIT $2", p, 2, on_item,
			    &w, NULL, err);
}

static int on_tries(void *ctx, const char *const *col, int ncol)
{
	*(int *)ctx = ncol > 0 && col[0] ? (int)strtol(col[0], NULL, 10) : 0;
	return 0;
}

/* Seconds before the next try after tries tries. */
static int64_t backoff(int tries)
{
	int64_t d = SMTPDIAG_OUTBOX_RETRY_FIRST;

	for (int i = 1; i < tries && d < SMTPDIAG_OUTBOX_RETRY_MAX; i++)
		d *= 2;
	return d < SMTPDIAG_OUTBOX_RETRY_MAX ? d : SMTPDIAG_OUTBOX_RETRY_MAX;
}

int smtpdiag_store_outbox_done(smtpdiag_store *s, const char *id, int outcome, const char *answer,
			       int64_t now, smtpdiag_error *err)
{
	char ans[SMTPDIAG_OUTBOX_MAX_ANSWER + 1];
	int tries = -1, rc;
	int64_t t = ob_now(now);
	st_val p[4] = { { id, 0 }, { NULL, 0 }, { ans, 0 }, { "p", 0 } };
	uint64_t changed = 0;

	if (!s || !id)
		return st_err(err, SMTPDIAG_EINVAL, "no store or id");
	if (outcome == SMTPDIAG_OUTBOX_DELIVERED)
		p[3].s = "d";
	else if (outcome == SMTPDIAG_OUTBOX_FAILED)
		p[3].s = "f";
	else if (outcome != SMTPDIAG_OUTBOX_RETRY)
		return st_err(err, SMTPDIAG_EINVAL, "unknown outcome %d", outcome);
	if ((rc = ready(s, err)) < 0)
		return rc;
	st_utf8(ans, sizeof(ans), answer ? answer : "");
	if ((rc = s->be->query(s, "SELECT tries FROM outbox WHERE id = $1 AND state = 'p'", p, 1, on_tries,
			       &tries, NULL, err)) < 0)
		return rc;
	if (tries < 0)
		return st_err(err, SMTPDIAG_ENOTFOUND, "no pending outbox item %.200s", id);
	p[1].i = outcome == SMTPDIAG_OUTBOX_RETRY ? t + backoff(tries + 1) : t;
	rc = s->be->query(s, "UPDATE outbox SET tries = tries + 1, next_at = $2, answer = $3, state = $4"
			  " WHERE id = $1 AND state = 'p'", p, 4, NULL, NULL, &changed, err);
	if (rc == 0 && !changed)
		rc = st_err(err, SMTPDIAG_ENOTFOUND, "no pending outbox item %.200s", id);
	return rc;
}

static int on_count(void *ctx, const char *const *c, int n)
{
	smtpdiag_outbox_counts *o = ctx;
	uint64_t k;

	if (n < 4 || !c[0] || !c[1])
		return 0;
	k = strtoull(c[1], NULL, 10);
	if (!strcmp(c[0], "p")) {
		o->pending = k;
		o->due = c[2] ? strtoull(c[2], NULL, 10) : 0;
		o->next_at = c[3] ? strtoll(c[3], NULL, 10) : 0;
	} else if (!strcmp(c[0], "f")) {
		o->failed = k;
	} else if (!strcmp(c[0], "d")) {
		o->delivered = k;
	}
	return 0;
}

int smtpdiag_store_outbox_counts(smtpdiag_store *s, int64_t now, smtpdiag_outbox_counts *c,
				 smtpdiag_error *err)
{
	st_val p = { NULL, ob_now(now) };
	int rc;

	if (!s || !c)
		return st_err(err, SMTPDIAG_EINVAL, "no store or counts");
	memset(c, 0, sizeof(*c));
	if ((rc = ready(s, err)) < 0)
		return rc;
	return s->be->query(s, "SELECT state, count(*), count(CASE WHEN next_at <= $1 THEN 1 END),"
			    " min(next_at) FROM outbox GROUP BY state", &p, 1, on_count, c, NULL, err);
}

int smtpdiag_store_outbox_retry(smtpdiag_store *s, uint64_t *n, smtpdiag_error *err)
{
	st_val p = { NULL, ob_now(0) };
	uint64_t changed = 0;
	int rc;

	if (!s)
		return st_err(err, SMTPDIAG_EINVAL, "no store");
	if ((rc = ready(s, err)) < 0)
		return rc;
	rc = s->be->query(s, "UPDATE outbox SET state = 'p', next_at = $1 WHERE state = 'f'", &p, 1, NULL,
			  NULL, &changed, err);
	if (n)
		*n = rc == 0 ? changed : 0;
	return rc;
}
