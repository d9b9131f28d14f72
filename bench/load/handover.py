#!/usr/bin/python3
"""handover.py RUN_DIR TARGET...: reloads under a churn of new connections, with and without -x.

TARGET is sluice-x, sluice-nox, haproxy-x or haproxy-nox; a target may come back (runs interleaved against the
machine's drift), its runs are added up in the summary. For each run: the proxy starts on a configuration whose
frontend answers every request itself with its pid (`http-request return ... lf-string "%[pid]"`-like: `%pid`),
with `stats socket ... expose-fd listeners`; wrk opens new connections without pause (-c CONNS, Connection: close,
one request each); RELOADS times a new process is started with `-sf <old>` (and `-x <admin socket>` for the -x
targets), and the time from its launch to the first answer carrying its pid is taken (polled every 2 ms by this
process, already running); the next reload waits for the old process's exit. Then wrk is stopped (SIGINT) and its
socket errors and non-2xx answers are what the reloads cost the clients. Prints a line per run, then one per target:
reload to new process answering (p50, p99, max over all its reloads), and the connections lost.

Environment: RELOADS [10]  CONNS [50]  SLUICE (launcher) [../../sluice]  SLUICE_JAR (jar under test, optional)
HAPROXY [haproxy]  PORT [27700]
"""
import os
import re
import signal
import socket
import subprocess
import sys
import time

RUN = sys.argv[1]
TARGETS = sys.argv[2:] or ["sluice-x", "sluice-nox", "haproxy-x", "haproxy-nox"]
RELOADS = int(os.environ.get("RELOADS", "10"))
CONNS = int(os.environ.get("CONNS", "50"))
HERE = os.path.dirname(os.path.abspath(__file__))
SLUICE = os.environ.get("SLUICE", os.path.join(HERE, "..", "..", "sluice"))
HAPROXY = os.environ.get("HAPROXY", "haproxy")
BASE_PORT = int(os.environ.get("PORT", "27700"))

CONFIG = """global
    stats socket {sock} level admin expose-fd listeners
defaults
    mode http
    timeout connect 1s
    timeout client 5s
    timeout server 5s
frontend fe
    bind 127.0.0.1:{port}
    http-request return status 200 content-type text/plain lf-string "%pid"
"""


def answer(port):
    """The body of one answer on a new connection, or None."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            data = b""
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        return body.decode().strip() if head.startswith(b"HTTP/1.1 200") else None
    except OSError:
        return None


def start(target, cfg, log, old=None, sock=None):
    if target.startswith("sluice"):
        cmd = [SLUICE, "-f", cfg]
    else:
        cmd = [HAPROXY, "-db", "-f", cfg]
    if old is not None:
        cmd += ["-sf", str(old.pid)]
        if target.endswith("-x"):
            cmd += ["-x", sock]
    return subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)


def percentile(values, p):
    v = sorted(values)
    return v[min(len(v) - 1, int(round(p / 100.0 * (len(v) - 1))))]


def run(target, port):
    d = os.path.join(RUN, "handover", target)
    os.makedirs(d, exist_ok=True)
    sock = os.path.join(d, "admin.sock")
    cfg = os.path.join(d, "proxy.cfg")
    with open(cfg, "w") as f:
        f.write(CONFIG.format(sock=sock, port=port))
    log = open(os.path.join(d, "proxy.log"), "w")
    proc = start(target, cfg, log)
    deadline = time.time() + 60
    while answer(port) is None:
        if time.time() > deadline or proc.poll() is not None:
            sys.exit("%s did not start: see %s" % (target, os.path.join(d, "proxy.log")))
        time.sleep(0.05)
    # a little warm-up before the load
    for _ in range(200):
        answer(port)
    wrk_out = open(os.path.join(d, "wrk.txt"), "w")
    wrk = subprocess.Popen(["wrk", "-t2", "-c%d" % CONNS, "-d600s", "-H", "Connection: close", "http://127.0.0.1:%d/" % port],
                           stdout=wrk_out, stderr=subprocess.STDOUT)
    time.sleep(2)
    times = []
    failed = 0
    for _ in range(RELOADS):
        t0 = time.monotonic()
        new = start(target, cfg, log, proc, sock)
        want = str(new.pid)
        while True:
            body = answer(port)
            if body == want:
                times.append((time.monotonic() - t0) * 1000)
                break
            if new.poll() is not None or time.monotonic() - t0 > 60:
                failed += 1
                break
            time.sleep(0.002)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            pass
        if new.poll() is not None:
            break
        proc = new
        time.sleep(0.5)
    wrk.send_signal(signal.SIGINT)
    wrk.wait(30)
    wrk_out.close()
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()
    text = open(os.path.join(d, "wrk.txt")).read()
    m = re.search(r"(\d+) requests in", text)
    total = int(m.group(1)) if m else -1
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    errors = tuple(int(x) for x in m.groups()) if m else (0, 0, 0, 0)
    m = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    non2xx = int(m.group(1)) if m else 0
    return times, failed, total, errors, non2xx


def main():
    print("# %d reloads per run under wrk -t2 -c%d (new connection per request), runs in this order: %s; load average before: %s"
          % (RELOADS, CONNS, " ".join(TARGETS), open("/proc/loadavg").read().split()[0]))
    totals = {}
    for i, t in enumerate(TARGETS):
        times, failed, total, errors, non2xx = run(t, BASE_PORT + i)
        print("# run %d %s: %s ms; %d requests, lost %d/%d/%d/%d, %d, %d" % ((i + 1, t, " ".join("%.0f" % x for x in times), total)
                                                                            + errors + (non2xx, failed)), flush=True)
        agg = totals.setdefault(t, [[], 0, 0, [0, 0, 0, 0], 0])
        agg[0] += times
        agg[1] += failed
        agg[2] += total
        agg[3] = [a + b for a, b in zip(agg[3], errors)]
        agg[4] += non2xx
    print("# load average after: %s" % open("/proc/loadavg").read().split()[0])
    print("%-12s %8s %8s %8s %8s  %9s  %s" % ("target", "reloads", "p50 ms", "p99 ms", "max ms", "requests",
                                               "lost: connect/read/write/timeout errors, non-2xx, failed reloads"))
    for t, (times, failed, total, errors, non2xx) in totals.items():
        p50 = "%.0f" % percentile(times, 50) if times else "-"
        p99 = "%.0f" % percentile(times, 99) if times else "-"
        mx = "%.0f" % max(times) if times else "-"
        print("%-12s %8d %8s %8s %8s  %9d  %d/%d/%d/%d, %d, %d" % ((t, len(times), p50, p99, mx, total) + tuple(errors) + (non2xx, failed)))


main()
