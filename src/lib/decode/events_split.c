/* events_split.c - the values of an events input, one at a time (see
 * events_split.h): a token-level reader that follows the JSON grammar far
 * enough to find where each value ends and where one breaks. */
#include "decode/events_split.h"

#include <stdio.h>
#include <string.h>

enum { M_TOP, M_ARRAY, M_VALUE, M_SEEK };      /* s->mode */
enum { A_FIRST, A_ELEM, A_NEXT };              /* s->astate: after '[', after ',', after an element */
enum { G_VAL, G_VAL_OR_END, G_KEY_OR_END, G_KEY, G_COLON, G_NEXT }; /* s->gstate */

#define OVER_LIMIT "value larger than 64 MiB (SMTPDIAG_MAX_MESSAGE): skipped"
#define SPLIT_NEAR 64 /* bytes of a stray top-level token handed over for the message */

/* A reading pass: the buffer and where to report. */
typedef struct pass {
	sd_evsplit *s;
	const char *b; /* b[0] is input offset s->base */
	uint64_t end;  /* input offset past the last byte given */
	int eof;
	int wait;      /* more bytes are needed before going on */
	const sd_evsplit_cb *cb;
} pass;

#define AT(p, off) ((p)->b[(off) - (p)->s->base])

void sd_evsplit_init(sd_evsplit *s)
{
	memset(s, 0, sizeof(*s));
	s->line = 1;
}

