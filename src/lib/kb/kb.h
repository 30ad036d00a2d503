/* kb.h - the knowledge base compiled into the library (tables made by tools/kbgen). */
#ifndef SD_KB_H
#define SD_KB_H

#include <stddef.h>

/* An explanation entry written in a kb/entries file. Lists are NULL-terminated. */
typedef struct sd_kb_entry {
	const char *key;        /* "431", "X.3.1", "5.3.1", "552 4.3.1" */
	const char *title, *short_answer, *quick_fix, *meaning, *fixer;
	const char *const *causes;
	const char *const *fixes;
	const char *const *paired;
	const char *const *related;
	const char *const *faq_q;
	const char *const *faq_a;
	const char *const *refs;
	const char *const *aka; /* other words people use for it ("user unknown"), for search */
} sd_kb_entry;

/* A reply code from reply-codes.tsv (rows merged per code). */
typedef struct sd_kb_reply {
	int code;
	int defined;            /* 1: an RFC defines it (defined/usage/experimental/example) */
	const char *text;       /* RFC reply text of the first row */
	const char *rfcs;       /* "RFC 5321 4.2.2/4.2.3; RFC 4954" */
	const char *commands;   /* commands of the rows, "; " separated */
	const char *statuses;   /* enhanced codes the rows name, "" if none */
} sd_kb_reply;

/* A registered enhanced status from enhanced-status-codes.tsv. */
typedef struct sd_kb_status {
	const char *code;       /* "X.3.1" */
	int subject, detail;
	unsigned allowed;       /* bit 2, 4, 5 set for allowed classes; all three for "any" */
	const char *allowed_text;
	const char *sample;     /* registry sample text */
	const char *basic;      /* basic reply codes as listed */
	const char *reference;
	int deprecated;
} sd_kb_status;

typedef struct sd_kb_nonstd {
	int code;
	const char *usual;
	const char *seen_from;
	const char *source;
	const char *notes;
} sd_kb_nonstd;

typedef struct sd_kb_vendor {
	const char *vendor;
	int replycode;          /* 0 when the row gives none */
	const char *status;     /* "4.2.1", "4.7.500-699", "" */
	const char *snippet;
	const char *meaning;
	const char *action;     /* retry, fix-sender-config, fix-authentication, ... */
	int differs;            /* the vendor's meaning differs from the registry's */
	const char *check;      /* registry comparison as noted */
	const char *source;
	const char *const *pieces; /* the snippet's literal pieces a text must hold in order
				    * (placeholders and elided text cut out); NULL-terminated */
	const char *reason;     /* a reason name of verdict/reasons.def */
	const char *advice;     /* an advice word (docs/reasons.md) */
	const char *title;      /* the meaning's first clause */
	const char *quick_fix;  /* one imperative sentence */
} sd_kb_vendor;

extern const sd_kb_entry sd_kb_entries[];
extern const size_t sd_kb_nentries;
extern const sd_kb_reply sd_kb_replies[];
extern const size_t sd_kb_nreplies;
extern const sd_kb_status sd_kb_statuses[];
extern const size_t sd_kb_nstatuses;
extern const sd_kb_nonstd sd_kb_nonstds[];
extern const size_t sd_kb_nnonstds;
extern const sd_kb_vendor sd_kb_vendors[];
extern const size_t sd_kb_nvendors;
extern const char *const sd_kb_subject_titles[8];
extern const char *const sd_kb_subject_texts[8];

const sd_kb_entry *sd_kb_find_entry(const char *key);
const sd_kb_reply *sd_kb_find_reply(int code);
const sd_kb_status *sd_kb_find_status(int subject, int detail);
const sd_kb_nonstd *sd_kb_find_nonstd(int code);

#endif
