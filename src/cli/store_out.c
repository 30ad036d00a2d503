/* store_out.c - the output of `smtpdiag store suppressed|show|stats`. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "store_out.h"

#define TIME_TEXT 24 /* "2026-03-03T08:00:02Z" and its NUL */

int out_format(const char *v)
{
	if (!strcmp(v, "text"))
		return OUT_TEXT;
	if (!strcmp(v, "json") || !strcmp(v, "jsonl"))
		return OUT_JSON;
	return !strcmp(v, "csv") ? OUT_CSV : -1;
}

static const char *when(int64_t t, char buf[TIME_TEXT], const char *none)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!t)
		return none;
	gmtime_r(&tt, &tm);
	strftime(buf, TIME_TEXT, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return buf;
}

static int finish(const char *cmd, int rc, const smtpdiag_error *err)
{
	if (rc == SMTPDIAG_ENOTFOUND) {
		cli_err("%s: %s", cmd, err->message);
		return EXIT_SOME_;
	}
	if (rc < 0) {
		cli_err("%s: %s", cmd, err->message[0] ? err->message : smtpdiag_strerror(rc));
		return EXIT_FAIL_;
	}
	if (fflush(stdout) != 0) {
		cli_err("%s: writing output: %s", cmd, strerror(errno));
		return EXIT_FAIL_;
	}
	return EXIT_OK_;
}

static void json_line(smtpdiag_buf *b)
{
	fwrite(b->data, 1, b->len, stdout);
	fputc('\n', stdout);
	b->len = 0;
}

/* ---- suppressed ---- */

typedef struct sup_ctx {
	int format;
	smtpdiag_buf b;
	unsigned long n;  /* events written */
} sup_ctx;

/* RFC 4180: a field with a comma, quote or line end is quoted, quotes doubled */
static void csv(const char *s, int last)
{
	if (strpbrk(s, ",\"\r\n")) {
		fputc('"', stdout);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', stdout);
			fputc(*s, stdout);
		}
		fputc('"', stdout);
	} else {
		fputs(s, stdout);
	}
	fputs(last ? "\r\n" : ",", stdout);
}

static void csv_row(const smtpdiag_addr_state *a)
{
	char t[4][TIME_TEXT], n[3][24];

	snprintf(n[0], sizeof(n[0]), "%llu", (unsigned long long)a->hard);
	snprintf(n[1], sizeof(n[1]), "%llu", (unsigned long long)a->soft);
	snprintf(n[2], sizeof(n[2]), "%llu", (unsigned long long)a->complaints);
	csv(a->address, 0);
	csv(a->cause, 0);
	csv(a->reason, 0);
	csv(a->status, 0);
	csv(a->replycode, 0);
	csv(when(a->since, t[0], ""), 0);
	csv(when(a->until, t[1], ""), 0);
	csv(when(a->first_seen, t[2], ""), 0);
	csv(when(a->last_seen, t[3], ""), 0);
	csv(n[0], 0);
	csv(n[1], 0);
	csv(n[2], 1);
}

static int on_sup(void *ctx, const smtpdiag_addr_state *a)
{
	sup_ctx *c = ctx;
	char t[2][TIME_TEXT];

	if (c->format == OUT_JSON) {
		smtpdiag_addr_state_json(a, &c->b);
		json_line(&c->b);
	} else if (c->format == OUT_CSV) {
		csv_row(a);
	} else {
		printf("%-40s %-9s %-14s %-7s %-20s %-20s %4llu %4llu %4llu\n", a->address, a->cause,
		       a->reason[0] ? a->reason : "-", a->status[0] ? a->status : "-",
		       when(a->since, t[0], "-"), when(a->until, t[1], "until-release"),
		       (unsigned long long)a->hard, (unsigned long long)a->soft,
		       (unsigned long long)a->complaints);
	}
	return 0;
}

