# Sourced by the /metrics tests (not a suite itself).
# prom_check FILE: FILE is the Prometheus text format 0.0.4 as a scraper reads it:
# every sample's metric has one HELP and one TYPE line before it (a histogram's
# _bucket, _sum and _count samples count as the histogram's), names match
# [a-zA-Z_:][a-zA-Z0-9_:]*, label names [a-zA-Z_][a-zA-Z0-9_]*, label values are
# quoted with only \\ \" \n escaped, values are numbers (or +Inf, -Inf, NaN),
# the lines of one metric stand together, and no series is written twice.
# Prints what is wrong, one line each, and nothing when all is right.
prom_check() {
	awk '
	function bad(what) { printf "line %d: %s: %s\n", NR, what, $0; nbad++ }
	function base(n) {
		if (type[n] != "") return n
		if (n ~ /_(bucket|sum|count)$/) { b = n; sub(/_(bucket|sum|count)$/, "", b); if (type[b] == "histogram" || type[b] == "summary") return b }
		return n
	}
	/^# HELP / {
		n = $3
		if (n !~ /^[a-zA-Z_:][a-zA-Z0-9_:]*$/) bad("HELP of a bad name")
		if (help[n]++) bad("a second HELP")
		if (n in done) bad("HELP after the metric ended")
		next
	}
	/^# TYPE / {
		n = $3
		if (type[n] != "") bad("a second TYPE")
		if (!help[n]) bad("TYPE before HELP")
		if ($4 !~ /^(counter|gauge|histogram|summary|untyped)$/ || NF != 4) bad("bad TYPE")
		type[n] = $4
		next
	}
	/^#/ { next }
	/^$/ { bad("empty line"); next }
	{
		line = $0
		if (!match(line, /^[a-zA-Z_:][a-zA-Z0-9_:]*/)) { bad("bad metric name"); next }
		name = substr(line, 1, RLENGTH); rest = substr(line, RLENGTH + 1)
		labels = ""
		if (substr(rest, 1, 1) == "{") {
			if (!match(rest, /^\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\[\\"n])*")(,[a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\[\\"n])*")*\}/)) { bad("bad labels"); next }
			labels = substr(rest, 1, RLENGTH); rest = substr(rest, RLENGTH + 1)
		}
		if (rest !~ /^ ([-+]?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?|[-+]?Inf|NaN)( -?[0-9]+)?$/) { bad("bad value"); next }
		b = base(name)
		if (type[b] == "") bad("no TYPE for " b)
		if (!help[b]) bad("no HELP for " b)
		if (b != cur && cur != "") done[cur] = 1
		if (b in done) bad("lines of " b " not together")
		cur = b
		if (seen[name labels]++) bad("a series twice")
		if (type[b] == "counter" && name !~ /_total$/) bad("a counter not named _total")
		samples++
	}
	END { if (!samples) print "no sample at all" }
	' "$1"
}
