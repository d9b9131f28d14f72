package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Options that change how a backend serves requests, through the real daemon and HAProxy 2.6 on the same
 * configuration (each case once per daemon, the HAProxy one requiring it): {@code option prefer-last-server},
 * {@code fullconn} with the servers' {@code minconn}, {@code option abortonclose}, {@code option contstats},
 * {@code option http-ignore-probes}.
 */
class BackendOptionsTest {
    private final List<Origin> origins = new ArrayList<>();

    @AfterEach
    void stop() {
        origins.forEach(Origin::close);
    }

    private Origin origin(String name) {
        Origin o = Origin.start(name);
        origins.add(o);
        return o;
    }

    /** Requests for /hold/... wait until their path is released. */
    private final java.util.Map<String, java.util.concurrent.CountDownLatch> holds = new java.util.concurrent.ConcurrentHashMap<>();
    /** Set: no request waits any more. */
    private volatile boolean released;

    private java.util.concurrent.CountDownLatch hold(String path) {
        return holds.computeIfAbsent(path, k -> new java.util.concurrent.CountDownLatch(1));
    }

    private Origin holding(String name) {
        Origin o = Origin.start(name, (r, out) -> {
            try {
                if (r.target().startsWith("/hold") && !released && !hold(r.target()).await(30, java.util.concurrent.TimeUnit.SECONDS)) {
                    return false;
                }
            } catch (InterruptedException e) {
                return false;
            }
            Origin.respond(out, 200, "OK", Origin.headers("X-Origin", name), new byte[0]);
            return true;
        });
        origins.add(o);
        return o;
    }

    private static final String HEADER = """
                global
                    log stdout format raw local0
                    stats socket @DIR@/admin.sock level admin
                defaults
                    mode http
                    log global
                    option httplog
                    timeout connect 2s
                    timeout client 5s
                    timeout server 5s
                """;

    /**
     * One keep-alive client connection per listen: with {@code http-reuse never} and the option its requests stay on
     * the server of its first private connection while that server is usable (even back from a drain); the option
     * does nothing with shared connections (HAProxy 2.6 keeps only private ones per client connection), nor without it.
     */
    private List<String> preferLastServer(boolean haproxy, Origin s1, Origin s2) {
        int[] ports = {Ports.free(), Ports.free(), Ports.free()};
        String servers = "    server s1 127.0.0.1:" + s1.port() + "\n    server s2 127.0.0.1:" + s2.port() + "\n";
        String cfg = HEADER
                + "listen plsnever\n    bind 127.0.0.1:" + ports[0] + "\n    option prefer-last-server\n    http-reuse never\n" + servers
                + "listen pls\n    bind 127.0.0.1:" + ports[1] + "\n    option prefer-last-server\n" + servers
                + "listen never\n    bind 127.0.0.1:" + ports[2] + "\n    http-reuse never\n" + servers;
        List<String> out = new ArrayList<>();
        try (Daemon d = Daemon.start(haproxy, cfg, ports[2])) {
            java.nio.file.Path admin = d.dir().resolve("admin.sock");
            for (int p = 0; p < ports.length; p++) {
                StringBuilder seen = new StringBuilder(List.of("plsnever", "pls", "never").get(p)).append(':');
                try (RawClient c = new RawClient(ports[p], 10_000)) {
                    for (int i = 1; i <= 6; i++) {
                        if (p == 0 && i == 3) {
                            AdminClient.run(admin, "set server plsnever/s1 state drain\n");
                        }
                        if (p == 0 && i == 5) {
                            AdminClient.run(admin, "set server plsnever/s1 state ready\n");
                        }
                        seen.append(' ').append(c.send("GET /" + i + " HTTP/1.1\r\nhost: t\r\n\r\n").read().header("x-origin"));
                    }
                }
                out.add(seen.toString());
            }
            for (String row : List.of("plsnever,s1", "plsnever,s2", "plsnever,BACKEND", "pls,BACKEND")) {
                out.add(row + " lbtot " + ServerQueueTest.stat(d, row, "lbtot"));
            }
        }
        return out;
    }

    @ParameterizedTest(name = "haproxy={0}")
    @ValueSource(booleans = {false, true})
    void preferLastServerAsHaproxy(boolean haproxy) {
        Origin s1 = origin("s1");
        Origin s2 = origin("s2");
        List<String> got = preferLastServer(haproxy, s1, s2);
        assertThat(got).containsExactly(
                "plsnever: s1 s1 s2 s2 s1 s1",
                "pls: s1 s2 s1 s2 s1 s2",
                "never: s1 s2 s1 s2 s1 s2",
                // the balancing chose twice: the first request and the one while s1 drained
                "plsnever,s1 lbtot 1", "plsnever,s2 lbtot 1", "plsnever,BACKEND lbtot 2", "pls,BACKEND lbtot 6");
    }

