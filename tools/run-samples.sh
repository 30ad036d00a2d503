#!/bin/sh
# `make run`: the main jobs on the bundled sample data (samples/).
BIN=${1:-build/smtpdiag}
set -x
"$BIN" explain 431
"$BIN" explain --json "552 4.3.1"
"$BIN" explain --text "550 5.1.1 <nobody@example.org>: Recipient address rejected: User unknown"
"$BIN" decode samples/
"$BIN" decode --format text samples/
"$BIN" decode --summary samples/
