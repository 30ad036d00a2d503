# Sourced by the decode benchmarks (not a benchmark itself).
# workset DIR: at least $MIN emails (default 12,000) made by repeating the corpus
# ($CORPUS) as files in DIR/files and as one mbox DIR/all.mbox; sets emails and
# bytes. Returns 1 (after a SKIP line) when the corpus is not there.
workset() {
	CORPUS=${CORPUS:-../shared/corpus/set-of-emails/maildir/bsd}
	MIN=${MIN_EMAILS:-12000}
	if [ ! -d "$CORPUS" ]; then
		echo "SKIP $0: corpus not found at $CORPUS"
		return 1
	fi
	n=$(ls "$CORPUS" | wc -l)
	copies=$(( (MIN + n - 1) / n ))
	mkdir -p "$1/files"
	i=0
	while [ $i -lt $copies ]; do
		for f in "$CORPUS"/*; do cp "$f" "$1/files/$i-$(basename "$f")"; done
		i=$((i + 1))
	done
	for f in "$1"/files/*; do
		printf 'From bench@example.net Thu Jan  1 00:00:00 2026\n'
		sed 's/^From />From /' "$f"
		printf '\n'
	done >"$1/all.mbox"
	emails=$(ls "$1/files" | wc -l)
	bytes=$(cat "$1"/files/* | wc -c)
}

now() { date +%s.%N; }
# timeit CMD...: seconds the command took (its output thrown away)
timeit() { s=$(now); "$@" >/dev/null 2>&1 || true; e=$(now); echo "$e - $s" | bc -l; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