    /** The server's current requests and the backend's queue, once they add up to {@code total}. */
    private static String served(Daemon d, int total) {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        while (true) {
            String scur = ServerQueueTest.stat(d, "l,s1", "scur");
            String qcur = ServerQueueTest.stat(d, "l,BACKEND", "qcur");
            if (Integer.parseInt(scur) + Integer.parseInt(qcur) == total || System.nanoTime() > deadline) {
                return scur + "/" + qcur;
            }
            Daemon.sleep(10);
        }
    }

    /**
     * {@code fullconn 8} and a server of {@code minconn 1 maxconn 4}: its limit is MAX(1, load * 4 / 8), the load being
     * the backend's requests, queued ones included. New requests queue behind the others, and a slot given back serves
     * the queue up to the limit the load gives then.
     */
    private List<String> dynamicMaxconn(boolean haproxy, Origin o) {
        holds.clear();
        released = false;
        int port = Ports.free();
        String cfg = HEADER + "listen l\n    bind 127.0.0.1:" + port + "\n    timeout queue 30s\n    timeout server 30s\n    fullconn 8\n"
                + "    server s1 127.0.0.1:" + o.port() + " minconn 1 maxconn 4\n";
        List<String> out = new ArrayList<>();
        List<RawClient> clients = new ArrayList<>();
        try (Daemon d = Daemon.start(haproxy, cfg, port)) {
            out.add("slim " + ServerQueueTest.stat(d, "l,s1", "slim") + " " + ServerQueueTest.stat(d, "l,BACKEND", "slim"));
            for (int i = 1; i <= 8; i++) {
                clients.add(new RawClient(port, 30_000).send("GET /hold/" + i + " HTTP/1.1\r\nhost: t\r\n\r\n"));
                out.add("arrived " + i + ": " + served(d, i));
            }
            int left = 8;
            for (int i = 1; i <= 3; i++) {
                hold("/hold/" + i).countDown();
                assertThat(clients.get(i - 1).read().status()).isEqualTo(200);
                clients.get(i - 1).close();
                left--;
                // the slot given back serves the queue up to the new limit
                Daemon.sleep(200);
                out.add("released " + i + ": " + served(d, left));
            }
            released = true;
            holds.values().forEach(java.util.concurrent.CountDownLatch::countDown);
            for (int i = 3; i < clients.size(); i++) {
                assertThat(clients.get(i).read().status()).isEqualTo(200);
                clients.get(i).close();
            }
        }
        return out;
    }

    @ParameterizedTest(name = "haproxy={0}")
    @ValueSource(booleans = {false, true})
    void fullconnAndMinconnAsHaproxy(boolean haproxy) {
        Origin o = holding("s1");
        List<String> got = dynamicMaxconn(haproxy, o);
        // arrivals queue behind the others whatever the limit; each slot given back serves the queue up to MAX(1, load * 4 / 8),
        // the load counting the request that leaves (8, 7, 6 requests: limits 4, 3, 3)
        assertThat(got).containsExactly("slim 4 8", "arrived 1: 1/0", "arrived 2: 1/1", "arrived 3: 1/2", "arrived 4: 1/3", "arrived 5: 1/4",
                "arrived 6: 1/5", "arrived 7: 1/6", "arrived 8: 1/7", "released 1: 4/3", "released 2: 3/3", "released 3: 3/2");
    }

