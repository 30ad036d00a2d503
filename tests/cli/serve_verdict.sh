#!/bin/sh
# The web speaks the verdict: every code page the index links to, and every pair
# its status pages name, opens with a banner that agrees with the JSON API's
# verdict for the same code (/api/v1/explain): its class when no specific
# reason is known, never "Nothing failed" for a failure; its retry and suppress
# facts. The index search finds codes by words, without the script.
. "$(dirname "$0")/lib.sh"

for t in curl jq; do
	if ! command -v "$t" >/dev/null 2>&1; then
		echo "not ok 1 - $t is missing (sh tools/install-deps.sh installs it)"
		exit 1
	fi
done

pid=""
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$TMP"' EXIT
. "$(dirname "$0")/../../bench/lib/serve-start.sh"
serve_start "$TMP/log" --quiet
BASE="http://127.0.0.1:$port"
get() { curl -s --max-time 10 "$@"; }

ok_if() {
	n=$((n + 1))
	if [ "$1" = 1 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}

# the codes the index links to, and the registry's classes of each
get "$BASE/" | sed -n '/id="codes"/,$p' | grep -o 'href="/code/[^"]*"' | sed 's|href="/code/||; s|"$||' |
	sort -u >"$TMP/codes"
get "$BASE/api/v1/codes" | jq -r '.[] | [.code, .allowed] | @tsv' >"$TMP/allowed"
ok_if "$([ "$(wc -l <"$TMP/codes")" -ge 130 ] && echo 1)" "the index links to every code ($(wc -l <"$TMP/codes"))"

# pairs: each status page's paired reply codes, with the status in their class
while read -r c; do
	case $c in X.*) ;; *) continue ;; esac
	get "$BASE/code/$c" | sed -n '/id="paired"/,/<\/section>/p' | grep -o 'href="/code/[2345][0-9][0-9]"' |
		sed 's|href="/code/||; s|"$||' | while read -r r; do
		echo "$r-${r%??}${c#X}"
	done
done <"$TMP/codes" | sort -u >"$TMP/pairs"
ok_if "$([ "$(wc -l <"$TMP/pairs")" -ge 50 ] && echo 1)" "status pages name pairs ($(wc -l <"$TMP/pairs"))"

# expected CLASS ALLOWED REASON ADVICE RETRY: the banner head the verdict asks
# for, as an extended regex; "ok" when nothing failed
expected() {
	cls=$1 al=$2 rs=$3 adv=$4 rt=$5
	if [ -z "$cls" ]; then # a status without a class: the registry's classes
		case $al in 5) cls=permanent ;; 4) cls=transient ;; 2) cls=success ;; *) cls=either ;; esac
	fi
	if [ "$cls" = success ] || [ "$cls" = intermediate ] || [ "$rs" = delivered ]; then
		echo '^Nothing failed'
	elif [ "$adv" = suppress-recipient ]; then
		echo '^Do not retry: remove the address\.'
	elif [ -z "$rs" ] || [ "$rs" = undefined ]; then
		if [ "$cls" = permanent ] && [ "$rt" = false ]; then echo '^Permanent failure: '
		elif [ "$cls" = transient ] || [ "$rt" = true ]; then echo '^Temporary failure: '
		else echo '^The first digit decides: 4\.x\.x is a temporary failure'; fi
	elif [ "$adv" = none ]; then
		echo '^Nothing to do: '
	elif [ "$rt" = true ]; then
		echo '^Retry later'
	else
		echo '^Do not retry unchanged'
	fi
}

# verdict CODE: the API's verdict of CODE; sets cls, al, rs, adv, want, wretry, wsup
verdict() {
	get -G --data-urlencode "q=$1" "$BASE/api/v1/explain" |
		jq -r '[.class, .reason, .advice, (.retry | tostring)] | join("|")' >"$TMP/v"
	IFS='|' read -r cls rs adv rt <"$TMP/v"
	al=$(awk -F'\t' -v c="$1" '$1 == c { print $2 }' "$TMP/allowed")
	want=$(expected "$cls" "$al" "$rs" "$adv" "$rt")
	[ "$rt" = true ] && wretry=yes || wretry=no
	[ "$adv" = suppress-recipient ] && wsup=yes || wsup=no
}

