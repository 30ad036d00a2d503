# Sourced by the serve benchmarks and tests/cli/serve_verdict.sh (not a benchmark itself).
# serve_start LOG ARGS...: start "$BIN serve" on a free loopback port with ARGS,
# its stderr in LOG; sets pid and port, or prints the log and exits.
serve_start() {
	log=$1
	shift
	"$BIN" serve --listen 127.0.0.1:0 "$@" 2>"$log" &
	pid=$!
	port=""
	i=0
	while [ -z "$port" ] && [ $i -lt 100 ]; do
		sleep 0.1
		port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$log")
		i=$((i + 1))
	done
	[ -n "$port" ] || { echo "$0: the server did not start"; cat "$log"; exit 1; }
}
