#!/bin/sh
# Run each fuzz target for FUZZ_SECONDS (default 60) from a copy of its seed
# corpus (fuzz/corpus/<name>/), with leak detection, a per-input time limit and
# a memory limit. The seed folders are not grown: new inputs go to a temporary
# copy. A crash, leak, timeout or out-of-memory fails the run; the input that
# caused it is kept under <dir>/artifacts/<name>/ and its path printed.
dir=${1:-build/fuzz}
secs=${FUZZ_SECONDS:-60}
case $secs in '' | *[!0-9]*) echo "FUZZ_SECONDS must be a number of seconds"; exit 2 ;; esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
found=0
for f in "$dir"/fuzz_*; do
	[ -x "$f" ] || continue
	found=1
	name=$(basename "$f" | sed 's/^fuzz_//')
	seeds=fuzz/corpus/$name
	if [ ! -d "$seeds" ]; then
		echo "FAIL  fuzz $name: no seed corpus at $seeds"
		status=1
		continue
	fi
	rm -rf "$dir/artifacts/$name"
	mkdir -p "$work/$name" "$dir/artifacts/$name"
	cp "$seeds"/* "$work/$name/"
	log=$dir/$name.run.log
	if ASAN_OPTIONS=detect_leaks=1:${ASAN_OPTIONS:-} "$f" -max_total_time="$secs" -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$dir/artifacts/$name/" \
		"$work/$name" >/dev/null 2>"$log"; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
		echo "ok    fuzz $name (${secs}s, ${runs:-?} runs)"
	else
		status=1
		echo "FAIL  fuzz $name (log: $log)"
		grep -E 'ERROR: |SUMMARY: |Test unit written to' "$log" | head -10
		for a in "$dir/artifacts/$name"/*; do
			[ -f "$a" ] && echo "      input: $a (replay: $f $a)"
		done
	fi
done
if [ "$found" -eq 0 ]; then
	echo "FAIL  no fuzz targets in $dir"
	status=1
fi
exit $status
