#!/bin/sh
# The verdict against the labelled tables: per file and per path (explain, decode,
# scan) the rows, the share right on all four fields (reason, retry, hardbounce,
# advice) and on each, the rows where the three paths disagree, and per provider.
# Files: tests/fixtures/verdict/replies.tsv (DEV fold), replies-heldout.tsv
# (HELDOUT fold: measure only), replies-heldout2.tsv (HELDOUT2 fold: measure
# only) and ../shared/verdicts/verdicts-dev.tsv.
# Usage: sh tests/verdict-report.sh [-v] [BUILD]
#   -v  list each miss of the DEV fold and of verdicts-dev.tsv (id, path, expected, got)
# Exits non-zero when a table is malformed or verdicts-dev.tsv is below its floors.
verbose=
[ "$1" = "-v" ] && { verbose=1; shift; }
BUILD=${1:-${BUILD:-build}}
T="$BUILD/tests/test_verdict_table"
[ -x "$T" ] || { echo "verdict-report: $T is missing (make tests)" >&2; exit 2; }
out=$(SMTPDIAG_VERDICT_REPORT=1 SMTPDIAG_VERDICT_VERBOSE=$verbose "$T" 2>&1)
rc=$?
# the report lines only: not cmocka's frame nor the older provider-replies table's rows
printf '%s\n' "$out" | grep -v -e '^\[' -e '^tests/fixtures/verdict/provider-replies.tsv:[0-9]' \
	-e '^    ' -e '^explain \|^decode  \|^scan    '
[ $rc -eq 0 ] || printf '%s\n' "$out" | grep -e '^ERROR' -e 'FAILED  \]' >&2
exit $rc
