#!/bin/sh
# bench/sisimai: decode side by side with Sisimai (Debian's libsisimai-perl), one
# process each, on the same input: at least 12,000 emails made by repeating the
# shared corpus, as one mbox. Runs alternate (smtpdiag, Sisimai, smtpdiag, ...),
# RUNS of each (default 3; Sisimai takes seconds a run), and the medians give
# emails/s of each and the ratio of their times. Both are asked for delivered
# and vacation records too, so they read the same messages; the counts of
# records each printed are shown beside the figures. The ratio of the CPU
# times (user + system, from /usr/bin/time) is printed too: on a shared
# machine it moves less with the load than the ratio of wall times.
set -eu
BUILD=${BUILD:-build}
BIN=$BUILD/smtpdiag
RUNS=${RUNS:-3}

if ! perl -MSisimai -e 1 2>/dev/null; then
	echo "SKIP bench/sisimai: Sisimai is not installed (apt-get install libsisimai-perl, or make bench)"
	exit 0
fi
. "$(dirname "$0")/lib/workset.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
workset "$work" || exit 0

SIS_PL='my $v = Sisimai->make($ARGV[0], delivered => 1, vacation => 1) || [];
	print $_->recipient->address, "\n" for @$v;'
sisimai() { perl -MSisimai -e "$SIS_PL" "$1"; } # the records Sisimai makes of an mbox, one line each
ours() { "$BIN" decode --delivered --vacation "$1"; }
# timed CMD...: wall and CPU (user + system) seconds the command took, its output thrown away
timed() {
	s=$(now)
	/usr/bin/time -f '%U %S' -o "$work/cpu" "$@" >/dev/null 2>&1 || true
	e=$(now)
	echo "$(echo "$e - $s" | bc -l) $(awk '{ print $1 + $2 }' "$work/cpu")"
}

: >"$work/t.ours"; : >"$work/t.sis"
r=0
while [ $r -lt "$RUNS" ]; do
	timed "$BIN" decode --delivered --vacation "$work/all.mbox" >>"$work/t.ours"
	timed perl -MSisimai -e "$SIS_PL" "$work/all.mbox" >>"$work/t.sis"
	r=$((r + 1))
done
o=$(cut -d' ' -f1 <"$work/t.ours" | median); s=$(cut -d' ' -f1 <"$work/t.sis" | median)
co=$(cut -d' ' -f2 <"$work/t.ours" | median); cs=$(cut -d' ' -f2 <"$work/t.sis" | median)
no=$(ours "$work/all.mbox" | wc -l); ns=$(sisimai "$work/all.mbox" | wc -l)
echo "bench/sisimai: $("$BIN" --version | head -n 1), Sisimai $(perl -MSisimai -e 'print $Sisimai::VERSION'), $(nproc) cores, $RUNS runs each, median"
printf 'smtpdiag %6d emails in %.3fs = %8.0f emails/s (%d records)\n' "$emails" "$o" "$(echo "$emails/$o" | bc -l)" "$no"
printf 'Sisimai  %6d emails in %.3fs = %8.0f emails/s (%d records)\n' "$emails" "$s" "$(echo "$emails/$s" | bc -l)" "$ns"
printf 'smtpdiag is %.1f times as fast as Sisimai\n' "$(echo "$s/$o" | bc -l)"
printf 'CPU time: smtpdiag %.3fs, Sisimai %.3fs: %.1f times as fast\n' "$co" "$cs" "$(echo "$cs/$co" | bc -l)"