    /**
     * The load of the dynamic maxconn is HAProxy's {@code beconn}: streams assigned to the backend count from then on, also
     * while they wait for their request body (backend b's {@code wait-for-body}) with neither a slot nor a place in a queue.
     * Four such streams make the limit MAX(1, load * 4 / 8) 2, 3 and 3 for the three requests that follow: all served.
     */
    private List<String> dynamicMaxconnCountsEveryAssignedStream(boolean haproxy, Origin o) {
        holds.clear();
        released = false;
        int port = Ports.free();
        String cfg = HEADER + "frontend f\n    bind 127.0.0.1:" + port + "\n    default_backend l\n"
                + "backend l\n    timeout queue 30s\n    timeout server 30s\n    fullconn 8\n    http-request wait-for-body time 20s\n"
                + "    server s1 127.0.0.1:" + o.port() + " minconn 1 maxconn 4\n";
        List<String> out = new ArrayList<>();
        List<RawClient> waiting = new ArrayList<>();
        List<RawClient> clients = new ArrayList<>();
        try (Daemon d = Daemon.start(haproxy, cfg, port)) {
            for (int i = 1; i <= 4; i++) {
                waiting.add(new RawClient(port, 30_000).send("POST /body/" + i + " HTTP/1.1\r\nhost: t\r\ncontent-length: 20\r\n\r\n0123456789"));
            }
            // the four are in the backend: scur counts them there (beconn), none has a server
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
            while (!ServerQueueTest.stat(d, "l,BACKEND", "scur").equals("4") && System.nanoTime() < deadline) {
                Daemon.sleep(20);
            }
            out.add("waiting for their body: " + ServerQueueTest.stat(d, "l,BACKEND", "scur") + " " + served(d, 0));
            for (int i = 1; i <= 3; i++) {
                clients.add(new RawClient(port, 30_000).send("GET /hold/" + i + " HTTP/1.1\r\nhost: t\r\n\r\n"));
                out.add("arrived " + i + ": " + served(d, i));
            }
            released = true;
            holds.values().forEach(java.util.concurrent.CountDownLatch::countDown);
            for (RawClient c : clients) {
                assertThat(c.read().status()).isEqualTo(200);
                c.close();
            }
            for (RawClient c : waiting) {
                assertThat(c.send("0123456789").read().status()).isEqualTo(200);
                c.close();
            }
        }
        return out;
    }

    @ParameterizedTest(name = "haproxy={0}")
    @ValueSource(booleans = {false, true})
    void dynamicMaxconnCountsEveryAssignedStreamAsHaproxy(boolean haproxy) {
        Origin o = holding("s1");
        assertThat(dynamicMaxconnCountsEveryAssignedStream(haproxy, o)).containsExactly("waiting for their body: 4 0/0", "arrived 1: 1/0",
                "arrived 2: 2/0", "arrived 3: 3/0");
    }

    /** What the client got: the status, or "closed" when the connection closed without a response. */
    private static String outcome(RawClient c) {
        try {
            return Integer.toString(c.read().status());
        } catch (java.io.UncheckedIOException e) {
            return "closed";
        }
    }

    /** The log line of the request for {@code path}: server, status, %tsc. */
    private static String logged(Daemon d, String path) {
        List<String> l = d.awaitLines(x -> x.contains("\"GET " + path + " "), 1);
        assertThat(l).as("%s: log of %s in\n%s", d.name(), path, d.output()).isNotEmpty();
        String[] w = l.getFirst().split(" ");
        return path + " " + w[3] + " " + w[5] + " " + w[9];
    }

