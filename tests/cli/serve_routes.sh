#!/bin/sh
# The routes `serve --help` lists and those the man page's serve section documents are the
# paths of the OpenAPI document the server gives, no more and no fewer. A path template's
# {name} stands for one path segment; a listed route stands for the paths it matches
# (/code/431 and /code/CODE are /code/{code}; X[/Y] is X and X/Y; a query is left out).
. "$(dirname "$0")/lib.sh"

need curl jq

PID=""
trap '[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null; rm -rf "$TMP"' EXIT
"$BIN" serve --listen 127.0.0.1:0 --quiet 2>"$TMP/serve.log" &
PID=$!
wait_port "$TMP/serve.log"
n=$((n + 1))
if [ -n "$PORT" ] && curl -s --max-time 10 -o "$TMP/openapi.json" "http://127.0.0.1:$PORT/api/v1/openapi.json" &&
	jq -r '.paths | keys[]' "$TMP/openapi.json" | sort -u >"$TMP/api" && [ -s "$TMP/api" ]; then
	echo "ok $n - serve gives its OpenAPI document ($(wc -l <"$TMP/api") paths)"
else
	echo "not ok $n - no OpenAPI document from serve"; sed 's/^/#   /' "$TMP/serve.log" | head -5
	exit 1
fi
kill "$PID" 2>/dev/null
wait "$PID" 2>/dev/null
PID=""

# help_routes: the routes of the list at the top of `serve --help` (a path that begins a
# line, or one that follows two blanks in it)
help_routes() {
	"$BIN" serve --help | sed -n '/^Serve /,/^$/p' | sed '1d' |
		awk '{ s = " " $0; while (match(s, /  +\/[^ ]*/)) {
			t = substr(s, RSTART, RLENGTH); sub(/^ +/, "", t); print t; s = substr(s, RSTART + RLENGTH) } }'
}
# man_routes: the routes tagged (.TP) in the man page's serve section; the arguments of a
# .BR-like request are joined as roff joins them
man_routes() {
	sed -n '/^\.SS serve$/,/^\.S[SH] /p' man/smtpdiag.1 | sed -n '/^\.TP/{n;p;}' | sed 's/\\-/-/g' |
		awk '{
			req = $1; s = substr($0, length($1) + 2); sep = (req == ".B" || req == ".I") ? " " : ""
			out = ""; na = 0
			while (s != "") {
				sub(/^ +/, "", s); if (s == "") break
				if (substr(s, 1, 1) == "\"") { s = substr(s, 2); i = index(s, "\""); if (!i) i = length(s) + 1
					a = substr(s, 1, i - 1); s = substr(s, i + 1) }
				else { i = index(s, " "); if (!i) i = length(s) + 1; a = substr(s, 1, i - 1); s = substr(s, i + 1) }
				out = out (na++ ? sep : "") a
			}
			if (req !~ /^\.[BIR]*$/) out = $0
			m = split(out, w, /[ ,]+/)
			for (k = 1; k <= m; k++) if (w[k] ~ /^\//) print w[k]
		}'
}
# normalise: the paths a listed route stands for, one a line
normalise() {
	sed -e 's/[?&].*//' -e 's/[,;:)]*$//' | awk '/\[\// { b = $0; sub(/\[.*/, "", b); print b
		t = $0; gsub(/[][]/, "", t); print t; next } { print }' | sort -u
}
help_routes | normalise >"$TMP/help"
man_routes | normalise >"$TMP/man"

# covered LISTED API WHAT: every listed route is a path of the API, every path is listed
covered() {
	awk -v what="$3" '
	function re(p) { gsub(/\./, "\\.", p); gsub(/\{[^}]*\}/, "[^/]+", p); return "^" p "$" }
	NR == FNR { listed[$0] = 1; next }
	{ api[$0] = re($0) }
	END {
		for (l in listed) { hit = 0; for (a in api) if (l ~ api[a]) hit = 1
			if (!hit) { print "# " what " lists " l ", which the OpenAPI document lacks"; bad = 1 } }
		for (a in api) { hit = 0; for (l in listed) if (l ~ api[a]) hit = 1
			if (!hit) { print "# " what " does not list " a; bad = 1 } }
		exit bad
	}' "$1" "$2"
}
for doc in help man; do
	case $doc in help) what="serve --help" ;; *) what="the man page's serve section" ;; esac
	n=$((n + 1))
	if [ ! -s "$TMP/$doc" ]; then echo "not ok $n - $what lists no route"
	elif out=$(covered "$TMP/$doc" "$TMP/api" "$what"); then echo "ok $n - $what lists the paths of the OpenAPI document ($(wc -l <"$TMP/$doc") routes)"
	else echo "not ok $n - $what and the OpenAPI document differ"; printf '%s\n' "$out"; fi
done

# the check catches a route left out and one too many
printf '/\n/code/431\n' >"$TMP/few"
printf '/\n/code/{code}\n/metrics\n' >"$TMP/api3"
n=$((n + 1))
if covered "$TMP/few" "$TMP/api3" x >/dev/null; then echo "not ok $n - a route left out passes"; else echo "ok $n - a route left out is caught"; fi
printf '/\n/code/431\n/metrics\n/nowhere\n' >"$TMP/many"
n=$((n + 1))
if covered "$TMP/many" "$TMP/api3" x >/dev/null; then echo "not ok $n - a route too many passes"; else echo "ok $n - a route too many is caught"; fi
