#!/bin/sh
# bench/decode: decode throughput, single thread, as files and as one mbox.
#
# Builds a work set of at least 12,000 emails by repeating the shared corpus
# (../shared/corpus/set-of-emails/maildir/bsd) in a temporary directory, then
# times `smtpdiag decode` and `cat` of the same input, alternating, and prints
# the median of 5 runs of each: emails/s, MB/s, and the ratio to cat.
# Peak memory comes from /usr/bin/time -v.  BIG_MBOX_MB=1024 also decodes a
# large mbox to show that memory does not grow with input size.
set -eu
BUILD=${BUILD:-build}
BIN=$BUILD/smtpdiag
RUNS=${RUNS:-5}

. "$(dirname "$0")/lib/workset.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
workset "$work" || exit 0

run() { # label, decode command..., as "--" then cat command...
	label=$1; shift
	: >"$work/t.dec"; : >"$work/t.cat"
	r=0
	while [ $r -lt "$RUNS" ]; do
		timeit sh -c "$1" >>"$work/t.dec"
		timeit sh -c "$2" >>"$work/t.cat"
		r=$((r + 1))
	done
	d=$(median <"$work/t.dec"); c=$(median <"$work/t.cat")
	printf '%-6s %6d emails %7.1f MB  decode %.3fs = %8.0f emails/s %7.1f MB/s   cat %.3fs   decode/cat time ratio %.1f\n' \
		"$label" "$emails" "$(echo "$bytes/1048576" | bc -l)" "$d" "$(echo "$emails/$d" | bc -l)" \
		"$(echo "$bytes/1048576/$d" | bc -l)" "$c" "$(echo "$d/$c" | bc -l)"
}

echo "bench/decode: $("$BIN" --version), $(nproc) cores, $RUNS runs each, median"
run files "$BIN decode $work/files" "cat $work/files/*"
run mbox "$BIN decode $work/all.mbox" "cat $work/all.mbox"
peak=$( { /usr/bin/time -v "$BIN" decode "$work/all.mbox" >/dev/null; } 2>&1 | sed -n 's/.*Maximum resident set size (kbytes): //p')
echo "peak memory, mbox of $emails emails ($(du -m "$work/all.mbox" | cut -f1) MB): $((peak / 1024)) MB"
if [ -n "${BIG_MBOX_MB:-}" ]; then
	while [ "$(du -m "$work/big.mbox" 2>/dev/null | cut -f1 || echo 0)" -lt "$BIG_MBOX_MB" ]; do
		cat "$work/all.mbox" >>"$work/big.mbox"
	done
	peak=$( { /usr/bin/time -v "$BIN" decode "$work/big.mbox" >/dev/null; } 2>&1 | sed -n 's/.*Maximum resident set size (kbytes): //p')
	echo "peak memory, mbox of $(du -m "$work/big.mbox" | cut -f1) MB: $((peak / 1024)) MB"
fi
