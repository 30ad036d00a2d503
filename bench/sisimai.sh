#!/bin/sh
# bench/sisimai: decode side by side with Sisimai (Debian's libsisimai-perl), one
# process each, on the same input: at least 12,000 emails made by repeating the
# shared corpus, as one mbox. Runs alternate (smtpdiag, Sisimai, smtpdiag, ...),
# RUNS of each (default 3; Sisimai takes seconds a run), and the medians give
# emails/s of each and the ratio of their times. Both are asked for delivered
# and vacation records too, so they read the same messages; the counts of
# records each printed are shown beside the figures.
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

sisimai() { # the records Sisimai makes of an mbox, one line each
	perl -MSisimai -e '
		my $v = Sisimai->make($ARGV[0], delivered => 1, vacation => 1) || [];
		print $_->recipient->address, "\n" for @$v;' "$1"
}
ours() { "$BIN" decode --delivered --vacation "$1"; }

: >"$work/t.ours"; : >"$work/t.sis"
r=0
while [ $r -lt "$RUNS" ]; do
	timeit ours "$work/all.mbox" >>"$work/t.ours"
	timeit sisimai "$work/all.mbox" >>"$work/t.sis"
	r=$((r + 1))
done
o=$(median <"$work/t.ours"); s=$(median <"$work/t.sis")
no=$(ours "$work/all.mbox" | wc -l); ns=$(sisimai "$work/all.mbox" | wc -l)
echo "bench/sisimai: $("$BIN" --version | head -n 1), Sisimai $(perl -MSisimai -e 'print $Sisimai::VERSION'), $(nproc) cores, $RUNS runs each, median"
printf 'smtpdiag %6d emails in %.3fs = %8.0f emails/s (%d records)\n' "$emails" "$o" "$(echo "$emails/$o" | bc -l)" "$no"
printf 'Sisimai  %6d emails in %.3fs = %8.0f emails/s (%d records)\n' "$emails" "$s" "$(echo "$emails/$s" | bc -l)" "$ns"
printf 'smtpdiag is %.1f times as fast as Sisimai\n' "$(echo "$s/$o" | bc -l)"
