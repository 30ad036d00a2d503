/* blocklist.c - the names of block lists and reputation blocks (blocklist.h).
 *
 * Each row is a word as the list or the provider writes it into a refusal: a
 * DNS zone, a lookup page, a provider's code. A word matches as a word of its
 * own (no letter or digit just before or after it), ignoring case; the first
 * row that matches names the list, so the more specific rows come first.
 * Sources: the lists' and providers' own pages (Spamhaus's DNSBL usage FAQ and
 * return-code notes, Barracuda Central, SpamCop, UCEPROTECT, SORBS, Microsoft's
 * and Yahoo's postmaster pages, Gmail's bulk-sender help, Proofpoint's and
 * Cloudmark's reputation centres, Mimecast's error-code page) and the replies
 * they document; docs/incidents.md lists the table. */
#include <string.h>

#include "core/util.h"
#include "scan/blocklist.h"

typedef struct bl_row {
	const char *word, *name;
} bl_row;

/* Spamhaus's return codes (DNSBL usage FAQ) and zones, each naming the list
 * of the ZEN union it comes from; the 127.255.255.0/24 errors name no list of
 * their own (see sd_blocklist_query_error). */
static const bl_row spamhaus[] = {
	{ "127.0.0.2", "Spamhaus SBL" },     { "127.0.0.3", "Spamhaus SBL CSS" },
	{ "127.0.0.4", "Spamhaus XBL" },     { "127.0.0.5", "Spamhaus XBL" },
	{ "127.0.0.6", "Spamhaus XBL" },     { "127.0.0.7", "Spamhaus XBL" },
	{ "127.0.0.9", "Spamhaus DROP" },    { "127.0.0.10", "Spamhaus PBL" },
	{ "127.0.0.11", "Spamhaus PBL" },    { "sbl.spamhaus.org", "Spamhaus SBL" },
	{ "xbl.spamhaus.org", "Spamhaus XBL" }, { "pbl.spamhaus.org", "Spamhaus PBL" },
	{ "dbl.spamhaus.org", "Spamhaus DBL" }, { "spamhaus.org/sbl", "Spamhaus SBL" },
	{ "spamhaus.org/pbl", "Spamhaus PBL" }, { "spamhaus.org/xbl", "Spamhaus XBL" },
	{ "css.spamhaus.org", "Spamhaus SBL CSS" },
};

static const bl_row rows[] = {
	/* Microsoft (Outlook.com and Exchange Online): the codes in the refusal */
	{ "S3150", "Microsoft S3150" },
	{ "S3140", "Microsoft S3140" },
	{ "S3114", "Microsoft S3114" },
	{ "banned sending IP", "Microsoft banned sending IP" },
	{ "SC-001", "Microsoft SC-001" },
	{ "SC-002", "Microsoft SC-002" },
	{ "SC-003", "Microsoft SC-003" },
	{ "SC-004", "Microsoft SC-004" },
	/* Yahoo and AOL (one platform): the bracketed codes of its 421 deferrals */
	{ "TSS04", "Yahoo TSS04" },
	{ "TSS05", "Yahoo TSS05" },
	{ "TSS09", "Yahoo TSS09" },
	{ "TS01", "Yahoo TS01" },
	{ "TS02", "Yahoo TS02" },
	{ "TS03", "Yahoo TS03" },
	/* Gmail's reputation refusals (support.google.com/mail, bulk senders) */
	{ "UnsolicitedRateLimitError", "Gmail unusual rate" },
	{ "UnsolicitedIPError", "Gmail unusual rate" },
	{ "unusual rate of unsolicited mail", "Gmail unusual rate" },
	{ "unusual rate of", "Gmail unusual rate" },
	{ "very low reputation of the sending domain", "Gmail low reputation" },
	{ "very low reputation of the sending IP address", "Gmail low reputation" },
	{ "low reputation of the sending", "Gmail low reputation" },
	/* the public DNS block lists */
	{ "spamhaus", "Spamhaus" },
	{ "b.barracudacentral.org", "Barracuda" },
	{ "barracudacentral", "Barracuda" },
	{ "barracuda reputation", "Barracuda" },
	{ "spamcop", "SpamCop" },
	{ "uceprotect", "UCEPROTECT" },
	{ "sorbs", "SORBS" },
	{ "psbl.surriel.com", "PSBL" },
	{ "psbl", "PSBL" },
	{ "mailspike", "Mailspike" },
	{ "invaluement", "Invaluement" },
	{ "ix.dnsbl.manitu.net", "NiX Spam" },
	{ "abusix", "Abusix" },
	{ "dronebl", "DroneBL" },
	{ "spamrats", "SpamRATS" },
	{ "senderscore", "Sender Score" },
	{ "0spam", "0spam" },
	{ "wpbl", "WPBL" },
	{ "blocklist.de", "blocklist.de" },
	{ "spameatingmonkey", "SpamEatingMonkey" },
	{ "truncate.gbudb.net", "GBUdb" },
	/* filtering services' own reputation */
	{ "cloudmark", "Cloudmark" },
	{ "proofpoint", "Proofpoint" },
	{ "mimecast", "Mimecast" },
	{ "talosintelligence", "Cisco Talos" },
	{ "senderbase", "Cisco Talos" },
	{ "sbrs", "Cisco Talos" },
	{ "trendmicro", "Trend Micro" },
	{ "mail-abuse.com", "Trend Micro" },
};

static const bl_row errors[] = {
	{ "127.255.255.252", "typing error in the DNSBL name (127.255.255.252)" },
	{ "127.255.255.254", "query through a public or open resolver (127.255.255.254)" },
	{ "127.255.255.255", "excessive number of queries (127.255.255.255)" },
	{ "spamhaus.org/returnc/vol", "excessive number of queries" },
	{ "spamhaus.org/returnc/pub", "query through a public or open resolver" },
	{ "spamhaus.org/returnc", "a query error of the block list" },
	{ "open resolver", "query through a public or open resolver" },
	{ "public resolver", "query through a public or open resolver" },
	{ "excessive number of queries", "excessive number of queries" },
	{ "query refused", "query refused by the block list" },
};

static const char *first_word(const char *t, size_t n, const bl_row *r, size_t k)
{
	for (size_t i = 0; i < k; i++)
		if (sd_has_word(t, n, r[i].word, strlen(r[i].word), 1))
			return r[i].name;
	return NULL;
}

const char *sd_blocklist_name(const char *text, size_t n)
{
	const char *name;

	if (!text || !n)
		return NULL;
	name = first_word(text, n, rows, sizeof(rows) / sizeof(rows[0]));
	if (name && !strcmp(name, "Spamhaus")) {
		const char *sub = first_word(text, n, spamhaus, sizeof(spamhaus) / sizeof(spamhaus[0]));
		return sub ? sub : name;
	}
	return name;
}

const char *sd_blocklist_query_error(const char *text, size_t n)
{
	if (!text || !n)
		return NULL;
	if (sd_memmem(text, n, "127.255.255.", 12) && !sd_has_word(text, n, "127.255.255.252", 15, 0) &&
	    !sd_has_word(text, n, "127.255.255.254", 15, 0) && !sd_has_word(text, n, "127.255.255.255", 15, 0))
		return "an error answer of the block list (127.255.255.x)";
	return first_word(text, n, errors, sizeof(errors) / sizeof(errors[0]));
}
