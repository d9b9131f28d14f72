package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A 16 MiB body up (POST, the origin answers its SHA-256) and a 16 MiB body down (GET) through every pair
 * of client protocol (HTTP/1.1, HTTP/1.1 over TLS, h2c with prior knowledge, h2 over TLS by ALPN; curl)
 * and server protocol (HTTP/1.1, HTTP/1.1 over TLS without ALPN and by ALPN, h2c, h2 over TLS by ALPN).
 * One daemon serves the whole matrix: a frontend per client protocol, a backend per server protocol
 * chosen by the first path segment. Each case checks the protocol curl used and the one the origin saw.
 */
class ProtocolMatrixTest {

    enum Client {
        H1("http", "--http1.1", "1.1"),
        H1_TLS("https", "--http1.1", "1.1"),
        H2C("http", "--http2-prior-knowledge", "2"),
        H2_TLS("https", "--http2", "2");

        final String scheme;
        final String curlFlag;
        final String version;

        Client(String scheme, String curlFlag, String version) {
            this.scheme = scheme;
            this.curlFlag = curlFlag;
            this.version = version;
        }
    }

    enum Server {
        H1, H1_TLS, H1_TLS_ALPN, H2C, H2_TLS;

        String backend() {
            return name().toLowerCase();
        }
    }

    static final byte[] DOWN = new byte[16 * 1024 * 1024];
    static final byte[] UP = new byte[16 * 1024 * 1024];
    static final String DOWN_SHA;
    static final String UP_SHA;

    static {
        new Random(31).nextBytes(DOWN);
        new Random(32).nextBytes(UP);
        DOWN_SHA = Origin.sha256(DOWN);
        UP_SHA = Origin.sha256(UP);
    }

    static Origin h1;
    static TlsOrigin h1Tls;
    static TlsOrigin h1TlsAlpn;
    static H2Origin h2c;
    static TlsOrigin h2Tls;
    static Sluice sluice;
    static int[] ports = new int[Client.values().length];
    static Path dir;
    static Path upFile;

    @BeforeAll
    static void start() throws Exception {
        Program.CURL.require();
        TestPki pki = new TestPki("matrix-ca");
        TestPki.Issued origin = pki.leaf("origin.test");
        TestPki.Issued front = pki.leaf("front.test");
        h1 = Origin.start("h1", (r, out) -> {
            byte[] body = r.method().equals("POST") ? r.sha256().getBytes(StandardCharsets.US_ASCII) : DOWN;
            Origin.respond(out, 200, "OK", Origin.headers(), body);
            return true;
        });
        h1Tls = new TlsOrigin(origin, DOWN);
        h1TlsAlpn = new TlsOrigin(origin, DOWN, "http/1.1");
        h2c = new H2Origin(DOWN);
        h2Tls = new TlsOrigin(origin, DOWN, "h2", "http/1.1");
        for (int i = 0; i < ports.length; i++) {
            ports[i] = Ports.free();
        }
        StringBuilder cfg = new StringBuilder("""
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 60s
                    timeout server 60s
                """);
        for (Client c : Client.values()) {
            String bind = switch (c) {
                case H1 -> "";
                case H1_TLS, H2_TLS -> " ssl crt " + front.pem();
                case H2C -> " proto h2";
            };
            cfg.append("frontend fe_").append(c.name().toLowerCase()).append('\n')
                    .append("    bind 127.0.0.1:").append(ports[c.ordinal()]).append(bind).append('\n');
            for (Server s : Server.values()) {
                cfg.append("    use_backend ").append(s.backend()).append(" if { path_beg /").append(s.backend()).append("/ }\n");
            }
        }
        String verify = " ssl verify required ca-file " + pki.caFile() + " sni str(origin.test)";
        cfg.append("backend h1\n    server s 127.0.0.1:").append(h1.port()).append('\n');
        // no alpn on the server line: HTTP/1.1 over TLS, and the origin offers no ALPN either
        cfg.append("backend h1_tls\n    server s 127.0.0.1:").append(h1Tls.port()).append(verify).append('\n');
        // both offered, the origin picks http/1.1
        cfg.append("backend h1_tls_alpn\n    server s 127.0.0.1:").append(h1TlsAlpn.port()).append(verify).append(" alpn h2,http/1.1\n");
        cfg.append("backend h2c\n    server s 127.0.0.1:").append(h2c.port()).append(" proto h2\n");
        cfg.append("backend h2_tls\n    server s 127.0.0.1:").append(h2Tls.port()).append(verify).append(" alpn h2,http/1.1\n");
        sluice = Sluice.start(cfg.toString(), ports);
        dir = Files.createTempDirectory("matrix");
        upFile = dir.resolve("up.bin");
        Files.write(upFile, UP);
    }

