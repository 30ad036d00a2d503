/* query.c - what the store knows: suppressed addresses, one address's state
 * and history, releases, counts, pruning. An address's state is judged here,
 * at the time asked, from its counters and the policy (docs/store.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/store.h"
#include "core/util.h"

#define ADDR_COLS "address, domain, first_seen, last_seen, events, last_reason, last_status," \
	" last_code, hard_count, hard_last, complaint_count, complaint_last, sup_ts, sup_kind," \
	" sup_reason, sup_status, sup_code, soft_count, soft_reason, soft_status, soft_code," \
	" soft_trigger, deferred_count, delivered_count, sender_count, other_count, released_at," \
	" released_by"
#define ADDR_NCOLS 28
#define SUPPRESSIBLE "(hard_count > 0 OR complaint_count > 0 OR soft_trigger > 0)"

enum { A_ADDR, A_DOM, A_FIRST, A_LAST, A_EVENTS, A_LREASON, A_LSTATUS, A_LCODE, A_HARD, A_HLAST,
       A_COMP, A_CLAST, A_SUPTS, A_SUPKIND, A_SREASON, A_SSTATUS, A_SCODE, A_SOFT, A_FREASON,
       A_FSTATUS, A_FCODE, A_TRIGGER, A_DEFER, A_DELIV, A_SENDER, A_OTHER, A_RELAT, A_RELBY };

static int64_t num(const char *s)
{
	return s ? strtoll(s, NULL, 10) : 0;
}

static const char *str(const char *s)
{
	return s ? s : "";
}

static int64_t now_or(int64_t now)
{
	return now ? now : (int64_t)time(NULL);
}

/* active: a kind's suppression still holds at now */
static int active(int on, int64_t count, int64_t last, int64_t rel, int days, int64_t now)
{
	return on && count > 0 && last > rel && (!days || last + (int64_t)days * ST_DAY > now);
}

static void pick(smtpdiag_addr_state *a, const char *const *c, int r, int s, int k)
{
	a->reason = str(c[r]);
	a->status = str(c[s]);
	a->replycode = str(c[k]);
}

static void judge_block(smtpdiag_addr_state *a, const char *const *c, const smtpdiag_policy *p, int hard)
{
	int64_t last = num(c[hard ? A_HLAST : A_CLAST]), sup = num(c[A_SUPTS]);
	int days = hard ? p->hard_days : p->complaint_days;

	a->suppressed = 1;
	a->cause = hard ? "hard" : "complaint";
	if (str(c[A_SUPKIND])[0] == (hard ? ST_HARD : ST_COMPLAINT))
		pick(a, c, A_SREASON, A_SSTATUS, A_SCODE);
	else
		a->reason = hard ? str(c[A_LREASON]) : "feedback";
	a->since = sup > a->released_at ? sup : last;
	a->until = days ? last + (int64_t)days * ST_DAY : 0;
}

/* The state of the address of row c at now. */
static void judge(smtpdiag_addr_state *a, const char *const *c, const smtpdiag_policy *p, int64_t now)
{
	int64_t rel = num(c[A_RELAT]), trig = num(c[A_TRIGGER]);
	int hard, comp;

	memset(a, 0, sizeof(*a));
	a->address = str(c[A_ADDR]);
	a->domain = str(c[A_DOM]);
	a->first_seen = num(c[A_FIRST]);
	a->last_seen = num(c[A_LAST]);
	a->events = (uint64_t)num(c[A_EVENTS]);
	a->hard = (uint64_t)num(c[A_HARD]);
	a->complaints = (uint64_t)num(c[A_COMP]);
	a->soft = (uint64_t)num(c[A_SOFT]);
	a->deferred = (uint64_t)num(c[A_DEFER]);
	a->delivered = (uint64_t)num(c[A_DELIV]);
	a->sender = (uint64_t)num(c[A_SENDER]);
	a->other = (uint64_t)num(c[A_OTHER]);
	a->released_at = rel;
	a->released_by = str(c[A_RELBY]);
	a->cause = "";
	pick(a, c, A_LREASON, A_LSTATUS, A_LCODE);
	hard = active(p->hard, num(c[A_HARD]), num(c[A_HLAST]), rel, p->hard_days, now);
	comp = active(p->complaint, num(c[A_COMP]), num(c[A_CLAST]), rel, p->complaint_days, now);
	if (hard || comp) {
		judge_block(a, c, p, hard && !(comp && str(c[A_SUPKIND])[0] == ST_COMPLAINT));
	} else if (trig > 0 && trig > rel && trig + (int64_t)p->soft_days * ST_DAY > now) {
		a->suppressed = 1;
		a->cause = "soft";
		pick(a, c, A_FREASON, A_FSTATUS, A_FCODE);
		a->since = trig;
		a->until = trig + (int64_t)p->soft_days * ST_DAY;
	}
}

/* ---- suppressed ---- */

typedef struct walk {
	smtpdiag_store *s;
	const smtpdiag_store_filter *f;
	int64_t now;
	smtpdiag_addr_fn fn;
	void *ctx;
	int found;
	int all;      /* every address, not only the suppressed */
} walk;

