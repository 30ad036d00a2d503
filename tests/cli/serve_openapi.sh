#!/bin/sh
# The OpenAPI document of a started `smtpdiag serve` names its server and how
# the store routes authenticate, and the server does what it says: a bearer
# token, or HTTP Basic credentials whose password is the token, is taken for a
# write; none is refused.
. "$(dirname "$0")/lib.sh"

need curl jq
pid=""
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$TMP"' EXIT
TOK=0123456789abcdef0123456789abcdef
printf 'ops:%s\n' "$TOK" >"$TMP/tokens"
. "$(dirname "$0")/../../bench/lib/serve-start.sh"
serve_start "$TMP/log" --quiet --store "sqlite:$TMP/store.db" --token-file "$TMP/tokens"
U="http://127.0.0.1:$port"
# q FILTER: jq's answer on the document, compact
q() { jq -c "$1" "$TMP/doc" 2>&1; }
is() { ok_if "$([ "$(q "$1")" = "$2" ] && echo 1)" "$3"; }

curl -s --max-time 10 -o "$TMP/doc" "$U/api/v1/openapi.json"
is '.servers | length > 0' true "servers are named"
is '.servers[0].url' '"/"' "the server is the one that gives the document (a relative URL)"
is '.components.securitySchemes.bearerToken | [.type, .scheme]' '["http","bearer"]' "a bearer scheme"
is '.components.securitySchemes.basicToken | [.type, .scheme]' '["http","basic"]' "a Basic scheme"
is '.paths["/api/v1/suppressions/{address}"].delete.security' '[{"bearerToken":[]},{"basicToken":[]}]' \
	"a DELETE needs the bearer or the Basic scheme"
is '.paths["/api/v1/suppressions"].get.security' '[{"bearerToken":[]},{"basicToken":[]},{}]' \
	"a read takes either, or none (loopback, --open-reads)"
is '.paths["/api/v1/events"].post.security' '[{"bearerToken":[]},{"basicToken":[]},{}]' \
	"events take either, or none (a verified signature, or no store)"
is '[.paths[][] | objects | select(.security) | .security[] | keys[]] | unique' '["basicToken","bearerToken"]' \
	"every scheme an operation names is defined, and no other"
is '.info.license' '{"name":"BSD 2-Clause License","identifier":"BSD-2-Clause"}' "the licence, by SPDX identifier"

# what the code takes
st() { curl -s --max-time 10 -o /dev/null -w '%{http_code}' -X DELETE "$@" "$U/api/v1/suppressions/bob@example.org"; }
s=$(st); ok_if "$([ "$s" = 401 ] && echo 1)" "a DELETE without credentials is refused ($s)"
s=$(st -H "Authorization: Bearer $TOK"); ok_if "$([ "$s" != 401 ] && [ "$s" != 403 ] && echo 1)" "a DELETE with the bearer token is taken ($s)"
s=$(st -u "hook:$TOK"); ok_if "$([ "$s" != 401 ] && [ "$s" != 403 ] && echo 1)" "a DELETE with Basic credentials, the token the password, is taken ($s)"
