#!/bin/sh
# Bounce mailboxes: a throw-away Dovecot (IMAP and POP3; TLS from a throw-away
# certificate; a passwd-file user for each; Maildirs filled with corpus
# messages at test time), run by an unprivileged user (nobody when run as
# root) on free loopback ports, stopped on exit. decode reads every message
# once (the same records as decoding the files), a second run reads nothing,
# counts add up, --mark-seen, --move-to and --delete do what they say, a
# connection dropped mid-fetch resumes without loss, a wrong password is a
# clear error, imap:// goes through STARTTLS, POP3 reads once too.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/store_lib.sh"
. "$(dirname "$0")/pg_lib.sh"
need openssl python3
CORPUS=../shared/corpus/set-of-emails/maildir/bsd
NMSG=30

dovecot_bin() { command -v dovecot || { [ -x /usr/sbin/dovecot ] && echo /usr/sbin/dovecot; }; }
DOVECOT=$(dovecot_bin)
if [ -z "$DOVECOT" ] && { [ "$(id -u)" -eq 0 ] || [ -n "${CI:-}" ]; }; then
	sh tools/install-deps.sh >/dev/null 2>&1
	DOVECOT=$(dovecot_bin)
fi
if [ -z "$DOVECOT" ]; then
	echo "not ok 1 - Dovecot is missing (sh tools/install-deps.sh installs dovecot-imapd and dovecot-pop3d)"
	exit 1
fi

DV=$(mktemp -d /tmp/smtpdiag-dovecot.XXXXXX)
PROXY_PID=""
FOLLOW_PID=""
stop_all() {
	[ -n "$FOLLOW_PID" ] && kill "$FOLLOW_PID" 2>/dev/null
	[ -n "$PROXY_PID" ] && kill "$PROXY_PID" 2>/dev/null
	[ -f "$DV/run/master.pid" ] && kill "$(cat "$DV/run/master.pid")" 2>/dev/null
	pg_stop
	rm -rf "$DV" "$TMP"
}
trap stop_all EXIT INT TERM

if [ "$(id -u)" -eq 0 ]; then RUNAS=nobody; AS="runuser -u nobody --"; else RUNAS=$(id -un); AS=""; fi
# five free loopback ports: imap, imaps, pop3, pop3s, the proxy
set -- $(python3 -c 'import socket
ss = [socket.socket() for _ in range(5)]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))')
P_IMAP=$1 P_IMAPS=$2 P_POP3=$3 P_POP3S=$4 P_PROXY=$5

mkdir -p "$DV/run" "$DV/state" "$DV/imap" "$DV/pop"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost \
	-addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
	-keyout "$DV/key.pem" -out "$DV/cert.pem" >/dev/null 2>&1
