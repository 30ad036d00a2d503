/* store.c - opening a store, the suppression policy, adding verdicts in
 * batches and the counts that add up: read = recorded + duplicates + errors
 * + pending. The backends (sqlite.c, pg.c) write; query.c reads. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "store/store.h"

#define ST_POLICY_MAX_LINE 512 /* bytes of one line of a policy file */

void smtpdiag_policy_init(smtpdiag_policy *p)
{
	p->hard = 1;
	p->complaint = 1;
	p->hard_days = 0;
	p->complaint_days = 0;
	p->soft_limit = 5;
	p->soft_window_days = 14;
	p->soft_days = 30;
}

static int on_off(const char *v, int *out)
{
	if (!strcasecmp(v, "on") || !strcasecmp(v, "yes") || !strcmp(v, "1") || !strcasecmp(v, "true"))
		*out = 1;
	else if (!strcasecmp(v, "off") || !strcasecmp(v, "no") || !strcmp(v, "0") || !strcasecmp(v, "false"))
		*out = 0;
	else
		return -1;
	return 0;
}

static int number(const char *v, long lo, long hi, int *out)
{
	char *end;
	long n = strtol(v, &end, 10);

	if (end == v || *end || n < lo || n > hi)
		return -1;
	*out = (int)n;
	return 0;
}

int smtpdiag_policy_set(smtpdiag_policy *p, const char *key, const char *value, smtpdiag_error *err)
{
	int rc = -1;

	if (!p || !key || !value)
		return st_err(err, SMTPDIAG_EINVAL, "no policy key or value");
	if (!strcmp(key, "hard"))
		rc = on_off(value, &p->hard);
	else if (!strcmp(key, "complaint"))
		rc = on_off(value, &p->complaint);
	else if (!strcmp(key, "hard_days"))
		rc = number(value, 0, SMTPDIAG_POLICY_MAX_DAYS, &p->hard_days);
	else if (!strcmp(key, "complaint_days"))
		rc = number(value, 0, SMTPDIAG_POLICY_MAX_DAYS, &p->complaint_days);
	else if (!strcmp(key, "soft_limit"))
		rc = number(value, 1, SMTPDIAG_POLICY_MAX_SOFT, &p->soft_limit);
	else if (!strcmp(key, "soft_window_days"))
		rc = number(value, 1, SMTPDIAG_POLICY_MAX_DAYS, &p->soft_window_days);
	else if (!strcmp(key, "soft_days"))
		rc = number(value, 1, SMTPDIAG_POLICY_MAX_DAYS, &p->soft_days);
	else
		return st_err(err, SMTPDIAG_EINVAL, "unknown policy key '%.64s'", key);
	if (rc < 0)
		return st_err(err, SMTPDIAG_EINVAL, "bad value '%.64s' for policy key %s", value, key);
	return 0;
}

static void trim(char **b, char **e)
{
	while (*b < *e && (**b == ' ' || **b == '\t'))
		(*b)++;
	while (*e > *b && ((*e)[-1] == ' ' || (*e)[-1] == '\t' || (*e)[-1] == '\r'))
		(*e)--;
}

static int policy_line(smtpdiag_policy *p, const char *l, size_t n, int no, smtpdiag_error *err)
{
	char buf[ST_POLICY_MAX_LINE], *b = buf, *e, *eq;
	int rc;

	if (n >= sizeof(buf))
		return st_err(err, SMTPDIAG_EPARSE, "line %d: longer than %d bytes", no, ST_POLICY_MAX_LINE - 1);
	memcpy(buf, l, n);
	buf[n] = 0;
	if ((e = strchr(buf, '#')))
		*e = 0;
	e = buf + strlen(buf);
	trim(&b, &e);
	if (b == e)
		return 0;
	*e = 0;
	if (!(eq = strchr(b, '=')))
		return st_err(err, SMTPDIAG_EPARSE, "line %d: not key = value", no);
	{
		char *ke = eq, *v = eq + 1;
		trim(&b, &ke);
		*ke = 0;
		trim(&v, &e);
		if ((rc = smtpdiag_policy_set(p, b, v, err)) < 0)
			return st_err(err, SMTPDIAG_EPARSE, "line %d: %s", no, err ? err->message : "bad line");
	}
	return 0;
}

int smtpdiag_policy_parse(smtpdiag_policy *p, const char *text, size_t len, smtpdiag_error *err)
{
	size_t i = 0;
	int no = 0, rc;

	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
		if ((rc = policy_line(p, text + i, n, ++no, err)) < 0)
			return rc;
		i += n + 1;
	}
	return 0;
}

/* ---- open, close ---- */

int smtpdiag_store_open(const char *url, const smtpdiag_policy *pol, smtpdiag_store **out,
			smtpdiag_error *err)
{
	return smtpdiag_store_open_with(url, pol, NULL, out, err);
}