# banner PAGE DESC: the first banner of the page says what verdict asked for
banner() {
	head=$(sed -n 's|.*<p class="v-head">\([^<]*\)</p>.*|\1|p' "$1" | head -1)
	retry=$(sed -n 's|.*<dt>Retry</dt><dd class="[a-z-]*">\([a-z]*\)</dd>.*|\1|p' "$1" | head -1)
	sup=$(sed -n 's|.*<dt>Suppress the address</dt><dd class="[a-z-]*">\([a-z]*\)</dd>.*|\1|p' "$1" | head -1)
	why=""
	if [ "$want" != '^Nothing failed' ]; then
		fail_pages=$((fail_pages + 1))
		case $head in "Nothing failed"*) why="a failure reads as success; " ;; esac
	fi
	printf '%s\n' "$head" | grep -Eq -- "$want" || why="${why}head wants /$want/; "
	[ "$retry" = "$wretry" ] || why="${why}retry '$retry', API says $rt; "
	[ "$sup" = "$wsup" ] || why="${why}suppress '$sup', API advice $adv; "
	n=$((n + 1))
	if [ -z "$why" ]; then echo "ok $n - $2: $head"; else
		echo "not ok $n - $2: $why(class '$cls' allowed '$al' reason '$rs' advice '$adv'; banner: $head)"
	fi
}

fail_pages=0
cat "$TMP/codes" "$TMP/pairs" >"$TMP/pages"
while read -r c; do
	verdict "$c"
	get "$BASE/code/$c" >"$TMP/page"
	banner "$TMP/page" "/code/$c"
done <"$TMP/pages"
ok_if "$([ $fail_pages -ge 120 ] && echo 1)" "$fail_pages failure pages were checked"

# an analyze card of a code alone reads the same
for c in 531 X.1.1 550 X.7.23 250; do
	verdict "$c"
	get --data-urlencode "text=$c" "$BASE/analyze" >"$TMP/page"
	banner "$TMP/page" "analyze $c"
done

# search by words, on the server: every word must be found; the rows shown are not hidden
search() { # WORDS CODE...: the search finds every CODE
	q=$1; shift
	get -G --data-urlencode "q=$q" "$BASE/" | grep -o '<li data-k="[a-z]*" data-s="[^"]*"><a href="/code/[^"]*"' |
		sed 's|.*href="/code/||; s|"$||' >"$TMP/found"
	miss=""
	for c in "$@"; do grep -qx -- "$c" "$TMP/found" || miss="$miss $c"; done
	n=$((n + 1))
	if [ -z "$miss" ] && [ -s "$TMP/found" ]; then echo "ok $n - search '$q' finds $* ($(wc -l <"$TMP/found") codes)"; else
		echo "not ok $n - search '$q' misses$miss (found: $(tr '\n' ' ' <"$TMP/found"))"; fi
}
search "user unknown" X.1.1 550
search "User Unknown" X.1.1 550
search "mailbox full" 552 X.2.2
search "relay denied" 550 554 X.7.1
search "spf" X.7.23 X.7.26
search "no such user" X.1.1
search "userunknown" X.1.1
search "quota" X.2.2 552
get -G --data-urlencode "q=user unknown" "$BASE/" >"$TMP/page"
ok_if "$(grep -q '<li data-k="[a-z]*" hidden data-s="[^"]*"><a href="/code/250"' "$TMP/page" && echo 1)" \
	"search 'user unknown' hides 250"
ok_if "$(grep -Eq 'id="count"[^>]*>[0-9]+ codes<' "$TMP/page" && ! grep -q 'id="count"[^>]*>0 codes' "$TMP/page" && echo 1)" \
	"search 'user unknown' counts its codes"
