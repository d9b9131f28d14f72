package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * TLS on {@code bind ... ssl}, driven by real clients: curl (HTTP/1.1 and HTTP/2 by ALPN), openssl
 * s_client (certificate chosen by SNI, session resumption), h2load, nghttp, and raw sockets sending what
 * is not TLS. Certificates come from a CA made for the run.
 */
class TlsTest {
    static TestPki pki;
    static TestPki.Issued a;
    static TestPki.Issued b;

    @BeforeAll
    static void certificates() {
        pki = new TestPki("sluice-ca");
        a = pki.leaf("a.test");
        b = pki.leaf("b.test");
    }

    /** Runs a command to completion; {@code stdin} is written then closed. */
    static Sluice.Result exec(List<String> cmd, String stdin) throws Exception {
        Process p = new ProcessBuilder(Program.command(cmd)).redirectErrorStream(true).start();
        try (var in = p.getOutputStream()) {
            if (stdin != null) {
                in.write(stdin.getBytes(StandardCharsets.ISO_8859_1));
            }
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(cmd + " did not finish");
        }
        return new Sluice.Result(p.exitValue(), out);
    }

    static String config(int port, Origin o, String extra) {
        return """
                global
                    log stdout format raw local0
                defaults
                    mode http
                    log global
                    option httplog
                    timeout connect 2s
                    timeout client 10s
                    timeout server 10s
                frontend fe
                    bind 127.0.0.1:%d ssl crt %s crt %s
                    http-request set-header X-Proto https if { ssl_fc }
                    http-request set-header X-SNI %%[ssl_fc_sni]
                %s    default_backend be
                backend be
                    server s1 127.0.0.1:%d
                """.formatted(port, a.pem(), b.pem(), extra, o.port());
    }

    static List<String> curl(int port, String host, String... args) {
        List<String> c = new ArrayList<>(List.of("curl", "-sS", "--cacert", pki.caFile().toString(), "--resolve", host + ":" + port + ":127.0.0.1"));
        c.addAll(List.of(args));
        return c;
    }

    @Test
    void curlNegotiatesHttp11OrHttp2AndSniPicksTheCertificate() throws Exception {
        Program.CURL.require();
        Program.OPENSSL.require();
        try (Origin o = Origin.start("s1")) {
            int port = Ports.free();
            int plain = Ports.free();
            String extra = "    bind 127.0.0.1:%d\n    http-request redirect scheme https unless { ssl_fc }\n".formatted(plain);
            try (Sluice s = Sluice.start(config(port, o, extra), port, plain)) {
                // clear text is sent to https; TLS requests pass (ssl_fc)
                try (RawClient c = new RawClient(plain)) {
                    RawClient.Response moved = c.send("GET /p?q=1 HTTP/1.1\r\nHost: a.test\r\n\r\n").read();
                    assertThat(moved.status()).isEqualTo(302);
                    assertThat(moved.header("location")).isEqualTo("https://a.test/p?q=1");
                }
                // curl checks the certificate against the name it asked for: a wrong pick fails the request
                String h1 = Http2Test.run(curl(port, "a.test", "--http1.1", "-w", " %{http_version}", "https://a.test:" + port + "/one"));
                assertThat(h1).isEqualTo("origin s1\n 1.1");
                String h2 = Http2Test.run(curl(port, "b.test", "--http2", "-w", " %{http_version}", "https://b.test:" + port + "/two"));
                assertThat(h2).isEqualTo("origin s1\n 2");
                List<Origin.Request> got = o.requests();
                assertThat(got.get(0).header("x-proto")).isEqualTo("https");
                assertThat(got.get(0).header("x-sni")).isEqualTo("a.test");
                assertThat(got.get(1).header("x-proto")).isEqualTo("https");
                assertThat(got.get(1).header("x-sni")).isEqualTo("b.test");
                assertThat(got.get(1).version()).isEqualTo("HTTP/1.1");

                // the certificate served for each name, and the default one without a name
                assertThat(subject(port, "b.test")).contains("CN = b.test");
                assertThat(subject(port, "a.test")).contains("CN = a.test");
                assertThat(subject(port, null)).contains("CN = a.test");

                // an httplog line marks the frontend with "~" on TLS; an HTTP/2 request line is logged in absolute form, as HAProxy's
                assertThat(AccessLogTest.lines(s, 2)).anyMatch(l -> l.contains(" fe~ be/s1 ")
                        && l.contains("\"GET https://b.test:" + port + "/two HTTP/2.0\""));
            }
        }
    }

