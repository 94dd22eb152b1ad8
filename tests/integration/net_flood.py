#!/usr/bin/env python3
"""Abuse of the proxy from inside the sandbox, reported as counts.

  net_flood.py conns N     N connections to the proxy port at once, each stalling after one
                           byte; prints how each ended: `closed` (EOF or reset at once),
                           `timeout-408` (the proxy gave up waiting), `other`, `hung` (no end
                           within 30 s), as "closed=.. timeout-408=.. other=.. hung=.."
  net_flood.py bighead     a request head of 1 MiB; prints the proxy's status line
  net_flood.py stall       half a request head, then silence; prints the answer and seconds
  net_flood.py tunnels N HOST:PORT
                           N CONNECT tunnels to HOST:PORT (an HTTP server), all held open at once;
                           then a GET through each established one; prints
                           "ok=.. turned=.. broken=.. other=..": ok, the GET answered through
                           its tunnel; turned, a 503 to the CONNECT (the proxy's limit); broken,
                           established but the GET failed; other, anything else
"""
import selectors
import socket
import sys
import time

PROXY = ("127.0.0.1", 3128)


def conns(n):
    sel = selectors.DefaultSelector()
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.setblocking(False)
        try:
            s.connect(PROXY)
        except BlockingIOError:
            pass
        socks.append(s)
    for s in socks:
        sel.register(s, selectors.EVENT_WRITE, b"")
    result = {"closed": 0, "timeout-408": 0, "other": 0, "hung": 0}
    sent = set()
    deadline = time.time() + 30
    open_ = set(socks)
    while open_ and time.time() < deadline:
        for key, ev in sel.select(timeout=1):
            s = key.fileobj
            if ev & selectors.EVENT_WRITE and s not in sent:
                try:
                    s.send(b"G")
                except OSError:
                    pass
                sent.add(s)
                sel.modify(s, selectors.EVENT_READ, b"")
                continue
            try:
                data = s.recv(4096)
            except OSError:
                data = b""
            if not data:
                result["closed"] += 1
            elif data.startswith(b"HTTP/1.1 408"):
                result["timeout-408"] += 1
            else:
                result["other"] += 1
            sel.unregister(s)
            open_.discard(s)
            s.close()
    result["hung"] = len(open_)
    print(" ".join("%s=%d" % kv for kv in result.items()))


def bighead():
    s = socket.create_connection(PROXY)
    s.settimeout(20)
    head = b"GET http://example.com/ HTTP/1.1\r\nX-Big: " + b"a" * (1 << 20) + b"\r\n\r\n"
    try:
        s.sendall(head)
    except OSError:
        pass
    try:
        print(s.recv(4096).split(b"\r\n")[0].decode())
    except OSError as e:
        print("error", e)


def stall():
    s = socket.create_connection(PROXY)
    s.settimeout(30)
    t0 = time.time()
    s.sendall(b"GET http://example.com/ HTTP/1.1\r\nHost: exa")
    data = s.recv(4096)
    print(data.split(b"\r\n")[0].decode(), "after", int(time.time() - t0), "s")


def tunnels(n, dest):
    socks, result = [], {"ok": 0, "turned": 0, "broken": 0, "other": 0}
    for _ in range(n):
        s = socket.create_connection(PROXY, timeout=30)
        s.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (dest, dest)).encode())
        socks.append(s)
    established = []
    for s in socks:
        head = b""
        try:
            while b"\r\n\r\n" not in head:
                b = s.recv(4096)
                if not b:
                    break
                head += b
        except OSError:
            pass
        if head.startswith(b"HTTP/1.1 200"):
            established.append(s)
        elif head.startswith(b"HTTP/1.1 503"):
            result["turned"] += 1
        else:
            result["other"] += 1
    for i, s in enumerate(established):
        try:
            s.sendall(("GET /t%d HTTP/1.0\r\nHost: %s\r\n\r\n" % (i, dest)).encode())
            data = b""
            while True:
                b = s.recv(4096)
                if not b:
                    break
                data += b
            result["ok" if data.endswith(b"body:/t%d\n" % i) else "broken"] += 1
        except OSError:
            result["broken"] += 1
    print(" ".join("%s=%d" % kv for kv in result.items()))


{"conns": lambda: conns(int(sys.argv[2])), "bighead": bighead, "stall": stall,
 "tunnels": lambda: tunnels(int(sys.argv[2]), sys.argv[3])}[sys.argv[1]]()
