/* conformance.c - score `decode` against the shared corpus gold file.
 *
 * usage: conformance [-v] [-x EXTRA_DIR] [CORPUS_DIR]
 *        (default ../shared/corpus/set-of-emails and its sibling extra/)
 *
 * Decodes every email of CORPUS_DIR/maildir/bsd (mbox files message by message)
 * with the delivered, vacation and delay-warning verdicts on (the gold holds
 * delay warnings: the reference decoder reports them by default), and compares with gold.tsv by the
 * corpus README's rules: rows match by (file, recipient) ignoring case, or by
 * (file, index) where the gold recipient is empty; reason, replycode and
 * hardbounce must be equal; status must be equal except where the gold status
 * is a pseudo code X.0.9NN (the class must agree, and our code must occur in
 * the bounce or be a registered code). maildir/not must give no verdict and no
 * error; maildir/dos and maildir/mac copies must give the verdicts of bsd.
 *
 * Exit 0 when reason >= 97%, status, replycode and hardbounce >= 99%, no gold
 * row is missing (but those listed in tests/conformance-known.tsv, which still
 * count against the percentages), no verdict carries a status that is neither in its bounce nor
 * registered, and nothing came from not/ or differed in dos/ and mac/;
 * 1 otherwise; 77 (after "SKIP: ...") when the corpus is not there.
 * Then the extra/ collections are scored too (conformance_extra.c); their
 * figures are printed for comparison and do not decide the exit status.
 *
 * Build without make (from the repository root, after `make`):
 *   cc -std=c11 -D_GNU_SOURCE -O2 -Iinclude -Isrc/lib tests/conformance.c \
 *      tests/conformance_extra.c build/libsmtpdiag.a -lhs -lz -lstdc++ -lm -o build/tests/conformance
 */
#include "conformance.h"
#include "mime/mbox.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define MAX_GOLD 8192
#define MAX_REG 512

typedef struct gold {
	char file[FIELD];
	int index;
	row r;
	int matched;
	char sis_reason[32]; /* what the sisimai mode said (scored first) */
	int sis_hard, sis_seen;
} gold;

/* The modes scored: the reference decoder's readings first (the floors), then the
 * one verdict, whose every difference from the gold is listed by rule. */
static int default_mode;

/* The rules of docs/reasons.md ("Modes") by which the default reads a row
 * differently; "defect" where the sisimai mode misses the gold too. */
enum { RULE_DELAY, RULE_RCPT, RULE_STORAGE, RULE_WORDS, RULE_PROVIDER, RULE_REGISTRY, RULE_DEFECT, RULE_N };
static const char *const rule_name[RULE_N] = {
	"delay-is-attempt", "rcpt-by-default", "storage-is-system", "words-when-silent", "provider-codes",
	"registry-codes",
	"defect (sisimai mode too)",
};
static const char *const rule_why[RULE_N] = {
	"a delay notice is read as its last attempt: the MTA still tries (RFC 3464 2.3.3)",
	"a failure naming no command answered RCPT TO, as most replies do",
	"X.3.1 is the mail system's storage, not a quota (RFC 3463 3.4)",
	"a status naming only its subject is read by the reply's words (RFC 3463 3.1)",
	"a mailbox provider's own code decides over the words beside it (its error-code page)",
	"a status or reply code alone reads as the IANA registry and its RFCs define it",
	"the reference decoder's own reading is missed as well",
};
static int rule_rows[RULE_N];

static int rule_of(const gold *g, const row *r)
{
	if (g->sis_seen && (strcmp(g->sis_reason, g->r.reason) || g->sis_hard != g->r.hardbounce))
		return RULE_DEFECT;
	if (!strcmp(r->action, "delayed"))
		return RULE_DELAY;
	if (r->status[0] && !strcmp(r->status + 1, ".3.1") && !strcmp(g->r.reason, "mailboxfull"))
		return RULE_STORAGE;
	if (r->words)
		return RULE_WORDS;
	if (r->provider)
		return RULE_PROVIDER;
	if (r->registry)
		return RULE_REGISTRY;
	if (!r->command[0])
		return RULE_RCPT;
	return RULE_DEFECT;
}

int verbose;
static gold golds[MAX_GOLD];
static int ngold;
static char *registered[MAX_REG];
static int nreg;

/* ---- files ---- */

char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	*len = 0;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) == (size_t)n) {
			buf[n] = 0;
			*len = (size_t)n;
		} else {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of the regular files in dir; returns the count. */
int list_dir(const char *dir, char **names, int max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)) != NULL && n < max) {
		char path[4096];
		struct stat st;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (e->d_name[0] == '.' || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof(char *), cmpstr);
	return n;
}

