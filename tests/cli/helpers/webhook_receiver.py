#!/usr/bin/env python3
"""A webhook receiver for tests/cli/webhook.sh.

Listens on 127.0.0.1:PORT (0: a free one, written to --port-file), verifies
every Smtpdiag-Signature with the key in --secret, and appends one JSON line
per request to --log: delivery id, attempt, event, address, whether the
signature verified, the answer given. It answers --status (default 200), or
the status in --status-file when that file exists (read at each request), and
401 to a request whose signature does not verify.
"""
import argparse
import hashlib
import hmac
import http.server
import json
import os
import sys


def verify(secret, header, body):
    parts = dict(p.split("=", 1) for p in header.split(",") if "=" in p)
    if "t" not in parts or "v1" not in parts:
        return False
    mac = hmac.new(secret, parts["t"].encode() + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(mac, parts["v1"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--secret", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--status", type=int, default=200)
    ap.add_argument("--status-file")
    a = ap.parse_args()
    with open(a.secret, "rb") as f:
        secret = f.read().rstrip(b"\r\n")

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            n = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(n)
            ok = verify(secret, self.headers.get("Smtpdiag-Signature", ""), body)
            status = a.status
            if a.status_file and os.path.exists(a.status_file):
                with open(a.status_file) as f:
                    status = int(f.read().strip() or "200")
            if not ok:
                status = 401
            try:
                doc = json.loads(body)
            except ValueError:
                doc = {}
            rec = {
                "delivery": self.headers.get("Smtpdiag-Delivery", ""),
                "attempt": int(self.headers.get("Smtpdiag-Attempt", "0")),
                "event": self.headers.get("Smtpdiag-Event", ""),
                "id": doc.get("id", ""),
                "address": doc.get("address", doc.get("email", "")),
                "verified": ok,
                "status": status,
                "path": self.path,
                "auth": self.headers.get("Authorization", ""),
                "body": doc,
            }
            with open(a.log, "a") as f:
                f.write(json.dumps(rec) + "\n")
            self.send_response(status)
            self.send_header("Content-Type", "text/plain")
            answer = b"ok\n" if status < 300 else b"no: %d\n" % status
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

    http.server.HTTPServer.allow_reuse_address = True
    srv = http.server.HTTPServer(("127.0.0.1", a.port), Handler)
    if a.port_file:
        with open(a.port_file + ".tmp", "w") as f:
            f.write("%d\n" % srv.server_address[1])
        os.rename(a.port_file + ".tmp", a.port_file)
    sys.stdout.flush()
    srv.serve_forever()


if __name__ == "__main__":
    main()