U=$(id -u "$RUNAS") G=$(id -g "$RUNAS")
printf 'bounces:{PLAIN}s3cret:%s:%s::%s::\npop:{PLAIN}s3cret:%s:%s::%s::\n' "$U" "$G" "$DV/imap" "$U" "$G" "$DV/pop" >"$DV/passwd"
cat >"$DV/dovecot.conf" <<EOF
base_dir = $DV/run
state_dir = $DV/state
log_path = $DV/dovecot.log
protocols = imap pop3
listen = 127.0.0.1
ssl = yes
ssl_cert = <$DV/cert.pem
ssl_key = <$DV/key.pem
# plain-text logins only over TLS (the default): an imap:// login works only after STARTTLS
disable_plaintext_auth = yes
auth_mechanisms = plain login
passdb {
  driver = passwd-file
  args = scheme=PLAIN $DV/passwd
}
userdb {
  driver = passwd-file
  args = $DV/passwd
}
mail_location = maildir:~/Maildir
default_internal_user = $RUNAS
default_internal_group = $(id -gn "$RUNAS")
default_login_user = $RUNAS
first_valid_uid = 1
first_valid_gid = 1
service anvil {
  chroot =
}
service imap-login {
  chroot =
  inet_listener imap {
    port = $P_IMAP
  }
  inet_listener imaps {
    port = $P_IMAPS
    ssl = yes
  }
}
service pop3-login {
  chroot =
  inet_listener pop3 {
    port = $P_POP3
  }
  inet_listener pop3s {
    port = $P_POP3S
    ssl = yes
  }
}
EOF
# the messages: the corpus where it is at hand, else bounces of the test's
# making (DSNs, every third one carrying a returned message of 4 KB)
if [ -d "$CORPUS" ]; then
	ls "$CORPUS"/* | head -$((NMSG + 10)) >"$TMP/all"
else
	mkdir "$TMP/gen"
	python3 - "$TMP/gen" $((NMSG + 10)) <<'PY'
import sys
d, n = sys.argv[1], int(sys.argv[2])
for i in range(1, n + 1):
    code = ("550 5.1.1 <user%d@example.net>: Recipient address rejected: User unknown" % i
            if i % 2 else "552 5.2.2 <user%d@example.net>: mailbox full" % i)
    status = code.split()[1]
    body = ("".join("line %d of the returned message\n" % k for k in range(130))
            if i % 3 == 0 else "Hello\n")
    msg = f"""From: MAILER-DAEMON@mx.example.org
To: sender@example.com
Subject: Undelivered Mail Returned to Sender
Date: Mon, 2 Nov 2026 10:{i % 60:02d}:00 +0000
Message-ID: <bounce{i}@mx.example.org>
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="b{i}"

--b{i}
Content-Type: text/plain

The message could not be delivered to <user{i}@example.net>.

--b{i}
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.org
Arrival-Date: Mon, 2 Nov 2026 10:00:00 +0000

Final-Recipient: rfc822; user{i}@example.net
Original-Recipient: rfc822; user{i}@example.net
Action: failed
Status: {status}
Remote-MTA: dns; mx.example.net
Diagnostic-Code: smtp; {code}

--b{i}
Content-Type: message/rfc822

From: sender@example.com
To: user{i}@example.net
Subject: news {i}
Message-ID: <orig{i}@example.com>

{body}
--b{i}--
"""
    with open("%s/%03d.eml" % (d, i), "w") as f:
        f.write(msg.replace("\n", "\r\n"))
PY
	ls "$TMP/gen"/* >"$TMP/all"
fi
head -$NMSG "$TMP/all" >"$TMP/first"
# deliver USER FILE...: into USER's Maildir/new, as an MTA would
k=0
deliver() {
	u=$1; shift
	mkdir -p "$DV/$u/Maildir/new" "$DV/$u/Maildir/cur" "$DV/$u/Maildir/tmp"
	for f in "$@"; do
		k=$((k + 1))
		cp "$f" "$DV/$u/Maildir/new/$((1700000000 + k)).M${k}P$$.test"
	done
	chown -R "$RUNAS" "$DV/$u"
}
deliver imap $(cat "$TMP/first")
deliver pop $(cat "$TMP/first")
mkdir -p "$DV/imap/Maildir/.Processed/cur" "$DV/imap/Maildir/.Processed/new" "$DV/imap/Maildir/.Processed/tmp"
chown -R "$RUNAS" "$DV"
$AS "$DOVECOT" -c "$DV/dovecot.conf"
# listening: a TCP connect to each port works
up=0 i=0
while [ $i -lt 100 ] && [ $up = 0 ]; do
	python3 -c "import socket,sys
for p in sys.argv[1:]: socket.create_connection(('127.0.0.1', int(p)), 1).close()" \
		$P_IMAP $P_IMAPS $P_POP3 $P_POP3S 2>/dev/null && up=1 || sleep 0.1
	i=$((i + 1))
done
ok_if $up "a throw-away Dovecot listens on four loopback ports"
if [ $up = 0 ]; then sed 's/^/#   /' "$DV/dovecot.log" 2>/dev/null | tail -5; exit 1; fi
# the master's real uid, from /proc (a minimal system has no ps)
ok_if "$([ "$(awk '/^Uid:/ { print $2 }' "/proc/$(cat "$DV/run/master.pid")/status")" = "$(id -u "$RUNAS")" ] && echo 1)" "Dovecot runs as $RUNAS"

echo s3cret >"$TMP/pw"
echo wrong >"$TMP/bad"
IMAPS="imaps://bounces@127.0.0.1:$P_IMAPS/INBOX"
A="--password-file $TMP/pw --cacert $DV/cert.pem"
# count_in DIR: messages in a Maildir folder; seen_in DIR: those flagged \Seen
count_in() { find "$1/cur" "$1/new" -type f 2>/dev/null | wc -l | tr -d ' '; }
seen_in() { ls "$1/cur" 2>/dev/null | grep -c ':2,[A-Z]*S'; }
INBOX=$DV/imap/Maildir

# ---- the usage checks, before anything is read ----
expect_exit 2 "a password in the URL is refused" -- "$BIN" decode --store "sqlite:$TMP/x.db" $A "imaps://bounces:s3cret@127.0.0.1:$P_IMAPS/INBOX"
expect_err 'holds a password: give it with --password-file FILE or \$SMTPDIAG_IMAP_PASSWORD' "and says where a password goes"
expect_exit 2 "a mailbox needs --store" -- "$BIN" decode $A "$IMAPS"
expect_err 'needs --store URL' "the message names --store"
expect_exit 2 "a mailbox needs a password" -- env -u SMTPDIAG_IMAP_PASSWORD "$BIN" decode --store "sqlite:$TMP/x.db" "$IMAPS"
expect_err 'needs a password' "the message says how to give it"
expect_exit 2 "--mark-seen on POP3 is refused" -- "$BIN" decode --store "sqlite:$TMP/x.db" $A --mark-seen "pop3s://pop@127.0.0.1:$P_POP3S/"
expect_exit 2 "--follow with a file is refused" -- "$BIN" decode --store "sqlite:$TMP/x.db" $A --follow "$IMAPS" "$(head -1 "$TMP/first")"
expect_exit 2 "--move-to without a mailbox is refused" -- "$BIN" decode --move-to X "$(head -1 "$TMP/first")"

# ---- a wrong password ----
expect_exit 1 "a wrong password exits 1" -- "$BIN" decode --store "sqlite:$TMP/x.db" --password-file "$TMP/bad" --cacert "$DV/cert.pem" "$IMAPS"
expect_err "$IMAPS: login denied: wrong user or password" "and says so"
expect_exit 1 "an untrusted certificate exits 1" -- "$BIN" decode --store "sqlite:$TMP/x.db" --password-file "$TMP/pw" "$IMAPS"
expect_err "certificate is not trusted .*--cacert FILE" "and names --cacert"

# ---- every message once: the same records as decoding the files ----
"$BIN" decode --store "sqlite:$TMP/files.db" $(cat "$TMP/first") 2>"$TMP/files.err"
expect_exit 0 "imaps:// reads the folder" -- "$BIN" decode --store "sqlite:$TMP/m.db" $A "$IMAPS"
expect_err "^$IMAPS: messages read $NMSG = decoded $NMSG \\+ errors 0\$" "every message read, read = decoded + errors"
sed -n 's/^read/read/p' "$TMP/files.err" >"$TMP/want"
grep '^read ' "$TMP/err" >"$TMP/got"
expect_same "as many records, recorded and duplicates as decoding the files" "$TMP/want" "$TMP/got"
same_state "the mailbox's records are the files' records" "sqlite:$TMP/files.db" "sqlite:$TMP/m.db"
ok_if "$([ "$(seen_in "$INBOX")" = 0 ] && echo 1)" "by default the messages' flags are left (none marked \\Seen)"
expect_exit 0 "a second run" -- "$BIN" decode --store "sqlite:$TMP/m.db" $A "$IMAPS"
expect_err "^$IMAPS: messages read 0 = decoded 0 \\+ errors 0\$" "reads nothing"
ok_if "$([ "$(count_in "$INBOX")" = $NMSG ] && echo 1)" "nothing was moved or deleted"

# ---- --mark-seen, --move-to, --delete ----
sed -n "$((NMSG + 1)),$((NMSG + 3))p" "$TMP/all" >"$TMP/three"
deliver imap $(cat "$TMP/three")
expect_exit 0 "--mark-seen" -- "$BIN" decode --store "sqlite:$TMP/m.db" $A --mark-seen "$IMAPS"
expect_err "messages read 3 = decoded 3 \\+ errors 0" "reads the three new messages"
ok_if "$([ "$(seen_in "$INBOX")" = 3 ] && echo 1)" "and marks those three \\Seen, no other"
expect_exit 1 "--move-to a folder that does not exist" -- "$BIN" decode --store "sqlite:$TMP/m.db" $A --move-to Nowhere "$IMAPS"
expect_err "--move-to Nowhere: no such folder" "is named, before anything is read"
sed -n "$((NMSG + 4)),$((NMSG + 5))p" "$TMP/all" >"$TMP/two"
deliver imap $(cat "$TMP/two")
expect_exit 0 "--move-to Processed" -- "$BIN" decode --store "sqlite:$TMP/m.db" $A --move-to Processed "$IMAPS"
expect_err "messages read 2 = decoded 2 \\+ errors 0" "reads the two new messages"
ok_if "$([ "$(count_in "$INBOX/.Processed")" = 2 ] && [ "$(count_in "$INBOX")" = $((NMSG + 3)) ] && echo 1)" \
	"and moves them, only them, to Processed"
sed -n "$((NMSG + 6))p" "$TMP/all" >"$TMP/one"
deliver imap $(cat "$TMP/one")
expect_exit 0 "--delete" -- "$BIN" decode --store "sqlite:$TMP/m.db" $A --delete "$IMAPS"
expect_err "messages read 1 = decoded 1 \\+ errors 0" "reads the new message"
ok_if "$([ "$(count_in "$INBOX")" = $((NMSG + 3)) ] && echo 1)" "and deletes it, only it"

# ---- imap:// with STARTTLS (the server refuses a login without TLS) ----
expect_exit 0 "imap:// reads through STARTTLS" -- env SMTPDIAG_IMAP_PASSWORD=s3cret "$BIN" decode \
	--store "sqlite:$TMP/s.db" --cacert "$DV/cert.pem" "imap://bounces@127.0.0.1:$P_IMAP/INBOX"
expect_err "messages read $((NMSG + 3)) = decoded $((NMSG + 3)) \\+ errors 0" "every message, the password from the environment"

# ---- the limits: --max-messages, --max-size ----
expect_exit 0 "--max-messages 7" -- "$BIN" decode --store "sqlite:$TMP/l.db" $A --max-messages 7 "$IMAPS"
expect_err "messages read 7 = " "reads 7"
expect_err "reading 7 now, the rest on the next run" "and says the rest waits"
expect_exit 0 "the next run" -- "$BIN" decode --store "sqlite:$TMP/l.db" $A "$IMAPS"
expect_err "messages read $((NMSG - 4)) = " "reads the rest"
same_state "7, then the rest: the same records as at once" "sqlite:$TMP/s.db" "sqlite:$TMP/l.db"
big=$(for f in "$INBOX"/cur/*; do [ "$(wc -c <"$f")" -gt 3000 ] && echo x; done | wc -l)
expect_exit 1 "--max-size 3000: larger messages are errors" -- "$BIN" decode --store "sqlite:$TMP/z.db" $A --max-size 3000 "$IMAPS"
n=$((n + 1))
if grep -Eq "messages read $((NMSG + 3)) = decoded [0-9]+ \\+ errors [1-9]" "$TMP/err" && grep -q "over --max-size 3000: not read" "$TMP/err" &&
	[ "$(grep -c 'over --max-size' "$TMP/err")" -ge "$big" ]; then
	echo "ok $n - each one reported, and counted: read = decoded + errors"
else echo "not ok $n - --max-size"; sed 's/^/#   /' "$TMP/err" | tail -3; fi
expect_exit 0 "a message over the limit is not read again" -- "$BIN" decode --store "sqlite:$TMP/z.db" $A --max-size 3000 "$IMAPS"
expect_err "messages read 0 = " "the next run reads nothing"

# ---- a changed UIDVALIDITY: the folder is read again ----
python3 -c "import sqlite3,sys; c = sqlite3.connect(sys.argv[1]); c.execute('UPDATE mailboxes SET uidvalidity = 1'); c.commit()" "$TMP/s.db"
expect_exit 0 "after UIDVALIDITY changed" -- env SMTPDIAG_IMAP_PASSWORD=s3cret "$BIN" decode \
	--store "sqlite:$TMP/s.db" --cacert "$DV/cert.pem" "imap://bounces@127.0.0.1:$P_IMAP/INBOX"
expect_err "UIDVALIDITY changed from 1 to [0-9]+: the folder is read again" "says so"
expect_err "messages read $((NMSG + 3)) = " "reads every message again"
expect_err "^read [0-9]+ = recorded 0 \\+ duplicates [0-9]+ \\+ errors 0" "whose records are all duplicates"

# ---- a connection dropped mid-fetch, then the rest ----
cat >"$TMP/proxy.py" <<'EOF'
# proxy.py LISTEN TARGET CUT: forward TCP; after CUT bytes from the server (0: never) close all
import socket, sys, threading
lport, tport, cut = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", lport))
srv.listen(8)
srv.settimeout(0.2)
sent = [0]
lock = threading.Lock()
done = threading.Event()
def pipe(a, b, down):
    try:
        while not done.is_set():
            d = a.recv(4096)
            if not d:
                break
            if down and cut:
                with lock:
                    if sent[0] + len(d) >= cut:
                        b.sendall(d[:cut - sent[0]])
                        done.set()
                        break
                    sent[0] += len(d)
            b.sendall(d)
    except OSError:
        pass
    for s in (a, b):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
print("ready", flush=True)
while not done.is_set():
    try:
        c, _ = srv.accept()
    except socket.timeout:
        continue
    u = socket.create_connection(("127.0.0.1", tport))
    threading.Thread(target=pipe, args=(c, u, False), daemon=True).start()
    threading.Thread(target=pipe, args=(u, c, True), daemon=True).start()
EOF
proxy() {
	python3 "$TMP/proxy.py" "$P_PROXY" "$P_IMAPS" "$1" >"$TMP/proxy.out" 2>&1 &
	PROXY_PID=$!
	i=0
	while [ $i -lt 100 ] && ! grep -q ready "$TMP/proxy.out"; do sleep 0.1; i=$((i + 1)); done
}
VIA="imaps://bounces@127.0.0.1:$P_PROXY/INBOX"
proxy 40000
expect_exit 1 "a connection dropped mid-fetch exits 1" -- "$BIN" decode --store "sqlite:$TMP/d.db" $A "$VIA"
r1=$(sed -n 's/.*messages read \([0-9]*\) = .*/\1/p' "$TMP/err")
ok_if "$([ -n "$r1" ] && [ "$r1" -gt 0 ] && [ "$r1" -lt $((NMSG + 3)) ] && echo 1)" "after reading some messages ($r1), the drop named"
kill "$PROXY_PID" 2>/dev/null; wait "$PROXY_PID" 2>/dev/null
proxy 0
expect_exit 0 "the next run" -- "$BIN" decode --store "sqlite:$TMP/d.db" $A "$VIA"
r2=$(sed -n 's/.*messages read \([0-9]*\) = .*/\1/p' "$TMP/err")
ok_if "$([ $((r1 + r2)) -ge $((NMSG + 3)) ] && [ $((r1 + r2)) -le $((NMSG + 4)) ] && echo 1)" \
	"reads the rest ($r1 + $r2: each message once, the one cut at most twice)"