static int on_candidate(void *ctx, const char *const *c, int n)
{
	walk *w = ctx;
	smtpdiag_addr_state a;

	if (n < ADDR_NCOLS)
		return 0;
	judge(&a, c, &w->s->pol, w->now);
	w->found = 1;
	if (w->all)
		return w->fn(w->ctx, &a);
	if (!a.suppressed || (w->f && w->f->reason && w->f->reason[0] && strcmp(a.reason, w->f->reason)))
		return 0;
	if (w->f && w->f->since && a.since < w->f->since)
		return 0;
	return w->fn(w->ctx, &a);
}

/* An address (or domain) given to look up, keyed as the records' are. */
static int lower(char *d, const char *s, size_t cap, smtpdiag_error *err)
{
	if (st_address(d, cap, s) < 0)
		return st_err(err, SMTPDIAG_ELIMIT, "an address or domain longer than %d bytes", ST_MAX_FIELD - 1);
	return 0;
}

int smtpdiag_store_suppressed(smtpdiag_store *s, const smtpdiag_store_filter *f,
			      smtpdiag_addr_fn fn, void *ctx, smtpdiag_error *err)
{
	walk w = { s, f, now_or(f ? f->now : 0), fn, ctx, 0, 0 };
	char dom[ST_MAX_FIELD], after[ST_MAX_FIELD];
	st_val p[2] = { { dom, 0 }, { after, 0 } };

	if (!s || !fn)
		return st_err(err, SMTPDIAG_EINVAL, "no store or callback");
	if (lower(dom, f && f->domain ? f->domain : "", sizeof(dom), err) < 0 ||
	    lower(after, f && f->after ? f->after : "", sizeof(after), err) < 0)
		return SMTPDIAG_ELIMIT;
	return s->be->query(s, "SELECT " ADDR_COLS " FROM addresses WHERE " SUPPRESSIBLE
			    " AND ($1 = '' OR domain = $1) AND address > $2 ORDER BY address", p, 2,
			    on_candidate, &w, NULL, err);
}

/* Every address matching where (SQL after WHERE) to fn, judged at now. */
int st_each_address(smtpdiag_store *s, const char *where, const st_val *p, int np, int64_t now,
		    smtpdiag_addr_fn fn, void *ctx, smtpdiag_error *err)
{
	walk w = { s, NULL, now_or(now), fn, ctx, 0, 1 };
	char sql[ST_SQL_MAX];

	snprintf(sql, sizeof(sql), "SELECT " ADDR_COLS " FROM addresses WHERE %s ORDER BY address", where);
	return s->be->query(s, sql, p, np, on_candidate, &w, NULL, err);
}

/* ---- show ---- */

typedef struct evwalk {
	smtpdiag_store_event_fn fn;
	void *ctx;
} evwalk;

static int on_event(void *ctx, const char *const *c, int n)
{
	evwalk *w = ctx;
	smtpdiag_store_event e;

	if (n < 14)
		return 0;
	e.key = str(c[0]);
	e.kind = st_kind_name(str(c[1])[0]);
	e.timestamp = num(c[2]);
	e.reason = str(c[3]);
	e.status = str(c[4]);
	e.replycode = str(c[5]);
	e.action = str(c[6]);
	e.advice = str(c[7]);
	e.addresser = str(c[8]);
	e.senderdomain = str(c[9]);
	e.origin = str(c[10]);
	e.diagnosticcode = str(c[11]);
	e.hardbounce = num(c[12]) != 0;
	e.retry = num(c[13]) != 0;
	return w->fn(w->ctx, &e);
}

/* The state of one address to fn (w->found 0 when unknown). */
static int load(smtpdiag_store *s, const char *low, walk *w, smtpdiag_error *err)
{
	st_val p = { low, 0 };

	return s->be->query(s, "SELECT " ADDR_COLS " FROM addresses WHERE address = $1", &p, 1,
			    on_candidate, w, NULL, err);
}

static int any_state(void *ctx, const smtpdiag_addr_state *a)
{
	walk *w = ctx;
	return w->fn ? w->fn(w->ctx, a) : 0;
}

int smtpdiag_store_show(smtpdiag_store *s, const char *address, int64_t now, smtpdiag_addr_fn fn,
			smtpdiag_store_event_fn ev, void *ctx, smtpdiag_error *err)
{
	walk inner = { s, NULL, 0, fn, ctx, 0, 0 };
	walk w = { s, NULL, now_or(now), any_state, &inner, 0, 1 };
	evwalk e = { ev, ctx };
	char low[ST_MAX_FIELD];
	st_val p = { low, 0 };
	int rc;

	if (!s || !address)
		return st_err(err, SMTPDIAG_EINVAL, "no store or address");
	if (lower(low, address, sizeof(low), err) < 0)
		return SMTPDIAG_ELIMIT;
	if ((rc = load(s, low, &w, err)) != 0)
		return rc;
	if (!w.found)
		return st_err(err, SMTPDIAG_ENOTFOUND, "the store does not know %.200s", address);
	if (!ev)
		return 0;
	return s->be->query(s, "SELECT key, kind, ts, reason, status, replycode, action, advice, addresser,"
			    " senderdomain, origin, diag, hardbounce, retry FROM events WHERE recipient = $1"
			    " ORDER BY ts, key", &p, 1, on_event, &e, NULL, err);
}