void copy(char *dst, const char *src, size_t cap)
{
	snprintf(dst, cap, "%s", src ? src : "");
}

/* ---- gold.tsv ---- */

int split_tabs(char *line, char **f, int max)
{
	int n = 0;

	f[n++] = line;
	for (char *p = line; *p && n < max; p++)
		if (*p == '\t') {
			*p = 0;
			f[n++] = p + 1;
		}
	return n;
}

static int load_gold(const char *path)
{
	size_t len;
	char *buf = slurp(path, &len), *line, *save = NULL;

	if (!buf)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[8];
		gold *g;
		line[strcspn(line, "\r")] = 0;
		if (!strncmp(line, "file\t", 5) || split_tabs(line, f, 8) < 7 || ngold >= MAX_GOLD)
			continue;
		g = &golds[ngold++];
		copy(g->file, f[0], sizeof(g->file));
		g->index = atoi(f[1]);
		copy(g->r.recipient, f[2], sizeof(g->r.recipient));
		copy(g->r.status, f[3], sizeof(g->r.status));
		copy(g->r.replycode, f[4], sizeof(g->r.replycode));
		copy(g->r.reason, f[5], sizeof(g->r.reason));
		g->r.hardbounce = !strcmp(f[6], "true");
		copy(g->r.feedbacktype, f[7] ? f[7] : "", sizeof(g->r.feedbacktype));
	}
	free(buf);
	return 0;
}

/* Registered codes ("X.1.1") from the reference table. */
static void load_registered(const char *corpus)
{
	const char *tries[] = { "%s/../../reference/enhanced-status-codes.tsv",
				"%s/../reference/enhanced-status-codes.tsv",
				"kb/reference/enhanced-status-codes.tsv" };
	char path[4096], *buf = NULL, *line, *save = NULL;
	size_t len;

	for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]) && !buf; i++) {
		snprintf(path, sizeof(path), tries[i], corpus);
		buf = slurp(path, &len);
	}
	if (!buf) {
		fprintf(stderr, "conformance: note: enhanced-status-codes.tsv not found; "
				"pseudo-status rows check the class only\n");
		return;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t k = strcspn(line, "\t");
		if (k && k < 12 && line[0] == 'X' && nreg < MAX_REG)
			registered[nreg++] = strndup(line, k);
	}
	free(buf);
}

static int is_registered(const char *st)
{
	if (!nreg)
		return 1;
	for (int i = 0; i < nreg; i++)
		if (!strcmp(registered[i] + 1, st + 1))
			return 1;
	return 0;
}

/* ---- decoding ---- */

static void take(smtpdiag_decoder *d, int n, result *res)
{
	for (int i = 0; i < n && res->n < MAX_ROWS; i++) {
		const smtpdiag_fact *f = smtpdiag_decoder_fact(d, (size_t)i);
		row *r = &res->rows[res->n++];
		copy(r->recipient, f->recipient, sizeof(r->recipient));
		copy(r->status, f->deliverystatus, sizeof(r->status));
		copy(r->replycode, f->replycode, sizeof(r->replycode));
		copy(r->reason, f->reason, sizeof(r->reason));
		copy(r->feedbacktype, f->feedbacktype, sizeof(r->feedbacktype));
		copy(r->by, f->decodedby, sizeof(r->by));
		copy(r->action, f->action, sizeof(r->action));
		copy(r->command, f->command, sizeof(r->command));
		r->hardbounce = f->hardbounce;
		r->words = r->provider = r->registry = 0;
		for (int k = 0; f->evidence && f->evidence[k]; k++) {
			r->words |= !strncmp(f->evidence[k], "family:", 7);
			r->provider |= k == 0 && !strncmp(f->evidence[k], "rhost:", 6); /* the remote host's vocabulary decided */
			r->registry |= strstr(f->evidence[k], "(registry") != NULL;
		}
	}
}

static void decode_buf(smtpdiag_decoder *d, const char *buf, size_t len, const char *origin, result *res)
{
	smtpdiag_error err;
	int n;

	n = smtpdiag_decode(d, buf, len, origin, &err);
	if (n < 0) {
		res->err++;
		if (verbose)
			printf("  error %s: %s\n", origin, err.message);
		return;
	}
	take(d, n, res);
}