same_state "nothing lost, nothing counted twice" "sqlite:$TMP/s.db" "sqlite:$TMP/d.db"
expect_exit 0 "a third run" -- "$BIN" decode --store "sqlite:$TMP/d.db" $A "$VIA"
expect_err "messages read 0 = " "reads nothing"
kill "$PROXY_PID" 2>/dev/null; wait "$PROXY_PID" 2>/dev/null; PROXY_PID=""

# ---- --follow: new mail read as it comes ----
"$BIN" decode --store "sqlite:$TMP/m.db" $A --follow --poll 1 "$IMAPS" 2>"$TMP/follow.err" &
FOLLOW_PID=$!
sed -n "$((NMSG + 7)),$((NMSG + 8))p" "$TMP/all" >"$TMP/two"
deliver imap $(cat "$TMP/two")
i=0
while [ $i -lt 300 ] && ! grep -q "messages read 2 = decoded 2" "$TMP/follow.err"; do sleep 0.1; i=$((i + 1)); done
kill -TERM "$FOLLOW_PID"
wait "$FOLLOW_PID"
rc=$?
FOLLOW_PID=""
ok_if "$(grep -q "messages read 2 = decoded 2 + errors 0" "$TMP/follow.err" && echo 1)" "--follow reads new mail as it comes"
ok_if "$([ $rc = 0 ] && grep -q '^read 2 = recorded' "$TMP/follow.err" && echo 1)" "and stops on SIGTERM with its counts, exit 0"

