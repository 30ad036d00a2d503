/* mailbox.c - bounce mailboxes read through libcurl (see mailbox.h).
 *
 * IMAP: STATUS gives the folder's UIDVALIDITY; UID FETCH last+1:* (UID FLAGS
 * RFC822.SIZE) lists the new messages; each is fetched by its UID, decoded,
 * its records committed, then marked, moved or deleted as asked, and only then
 * is its UID saved in the store. POP3: UIDL lists the messages, those whose
 * UIDL the store has not seen are retrieved, and the UIDL is saved after the
 * records. A run cut short between commit and save reads one message again:
 * its records have the same keys, so the store counts them as duplicates. */
#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>
#include "curl_load.h"

#include "cli.h"
#include "mailbox.h"

#define MB_URL_MAX 2048     /* bytes of a mailbox URL */
#define MB_USER_MAX 256     /* bytes of the user name */
#define MB_CMD_MAX (2 * MB_URL_MAX + 64)
#define MB_SMALL_MAX (1u << 20) /* bytes of the answer to STATUS, CAPABILITY or STORE */

typedef struct mb_url {
	int pop, tls;                 /* POP3; implicit TLS (imaps, pop3s) */
	char user[MB_USER_MAX];       /* percent-decoded */
	char base[MB_URL_MAX];        /* scheme://host[:port]/ */
	char path[MB_URL_MAX];        /* the folder as written in the URL (encoded) */
	char folder[MB_URL_MAX];      /* the folder, decoded */
	char key[MB_URL_MAX + 16];    /* the URL without password, folder INBOX by default */
} mb_url;

typedef struct mb_buf {
	char *p;
	size_t len, cap, limit;
	int over;                     /* more than limit bytes came */
} mb_buf;

typedef struct sess {
	CURL *h;
	const mbox_opts *o;
	mb_url u;
	mb_buf b;
	char errbuf[CURL_ERROR_SIZE];
	char what[MB_CMD_MAX];        /* the step that failed, for the message */
} sess;

typedef struct mb_msg {
	uint64_t uid, size;           /* POP3: uid is the message number */
	int seen;
	const char *uidl;             /* POP3, in the listing */
} mb_msg;

int mbox_is_url(const char *a)
{
	return !strncasecmp(a, "imap://", 7) || !strncasecmp(a, "imaps://", 8) ||
	       !strncasecmp(a, "pop3://", 7) || !strncasecmp(a, "pop3s://", 8);
}

static int hexval(int c)
{
	return isdigit(c) ? c - '0' : isxdigit(c) ? (tolower(c) - 'a' + 10) : -1;
}

/* %XX decoded; -1 on a bad escape, a control character, or when too long. */
static int pct_decode(char *out, size_t cap, const char *in, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		int c = (unsigned char)in[i];
		if (c == '%') {
			if (i + 2 >= n || hexval(in[i + 1]) < 0 || hexval(in[i + 2]) < 0)
				return -1;
			c = hexval(in[i + 1]) * 16 + hexval(in[i + 2]);
			i += 2;
		}
		if (c < 0x20 || c == 0x7f || o + 1 >= cap)
			return -1;
		out[o++] = (char)c;
	}
	out[o] = '\0';
	return 0;
}

static int url_fail(char *why, size_t len, const char *what)
{
	snprintf(why, len, "%s", what);
	return -1;
}

