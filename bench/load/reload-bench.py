#!/usr/bin/env python3
"""Issue 21: reloads, measured side by side.

    ./reload-bench.py            # RELOADS=20 per kind, SERVERS=1000 servers in the configuration, START_WAIT=0 s

1. Reload to the new configuration answering: the configuration alternates the value of a response header
   (x-gen); the time from the reload order to the first response carrying the new value, polled on a fresh
   connection every millisecond. Kinds: Sluice in-process (`reload` on the admin socket), Sluice process
   hand-over (a new process started with -sf), HAProxy 2.6 -sf. p50/p99/max over RELOADS.
2. Footprint: RSS and heap (after a full GC) of one Sluice process under wrk load before and after 100
   in-process reloads (RSS 2 s and 15 s after the last: the daemon gives the heap back 10 s after a burst).
3. Latency: wrk -c32 --latency for 10 s without reloads, then with a reload every 250 ms: p50/p99.
Ports 27700-27799. Frontends answer themselves (http-request return): no origin.
"""
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SLUICE = os.path.join(ROOT, "sluice")
RELOADS = int(os.environ.get("RELOADS", "20"))
SERVERS = int(os.environ.get("SERVERS", "1000"))
WORK = tempfile.mkdtemp(prefix="reload-bench.")
PORT = 27700
JAVA = os.environ.get("JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64") + "/bin"
procs = []


def config(gen, sock):
    servers = "".join("    server s%d 127.0.0.%d:%d\n" % (i, 2 + i // 60000, 20000 + i % 60000) for i in range(SERVERS))
    return """global
    stats socket %s level admin
defaults
    mode http
    timeout connect 1s
    timeout client 10s
    timeout server 10s
frontend fe
    bind 127.0.0.1:%d
    http-request return status 200 content-type text/plain string "ok" hdr x-gen %s if { path /gen }
    default_backend be
backend be
%s""" % (sock, PORT, gen, servers)


def wait_port(port, timeout=60):
    end = time.time() + timeout
    while time.time() < end:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.02)
    raise SystemExit("port %d never opened" % port)


def gen_now():
    try:
        s = socket.create_connection(("127.0.0.1", PORT), 0.5)
        s.sendall(b"GET /gen HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while True:
            b = s.recv(4096)
            if not b:
                break
            data += b
        s.close()
        m = re.search(rb"x-gen: (\S+)", data)
        return m.group(1).decode() if m else None
    except OSError:
        return None


def admin(sock, cmd):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock)
    s.sendall(cmd.encode() + b"\n")
    data = b""
    while True:
        b = s.recv(65536)
        if not b:
            break
        data += b
    s.close()
    return data.decode()


def until(gen, t0):
    while gen_now() != gen:
        time.sleep(0.001)
        if time.time() - t0 > 30:
            raise SystemExit("no answer from generation " + gen)
    return (time.time() - t0) * 1000


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def report(name, xs):
    print("%-34s p50 %8.1f ms   p99 %8.1f ms   max %8.1f ms   (n=%d)" % (name, pct(xs, 50), pct(xs, 99), max(xs), len(xs)))


def java_pid(pid):
    for line in subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split():
        return int(line)
    return pid


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))


def heap_used_kb(pid):
    subprocess.run([JAVA + "/jcmd", str(pid), "GC.run"], capture_output=True)
    out = subprocess.run([JAVA + "/jcmd", str(pid), "GC.heap_info"], capture_output=True, text=True).stdout
    # the generations' (or G1's heap) lines: "DefNew total ..., used NK", "Tenured total ..., used NK"; not the spaces
    used = [int(m.group(1)) for m in re.finditer(r"\btotal \d+K, used (\d+)K", out)]
    return sum(used) if used else -1


def start(cmd):
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=open(os.path.join(WORK, "log"), "a"))
    procs.append(p)
    return p


def stop_all():
    for p in procs:
        if p.poll() is None:
            p.terminate()
    for p in procs:
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
    subprocess.run(["pkill", "-f", WORK], capture_output=True)


def sluice_in_process():
    sock = os.path.join(WORK, "s.sock")
    cfg = os.path.join(WORK, "s.cfg")
    open(cfg, "w").write(config("g0", sock))
    p = start([SLUICE, "-f", cfg])
    wait_port(PORT)
    until("g0", time.time())
    # START_WAIT=<s>: the first reload that long after the start (the daemon warms its reload path 2 s after it)
    time.sleep(float(os.environ.get("START_WAIT", "0")))
    times = []
    for i in range(1, RELOADS + 1):
        open(cfg, "w").write(config("g%d" % i, sock))
        t0 = time.time()
        answer = admin(sock, "reload")
        if not answer.startswith("Success=1"):
            raise SystemExit(answer)
        times.append(until("g%d" % i, t0))
    return p, sock, cfg, times


