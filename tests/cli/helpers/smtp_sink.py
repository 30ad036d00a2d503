#!/usr/bin/env python3
"""smtp_sink.py PORTFILE PREFIX=REPLY...: a small SMTP server on 127.0.0.1 (a
free port, written to PORTFILE) for the tests. RCPT TO an address that starts
with PREFIX gets REPLY (a whole reply line such as "550 5.7.1 Rate limit
exceeded, try again later"); any other address gets 250 and its message is
taken (bounces and notices of the server under test). Serves until killed."""
import os
import socket
import sys
import threading


def session(conn):
    f = conn.makefile("rb")

    def say(line):
        conn.sendall(line.encode() + b"\r\n")

    say("220 sink.test ESMTP")
    in_data = False
    for raw in f:
        line = raw.decode("latin-1").rstrip("\r\n")
        if in_data:
            if line == ".":
                in_data = False
                say("250 2.0.0 taken")
            continue
        verb = line[:4].upper()
        if verb in ("EHLO", "HELO"):
            say("250 sink.test")
        elif verb == "MAIL":
            say("250 2.1.0 ok")
        elif verb == "RCPT":
            addr = line.split(":", 1)[-1].strip().strip("<>")
            say(next((r for p, r in REPLIES if addr.startswith(p)), "250 2.1.5 ok"))
        elif verb == "DATA":
            in_data = True
            say("354 go on")
        elif verb == "QUIT":
            say("221 2.0.0 bye")
            break
        else:
            say("250 2.0.0 ok")
    conn.close()


def main():
    portfile = sys.argv[1]
    for arg in sys.argv[2:]:
        prefix, reply = arg.split("=", 1)
        REPLIES.append((prefix, reply))
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(16)
    with open(portfile + ".tmp", "w") as pf:
        pf.write("%d\n" % s.getsockname()[1])
    os.rename(portfile + ".tmp", portfile)
    while True:
        conn, _ = s.accept()
        threading.Thread(target=session, args=(conn,), daemon=True).start()


REPLIES = []
if __name__ == "__main__":
    main()
