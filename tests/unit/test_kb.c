/* test_kb.c - the knowledge base covers every code of the reference tables. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "kb/kb.h"
#include "smtpdiag.h"
#include "kb/codes.h"

static void test_reply_codes_covered(void **state)
{
	char key[8];
	size_t missing = 0;

	(void)state;
	for (size_t i = 0; i < sd_kb_nreplies; i++) {
		snprintf(key, sizeof(key), "%d", sd_kb_replies[i].code);
		if (!sd_kb_find_entry(key)) {
			print_message("no entry for reply code %s\n", key);
			missing++;
		}
	}
	print_message("reply-codes.tsv: %zu of %zu codes have an entry\n", sd_kb_nreplies - missing, sd_kb_nreplies);
	assert_int_equal(missing, 0);
}

static void test_statuses_covered(void **state)
{
	size_t missing = 0;

	(void)state;
	for (size_t i = 0; i < sd_kb_nstatuses; i++)
		if (!sd_kb_find_entry(sd_kb_statuses[i].code)) {
			print_message("no entry for %s\n", sd_kb_statuses[i].code);
			missing++;
		}
	print_message("enhanced-status-codes.tsv: %zu of %zu codes have an entry\n", sd_kb_nstatuses - missing, sd_kb_nstatuses);
	assert_int_equal(missing, 0);
}

static void test_nonstandard_covered(void **state)
{
	char key[8];
	size_t missing = 0;

	(void)state;
	for (size_t i = 0; i < sd_kb_nnonstds; i++) {
		snprintf(key, sizeof(key), "%d", sd_kb_nonstds[i].code);
		if (!sd_kb_find_entry(key)) {
			print_message("no entry for non-standard %s\n", key);
			missing++;
		}
	}
	print_message("nonstandard-reply-codes.tsv: %zu of %zu codes have an entry\n", sd_kb_nnonstds - missing, sd_kb_nnonstds);
	assert_int_equal(missing, 0);
}

/* Every vendor row is explained with meaning, class, retry, who acts, a fix and
 * the source when its text is given to explain. */
static void test_vendor_rows_explained(void **state)
{
	size_t ok = 0;

	(void)state;
	for (size_t i = 0; i < sd_kb_nvendors; i++) {
		const sd_kb_vendor *v = &sd_kb_vendors[i];
		char q[600];
		smtpdiag_explanation *e;
		smtpdiag_error err;
		if (v->replycode)
			snprintf(q, sizeof(q), "%d %s %s", v->replycode, v->status, v->snippet);
		else
			snprintf(q, sizeof(q), "%s %s", v->status, v->snippet);
		if (!v->replycode && (!v->status[0] || !strcmp(v->status, "n/a")))
			continue; /* a row with no code: nothing to explain by code */
		if (smtpdiag_explain(q, strlen(q), SMTPDIAG_EXPLAIN_TEXT, &e, &err) != 0) {
			print_message("vendor row %zu (%s): %s\n", i, q, err.message);
			continue;
		}
		if (e->meaning[0] && e->fixer[0] && e->fixes[0] && e->klass != SMTPDIAG_CLASS_NONE)
			ok++;
		smtpdiag_explanation_free(e);
	}
	print_message("vendor-enhanced-codes.tsv: %zu of %zu rows explained\n", ok, sd_kb_nvendors);
	assert_true(ok * 100 >= sd_kb_nvendors * 95);
}

/* A text made from a row's snippet, its placeholders filled in: "550 5.7.508
 * Access denied, 192.0.2.1 has exceeded ...". Returns 0 when the row gives no
 * status to put before it. */
static int vendor_text(const sd_kb_vendor *v, char *q, size_t cap, sd_status *st)
{
	size_t n = strcspn(v->status, " -"), len;

	memset(st, 0, sizeof(*st));
	if (v->status[0] && sd_status_parse(v->status, n, st) != n)
		return 0;
	len = (size_t)snprintf(q, cap, "%s", "filler ");
	for (int k = 0; v->pieces[k] && len < cap; k++)
		len += (size_t)snprintf(q + len, cap - len, "%s%s", k ? " 192.0.2.1 " : "", v->pieces[k]);
	return 1;
}

/* Every vendor row is the best match for a text made from its own snippet:
 * placeholders ([$SenderIPAddress], <ip>, {domain-name}) never stop a match. */
static void test_vendor_rows_match_own_text(void **state)
{
	size_t bad = 0;

	(void)state;
	for (size_t i = 0; i < sd_kb_nvendors; i++) {
		const sd_kb_vendor *v = &sd_kb_vendors[i], *m;
		char q[800];
		sd_status st;
		assert_true(vendor_text(v, q, sizeof(q), &st));
		m = sd_vendor_match(v->replycode, st.text[0] ? &st : NULL, q, strlen(q));
		/* Exchange Online and Exchange Server send some texts alike: a text cannot tell them apart */
		if (m && m != v && !strcmp(m->snippet, v->snippet) && !strcmp(m->status, v->status))
			m = v;
		if (m != v) {
			print_message("row %zu (%d %s \"%s\") matched %s\n", i, v->replycode, v->status, v->snippet,
				      m ? m->snippet : "nothing");
			bad++;
		}
	}
	print_message("vendor-enhanced-codes.tsv: %zu of %zu rows match their own text\n", sd_kb_nvendors - bad,
		      sd_kb_nvendors);
	assert_int_equal(bad, 0);
}