def handovers(cmd_of, pidfile_pid):
    """Process reloads: cmd_of(gen, oldpid) starts the new process."""
    times = []
    old = pidfile_pid
    for i in range(1, RELOADS + 1):
        t0 = time.time()
        p = cmd_of("h%d" % i, old)
        until("h%d" % i, t0)
        times.append((time.time() - t0) * 1000)
        old = p
        time.sleep(0.3)
    return old, times


def main():
    results = []
    # the launcher rebuilds the jar and its start-up cache when the sources changed: not inside the timings
    warm = os.path.join(WORK, "warm.cfg")
    open(warm, "w").write(config("w", os.path.join(WORK, "w.sock")))
    subprocess.run([SLUICE, "-c", "-q", "-f", warm])
    try:
        # 1a. in-process
        p, sock, cfg, times = sluice_in_process()
        report("Sluice in-process reload", times)
        results.append(times)
        # 2. footprint under load, before and after 100 reloads
        jp = java_pid(p.pid)
        wrk = subprocess.Popen(["wrk", "-t1", "-c16", "-d600s", "http://127.0.0.1:%d/gen" % PORT], stdout=subprocess.DEVNULL)
        time.sleep(3)
        rss0, heap0 = rss_kb(jp), heap_used_kb(jp)
        for i in range(100):
            open(cfg, "w").write(config("f%d" % i, sock))
            admin(sock, "reload")
        time.sleep(2)
        rss1 = rss_kb(jp)
        # the daemon collects once when reloads have stopped for 10 s (Generations.collectIfSettled)
        time.sleep(13)
        rss2, heap1 = rss_kb(jp), heap_used_kb(jp)
        wrk.terminate()
        wrk.wait()
        gens = re.search(r"Generations: (\d+)", admin(sock, "show info")).group(1)
        print("Sluice under wrk, before 100 reloads: RSS %d MB, heap after GC %d MB" % (rss0 // 1024, heap0 // 1024))
        print("Sluice under wrk, after 100 reloads:  RSS %d MB 2 s after, %d MB 15 s after, heap after GC %d MB, generations alive %s"
              % (rss1 // 1024, rss2 // 1024, heap1 // 1024, gens))
        # 3. latency with and without reloads
        for label, reloading in (("wrk -c32, no reload", False), ("wrk -c32, a reload every 250 ms", True)):
            w = subprocess.Popen(["wrk", "-t1", "-c32", "-d10s", "--latency", "http://127.0.0.1:%d/gen" % PORT],
                                 stdout=subprocess.PIPE, text=True)
            n = 0
            while w.poll() is None:
                if reloading:
                    open(cfg, "w").write(config("l%d" % n, sock))
                    admin(sock, "reload")
                    n += 1
                time.sleep(0.25)
            out = w.stdout.read()
            # the latency distribution's lines ("     50%  236.00us"), not a thread line's "+/- Stdev" percentage
            p50 = re.search(r"^\s+50%\s+(\S+)", out, re.M).group(1)
            p99 = re.search(r"^\s+99%\s+(\S+)", out, re.M).group(1)
            rps = re.search(r"Requests/sec:\s+(\S+)", out).group(1)
            errs = re.search(r"Socket errors:.*", out)
            print("%-34s p50 %s  p99 %s  %s req/s  reloads %d  %s" % (label, p50, p99, rps, n, errs.group(0) if errs else "no socket errors"))
        p.terminate()
        p.wait(10)
        time.sleep(0.5)

        # 1b. Sluice process hand-over (-sf)
        cfgs = os.path.join(WORK, "h.cfg")
        sock2 = os.path.join(WORK, "h.sock")
        open(cfgs, "w").write(config("h0", sock2))
        first = start([SLUICE, "-f", cfgs])
        wait_port(PORT)
        until("h0", time.time())

        def sluice_sf(gen, old):
            open(cfgs, "w").write(config(gen, sock2))
            return start([SLUICE, "-f", cfgs, "-sf", str(java_pid(old.pid) if isinstance(old, subprocess.Popen) else old)])
        _, times = handovers(sluice_sf, first)
        report("Sluice process hand-over (-sf)", times)
        stop_all()
        time.sleep(0.5)

        # 1c. HAProxy 2.6 -sf
        cfgh = os.path.join(WORK, "hap.cfg")
        sock3 = os.path.join(WORK, "hap.sock")
        open(cfgh, "w").write(config("h0", sock3))
        first = start(["haproxy", "-f", cfgh])
        wait_port(PORT)
        until("h0", time.time())

        def haproxy_sf(gen, old):
            open(cfgh, "w").write(config(gen, sock3))
            return start(["haproxy", "-f", cfgh, "-sf", str(old.pid)])
        _, times = handovers(haproxy_sf, first)
        report("HAProxy 2.6 -sf", times)
    finally:
        stop_all()


if __name__ == "__main__":
    print("reload-bench: %d servers in the configuration, %d reloads per kind, %s" % (SERVERS, RELOADS, time.strftime("%Y-%m-%d %H:%M")))
    print("load average %s" % open("/proc/loadavg").read().split()[0])
    main()
