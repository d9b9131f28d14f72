package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** HTTP/1 upgrades (WebSocket) and CONNECT become byte tunnels between client and server. */
class TunnelTest {

    /** Answers the first request with 101 (or 200 to CONNECT), then echoes every byte in upper case. */
    static Thread echoServer(ServerSocket ss, AtomicReference<Http1.Head> seen) {
        Thread t = new Thread(() -> {
            try (Socket s = ss.accept()) {
                InputStream in = s.getInputStream();
                OutputStream out = s.getOutputStream();
                Http1.Head h = Http1.readHead(in);
                seen.set(h);
                if (h.startLine().startsWith("CONNECT")) {
                    out.write("HTTP/1.1 200 Connection established\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                } else {
                    out.write(("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                            + "Sec-WebSocket-Accept: x\r\n\r\nhello").getBytes(StandardCharsets.US_ASCII));
                }
                out.flush();
                byte[] buf = new byte[4096];
                int n;
                while ((n = in.read(buf)) > 0) {
                    out.write(new String(buf, 0, n, StandardCharsets.ISO_8859_1).toUpperCase().getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                }
            } catch (java.io.IOException e) {
                // the tunnel closed
            }
        });
        t.setDaemon(true);
        t.start();
        return t;
    }

    static String config(int port, int origin) {
        return """
                defaults
                    mode http
                    timeout connect 2s
                    timeout client 10s
                    timeout server 10s
                    timeout tunnel 2s
                frontend fe
                    bind 127.0.0.1:%d
                    default_backend be
                backend be
                    server s1 127.0.0.1:%d
                """.formatted(port, origin);
    }

    static String readN(InputStream in, int n) throws java.io.IOException {
        return new String(in.readNBytes(n), StandardCharsets.ISO_8859_1);
    }

    @Test
    void websocketUpgradeTunnelsBytesBothWays() throws Exception {
        try (ServerSocket ss = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            AtomicReference<Http1.Head> seen = new AtomicReference<>();
            echoServer(ss, seen);
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(port, ss.getLocalPort()), port); Socket c = new Socket("127.0.0.1", port)) {
                c.setSoTimeout(10_000);
                c.getOutputStream().write(("GET /chat HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                Http1.Head h = Http1.readHead(c.getInputStream());
                assertThat(h.startLine()).isEqualTo("HTTP/1.1 101 Switching Protocols");
                // the server's Connection and Upgrade fields as they came, as HAProxy relays them
                assertThat(h.get("connection")).isEqualTo("Upgrade");
                assertThat(h.get("upgrade")).isEqualTo("websocket");
                assertThat(readN(c.getInputStream(), 5)).isEqualTo("hello");
                for (int i = 0; i < 3; i++) {
                    c.getOutputStream().write(("ping" + i).getBytes(StandardCharsets.US_ASCII));
                    assertThat(readN(c.getInputStream(), 5)).isEqualTo("PING" + i);
                }
                assertThat(seen.get().get("upgrade")).isEqualTo("websocket");
                assertThat(seen.get().get("connection")).isEqualTo("Upgrade");
                assertThat(seen.get().get("sec-websocket-key")).isEqualTo("dGhlIHNhbXBsZSBub25jZQ==");
                // timeout tunnel (2 s) ends an idle tunnel
                long t0 = System.nanoTime();
                assertThat(c.getInputStream().read()).isEqualTo(-1);
                assertThat((System.nanoTime() - t0) / 1_000_000).isBetween(1000L, 6000L);
            }
        }
    }

    @Test
    void connectMethodTunnels() throws Exception {
        try (ServerSocket ss = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            AtomicReference<Http1.Head> seen = new AtomicReference<>();
            echoServer(ss, seen);
            int port = Ports.free();
            try (Sluice s = Sluice.start(config(port, ss.getLocalPort()), port); Socket c = new Socket("127.0.0.1", port)) {
                c.setSoTimeout(10_000);
                c.getOutputStream().write("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                Http1.Head h = Http1.readHead(c.getInputStream());
                assertThat(h.startLine()).startsWith("HTTP/1.1 200");
                c.getOutputStream().write("abc".getBytes(StandardCharsets.US_ASCII));
                assertThat(readN(c.getInputStream(), 3)).isEqualTo("ABC");
                assertThat(seen.get().startLine()).isEqualTo("CONNECT example.com:443 HTTP/1.1");
                c.shutdownOutput();
                assertThat(c.getInputStream().read()).isEqualTo(-1);
            }
        }
    }
}