/* A row's text as a folding MTA or a shouting provider sends it: every blank
 * (how) 0: kept, 1: doubled, 2: a line fold with a continuation code; 3: kept,
 * the text upper-cased. */
static void vendor_variant(const char *q, char *out, size_t cap, int how)
{
	size_t o = 0;

	for (; *q && o + 16 < cap; q++) {
		if (*q == ' ' && how == 1) {
			memcpy(out + o, "  ", 2);
			o += 2;
		} else if (*q == ' ' && how == 2) {
			static const char fold[] = "\r\n 550-5.7.1 ";
			memcpy(out + o, fold, sizeof(fold) - 1);
			o += sizeof(fold) - 1;
		} else {
			out[o++] = how == 3 && *q >= 'a' && *q <= 'z' ? (char)(*q - 32) : *q;
		}
	}
	out[o] = '\0';
}

/* The word database and the index by detail only pass rows over: with and
 * without them, every text made from a row, in every variant, under its own
 * status, its class's X.0.0 and none, matches the same row. */
static void test_vendor_words_agree(void **state)
{
	static const char *const cls0[] = { "", "", "2.0.0", "", "4.0.0", "5.0.0" };
	size_t checked = 0;

	(void)state;
	for (size_t i = 0; i < sd_kb_nvendors; i++) {
		const sd_kb_vendor *v = &sd_kb_vendors[i], *on, *off;
		char q[800], t[4000];
		sd_status st, gen;
		assert_true(vendor_text(v, q, sizeof(q), &st));
		memset(&gen, 0, sizeof(gen));
		if (st.text[0] && st.cls > 0 && st.cls < 6 && cls0[st.cls][0])
			sd_status_parse(cls0[st.cls], 5, &gen);
		for (int how = 0; how < 4; how++) {
			const sd_status *sts[3] = { st.text[0] ? &st : NULL, gen.text[0] ? &gen : NULL, NULL };
			vendor_variant(q, t, sizeof(t), how);
			for (int k = 0; k < 3; k++) {
				sd_vendor_words_off(0);
				on = sd_vendor_match(v->replycode, sts[k], t, strlen(t));
				sd_vendor_words_off(1);
				off = sd_vendor_match(v->replycode, sts[k], t, strlen(t));
				sd_vendor_words_off(0);
				if (on != off)
					print_message("row %zu variant %d status %d: \"%s\" matched %s, in full %s\n", i, how, k,
						      t, on ? on->snippet : "nothing", off ? off->snippet : "nothing");
				assert_ptr_equal(on, off);
				checked += off != NULL;
			}
		}
	}
	print_message("vendor words: %zu matches alike with and without the database\n", checked);
	assert_true(checked >= sd_kb_nvendors * 4);
}

static void test_entries_well_formed(void **state)
{
	(void)state;
	for (size_t i = 0; i < sd_kb_nentries; i++) {
		const sd_kb_entry *e = &sd_kb_entries[i];
		assert_non_null(e->causes[0]);
		assert_non_null(e->fixes[0]);
		assert_non_null(e->faq_q[0]);
		assert_non_null(e->refs[0]);
		if (i)
			assert_true(strcmp(sd_kb_entries[i - 1].key, e->key) < 0); /* sorted for bsearch */
	}
	assert_true(smtpdiag_code_count() == sd_kb_nentries);
	for (size_t i = 0; i < smtpdiag_code_count(); i++) {
		assert_non_null(smtpdiag_code_at(i)->title);
		assert_non_null(smtpdiag_code_at(i)->aka);
	}
	assert_null(smtpdiag_code_at(smtpdiag_code_count()));
	/* the other words people use for a code (aka) reach the index */
	for (size_t i = 0; i < smtpdiag_code_count(); i++)
		if (!strcmp(smtpdiag_code_at(i)->code, "X.1.1"))
			assert_string_equal(smtpdiag_code_at(i)->aka[0], "user unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reply_codes_covered),
		cmocka_unit_test(test_statuses_covered),
		cmocka_unit_test(test_nonstandard_covered),
		cmocka_unit_test(test_vendor_rows_explained),
		cmocka_unit_test(test_vendor_rows_match_own_text),
		cmocka_unit_test(test_vendor_words_agree),
		cmocka_unit_test(test_entries_well_formed),
	};
	return cmocka_run_group_tests_name("kb", tests, NULL, NULL);
}
