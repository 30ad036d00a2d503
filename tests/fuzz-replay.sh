#!/bin/sh
# Replay each fuzz target over its seed corpus (fuzz/corpus/<name>/).
dir=${1:-build/fuzz}
status=0
for f in "$dir"/fuzz_*; do
	[ -x "$f" ] || continue
	name=$(basename "$f" | sed 's/^fuzz_//')
	corpus=fuzz/corpus/$name
	if [ ! -d "$corpus" ]; then
		echo "FAIL  $name: no seed corpus at $corpus"
		status=1
		continue
	fi
	if "$f" -runs=0 -timeout=10 "$corpus" >/dev/null 2>"$dir/$name.log"; then
		echo "ok    fuzz $name ($(ls "$corpus" | wc -l) seeds)"
	else
		echo "FAIL  fuzz $name (see $dir/$name.log)"
		tail -20 "$dir/$name.log"
		status=1
	fi
done
exit $status
