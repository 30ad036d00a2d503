/* classify.c - load the embedded Vectorscan database; scan texts for reasons. */
#include "verdict/classify.h"
#include "verdict/rules.h"
#include "smtpdiag.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <hs.h>

static const struct {
	const char *name;
	int hard;
	int advice;
	unsigned fixer;
	const char *text;
} reasons[] = {
#define SD_REASON(name, hard, advice, fixer, meaning) { #name, hard, SD_A_##advice, fixer, meaning },
#include "verdict/reasons.def"
#undef SD_REASON
};

static const struct {
	const char *name;
	unsigned fixer;
	const char *words;
} advices[] = {
#define SD_ADVICE(id, name, fix, fixer, words) { name, fixer, words },
#include "verdict/reasons.def"
#undef SD_ADVICE
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static hs_database_t *db;
/* the word families, loaded at their first use; NULL when there are none */
static pthread_once_t fam_once = PTHREAD_ONCE_INIT;
static hs_database_t *fdb;
static int db_err;
static int db_compiled;
static int order_rank[SD_R_COUNT];
static int force_compile;

void sd_classify_force_compile(void)
{
	force_compile = 1;
}

struct sd_classifier {
	hs_scratch_t *scratch; /* for the phrases, and the families once asked */
	int fam;               /* 1: scratch serves the families, -1: it cannot */
};

/* A pattern of rules/families.rules: a word family, weaker than a phrase. */
static int family_rule(unsigned id)
{
	static const char f[] = "families.rules:";

	return id < sd_rules_npatterns && !strncmp(sd_rules_where[id], f, sizeof(f) - 1);
}

/* The phrases' (fam 0) or the word families' (fam 1) database from the
 * embedded pattern list, the ids being the patterns' indexes. */
static int compile_set(int fam, hs_database_t **out)
{
	hs_compile_error_t *ce = NULL;
	const char **sub = calloc(sd_rules_npatterns, sizeof(char *));
	unsigned *flags = calloc(sd_rules_npatterns, sizeof(unsigned));
	unsigned *ids = calloc(sd_rules_npatterns, sizeof(unsigned));
	unsigned n = 0;
	int rc = HS_SUCCESS;

	*out = NULL;
	if (!sub || !flags || !ids) {
		free(sub);
		free(flags);
		free(ids);
		return SMTPDIAG_ENOMEM;
	}
	for (unsigned i = 0; i < sd_rules_npatterns; i++)
		if (family_rule(i) == fam) {
			sub[n] = sd_rules_patterns[i];
			flags[n] = sd_rules_flags;
			ids[n++] = i;
		}
	if (n)
		rc = hs_compile_multi(sub, flags, ids, n, HS_MODE_BLOCK, NULL, out, &ce);
	if (rc != HS_SUCCESS && ce)
		hs_free_compile_error(ce);
	free(sub);
	free(flags);
	free(ids);
	return rc == HS_SUCCESS ? 0 : SMTPDIAG_EINVAL;
}

static int compile_fallback(void)
{
	return compile_set(0, &db);
}

static void load_families(void)
{
	if (!sd_fam_dblen)
		return;
	if (db_compiled || hs_deserialize_database((const char *)sd_fam_db, sd_fam_dblen, &fdb) != HS_SUCCESS) {
		fdb = NULL;
		compile_set(1, &fdb);
	}
}

static void load(void)
{
	int i;

	for (i = 0; i < SD_R_COUNT; i++)
		order_rank[i] = SD_R_COUNT + i;
	for (i = 0; i < sd_rules_norder; i++)
		order_rank[sd_rules_order[i]] = i;
	if (!force_compile &&
	    hs_deserialize_database((const char *)sd_rules_db, sd_rules_dblen, &db) == HS_SUCCESS)
		return;
	db = NULL;
	db_compiled = 1;
	db_err = compile_fallback();
}

int sd_classify_init(int *compiled)
{
	pthread_once(&once, load);
	if (compiled)
		*compiled = db_compiled;
	return db ? 0 : (db_err ? db_err : SMTPDIAG_EINVAL);
}

sd_classifier *sd_classifier_new(void)
{
	sd_classifier *c;

	if (sd_classify_init(NULL) < 0)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	if (hs_alloc_scratch(db, &c->scratch) != HS_SUCCESS) {
		free(c);
		return NULL;
	}
	return c;
}

void sd_classifier_free(sd_classifier *c)
{
	if (!c)
		return;
	hs_free_scratch(c->scratch);
	free(c);
}

static _Thread_local sd_classifier *thread_cls;
static pthread_key_t cls_key; /* its destructor frees a thread's classifier */
static pthread_once_t cls_key_once = PTHREAD_ONCE_INIT;
static int cls_key_ok;

static void cls_thread_end(void *c)
{
	sd_classifier_free(c);
}

static void cls_key_init(void)
{
	cls_key_ok = pthread_key_create(&cls_key, cls_thread_end) == 0;
}

/* A library unloaded before its threads end must not leave them its destructor. */
__attribute__((destructor)) static void cls_key_drop(void)
{
	if (cls_key_ok)
		pthread_key_delete(cls_key);
	cls_key_ok = 0;
}

sd_classifier *sd_classifier_thread(void)
{
	if (thread_cls)
		return thread_cls;
	pthread_once(&cls_key_once, cls_key_init);
	if (!cls_key_ok || !(thread_cls = sd_classifier_new()))
		return NULL;
	if (pthread_setspecific(cls_key, thread_cls) != 0) {
		sd_classifier_free(thread_cls);
		thread_cls = NULL;
	}
	return thread_cls;
}

static int on_match(unsigned id, unsigned long long from, unsigned long long to,
		    unsigned flags, void *ctx)
{
	sd_reasonset *s = ctx;
	(void)from;
	(void)to;
	(void)flags;
	*s |= (sd_reasonset)1 << sd_rules_reason[id];
	return 0;
}

/* Pattern id matched: its reason into set, and the first pattern of each reason. */
static void note_first(unsigned id, sd_reasonset *set, unsigned short *first)
{
	sd_reasonset bit = (sd_reasonset)1 << sd_rules_reason[id];

	if (!(*set & bit) || id < first[sd_rules_reason[id]])
		first[sd_rules_reason[id]] = (unsigned short)id;
	*set |= bit;
}

static int on_match_first(unsigned id, unsigned long long from, unsigned long long to,
			  unsigned flags, void *ctx)
{
	sd_matches *m = ctx;
	(void)from;
	(void)to;
	(void)flags;
	note_first(id, &m->set, m->first);
	return 0;
}

sd_reasonset sd_classify_scan(sd_classifier *c, const char *p, size_t n)
{
	sd_reasonset s = 0;

	if (!c || !p || !n)
		return 0;
	if (n > 0xffffffffu)
		n = 0xffffffffu;
	hs_scan(db, p, (unsigned)n, 0, c->scratch, on_match, &s);
	return s;
}

void sd_classify_matches(sd_classifier *c, const char *p, size_t n, sd_matches *m)
{
	m->set = m->fam = 0;
	if (!c || !p || !n)
		return;
	if (n > 0xffffffffu)
		n = 0xffffffffu;
	hs_scan(db, p, (unsigned)n, 0, c->scratch, on_match_first, m);
}

static int on_family(unsigned id, unsigned long long from, unsigned long long to, unsigned flags, void *ctx)
{
	sd_matches *m = ctx;
	(void)from;
	(void)to;
	(void)flags;
	note_first(id, &m->fam, m->ffirst);
	return 0;
}

void sd_classify_families(sd_classifier *c, const char *p, size_t n, sd_matches *m)
{
	m->fam = 0;
	if (!c || !p || !n)
		return;
	if (!c->fam) { /* the first time this classifier is asked */
		pthread_once(&fam_once, load_families);
		c->fam = fdb && hs_alloc_scratch(fdb, &c->scratch) == HS_SUCCESS ? 1 : -1;
	}
	if (c->fam < 0)
		return;
	if (n > 0xffffffffu)
		n = 0xffffffffu;
	hs_scan(fdb, p, (unsigned)n, 0, c->scratch, on_family, m);
}

const char *sd_rule_where(unsigned id)
{
	return id < sd_rules_npatterns ? sd_rules_where[id] : "";
}

int sd_reason_pick(sd_reasonset s)
{
	int best = -1;

	for (int i = 0; i < SD_R_COUNT; i++)
		if ((s >> i & 1) && (best < 0 || order_rank[i] < order_rank[best]))
			best = i;
	return best;
}

void sd_status_readings(const char *status, int *plain, int *registry)
{
	*plain = *registry = -1;
	sd_classify_init(NULL);
	for (int i = 0; i < sd_rules_nstatus; i++) {
		const sd_status_reason *row = &sd_rules_status[i];

		if (row->status[0] != status[0] || strcmp(row->status, status) != 0)
			continue;
		if (row->registry && *registry < 0)
			*registry = row->reason;
		if (!row->registry && *plain < 0)
			*plain = row->reason;
	}
}

int sd_reason_from_status(const char *status, int registry)
{
	int plain, reg;

	sd_status_readings(status, &plain, &reg);
	return registry && reg >= 0 ? reg : plain; /* the registry's reading outranks the plain row */
}

const char *sd_reason_name(int r)
{
	return r >= 0 && r < SD_R_COUNT ? reasons[r].name : "";
}

int sd_reason_index(const char *name)
{
	for (int i = 0; i < SD_R_COUNT; i++)
		if (!strcmp(reasons[i].name, name))
			return i;
	return -1;
}

int sd_reason_hard(int r)
{
	return r >= 0 && r < SD_R_COUNT ? reasons[r].hard : 0;
}

const char *sd_reason_advice(int r)
{
	return sd_advice_name(r >= 0 && r < SD_R_COUNT ? reasons[r].advice : SD_A_none);
}

unsigned sd_reason_fixer(int r)
{
	return r >= 0 && r < SD_R_COUNT ? reasons[r].fixer : 0;
}

const char *sd_reason_text(int r)
{
	return r >= 0 && r < SD_R_COUNT ? reasons[r].text : "";
}

const char *sd_advice_name(int a)
{
	return a >= 0 && a < SD_A_COUNT ? advices[a].name : "";
}

int sd_advice_index(const char *p, size_t n)
{
	for (int i = 0; p && i < SD_A_COUNT; i++)
		if (strlen(advices[i].name) == n && !memcmp(advices[i].name, p, n))
			return i;
	return -1;
}

unsigned sd_advice_fixer(int a)
{
	return a >= 0 && a < SD_A_COUNT ? advices[a].fixer : 0;
}

const char *sd_advice_words(int a)
{
	return a >= 0 && a < SD_A_COUNT ? advices[a].words : "";
}

const char *smtpdiag_advice_name(size_t i)
{
	return i < SD_A_COUNT ? advices[i].name : NULL;
}

const char *smtpdiag_advice_words(const char *advice)
{
	int a = advice ? sd_advice_index(advice, strlen(advice)) : -1;
	return a >= 0 ? advices[a].words : NULL;
}

size_t smtpdiag_reason_count(void)
{
	return SD_R_COUNT;
}

const char *smtpdiag_reason_name(size_t i)
{
	return i < SD_R_COUNT ? reasons[i].name : NULL;
}

const char *smtpdiag_reason_meaning(const char *reason)
{
	int r = reason ? sd_reason_index(reason) : -1;
	return r >= 0 ? reasons[r].text : NULL;
}

int smtpdiag_init(smtpdiag_error *err)
{
	int compiled = 0;
	int rc = sd_classify_init(&compiled);

	if (rc < 0) {
		if (err) {
			err->code = rc;
			snprintf(err->message, sizeof(err->message),
				 "the reason rule database could neither be loaded nor compiled");
		}
		return rc;
	}
	return compiled;
}
