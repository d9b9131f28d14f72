package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code show pools} (HAProxy's line format, the streams and connections Sluice counts, Netty's arenas),
 * the pool totals in {@code show info}, no stream or connection left counted after traffic of every kind,
 * and the {@code -m} memory ceiling: past it new connections are closed and requests get a 503, the
 * failures are counted, and the process serves again once memory is given back.
 */
class PoolsTest {
    static final Pattern LINE = Pattern.compile("  - Pool (\\S+) \\((\\d+) bytes\\) : (\\d+) allocated \\((\\d+) bytes\\), (\\d+) used "
            + "\\(~(\\d+) by thread caches\\), needed_avg (\\d+), (\\d+) failures, (\\d+) users, @0x[0-9a-f]+( \\[SHARED\\])?");

    static String config(Path dir, int port, int h2, int origin, int dead) {
        return config(dir, port, h2, origin, dead, "1s");
    }

    static String config(Path dir, int port, int h2, int origin, int dead, String httpRequestTimeout) {
        return """
                global
                    stats socket %1$s/admin.sock level admin
                defaults
                    mode http
                    timeout connect 100ms
                    timeout client 5s
                    timeout server 5s
                    timeout http-request %6$s
                frontend fe
                    bind 127.0.0.1:%2$d
                    bind 127.0.0.1:%3$d proto h2
                    stick-table type ip size 10 expire 30s store http_req_cnt
                    http-request track-sc0 src
                    http-request use-service prometheus-exporter if { path /metrics }
                    http-request deny if { path /deny }
                    http-request return status 404 if { path /nf }
                    use_backend dead if { path /dead }
                    default_backend be
                backend be
                    server s1 127.0.0.1:%4$d
                backend dead
                    server s1 127.0.0.1:%5$d
                """.formatted(dir, port, h2, origin, dead, httpRequestTimeout);
    }

    /** name -> [size, allocated, allocated bytes, used, cached, needed_avg, failures, users]. */
    static Map<String, long[]> pools(Path sock) {
        Map<String, long[]> out = new HashMap<>();
        for (String l : AdminClient.run(sock, "show pools\n").lines().toList()) {
            Matcher m = LINE.matcher(l);
            if (m.matches()) {
                long[] v = new long[8];
                for (int i = 0; i < 8; i++) {
                    v[i] = Long.parseLong(m.group(i + 2));
                }
                out.put(m.group(1), v);
            }
        }
        return out;
    }

    static Map<String, String> info(Path sock) {
        Map<String, String> out = new HashMap<>();
        for (String l : AdminClient.run(sock, "show info\n").lines().toList()) {
            int c = l.indexOf(": ");
            if (c > 0) {
                out.put(l.substring(0, c), l.substring(c + 2));
            }
        }
        return out;
    }