# wait_err FILE PATTERN [COUNT]: until FILE has COUNT (1) lines matching PATTERN, 20 s at most
wait_err() {
	i=0
	while [ $i -lt 200 ] && [ "$(grep -c -- "$2" "$1")" -lt "${3:-1}" ]; do sleep 0.1; i=$((i + 1)); done
	[ "$(grep -c -- "$2" "$1")" -ge "${3:-1}" ]
}
# ---- --follow of one IMAP folder waits with IDLE: new mail is read at once, not after --poll ----
"$BIN" decode --store "sqlite:$TMP/m.db" $A --follow --poll 600 "$IMAPS" 2>"$TMP/idle.err" &
FOLLOW_PID=$!
wait_err "$TMP/idle.err" "^$IMAPS: waiting for new mail with IMAP IDLE (a pass at least every 600 seconds)\$"
ok_if "$([ $? = 0 ] && echo 1)" "--follow of one IMAP folder says it waits with IDLE"
sed -n "$((NMSG + 9))p" "$TMP/all" >"$TMP/one"
sleep 1 # the watcher is in IDLE
deliver imap $(cat "$TMP/one")
wait_err "$TMP/idle.err" "messages read 1 = decoded 1 + errors 0"
ok_if "$([ $? = 0 ] && echo 1)" "IDLE: a new message is read within seconds (--poll is 600)"
kill -TERM "$FOLLOW_PID"
wait "$FOLLOW_PID"
rc=$?
FOLLOW_PID=""
ok_if "$([ $rc = 0 ] && grep -q '^read 1 = recorded' "$TMP/idle.err" && echo 1)" "IDLE: SIGTERM ends the wait at once, with the counts, exit 0"

