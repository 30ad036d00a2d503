#!/bin/sh
# Run every test: the unit test programs, then the CLI tests.
# Prints one line per suite and closes with "N passed, N failed".
BUILD=${BUILD:-build}
pass=0
fail=0
failed=""
for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	if out=$("$t" 2>&1); then
		n=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
		pass=$((pass + ${n:-1}))
		echo "ok    $name (${n:-1} tests)"
	else
		fail=$((fail + 1))
		failed="$failed $name"
		printf '%s\n' "$out" | grep -E 'FAILED|ERROR|Failure|fail|error' | head -20
		echo "FAIL  $name"
	fi
done
for t in tests/cli/*.sh; do
	[ -f "$t" ] || continue
	case $(basename "$t") in lib.sh | *_lib.sh) continue ;; esac # helpers, not suites
	name=$(basename "$t" .sh)
	out=$(BUILD="$BUILD" sh "$t" 2>&1)
	rc=$?
	p=$(printf '%s\n' "$out" | grep -c '^ok ')
	f=$(printf '%s\n' "$out" | grep -c '^not ok ')
	pass=$((pass + p))
	fail=$((fail + f))
	if [ "$rc" -ne 0 ] || [ "$f" -ne 0 ]; then
		[ "$f" -eq 0 ] && fail=$((fail + 1))
		failed="$failed $name"
		printf '%s\n' "$out" | grep -A3 '^not ok ' | head -40
		echo "FAIL  $name ($p passed, $f failed)"
	else
		echo "ok    $name ($p tests)"
	fi
done
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