    @AfterAll
    static void stop() throws Exception {
        try (AutoCloseable a = sluice; AutoCloseable b = h1; AutoCloseable c = h1Tls; AutoCloseable d = h1TlsAlpn;
                AutoCloseable e = h2c; AutoCloseable f = h2Tls) {
            // closed in reverse order; the daemon's close fails the class on a leak report
        }
    }

    static Stream<Arguments> pairs() {
        List<Arguments> l = new ArrayList<>();
        for (Client c : Client.values()) {
            for (Server s : Server.values()) {
                l.add(Arguments.of(c, s));
            }
        }
        return l.stream();
    }

    static List<String> curl(Client c, String... args) {
        int port = ports[c.ordinal()];
        List<String> cmd = new ArrayList<>(List.of("curl", "-sS", "--max-time", "60", c.curlFlag, "-k", "--resolve",
                "front.test:" + port + ":127.0.0.1"));
        cmd.addAll(List.of(args));
        return cmd;
    }

    static String url(Client c, Server s, String name) {
        return c.scheme + "://front.test:" + ports[c.ordinal()] + "/" + s.backend() + "/" + name;
    }

    /** The protocol of the origin's last request, as it names it. */
    static String lastProtocol(Server s) {
        return switch (s) {
            case H1 -> h1.requests().getLast().version();
            case H1_TLS -> h1Tls.requests().getLast().protocol();
            case H1_TLS_ALPN -> h1TlsAlpn.requests().getLast().protocol();
            case H2C -> "h2";
            case H2_TLS -> h2Tls.requests().getLast().protocol();
        };
    }

    static int requestCount(Server s) {
        return switch (s) {
            case H1 -> h1.requests().size();
            case H1_TLS -> h1Tls.requests().size();
            case H1_TLS_ALPN -> h1TlsAlpn.requests().size();
            case H2C -> h2c.requests().size();
            case H2_TLS -> h2Tls.requests().size();
        };
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("pairs")
    void sixteenMebibytesEachWay(Client c, Server s) throws Exception {
        int before = requestCount(s);
        String up = Http2Test.run(curl(c, "-w", " %{http_version}", "--data-binary", "@" + upFile, url(c, s, "up")));
        assertThat(up).isEqualTo(UP_SHA + " " + c.version);
        assertThat(lastProtocol(s)).isEqualTo(switch (s) {
            case H1 -> "HTTP/1.1";
            case H1_TLS, H1_TLS_ALPN -> "http/1.1";
            case H2C, H2_TLS -> "h2";
        });

        Path got = dir.resolve("down-" + c + "-" + s);
        String version = Http2Test.run(curl(c, "-w", "%{http_version}", "-o", got.toString(), url(c, s, "down")));
        assertThat(version).isEqualTo(c.version);
        assertThat(Files.size(got)).isEqualTo(DOWN.length);
        assertThat(Origin.sha256(Files.readAllBytes(got))).isEqualTo(DOWN_SHA);
        Files.delete(got);
        assertThat(requestCount(s) - before).isEqualTo(2);
    }
}
