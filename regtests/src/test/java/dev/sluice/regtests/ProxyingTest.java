package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** HTTP/1.1 reverse proxying through the real daemon: balancing, keep-alive, streaming bodies, headers. */
class ProxyingTest {

    static String config(int port, List<Origin> origins, String extra) {
        StringBuilder sb = new StringBuilder("""
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 10s
                    timeout server 10s
                frontend fe
                    bind 127.0.0.1:%d
                    default_backend be
                %s
                backend be
                    balance roundrobin
                """.formatted(port, extra));
        for (Origin o : origins) {
            sb.append("    server ").append(o.name()).append(" 127.0.0.1:").append(o.port()).append('\n');
        }
        return sb.toString();
    }

    @Test
    void roundRobinOverFourServersFollowsDeclarationOrder() {
        List<Origin> origins = new ArrayList<>();
        for (int i = 1; i <= 4; i++) {
            origins.add(Origin.start("s" + i));
        }
        int port = Ports.free();
        try (Sluice s = Sluice.start(config(port, origins, ""), port)) {
            List<String> seen = new ArrayList<>();
            for (int i = 0; i < 9; i++) {
                try (RawClient c = new RawClient(port)) {
                    seen.add(c.send("GET /" + i + " HTTP/1.1\r\nHost: x\r\n\r\n").read().header("x-origin"));
                }
            }
            assertThat(seen).containsExactly("s1", "s2", "s3", "s4", "s1", "s2", "s3", "s4", "s1");
        } finally {
            origins.forEach(Origin::close);
        }
    }