void decode_file(smtpdiag_decoder *d, const char *path, const char *buf, size_t len, result *res)
{
	sd_mbox_iter it;
	sd_str msg;

	memset(res, 0, sizeof(*res));
	if (!sd_mbox_detect(buf, len)) {
		decode_buf(d, buf, len, path, res);
		return;
	}
	sd_mbox_init(&it, buf, len);
	while (sd_mbox_next(&it, &msg))
		decode_buf(d, msg.p, msg.n, path, res);
}

/* ---- scoring ---- */

typedef struct score {
	int rows, missing, known, extra, invented;
	int ok_reason, ok_status, ok_reply, ok_hard;
} score;

static int pseudo(const char *st)
{
	return strlen(st) == 7 && st[1] == '.' && st[2] == '0' && st[3] == '.' && st[4] == '9';
}

static int status_ok(const char *want, const char *got, const char *raw)
{
	if (!pseudo(want))
		return !strcmp(want, got);
	if (!got[0] || got[0] != want[0] || pseudo(got))
		return 0;
	return strstr(raw, got) != NULL || is_registered(got);
}

static const char *cur_by = "";

static void report(const char *file, const char *field, const char *want, const char *got)
{
	if (verbose)
		printf("  %s\t%s\twant=%s\tgot=%s\t[%s]\n", file, field, want, got, cur_by);
}

static row *match(const gold *g, result *res)
{
	if (g->r.recipient[0]) {
		for (int i = 0; i < res->n; i++)
			if (!res->used[i] && !strcasecmp(res->rows[i].recipient, g->r.recipient)) {
				res->used[i] = 1;
				return &res->rows[i];
			}
		return NULL;
	}
	if (g->index >= 1 && g->index <= res->n && !res->used[g->index - 1]) {
		res->used[g->index - 1] = 1;
		return &res->rows[g->index - 1];
	}
	return NULL;
}

static void compare(const gold *g, const row *r, const char *raw, score *s)
{
	char w[16], h[16];

	cur_by = r->by;
	if (!default_mode) {
		gold *m = (gold *)g;
		copy(m->sis_reason, r->reason, sizeof(m->sis_reason));
		m->sis_hard = r->hardbounce;
		m->sis_seen = 1;
	} else if (strcmp(g->r.reason, r->reason) || g->r.hardbounce != r->hardbounce) {
		int k = rule_of(g, r);
		rule_rows[k]++;
		printf("default differs: %s #%d %s: gold %s%s, default %s%s, sisimai %s: %s\n", g->file, g->index,
		       g->r.recipient, g->r.reason, g->r.hardbounce ? " hard" : "", r->reason,
		       r->hardbounce ? " hard" : "", g->sis_reason, rule_name[k]);
	}
	s->ok_reason += !strcmp(g->r.reason, r->reason);
	if (strcmp(g->r.reason, r->reason))
		report(g->file, "reason", g->r.reason, r->reason);
	s->ok_reply += !strcmp(g->r.replycode, r->replycode);
	if (strcmp(g->r.replycode, r->replycode))
		report(g->file, "replycode", g->r.replycode, r->replycode);
	s->ok_hard += g->r.hardbounce == r->hardbounce;
	snprintf(w, sizeof(w), "%s", g->r.hardbounce ? "true" : "false");
	snprintf(h, sizeof(h), "%s", r->hardbounce ? "true" : "false");
	if (g->r.hardbounce != r->hardbounce)
		report(g->file, "hardbounce", w, h);
	s->ok_status += status_ok(g->r.status, r->status, raw);
	if (!status_ok(g->r.status, r->status, raw))
		report(g->file, "status", g->r.status, r->status);
}

/* tests/conformance-known.tsv: gold rows that disagree with their email. */
#define MAX_KNOWN 64
static char known_file[MAX_KNOWN][FIELD];
static int known_index[MAX_KNOWN], nknown;

static void load_known(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1024];

	if (!f)
		return;
	while (nknown < MAX_KNOWN && fgets(line, sizeof(line), f)) {
		char *tab = strchr(line, '\t');
		if (line[0] == '#' || !tab)
			continue;
		*tab = '\0';
		snprintf(known_file[nknown], FIELD, "%.*s", FIELD - 1, line);
		known_index[nknown++] = (int)strtol(tab + 1, NULL, 10);
	}
	fclose(f);
}

static int is_known(const char *name, int index)
{
	for (int i = 0; i < nknown; i++)
		if (known_index[i] == index && !strcmp(known_file[i], name))
			return 1;
	return 0;
}

