#!/usr/bin/env python3
"""One connection attempt, reported as a word: `connected` or the errno name (ECONNREFUSED,
ENETUNREACH, EPERM, ...). Runs inside or outside the sandbox.

  net_probe.py tcp HOST PORT         TCP connect (no proxy)
  net_probe.py udp HOST PORT TEXT    one datagram; `sent` or the errno name
  net_probe.py dns HOST              one DNS query (for example.com) over UDP to HOST:53;
                                     `answered`, `no-answer` (1 s) or the errno name
  net_probe.py abstract NAME         AF_UNIX connect to the abstract name NAME
"""
import errno
import socket
import struct
import sys


def name_of(e):
    return errno.errorcode.get(e.errno, str(e.errno)) if isinstance(e, OSError) and e.errno else type(e).__name__


def main():
    kind = sys.argv[1]
    try:
        if kind == "tcp":
            s = socket.create_connection((sys.argv[2], int(sys.argv[3])), timeout=5)
            s.close()
            print("connected")
        elif kind == "udp":
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.sendto(sys.argv[4].encode(), (sys.argv[2], int(sys.argv[3])))
            print("sent")
        elif kind == "dns":
            q = struct.pack(">HHHHHH", 0x1234, 0x0100, 1, 0, 0, 0)
            q += b"".join(bytes([len(p)]) + p.encode() for p in "example.com".split(".")) + b"\0"
            q += struct.pack(">HH", 1, 1)
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.settimeout(1)
            s.sendto(q, (sys.argv[2], 53))
            try:
                s.recvfrom(4096)
                print("answered")
            except socket.timeout:
                print("no-answer")
        elif kind == "abstract":
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect("\0" + sys.argv[2])
            s.close()
            print("connected")
    except Exception as e:  # noqa: BLE001 - the errno name is the result
        print(name_of(e))


main()
