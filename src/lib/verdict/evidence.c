/* evidence.c - the one evidence builder: what explain, decode and scan read
 * (reply code, status, text, command, what the MTA did, hosts, a format
 * module's hint, the mode) becomes the engine's evidence here, by the same
 * steps for every caller. The callers hand their raw facts in; what is
 * missing is filled in the same way for all of them: the status and the
 * command from the text (the code finder's, smtp/), the kind of diagnostic,
 * what the MTA did from its own word, the lowercased text. */
#include "verdict/engine.h"
#include "verdict/userrules.h"

void sd_facts_init(sd_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->hint = -1;
}

static const char *str(const char *s)
{
	return s ? s : "";
}

/* The MTA's word for what it did, as evidence. "reply": the client got the
 * reply itself, one attempt of its class (a 4xx is retried, RFC 5321 4.2.1). */
static int action_of(sd_str w, int cls)
{
	static const struct {
		const char *word;
		int ev;
	} map[] = {
		{ "failed", SD_EV_FAILED },     { "failure", SD_EV_FAILED },    { "fail", SD_EV_FAILED },
		{ "bounced", SD_EV_FAILED },    { "delayed", SD_EV_DELAYED },   { "expired", SD_EV_EXPIRED },
		{ "delivered", SD_EV_DELIVERED }, { "sent", SD_EV_DELIVERED },  { "deferred", SD_EV_ATTEMPT },
	};

	w = sd_trim(w);
	if (sd_str_caseeq(w, "reply"))
		return cls == 4 ? SD_EV_ATTEMPT : cls == 5 ? SD_EV_FAILED : cls == 2 ? SD_EV_DELIVERED : SD_EV_NONE;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (sd_str_caseeq(w, map[i].word))
			return map[i].ev;
	return SD_EV_NONE;
}

/* The class of what was read: the reply code's, else the status's. */
static int read_class(const sd_facts *f, const char *status)
{
	int c = f->replycode / 100;

	if (c == 2 || c == 4 || c == 5)
		return c;
	return status[0] && status[1] == '.' ? status[0] - '0' : 0;
}

/* The kind of diagnostic: the one read, else a local delivery agent's when the
 * format module says so, else none for reports that are no failures
 * (feedback, auto-replies), else an SMTP reply's. */
static const char *diagtype_of(const sd_facts *f)
{
	if (f->diagtype && f->diagtype[0])
		return f->diagtype;
	if (f->hint == SD_R_mailererror)
		return "X-UNIX";
	if (f->hint == SD_R_feedback || f->hint == SD_R_vacation)
		return "";
	return "SMTP";
}

void sd_evidence_build(sd_arena *a, const sd_facts *f, sd_evidence *ev, char status[SD_STATUS_MAX])
{
	sd_evidence_init(ev);
	ev->replycode = f->replycode;
	ev->text = f->textn ? f->text : "";
	ev->textn = f->textn;
	ev->status = str(f->status);
	if (!ev->status[0] && ev->textn) { /* a status elsewhere in the text ("#5.1.1") */
		sd_text_status(ev->text, ev->textn, 0, status);
		ev->status = status;
	}
	ev->action = action_of(f->action, read_class(f, ev->status));
	ev->warning = f->warning;
	if (f->warning && !ev->action)
		ev->action = SD_EV_DELAYED;
	if (ev->textn && a && ev->action != SD_EV_DELIVERED &&
	    !(ev->lc = sd_arena_strndup_lower(a, (sd_str){ ev->text, ev->textn })))
		ev->textn = 0;
	ev->diagtype = diagtype_of(f);
	ev->command = str(f->command);
	if (!ev->command[0])
		ev->command = sd_vd_command_find(ev->text, ev->textn);
	ev->hint = f->hint;
	ev->rhost = str(f->rhost);
	ev->lhost = str(f->lhost);
	ev->destination = str(f->destination);
	ev->mode = f->mode;
	ev->inbound = f->inbound;
	ev->redacted = f->redacted;
	if (f->feedbacktype.n && a)
		ev->feedbacktype = sd_arena_strndup_lower(a, sd_trim(f->feedbacktype));
	if (!ev->feedbacktype)
		ev->feedbacktype = "";
	sd_urun_attach(f->user, ev, f->domain);
}
