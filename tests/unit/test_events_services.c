/* test_events_services.c - smtpdiag_events_services(): which services' events
 * a body holds, as a server asks before it checks their signatures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "smtpdiag.h"

static unsigned long bit(const char *name)
{
	const char *n;

	for (size_t i = 0; (n = smtpdiag_esp_name(i)) != NULL; i++)
		if (!strcmp(n, name))
			return 1ul << i;
	fail_msg("no service %s", name);
	return 0;
}

static const struct {
	const char *body, *esp;
	const char *want[3]; /* services, NULL-ended */
} cases[] = {
	{ "{\"event-data\":{\"event\":\"failed\"}}", NULL, { "mailgun" } },
	{ "[{\"email\":\"a@b.example\",\"event\":\"bounce\",\"sg_event_id\":\"x\"}]", NULL, { "sendgrid" } },
	/* JSON Lines of two services; the bad line between them is skipped */
	{ "{\"RecordType\":\"Bounce\",\"Email\":\"a@b.example\",\"Type\":\"HardBounce\"}\n{oops\n"
	  "{\"event-data\":{\"event\":\"failed\"}}\n",
	  NULL, { "postmark", "mailgun" } },
	/* a forced service: every event is its */
	{ "{\"event-data\":{\"event\":\"failed\"}}", "postmark", { "postmark" } },
	{ "event=bounced&recipient=a%40b.example&token=t&signature=s&timestamp=1", NULL, { "mailgun" } },
	/* the MTAs' webhooks: told by a record type and fields no service posts */
	{ "{\"type\":\"Bounce\",\"recipient\":\"a@b.example\",\"response\":{\"code\":550}}", NULL, { "kumomta" } },
	{ "[{\"type\":\"b\",\"timeLogged\":\"1709551200\",\"rcpt\":\"a@b.example\",\"dsnStatus\":\"5.1.1\"}]", NULL,
	  { "powermta" } },
	/* a record of KumoMTA and one of PowerMTA in JSON Lines, neither taken for the other */
	{ "{\"type\":\"Delivery\",\"recipient\":\"a@b.example\",\"response\":{}}\n"
	  "{\"type\":\"delivery\",\"rcpt\":\"a@b.example\",\"timeLogged\":\"1\"}\n",
	  NULL, { "kumomta", "powermta" } },
	/* a SparkPost bounce names rcpt_to, not PowerMTA's rcpt */
	{ "{\"type\":\"bounce\",\"rcpt_to\":\"a@b.example\",\"message_id\":\"m\"}", NULL, { "sparkpost" } },
	/* the events of each service's account are its own, to be ignored by name */
	{ "{\"event\":\"account_status_change\",\"sg_event_id\":\"x\",\"type\":\"compliance_suspend\"}", NULL,
	  { "sendgrid" } },
	{ "{\"type\":\"blacklist\",\"action\":\"add\",\"reject\":{\"email\":\"a@b.example\"}}", NULL, { "mandrill" } },
	{ "{\"type\":\"contact.created\",\"created_at\":\"2024-03-04T12:00:00Z\",\"data\":{}}", NULL, { "resend" } },
	{ "{\"type\":\"maintenance.start\",\"webhook_id\":\"w\",\"data\":{}}", NULL, { "mailersend" } },
	{ "{\"hello\":1}", NULL, { NULL } },
	{ "not json", NULL, { NULL } },
	{ "{\"event-data\":{}}", "nosuch", { NULL } },
	{ "", NULL, { NULL } },
};

static void test_services(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned long want = 0;
		for (int k = 0; k < 3 && cases[i].want[k]; k++)
			want |= bit(cases[i].want[k]);
		unsigned long got = smtpdiag_events_services(cases[i].body, strlen(cases[i].body), cases[i].esp);
		if (got != want)
			fail_msg("case %zu: got %#lx, want %#lx", i, got, want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_services),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
