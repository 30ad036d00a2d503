/* mtarec.h - the record vocabularies of the MTAs that write one record per
 * recipient and attempt: KumoMTA's log records and PowerMTA's accounting
 * records. scan reads them from log files, esp from the MTAs' webhooks; both
 * ask these tables what a record type is and where its reply is, so one
 * place decides. */
#ifndef SD_MTAREC_H
#define SD_MTAREC_H

#include <jansson.h>

#include "core/util.h"

/* What a record says happened. */
enum {
	SD_MTA_UNKNOWN = -1, /* a type the MTA does not document */
	SD_MTA_NONE = 0,     /* documented, no delivery attempt (a reception, a rebind ...) */
	SD_MTA_SENT,         /* delivered or relayed */
	SD_MTA_DEFERRED,     /* a transient failure: the MTA tries again */
	SD_MTA_BOUNCED,      /* a permanent failure: the MTA gives up */
	SD_MTA_EXPIRED,      /* given up after transient failures, its time in the queue over */
	SD_MTA_OOB,          /* a bounce received back after the message was passed on */
	SD_MTA_ADMIN,        /* failed by the MTA's operator, not by a receiver */
	SD_MTA_FEEDBACK      /* a feedback loop report: a complaint */
};

/* ---- KumoMTA (mta/kumo.c) ---- */

#define SD_KUMO_HEAD_MAX 32 /* bytes of "599 5.999.999 " and its NUL */

/* The record type ("Bounce") as an SD_MTA_*. */
int sd_kumo_type(sd_str type);
/* The head of the reply of a record's response object: "550 5.1.1 " from
 * code and enhanced_code {class, subject, detail}, each given only when in
 * range. Written to head (NUL-ended); returns its length, 0 for none. The
 * reply is the head followed by response.content. */
size_t sd_kumo_reply_head(json_t *resp, char head[SD_KUMO_HEAD_MAX]);

/* ---- PowerMTA (mta/pmta.c) ---- */

/* The accounting fields both readers know, by their record-fields names. */
enum { SD_PMTA_TYPE, SD_PMTA_TLOG, SD_PMTA_TQUEUED, SD_PMTA_ORIG, SD_PMTA_RCPT, SD_PMTA_ORCPT,
       SD_PMTA_ACTION, SD_PMTA_STATUS, SD_PMTA_DIAG, SD_PMTA_MTA, SD_PMTA_DSTIP, SD_PMTA_ENVID,
       SD_PMTA_VMTA, SD_PMTA_NKEYS };
extern const char *const sd_pmta_names[SD_PMTA_NKEYS];

/* The record type, short or long ("b" or "bounce"), as an SD_MTA_*: rs
 * (remote status) by its dsnAction, b of a 4.x.x dsnStatus expired (the
 * message timed out after transient failures). *queue_level is set for tq,
 * the failure of a whole queue (no recipient). */
int sd_pmta_type(sd_str type, sd_str action, sd_str status, int *queue_level);
/* The remote's reply in dsnDiag: "smtp;550 5.1.1 ..." gives "550 5.1.1 ...";
 * another diagnostic type, or no reply code, gives none. */
sd_str sd_pmta_reply(sd_str diag);
/* The status of dsnStatus: "5.1.1" of "5.1.1 (bad destination mailbox address)". */
sd_str sd_pmta_status(sd_str st);

#endif
