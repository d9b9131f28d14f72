package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The same configuration and the same requests through Sluice and through the real HAProxy (2.6 here):
 * every request must reach the same server. Covers the hash algorithms (map-based and consistent, every
 * hash function, avalanche, uri options, source, hdr, url_param, hash expressions, the round robin used
 * when a request has no key), the weighted round robins and backup servers. Skipped when haproxy is not
 * installed.
 */
class HaproxyComparisonTest {
    private static final int SERVERS = 6;

    /** One backend under comparison: its lines, per-server options (s1..sN) and its requests. */
    private record Case(String balance, String[] servers, List<Req> requests) {
    }

    /** A request and the client address it comes from (null: the default). */
    private record Req(String text, String from) {
    }

    private final Random rnd = new Random(20240611);

    private String word(int max) {
        int n = rnd.nextInt(max + 1);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.append("abcdefghijklmnopqrstuvwxyz0123456789".charAt(rnd.nextInt(36)));
        }
        return sb.toString();
    }

    private static Req get(String target, String... headers) {
        StringBuilder sb = new StringBuilder("GET " + target + " HTTP/1.1\r\n");
        boolean host = false;
        for (String h : headers) {
            host |= h.toLowerCase(java.util.Locale.ROOT).startsWith("host:");
            sb.append(h).append("\r\n");
        }
        if (!host) {
            sb.append("Host: test\r\n");
        }
        return new Req(sb.append("\r\n").toString(), null);
    }

    private List<Req> paths(int n) {
        List<Req> out = new ArrayList<>();
        for (int i = 1; i <= 4; i++) {
            out.add(get("/url" + i));
        }
        for (int i = 0; i < n; i++) {
            String[] tails = {"", "?a=1", "/b/c", "?x=" + word(4) + "&y", "/" + word(3) + "/" + word(3) + "?q"};
            out.add(get("/" + word(12) + tails[rnd.nextInt(tails.length)]));
        }
        return out;
    }

    private List<Req> absolute(int n) {
        List<Req> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String[] prefix = {"", "http://h.example", "https://x.example:8443"};
            out.add(get(prefix[rnd.nextInt(prefix.length)] + "/" + word(6) + (rnd.nextBoolean() ? "?a=" + word(3) : "/c")));
        }
        return out;
    }

    private List<Req> sources(int n) {
        List<Req> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new Req(get("/" + word(5)).text, "127." + rnd.nextInt(256) + "." + rnd.nextInt(256) + "." + (1 + rnd.nextInt(254))));
        }
        return out;
    }

    private List<Req> headers(String name, int n) {
        List<Req> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String[] values = {"www." + word(6) + ".com", word(6) + ".example.org", word(8), word(5) + " , other", "a.b.c." + word(4), ".lead",
                "trail."};
            out.add(get("/", name + ": " + values[rnd.nextInt(values.length)]));
        }
        out.add(get("/"));
        out.add(get("/", name + ":"));
        out.add(get("/"));
        return out;
    }

    private List<Req> params(int n) {
        List<Req> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String[] before = {"", "a=1&", "xuserid=9&", "userid&", "foo=bar&"};
            String[] param = {"userid=" + word(8), "userid=", "nope=1", "userid=" + word(5) + "&z=1"};
            out.add(get("/p?" + before[rnd.nextInt(before.length)] + param[rnd.nextInt(param.length)]));
        }
        out.add(get("/p"));
        return out;
    }

    private List<Req> hosts(int n) {
        List<Req> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String[] hosts = {"www." + word(6) + ".com", word(6) + ".Example.ORG", word(8)};
            out.add(get("/" + word(6) + "?q=" + word(4), "Host: " + hosts[rnd.nextInt(hosts.length)]));
        }
        return out;
    }

    private static List<Req> plain(int n) {
        List<Req> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(get("/r" + i));
        }
        return out;
    }

    private static String[] weights(int... w) {
        String[] out = new String[w.length];
        for (int i = 0; i < w.length; i++) {
            out[i] = "weight " + w[i];
        }
        return out;
    }

    private static String[] equal(int n) {
        String[] out = new String[n];
        java.util.Arrays.fill(out, "");
        return out;
    }

    private List<Case> cases() {
        List<Case> c = new ArrayList<>();
        c.add(new Case("balance uri", equal(4), paths(60)));
        c.add(new Case("balance uri\nhash-type consistent", equal(4), paths(60)));
        c.add(new Case("balance uri whole", weights(1, 2, 3, 1, 5), paths(60)));
        c.add(new Case("balance uri len 5 depth 2\nhash-type map-based djb2 avalanche", weights(3, 1, 2, 1, 1), paths(60)));
        c.add(new Case("balance uri\nhash-type consistent wt6", weights(3, 1, 2, 1, 1), paths(60)));
        c.add(new Case("balance uri\nhash-type consistent crc32 avalanche", equal(3), paths(60)));
        c.add(new Case("balance uri\nhash-type map-based wt6", equal(6), paths(60)));
        c.add(new Case("balance uri path-only", equal(4), absolute(40)));
        c.add(new Case("balance uri path-only whole depth 1", equal(4), absolute(40)));
        c.add(new Case("balance source", equal(4), sources(40)));
        c.add(new Case("balance source", weights(1, 2, 3, 4, 5), sources(40)));
        c.add(new Case("balance source\nhash-type consistent", equal(4), sources(40)));
        c.add(new Case("balance source\nhash-type map-based sdbm avalanche", equal(3), sources(40)));
        c.add(new Case("balance hdr(x-key)", equal(4), headers("X-Key", 50)));
        c.add(new Case("balance hdr(X-Key) use_domain_only", equal(4), headers("x-key", 50)));
        c.add(new Case("balance hdr(x-key) use_domain_only\nhash-type consistent", weights(1, 2, 3), headers("X-Key", 50)));
        c.add(new Case("balance url_param userid", equal(4), params(50)));
        c.add(new Case("balance url_param userid\nhash-type consistent djb2", weights(2, 1, 1, 3, 1), params(50)));
        c.add(new Case("balance hash path", equal(4), hosts(40)));
        c.add(new Case("balance hash req.hdr(host),lower", equal(4), hosts(40)));
        c.add(new Case("balance hash src\nhash-type consistent", equal(4), sources(30)));
        c.add(new Case("balance hash url", weights(5, 1, 1), hosts(40)));
        c.add(new Case("balance hash hdr_cnt(host),add(3)", equal(5), hosts(10)));
        c.add(new Case("balance hash query\nhash-type consistent wt6 avalanche", equal(4), hosts(40)));
        c.add(new Case("balance hdr(x-none)", weights(2, 1, 1, 1), plain(20)));
        c.add(new Case("balance hdr(x-none)\nhash-type consistent", equal(3), plain(20)));
        c.add(new Case("balance roundrobin", weights(3, 1, 2, 1), plain(30)));
        c.add(new Case("balance roundrobin", weights(14, 4, 4, 20, 11, 11), plain(70)));
        c.add(new Case("balance static-rr", weights(3, 1, 2, 1), plain(30)));
        c.add(new Case("balance static-rr", new String[] {"disabled", "backup weight 2", "backup weight 5", "backup"}, plain(10)));
        c.add(new Case("balance uri", new String[] {"disabled", "backup weight 2", "backup weight 5", "backup"}, paths(20)));
        c.add(new Case("balance uri\noption allbackups", new String[] {"disabled", "backup weight 2", "backup weight 5", "backup"}, paths(20)));
        c.add(new Case("balance uri\nhash-type consistent\noption allbackups", new String[] {"disabled", "backup weight 2", "backup weight 5",
            "backup"}, paths(20)));
        c.add(new Case("balance roundrobin\noption allbackups", new String[] {"disabled", "backup", "backup weight 2", "backup"}, plain(12)));
        c.add(new Case("balance uri", new String[] {"", "weight 0", "disabled", "", "id 9", "id 1"}, paths(30)));
        c.add(new Case("balance uri\nhash-type consistent", new String[] {"id 7", "", "id 2", "weight 3"}, paths(30)));
        return c;
    }

    /** One configuration with a frontend per case, frontend i on ports[i]. */
    private static String config(List<Case> cases, int[] ports, List<Origin> origins) {
        StringBuilder sb = new StringBuilder("""
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 10s
                    timeout server 10s
                """);
        for (int i = 0; i < cases.size(); i++) {
            Case c = cases.get(i);
            sb.append("frontend fe").append(i).append("\n    bind 127.0.0.1:").append(ports[i]).append("\n    default_backend be").append(i)
                    .append("\nbackend be").append(i).append('\n');
            for (String l : c.balance().split("\n")) {
                sb.append("    ").append(l).append('\n');
            }
            for (int s = 0; s < c.servers().length; s++) {
                Origin o = origins.get(s);
                sb.append("    server ").append(o.name()).append(" 127.0.0.1:").append(o.port())
                        .append(c.servers()[s].isEmpty() ? "" : " " + c.servers()[s]).append('\n');
            }
        }
        return sb.toString();
    }

    private static List<String> run(int port, Case c) {
        List<String> out = new ArrayList<>();
        for (Req r : c.requests()) {
            try (RawClient client = new RawClient(port, 10_000, r.from())) {
                RawClient.Response resp = client.send(r.text()).read();
                out.add(resp.status() == 200 ? resp.header("x-origin") : String.valueOf(resp.status()));
            }
        }
        return out;
    }

    private static void awaitPort(Process p, int port, Path log) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            if (!p.isAlive()) {
                throw new AssertionError("haproxy exited: " + Files.readString(log));
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("haproxy did not listen on " + port + ": " + Files.readString(log));
                }
                Thread.sleep(25);
            }
        }
    }

    @Test
    void everyRequestReachesTheServerHaproxyChooses() throws Exception {
        String haproxyPath = Program.HAPROXY.require();
        List<Origin> origins = new ArrayList<>();
        for (int i = 1; i <= SERVERS; i++) {
            origins.add(Origin.start("s" + i));
        }
        List<Case> cases = cases();
        int[] sluicePorts = new int[cases.size()];
        int[] haproxyPorts = new int[cases.size()];
        for (int i = 0; i < cases.size(); i++) {
            sluicePorts[i] = Ports.free();
            haproxyPorts[i] = Ports.free();
        }
        Path dir = Files.createTempDirectory("haproxy-cmp");
        Path cfg = dir.resolve("haproxy.cfg");
        Path log = dir.resolve("haproxy.log");
        Files.writeString(cfg, config(cases, haproxyPorts, origins), StandardCharsets.UTF_8);
        Process haproxy = new ProcessBuilder(haproxyPath, "-f", cfg.toString(), "-db").redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        try (Sluice s = Sluice.start(config(cases, sluicePorts, origins), sluicePorts)) {
            awaitPort(haproxy, haproxyPorts[haproxyPorts.length - 1], log);
            int compared = 0;
            for (int i = 0; i < cases.size(); i++) {
                Case c = cases.get(i);
                List<String> expected = run(haproxyPorts[i], c);
                List<String> actual = run(sluicePorts[i], c);
                assertThat(actual).as("%s with servers %s", c.balance().replace('\n', ';'), String.join(",", c.servers())).isEqualTo(expected);
                compared += expected.size();
            }
            assertThat(compared).isGreaterThan(1000);
        } catch (UncheckedIOException e) {
            throw new AssertionError("haproxy output: " + Files.readString(log), e);
        } finally {
            haproxy.destroy();
            if (!haproxy.waitFor(10, TimeUnit.SECONDS)) {
                haproxy.destroyForcibly();
            }
            origins.forEach(Origin::close);
        }
    }
}