/* ---- release ---- */

static int was(void *ctx, const smtpdiag_addr_state *a)
{
	*(int *)ctx = a->suppressed;
	return 0;
}

int smtpdiag_store_release(smtpdiag_store *s, const char *address, const char *by, int64_t now,
			   smtpdiag_error *err)
{
	int sup = 0, rc;
	walk w = { s, NULL, now_or(now), was, &sup, 0, 1 };
	char low[ST_MAX_FIELD], who[ST_MAX_FIELD];
	st_val p[4] = { { low, 0 }, { NULL, w.now }, { who, 0 }, { NULL, 0 } };

	if (!s || !address)
		return st_err(err, SMTPDIAG_EINVAL, "no store or address");
	if (lower(low, address, sizeof(low), err) < 0)
		return SMTPDIAG_ELIMIT;
	st_utf8(who, sizeof(who), by ? by : "");
	if ((rc = s->be->begin(s, err)) < 0)
		return rc;
	if ((rc = load(s, low, &w, err)) == 0 && !w.found)
		rc = st_err(err, SMTPDIAG_ENOTFOUND, "the store does not know %.200s", address);
	p[3].i = sup;
	if (rc == 0)
		rc = s->be->query(s, "UPDATE addresses SET released_at = GREATEST(released_at, $2),"
				  " released_by = $3 WHERE address = $1", p, 3, NULL, NULL, NULL, err);
	if (rc == 0)
		rc = s->be->query(s, "INSERT INTO releases (address, at, by_user, was_suppressed)"
				  " VALUES ($1, $2, $3, $4)", p, 4, NULL, NULL, NULL, err);
	if (rc == 0 && sup)
		rc = st_outbox_released(s, low, who, w.now, err);
	if (s->be->end(s, rc == 0, err) < 0 && rc == 0)
		rc = SMTPDIAG_ESTORE;
	return rc < 0 ? rc : sup;
}

/* ---- JSON ---- */

void smtpdiag_addr_state_json(const smtpdiag_addr_state *a, smtpdiag_buf *out)
{
	sd_buf *b = (sd_buf *)out;

	sd_buf_puts(b, "{\"address\":");
	sd_buf_json_cstr(b, a->address);
	SD_JSTR(b, "domain", a->domain);
	SD_JBOOL(b, "suppressed", a->suppressed);
	SD_JSTR(b, "cause", a->cause);
	SD_JSTR(b, "reason", a->reason);
	SD_JSTR(b, "status", a->status);
	SD_JSTR(b, "replycode", a->replycode);
	sd_buf_printf(b, ",\"since\":%lld,\"until\":%lld,\"first_seen\":%lld,\"last_seen\":%lld",
		      (long long)a->since, (long long)a->until, (long long)a->first_seen,
		      (long long)a->last_seen);
	sd_buf_printf(b, ",\"events\":%llu,\"hard\":%llu,\"complaints\":%llu,\"soft\":%llu,"
		      "\"deferred\":%llu,\"delivered\":%llu,\"sender\":%llu,\"other\":%llu",
		      (unsigned long long)a->events, (unsigned long long)a->hard,
		      (unsigned long long)a->complaints, (unsigned long long)a->soft,
		      (unsigned long long)a->deferred, (unsigned long long)a->delivered,
		      (unsigned long long)a->sender, (unsigned long long)a->other);
	sd_buf_printf(b, ",\"released_at\":%lld", (long long)a->released_at);
	SD_JSTR(b, "released_by", a->released_by);
	sd_buf_putc(b, '}');
}

void smtpdiag_store_event_json(const smtpdiag_store_event *e, smtpdiag_buf *out)
{
	sd_buf *b = (sd_buf *)out;

	sd_buf_puts(b, "{\"key\":");
	sd_buf_json_cstr(b, e->key);
	SD_JSTR(b, "kind", e->kind);
	sd_buf_printf(b, ",\"timestamp\":%lld", (long long)e->timestamp);
	SD_JSTR(b, "reason", e->reason);
	SD_JSTR(b, "deliverystatus", e->status);
	SD_JSTR(b, "replycode", e->replycode);
	SD_JSTR(b, "action", e->action);
	SD_JBOOL(b, "hardbounce", e->hardbounce);
	SD_JBOOL(b, "retry", e->retry);
	SD_JSTR(b, "advice", e->advice);
	SD_JSTR(b, "addresser", e->addresser);
	SD_JSTR(b, "senderdomain", e->senderdomain);
	SD_JSTR(b, "origin", e->origin);
	SD_JSTR(b, "diagnosticcode", e->diagnosticcode);
	sd_buf_putc(b, '}');
}
