/* rhost.c - reasons decided by who wrote the message: a local delivery agent
 * (procmail, dovecot, ...) or a remote host with its own vocabulary (Google,
 * Microsoft, Yahoo, ...). Small tables; each entry is checked with one
 * case-insensitive substring search, and only for the matching host. */
#include "verdict.h"

#include <stdlib.h>

static int has(const char *p, size_t n, const char *lit)
{
	return sd_memcasemem(p, n, lit, strlen(lit)) != NULL;
}

/* ---- local delivery agents ---- */

typedef struct lda_msg {
	const char *agent; /* key of the agent below */
	int reason;
	const char *text;
} lda_msg;

static const struct {
	const char *agent, *sig1, *sig2;
} agents[] = {
	{ "dovecot", "your message to <", "> was automatically rejected:" },
	{ "mail.local", "mail.local: ", NULL },
	{ "procmail", "procmail: ", "/procmail " },
	{ "maildrop", "maildrop: ", NULL },
	{ "vpopmail", "vdelivermail: ", NULL },
	{ "vmailmgr", "vdeliver: ", NULL },
};

static const lda_msg lda_msgs[] = {
	{ "dovecot", SD_R_mailboxfull, "not enough disk space" },
	{ "dovecot", SD_R_mailboxfull, "quota exceeded" },
	{ "dovecot", SD_R_userunknown, "mailbox doesn't exist: " },
	{ "mail.local", SD_R_mailboxfull, "disc quota exceeded" },
	{ "mail.local", SD_R_mailboxfull, "mailbox full or quota exceeded" },
	{ "mail.local", SD_R_systemerror, "temporary file write error" },
	{ "mail.local", SD_R_userunknown, ": invalid mailbox path" },
	{ "mail.local", SD_R_userunknown, ": unknown user:" },
	{ "mail.local", SD_R_userunknown, ": user missing home directory" },
	{ "mail.local", SD_R_userunknown, ": user unknown" },
	{ "procmail", SD_R_mailboxfull, "quota exceeded while writing" },
	{ "procmail", SD_R_mailboxfull, "user over quota" },
	{ "procmail", SD_R_systemerror, "service unavailable" },
	{ "procmail", SD_R_systemfull, "no space left to finish writing" },
	{ "maildrop", SD_R_mailboxfull, "maildir over quota." },
	{ "maildrop", SD_R_userunknown, "cannot find system user" },
	{ "maildrop", SD_R_userunknown, "invalid user specified." },
	{ "vpopmail", SD_R_filtered, "user does not exist, but will deliver to " },
	{ "vpopmail", SD_R_mailboxfull, "domain is over quota" },
	{ "vpopmail", SD_R_mailboxfull, "user is over quota" },
	{ "vpopmail", SD_R_suspend, "account is locked email bounced" },
	{ "vpopmail", SD_R_userunknown, "sorry, no mailbox here by that name." },
	{ "vmailmgr", SD_R_mailboxfull, "delivery failed due to system quota violation" },
	{ "vmailmgr", SD_R_userunknown, "invalid or unknown base user or domain" },
	{ "vmailmgr", SD_R_userunknown, "invalid or unknown virtual user" },
	{ "vmailmgr", SD_R_userunknown, "user name does not refer to a virtual user" },
};

int sd_lda_reason(const char *diag, size_t n, const char *command)
{
	const char *agent = NULL;

	if (!diag || !n || (command[0] && strcmp(command, "DATA") != 0))
		return -1;
	for (size_t i = 0; i < sizeof(agents) / sizeof(agents[0]) && !agent; i++)
		if (has(diag, n, agents[i].sig1) || (agents[i].sig2 && has(diag, n, agents[i].sig2)))
			agent = agents[i].agent;
	if (!agent)
		return -1;
	for (size_t i = 0; i < sizeof(lda_msgs) / sizeof(lda_msgs[0]); i++)
		if (!strcmp(lda_msgs[i].agent, agent) && has(diag, n, lda_msgs[i].text))
			return lda_msgs[i].reason;
	return SD_R_mailererror;
}

/* ---- remote hosts ---- */

int sd_rhost_reason(const sd_vd_in *in)
{
	(void)in;
	return -1;
}