    @Test
    void hundredKeepAliveRequestsUseABoundedNumberOfServerConnections() {
        try (Origin o = Origin.start("s1")) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(port, List.of(o), ""), port); RawClient c = new RawClient(port)) {
                for (int i = 0; i < 100; i++) {
                    RawClient.Response r = c.send("GET /k" + i + " HTTP/1.1\r\nHost: x\r\n\r\n").read();
                    assertThat(r.status()).isEqualTo(200);
                    assertThat(r.header("connection")).isNull();
                }
                assertThat(o.requests()).hasSize(100);
                assertThat(o.connections()).isBetween(1, 2);
            }
        }
    }

    @Test
    void sixteenMebibyteChunkedUploadArrivesByteIdentical() throws Exception {
        try (Origin o = Origin.start("s1")) {
            int port = Ports.free();
            byte[] data = new byte[16 * 1024 * 1024];
            new Random(42).nextBytes(data);
            try (Sluice s = Sluice.start(config(port, List.of(o), ""), port); RawClient c = new RawClient(port, 60_000)) {
                c.send("POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
                OutputStream out = c.out();
                Random sizes = new Random(7);
                int off = 0;
                while (off < data.length) {
                    int n = Math.min(data.length - off, 1 + sizes.nextInt(100_000));
                    out.write((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                    out.write(data, off, n);
                    out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                    off += n;
                }
                out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                RawClient.Response r = c.read();
                assertThat(r.status()).isEqualTo(200);
                Origin.Request got = o.requests().get(0);
                assertThat(got.body().length).isEqualTo(data.length);
                assertThat(got.sha256()).isEqualTo(Origin.sha256(data));
                assertThat(got.header("transfer-encoding")).isEqualTo("chunked");
            }
        }
    }

    @Test
    void sixteenMebibyteDownloadArrivesByteIdentical() throws Exception {
        byte[] data = new byte[16 * 1024 * 1024];
        new Random(43).nextBytes(data);
        Origin.Handler big = (r, out) -> {
            Origin.respond(out, 200, "OK", Origin.headers("Content-Type", "application/octet-stream"), data);
            return true;
        };
        try (Origin o = Origin.start("s1", big)) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(port, List.of(o), ""), port); RawClient c = new RawClient(port, 60_000)) {
                RawClient.Response r = c.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.header("content-length")).isEqualTo(Integer.toString(data.length));
                assertThat(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(r.body()))).isEqualTo(Origin.sha256(data));
                // and the connection is still usable afterwards
                assertThat(c.send("GET /again HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
            }
        }
    }

    @Test
    void chunkedResponseIsRechunkedForHttp11AndForHttp10AsHaproxy() {
        Origin.Handler chunked = (r, out) -> {
            out.write(("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n7\r\n, world\r\n0\r\nX-Trailer: t\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return true;
        };
        try (Origin o = Origin.start("s1", chunked)) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(port, List.of(o), ""), port)) {
                try (RawClient c = new RawClient(port)) {
                    RawClient.Response r = c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read();
                    assertThat(r.header("transfer-encoding")).isEqualTo("chunked");
                    assertThat(r.bodyText()).isEqualTo("hello, world");
                    assertThat(r.trailers()).anySatisfy(t -> assertThat(t).containsExactly("x-trailer", "t"));
                }
                try (RawClient c = new RawClient(port)) {
                    // HAProxy 2.6 chunks an HTTP/1.1 response of unknown length to an HTTP/1.0 client too (its mux_h1 looks
                    // at the response's version), then closes as the client did not ask to keep the connection
                    c.send("GET / HTTP/1.0\r\n\r\n");
                    String all = c.readToEndText();
                    assertThat(all).startsWith("HTTP/1.1 200 OK\r\n").contains("transfer-encoding: chunked\r\n", "connection: close\r\n")
                            .endsWith("\r\n0\r\nx-trailer: t\r\n\r\n");
                }
            }
        }
    }

    @Test
    void http10ClientsGetKeepAliveOnlyWhenTheyAskForIt() {
        try (Origin o = Origin.start("s1")) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(port, List.of(o), ""), port)) {
                try (RawClient c = new RawClient(port)) {
                    RawClient.Response r = c.send("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").read();
                    assertThat(r.header("connection")).isEqualTo("keep-alive");
                    assertThat(c.send("GET / HTTP/1.0\r\n\r\n").read().header("connection")).isEqualTo("close");
                    assertThat(c.closedByPeer()).isTrue();
                }
            }
        }
    }

    @Test
    void hopByHopHeadersGoOnAsInHaproxyAndForwardedForIsAdded() {
        try (Origin o = Origin.start("s1")) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(port, List.of(o), "    option forwardfor"), port); RawClient c = new RawClient(port)) {
                c.send("GET /h HTTP/1.1\r\nHost: x\r\nConnection: keep-alive, X-Drop\r\nX-Drop: 1\r\nKeep-Alive: 300\r\n"
                        + "Proxy-Connection: keep-alive\r\nX-Forwarded-For: 10.1.1.1\r\nX-Keep: yes\r\n\r\n").read();
                Origin.Request r = o.requests().get(0);
                // as HAProxy 2.6 forwards them: Connection without its keep-alive token, the other fields as they came
                assertThat(r.head().fields()).extracting(f -> f[0] + ": " + f[1]).containsExactly("host: x", "connection: X-Drop",
                        "x-drop: 1", "keep-alive: 300", "proxy-connection: keep-alive", "x-forwarded-for: 10.1.1.1", "x-keep: yes",
                        "x-forwarded-for: 127.0.0.1");
            }
        }
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() {
        try (Origin o = Origin.start("s1")) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(port, List.of(o), ""), port); RawClient c = new RawClient(port)) {
                StringBuilder reqs = new StringBuilder();
                for (int i = 0; i < 5; i++) {
                    reqs.append("GET /p").append(i).append(" HTTP/1.1\r\nHost: x\r\n\r\n");
                }
                c.send(reqs.toString());
                for (int i = 0; i < 5; i++) {
                    assertThat(c.read().status()).isEqualTo(200);
                }
                assertThat(o.requests()).extracting(Origin.Request::target).containsExactly("/p0", "/p1", "/p2", "/p3", "/p4");
            }
        }
    }

    @Test
    void serverConnectionsAreClosedWithHttpServerClose() throws IOException {
        try (Origin o = Origin.start("s1")) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(port, List.of(o), "    option http-server-close"), port); RawClient c = new RawClient(port)) {
                for (int i = 0; i < 3; i++) {
                    assertThat(c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
                }
                assertThat(o.connections()).isEqualTo(3);
                assertThat(o.requests().get(0).header("connection")).isEqualTo("close");
            }
        }
    }

    @Test
    void aClientThatHalfClosesAfterItsRequestStillGetsTheResponse() {
        try (Origin o = Origin.start("s1")) {
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(port, List.of(o), ""), port); RawClient c = new RawClient(port)) {
                c.send("GET /half HTTP/1.1\r\nHost: x\r\n\r\n");
                c.shutdownOutput();
                String all = c.readToEndText();
                // the response arrives whole, then the connection closes (readToEnd returns)
                assertThat(all).startsWith("HTTP/1.1 200 OK\r\n").endsWith("origin s1\n");
            }
        }
    }
}
