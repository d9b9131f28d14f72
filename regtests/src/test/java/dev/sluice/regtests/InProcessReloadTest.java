package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A reload inside the running process ({@code reload} on the admin socket, SIGUSR2): the new configuration answers the
 * next request, even on a kept connection; listening sockets that stay are never closed; what the configuration did
 * not change survives (stick-table entries, servers' admin states, counters); a configuration with errors, or a bind
 * that fails, changes nothing and says why; under load nothing fails; replaced configurations are collected.
 */
class InProcessReloadTest {

    private static String config(Path admin, int port, int other, int origin1, int origin2, String gen, boolean second) {
        return """
                global
                    stats socket %s level admin
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 20s
                    timeout server 20s
                frontend fe
                    bind 127.0.0.1:%d
                    stick-table type ip size 1k expire 1m store http_req_cnt
                    http-request track-sc0 src
                    http-request return status 200 content-type text/plain string "%s" if { path /gen }
                    http-response set-header x-gen %s
                    default_backend be
                frontend other
                    bind 127.0.0.1:%d
                    http-request return status 200 content-type text/plain string "other" if { path /gen }
                    default_backend be
                backend be
                    balance roundrobin
                    server s1 127.0.0.1:%d
                %s
                """.formatted(admin, port, gen, gen, other, origin1, second ? "    server s2 127.0.0.1:" + origin2 : "");
    }

    /** The admin socket, defaults and a frontend fe whose answers say the configuration's generation (x-gen). */
    private static final String FRONTEND = """
            global
                stats socket %s level admin
            defaults
                mode http
                timeout connect 2s
                timeout client 20s
                timeout server 20s
            frontend fe
                bind 127.0.0.1:%d
                http-response set-header x-gen %s
            """;

    static String reload(Path admin) {
        return AdminClient.run(admin, "reload\n");
    }

    private static String body(RawClient c, String target) {
        RawClient.Response r = c.send("GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n").read();
        assertThat(r.head().startLine()).startsWith("HTTP/1.1 200");
        return new String(r.body(), StandardCharsets.US_ASCII);
    }

    /** The requests frontend fe counted (show stat's req_tot). */
    private static long requests(Path admin) {
        String fe = AdminClient.run(admin, "show stat\n").lines().filter(l -> l.startsWith("fe,FRONTEND,")).findFirst().orElseThrow();
        return Long.parseLong(fe.split(",")[48]);
    }

    private static String info(Path admin, String field) {
        return AdminClient.run(admin, "show info\n").lines().filter(l -> l.startsWith(field + ": ")).findFirst()
                .map(l -> l.substring(field.length() + 2)).orElse("");
    }

    @Test
    void theNextRequestTakesTheNewConfigurationAndStateSurvives() throws Exception {
        try (Origin o1 = Origin.start("o1"); Origin o2 = Origin.start("o2")) {
            int port = Ports.free();
            int other = Ports.free();
            int moved = Ports.free();
            Path dir = Files.createTempDirectory("sluice-reload");
            Path admin = dir.resolve("admin.sock");
            Path cfg = dir.resolve("test.cfg");
            Files.writeString(cfg, config(admin, port, other, o1.port(), o2.port(), "gen-a", true));
            try (Sluice s = Sluice.start(cfg, List.of(), java.util.Map.of(), port, other);
                    RawClient kept = new RawClient(port)) {
                AdminClient.await(admin);
                assertThat(body(kept, "/gen")).isEqualTo("gen-a");
                assertThat(body(kept, "/gen")).isEqualTo("gen-a");
                assertThat(AdminClient.run(admin, "set server be/s2 state maint\n")).isBlank();
                // a request that leaves an idle connection to s1 behind it
                assertThat(body(kept, "/x")).contains("origin o1");
                int o1Connections = o1.connections();

                long before = requests(admin);
                // rules changed, a listener moved, a server kept: the kept connection's next request sees gen-b
                Files.writeString(cfg, config(admin, port, moved, o1.port(), o2.port(), "gen-b", true));
                String answer = reload(admin);
                assertThat(answer).startsWith("Success=1\n--\n").contains("Reloaded in the process");
                assertThat(body(kept, "/gen")).isEqualTo("gen-b");
                // s1 did not change: its idle connection went on with the new configuration's s1
                assertThat(body(kept, "/x")).contains("origin o1");
                assertThat(o1.connections()).isEqualTo(o1Connections);
                assertThat(GracefulStopTest.connects(other)).isFalse();
                assertThat(GracefulStopTest.connects(moved)).isTrue();
                assertThat(info(admin, "Reloads")).isEqualTo("1");

                // the table's entry, the server's maintenance and the frontend's counters carried on
                assertThat(AdminClient.run(admin, "show table fe\n")).contains("key=127.0.0.1").contains("http_req_cnt=5");
                String state = AdminClient.run(admin, "show servers state be\n");
                assertThat(state.lines().filter(l -> l.contains(" s2 ")).findFirst().orElseThrow().split(" ")[6]).isEqualTo("1");
                for (int i = 0; i < 4; i++) {
                    try (RawClient c = new RawClient(port)) {
                        assertThat(body(c, "/x")).contains("origin o1");
                    }
                }
                assertThat(requests(admin)).isEqualTo(before + 6);

                // a configuration with an error changes nothing and says why: on the socket and on the console (SIGUSR2)
                Files.writeString(cfg, config(admin, port, moved, o1.port(), o2.port(), "gen-c", true) + "    bogus-keyword\n");
                assertThat(reload(admin)).startsWith("Success=0\n--\n").contains("unknown keyword 'bogus-keyword'")
                        .contains("Reload failed");
                // only a master's 'reload in-place-only' takes an argument
                assertThat(AdminClient.run(admin, "reload now\n")).startsWith("'reload' takes no argument.\n");
                // the console already has the socket's reloads: wait for one more failure (the file must not change
                // under the signal's reload: an empty file read there was a configuration without the admin socket)
                int failedBefore = count(s.output(), "Reload failed");
                GracefulStopTest.signal(s.pid(), "USR2");
                long deadline = System.currentTimeMillis() + 10_000;
                while (count(s.output(), "Reload failed") == failedBefore && System.currentTimeMillis() < deadline) {
                    Daemon.sleep(50);
                }
                assertThat(s.output()).contains("unknown keyword 'bogus-keyword'").contains("Reload failed");
                assertThat(count(s.output(), "Reload failed")).isEqualTo(failedBefore + 1);
                assertThat(body(kept, "/gen")).isEqualTo("gen-b");

                // a configuration on which a new process would not start (nothing to listen on: an empty file caught
                // while an editor rewrites it) is refused, as HAProxy refuses to start on it
                Files.writeString(cfg, "");
                assertThat(reload(admin)).startsWith("Success=0\n--\n").contains("No enabled listener found").contains("Reload failed");
                assertThat(body(kept, "/gen")).isEqualTo("gen-b");

                // a bind that fails aborts the whole reload: the listener that would have moved stays
                Files.writeString(cfg, config(admin, port, other, o1.port(), o2.port(), "gen-d", true)
                        .replace("    bind 127.0.0.1:" + other, "    bind 127.0.0.1:" + other + "\n    bind 192.0.2.1:80"));
                assertThat(reload(admin)).startsWith("Success=0\n--\n").contains("cannot bind socket").contains("192.0.2.1:80");
                // refused reloads leave nothing running behind them (a log writer's thread each, before)
                long logThreads = threads(s, "sluice-log");
                for (int i = 0; i < 3; i++) {
                    assertThat(reload(admin)).startsWith("Success=0");
                }
                assertThat(threads(s, "sluice-log")).isEqualTo(logThreads);
                assertThat(body(kept, "/gen")).isEqualTo("gen-b");
                assertThat(GracefulStopTest.connects(moved)).isTrue();
                assertThat(GracefulStopTest.connects(other)).isFalse();

                // a removed server's idle connections close; the maintenance of s2 is gone with it. A session left open
                // across the reload (hatop's) runs the new configuration's commands
                try (AdminClient open = AdminClient.open(admin)) {
                    assertThat(open.send("prompt\n").readUntil("> ", 5000)).isEqualTo("\n> ");
                    assertThat(open.send("show servers state be\n").readUntil("\n\n> ", 5000)).contains(" s2 ");
                    Files.writeString(cfg, config(admin, port, moved, o1.port(), o2.port(), "gen-e", false));
                    assertThat(reload(admin)).startsWith("Success=1");
                    assertThat(open.send("show servers state be\n").readUntil("\n\n> ", 5000)).contains(" s1 ").doesNotContain(" s2 ");
                }
                assertThat(body(kept, "/gen")).isEqualTo("gen-e");
                assertThat(AdminClient.run(admin, "show servers state be\n")).doesNotContain(" s2 ");
                assertThat(info(admin, "Reloads")).isEqualTo("2");
                // the configurations alive: the current one, and those still finishing (none here, once released)
                assertThat(AdminClient.run(admin, "show activity\n")).containsPattern("\ngenerations: [1-3]\n");
            }
        }
    }

    /**
     * A server connection carrying a request when the reload comes goes on, once its exchange ends, as a connection of
     * the new configuration's server (same address and settings): the client's next request, and the next after a
     * second reload, reuse it; the origin sees one connection.
     */
    @Test
    void aServerConnectionBusyAtTheReloadGoesOnWithTheNewServer() throws Exception {
        try (Origin o = Origin.start("o", (r, out) -> {
            if (r.target().equals("/slow")) {
                Daemon.sleep(1000);
            }
            Origin.respond(out, 200, "OK", Origin.headers(), ("origin o " + r.target()).getBytes(StandardCharsets.US_ASCII));
            return true;
        }); H2Origin h2 = new H2Origin("from h2".getBytes(StandardCharsets.US_ASCII))) {
            int port = Ports.free();
            Path dir = Files.createTempDirectory("sluice-reload");
            Path admin = dir.resolve("admin.sock");
            Path cfg = dir.resolve("test.cfg");
            String text = FRONTEND + """
                        use_backend h2 if { path /h2 }
                        default_backend be
                    backend be
                        server s1 127.0.0.1:%d
                    backend h2
                        server s2 127.0.0.1:%d proto h2
                    """;
            Files.writeString(cfg, text.formatted(admin, port, "a", o.port(), h2.port()));
            try (Sluice s = Sluice.start(cfg, List.of(), java.util.Map.of(), port); RawClient c = new RawClient(port)) {
                AdminClient.await(admin);
                c.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
                Daemon.sleep(300);
                Files.writeString(cfg, text.formatted(admin, port, "b", o.port(), h2.port()));
                assertThat(reload(admin)).startsWith("Success=1");
                RawClient.Response slow = c.read();
                assertThat(new String(slow.body(), StandardCharsets.US_ASCII)).isEqualTo("origin o /slow");
                RawClient.Response next = c.send("GET /x HTTP/1.1\r\nHost: x\r\n\r\n").read();
                assertThat(next.head().get("x-gen")).isEqualTo("b");
                // an HTTP/2 server connection idle at the reload goes on too
                assertThat(new String(c.send("GET /h2 HTTP/1.1\r\nHost: x\r\n\r\n").read().body(), StandardCharsets.US_ASCII)).isEqualTo("from h2");
                Files.writeString(cfg, text.formatted(admin, port, "c", o.port(), h2.port()));
                assertThat(reload(admin)).startsWith("Success=1");
                assertThat(c.send("GET /y HTTP/1.1\r\nHost: x\r\n\r\n").read().head().get("x-gen")).isEqualTo("c");
                assertThat(new String(c.send("GET /h2 HTTP/1.1\r\nHost: x\r\n\r\n").read().body(), StandardCharsets.US_ASCII)).isEqualTo("from h2");
                assertThat(o.connections()).isEqualTo(1);
                assertThat(h2.connections()).isEqualTo(1);
            }
        }
    }

    /**
     * Health checks keep their rhythm across reloads: reloaded five times a second for three seconds, two servers
     * checked every second are each checked about three times, as without reloads (restarted at each reload, the first
     * server's check would run at every reload and the second's never).
     */
    @Test
    void healthChecksKeepTheirRhythmAcrossReloads() throws Exception {
        try (Origin o1 = Origin.start("o1"); Origin o2 = Origin.start("o2")) {
            int port = Ports.free();
            Path dir = Files.createTempDirectory("sluice-reload");
            Path admin = dir.resolve("admin.sock");
            Path cfg = dir.resolve("test.cfg");
            String text = FRONTEND + """
                        default_backend be
                    backend be
                        option httpchk GET /health
                        server s1 127.0.0.1:%d check inter 1s
                        server s2 127.0.0.1:%d check inter 1s
                    """;
            Files.writeString(cfg, text.formatted(admin, port, "0", o1.port(), o2.port()));
            try (Sluice s = Sluice.start(cfg, List.of(), java.util.Map.of(), port)) {
                AdminClient.await(admin);
                long start = System.nanoTime();
                for (int i = 1; i <= 15; i++) {
                    Files.writeString(cfg, text.formatted(admin, port, Integer.toString(i), o1.port(), o2.port()));
                    assertThat(reload(admin)).startsWith("Success=1");
                    Daemon.sleep(200);
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                long c1 = o1.requests().stream().filter(r -> r.target().equals("/health")).count();
                long c2 = o2.requests().stream().filter(r -> r.target().equals("/health")).count();
                assertThat(c1).as("s1 checks in %.1f s", seconds).isBetween((long) seconds - 1, (long) seconds + 2);
                assertThat(c2).as("s2 checks in %.1f s", seconds).isBetween((long) seconds - 1, (long) seconds + 2);
            }
        }
    }

    @Test
    void noRequestFailsUnderLoadAcrossTwentyReloads() throws Exception {
        Program.WRK.require();
        Program.H2LOAD.require();
        TestPki pki = new TestPki("reload-ca");
        TestPki.Issued leaf = pki.leaf("reload.test");
        try (Origin o1 = Origin.start("o1"); Origin o2 = Origin.start("o2")) {
            int port = Ports.free();
            int tls = Ports.free();
            int extra = Ports.free();
            Path dir = Files.createTempDirectory("sluice-reload");
            Path admin = dir.resolve("admin.sock");
            Path cfg = dir.resolve("test.cfg");
            String[] configs = new String[2];
            for (int i = 0; i < 2; i++) {
                configs[i] = config(admin, port, extra, o1.port(), o2.port(), "gen-" + i, i == 1)
                        .replace("frontend other\n    bind 127.0.0.1:" + extra, i == 0 ? "frontend other\n    bind 127.0.0.1:" + extra
                                : "frontend other\n    bind 127.0.0.1:" + Ports.free())
                        + "frontend tls\n    bind 127.0.0.1:" + tls + " ssl crt " + leaf.pem() + " alpn h2,http/1.1\n"
                        + "    bind quic4@127.0.0.1:" + tls + " ssl crt " + leaf.pem() + " alpn h3\n"
                        + "    http-response set-header x-gen gen-" + i + "\n    default_backend be\n";
            }
            Files.writeString(cfg, configs[0]);
            try (Sluice s = Sluice.start(cfg, List.of(), java.util.Map.of(), port, tls)) {
                AdminClient.await(admin);
                AtomicBoolean done = new AtomicBoolean();
                AtomicInteger fresh = new AtomicInteger();
                List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
                Set<String> generations = ConcurrentHashMap.newKeySet();
                // new connections, one request each
                // own threads: the common pool may have a single one on a small machine
                java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
                // HTTP/3: one QUIC connection (its binds are the same in both configurations: they stay), ten
                // requests at a time
                AtomicInteger h3 = new AtomicInteger();
                Set<String> h3Generations = ConcurrentHashMap.newKeySet();
                CompletableFuture<Void> quic = CompletableFuture.runAsync(() -> {
                    try (H3Client c = new H3Client(tls)) {
                        while (!done.get()) {
                            List<CompletableFuture<H3Client.Result>> batch = new ArrayList<>();
                            for (int i = 0; i < 10; i++) {
                                batch.add(c.start(H3Client.fields(":method", "GET", ":scheme", "https", ":authority", "127.0.0.1:" + tls,
                                        ":path", "/h3"), null));
                            }
                            for (var f : batch) {
                                H3Client.Result r = f.get(10, java.util.concurrent.TimeUnit.SECONDS);
                                if (r.status() != 200 || r.resetCode() != -1) {
                                    failures.add("h3: " + r.status() + " reset " + r.resetCode());
                                }
                                h3Generations.add(String.valueOf(r.header("x-gen")));
                                h3.incrementAndGet();
                            }
                        }
                    } catch (Exception e) {
                        failures.add("h3: " + e);
                    }
                }, pool);
                CompletableFuture<Void> oneShots = CompletableFuture.runAsync(() -> {
                    while (!done.get()) {
                        try (Socket c = new Socket("127.0.0.1", port)) {
                            c.setSoTimeout(5000);
                            OutputStream out = c.getOutputStream();
                            out.write("GET /one HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                            String r = new String(c.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
                            if (!r.startsWith("HTTP/1.1 200") || !r.contains("origin o")) {
                                failures.add(r.isEmpty() ? "empty answer" : r.lines().findFirst().orElse(r));
                            }
                            r.lines().filter(l -> l.startsWith("x-gen: ")).forEach(generations::add);
                            fresh.incrementAndGet();
                        } catch (IOException e) {
                            failures.add(e.toString());
                        }
                    }
                }, pool);
                CompletableFuture<String> wrk = CompletableFuture.supplyAsync(() -> run(List.of("wrk", "-t1", "-c16", "-d8s",
                        "http://127.0.0.1:" + port + "/wrk")), pool);
                CompletableFuture<String> h2 = CompletableFuture.supplyAsync(() -> run(List.of("h2load", "-D", "8", "-c4", "-m10",
                        "https://127.0.0.1:" + tls + "/h2")), pool);
                Daemon.sleep(1000);
                List<String> answers = new ArrayList<>();
                for (int i = 1; i <= 20; i++) {
                    Files.writeString(cfg, configs[i % 2]);
                    answers.add(reload(admin));
                    Daemon.sleep(250);
                }
                String w = wrk.get();
                String h = h2.get();
                done.set(true);
                oneShots.get();
                quic.get();
                pool.shutdown();
                assertThat(answers).allMatch(a -> a.startsWith("Success=1"));
                assertThat(failures).isEmpty();
                assertThat(fresh.get()).isGreaterThan(20);
                assertThat(generations).contains("x-gen: gen-0", "x-gen: gen-1");
                // the QUIC connection's new streams took each new configuration
                assertThat(h3.get()).isGreaterThan(20);
                assertThat(h3Generations).contains("gen-0", "gen-1");
                assertThat(w).doesNotContain("Socket errors").doesNotContain("Non-2xx");
                assertThat(h).contains("0 failed, 0 errored, 0 timeout").containsPattern("status codes: \\d+ 2xx, 0 3xx, 0 4xx, 0 5xx");
                assertThat(info(admin, "Reloads")).isEqualTo("20");
            }
        }
    }

    @Test
    void aFailedReloadSaysWhyOnTheConsoleInTheLogsAndInTheAnswer() throws Exception {
        try (java.net.DatagramSocket syslog = new java.net.DatagramSocket(0, java.net.InetAddress.getLoopbackAddress())) {
            syslog.setSoTimeout(10_000);
            int port = Ports.free();
            Path dir = Files.createTempDirectory("sluice-reload");
            Path admin = dir.resolve("admin.sock");
            Path cfg = dir.resolve("test.cfg");
            String good = """
                    global
                        stats socket %s level admin
                        log 127.0.0.1:%d local0
                    defaults
                        mode http
                        timeout client 10s
                    frontend fe
                        bind 127.0.0.1:%d
                        http-request return status 200 content-type text/plain string "ok"
                    """.formatted(admin, syslog.getLocalPort(), port);
            Files.writeString(cfg, good);
            try (Sluice s = Sluice.start(cfg, List.of(), java.util.Map.of(), port)) {
                AdminClient.await(admin);
                Files.writeString(cfg, good + "    no-such-keyword\n");
                assertThat(reload(admin)).startsWith("Success=0\n--\n").contains("unknown keyword 'no-such-keyword'");
                List<String> logged = new ArrayList<>();
                while (logged.stream().noneMatch(l -> l.contains("Reload failed"))) {
                    java.net.DatagramPacket d = new java.net.DatagramPacket(new byte[2048], 2048);
                    syslog.receive(d);
                    logged.add(new String(d.getData(), 0, d.getLength(), StandardCharsets.UTF_8));
                }
                // local0 (16) * 8 + err (3), then alert (1)
                assertThat(logged).anyMatch(l -> l.startsWith("<131>") && l.contains("unknown keyword 'no-such-keyword'"))
                        .anyMatch(l -> l.startsWith("<129>") && l.contains("[ALERT] Reload failed"));
                assertThat(s.output()).contains("unknown keyword 'no-such-keyword'").contains("Reload failed");
            }
        }
    }

    @Test
    void tlsContextsStayUnlessTheirFilesChangeAndAChangedCertificateIsServedToTheNextHandshake() throws Exception {
        Program.OPENSSL.require();
        TestPki pki = new TestPki("reload-ca");
        TestPki.Issued first = pki.leaf("first.test");
        TestPki.Issued second = pki.leaf("second.test");
        int port = Ports.free();
        Path dir = Files.createTempDirectory("sluice-reload");
        Path admin = dir.resolve("admin.sock");
        Path site = dir.resolve("site.pem");
        Files.copy(first.pem(), site);
        Path cfg = dir.resolve("test.cfg");
        Files.writeString(cfg, """
                global
                    stats socket %s level admin
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 10s
                    timeout server 10s
                frontend fe
                    bind 127.0.0.1:%d ssl crt %s
                    http-request return status 200 content-type text/plain string "tls"
                """.formatted(admin, port, site));
        try (Sluice s = Sluice.start(cfg, List.of(), java.util.Map.of(), port)) {
            AdminClient.await(admin);
            assertThat(TlsTest.subject(port, null)).contains("CN = first.test");
            // unchanged certificate: its contexts are taken over, session cache and all: a TLS 1.2 session id resumes
            Path sess = dir.resolve("sess.pem");
            String first12 = TlsTest.exec(List.of("openssl", "s_client", "-connect", "127.0.0.1:" + port, "-tls1_2", "-no_ticket",
                    "-sess_out", sess.toString()), "").output();
            assertThat(first12).contains("New, TLSv1.2");
            assertThat(reload(admin)).startsWith("Success=1");
            String resumed = TlsTest.exec(List.of("openssl", "s_client", "-connect", "127.0.0.1:" + port, "-tls1_2", "-no_ticket",
                    "-sess_in", sess.toString()), "").output();
            assertThat(resumed).contains("Reused, TLSv1.2");
            Files.copy(second.pem(), site, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            assertThat(reload(admin)).startsWith("Success=1");
            assertThat(TlsTest.subject(port, null)).contains("CN = second.test");
            // an unreadable certificate is the configuration's error: nothing changes
            Files.writeString(site, "not a certificate\n");
            assertThat(reload(admin)).startsWith("Success=0").contains(site.toString());
            assertThat(TlsTest.subject(port, null)).contains("CN = second.test");
        }
    }

    @Test
    void replacedConfigurationsAreCollected() throws Exception {
        try (Origin o1 = Origin.start("o1")) {
            int port = Ports.free();
            Path dir = Files.createTempDirectory("sluice-reload");
            Path admin = dir.resolve("admin.sock");
            Path cfg = dir.resolve("test.cfg");
            Files.writeString(cfg, config(admin, port, Ports.free(), o1.port(), o1.port(), "gen", true));
            try (Sluice s = Sluice.start(cfg, List.of(), java.util.Map.of(), port);
                    RawClient kept = new RawClient(port)) {
                AdminClient.await(admin);
                for (int i = 0; i < 100; i++) {
                    assertThat(reload(admin)).startsWith("Success=1");
                    assertThat(body(kept, "/gen")).isEqualTo("gen");
                }
                long deadline = System.currentTimeMillis() + 10_000;
                while (!info(admin, "Generations").equals("1") && System.currentTimeMillis() < deadline) {
                    Daemon.sleep(100);
                }
                assertThat(info(admin, "Generations")).isEqualTo("1");
                // a full collection, then the instances left: one runtime, its two frontends
                ProcessHandle jvm = javaProcess(s);
                String jcmd = Path.of(jvm.info().command().orElseThrow()).resolveSibling("jcmd").toString();
                String histogram = run(List.of(jcmd, Long.toString(jvm.pid()), "GC.class_histogram"));
                assertThat(instances(histogram, "dev.sluice.proxy.runtime.ProxyRuntime")).isEqualTo(1);
                assertThat(instances(histogram, "dev.sluice.proxy.stream.Frontend")).isEqualTo(2);
                assertThat(instances(histogram, "dev.sluice.proxy.backend.Backend")).isEqualTo(1);
            }
        }
    }

    /**
     * HotSpot suspends a thread by sending it its suspend signal (JFR's sampler, at each sample), SIGUSR2 unless told
     * otherwise, and SIGUSR2 is the reload signal: profiling a daemon reloaded its configuration dozens of times a second.
     * The launcher gives the JVM another signal: a profiled daemon reloads nothing and says nothing about it.
     */
    @Test
    void profilingTheDaemonWithJfrReloadsNothing() throws Exception {
        try (Origin o1 = Origin.start("o1")) {
            int port = Ports.free();
            int other = Ports.free();
            Path dir = Files.createTempDirectory("sluice-reload");
            Path admin = dir.resolve("admin.sock");
            Path cfg = dir.resolve("test.cfg");
            Files.writeString(cfg, config(admin, port, other, o1.port(), o1.port(), "gen-a", false));
            try (Sluice s = Sluice.start(cfg, List.of(), java.util.Map.of(), port, other)) {
                AdminClient.await(admin);
                ProcessHandle jvm = javaProcess(s);
                String jcmd = Path.of(jvm.info().command().orElseThrow()).resolveSibling("jcmd").toString();
                String pid = Long.toString(jvm.pid());
                Path recording = dir.resolve("profile.jfr");
                assertThat(run(List.of(jcmd, pid, "JFR.start", "name=p", "settings=profile", "filename=" + recording)))
                        .contains("Started recording");
                // 'profile' samples every 10-20 ms: a hundred samples and more, each a reload before
                for (int i = 0; i < 20; i++) {
                    try (RawClient c = new RawClient(port)) {
                        assertThat(body(c, "/gen")).isEqualTo("gen-a");
                    }
                    Daemon.sleep(100);
                }
                run(List.of(jcmd, pid, "JFR.stop", "name=p"));
                // show info has the field from the first reload on
                assertThat(info(admin, "Reloads")).isEmpty();
                assertThat(s.output()).doesNotContain("Reloaded").doesNotContain("SIGUSR2");
                String summary = run(List.of(Path.of(jcmd).resolveSibling("jfr").toString(), "summary", recording.toString()));
                assertThat(summary).contains("jdk.ExecutionSample");
            }
        }
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + what.length())) {
            n++;
        }
        return n;
    }

    private static String run(List<String> cmd) {
        try {
            return Http2Test.run(cmd);
        } catch (Exception e) {
            throw new AssertionError(cmd + ": " + e, e);
        }
    }

    /** The daemon's live threads whose name starts with {@code prefix}. */
    private static long threads(Sluice s, String prefix) {
        ProcessHandle jvm = javaProcess(s);
        String jcmd = Path.of(jvm.info().command().orElseThrow()).resolveSibling("jcmd").toString();
        // the writer's thread ends asynchronously once closed
        long n = -1;
        for (int i = 0; i < 20; i++) {
            long now = run(List.of(jcmd, Long.toString(jvm.pid()), "Thread.print")).lines().filter(l -> l.startsWith("\"" + prefix)).count();
            if (now == n) {
                return now;
            }
            n = now;
            Daemon.sleep(100);
        }
        return n;
    }

    /** The JVM of the daemon: the launcher's child when it runs one, else the process itself. */
    static ProcessHandle javaProcess(Sluice s) {
        ProcessHandle self = s.process().toHandle();
        return self.descendants().filter(h -> h.info().command().orElse("").endsWith("/java")).findFirst().orElse(self);
    }

    private static long instances(String histogram, String cls) {
        return histogram.lines().filter(l -> l.trim().endsWith(" " + cls) || l.contains(" " + cls + " ")).map(l -> l.trim().split("\\s+"))
                .mapToLong(f -> Long.parseLong(f[1])).sum();
    }
}
