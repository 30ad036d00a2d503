#!/bin/sh
# Bounce bodies as people paste them (tests/fixtures/paste/more/, table
# expected.tsv): the MTAs' and providers' own templates re-wrapped by a mail
# client, quoted with "> ", indented, with CRLF line ends, with blank lines lost
# or doubled, after a forwarding client's From:/Subject: or From:/Sent: lines, in
# German, French, Spanish and Italian. decode, explain --file and serve's /api/v1/decode read the
# recipient, reply code, status and class of the table in each (and the reason
# where it has one); /analyze shows what decode read. None is refused. The
# figures per field are printed as comments.
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/paste_lib.sh"

D=tests/fixtures/paste/more

# score FRONT FIELD GOT WANT: count a field of one front end
score() {
	eval "t_$1_$2=\$((\${t_$1_$2:-0} + 1))"
	[ "$3" = "$4" ] && eval "r_$1_$2=\$((\${r_$1_$2:-0} + 1))"
	return 0
}

# check FRONT FILE STATUSKEY CLASS RC: paste_check, and the fields counted
check() {
	paste_check "$1" "$2" "$3" "$4"
	score "$1" rcpt "$g_rcpt" "$rcpt"
	score "$1" code "$g_code" "$code"
	score "$1" status "$g_status" "$status"
	score "$1" class "$4" "$class"
	[ "$5" -ne 0 ] && eval "refused_$1=\$((\${refused_$1:-0} + 1))"
	return 0
}

paste_serve

one() {
	paste_fronts "$1" "$2"
	curl -s --max-time 10 --data-urlencode "text@$1" "$U/analyze" >"$TMP/out" 2>"$TMP/err"
	n=$((n + 1))
	if [ -n "$d_rcpt" ] && grep -qF -- "$d_rcpt" "$TMP/out" && grep -qF -- "$d_status" "$TMP/out" &&
		grep -qF -- "$d_reason" "$TMP/out"; then
		echo "ok $n - /analyze shows what decode read: $2"
	else echo "not ok $n - /analyze shows what decode read: $2 (the page lacks ${d_rcpt:-a recipient}, $d_status or $d_reason)"; fi
}
paste_each "$D/expected.tsv" one
n=$((n + 1))
if [ "$rows" -ge 70 ]; then echo "ok $n - the table has $rows bodies"; else echo "not ok $n - the table has $rows bodies"; fi

for fe in decode explain api; do
	line="# $fe:"
	for fld in code status class rcpt; do
		eval "r=\${r_${fe}_$fld:-0} t=\${t_${fe}_$fld:-0}"
		line="$line $fld $r/$t"
	done
	eval "line=\"\$line refused \${refused_$fe:-0}\""
	echo "$line"
done

# quoted or indented text with no failure in it is still no bounce
printf '> Hi Anna,\n>\n> the minutes of the meeting are attached.\n> See you on Monday.\n' >"$TMP/q.txt"
expect_exit 1 "decode: quoted text that is no bounce is refused" -- "$BIN" decode "$TMP/q.txt"
expect_err 'no header fields' "decode: says why"
printf '    This is the mail system at host relay.example.com.\n\n    All is well.\n' >"$TMP/i.txt"
expect_exit 1 "decode: an indented opening line without a recipient is refused" -- "$BIN" decode "$TMP/i.txt"
# a short line after a Postfix item is a line of its own, not the item's rest
printf 'This is the mail system at host relay.example.com.\n\n<ann@example.org>: unknown user: "ann"\nThanks for your patience.\n' >"$TMP/short.txt"
"$BIN" decode "$TMP/short.txt" >"$TMP/out" 2>"$TMP/err"
n=$((n + 1))
if grep -q '"diagnosticcode":"unknown user: \\"ann\\""' "$TMP/out"; then echo "ok $n - a short line after an item is not joined to it"
else echo "not ok $n - a short line after an item is not joined to it"; grep -o '"diagnosticcode":"[^"]*"' "$TMP/out" | sed 's/^/#   /'; fi

# a mail client's "From:/Sent:" lines make a pasted body, a message's own fields an email
printf 'From: Anna <anna@example.org>\nSent: Tuesday, March 4, 2025 10:15 AM\nTo: me@example.com\nSubject: lunch\n\nSee you at noon.\n' >"$TMP/c.txt"
expect_exit 1 "decode: a client's lines above text that is no bounce: refused" -- "$BIN" decode "$TMP/c.txt"
printf 'From: Anna <anna@example.org>\nTo: me@example.com\nSubject: lunch\nDate: Tue, 4 Mar 2025 10:15:00 +0000\n\nSee you at noon.\n' >"$TMP/e.txt"
expect_exit 0 "decode: an email that is no bounce is no error" -- "$BIN" decode "$TMP/e.txt"
expect_lines 0 "decode: ... and gives nothing" out
