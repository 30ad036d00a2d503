/* mta_dsn.c - RFC 3464 delivery-status fields, read for the MTA modules.
 *
 * Reads the fields line by line (folded values joined), one record per
 * recipient. Blank lines separate the per-message and per-recipient groups; a
 * new Final-Recipient (or an Original-Recipient in a new group) starts a new
 * record even when the blank line is missing. */
#include "decode/formats/mta.h"

enum { F_OTHER, F_FINAL, F_ORIG, F_ACTUAL, F_ACTION, F_STATUS, F_RMTA, F_DIAG,
       F_LAST, F_REPORTING, F_ARRIVAL };

#define FIELD(name, id) { name, sizeof(name) - 1, id }
static const struct {
	const char *name;
	size_t len;
	int id;
} fields[] = {
	FIELD("Final-Recipient", F_FINAL),     FIELD("Original-Recipient", F_ORIG),
	FIELD("X-Actual-Recipient", F_ACTUAL), FIELD("Action", F_ACTION),
	FIELD("Status", F_STATUS),             FIELD("Remote-MTA", F_RMTA),
	FIELD("Diagnostic-Code", F_DIAG),      FIELD("Last-Attempt-Date", F_LAST),
	FIELD("Reporting-MTA", F_REPORTING),   FIELD("Arrival-Date", F_ARRIVAL),
};
#undef FIELD

typedef struct dsn_rd {
	sd_ctx *c;
	size_t first;      /* index of the first record of this DSN */
	sd_rcpt *cur;
	int cur_group;     /* group the current record began in */
	int cur_orig;      /* the current record has an Original-Recipient */
	int group;         /* blank-line separated group number */
	sd_str lhost, arrival;
} dsn_rd;

static int field_id(sd_str name)
{
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (name.n == fields[i].len && sd_memcaseeq(name.p, fields[i].name, name.n))
			return fields[i].id;
	return F_OTHER;
}

/* "rfc822; <a@b>" -> "a@b" */
static sd_str addr_value(sd_str v)
{
	const char *semi = memchr(v.p, ';', v.n);

	if (semi)
		v = mta_skip(v, (size_t)(semi - v.p) + 1);
	v = sd_trim(v);
	if (v.n >= 2 && v.p[0] == '<' && v.p[v.n - 1] == '>')
		v = (sd_str){ v.p + 1, v.n - 2 };
	if (v.n >= 2 && v.p[0] == '"' && v.p[v.n - 1] == '"' && !memchr(v.p, '@', v.n))
		v = (sd_str){ v.p + 1, v.n - 2 };
	return sd_trim(v);
}

/* "dns; host.example" -> "host.example" */
static sd_str host_value(sd_str v)
{
	const char *semi = memchr(v.p, ';', v.n);

	if (semi)
		v = mta_skip(v, (size_t)(semi - v.p) + 1);
	v = sd_trim(v);
	while (v.n && (v.p[v.n - 1] == '.' || v.p[v.n - 1] == ';'))
		v.n--;
	return v;
}

static sd_rcpt *new_rcpt(dsn_rd *d)
{
	d->cur = sd_ctx_add(d->c);
	d->cur_group = d->group;
	d->cur_orig = 0;
	return d->cur;
}

/* The record a per-recipient field belongs to. */
static sd_rcpt *rcpt_for(dsn_rd *d, int id)
{
	sd_rcpt *r = d->cur;

	if (!r)
		return new_rcpt(d);
	if (id == F_FINAL && r->recipient.n)
		return new_rcpt(d);
	if (id == F_ORIG && (d->cur_orig || (r->recipient.n && d->cur_group != d->group)))
		return new_rcpt(d);
	return r;
}

static void set_diag(dsn_rd *d, sd_rcpt *r, sd_str v)
{
	const char *semi = memchr(v.p, ';', v.n);
	sd_str type = semi ? sd_trim((sd_str){ v.p, (size_t)(semi - v.p) }) : SD_NULLSTR;

	if (semi && type.n && type.n < 20 && !memchr(type.p, ' ', type.n)) {
		r->diagtype = type;
		v = mta_skip(v, (size_t)(semi - v.p) + 1);
	}
	r->diagnostic = mta_squeeze(d->c->a, v);
}

