/* fml.c - fml mailing list manager notices (X-MLServer, From: list-admin@).
 *
 *     Duplicated Message-ID in <list@example.co.jp>.
 *     Original mail as follows:
 * The notice names the reason for sure (loop, not a member, security alert). */
#include "decode/formats/mta.h"

static const struct {
	const char *text;
	int reason;
} says[] = {
	{ " header may cause mail loop", SD_R_rejected },
	{ "NOT MEMBER article from ", SD_R_rejected },
	{ "reject mail from ", SD_R_rejected },
	{ "reject spammers:", SD_R_rejected },
	{ "You are not a member of this mailing list", SD_R_rejected },
	{ " has detected a loop condition so that", SD_R_systemerror },
	{ "Duplicated Message-ID", SD_R_systemerror },
	{ "Loop Back Warning:", SD_R_systemerror },
	{ "Security alert:", SD_R_securityerror },
};

/* When the text says nothing known: the Subject's words. */
static const struct {
	const char *text;
	int reason;
} titles[] = {
	{ " are not member", SD_R_rejected },
	{ "NOT MEMBER article from ", SD_R_rejected },
	{ "reject mail ", SD_R_rejected },
	{ "Spam mail from a spammer is rejected", SD_R_rejected },
	{ "fml system error message", SD_R_systemerror },
	{ "Loop Alert: ", SD_R_systemerror },
	{ "Loop Back Warning: ", SD_R_systemerror },
	{ "WARNING: UNIX FROM Loop", SD_R_systemerror },
	{ "Security Alert", SD_R_securityerror },
};

static int is_fml(const sd_ctx *c)
{
	sd_str mid = mta_hdr(c, "Message-Id");

	return mta_hdr(c, "X-MLServer").p && mta_has(c->from, "-admin@") && mta_has(mid, ".FML");
}

static int fml_reason(sd_str diag, sd_str subject)
{
	for (size_t i = 0; i < sizeof(says) / sizeof(says[0]); i++)
		if (sd_memmem(diag.p, diag.n, says[i].text, strlen(says[i].text)))
			return says[i].reason;
	for (size_t i = 0; i < sizeof(titles) / sizeof(titles[0]); i++)
		if (subject.n && sd_memmem(subject.p, subject.n, titles[i].text, strlen(titles[i].text)))
			return titles[i].reason;
	return -1;
}

int sd_fmt_fml(sd_ctx *c)
{
	sd_str body, line, lt;
	size_t pos = 0, first = c->nrcpt;
	sd_rcpt *cur = NULL;

	if (!is_fml(c))
		return 0;
	body = mta_before(mta_body(c), "Original mail as follows:");
	while (sd_next_line(body, &pos, &line)) {
		lt = mta_after(line, "<");
		if (lt.p && lt.p > line.p + 1 && mta_find(lt, ">").p && (cur = sd_ctx_add(c))) {
			cur->recipient = mta_before(lt, ">");
			cur->diagnostic = line;
		} else if (cur) {
			cur->diagnostic = mta_join(c->a, cur->diagnostic, line);
		}
	}
	for (size_t i = first; i < c->nrcpt; i++) {
		sd_rcpt *r = &c->rcpts[i];
		r->diagnostic = mta_squeeze(c->a, r->diagnostic);
		r->reason = fml_reason(r->diagnostic, c->subject);
	}
	return (int)(c->nrcpt - first);
}