int out_suppressed(smtpdiag_store *s, const smtpdiag_store_filter *f, int format)
{
	sup_ctx c = { format, { 0 }, 0 };
	smtpdiag_error err = { 0, "" };
	int rc;

	if (format == OUT_CSV)
		fputs("address,cause,reason,status,replycode,since,until,first_seen,last_seen,hard,soft,"
		      "complaints\r\n", stdout);
	else if (format == OUT_TEXT)
		printf("%-40s %-9s %-14s %-7s %-20s %-20s %4s %4s %4s\n", "ADDRESS", "CAUSE", "REASON",
		       "STATUS", "SINCE", "UNTIL", "HARD", "SOFT", "CMPL");
	rc = smtpdiag_store_suppressed(s, f, on_sup, &c, &err);
	smtpdiag_buf_free(&c.b);
	return finish("store suppressed", rc, &err);
}

/* ---- show ---- */

static int show_state(void *ctx, const smtpdiag_addr_state *a)
{
	sup_ctx *c = ctx;
	char t[5][TIME_TEXT];

	if (c->format == OUT_JSON) {
		smtpdiag_buf_append(&c->b, "{\"state\":", 9);
		smtpdiag_addr_state_json(a, &c->b);
		smtpdiag_buf_append(&c->b, ",\"history\":[", 12);
		fwrite(c->b.data, 1, c->b.len, stdout);
		c->b.len = 0;
		return 0;
	}
	printf("address     %s\nsuppressed  %s%s\n", a->address, a->suppressed ? "yes, " : "no", a->cause);
	if (a->suppressed)
		printf("why         %s %s %s\nsince       %s\nuntil       %s\n", a->reason, a->status,
		       a->replycode, when(a->since, t[0], "-"), when(a->until, t[1], "until-release"));
	printf("first seen  %s\nlast seen   %s\n", when(a->first_seen, t[2], "-"), when(a->last_seen, t[3], "-"));
	printf("events      %llu: hard %llu, complaints %llu, soft %llu, deferred %llu, delivered %llu, "
	       "sender-side %llu, other %llu\n", (unsigned long long)a->events, (unsigned long long)a->hard,
	       (unsigned long long)a->complaints, (unsigned long long)a->soft,
	       (unsigned long long)a->deferred, (unsigned long long)a->delivered,
	       (unsigned long long)a->sender, (unsigned long long)a->other);
	if (a->released_at)
		printf("released    %s by %s\n", when(a->released_at, t[4], "-"), a->released_by);
	printf("\n%-20s %-9s %-14s %-7s %-3s %s\n", "TIME", "KIND", "REASON", "STATUS", "RC", "ORIGIN");
	return 0;
}

static int show_event(void *ctx, const smtpdiag_store_event *e)
{
	sup_ctx *c = ctx;
	char t[TIME_TEXT];

	if (c->format == OUT_JSON) {
		if (c->n++)
			fputc(',', stdout);
		smtpdiag_store_event_json(e, &c->b);
		fwrite(c->b.data, 1, c->b.len, stdout);
		c->b.len = 0;
		return 0;
	}
	printf("%-20s %-9s %-14s %-7s %-3s %s\n", when(e->timestamp, t, "-"), e->kind,
	       e->reason[0] ? e->reason : "-", e->status[0] ? e->status : "-",
	       e->replycode[0] ? e->replycode : "-", e->origin);
	return 0;
}

int out_show(smtpdiag_store *s, const char *address, int format)
{
	sup_ctx c = { format, { 0 }, 0 };
	smtpdiag_error err = { 0, "" };
	int rc = smtpdiag_store_show(s, address, 0, show_state, show_event, &c, &err);

	if (rc == 0 && format == OUT_JSON)
		fputs("]}\n", stdout);
	smtpdiag_buf_free(&c.b);
	return finish("store show", rc, &err);
}

/* ---- stats ---- */

typedef struct stat_ctx {
	int format;
	char table[32];
	int rows;
	smtpdiag_buf b;
} stat_ctx;

