/* kb.c - look-ups in the compiled knowledge base. */
#include "kb/kb.h"
#include "core/util.h"

#include <stdlib.h>

const sd_kb_entry *sd_kb_find_entry(const char *key)
{
	size_t lo = 0, hi = sd_kb_nentries;

	/* entries are sorted by key (strcmp) by kbgen */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(sd_kb_entries[mid].key, key);
		if (c == 0)
			return &sd_kb_entries[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const sd_kb_reply *sd_kb_find_reply(int code)
{
	for (size_t i = 0; i < sd_kb_nreplies; i++)
		if (sd_kb_replies[i].code == code)
			return &sd_kb_replies[i];
	return NULL;
}

const sd_kb_status *sd_kb_find_status(int subject, int detail)
{
	for (size_t i = 0; i < sd_kb_nstatuses; i++)
		if (sd_kb_statuses[i].subject == subject && sd_kb_statuses[i].detail == detail)
			return &sd_kb_statuses[i];
	return NULL;
}

const sd_kb_nonstd *sd_kb_find_nonstd(int code)
{
	for (size_t i = 0; i < sd_kb_nnonstds; i++)
		if (sd_kb_nonstds[i].code == code)
			return &sd_kb_nonstds[i];
	return NULL;
}

/* ---- the public index: one row per knowledge-base entry ---- */

#include "smtpdiag.h"
#include "smtp/reply.h"

#include <pthread.h>

static smtpdiag_code_info *index_rows;
static size_t index_n;
static pthread_once_t index_once = PTHREAD_ONCE_INIT;

static void index_row(const sd_kb_entry *e, smtpdiag_code_info *r)
{
	const char *k = e->key;
	sd_status st;

	r->code = k;
	r->title = e->title;
	r->allowed = "";
	r->aka = e->aka;
	if (k[0] == 'X') {
		int sub = 0, det = 0;
		size_t i = 2;
		unsigned long v;
		i += sd_parse_uint(k + i, strlen(k + i), 3, &v);
		sub = (int)v;
		i++;
		sd_parse_uint(k + i, strlen(k + i), 3, &v);
		det = (int)v;
		const sd_kb_status *ks = sd_kb_find_status(sub, det);
		r->klass = SMTPDIAG_CLASS_NONE;
		r->standard = ks != NULL;
		r->allowed = ks ? ks->allowed_text : "";
	} else if (sd_status_parse(k, strlen(k), &st) == strlen(k)) {
		const sd_kb_status *ks = sd_kb_find_status(st.subject, st.detail);
		r->klass = st.cls == 2 ? SMTPDIAG_CLASS_SUCCESS : st.cls == 4 ? SMTPDIAG_CLASS_TRANSIENT : SMTPDIAG_CLASS_PERMANENT;
		r->standard = ks && (ks->allowed & (1u << st.cls));
		r->allowed = ks ? ks->allowed_text : "";
	} else {
		int c = (k[0] - '0') * 100 + (k[1] - '0') * 10 + (k[2] - '0');
		const sd_kb_reply *kr = sd_kb_find_reply(c);
		r->klass = (smtpdiag_class)(k[0] == '2' ? SMTPDIAG_CLASS_SUCCESS : k[0] == '3' ? SMTPDIAG_CLASS_INTERMEDIATE
					    : k[0] == '4' ? SMTPDIAG_CLASS_TRANSIENT : SMTPDIAG_CLASS_PERMANENT);
		r->standard = kr && kr->defined && !strchr(k, ' ');
	}
}

static void build_index(void)
{
	index_rows = calloc(sd_kb_nentries ? sd_kb_nentries : 1, sizeof(*index_rows));
	if (!index_rows)
		return;
	for (size_t i = 0; i < sd_kb_nentries; i++)
		index_row(&sd_kb_entries[i], &index_rows[i]);
	index_n = sd_kb_nentries;
}

size_t smtpdiag_code_count(void)
{
	pthread_once(&index_once, build_index);
	return index_n;
}

const smtpdiag_code_info *smtpdiag_code_at(size_t i)
{
	pthread_once(&index_once, build_index);
	return i < index_n ? &index_rows[i] : NULL;
}