    /**
     * A client that half-closes (FIN) after its request, while the request waits in the queue, while its server
     * connection is being established, and while the server has not answered yet; with and without the option.
     */
    private List<String> abortOnClose(boolean haproxy, Origin o) throws Exception {
        holds.clear();
        released = false;
        int[] ports = {Ports.free(), Ports.free()};
        // a server that accepts no connection: its accept queue is full, so connecting to it never completes
        java.net.ServerSocket deaf = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
        List<java.net.Socket> fillers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            java.net.Socket f = new java.net.Socket();
            try {
                f.connect(deaf.getLocalSocketAddress(), 300);
                fillers.add(f);
            } catch (java.io.IOException e) {
                f.close();
                break;
            }
        }
        StringBuilder cfg = new StringBuilder(HEADER);
        for (int i = 0; i < 2; i++) {
            String name = i == 0 ? "noaoc" : "aoc";
            cfg.append("listen ").append(name).append("\n    bind 127.0.0.1:").append(ports[i]).append('\n')
                    .append(i == 1 ? "    option abortonclose\n" : "")
                    .append("    timeout queue 30s\n    timeout server 30s\n    timeout connect 3s\n")
                    .append("    server s1 127.0.0.1:").append(o.port()).append(" maxconn 1\n");
        }
        cfg.append("listen deaf\n    bind 127.0.0.1:@DEAFPORT@\n    option abortonclose\n    timeout connect 3s\n    server d1 127.0.0.1:")
                .append(deaf.getLocalPort()).append('\n');
        int deafPort = Ports.free();
        List<String> out = new ArrayList<>();
        try (Daemon d = Daemon.start(haproxy, cfg.toString().replace("@DEAFPORT@", Integer.toString(deafPort)), ports[1])) {
            for (int i = 0; i < 2; i++) {
                String name = i == 0 ? "noaoc" : "aoc";
                int port = ports[i];
                // in the queue: a first request holds the only slot
                int before = o.requests().size();
                RawClient held = new RawClient(port, 30_000).send("GET /hold/" + name + " HTTP/1.1\r\nhost: t\r\n\r\n");
                ServerQueueTest.awaitRequest(o, before, "/hold/" + name);
                RawClient queued = new RawClient(port, 30_000).send("GET /q/" + name + " HTTP/1.1\r\nhost: t\r\n\r\n");
                ServerQueueTest.awaitStat(d, name + ",BACKEND", "qcur", "1");
                queued.shutdownOutput();
                if (i == 1) {
                    // the abort empties the queue (on a loaded machine this may take a moment); without the option it stays
                    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
                    while (!ServerQueueTest.stat(d, name + ",BACKEND", "qcur").equals("0") && System.nanoTime() < deadline) {
                        Daemon.sleep(20);
                    }
                } else {
                    Daemon.sleep(300);
                }
                hold("/hold/" + name).countDown();
                assertThat(held.read().status()).isEqualTo(200);
                held.close();
                out.add(name + " queued: " + outcome(queued));
                queued.close();
                out.add(logged(d, "/q/" + name));
                // the server has the request and has not answered
                before = o.requests().size();
                RawClient slow = new RawClient(port, 30_000).send("GET /hold/slow-" + name + " HTTP/1.1\r\nhost: t\r\n\r\n");
                ServerQueueTest.awaitRequest(o, before, "/hold/slow-" + name);
                slow.shutdownOutput();
                String got;
                if (i == 1) {
                    // the abort answers at once: read it before the server may answer
                    got = outcome(slow);
                    hold("/hold/slow-" + name).countDown();
                } else {
                    Daemon.sleep(300);
                    hold("/hold/slow-" + name).countDown();
                    got = outcome(slow);
                }
                out.add(name + " slow server: " + got);
                slow.close();
                out.add(logged(d, "/hold/slow-" + name));
                out.add(name + " cli_abrt " + ServerQueueTest.stat(d, name + ",BACKEND", "cli_abrt") + "/" + ServerQueueTest.stat(d, name + ",s1", "cli_abrt")
                        + " hrsp_4xx " + ServerQueueTest.stat(d, name + ",FRONTEND", "hrsp_4xx")
                        + " hrsp_other " + ServerQueueTest.stat(d, name + ",FRONTEND", "hrsp_other") + "/" + ServerQueueTest.stat(d, name + ",BACKEND", "hrsp_other"));
            }
            if (fillers.size() >= 2) {
                // its connection to the server is being established
                RawClient connecting = new RawClient(deafPort, 30_000).send("GET /c HTTP/1.1\r\nhost: t\r\n\r\n");
                ServerQueueTest.awaitStat(d, "deaf,d1", "scur", "1");
                connecting.shutdownOutput();
                out.add("connecting: " + outcome(connecting));
                connecting.close();
                out.add(logged(d, "/c"));
                out.add("deaf cli_abrt " + ServerQueueTest.stat(d, "deaf,BACKEND", "cli_abrt") + "/" + ServerQueueTest.stat(d, "deaf,d1", "cli_abrt"));
            }
        } finally {
            for (java.net.Socket f : fillers) {
                f.close();
            }
            deaf.close();
        }
        return out;
    }

    @Test
    void abortOnCloseAsHaproxy() throws Exception {
        Origin o = holding("s1");
        List<String> got = abortOnClose(false, o);
        assertThat(got).startsWith(
                // without the option a half-closed client is served
                "noaoc queued: 200", "/q/noaoc noaoc/s1 200 ----", "noaoc slow server: 200", "/hold/slow-noaoc noaoc/s1 200 ----",
                "noaoc cli_abrt 0/0 hrsp_4xx 0 hrsp_other 0/0",
                // with it the request is aborted: no response from the queue, a 400 while the server has not answered
                "aoc queued: closed", "/q/aoc aoc/<NOSRV> -1 CQ--", "aoc slow server: 400", "/hold/slow-aoc aoc/s1 400 CH--",
                // only the abort of a request a server had counts as a client abort, as in HAProxy
                // and the request dropped from the queue, without a status, counts as "other"
                "aoc cli_abrt 1/1 hrsp_4xx 2 hrsp_other 1/1");
    }

    /** The whole of {@link #abortOnCloseAsHaproxy}'s outcome (the deaf server's lines too) is HAProxy's. */
    @Test
    void abortOnCloseSameInHaproxy() throws Exception {
        Program.HAPROXY.require();
        Origin o = holding("s1");
        List<String> sluice = abortOnClose(false, o);
        assertThat(abortOnClose(true, o)).as("HAProxy 2.6").isEqualTo(sluice);
    }

    /** An origin whose /stream... responses send a head and a first chunk, then the end once their path is released. */
    private Origin streaming(String name) {
        Origin o = Origin.start(name, (r, out) -> {
            out.write(("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1000\r\n" + "x".repeat(4096) + "\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            try {
                if (!hold(r.target()).await(30, java.util.concurrent.TimeUnit.SECONDS)) {
                    return false;
                }
            } catch (InterruptedException e) {
                return false;
            }
            out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return true;
        });
        origins.add(o);
        return o;
    }

    /** bin and bout of the frontend, backend and server rows of a listen: "bin/bout" each, or ">0" for positive ones. */
    private static String bytes(Daemon d, String px, boolean exact) {
        StringBuilder sb = new StringBuilder();
        for (String row : List.of("FRONTEND", "BACKEND", "s1")) {
            for (String col : List.of("bin", "bout")) {
                String v = ServerQueueTest.stat(d, px + "," + row, col);
                sb.append(exact ? v : Long.parseLong(v) > 0 ? ">0" : "0").append(col.equals("bin") ? "/" : " ");
            }
        }
        return sb.toString().strip();
    }

    /** A response that stays open after its first 4 kB: the byte counters while it runs and once it is over. */
    private List<String> contStats(boolean haproxy, Origin o) {
        holds.clear();
        int[] ports = {Ports.free(), Ports.free()};
        String cfg = HEADER.replace("timeout server 5s", "timeout server 30s").replace("timeout client 5s", "timeout client 30s")
                + "listen cs\n    bind 127.0.0.1:" + ports[0] + "\n    option contstats\n    server s1 127.0.0.1:" + o.port() + "\n"
                + "listen nocs\n    bind 127.0.0.1:" + ports[1] + "\n    server s1 127.0.0.1:" + o.port() + "\n";
        List<String> out = new ArrayList<>();
        try (Daemon d = Daemon.start(haproxy, cfg, ports[1])) {
            for (int i = 0; i < 2; i++) {
                String px = i == 0 ? "cs" : "nocs";
                try (RawClient c = new RawClient(ports[i], 30_000)) {
                    c.send("GET /stream-" + px + " HTTP/1.1\r\nhost: t\r\nconnection: close\r\n\r\n");
                    // the head and the first chunk reached the client
                    byte[] got = new byte[4096];
                    int n = 0;
                    try {
                        while (n < 4096 + 20) {
                            int r = readSome(c, got);
                            if (r < 0) {
                                break;
                            }
                            n += r;
                        }
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                    // the client has the bytes: a counter that follows them was updated before they left; with
                    // contstats wait until all three rows count them (they are read one after the other)
                    if (px.equals("cs")) {
                        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
                        while (!bytes(d, px, false).equals(">0/>0 >0/>0 >0/>0") && System.nanoTime() < deadline) {
                            Daemon.sleep(10);
                        }
                    }
                    out.add(px + " while running: " + bytes(d, px, false));
                    hold("/stream-" + px).countDown();
                    c.readToEnd();
                }
                // the stream is over once the frontend has no session left: the counters are final
                ServerQueueTest.awaitStat(d, px + ",FRONTEND", "scur", "0");
                String end = bytes(d, px, true);
                String[] rows = end.split(" ");
                out.add(px + " at the end: " + bytes(d, px, false) + (rows[0].equals(rows[1]) && rows[0].equals(rows[2]) ? " (same on the three rows)" : " " + end));
            }
        }
        return out;
    }

    private static int readSome(RawClient c, byte[] buf) throws java.io.IOException {
        return c.in().read(buf);
    }

    @ParameterizedTest(name = "haproxy={0}")
    @ValueSource(booleans = {false, true})
    void contStatsAsHaproxy(boolean haproxy) {
        Origin o = streaming("s1");
        List<String> got = contStats(haproxy, o);
        assertThat(got).containsExactly(
                "cs while running: >0/>0 >0/>0 >0/>0", "cs at the end: >0/>0 >0/>0 >0/>0 (same on the three rows)",
                "nocs while running: 0/0 0/0 0/0", "nocs at the end: >0/>0 >0/>0 >0/>0 (same on the three rows)");
    }

    /** What a probe connection got: a status, or "closed" with nothing. */
    private static String probe(int port, String send, boolean fin) {
        try (RawClient c = new RawClient(port, 10_000)) {
            if (send == null) {
                return "closed by the client";
            }
            if (!send.isEmpty()) {
                c.send(send);
            }
            if (fin) {
                c.shutdownOutput();
            }
            String all = c.readToEndText();
            return all.isEmpty() ? "closed" : all.substring(9, 12);
        }
    }

    /**
     * Connections that send nothing and close, or nothing until {@code timeout http-request}, then ones that send part
     * of a request: with {@code option http-ignore-probes} the first two are neither answered, logged nor counted.
     */
    private List<String> ignoreProbes(boolean haproxy) {
        int[] ports = {Ports.free(), Ports.free(), Ports.free()};
        String cfg = HEADER + "    timeout http-request 500ms\n"
                + "listen noip\n    bind 127.0.0.1:" + ports[0] + "\n    server s1 127.0.0.1:9\n"
                + "listen ip\n    bind 127.0.0.1:" + ports[1] + "\n    option http-ignore-probes\n    server s1 127.0.0.1:9\n"
                // the harness's readiness probe goes here
                + "listen ready\n    bind 127.0.0.1:" + ports[2] + "\n    server s1 127.0.0.1:9\n";
        List<String> out = new ArrayList<>();
        try (Daemon d = Daemon.start(haproxy, cfg, ports[2])) {
            for (int i = 0; i < 2; i++) {
                String px = i == 0 ? "noip" : "ip";
                String fe = px + ",FRONTEND";
                // each probe's session ends before the next starts, so that the log lines come in probe order
                out.add(px + " nothing, closed: " + probe(ports[i], null, false));
                ServerQueueTest.awaitStat(d, fe, "scur", "0");
                out.add(px + " nothing, timeout: " + probe(ports[i], "", false));
                ServerQueueTest.awaitStat(d, fe, "scur", "0");
                out.add(px + " part, closed: " + probe(ports[i], "GET / HT", true));
                ServerQueueTest.awaitStat(d, fe, "scur", "0");
                out.add(px + " part, timeout: " + probe(ports[i], "GET / HT", false));
            }
            // every probe's session ended, then a later request's log line is out: the probes' lines came before it
            ServerQueueTest.awaitStat(d, "noip,FRONTEND", "scur", "0");
            ServerQueueTest.awaitStat(d, "ip,FRONTEND", "scur", "0");
            try (RawClient c = new RawClient(ports[2], 10_000)) {
                c.send("GET /after-probes HTTP/1.1\r\nhost: t\r\nconnection: close\r\n\r\n").readToEndText();
            }
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
            while (!d.output().contains("\"GET /after-probes HTTP/1.1\"") && System.nanoTime() < deadline) {
                Daemon.sleep(20);
            }
            assertThat(d.output()).contains("\"GET /after-probes HTTP/1.1\"");
            for (String px : List.of("noip", "ip")) {
                out.add(px + " logged: " + d.output().lines().filter(l -> l.contains("] " + px + " " + px + "/<NOSRV> "))
                        .map(l -> l.split(" ")[5] + " " + l.split(" ")[9]).toList());
                StringBuilder sb = new StringBuilder(px);
                for (String col : List.of("stot", "ereq", "hrsp_4xx", "req_tot")) {
                    sb.append(' ').append(col).append(' ').append(ServerQueueTest.stat(d, px + ",FRONTEND", col));
                }
                out.add(sb.toString());
            }
        }
        return out;
    }

    @ParameterizedTest(name = "haproxy={0}")
    @ValueSource(booleans = {false, true})
    void httpIgnoreProbesAsHaproxy(boolean haproxy) {
        List<String> got = ignoreProbes(haproxy);
        assertThat(got).containsExactly(
                "noip nothing, closed: closed by the client", "noip nothing, timeout: 408", "noip part, closed: 400", "noip part, timeout: 408",
                "ip nothing, closed: closed by the client", "ip nothing, timeout: closed", "ip part, closed: 400", "ip part, timeout: 408",
                "noip logged: [400 CR--, 408 cR--, 400 CR--, 408 cR--]", "noip stot 4 ereq 4 hrsp_4xx 4 req_tot 4",
                "ip logged: [400 CR--, 408 cR--]", "ip stot 4 ereq 2 hrsp_4xx 2 req_tot 2");
    }
}
