#!/bin/sh
# bench/explain: wall time of one `smtpdiag explain` run (process start, rule
# database load, look-up, output), against `true` as the floor, in one run.
set -eu
BUILD=${BUILD:-build}
BIN=$BUILD/smtpdiag
RUNS=${RUNS:-200}
now() { date +%s%N; }
loop() { s=$(now); i=0; while [ $i -lt "$RUNS" ]; do "$@" >/dev/null; i=$((i + 1)); done; e=$(now); echo $(( (e - s) / RUNS / 1000 )); }
t_true=$(loop /bin/true)
t_code=$(loop "$BIN" explain 431)
t_json=$(loop "$BIN" explain --json "552 4.3.1")
t_text=$(loop "$BIN" explain --json --text "550-5.1.1 The email account that you tried to reach does not exist. 550 5.1.1 Please try again.")
echo "bench/explain: mean of $RUNS runs, microseconds per run"
echo "  /bin/true (process floor)         ${t_true} us"
echo "  explain 431                    ${t_code} us   (ratio to true $(echo "scale=1; $t_code/$t_true" | bc))"
echo "  explain --json '552 4.3.1'     ${t_json} us"
echo "  explain --json --text (reply)  ${t_text} us"