int smtpdiag_store_open_with(const char *url, const smtpdiag_policy *pol,
			     const smtpdiag_store_options *o, smtpdiag_store **out, smtpdiag_error *err)
{
	smtpdiag_store *s;
	const st_backend *be;
	int rc;

	if (!url || !out)
		return st_err(err, SMTPDIAG_EINVAL, "no store URL");
	*out = NULL;
	if (strlen(url) > SMTPDIAG_STORE_MAX_URL)
		return st_err(err, SMTPDIAG_ELIMIT, "store URL longer than %d bytes", SMTPDIAG_STORE_MAX_URL);
	if (!strncmp(url, "sqlite:", 7))
		be = &st_sqlite;
	else if (!strncmp(url, "postgresql://", 13) || !strncmp(url, "postgres://", 11))
		be = &st_pg;
	else
		return st_err(err, SMTPDIAG_EINVAL, "store URL must start with sqlite: or postgresql://");
	if (!(s = calloc(1, sizeof(*s))))
		return st_err(err, SMTPDIAG_ENOMEM, "out of memory");
	s->be = be;
	if (o)
		s->opt = *o;
	if (pol)
		s->pol = *pol;
	else
		smtpdiag_policy_init(&s->pol);
	if ((rc = be->open(s, url, err)) < 0) {
		free(s);
		return rc;
	}
	*out = s;
	return 0;
}

void smtpdiag_store_close(smtpdiag_store *s)
{
	if (!s)
		return;
	if (s->batch)
		s->be->drop(s);
	st_outbox_clear(s);
	s->be->close(s);
	free(s->scratch);
	free(s);
}

/* ---- adding ---- */

static void batch_lost(smtpdiag_store *s)
{
	s->c.errors += s->batch;
	s->c.pending -= s->batch;
	s->batch = 0;
	st_outbox_clear(s);
}

int smtpdiag_store_flush(smtpdiag_store *s, smtpdiag_error *err)
{
	uint64_t rec = 0;
	int rc;

	if (!s)
		return st_err(err, SMTPDIAG_EINVAL, "no store");
	if (!s->batch)
		return 0;
	if ((rc = s->be->commit(s, &rec, err)) < 0) {
		s->be->drop(s);
		batch_lost(s);
		return rc;
	}
	s->c.recorded += rec;
	s->c.duplicates += s->batch - rec;
	s->c.pending -= s->batch;
	s->batch = 0;
	st_outbox_clear(s);
	return 0;
}

static int add(smtpdiag_store *s, const st_rec *r, int rc, smtpdiag_error *err)
{
	s->c.read++;
	if (rc < 0) {
		s->c.errors++;
		return rc;
	}
	s->ob_fresh = -1;
	if ((rc = s->be->add(s, r, err)) < 0 || (rc = st_outbox_note(s, r, err)) < 0) {
		s->c.errors++;
		s->be->drop(s);
		batch_lost(s);
		return rc;
	}
	s->batch++;
	s->c.pending++;
	return s->batch >= SMTPDIAG_STORE_BATCH ? smtpdiag_store_flush(s, err) : 0;
}

/* The scratch for a line of len bytes (NULL when out of memory or over the
 * limit: jansson reads it then). It grows to the longest line and stays. */
static char *scratch(smtpdiag_store *s, size_t len)
{
	size_t need = ST_JLINE_SCRATCH(len);
	char *p;

	if (len > SMTPDIAG_STORE_MAX_LINE)
		return NULL;
	if (need <= s->scratch_cap)
		return s->scratch;
	if (!(p = realloc(s->scratch, need)))
		return NULL;
	s->scratch = p;
	s->scratch_cap = need;
	return p;
}

int smtpdiag_store_add_json(smtpdiag_store *s, const char *line, size_t len, smtpdiag_error *err)
{
	st_rec r;
	void *hold;
	int rc;

	if (!s || !line)
		return st_err(err, SMTPDIAG_EINVAL, "no store or line");
	rc = st_rec_json(&r, line, len, scratch(s, len), &hold, err);
	rc = add(s, &r, rc, err);
	st_rec_release(hold);
	return rc;
}

int smtpdiag_store_add_fact(smtpdiag_store *s, const smtpdiag_fact *f, smtpdiag_error *err)
{
	st_rec r;

	if (!s || !f)
		return st_err(err, SMTPDIAG_EINVAL, "no store or fact");
	return add(s, &r, st_rec_fact(&r, f, err), err);
}

int smtpdiag_store_add_logrec(smtpdiag_store *s, const smtpdiag_logrec *l, smtpdiag_error *err)
{
	st_rec r;

	if (!s || !l)
		return st_err(err, SMTPDIAG_EINVAL, "no store or record");
	return add(s, &r, st_rec_logrec(&r, l, err), err);
}

void smtpdiag_store_counts_get(const smtpdiag_store *s, smtpdiag_store_counts *c)
{
	if (s)
		*c = s->c;
	else
		memset(c, 0, sizeof(*c));
}
