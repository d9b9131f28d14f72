#!/usr/bin/python3
"""first-answer.py STAMP_FILE PORT [TIMEOUT_S]: milliseconds from a launch to the first HTTP 200.

Started before the server: waits for STAMP_FILE to hold the launch time (ns since the epoch, written by the
caller right before it starts the server), then sends `GET /hello` over HTTP/1.1 to 127.0.0.1:PORT every
2 ms until one answers 200, and prints the milliseconds between the launch and that answer (or FAIL).
Polling from an already running process keeps the poller's own start-up out of the figure.
"""
import os
import socket
import sys
import time

stamp, port = sys.argv[1], int(sys.argv[2])
limit = float(sys.argv[3]) if len(sys.argv) > 3 else 60.0
while True:
    try:
        with open(stamp) as f:
            t0 = int(f.read().strip())
        break
    except (OSError, ValueError):
        time.sleep(0.0005)
req = b"GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
while time.time_ns() - t0 < limit * 1e9:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
            s.sendall(req)
            head = s.recv(64)
            if head.startswith(b"HTTP/1.1 200") or head.startswith(b"HTTP/1.0 200"):
                print("%.1f" % ((time.time_ns() - t0) / 1e6))
                sys.exit(0)
    except OSError:
        pass
    time.sleep(0.002)
print("FAIL")
sys.exit(1)
