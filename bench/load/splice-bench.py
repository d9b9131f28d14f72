#!/usr/bin/env python3
"""Helper of splice-bench.sh: 'origin DOWN_PORT UP_PORT' (1 MiB to each connection on DOWN_PORT; drain UP_PORT)
or 'client down|up PORT COUNT THREADS' (COUNT 1 MiB transfers over THREADS connections at a time; prints MiB moved)."""
import socket, sys, threading

MIB = 1 << 20
BLOCK = bytes(range(256)) * 256

def origin(down, up):
    def serve(port, fn):
        ls = socket.socket(); ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind(('127.0.0.1', port)); ls.listen(128)
        while True:
            c, _ = ls.accept()
            threading.Thread(target=fn, args=(c,), daemon=True).start()
    def send(c):
        try:
            for _ in range(MIB // len(BLOCK)):
                c.sendall(BLOCK)
            c.shutdown(socket.SHUT_WR)
            while c.recv(65536):
                pass
        except OSError:
            pass
        c.close()
    def drain(c):
        try:
            while c.recv(262144):
                pass
            c.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        c.close()
    threading.Thread(target=serve, args=(down, send), daemon=True).start()
    serve(up, drain)

def client(kind, port, count, threads):
    moved = [0]
    lock = threading.Lock()
    left = [count]
    def one():
        while True:
            with lock:
                if left[0] == 0:
                    return
                left[0] -= 1
            s = socket.create_connection(('127.0.0.1', port))
            n = 0
            if kind == 'down':
                # a byte before the FIN: a FIN alone while the proxy connects aborts the stream (CC), as HAProxy
                s.sendall(b'G')
                s.shutdown(socket.SHUT_WR)
                while True:
                    d = s.recv(262144)
                    if not d:
                        break
                    n += len(d)
            else:
                for _ in range(MIB // len(BLOCK)):
                    s.sendall(BLOCK)
                n = MIB
                s.shutdown(socket.SHUT_WR)
                while s.recv(65536):
                    pass
            s.close()
            with lock:
                moved[0] += n
    ts = [threading.Thread(target=one) for _ in range(threads)]
    for t in ts: t.start()
    for t in ts: t.join()
    print(moved[0] / MIB)

if sys.argv[1] == 'origin':
    origin(int(sys.argv[2]), int(sys.argv[3]))
else:
    client(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
