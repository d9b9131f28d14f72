#!/usr/bin/env python3
"""Lag of single changes between two peers: sets a new key on the first process's admin socket, polls the second's
every millisecond until the key shows, for DURATION seconds; prints p50/p99/max in ms and the probe count."""
import socket, sys, time

def cmd(path, line):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall(line.encode() + b"\n")
    out = b""
    while True:
        d = s.recv(65536)
        if not d:
            break
        out += d
    s.close()
    return out.decode()

first, second, duration = sys.argv[1], sys.argv[2], float(sys.argv[3])
lags = []
end = time.time() + duration
i = 0
while time.time() < end:
    i += 1
    key = "probe%d" % i
    t0 = time.perf_counter()
    cmd(first, "set table p/k key %s data.gpt0 1" % key)
    while "key=" + key not in cmd(second, "show table p/k key %s" % key):
        if time.perf_counter() - t0 > 5:
            break
        time.sleep(0.001)
    lags.append((time.perf_counter() - t0) * 1000)
    time.sleep(0.02)
lags.sort()
def pct(p):
    return lags[min(len(lags) - 1, int(len(lags) * p))]
print("p50 %.1f ms, p99 %.1f ms, max %.1f ms over %d changes" % (pct(0.5), pct(0.99), lags[-1], len(lags)))