static void rcpt_field(dsn_rd *d, int id, sd_str v)
{
	sd_rcpt *r = rcpt_for(d, id);

	if (!r)
		return;
	switch (id) {
	case F_FINAL: r->recipient = addr_value(v); break;
	case F_ORIG:
		d->cur_orig = 1;
		if (!r->alias.n)
			r->alias = addr_value(v);
		break;
	case F_ACTUAL: r->alias = addr_value(v); break;
	case F_ACTION: r->action = sd_trim(mta_before(sd_trim(v), "(")); break;
	case F_STATUS: r->status = mta_before(sd_trim(v), " "); break;
	case F_RMTA: r->rhost = host_value(v); break;
	case F_DIAG: set_diag(d, r, v); break;
	case F_LAST: r->date = sd_trim(v); break;
	default: break;
	}
}

static void field(dsn_rd *d, sd_str name, sd_str v)
{
	int id = field_id(name);

	if (id == F_REPORTING)
		d->lhost = host_value(v);
	else if (id == F_ARRIVAL)
		d->arrival = sd_trim(v);
	else if (id != F_OTHER)
		rcpt_field(d, id, v);
}

/* Drop records without a recipient, give all the per-message facts. */
static int finish(dsn_rd *d)
{
	sd_ctx *c = d->c;
	size_t k = d->first;

	for (size_t i = d->first; i < c->nrcpt; i++) {
		sd_rcpt r = c->rcpts[i];
		if (!r.recipient.n)
			continue;
		if (!r.lhost.n)
			r.lhost = d->lhost;
		if (!r.date.n)
			r.date = d->arrival;
		c->rcpts[k++] = r;
	}
	c->nrcpt = k;
	return (int)(k - d->first);
}

static size_t colon_at(sd_str line)
{
	size_t i = 0;

	while (i < line.n && i < 40 && (sd_isalnum((unsigned char)line.p[i]) || line.p[i] == '-'))
		i++;
	return i > 0 && i < line.n && line.p[i] == ':' ? i : 0;
}

int mta_dsn_read(sd_ctx *c, sd_str text)
{
	dsn_rd d = { c, c->nrcpt, NULL, 0, 0, 0, SD_NULLSTR, SD_NULLSTR };
	size_t colon;
	sd_lines it;
	sd_str line, more;

	sd_lines_init(&it, text, 0);
	while (sd_lines_next(&it, &line)) {
		if (mta_blank(line)) {
			d.group++;
			continue;
		}
		if (!(colon = colon_at(line)))
			continue;
		sd_str v = mta_skip(line, colon + 1);
		/* folded lines (they start with a blank) continue the value */
		while (it.pos < text.n && (text.p[it.pos] == ' ' || text.p[it.pos] == '\t')) {
			sd_lines_next(&it, &more);
			v.n = (size_t)(more.p + more.n - v.p);
		}
		field(&d, (sd_str){ line.p, colon }, v);
	}
	return finish(&d);
}

int mta_dsn(sd_ctx *c)
{
	const sd_part *p = mta_part(c, "message/delivery-status");

	if (!p)
		p = mta_part(c, "message/global-delivery-status");
	return p ? mta_dsn_read(c, sd_part_text(c->a, p)) : 0;
}

/* Where the returned message starts after quoted delivery-status fields. */
static const char *const inline_ends[] = {
	"Content-Type: message/rfc822", "Content-Type: text/rfc822-headers",
	"Return-Path:", "Received:", NULL
};

int mta_dsn_inline(sd_ctx *c, sd_str text)
{
	sd_str ds = mta_find(text, "message/delivery-status");

	if (!ds.p)
		ds = mta_find(text, "Reporting-MTA:");
	if (!ds.p)
		ds = mta_find(text, "Final-Recipient:");
	if (!ds.p || !mta_has(ds, "Final-Recipient:"))
		return 0;
	for (int i = 0; inline_ends[i]; i++)
		ds = mta_before(ds, inline_ends[i]);
	return mta_dsn_read(c, ds);
}