/* scheme://USER@HOST[:PORT][/FOLDER] into u. */
static int url_parse(const char *url, mb_url *u, char *why, size_t len)
{
	const char *p = strstr(url, "://"), *host, *at, *slash;
	size_t slen;
	int hlen;

	memset(u, 0, sizeof(*u));
	if (!p || !mbox_is_url(url))
		return url_fail(why, len, "not a mailbox URL (imaps://, imap://, pop3s://, pop3://)");
	if (strlen(url) >= MB_URL_MAX)
		return url_fail(why, len, "URL longer than 2047 bytes");
	slen = (size_t)(p - url);
	u->pop = !strncasecmp(url, "pop3", 4);
	u->tls = url[slen - 1] == 's' || url[slen - 1] == 'S';
	p += 3;
	slash = strchr(p, '/');
	if (!slash)
		slash = p + strlen(p);
	for (at = NULL, host = p; host < slash; host++)
		if (*host == '@')
			at = host;
	if (!at)
		return url_fail(why, len, "no user in the URL (scheme://USER@HOST/FOLDER)");
	if (memchr(p, ':', (size_t)(at - p)))
		return url_fail(why, len, "the URL holds a password: give it with --password-file FILE "
				"or $SMTPDIAG_IMAP_PASSWORD, never on the command line");
	if (memchr(p, ';', (size_t)(at - p)) || at == p || pct_decode(u->user, sizeof(u->user), p, (size_t)(at - p)) < 0)
		return url_fail(why, len, "a bad user name in the URL (percent-encode an '@' in it as %40)");
	host = at + 1;
	if (host == slash || *host == ':')
		return url_fail(why, len, "no host in the URL");
	for (const char *c = host; c < slash; c++)
		if (!isalnum((unsigned char)*c) && !strchr(".-:[]_", *c))
			return url_fail(why, len, "a bad host in the URL");
	snprintf(u->base, sizeof(u->base), "%.*s://%.*s/", (int)slen, url, (int)(slash - host), host);
	for (char *c = u->base; *c != ':'; c++)
		*c = (char)tolower((unsigned char)*c);
	hlen = (int)(slash - host);
	if (*slash == '/')
		slash++;
	snprintf(u->path, sizeof(u->path), "%s", *slash ? slash : (u->pop ? "" : "INBOX"));
	if (u->pop && u->path[0])
		return url_fail(why, len, "a POP3 URL names no folder (pop3s://USER@HOST/)");
	if (strpbrk(u->path, "?;#") || pct_decode(u->folder, sizeof(u->folder), u->path, strlen(u->path)) < 0)
		return url_fail(why, len, "a bad folder name in the URL (percent-encode spaces as %20)");
	snprintf(u->key, sizeof(u->key), "%.*s%.*s/%s", (int)(host - url), url, hlen, host, u->path);
	return 0;
}

int mbox_check_url(const char *url, char *why, size_t len)
{
	mb_url u;

	return url_parse(url, &u, why, len);
}

int mbox_password(const mbox_opts *o, char *pw, size_t cap, char *err, size_t errlen)
{
	const char *env = getenv("SMTPDIAG_IMAP_PASSWORD");
	char *text = NULL;
	size_t len;
	int rc;

	if (o->password_file) {
		if ((rc = cli_read_all(o->password_file, MBOX_MAX_PASSWORD + 2, &text, &len)) < 0) {
			snprintf(err, errlen, "--password-file %s: %s", o->password_file,
				 rc == -EFBIG ? "longer than 1024 bytes" : strerror(-rc));
			return -1;
		}
		while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
			len--; /* the line end of the file's one line */
	} else if (env && *env) {
		len = strlen(env);
	} else {
		snprintf(err, errlen, "a mailbox needs a password: --password-file FILE or $SMTPDIAG_IMAP_PASSWORD");
		return -1;
	}
	if (len == 0 || len > MBOX_MAX_PASSWORD || len >= cap ||
	    memchr(text ? text : env, '\n', len) || memchr(text ? text : env, '\0', len)) {
		snprintf(err, errlen, "the password is empty, longer than %d bytes, or more than one line",
			 MBOX_MAX_PASSWORD);
		free(text);
		return -1;
	}
	memcpy(pw, text ? text : env, len);
	pw[len] = '\0';
	free(text);
	return 0;
}

/* ---- transfers ---- */

static size_t on_data(char *p, size_t size, size_t n, void *ctx)
{
	mb_buf *b = ctx;
	size_t k = size * n;

	if (b->len + k > b->limit) {
		b->over = 1;
		return 0; /* the transfer stops with CURLE_WRITE_ERROR */
	}
	if (b->len + k + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 65536;
		char *q;
		while (cap < b->len + k + 1)
			cap *= 2;
		if (!(q = realloc(b->p, cap)))
			return 0;
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, k);
	b->len += k;
	b->p[b->len] = '\0';
	return k;
}