    /** Waits until no stream and no connection is counted (connections close asynchronously). */
    static void awaitIdle(Path sock) throws InterruptedException {
        long[] stream = null;
        long[] session = null;
        for (int i = 0; i < 250; i++) {
            Map<String, long[]> p = pools(sock);
            stream = p.get("stream");
            session = p.get("session");
            if (stream[3] == 0 && session[3] == 0) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("still counted: " + stream[3] + " streams, " + session[3] + " connections");
    }

    @Test
    void showPoolsListsStreamsConnectionsAndNettysArenas() throws Exception {
        Path dir = Files.createTempDirectory("pools");
        Path sock = dir.resolve("admin.sock");
        try (Origin o = Origin.start("o")) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(dir, port, Ports.free(), o.port(), Ports.free()), port)) {
                AdminClient.await(sock);
                try (RawClient c = new RawClient(port)) {
                    assertThat(c.send("GET / HTTP/1.1\r\nhost: x\r\n\r\n").read().status()).isEqualTo(200);
                    // the connection is open and idle: one session, no stream
                    Map<String, long[]> p = pools(sock);
                    assertThat(p).containsKeys("stream", "session", "sticktables", "nettydirect", "nettyheap");
                    // 127.0.0.1 in fe's table: one entry of 96 + 16 + 8 x 1 slot + 32 + 4-byte key + 48 + 40 bytes
                    assertThat(p.get("sticktables")[0]).isEqualTo(244);
                    assertThat(p.get("sticktables")[3]).isEqualTo(1);
                    assertThat(p.get("session")[3]).isEqualTo(1);
                    assertThat(p.get("session")[0]).isEqualTo(2048);
                    assertThat(p.get("stream")[3]).isZero();
                    assertThat(p.get("stream")[0]).isEqualTo(1024);
                    assertThat(p.get("nettydirect")[2]).as("bytes held by Netty's direct arenas").isPositive();
                }
                String all = AdminClient.run(sock, "show pools\n");
                List<String> lines = all.lines().toList();
                assertThat(lines.getFirst()).isEqualTo("Dumping pools usage. Use SIGQUIT to flush them.");
                for (String l : lines.subList(1, lines.size() - 2)) {
                    assertThat(l).matches(LINE);
                }
                assertThat(lines.get(lines.size() - 2))
                        .matches("Total: " + (lines.size() - 3) + " pools, \\d+ bytes allocated, \\d+ used \\(~\\d+ by thread caches\\)\\.");
                assertThat(lines.getLast()).isEmpty();
                List<String> byName = AdminClient.run(sock, "show pools byname\n").lines().filter(l -> l.startsWith("  - ")).toList();
                assertThat(byName.stream().map(l -> l.split(" ")[4]).toList()).isSorted();
                assertThat(AdminClient.run(sock, "show pools match netty\n").lines().filter(l -> l.startsWith("  - ")).toList())
                        .hasSize(2).allMatch(l -> l.startsWith("  - Pool netty"));
                assertThat(AdminClient.run(sock, "show pools bysize 1\n"))
                        .startsWith("Dumping pools usage (limited to the first 1 entries). Use SIGQUIT to flush them.\n  - Pool netty");
                assertThat(AdminClient.run(sock, "show pools foo\n"))
                        .isEqualTo("Expects either 'byname', 'bysize', 'byusage', 'match <pfx>', or a max number of output lines.\n\n");
                // the same lines as Prometheus families, one series per pool
                String metrics;
                awaitIdle(sock);
                try (RawClient c = new RawClient(port)) {
                    metrics = new String(c.send("GET /metrics HTTP/1.1\r\nhost: x\r\n\r\n").read().body(), StandardCharsets.UTF_8);
                }
                for (String family : List.of("sluice_pool_allocated", "sluice_pool_allocated_bytes", "sluice_pool_used", "sluice_pool_used_bytes",
                        "sluice_pool_needed_avg", "sluice_pool_failures_total")) {
                    assertThat(metrics).contains("# TYPE " + family + " ");
                    for (String pool : List.of("stream", "session", "nettydirect", "nettyheap")) {
                        assertThat(metrics).containsPattern("(?m)^" + family + "\\{pool=\"" + pool + "\"} [0-9.eE+]+$");
                    }
                }
                // the scrape is a stream itself, the connection a session
                assertThat(metrics).containsPattern("(?m)^sluice_pool_used\\{pool=\"stream\"} 1(\\.0)?$")
                        .containsPattern("(?m)^sluice_pool_used\\{pool=\"session\"} 1(\\.0)?$")
                        .containsPattern("(?m)^sluice_pool_allocated_bytes\\{pool=\"session\"} 2048(\\.0)?$");
                Map<String, String> info = info(sock);
                assertThat(info).containsEntry("Memmax_MB", "0").containsEntry("Memmax_bytes", "0").containsEntry("PoolFailed", "0");
                long allocBytes = Long.parseLong(info.get("PoolAlloc_bytes"));
                assertThat(allocBytes).isPositive();
                assertThat(Long.parseLong(info.get("PoolAlloc_MB"))).isEqualTo(allocBytes >> 20);
                assertThat(Long.parseLong(info.get("PoolUsed_MB"))).isEqualTo(Long.parseLong(info.get("PoolUsed_bytes")) >> 20);
            }
        }
    }

    @Test
    void noStreamOrConnectionStaysCountedAfterTrafficOfEveryKind() throws Exception {
        Program.H2LOAD.require();
        Path dir = Files.createTempDirectory("pools-leaks");
        Path sock = dir.resolve("admin.sock");
        try (Origin o = Origin.start("o")) {
            int port = Ports.free();
            int h2 = Ports.free();
            try (Sluice s = Sluice.start(config(dir, port, h2, o.port(), Ports.free()), port, h2)) {
                AdminClient.await(sock);
                try (RawClient c = new RawClient(port)) {
                    for (String path : List.of("/", "/deny", "/nf", "/dead", "/")) {
                        c.send("GET " + path + " HTTP/1.1\r\nhost: x\r\n\r\n").read();
                        if (!path.equals("/") && !path.equals("/nf")) {
                            break; // deny and 503 close the connection
                        }
                    }
                }
                try (RawClient c = new RawClient(port)) {
                    c.send("POST /up HTTP/1.1\r\nhost: x\r\ncontent-length: 5\r\n\r\nhello").read();
                }
                try (RawClient c = new RawClient(port)) {
                    // a body that never comes: the client leaves mid-request
                    c.send("POST /up HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\nabc");
                }
                try (RawClient c = new RawClient(port)) {
                    c.send("GET /half");
                }
                try (RawClient c = new RawClient(port)) {
                    c.send("BAD REQUEST\r\n\r\n").read();
                }
                try (RawClient c = new RawClient(port)) {
                    // incomplete head: 408 at timeout http-request
                    c.send("GET / HTTP/1.1\r\n");
                    assertThat(c.read().status()).isEqualTo(408);
                }
                for (int i = 0; i < 3; i++) {
                    try (Socket raw = new Socket("127.0.0.1", port)) {
                        OutputStream out = raw.getOutputStream();
                        out.write("GET / HTTP/1.1\r\nhost: x\r\n\r\nGET /nf HTTP/1.1\r\nhost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                    }
                }
                Http2Test.run(List.of("h2load", "-n", "200", "-c", "2", "-m", "10", "http://127.0.0.1:" + h2 + "/"));
                Http2Test.run(List.of("h2load", "-n", "20", "-c", "1", "-m", "10", "http://127.0.0.1:" + h2 + "/dead"));
                awaitIdle(sock);
                Map<String, long[]> p = pools(sock);
                assertThat(p.get("stream")[6]).isZero();
                assertThat(p.get("session")[6]).isZero();
            }
        }
    }

    @Test
    void pastTheMemoryCeilingConnectionsAreClosedAndRequestsGet503() throws Exception {
        Path dir = Files.createTempDirectory("pools-ceiling");
        Path sock = dir.resolve("admin.sock");
        try (Origin o = Origin.start("o")) {
            int port = Ports.free();
            Path cfg = Sluice.writeConfig(config(dir, port, Ports.free(), o.port(), Ports.free(), "20s"));
            // -m 1: 1 MB, room for 512 connections of 2 kB and nothing else
            try (Sluice s = Sluice.start(cfg, List.of("-m", "1"), Map.of(), port)) {
                AdminClient.await(sock);
                awaitIdle(sock);
                List<RawClient> open = new ArrayList<>();
                int refused = 0;
                try {
                    for (int i = 0; i < 520; i++) {
                        open.add(new RawClient(port, 5000));
                    }
                    // all accepted (or refused) before the first request frees anything
                    for (int i = 0; i < 250; i++) {
                        long[] session = pools(sock).get("session");
                        if (session[3] == 512 && session[6] == 8) {
                            break;
                        }
                        Thread.sleep(20);
                    }
                    // every connection sends a request: the 512 admitted get a 503 (no room left for a stream),
                    // the others were closed on accept
                    int got503 = 0;
                    for (RawClient c : open) {
                        try {
                            int status = c.send("GET / HTTP/1.1\r\nhost: x\r\n\r\n").read().status();
                            assertThat(status).isEqualTo(503);
                            got503++;
                        } catch (RuntimeException e) {
                            refused++;
                        }
                    }
                    assertThat(got503).isEqualTo(512);
                    assertThat(refused).isEqualTo(8);
                    // no room for a stick-table entry either
                    assertThat(AdminClient.run(sock, "set table fe key 10.0.0.1\n")).isEqualTo("Unable to allocate a new entry\n\n");
                    assertThat(pools(sock).get("sticktables")[6]).isEqualTo(1);
                } finally {
                    for (RawClient c : open) {
                        c.close();
                    }
                }
                Map<String, long[]> p = pools(sock);
                assertThat(p.get("session")[6]).isEqualTo(8);
                assertThat(p.get("stream")[6]).isEqualTo(512);
                Map<String, String> info = info(sock);
                assertThat(info).containsEntry("Memmax_MB", "1").containsEntry("Memmax_bytes", "1048576").containsEntry("PoolFailed", "521");
                // memory given back: served again
                awaitIdle(sock);
                try (RawClient c = new RawClient(port)) {
                    assertThat(c.send("GET / HTTP/1.1\r\nhost: x\r\n\r\n").read().status()).isEqualTo(200);
                }
            }
        }
    }

    @Test
    void aBadCeilingIsAUsageError() {
        Path cfg = Sluice.writeConfig(config(Path.of("/tmp"), 1, 2, 3, 4));
        for (String bad : List.of("abc", "-5", "")) {
            Sluice.Result r = Sluice.run(List.of("-c", "-f", cfg.toString(), "-m", bad), Map.of());
            assertThat(r.exitCode()).as(bad).isNotZero();
            assertThat(r.output()).contains("-m expects a number of megabytes (0 for no limit), not '" + bad + "'");
        }
        assertThat(Sluice.run(List.of("-c", "-f", cfg.toString(), "-m", "64"), Map.of()).exitCode()).isZero();
    }
}
