#!/usr/bin/env python3
# socketmap_flood.py SOCKET N: hold N socketmap connections open, each served one
# lookup, then check that connection N + 1 is closed without an answer. Exit 0
# when both hold, else a message on stderr.
import socket
import sys

path, n = sys.argv[1], int(sys.argv[2])


def conn():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(path)
    return s


held = []
for i in range(n):
    s = conn()
    s.sendall(b"8:status x,")
    if s.recv(100) != b"9:NOTFOUND ,":
        sys.exit("connection %d was not served" % (i + 1))
    held.append(s)
extra = conn()
try:
    extra.sendall(b"8:status x,")
    got = extra.recv(100)
except OSError:
    got = b""
if got:
    sys.exit("connection %d was served: %r" % (n + 1, got))
for s in held:
    s.close()