    /** The subject line {@code openssl s_client} prints for the certificate served to {@code sni} (null: none sent). */
    static String subject(int port, String sni) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("openssl", "s_client", "-connect", "127.0.0.1:" + port));
        cmd.addAll(sni == null ? List.of("-noservername") : List.of("-servername", sni));
        Sluice.Result r = exec(cmd, "");
        return r.output().lines().filter(l -> l.startsWith("subject=")).findFirst().orElse(r.output());
    }

    @Test
    void h2loadAndNghttpSpeakHttp2OverTls() throws Exception {
        Program.H2LOAD.require();
        Program.NGHTTP.require();
        try (Origin o = Origin.start("s1")) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(port, o, ""), port)) {
                String out = Http2Test.run(List.of("h2load", "-n", "200", "-c", "4", "-m", "10", "https://127.0.0.1:" + port + "/load"));
                assertThat(out).contains("Application protocol: h2").contains("200 succeeded, 0 failed, 0 errored, 0 timeout")
                        .contains("status codes: 200 2xx");
                String nghttp = Http2Test.run(List.of("nghttp", "-v", "https://127.0.0.1:" + port + "/ng"));
                assertThat(nghttp).contains("The negotiated protocol: h2").contains(":status: 200").contains("origin s1");
                assertThat(o.requests()).hasSize(201);
            }
        }
    }

    @Test
    void sixteenMebibytesEachWayOverTlsWithHttp2AndHttp11() throws Exception {
        Program.CURL.require();
        byte[] down = new byte[16 * 1024 * 1024];
        new Random(5).nextBytes(down);
        Origin.Handler h = (r, out) -> {
            if (r.method().equals("POST")) {
                Origin.respond(out, 200, "OK", Origin.headers(), r.sha256().getBytes(StandardCharsets.US_ASCII));
            } else {
                Origin.respond(out, 200, "OK", Origin.headers(), down);
            }
            return true;
        };
        try (Origin o = Origin.start("s1", h)) {
            int port = Ports.free();
            Path dir = Files.createTempDirectory("tlsbody");
            byte[] upData = new byte[16 * 1024 * 1024];
            new Random(6).nextBytes(upData);
            Path up = dir.resolve("up.bin");
            Files.write(up, upData);
            try (Sluice s = Sluice.start(config(port, o, ""), port)) {
                for (String proto : List.of("--http2", "--http1.1")) {
                    String sha = Http2Test.run(curl(port, "a.test", proto, "--data-binary", "@" + up, "https://a.test:" + port + "/up"));
                    assertThat(sha).as(proto).isEqualTo(Origin.sha256(upData));
                    Path got = dir.resolve("down" + proto + ".bin");
                    Http2Test.run(curl(port, "a.test", proto, "-o", got.toString(), "https://a.test:" + port + "/down"));
                    assertThat(Origin.sha256(Files.readAllBytes(got))).as(proto).isEqualTo(Origin.sha256(down));
                }
            }
        }
    }

    @Test
    void sessionsResumeWithTicketsAndTheSessionCache() throws Exception {
        Program.OPENSSL.require();
        try (Origin o = Origin.start("s1")) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(port, o, ""), port)) {
                // TLS 1.2: session ids from the server's cache
                Sluice.Result r12 = exec(List.of("openssl", "s_client", "-connect", "127.0.0.1:" + port, "-tls1_2", "-reconnect"), "");
                List<String> lines12 = r12.output().lines().filter(l -> l.startsWith("New,") || l.startsWith("Reused,")).toList();
                assertThat(lines12).as(r12.output()).hasSize(6);
                assertThat(lines12.get(0)).startsWith("New, TLSv1.2");
                assertThat(lines12.subList(1, 6)).allMatch(l -> l.startsWith("Reused, TLSv1.2"));

                // TLS 1.3: a ticket, sent after the handshake, saved by a first client and presented by a second
                Path sess = Files.createTempFile(pki.dir(), "sess", ".pem");
                Files.delete(sess);
                Sluice.Result first = exec(List.of("openssl", "s_client", "-connect", "127.0.0.1:" + port, "-tls1_3", "-ign_eof", "-sess_out",
                        sess.toString()), "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
                assertThat(first.output()).contains("New, TLSv1.3").contains("HTTP/1.1 200 OK");
                Sluice.Result second = exec(List.of("openssl", "s_client", "-connect", "127.0.0.1:" + port, "-tls1_3", "-sess_in",
                        sess.toString()), "");
                assertThat(second.output()).contains("Reused, TLSv1.3");
            }
        }
    }

    @Test
    void whatIsNotTlsIsClosedAndLoggedAndTheProxyGoesOn() throws Exception {
        Program.CURL.require();
        try (Origin o = Origin.start("s1")) {
            int port = Ports.free();
            int single = Ports.free();
            String cfg = config(port, o, "    bind 127.0.0.1:%d ssl crt %s\n".formatted(single, a.pem())).replace("timeout client 10s", "timeout client 1s");
            try (Sluice s = Sluice.start(cfg, port, single)) {
                // plain HTTP to the TLS port: closed without an answer
                try (Socket c = new Socket("127.0.0.1", port)) {
                    c.setSoTimeout(5000);
                    c.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    assertThat(readToEnd(c.getInputStream())).isEmpty();
                }
                // a client that connects and leaves at once
                try (Socket c = new Socket("127.0.0.1", port)) {
                    c.shutdownOutput();
                    c.setSoTimeout(5000);
                    assertThat(c.getInputStream().read()).isEqualTo(-1);
                }
                // a client that says nothing: closed after timeout client
                long t0 = System.nanoTime();
                try (Socket c = new Socket("127.0.0.1", port)) {
                    c.setSoTimeout(8000);
                    assertThat(c.getInputStream().read()).isEqualTo(-1);
                }
                long waited = (System.nanoTime() - t0) / 1_000_000;
                assertThat(waited).isBetween(800L, 6000L);
                // the same on a bind with one certificate (no SNI selection before the TLS handler)
                try (Socket c = new Socket("127.0.0.1", single)) {
                    c.setSoTimeout(8000);
                    assertThat(c.getInputStream().read()).isEqualTo(-1);
                }
                // random bytes that look like a TLS record header
                try (Socket c = new Socket("127.0.0.1", port)) {
                    c.setSoTimeout(5000);
                    byte[] junk = new byte[600];
                    new Random(7).nextBytes(junk);
                    junk[0] = 0x16;
                    junk[1] = 0x03;
                    junk[2] = 0x01;
                    // a complete record of 256 bytes: not a ClientHello
                    junk[3] = 0x01;
                    junk[4] = 0x00;
                    c.getOutputStream().write(junk);
                    readToEnd(c.getInputStream());
                }
                String out = Http2Test.run(curl(port, "a.test", "https://a.test:" + port + "/after"));
                assertThat(out).isEqualTo("origin s1\n");
                List<String> log = AccessLogTest.lines(s, 7);
                assertThat(log).anyMatch(l -> l.matches("127\\.0\\.0\\.1:\\d+ \\[.+\\] fe/1: SSL handshake failure"));
                assertThat(log).anyMatch(l -> l.endsWith("fe/1: Connection closed during SSL handshake"));
                assertThat(log).anyMatch(l -> l.endsWith("fe/1: Timeout during SSL handshake"));
                assertThat(log).anyMatch(l -> l.endsWith("fe/2: Timeout during SSL handshake"));
                assertThat(log.stream().filter(l -> l.endsWith("fe/1: SSL handshake failure")).count()).isEqualTo(2);
                assertThat(o.requests()).hasSize(1);
            }
        }
    }

    @Test
    void aConnectionHeldByMaxconnStartsItsHandshakeOnlyOnceAdmitted() throws Exception {
        try (Origin o = Origin.start("s1")) {
            int port = Ports.free();
            // timeout client (the handshake timeout) is shorter than the wait: it must not run while held
            // a second frontend whose idle connections time out after 2 s tells when the held one's 1 s has passed
            int probe = Ports.free();
            String cfg = config(port, o, "    maxconn 1\n").replace("timeout client 10s", "timeout client 1s\n    timeout http-keep-alive 20s")
                    + "frontend probe\n    bind 127.0.0.1:" + probe + "\n    timeout client 2s\n    default_backend be\n";
            try (Sluice s = Sluice.start(cfg, port, probe)) {
                javax.net.ssl.SSLSocketFactory f = pki.clientContext().getSocketFactory();
                // (the start-up probe's slot may still be taken: the first connection then waits for it)
                javax.net.ssl.SSLSocket first = (javax.net.ssl.SSLSocket) f.createSocket("127.0.0.1", port);
                first.setSoTimeout(5000);
                assertThat(exchange(first, "/first")).startsWith("HTTP/1.1 200");
                javax.net.ssl.SSLSocket second = (javax.net.ssl.SSLSocket) f.createSocket("127.0.0.1", port);
                second.setSoTimeout(15_000);
                java.util.concurrent.CompletableFuture<String> held = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                    try {
                        return exchange(second, "/second");
                    } catch (IOException e) {
                        return e.toString();
                    }
                });
                // an idle connection opened after the held one, closed by the server at its 2 s timeout
                try (java.net.Socket idle = new java.net.Socket("127.0.0.1", probe)) {
                    idle.setSoTimeout(15_000);
                    long opened = System.nanoTime();
                    idle.getInputStream().readAllBytes();
                    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - opened)).isGreaterThanOrEqualTo(1900);
                }
                assertThat(held).as("held past its 1 s handshake timeout").isNotDone();
                first.close();
                assertThat(held.get(10, TimeUnit.SECONDS)).startsWith("HTTP/1.1 200");
                second.close();
                assertThat(o.requests()).extracting(Origin.Request::target).containsExactly("/first", "/second");
            }
        }
    }

    /** Sends a GET on {@code c} (the handshake happens first) and returns the response head and body read so far. */
    private static String exchange(javax.net.ssl.SSLSocket c, String path) throws IOException {
        c.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: a.test\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        c.getOutputStream().flush();
        return Http1.readHead(c.getInputStream()).startLine();
    }

    private static byte[] readToEnd(InputStream in) throws IOException {
        try {
            return in.readAllBytes();
        } catch (java.net.SocketException e) {
            // a reset is a close too
            return new byte[0];
        }
    }

    @Test
    void aMissingOrInvalidCertificateFailsTheCheckWithItsLine() throws Exception {
        Path garbage = pki.write("garbage.pem", "-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n");
        Sluice.Result r = Sluice.check("""
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend fe
                    bind 127.0.0.1:1 ssl crt /nonexistent/site.pem
                    bind 127.0.0.1:2 ssl crt %s
                    default_backend be
                backend be
                    server s1 127.0.0.1:2 ssl verify required ca-file /nonexistent/ca.pem
                    server s2 127.0.0.1:3 ssl verify none sni nosuchfetch(x)
                """.formatted(garbage));
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.output())
                .containsPattern("test\\.cfg:7: error: 'bind 127\\.0\\.0\\.1:1' in proxy 'fe' : unable to load certificate from '/nonexistent/site\\.pem'")
                .containsPattern("test\\.cfg:8: error: 'bind 127\\.0\\.0\\.1:2' in proxy 'fe' : unable to load certificate from '.*garbage\\.pem'")
                .containsPattern("test\\.cfg:11: error: 'server be/s1' : .*/nonexistent/ca\\.pem")
                .containsPattern("test\\.cfg:12: error: 'server be/s2' : error detected while parsing sni expression 'nosuchfetch\\(x\\)'")
                .contains("Fatal errors found in configuration.")
                .doesNotContain("Configuration file is valid");

        Sluice.Result ok = Sluice.check("""
                defaults
                    mode http
                    timeout client 5s
                    timeout server 5s
                    timeout connect 5s
                frontend fe
                    bind 127.0.0.1:1 ssl crt %s crt %s alpn h2,http/1.1
                    default_backend be
                backend be
                    server s1 127.0.0.1:2 ssl verify required ca-file %s sni req.hdr(host) alpn h2,http/1.1
                """.formatted(a.pem(), b.pem(), pki.caFile()));
        assertThat(ok.exitCode()).as(ok.output()).isZero();
        assertThat(ok.output()).endsWith("Configuration file is valid\n");
    }
}