static void score_file(const char *name, const char *raw, result *res, score *s)
{
	for (int i = 0; i < ngold; i++) {
		gold *g = &golds[i];
		row *r;
		if (strcmp(g->file, name))
			continue;
		s->rows++;
		r = match(g, res);
		if (!r && is_known(name, g->index)) {
			s->known++;
			printf("known: %s #%d %s (%s): see tests/conformance-known.tsv\n", name, g->index,
			       g->r.recipient, g->r.reason);
			continue;
		}
		if (!r) {
			s->missing++;
			printf("missing: %s #%d %s (%s)\n", name, g->index, g->r.recipient, g->r.reason);
			continue;
		}
		compare(g, r, raw, s);
	}
	for (int i = 0; i < res->n; i++) {
		const char *st = res->rows[i].status;
		if (st[0] && !strstr(raw, st) && !is_registered(st)) {
			s->invented++;
			printf("invented status: %s %s %s\n", name, res->rows[i].recipient, st);
		}
	}
	for (int i = 0; i < res->n; i++)
		if (!res->used[i]) {
			s->extra++;
			if (verbose)
				printf("  extra: %s %s (%s)\n", name, res->rows[i].recipient, res->rows[i].reason);
		}
}

/* ---- the three checks ---- */

static int run_bsd(smtpdiag_decoder *d, const char *corpus, score *s)
{
	char dir[4096], path[4200], *names[MAX_FILES];
	int n;

	snprintf(dir, sizeof(dir), "%s/maildir/bsd", corpus);
	n = list_dir(dir, names, MAX_FILES);
	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		size_t len;
		char *buf;
		static result res;
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		buf = slurp(path, &len);
		if (buf) {
			decode_file(d, path, buf, len, &res);
			score_file(names[i], buf, &res, s);
		}
		free(buf);
		free(names[i]);
	}
	return n;
}

static int run_not(smtpdiag_decoder *d, const char *corpus)
{
	char dir[4096], path[4200], *names[MAX_FILES];
	int n, bad = 0;

	snprintf(dir, sizeof(dir), "%s/maildir/not", corpus);
	n = list_dir(dir, names, MAX_FILES);
	for (int i = 0; i < n; i++) {
		size_t len;
		char *buf;
		static result res;
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		buf = slurp(path, &len);
		if (buf) {
			decode_file(d, path, buf, len, &res);
			if (res.n || res.err) {
				bad++;
				printf("not-a-bounce gave %d verdict(s), %d error(s): %s\n", res.n, res.err, names[i]);
			}
		}
		free(buf);
		free(names[i]);
	}
	return bad;
}

static int same_rows(const result *a, const result *b)
{
	if (a->n != b->n || a->err != b->err)
		return 0;
	for (int i = 0; i < a->n; i++) {
		const row *x = &a->rows[i], *y = &b->rows[i];
		if (strcasecmp(x->recipient, y->recipient) || strcmp(x->status, y->status) ||
		    strcmp(x->replycode, y->replycode) || strcmp(x->reason, y->reason) ||
		    x->hardbounce != y->hardbounce)
			return 0;
	}
	return 1;
}

static int decode_path(smtpdiag_decoder *d, const char *path, result *res)
{
	size_t len;
	char *buf = slurp(path, &len);

	if (!buf)
		return 0;
	decode_file(d, path, buf, len, res);
	free(buf);
	return 1;
}

/* dos/ and mac/ copies against bsd/ (or against each other when bsd/ lacks one). */
static int run_eol(smtpdiag_decoder *d, const char *corpus, const char *sub, const char *other, int *checked)
{
	char dir[4096], path[4200], *names[MAX_FILES];
	static result a, b;
	int n, bad = 0;

	snprintf(dir, sizeof(dir), "%s/maildir/%s", corpus, sub);
	n = list_dir(dir, names, MAX_FILES);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (decode_path(d, path, &a)) {
			snprintf(path, sizeof(path), "%s/maildir/bsd/%s", corpus, names[i]);
			if (!decode_path(d, path, &b)) {
				snprintf(path, sizeof(path), "%s/maildir/%s/%s", corpus, other, names[i]);
				if (!decode_path(d, path, &b))
					b = a;
			}
			(*checked)++;
			if (!same_rows(&a, &b)) {
				bad++;
				printf("line-end copy differs: %s/%s (%d vs %d verdicts)\n", sub, names[i], a.n, b.n);
			}
		}
		free(names[i]);
	}
	return bad;
}

static double pct(int ok, int all)
{
	return all ? 100.0 * ok / all : 100.0;
}

/* The default mode on the same files: its scores, and every row where it
 * differs from the gold, by rule (printed above by compare()). */