static int sess_open(sess *s, const mbox_opts *o, const char *pw, char *err, size_t errlen)
{
	if (sd_curl_load(err, errlen) < 0)
		return -1;
	if (!(s->h = curl_easy_init())) {
		snprintf(err, errlen, "cannot start libcurl (out of memory)");
		return -1;
	}
	s->o = o;
	curl_easy_setopt(s->h, CURLOPT_USERNAME, s->u.user);
	curl_easy_setopt(s->h, CURLOPT_PASSWORD, pw);
	curl_easy_setopt(s->h, CURLOPT_USE_SSL, (long)CURLUSESSL_ALL); /* STARTTLS required on imap://, pop3:// */
	if (o->cacert)
		curl_easy_setopt(s->h, CURLOPT_CAINFO, o->cacert);
	curl_easy_setopt(s->h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(s->h, CURLOPT_CONNECTTIMEOUT, (long)MBOX_CONNECT_TIMEOUT);
	curl_easy_setopt(s->h, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(s->h, CURLOPT_LOW_SPEED_TIME, (long)MBOX_STALL_TIME);
	curl_easy_setopt(s->h, CURLOPT_ERRORBUFFER, s->errbuf);
	curl_easy_setopt(s->h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(s->h, CURLOPT_WRITEDATA, &s->b);
	return 0;
}

static void sess_close(sess *s)
{
	if (s->h)
		curl_easy_cleanup(s->h); /* logs out (POP3: QUIT applies the deletions) */
	free(s->b.p);
}

/* One transfer: url (after base), an optional command, up to limit bytes kept in s->b. */
static CURLcode run(sess *s, const char *path, const char *cmd, int nobody, size_t limit)
{
	char url[2 * MB_URL_MAX];

	snprintf(url, sizeof(url), "%s%s", s->u.base, path);
	s->b.len = 0;
	s->b.over = 0;
	s->b.limit = limit;
	s->errbuf[0] = '\0';
	snprintf(s->what, sizeof(s->what), "%s", cmd ? cmd : path);
	curl_easy_setopt(s->h, CURLOPT_URL, url);
	curl_easy_setopt(s->h, CURLOPT_CUSTOMREQUEST, cmd);
	curl_easy_setopt(s->h, CURLOPT_NOBODY, (long)nobody);
	return curl_easy_perform(s->h);
}

/* Why a transfer failed, in words an operator can act on. */
static void say_fail(sess *s, CURLcode rc)
{
	const char *why;

	switch (rc) {
	case CURLE_LOGIN_DENIED:
		why = "login denied: wrong user or password";
		break;
	case CURLE_USE_SSL_FAILED:
		why = "the server offers no STARTTLS, which imap:// and pop3:// require (imaps://, pop3s:// use TLS at once)";
		break;
	case CURLE_PEER_FAILED_VERIFICATION:
		why = "the server's certificate is not trusted or names another host (--cacert FILE)";
		break;
	case CURLE_QUOTE_ERROR:
		why = "the server refused the command";
		break;
	default:
		why = curl_easy_strerror(rc);
	}
	if (rc == CURLE_LOGIN_DENIED || rc == CURLE_USE_SSL_FAILED || rc == CURLE_PEER_FAILED_VERIFICATION)
		cli_err("decode: %s: %s%s%s", s->u.key, why, s->errbuf[0] && rc != CURLE_LOGIN_DENIED ? ": " : "",
			rc == CURLE_LOGIN_DENIED ? "" : s->errbuf);
	else if (s->errbuf[0])
		cli_err("decode: %s: %s: %s (%s)", s->u.key, s->what, why, s->errbuf);
	else
		cli_err("decode: %s: %s: %s", s->u.key, s->what, why);
}

/* An IMAP quoted string of name for a command; with for_curl '%' escaped
 * (libcurl URL-decodes the commands it sends; raw ones are sent as they are). */
static void quote(char *out, size_t cap, const char *name, int for_curl)
{
	size_t o = 0;

	out[o++] = '"';
	for (; *name && o + 5 < cap; name++) {
		if (*name == '%' && for_curl) {
			memcpy(out + o, "%25", 3);
			o += 3;
			continue;
		}
		if (*name == '"' || *name == '\\')
			out[o++] = '\\';
		out[o++] = *name;
	}
	out[o++] = '"';
	out[o] = '\0';
}

/* The number after word in s->b ("UIDVALIDITY 17"); -1 when absent. */
static int64_t number_after(const char *text, const char *word)
{
	const char *p = text;
	size_t n = strlen(word);

	while ((p = strstr(p, word))) {
		if ((p == text || !isalnum((unsigned char)p[-1])) && p[n] == ' ' && isdigit((unsigned char)p[n + 1]))
			return strtoll(p + n + 1, NULL, 10);
		p += n;
	}
	return -1;
}

static int imap_cmd(sess *s, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int imap_cmd(sess *s, const char *path, const char *fmt, ...)
{
	char cmd[MB_CMD_MAX];
	va_list ap;
	CURLcode rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if ((rc = run(s, path, cmd, 0, MB_SMALL_MAX)) != CURLE_OK) {
		say_fail(s, rc);
		return -1;
	}
	return 0;
}

/* ---- IMAP ---- */

static int by_uid(const void *a, const void *b)
{
	const mb_msg *x = a, *y = b;

	return x->uid < y->uid ? -1 : x->uid > y->uid;
}

/* "* N FETCH (UID 7 FLAGS (\Seen) RFC822.SIZE 123)" lines into *list. */
static int parse_fetch(char *text, uint64_t after, mb_msg **list, size_t *n)
{
	size_t cap = 0;

	*list = NULL;
	*n = 0;
	for (char *line = text, *nl; line && *line; line = nl) {
		int64_t uid, size;
		char *flags;
		if ((nl = strchr(line, '\n')))
			*nl++ = '\0';
		if (strncmp(line, "* ", 2) || !strstr(line, " FETCH ("))
			continue;
		uid = number_after(line, "UID");
		size = number_after(line, "RFC822.SIZE");
		if (uid <= 0 || (uint64_t)uid <= after)
			continue; /* "last+1:*" includes the highest UID even when it is older */
		if (*n == cap) {
			mb_msg *q;
			cap = cap ? 2 * cap : 256;
			if (!(q = realloc(*list, cap * sizeof(**list))))
				return -1;
			*list = q;
		}
		flags = strstr(line, "FLAGS (");
		(*list)[*n].uid = (uint64_t)uid;
		(*list)[*n].size = size < 0 ? 0 : (uint64_t)size;
		(*list)[*n].seen = flags && strcasestr(flags, "\\Seen") && strcasestr(flags, "\\Seen") < strchr(flags, ')');
		(*list)[*n].uidl = NULL;
		(*n)++;
	}
	if (*n > 1) /* an empty folder has no list: qsort must not be given NULL */
		qsort(*list, *n, sizeof(**list), by_uid);
	return 0;
}

static int has_cap(sess *s, const char *cap)
{
	char pat[64];

	if (imap_cmd(s, "", "CAPABILITY") < 0)
		return -1;
	snprintf(pat, sizeof(pat), " %s", cap);
	for (const char *p = s->b.p ? s->b.p : ""; (p = strcasestr(p, pat)); p += strlen(pat))
		if (p[strlen(pat)] == ' ' || p[strlen(pat)] == '\r' || p[strlen(pat)] == '\n' || !p[strlen(pat)])
			return 1;
	return 0;
}

/* After the message's records are committed: its flags, and where it goes. */
static int imap_act(sess *s, const mb_msg *m, int can_move)
{
	const mbox_opts *o = s->o;
	char to[MB_CMD_MAX / 2];
	unsigned long long uid = (unsigned long long)m->uid;

	if (o->mark_seen && imap_cmd(s, s->u.path, "UID STORE %llu +FLAGS.SILENT (\\Seen)", uid) < 0)
		return -1;
	if (!o->mark_seen && !m->seen && imap_cmd(s, s->u.path, "UID STORE %llu -FLAGS.SILENT (\\Seen)", uid) < 0)
		return -1; /* fetching set \Seen: left as it was */
	if (o->move_to) {
		quote(to, sizeof(to), o->move_to, 1);
		if (can_move)
			return imap_cmd(s, s->u.path, "UID MOVE %llu %s", uid, to);
		if (imap_cmd(s, s->u.path, "UID COPY %llu %s", uid, to) < 0)
			return -1;
	}
	if (o->move_to || o->del) {
		if (imap_cmd(s, s->u.path, "UID STORE %llu +FLAGS.SILENT (\\Deleted)", uid) < 0)
			return -1;
		return imap_cmd(s, s->u.path, "UID EXPUNGE %llu", uid);
	}
	return 0;
}

/* How far the folder was read, and whether UIDVALIDITY still holds. */
static int imap_state(sess *s, const mbox_sink *k, int64_t *uv, int64_t *last)
{
	smtpdiag_error err = { 0, "" };
	char q[MB_CMD_MAX / 2];
	int64_t was = -1;
	int rc;

	quote(q, sizeof(q), s->u.folder, 1);
	if (imap_cmd(s, "", "STATUS %s (UIDVALIDITY)", q) < 0)
		return 1;
	if ((*uv = number_after(s->b.p ? s->b.p : "", "UIDVALIDITY")) < 0) {
		cli_err("decode: %s: the server gave no UIDVALIDITY for the folder", s->u.key);
		return 1;
	}
	*last = 0;
	rc = smtpdiag_store_mailbox_get(k->st, s->u.key, &was, last, &err);
	if (rc < 0 && rc != SMTPDIAG_ENOTFOUND) {
		cli_err("decode: %s: store: %s", s->u.key, err.message);
		return -1;
	}
	if (rc == 0 && was != *uv) {
		cli_err("decode: %s: UIDVALIDITY changed from %lld to %lld: the folder is read again "
			"(records already stored count as duplicates)", s->u.key, (long long)was, (long long)*uv);
		*last = 0;
	}
	return 0;
}

/* Ready to move: the folder exists, and how (MOVE, or COPY and UID EXPUNGE). */
static int imap_can_move(sess *s, int *can_move)
{
	char q[MB_CMD_MAX / 2];
	int rc;

	*can_move = 0;
	if (!s->o->move_to && !s->o->del)
		return 0;
	if (s->o->move_to) {
		quote(q, sizeof(q), s->o->move_to, 1);
		if (imap_cmd(s, "", "STATUS %s (MESSAGES)", q) < 0) {
			cli_err("decode: %s: --move-to %s: no such folder?", s->u.key, s->o->move_to);
			return 1;
		}
		if ((rc = has_cap(s, "MOVE")) < 0)
			return 1;
		*can_move = rc;
	}
	if (!*can_move && (rc = has_cap(s, "UIDPLUS")) != 1) {
		if (rc == 0)
			cli_err("decode: %s: the server has neither MOVE nor UIDPLUS (UID EXPUNGE): "
				"messages are not moved or deleted", s->u.key);
		return 1;
	}
	return 0;
}

/* One message: fetched, delivered and committed. 0, 1 (stop: said why), -1 (store). */
static int one_message(sess *s, const mbox_sink *k, const char *path, const char *origin,
		       uint64_t size, int *got)
{
	char why[128];
	CURLcode rc;

	*got = 0;
	if (size > s->o->max_size) {
		snprintf(why, sizeof(why), "message of %llu bytes, over --max-size %zu: not read",
			 (unsigned long long)size, s->o->max_size);
		k->fail(k->ctx, origin, why);
	} else if ((rc = run(s, path, NULL, 0, s->o->max_size)) != CURLE_OK && !s->b.over) {
		say_fail(s, rc);
		return 1;
	} else if (s->b.over) {
		snprintf(why, sizeof(why), "message over --max-size %zu bytes: not read", s->o->max_size);
		k->fail(k->ctx, origin, why);
	} else {
		if (k->deliver(k->ctx, origin, s->b.p ? s->b.p : "", s->b.len) < 0)
			return -1;
		*got = 1;
	}
	return k->commit(k->ctx) < 0 ? -1 : 0;
}

static int imap_messages(sess *s, const mbox_sink *k, int64_t uv, mb_msg *m, size_t n,
			 int can_move, unsigned long *read)
{
	smtpdiag_error err = { 0, "" };
	char path[MB_URL_MAX + 32], origin[MB_URL_MAX + 64];
	int rc, got;

	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/;UID=%llu", s->u.path, (unsigned long long)m[i].uid);
		snprintf(origin, sizeof(origin), "%s;UID=%llu", s->u.key, (unsigned long long)m[i].uid);
		if ((rc = one_message(s, k, path, origin, m[i].size, &got)) != 0)
			return rc;
		(*read)++;
		if (got && imap_act(s, &m[i], can_move) < 0)
			return 1; /* not saved: read again next time, its records duplicates */
		if (smtpdiag_store_mailbox_set(k->st, s->u.key, uv, (int64_t)m[i].uid, &err) < 0) {
			cli_err("decode: %s: store: %s", s->u.key, err.message);
			return -1;
		}
	}
	return 0;
}

static int imap_read(sess *s, const mbox_sink *k, unsigned long *read)
{
	int64_t uv, last;
	mb_msg *m = NULL;
	size_t n;
	int rc, can_move;

	if ((rc = imap_state(s, k, &uv, &last)) != 0 || (rc = imap_can_move(s, &can_move)) != 0)
		return rc;
	if (imap_cmd(s, s->u.path, "UID FETCH %lld:* (UID FLAGS RFC822.SIZE)", (long long)last + 1) < 0)
		return 1;
	if (parse_fetch(s->b.p ? s->b.p : (char *)"", (uint64_t)last, &m, &n) < 0) {
		cli_err("decode: %s: out of memory", s->u.key);
		return 1;
	}
	if (n > s->o->max_messages) {
		cli_err("decode: %s: %zu new messages: reading %lu now, the rest on the next run (--max-messages)",
			s->u.key, n, s->o->max_messages);
		n = s->o->max_messages;
	}
	rc = imap_messages(s, k, uv, m, n, can_move, read);
	free(m);
	return rc;
}

/* ---- POP3 ---- */

/* "N UIDL" lines of the UIDL answer into list (pointing into text). */
static int parse_uidl(char *text, mb_msg **list, size_t *n)
{
	size_t cap = 0;

	*list = NULL;
	*n = 0;
	for (char *line = text, *nl; line && *line; line = nl) {
		char *end, *u;
		unsigned long long no;
		if ((nl = strchr(line, '\n')))
			*nl++ = '\0';
		line[strcspn(line, "\r")] = '\0';
		no = strtoull(line, &end, 10);
		if (end == line || *end != ' ' || !no)
			continue;
		u = end + 1;
		if (!*u || strlen(u) > SMTPDIAG_STORE_MAX_UIDL)
			continue;
		if (*n == cap) {
			mb_msg *q;
			cap = cap ? 2 * cap : 256;
			if (!(q = realloc(*list, cap * sizeof(**list))))
				return -1;
			*list = q;
		}
		(*list)[*n].uid = no;
		(*list)[*n].size = 0;
		(*list)[*n].seen = 0;
		(*list)[(*n)++].uidl = u;
	}
	return 0;
}

/* The sizes of the LIST answer ("N SIZE" lines) into the messages listed. */
static void pop_sizes(const char *text, mb_msg *m, size_t n)
{
	for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		char *end;
		unsigned long long no = strtoull(line, &end, 10);
		if (end == line || *end != ' ')
			continue;
		for (size_t i = 0; i < n; i++)
			if (m[i].uid == no)
				m[i].size = strtoull(end + 1, NULL, 10);
	}
}

static int pop_one(sess *s, const mbox_sink *k, const mb_msg *m, unsigned long *read)
{
	smtpdiag_error err = { 0, "" };
	char path[32], origin[MB_URL_MAX + 96];
	CURLcode c;
	int rc, got;

	snprintf(path, sizeof(path), "%llu", (unsigned long long)m->uid);
	snprintf(origin, sizeof(origin), "%s;UIDL=%s", s->u.key, m->uidl);
	if ((rc = one_message(s, k, path, origin, m->size, &got)) != 0)
		return rc;
	(*read)++;
	if (s->o->del && (c = run(s, path, "DELE", 1, MB_SMALL_MAX)) != CURLE_OK) {
		say_fail(s, c);
		return 1;
	}
	if (smtpdiag_store_uidl_add(k->st, s->u.key, m->uidl, &err) < 0) {
		cli_err("decode: %s: store: %s", s->u.key, err.message);
		return -1;
	}
	return 0;
}

static int pop_read(sess *s, const mbox_sink *k, unsigned long *read)
{
	smtpdiag_error err = { 0, "" };
	mb_msg *m = NULL;
	char *uidls;
	size_t n, todo = 0;
	CURLcode c;
	int rc = 0;

	if ((c = run(s, "", "UIDL", 0, MBOX_MAX_LIST)) != CURLE_OK) {
		say_fail(s, c);
		return 1;
	}
	if (!(uidls = strdup(s->b.p ? s->b.p : "")) || parse_uidl(uidls, &m, &n) < 0) {
		cli_err("decode: %s: out of memory", s->u.key);
		free(uidls);
		return 1;
	}
	if ((c = run(s, "", NULL, 0, MBOX_MAX_LIST)) != CURLE_OK) {
		say_fail(s, c);
		rc = 1;
	}
	if (!rc)
		pop_sizes(s->b.p ? s->b.p : "", m, n);
	for (size_t i = 0; !rc && i < n; i++) {
		int seen = smtpdiag_store_uidl_seen(k->st, s->u.key, m[i].uidl, &err);
		if (seen < 0) {
			cli_err("decode: %s: store: %s", s->u.key, err.message);
			rc = -1;
		} else if (!seen && ++todo > s->o->max_messages) {
			cli_err("decode: %s: more than %lu new messages: the rest on the next run (--max-messages)",
				s->u.key, s->o->max_messages);
			break;
		} else if (!seen) {
			rc = pop_one(s, k, &m[i], read);
		}
	}
	free(m);
	free(uidls);
	return rc;
}

int mbox_read(const mbox_opts *o, const char *pw, const char *url, const mbox_sink *k,
	      unsigned long *read)
{
	sess s;
	char why[256];
	int rc;

	memset(&s, 0, sizeof(s));
	*read = 0;
	if (url_parse(url, &s.u, why, sizeof(why)) < 0) {
		cli_err("decode: %s: %s", url, why);
		return 1;
	}
	if (sess_open(&s, o, pw, why, sizeof(why)) < 0) {
		cli_err("decode: %s: %s", s.u.key, why);
		sess_close(&s);
		return 1;
	}
	rc = s.u.pop ? pop_read(&s, k, read) : imap_read(&s, k, read);
	sess_close(&s);
	return rc;
}

/* ---- waiting for new mail: IMAP IDLE (RFC 2177) ----
 *
 * A second connection, made and logged in by libcurl (CURLOPT_CONNECT_ONLY),
 * selects the folder before a pass reads it; between passes it asks NOOP, then
 * IDLE, and the first "* N EXISTS" after the folder was selected says new mail
 * came (one that came during a pass is announced with the NOOP or the IDLE).
 * Commands and answers go through curl_easy_send() and curl_easy_recv(), so
 * the TLS is libcurl's. A watcher that breaks is closed; decode then looks
 * every --poll seconds and opens a new one before its next pass. */

#define MW_LINE_MAX 8192        /* bytes of one answer line kept (longer ones are skipped) */
#define MW_IDLE_MAX (25 * 60)   /* seconds of one IDLE: servers may end one after 30 minutes (RFC 2177) */
#define MW_ANSWER_TIME 30       /* seconds to wait for the answer to a command */

struct mbox_watch {
	sess s;
	curl_socket_t fd;
	char in[MW_LINE_MAX];
	size_t inlen;
	int skipping;           /* the rest of a line longer than MW_LINE_MAX */
	unsigned tag;
	int news;               /* an EXISTS came since the last wait */
};

/* Send all of text: 0, or -1. */
static int mw_send(mbox_watch *w, const char *text)
{
	size_t len = strlen(text), off = 0;

	while (off < len) {
		size_t n = 0;
		CURLcode rc = curl_easy_send(w->s.h, text + off, len - off, &n);
		if (rc == CURLE_AGAIN) {
			struct pollfd p = { w->fd, POLLOUT, 0 };
			int pr = poll(&p, 1, MW_ANSWER_TIME * 1000);
			if (pr == 0 || (pr < 0 && errno != EINTR))
				return -1; /* no room to send for MW_ANSWER_TIME, or a failure */
			continue;
		}
		if (rc != CURLE_OK)
			return -1;
		off += n;
	}
	return 0;
}

/* The next answer line (without its CRLF) in line, waiting at most ms
 * milliseconds and never past *stop: 1, 0 when the time ran out or stop was
 * set, -1 when the connection closed or failed. */
static int mw_line(mbox_watch *w, char *line, size_t cap, long ms, volatile sig_atomic_t *stop)
{
	for (;;) {
		char *eol = memchr(w->in, '\n', w->inlen);
		if (eol) {
			size_t k = (size_t)(eol - w->in) + 1, l = k - 1;
			int skip = w->skipping;
			if (l && w->in[l - 1] == '\r')
				l--;
			if (l >= cap)
				l = cap - 1;
			memcpy(line, w->in, l);
			line[l] = '\0';
			memmove(w->in, w->in + k, w->inlen - k);
			w->inlen -= k;
			w->skipping = 0;
			if (!skip)
				return 1;
			continue;
		}
		if (w->inlen == sizeof(w->in)) { /* a line too long to keep: its end is dropped */
			w->inlen = 0;
			w->skipping = 1;
		}
		size_t n = 0;
		CURLcode rc = curl_easy_recv(w->s.h, w->in + w->inlen, sizeof(w->in) - w->inlen, &n);
		if (rc == CURLE_OK && n) {
			w->inlen += n;
			continue;
		}
		if (rc != CURLE_AGAIN)
			return -1; /* closed (n == 0) or failed */
		if (ms <= 0 || (stop && *stop))
			return 0;
		struct pollfd p = { w->fd, POLLIN, 0 };
		long slice = ms < 1000 ? ms : 1000; /* a signal's stop is seen within a second */
		if (poll(&p, 1, (int)slice) < 0 && errno != EINTR)
			return -1;
		ms -= slice;
	}
}

/* Is line an untagged "* N EXISTS"? */
static int mw_exists(const char *line)
{
	const char *p = line;

	if (p[0] != '*' || p[1] != ' ' || !isdigit((unsigned char)p[2]))
		return 0;
	for (p += 2; isdigit((unsigned char)*p); p++)
		;
	return !strcasecmp(p, " EXISTS");
}

/* Send "TAG cmd" and read up to the tagged answer: 0 on OK, 1 on NO or BAD,
 * -1 when the connection failed or gave no answer in time. An EXISTS on the
 * way sets news; with want, a line holding it sets *has. */
static int mw_cmd(mbox_watch *w, const char *cmd, const char *want, int *has)
{
	char tag[16], out[MB_CMD_MAX + 32], line[MW_LINE_MAX];
	size_t tl;

	snprintf(tag, sizeof(tag), "W%u ", ++w->tag);
	tl = strlen(tag);
	snprintf(out, sizeof(out), "%s%s\r\n", tag, cmd);
	if (mw_send(w, out) < 0)
		return -1;
	for (;;) {
		if (mw_line(w, line, sizeof(line), MW_ANSWER_TIME * 1000L, NULL) <= 0)
			return -1;
		if (!strncmp(line, tag, tl))
			return strncasecmp(line + tl, "OK", 2) ? 1 : 0;
		if (mw_exists(line))
			w->news = 1;
		if (want && has && strstr(line, want))
			*has = 1;
	}
}

void mbox_watch_close(mbox_watch *w)
{
	if (!w)
		return;
	sess_close(&w->s); /* LOGOUT, then the connection closes */
	free(w);
}

mbox_watch *mbox_watch_open(const mbox_opts *o, const char *pw, const char *url, int *never, char *why,
			    size_t len)
{
	mbox_watch *w = calloc(1, sizeof(*w));
	char cmd[MB_CMD_MAX], q[MB_CMD_MAX / 2];
	int idle = 0, c;
	curl_socket_t fd = CURL_SOCKET_BAD;
	CURLcode rc;

	if (!w) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	if (url_parse(url, &w->s.u, why, len) < 0 || sess_open(&w->s, o, pw, why, len) < 0)
		goto fail;
	*never = 0;
	if (w->s.u.pop) {
		*never = 1;
		snprintf(why, len, "POP3 has no IDLE");
		goto fail;
	}
	curl_easy_setopt(w->s.h, CURLOPT_CONNECT_ONLY, 1L); /* connect, TLS and login; no transfer */
	if ((rc = run(&w->s, "", NULL, 0, MB_SMALL_MAX)) != CURLE_OK) {
		snprintf(why, len, "%s", curl_easy_strerror(rc));
		goto fail;
	}
	if (curl_easy_getinfo(w->s.h, CURLINFO_ACTIVESOCKET, &fd) != CURLE_OK || fd == CURL_SOCKET_BAD) {
		snprintf(why, len, "libcurl gave no socket");
		goto fail;
	}
	w->fd = fd;
	if ((c = mw_cmd(w, "CAPABILITY", " IDLE", &idle)) != 0 || !idle) {
		*never = c >= 0;
		snprintf(why, len, c < 0 ? "no answer to CAPABILITY" : "the server offers no IDLE");
		goto fail;
	}
	quote(q, sizeof(q), w->s.u.folder, 0);
	snprintf(cmd, sizeof(cmd), "EXAMINE %s", q); /* read-only: the watcher changes no flag */
	if (mw_cmd(w, cmd, NULL, NULL) != 0) {
		snprintf(why, len, "the folder could not be selected to wait on");
		goto fail;
	}
	w->news = 0; /* the EXISTS of EXAMINE counts what is there, not new mail */
	return w;
fail:
	mbox_watch_close(w);
	return NULL;
}

int mbox_watch_wait(mbox_watch *w, unsigned seconds, volatile sig_atomic_t *stop)
{
	char tag[16], line[MW_LINE_MAX];
	long ms = 1000L * (seconds < MW_IDLE_MAX ? seconds : MW_IDLE_MAX);
	int r;

	/* what came while the passes ran: announced now, before IDLE */
	if (mw_cmd(w, "NOOP", NULL, NULL) != 0)
		return -1;
	if (w->news) {
		w->news = 0;
		return 1;
	}
	snprintf(tag, sizeof(tag), "W%u ", ++w->tag);
	snprintf(line, sizeof(line), "%sIDLE\r\n", tag);
	if (mw_send(w, line) < 0)
		return -1;
	do { /* "+ idling", after untagged answers */
		if (mw_line(w, line, sizeof(line), MW_ANSWER_TIME * 1000L, NULL) <= 0 ||
		    !strncmp(line, tag, strlen(tag)))
			return -1;
		if (mw_exists(line))
			w->news = 1;
	} while (line[0] != '+');
	while (!w->news && !(stop && *stop)) {
		r = mw_line(w, line, sizeof(line), ms, stop);
		if (r < 0)
			return -1;
		if (r == 0)
			break; /* the time ran out, or a signal */
		if (mw_exists(line))
			w->news = 1;
		else if (!strncasecmp(line, "* BYE", 5))
			return -1;
	}
	if (mw_send(w, "DONE\r\n") < 0)
		return -1;
	for (;;) {
		if (mw_line(w, line, sizeof(line), MW_ANSWER_TIME * 1000L, NULL) <= 0)
			return -1;
		if (!strncmp(line, tag, strlen(tag)))
			break;
		if (mw_exists(line))
			w->news = 1;
	}
	r = w->news;
	w->news = 0;
	return r;
}
