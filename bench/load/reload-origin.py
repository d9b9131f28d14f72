#!/usr/bin/env python3
"""Issue 21: server connections across in-process reloads.

    ./reload-origin.py [JAR ...]     # default: proxy/target/sluice.jar; several jars are run one after the other

wrk -c32 through Sluice to an origin (HAProxy 2.6 answering with http-request return, keep-alive) for 10 s, first
without reloads, then with an in-process reload every 250 ms. Per run: requests/s, p50/p99, the reloads done, and the
connections the origin accepted (its CumConns): with server connections handed to the new configuration's servers,
reloads open no new ones. Ports 27800-27802.
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
JAVA = os.environ.get("JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64") + "/bin/java"
WORK = tempfile.mkdtemp(prefix="reload-origin.")
PORT, ORIGIN = 27800, 27801


def wait_port(port, timeout=60):
    end = time.time() + timeout
    while time.time() < end:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit("port %d never opened" % port)


def admin(sock, cmd):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(30)
    s.connect(sock)
    s.sendall((cmd + "\n").encode())
    out = b""
    while True:
        b = s.recv(65536)
        if not b:
            break
        out += b
    s.close()
    return out.decode()


def cum_conns(sock):
    return int(re.search(r"CumConns: (\d+)", admin(sock, "show info")).group(1))


def config(gen, sock):
    return """global
    stats socket %s level admin
defaults
    mode http
    timeout connect 1s
    timeout client 10s
    timeout server 10s
frontend fe
    bind 127.0.0.1:%d
    http-response set-header x-gen %s
    default_backend be
backend be
    server origin 127.0.0.1:%d
""" % (sock, PORT, gen, ORIGIN)


def run(jar):
    osock = os.path.join(WORK, "origin.sock")
    ocfg = os.path.join(WORK, "origin.cfg")
    open(ocfg, "w").write("""global
    stats socket %s level admin
defaults
    mode http
    timeout client 10s
    timeout server 10s
    timeout connect 1s
frontend origin
    bind 127.0.0.1:%d
    http-request return status 200 content-type text/plain string ok
""" % (osock, ORIGIN))
    origin = subprocess.Popen(["haproxy", "-f", ocfg], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    sock = os.path.join(WORK, "s.sock")
    cfg = os.path.join(WORK, "s.cfg")
    open(cfg, "w").write(config("a", sock))
    p = subprocess.Popen([JAVA, "-jar", jar, "-f", cfg], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_port(ORIGIN)
        wait_port(PORT)
        # warm-up
        subprocess.run(["wrk", "-t1", "-c32", "-d5s", "http://127.0.0.1:%d/" % PORT], stdout=subprocess.DEVNULL)
        for label, reloading in (("no reload", False), ("a reload every 250 ms", True)):
            before = cum_conns(osock)
            w = subprocess.Popen(["wrk", "-t1", "-c32", "-d10s", "--latency", "http://127.0.0.1:%d/" % PORT],
                                 stdout=subprocess.PIPE, text=True)
            n = 0
            while w.poll() is None:
                if reloading:
                    open(cfg, "w").write(config("g%d" % n, sock))
                    admin(sock, "reload")
                    n += 1
                time.sleep(0.25)
            out = w.stdout.read()
            p50 = re.search(r"50%\s+(\S+)", out).group(1)
            p99 = re.search(r"99%\s+(\S+)", out).group(1)
            rps = re.search(r"Requests/sec:\s+(\S+)", out).group(1)
            errs = re.search(r"Socket errors:.*", out)
            print("  %-24s p50 %-9s p99 %-9s %s req/s  reloads %3d  origin connections %5d  %s"
                  % (label, p50, p99, rps, n, cum_conns(osock) - before, errs.group(0) if errs else "no socket errors"))
    finally:
        p.terminate()
        p.wait(10)
        origin.terminate()
        origin.wait(10)


def main():
    jars = sys.argv[1:] or [os.path.join(ROOT, "proxy", "target", "sluice.jar")]
    print("reload-origin: %s, load average %.2f" % (time.strftime("%Y-%m-%d %H:%M"), os.getloadavg()[0]))
    for jar in jars:
        print(jar)
        run(jar)


if __name__ == "__main__":
    main()
