#!/usr/bin/env python3
"""Servers for the network tests, each on a free port chosen by the kernel.

  net_servers.py http  PORTFILE ADDR            HTTP: GET /echo-host answers the Host header,
                                                GET /bytes/N answers N bytes (random.Random(N)),
                                                POST /sha256 answers the body's SHA-256 (hex),
                                                GET /PATH answers "body:PATH"
  net_servers.py https PORTFILE ADDR CERT KEY   the same over TLS
  net_servers.py udp   PORTFILE ADDR LOGFILE    appends every datagram to LOGFILE
  net_servers.py abstract NAME LOGFILE          listens on the abstract unix name NAME
                                                (without the leading NUL); logs each accept
PORTFILE gets the port once the server listens (written atomically).
"""
import hashlib
import os
import random
import socket
import ssl
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def publish(portfile, port):
    with open(portfile + ".tmp", "w") as f:
        f.write(str(port))
    os.rename(portfile + ".tmp", portfile)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def do_GET(self):
        if self.path.startswith("/bytes/"):
            n = int(self.path[len("/bytes/"):])
            return self.answer(random.Random(n).randbytes(n))
        body = ("host:" + str(self.headers.get("Host")) if self.path == "/echo-host"
                else "body:" + self.path).encode() + b"\n"
        self.answer(body)

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        h = hashlib.sha256()
        while n > 0:
            part = self.rfile.read(min(n, 1 << 20))
            if not part:
                break
            h.update(part)
            n -= len(part)
        self.answer((h.hexdigest() + "\n").encode())

    def answer(self, body):
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, addr):
        self.address_family = socket.AF_INET6 if ":" in addr else socket.AF_INET
        super().__init__((addr, 0), Handler)


def main():
    mode = sys.argv[1]
    if mode in ("http", "https"):
        srv = Server(sys.argv[3])
        if mode == "https":
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(sys.argv[4], sys.argv[5])
            srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
        publish(sys.argv[2], srv.server_address[1])
        srv.serve_forever()
    elif mode == "udp":
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind((sys.argv[3], 0))
        publish(sys.argv[2], s.getsockname()[1])
        while True:
            data, _ = s.recvfrom(65536)
            with open(sys.argv[4], "ab") as f:
                f.write(data + b"\n")
    elif mode == "abstract":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind("\0" + sys.argv[2])
        s.listen(16)
        with open(sys.argv[3] + ".ready", "w"):
            pass
        while True:
            c, _ = s.accept()
            with open(sys.argv[3], "a") as f:
                f.write("accepted\n")
            c.close()


main()