static int on_stat(void *ctx, const char *table, const char *key, uint64_t count)
{
	stat_ctx *c = ctx;
	int fresh = strcmp(c->table, table) != 0;

	if (fresh)
		snprintf(c->table, sizeof(c->table), "%s", table);
	if (c->format != OUT_JSON) {
		if (fresh)
			printf("%s%s\n", c->rows ? "\n" : "", table);
		printf("  %-40s %llu\n", key[0] ? key : "(none)", (unsigned long long)count);
		c->rows++;
		return 0;
	}
	smtpdiag_buf_append(&c->b, fresh ? (c->rows ? "},\"" : "{\"") : ",", fresh ? (c->rows ? 3 : 2) : 1);
	if (fresh) {
		smtpdiag_buf_append(&c->b, table, strlen(table));
		smtpdiag_buf_append(&c->b, "\":{", 3);
	}
	smtpdiag_buf_json(&c->b, key, strlen(key));
	smtpdiag_buf_printf(&c->b, ":%llu", (unsigned long long)count);
	c->rows++;
	return 0;
}

/* The complaint-rate table: rows keyed "DOMAIN DAY" (docs/complaints.md). */
static int on_rate(void *ctx, const smtpdiag_complaint_rate *r)
{
	stat_ctx *c = ctx;
	int fresh = strcmp(c->table, "complaint-rate") != 0;
	char key[1100], rate[32]; /* a domain (at most 1023 bytes in the store) and a day */

	snprintf(key, sizeof(key), "%s%s%s", r->senderdomain[0] ? r->senderdomain : "(none)",
		 r->day[0] ? " " : "", r->day);
	if (fresh)
		snprintf(c->table, sizeof(c->table), "%s", "complaint-rate");
	if (c->format != OUT_JSON) {
		if (fresh)
			printf("%scomplaint-rate%*s %s\n", c->rows ? "\n" : "", 28, "",
			       "COMPLAINTS DELIVERED RATE     LEVEL");
		if (r->rate < 0)
			snprintf(rate, sizeof(rate), "-");
		else
			snprintf(rate, sizeof(rate), "%.4f%%", r->rate * 100);
		printf("  %-40s %-10llu %-9llu %-8s %s\n", key, (unsigned long long)r->complaints,
		       (unsigned long long)r->delivered, rate, r->level);
		c->rows++;
		return 0;
	}
	smtpdiag_buf_append(&c->b, fresh ? (c->rows ? "},\"" : "{\"") : ",", fresh ? (c->rows ? 3 : 2) : 1);
	if (fresh)
		smtpdiag_buf_append(&c->b, "complaint-rate\":{", 17);
	smtpdiag_buf_json(&c->b, key, strlen(key));
	smtpdiag_buf_printf(&c->b, ":{\"complaints\":%llu,\"delivered\":%llu,\"rate\":",
			    (unsigned long long)r->complaints, (unsigned long long)r->delivered);
	if (r->rate < 0)
		smtpdiag_buf_append(&c->b, "null", 4);
	else
		smtpdiag_buf_printf(&c->b, "%.6f", r->rate);
	smtpdiag_buf_printf(&c->b, ",\"level\":\"%s\"}", r->level);
	c->rows++;
	return 0;
}

int out_stats(smtpdiag_store *s, int format)
{
	stat_ctx c = { format, "", 0, { 0 } };
	smtpdiag_error err = { 0, "" };
	int rc = smtpdiag_store_stats(s, 0, on_stat, &c, &err);

	if (rc == 0)
		rc = smtpdiag_store_complaint_rates(s, on_rate, &c, &err);
	if (rc == 0 && format == OUT_JSON) {
		smtpdiag_buf_append(&c.b, c.rows ? "}}" : "{}", 2);
		json_line(&c.b);
	}
	smtpdiag_buf_free(&c.b);
	return finish("store stats", rc, &err);
}
