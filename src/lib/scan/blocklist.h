/* blocklist.h - the names of block lists and reputation blocks in reply texts.
 *
 * One table (blocklist.c) names the list or the provider's own reputation block
 * a reply text quotes: the lists' zones, lookup pages and the providers' codes
 * (docs/incidents.md has the table). It names; the verdict decides what the
 * refusal means (src/lib/verdict). */
#ifndef SD_BLOCKLIST_H
#define SD_BLOCKLIST_H

#include <stddef.h>

/* The canonical name of the block list or reputation block the text names
 * ("Spamhaus", "Spamhaus PBL", "Barracuda", "SpamCop", "Microsoft S3150",
 * "Yahoo TSS04", "Gmail unusual rate", ...), or NULL when it names none. The
 * name is a static string. Case is ignored; the text need not end in a NUL. */
const char *sd_blocklist_name(const char *text, size_t n);

/* What a list's answer quoted in the text says about the query itself, not
 * the sender: Spamhaus's error range 127.255.255.0/24 and the words lists and
 * MTAs write for it ("open resolver", "excessive number of queries", "query
 * refused"). A static phrase, or NULL when the text quotes no such answer. */
const char *sd_blocklist_query_error(const char *text, size_t n);

#endif
