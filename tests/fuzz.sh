#!/bin/sh
# The fuzz targets in DIR (default build/fuzz), each over its seed corpus
# (fuzz/corpus/<name>/):
#   sh tests/fuzz.sh replay [DIR]  every seed once (a seed that hangs fails)
#   sh tests/fuzz.sh run [DIR]     FUZZ_SECONDS (default 60) of fuzzing each, from
#                                  a copy of the seeds (the seed folders are not
#                                  grown), with leak detection, 10 s an input and
#                                  2 GB of memory. A crash, leak, timeout or
#                                  out-of-memory fails; the input is kept under
#                                  DIR/artifacts/<name>/ and its path printed.
mode=${1:-replay}
dir=${2:-build/fuzz}
secs=${FUZZ_SECONDS:-60}
case $mode in replay | run) ;; *) echo "usage: sh tests/fuzz.sh replay|run [DIR]"; exit 2 ;; esac
case $secs in '' | *[!0-9]*) echo "FUZZ_SECONDS must be a number of seconds"; exit 2 ;; esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

replay() { # TARGET NAME SEEDS
	if "$1" -runs=0 -timeout=10 "$3" >/dev/null 2>"$dir/$2.log"; then
		echo "ok    fuzz $2 ($(ls "$3" | wc -l) seeds)"
	else
		echo "FAIL  fuzz $2 (see $dir/$2.log)"
		tail -20 "$dir/$2.log"
		return 1
	fi
}

run() { # TARGET NAME SEEDS
	log=$dir/$2.run.log
	rm -rf "$dir/artifacts/$2"
	mkdir -p "$work/$2" "$dir/artifacts/$2"
	cp "$3"/* "$work/$2/"
	if ASAN_OPTIONS=detect_leaks=1:${ASAN_OPTIONS:-} "$1" -max_total_time="$secs" -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$dir/artifacts/$2/" \
		"$work/$2" >/dev/null 2>"$log"; then
		echo "ok    fuzz $2 (${secs}s, $(sed -n 's/^stat::number_of_executed_units: *//p' "$log") runs)"
		return 0
	fi
	echo "FAIL  fuzz $2 (log: $log)"
	grep -E 'ERROR: |SUMMARY: |Test unit written to' "$log" | head -10
	for a in "$dir/artifacts/$2"/*; do
		[ -f "$a" ] && echo "      input: $a (replay: $1 $a)"
	done
	return 1
}

status=0
found=0
for f in "$dir"/fuzz_*; do
	[ -x "$f" ] || continue
	found=1
	name=$(basename "$f" | sed 's/^fuzz_//')
	if [ ! -d "fuzz/corpus/$name" ]; then
		echo "FAIL  fuzz $name: no seed corpus at fuzz/corpus/$name"
		status=1
	elif ! "$mode" "$f" "$name" "fuzz/corpus/$name"; then
		status=1
	fi
done
if [ "$found" -eq 0 ]; then
	echo "FAIL  no fuzz targets in $dir"
	status=1
fi
exit $status