static void score_default(const char *corpus)
{
	smtpdiag_decoder *d = smtpdiag_decoder_new(SMTPDIAG_DECODE_DELIVERED | SMTPDIAG_DECODE_VACATION);
	score s;

	if (!d)
		return;
	memset(&s, 0, sizeof(s));
	default_mode = 1;
	run_bsd(d, corpus, &s);
	default_mode = 0;
	smtpdiag_decoder_free(d);
	printf("mode default (the one verdict):\n");
	printf("reason      %6.2f%% (%d/%d)\n", pct(s.ok_reason, s.rows), s.ok_reason, s.rows);
	printf("status      %6.2f%% (%d/%d)\n", pct(s.ok_status, s.rows), s.ok_status, s.rows);
	printf("replycode   %6.2f%% (%d/%d)\n", pct(s.ok_reply, s.rows), s.ok_reply, s.rows);
	printf("hardbounce  %6.2f%% (%d/%d)\n", pct(s.ok_hard, s.rows), s.ok_hard, s.rows);
	printf("rows where the default differs from the gold (reason or hardbounce), by rule:\n");
	printf("  %-26s %5s  %s\n", "rule", "rows", "the rule of mail");
	for (int k = 0; k < RULE_N; k++)
		printf("  %-26s %5d  %s\n", rule_name[k], rule_rows[k], rule_why[k]);
}

int main(int argc, char **argv)
{
	const char *corpus = "../shared/corpus/set-of-emails", *extra = NULL;
	char path[4096], xdir[4096];
	smtpdiag_decoder *d;
	score s;
	int notbad, eolbad = 0, eolchecked = 0, fail;
	struct stat st;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v"))
			verbose = 1;
		else if (!strcmp(argv[i], "-x") && i + 1 < argc)
			extra = argv[++i];
		else
			corpus = argv[i];
	}
	snprintf(path, sizeof(path), "%s/gold.tsv", corpus);
	if (stat(path, &st) != 0) {
		printf("SKIP: corpus not found at %s\n", corpus);
		return 77;
	}
	if (load_gold(path) < 0) {
		fprintf(stderr, "conformance: cannot read %s\n", path);
		return 2;
	}
	load_registered(corpus);
	load_known("tests/conformance-known.tsv");
	d = smtpdiag_decoder_new(SMTPDIAG_DECODE_DELIVERED | SMTPDIAG_DECODE_VACATION |
				 SMTPDIAG_DECODE_REASONS_SISIMAI);
	if (!d) {
		fprintf(stderr, "conformance: cannot create a decoder\n");
		return 2;
	}
	memset(&s, 0, sizeof(s));
	if (run_bsd(d, corpus, &s) < 0) {
		printf("SKIP: corpus not found at %s (no maildir/bsd)\n", corpus);
		return 77;
	}
	notbad = run_not(d, corpus);
	eolbad += run_eol(d, corpus, "dos", "mac", &eolchecked);
	eolbad += run_eol(d, corpus, "mac", "dos", &eolchecked);
	smtpdiag_decoder_free(d);
	score_default(corpus);

	printf("mode sisimai (--reasons sisimai):\n");
	printf("gold rows %d, missing %d (and %d known defects of the gold file), extra %d\n", s.rows,
	       s.missing, s.known, s.extra);
	printf("reason      %6.2f%% (%d/%d)   want >= 97%%\n", pct(s.ok_reason, s.rows), s.ok_reason, s.rows);
	printf("status      %6.2f%% (%d/%d)   want >= 99%%\n", pct(s.ok_status, s.rows), s.ok_status, s.rows);
	printf("replycode   %6.2f%% (%d/%d)   want >= 99%%\n", pct(s.ok_reply, s.rows), s.ok_reply, s.rows);
	printf("hardbounce  %6.2f%% (%d/%d)   want >= 99%%\n", pct(s.ok_hard, s.rows), s.ok_hard, s.rows);
	printf("not-bounces with output %d; line-end copies differing %d of %d; invented statuses %d\n",
	       notbad, eolbad, eolchecked, s.invented);
	fail = pct(s.ok_reason, s.rows) < 97.0 || pct(s.ok_status, s.rows) < 99.0 ||
	       pct(s.ok_reply, s.rows) < 99.0 || pct(s.ok_hard, s.rows) < 99.0 || s.missing || notbad ||
	       eolbad || s.invented;
	if (!extra) {
		snprintf(xdir, sizeof(xdir), "%s/../extra", corpus);
		extra = xdir;
	}
	if (run_extra(extra) < 0)
		printf("extra/: not found at %s\n", extra);
	printf("%s\n", fail ? "FAIL" : "PASS");
	return fail ? 1 : 0;
}