static int blank(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* A byte that ends a number or a literal. */
static int tok_end(unsigned char c)
{
	return blank(c) || c == ',' || c == ':' || c == ']' || c == '}' || c == '[' || c == '{' || c == '"';
}

static void newline(sd_evsplit *s, uint64_t at)
{
	s->line++;
	s->line_start = at + 1;
}

static void begin_value(sd_evsplit *s, int elem)
{
	s->mode = M_VALUE;
	s->vstart = s->pos;
	s->at = (sd_evat){ s->line, (long)(s->pos - s->line_start), elem };
	s->gstate = G_VAL;
	s->in_str = s->esc = s->in_tok = s->key = 0;
	s->depth = 0;
	s->skip = 0;
	s->resume = 0;
}

/* After a broken value or a stray token: on at the first line after the
 * value's start that starts with '{' or '[' (one the value held), or look for
 * one from here. */
static void recover(sd_evsplit *s)
{
	if (s->mode == M_VALUE && s->resume && !s->skip) {
		s->pos = s->resume;
		s->line = s->resume_line;
		s->line_start = s->resume;
		s->mode = M_TOP;
		return;
	}
	s->mode = M_SEEK;
}

/* The value being read breaks at s->pos (included; at the end of input, the
 * bytes so far). */
static void broken(pass *p, const char *why)
{
	sd_evsplit *s = p->s;
	uint64_t to = s->pos < p->end ? s->pos + 1 : p->end;
	long col = (long)(s->pos - s->line_start) + 1;

	if (!s->skip) /* a value over the limit was reported when it went over */
		p->cb->broken(p->cb->arg, &AT(p, s->vstart), (size_t)(to - s->vstart), &s->at, s->line, col, why);
	recover(s);
}

/* Something that is no value where a value or an array's punctuation belongs
 * at the top level: reported with the bytes that follow on its line (up to
 * SPLIT_NEAR of them, waited for when they are not all given yet). */
static void stray(pass *p, const char *why)
{
	sd_evsplit *s = p->s;
	uint64_t to = s->pos;
	sd_evat at = { s->line, (long)(s->pos - s->line_start), 0 };

	while (to < p->end && to - s->pos < SPLIT_NEAR && AT(p, to) != '\n' && AT(p, to) != '\r')
		to++;
	if (to == p->end && to - s->pos < SPLIT_NEAR && !p->eof) {
		p->wait = 1;
		return;
	}
	if (s->mode == M_TOP) { /* jansson's words: "'[' or '{' expected near 'junk'" */
		p->cb->broken(p->cb->arg, &AT(p, s->pos), (size_t)(to - s->pos), &at, s->line, at.col + 1, why);
	} else {
		char msg[128];
		snprintf(msg, sizeof(msg), "%s near '%.*s'", why, (int)(to - s->pos < 16 ? to - s->pos : 16),
			 &AT(p, s->pos));
		p->cb->broken(p->cb->arg, NULL, 0, &at, s->line, at.col + 1, msg);
	}
	s->mode = M_SEEK;
}

static void value_done(pass *p)
{
	sd_evsplit *s = p->s;

	if (!s->skip && s->pos - s->vstart > SD_EV_MAX_VALUE)
		p->cb->broken(p->cb->arg, NULL, 0, &s->at, s->at.line, s->at.col + 1, OVER_LIMIT);
	else if (!s->skip)
		p->cb->value(p->cb->arg, &AT(p, s->vstart), (size_t)(s->pos - s->vstart), &s->at);
	if (s->at.elem) {
		s->mode = M_ARRAY;
		s->astate = A_NEXT;
	} else {
		s->mode = M_TOP;
	}
}

static int is_object(const sd_evsplit *s)
{
	return (s->kinds[(s->depth - 1) / 64] >> ((s->depth - 1) % 64)) & 1;
}

/* A value inside the one being read has ended (s->pos is past it). */
static void after_value(pass *p)
{
	if (p->s->depth == 0)
		value_done(p);
	else
		p->s->gstate = G_NEXT;
}

static int push(pass *p, int object)
{
	sd_evsplit *s = p->s;
	uint64_t bit = 1ull << (s->depth % 64);

	if (s->depth == SD_EV_MAX_NEST) {
		broken(p, "arrays and objects nested deeper than 512 levels (SD_EV_MAX_NEST)");
		return -1;
	}
	if (object)
		s->kinds[s->depth / 64] |= bit;
	else
		s->kinds[s->depth / 64] &= ~bit;
	s->depth++;
	s->pos++;
	s->gstate = object ? G_KEY_OR_END : G_VAL_OR_END;
	return 0;
}

/* One string byte run: to its closing quote, or to the end of what is given. */
static void in_string(pass *p)
{
	sd_evsplit *s = p->s;

	while (s->pos < p->end) {
		unsigned char c = (unsigned char)AT(p, s->pos);
		if (s->esc) {
			s->esc = 0;
		} else if (c == '\\') {
			s->esc = 1;
		} else if (c == '"') {
			s->in_str = 0;
			s->pos++;
			if (s->key)
				s->gstate = G_COLON;
			else
				after_value(p);
			return;
		} else if (c < 0x20) {
			broken(p, "control character in a string");
			return;
		}
		s->pos++;
	}
}

/* One byte between tokens of a value, by what the grammar takes next. */
static void grammar(pass *p, unsigned char c)
{
	sd_evsplit *s = p->s;
	int g = s->gstate, closes = g == G_NEXT && s->depth > 0;

	if (c == '{' && (g == G_VAL || g == G_VAL_OR_END))
		push(p, 1);
	else if (c == '[' && (g == G_VAL || g == G_VAL_OR_END))
		push(p, 0);
	else if (c == '"' && g != G_COLON && g != G_NEXT) {
		s->in_str = 1;
		s->key = g == G_KEY || g == G_KEY_OR_END;
		s->pos++;
	} else if ((c == ']' && (g == G_VAL_OR_END || (closes && !is_object(s)))) ||
		   (c == '}' && (g == G_KEY_OR_END || (closes && is_object(s))))) {
		s->depth--;
		s->pos++;
		after_value(p);
	} else if (c == ',' && g == G_NEXT) {
		s->gstate = is_object(s) ? G_KEY : G_VAL;
		s->pos++;
	} else if (c == ':' && g == G_COLON) {
		s->gstate = G_VAL;
		s->pos++;
	} else if (!tok_end(c) && (g == G_VAL || g == G_VAL_OR_END)) {
		s->in_tok = 1;
		s->pos++;
	} else {
		broken(p, "unexpected character");
	}
}

static void in_value(pass *p)
{
	sd_evsplit *s = p->s;
	unsigned char c;

	while (s->mode == M_VALUE && s->pos < p->end) {
		if (s->in_str) {
			in_string(p);
			continue;
		}
		c = (unsigned char)AT(p, s->pos);
		if (s->in_tok) {
			if (!tok_end(c)) {
				s->pos++;
				continue;
			}
			s->in_tok = 0;
			after_value(p);
			continue;
		}
		if (blank(c)) {
			if (c == '\n')
				newline(s, s->pos);
			s->pos++;
			continue;
		}
		if (!s->resume && s->pos == s->line_start && s->pos > s->vstart && (c == '{' || c == '[')) {
			s->resume = s->pos;
			s->resume_line = s->line;
		}
		grammar(p, c);
	}
}

static void in_array(pass *p, unsigned char c)
{
	sd_evsplit *s = p->s;

	if (c == ']' && s->astate != A_ELEM) {
		s->pos++;
		s->mode = M_TOP;
	} else if (c == ',' && s->astate == A_NEXT) {
		s->pos++;
		s->astate = A_ELEM;
	} else if (s->astate == A_NEXT) {
		stray(p, "',' or ']' expected after an element of the array");
	} else if (c == ',' || c == ']') {
		stray(p, "a value expected in the array");
	} else {
		begin_value(s, 1);
	}
}

static void at_top(pass *p, unsigned char c)
{
	sd_evsplit *s = p->s;

	if (c == '[') {
		s->arr = (sd_evat){ s->line, (long)(s->pos - s->line_start), 0 };
		s->mode = M_ARRAY;
		s->astate = A_FIRST;
		s->pos++;
	} else if (c == '{') {
		begin_value(s, 0);
	} else {
		stray(p, "'[' or '{' expected");
	}
}

/* Past lines until one that starts with '{' or '['. */
static void seek(pass *p)
{
	sd_evsplit *s = p->s;

	while (s->pos < p->end) {
		const char *q;
		if (s->pos == s->line_start && (AT(p, s->pos) == '{' || AT(p, s->pos) == '[')) {
			s->mode = M_TOP;
			return;
		}
		q = memchr(&AT(p, s->pos), '\n', (size_t)(p->end - s->pos));
		if (!q) {
			s->pos = p->end;
			return;
		}
		s->pos = s->base + (uint64_t)(q - p->b);
		newline(s, s->pos);
		s->pos++;
	}
}

/* Nothing follows: a value or an array left open is broken. */
static void at_eof(pass *p)
{
	sd_evsplit *s = p->s;

	if (s->mode == M_VALUE && s->in_tok && s->depth == 0) {
		s->in_tok = 0;
		value_done(p);
	}
	if (s->mode == M_VALUE)
		broken(p, "end of input inside a value");
	if (s->mode == M_ARRAY) {
		p->cb->broken(p->cb->arg, NULL, 0, &s->arr, s->line, (long)(s->pos - s->line_start) + 1,
			      "end of input inside an array: ']' expected");
		s->mode = M_TOP;
	}
}

/* A value longer than SD_EV_MAX_VALUE: said once, then read to its end unkept. */
static void check_size(pass *p)
{
	sd_evsplit *s = p->s;

	if (s->mode != M_VALUE || s->skip || p->end - s->vstart <= SD_EV_MAX_VALUE)
		return;
	p->cb->broken(p->cb->arg, NULL, 0, &s->at, s->at.line, s->at.col + 1, OVER_LIMIT);
	s->skip = 1;
}

size_t sd_evsplit_scan(sd_evsplit *s, const char *buf, size_t len, int eof, const sd_evsplit_cb *cb)
{
	pass p = { s, buf, s->base + len, eof, 0, cb };
	uint64_t keep;

	while (s->pos < p.end && !p.wait) {
		unsigned char c = (unsigned char)AT(&p, s->pos);
		if (s->mode == M_VALUE) {
			in_value(&p);
		} else if (s->mode == M_SEEK) {
			seek(&p);
		} else if (s->pos == 0 && c == 0xEF) { /* a byte order mark */
			if (p.end < 3 && !eof)
				break;
			if (p.end >= 3 && !memcmp(buf, "\xEF\xBB\xBF", 3))
				s->pos = 3;
			else
				at_top(&p, c);
		} else if (blank(c)) {
			if (c == '\n')
				newline(s, s->pos);
			s->pos++;
		} else if (s->mode == M_ARRAY) {
			in_array(&p, c);
		} else {
			at_top(&p, c);
		}
	}
	if (eof)
		at_eof(&p);
	check_size(&p);
	keep = s->mode == M_VALUE && !s->skip ? s->vstart : s->pos;
	len = (size_t)(keep - s->base);
	s->base = keep;
	return len;
}
