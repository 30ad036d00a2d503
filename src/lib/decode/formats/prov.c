/* prov.c - helpers shared by the provider format modules. */
#include "decode/formats/prov.h"
#include "smtp/reply.h"

sd_rcpt *pv_rcpt(sd_ctx *c, sd_str s)
{
	sd_str a = mta_addr(s);
	sd_rcpt *r;

	if (!a.p)
		return NULL;
	r = sd_ctx_add(c);
	if (r)
		r->recipient = a;
	return r;
}

void pv_diag(sd_ctx *c, sd_rcpt *r, sd_str line)
{
	line = sd_trim(line);
	if (!line.n || r->diagnostic.n + line.n > MTA_MAX_TEXT)
		return;
	r->diagnostic = r->diagnostic.n ? mta_join(c->a, r->diagnostic, line) : line;
}

int pv_phrase_find(sd_str s, const pv_phrase *t)
{
	for (; t->text; t++)
		if (mta_has(s, t->text))
			return t->reason;
	return -1;
}

void pv_weak_reason(sd_ctx *c, sd_rcpt *r, int reason)
{
	if (r->reason >= 0)
		return;
	if (r->diagnostic.n && sd_reason_pick(sd_classify_scan(c->cls, r->diagnostic.p, r->diagnostic.n)) >= 0)
		return;
	r->reason = reason;
}

/* Offset of the first line of s that starts with mark, maybe after blanks (a
 * line starts at 0 and after each line end, CRLF being one), or s.n: one
 * search, not one compare per line. */
static size_t line_with(sd_str s, const char *mark)
{
	size_t n = strlen(mark), at = 0;
	const char *q;

	while (at < s.n && (q = sd_memmem(s.p + at, s.n - at, mark, n)) != NULL) {
		size_t k = (size_t)(q - s.p), ls = k;
		while (ls > 0 && (s.p[ls - 1] == ' ' || s.p[ls - 1] == '\t'))
			ls--; /* an indented mark counts too */
		if (ls == 0 || s.p[ls - 1] == '\n' || (s.p[ls - 1] == '\r' && s.p[ls] != '\n'))
			return ls;
		at = k + 1;
	}
	return s.n;
}

sd_str pv_cut(sd_str s, const char *const *marks)
{
	size_t cut = s.n;

	if (!s.p)
		return s;
	for (int i = 0; marks[i]; i++) {
		size_t k = line_with(s, marks[i]);
		if (k < cut)
			cut = k;
	}
	return cut < s.n ? (sd_str){ s.p, cut } : s;
}

sd_str pv_after_line(sd_str s, const char *mark)
{
	size_t pos;
	sd_str line;

	if (!s.p || (pos = line_with(s, mark)) >= s.n)
		return SD_NULLSTR;
	sd_next_line(s, &pos, &line);
	return mta_skip(s, pos);
}

void pv_original(sd_ctx *c, sd_str body, const char *mark)
{
	sd_str rest = mark ? pv_after_line(body, mark) : SD_NULLSTR;

	sd_ctx_find_original(c, rest.p ? rest : SD_NULLSTR);
}

sd_str pv_dup(sd_ctx *c, const char *p, size_t n)
{
	char *q = sd_arena_strndup(c->a, p, n);

	return q ? (sd_str){ q, n } : SD_NULLSTR;
}

int pv_inner_codes(sd_ctx *c, sd_rcpt *r, sd_str s)
{
	if (!s.p || !s.n)
		return 0;
	for (const char *lt = memchr(s.p, '<', s.n); lt; lt = memchr(lt + 1, '<', s.n - (size_t)(lt + 1 - s.p))) {
		sd_str in = mta_skip(s, (size_t)(lt + 1 - s.p));
		sd_found f[2];

		if (in.n < 5 || (in.p[0] != '4' && in.p[0] != '5') || !sd_isdigit((unsigned char)in.p[1]))
			continue;
		if (sd_find_codes(in.p, in.n, f, 2) < 1 || f[0].off != 0 || !f[0].replycode ||
		    !f[0].status.text[0])
			continue;
		r->replycode = pv_dup(c, in.p, 3);
		r->status = pv_dup(c, f[0].status.text, strlen(f[0].status.text));
		return 1;
	}
	return 0;
}
