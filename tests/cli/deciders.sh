#!/bin/sh
# Front ends print, never decide: outside src/lib/verdict/ no code sets a
# verdict's reason, advice, retry, hard bounce or fixer. The one copy-out of a
# decided verdict is src/lib/verdict/copyout.c. Allowed outside it, each for
# its reason (the allow-list):
#   src/lib/store/record.c, src/lib/store/query.c  keep verdicts made before and
#       read them back (copies, never a new decision);
#   src/lib/decode/formats/, src/lib/esp/, src/lib/bounce/  a format module's
#       reason hint (sd_rcpt.reason = SD_R_..., -1 for none): evidence handed
#       to the funnel, which may overrule it;
#   a copy of a decided verdict's reason (x->reason = y->reason), and the reason
#       a user filters the store by (src/cli/cmd_store.c).
# The check runs on a planted decision too, and must fail there.
. "$(dirname "$0")/lib.sh"

ALLOW='^src/lib/verdict/|^src/lib/store/(record|query)\.c:'
HINTS='^src/lib/(decode/formats|esp|bounce)/'
FIELDS='(\.|->)(hardbounce|retry|advice|fixers?)[[:space:]]*=[^=]'
NAMES='(\.|->)reason[[:space:]]*=[^=]'
# what sets a reason without deciding one: a copy of a decided verdict's
# reason (a summary keeps one), the reason a user filters the store by
COPIES='(\.|->)reason[[:space:]]*=[[:space:]]*(strdup\(nz\()?[a-z_]+(->|\.)reason[^_a-z]|^src/cli/cmd_store\.c:[0-9]+:.*a->reason = p->value;'
ENUMS='(\.|->)reason[[:space:]]*=[[:space:]]*SD_R_|[^!=<>]=[[:space:]]*(SD_A_|sd_advice_name)'

# deciders DIR: the places under DIR/src that set a verdict field, one a line
deciders() {
	(cd "$1" && grep -rnE "$FIELDS|$NAMES|$ENUMS" src --include='*.c' --include='*.h' |
		grep -vE "$ALLOW" | grep -vE "$COPIES" |
		grep -vE "$HINTS.*(->|\.)reason[[:space:]]*=[[:space:]]*([^[:space:]s\"]|s[^d])" || true)
}

n=$((n + 1))
deciders . >"$TMP/found"
if [ ! -s "$TMP/found" ]; then echo "ok $n - nothing outside src/lib/verdict/ sets a verdict field"; else
	echo "not ok $n - verdict fields set outside src/lib/verdict/:"; sed 's/^/#   /' "$TMP/found"; fi

# planted decisions, one a kind: each must be found
mkdir -p "$TMP/plant/src/cli" "$TMP/plant/src/httpd" "$TMP/plant/src/lib/scan"
printf 'static void f(smtpdiag_fact *f) { f->advice = "retry"; }\n' >"$TMP/plant/src/cli/a.c"
printf 'static void f(smtpdiag_logrec *r) { r->hardbounce = 1; }\n' >"$TMP/plant/src/httpd/b.c"
printf 'static void f(smtpdiag_fact *f) { f->reason = sd_reason_name(SD_R_userunknown); }\n' >"$TMP/plant/src/lib/scan/c.c"
printf 'static void f(sd_rcpt *r) { r->reason = SD_R_filtered; }\n' >"$TMP/plant/src/lib/scan/d.c"
printf 'static void f(smtpdiag_explanation *e) { e->retry = e->klass == 4; }\n' >"$TMP/plant/src/lib/scan/e.c"
printf 'static void f(smtpdiag_logrec *r, const char *name) { r->reason = name; }\n' >"$TMP/plant/src/cli/f.c"
printf 'static void f(smtpdiag_fact *f, int k) { f->reason = k ? names[k] : "onhold"; }\n' >"$TMP/plant/src/httpd/g.c"
deciders "$TMP/plant" >"$TMP/found"
n=$((n + 1))
if [ "$(wc -l <"$TMP/found")" -eq 7 ]; then echo "ok $n - the check finds each of 7 planted decisions"; else
	echo "not ok $n - the check found $(wc -l <"$TMP/found") of 7 planted decisions:"; sed 's/^/#   /' "$TMP/found"; fi
# a copy of a decided verdict's reason decides nothing
printf 'static void f(sum *e, const sum *v) { e->reason = strdup(nz(v->reason)); e->reason = v->reason; }\n' \
	>"$TMP/plant/src/cli/h.c"
deciders "$TMP/plant" >"$TMP/found"
n=$((n + 1))
if [ "$(wc -l <"$TMP/found")" -eq 7 ]; then echo "ok $n - a copy of a decided reason is no decision"; else
	echo "not ok $n - a copy of a decided reason was taken for a decision"; fi
# and a hint of a format module is evidence, not a decision
mkdir -p "$TMP/plant2/src/lib/decode/formats"
printf 'static void f(sd_rcpt *r) { r->reason = SD_R_filtered; r->reason = says_reason(d); }\n' \
	>"$TMP/plant2/src/lib/decode/formats/x.c"
deciders "$TMP/plant2" >"$TMP/found"
n=$((n + 1))
if [ ! -s "$TMP/found" ]; then echo "ok $n - a format module's reason hint is allowed"; else
	echo "not ok $n - a format module's hint was taken for a decision"; fi
# but a format module that writes a result's reason name decides
printf 'static void f(smtpdiag_fact *f) { f->reason = sd_reason_name(3); }\n' >"$TMP/plant2/src/lib/decode/formats/x.c"
deciders "$TMP/plant2" >"$TMP/found"
n=$((n + 1))
if [ -s "$TMP/found" ]; then echo "ok $n - a reason name written in a format module is found"; else
	echo "not ok $n - a reason name written in a format module was let through"; fi