# ---- a broken IDLE connection: polling until it is back, nothing lost ----
VIA="imaps://bounces@127.0.0.1:$P_PROXY/INBOX"
proxy 0
"$BIN" decode --store "sqlite:$TMP/d.db" $A "$VIA" 2>/dev/null # up to date through the proxy
"$BIN" decode --store "sqlite:$TMP/d.db" $A --follow --poll 2 "$VIA" 2>"$TMP/broke.err" &
FOLLOW_PID=$!
wait_err "$TMP/broke.err" "waiting for new mail with IMAP IDLE"
kill "$PROXY_PID" 2>/dev/null; wait "$PROXY_PID" 2>/dev/null
wait_err "$TMP/broke.err" "^$VIA: the IDLE connection broke: looking every 2 seconds until it is back\$"
ok_if "$([ $? = 0 ] && echo 1)" "a broken IDLE connection is named, and decode polls"
proxy 0
sed -n "$((NMSG + 10))p" "$TMP/all" >"$TMP/one"
deliver imap $(cat "$TMP/one")
wait_err "$TMP/broke.err" "messages read 1 = decoded 1 + errors 0"
ok_if "$([ $? = 0 ] && echo 1)" "the message that came meanwhile is read"
wait_err "$TMP/broke.err" "waiting for new mail with IMAP IDLE" 2
ok_if "$([ $? = 0 ] && echo 1)" "and IDLE is taken up again"
kill -TERM "$FOLLOW_PID"
wait "$FOLLOW_PID"
FOLLOW_PID=""
kill "$PROXY_PID" 2>/dev/null; wait "$PROXY_PID" 2>/dev/null; PROXY_PID=""
ok_if "$(grep -q '^read 1 = recorded' "$TMP/broke.err" && echo 1)" "the run's counts: one message, once"

