#!/bin/sh
# bench/events-mem: peak memory and throughput of `smtpdiag decode` on large
# files of ESP events, to show that memory does not grow with the input.
#
# Makes, in $TMPDIR, two files of valid bounce events of several services
# (SendGrid and Postmark arrays, Mailgun and SES JSON Lines, one after the
# other in one file: a JSON array of SendGrid events, then JSON Lines) of about
# SMALL and LARGE megabytes (default 30 and 300), and runs `smtpdiag decode`
# on each, output to /dev/null. For each it prints the peak resident memory
# (/usr/bin/time), the elapsed and the CPU time (user + system), and MB/s and
# events/s of CPU time (on a loaded machine the elapsed time says little).
# With OLD=path/to/smtpdiag
# (a binary built from an earlier commit) the same runs are made with it too,
# alternating, so that both are measured on the same files in one run. The
# files are removed at the end.
set -eu
BUILD=${BUILD:-build}
BIN=$BUILD/smtpdiag
OLD=${OLD:-}
SMALL=${SMALL:-30}
LARGE=${LARGE:-300}

work=$(mktemp -d "${TMPDIR:-/tmp}/events-mem.XXXXXX")
trap 'rm -rf "$work"' EXIT

# gen MB FILE: one JSON array of SendGrid bounces (half the bytes), then JSON
# Lines of Mailgun, SES (an SNS notification) and Postmark bounces; each event
# for its own recipient. Prints the number of events.
gen() {
	awk -v mb="$1" -v out="$2" 'BEGIN {
		half = mb * 524288; n = 0; bytes = 1
		printf "[" >out
		while (bytes < half) {
			s = sprintf("%s{\"email\":\"u%d@mail.example.net\",\"timestamp\":1709547300,\"smtp-id\":\"<m%d@shop.example.com>\",\"event\":\"bounce\",\"type\":\"bounce\",\"status\":\"5.1.1\",\"reason\":\"550 5.1.1 <u%d@mail.example.net>: Recipient address rejected: User unknown in virtual mailbox table\",\"sg_event_id\":\"ev%d\"}", (n ? ",\n" : "\n"), n, n, n, n)
			printf "%s", s >out; bytes += length(s); n++
		}
		printf "\n]\n" >out
		while (bytes < 2 * half) {
			k = n % 3
			if (k == 0)
				s = sprintf("{\"signature\":{\"timestamp\":\"1709547300\",\"token\":\"t%d\",\"signature\":\"00\"},\"event-data\":{\"event\":\"failed\",\"severity\":\"permanent\",\"recipient\":\"u%d@mail.example.org\",\"timestamp\":1709547300.5,\"delivery-status\":{\"code\":550,\"message\":\"5.1.1 The email account that you tried to reach does not exist\"},\"message\":{\"headers\":{\"from\":\"news@shop.example.com\",\"subject\":\"Spring sale\"}}}}\n", n, n)
			else if (k == 1)
				s = sprintf("{\"Type\":\"Notification\",\"MessageId\":\"sns-%d\",\"TopicArn\":\"arn:aws:sns:eu-west-1:123456789012:bounces\",\"Message\":\"{\\\"notificationType\\\":\\\"Bounce\\\",\\\"bounce\\\":{\\\"bounceType\\\":\\\"Permanent\\\",\\\"bounceSubType\\\":\\\"General\\\",\\\"bouncedRecipients\\\":[{\\\"emailAddress\\\":\\\"u%d@mail.example.com\\\",\\\"action\\\":\\\"failed\\\",\\\"status\\\":\\\"5.1.1\\\",\\\"diagnosticCode\\\":\\\"smtp; 550 5.1.1 user unknown\\\"}],\\\"timestamp\\\":\\\"2024-03-04T10:15:02.000Z\\\"},\\\"mail\\\":{\\\"source\\\":\\\"billing@shop.example.com\\\",\\\"messageId\\\":\\\"m%d\\\"}}\"}\n", n, n, n)
			else
				s = sprintf("{\"RecordType\":\"Bounce\",\"Type\":\"HardBounce\",\"TypeCode\":1,\"Email\":\"u%d@mail.example.net\",\"From\":\"news@shop.example.com\",\"BouncedAt\":\"2024-03-04T10:15:02Z\",\"Details\":\"smtp;550 5.1.1 The email account that you tried to reach does not exist\",\"Description\":\"The server was unable to deliver your message\"}\n", n)
			printf "%s", s >out; bytes += length(s); n++
		}
		print n
	}'
}

peak_and_time() { # BIN FILE: "KB ELAPSED CPU"
	/usr/bin/time -f '%M %e %U %S' "$1" decode "$2" 2>&1 >/dev/null | tail -1 |
		awk '{ print $1, $2, $3 + $4 }'
}

echo "bench/events-mem: $("$BIN" --version), $(nproc) cores"
for mb in "$SMALL" "$LARGE"; do
	f="$work/events-$mb.json"
	events=$(gen "$mb" "$f")
	bytes=$(wc -c <"$f")
	echo "input: $(echo "$bytes/1048576" | bc -l | cut -c1-6) MB, $events events"
	for b in $BIN $OLD; do
		set -- $(peak_and_time "$b" "$f")
		printf '  %-28s peak %7.1f MB  %6.2fs elapsed  %6.2fs cpu  %6.1f MB/s  %8.0f events/s\n' "$b" \
			"$(echo "$1/1024" | bc -l)" "$2" "$3" "$(echo "$bytes/1048576/$3" | bc -l)" "$(echo "$events/$3" | bc -l)"
	done
	rm -f "$f"
done