# ---- POP3 ----
POP="pop3s://pop@127.0.0.1:$P_POP3S/"
expect_exit 0 "pop3s:// reads the mailbox" -- "$BIN" decode --store "sqlite:$TMP/p.db" $A "$POP"
expect_err "^$POP: messages read $NMSG = decoded $NMSG \\+ errors 0\$" "every message, read = decoded + errors"
same_state "POP3: the files' records" "sqlite:$TMP/files.db" "sqlite:$TMP/p.db"
expect_exit 0 "a second POP3 run" -- "$BIN" decode --store "sqlite:$TMP/p.db" $A "$POP"
expect_err "messages read 0 = " "reads nothing"
deliver pop $(cat "$TMP/one")
expect_exit 0 "POP3 --delete" -- "$BIN" decode --store "sqlite:$TMP/p.db" $A --delete "$POP"
expect_err "messages read 1 = decoded 1" "reads the new message"
ok_if "$([ "$(count_in "$DV/pop/Maildir")" = $NMSG ] && echo 1)" "and deletes it, only it"
expect_exit 1 "POP3: a wrong password exits 1" -- "$BIN" decode --store "sqlite:$TMP/p.db" --password-file "$TMP/bad" --cacert "$DV/cert.pem" "$POP"
expect_err "login denied: wrong user or password" "and says so"

# ---- the state in PostgreSQL too (the SQL is shared) ----
if pg_find && PGOPTS="-c fsync=off" pg_start; then
	PGS=$(pg_db mailbox)
	expect_exit 0 "a mailbox into a PostgreSQL store" -- "$BIN" decode --store "$PGS" $A "$IMAPS"
	expect_err "messages read $((NMSG + 7)) = " "reads every message"
	expect_exit 0 "again" -- "$BIN" decode --store "$PGS" $A "$IMAPS"
	expect_err "messages read 0 = " "reads nothing the second time"
elif [ -n "${CI:-}" ]; then
	echo "not ok $((n + 1)) - PostgreSQL (Debian package postgresql) did not start"
else
	echo "# SKIP the PostgreSQL store: PostgreSQL is not installed"
fi
