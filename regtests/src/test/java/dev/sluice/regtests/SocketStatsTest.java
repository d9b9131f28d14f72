package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.Test;

/**
 * {@code option socket-stats}: a {@code show stat} row of type 3 per bind address after the frontend's (named by the bind's
 * {@code name}, else {@code sock-<n>}), with its connections, denials, invalid requests, refused connections and TLS
 * handshakes, and {@code show stat <iid> 8 -1} selecting them, as HAProxy 2.6 prints them for the same traffic. The address
 * column (the ports differ) is masked; the byte columns are checked to add up to the frontend's.
 */
class SocketStatsTest {

    private static String config(int p1, int p2, int p3, int p4, int p5, String pem) {
        return """
                global
                    stats socket @DIR@/admin.sock level admin
                defaults
                    mode http
                    timeout client 2s
                    timeout server 2s
                    timeout connect 1s
                frontend fe
                    option socket-stats
                    bind 127.0.0.1:%1$d name clear
                    bind 127.0.0.1:%2$d,127.0.0.1:%3$d
                    bind 127.0.0.1:%4$d ssl crt %6$s
                    bind 127.0.0.1:%5$d name refusing
                    tcp-request connection reject if { dst_port %5$d }
                    http-request deny if { path /deny }
                    default_backend be
                backend be
                    server s1 127.0.0.1:1
                """.formatted(p1, p2, p3, p4, p5, pem);
    }

    private static void send(int port, String request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            exchange(s, request);
        }
    }

    private static void exchange(Socket s, String request) throws IOException {
        s.setSoTimeout(5000);
        OutputStream out = s.getOutputStream();
        out.write(request.getBytes(StandardCharsets.US_ASCII));
        out.flush();
        InputStream in = s.getInputStream();
        while (in.read() >= 0) {
            // until the proxy closes
        }
    }

    private static void sendTls(int port, String request) throws Exception {
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, new TrustManager[] {new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] c, String a) {
            }

            @Override
            public void checkServerTrusted(X509Certificate[] c, String a) {
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        }}, null);
        try (SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", port)) {
            s.startHandshake();
            exchange(s, request);
        }
    }

    private static final String CLOSE = "Host: x\r\nConnection: close\r\n\r\n";

    /** The rows of fe after the same traffic, the address column masked; and the selection of listeners only. */
    private static List<String> run(boolean haproxy, String pem) throws Exception {
        int[] p = {Ports.free(), Ports.free(), Ports.free(), Ports.free(), Ports.free()};
        try (Daemon d = Daemon.start(haproxy, config(p[0], p[1], p[2], p[3], p[4], pem), p[0])) {
            // the readiness probe's connection is gone before the traffic starts (else smax could count it beside the first)
            ServerQueueTest.awaitStat(d, "fe,clear", "stot", "1");
            ServerQueueTest.awaitStat(d, "fe,clear", "scur", "0");
            send(p[0], "GET / HTTP/1.1\r\n" + CLOSE);
            send(p[0], "GET /deny HTTP/1.1\r\n" + CLOSE);
            send(p[1], "GET /deny HTTP/1.1\r\n" + CLOSE);
            send(p[2], "BAD\r\n\r\n");
            sendTls(p[3], "GET /deny HTTP/1.1\r\n" + CLOSE);
            try (Socket s = new Socket("127.0.0.1", p[4])) {
                s.setSoTimeout(5000);
                // refused: closed, or reset
                assertThat(s.getInputStream().read()).isEqualTo(-1);
            } catch (java.net.SocketException reset) {
                assertThat(reset.getMessage()).contains("reset");
            }
            Thread.sleep(200);
            String all = AdminClient.run(d.dir().resolve("admin.sock"), "show stat\n");
            String only = AdminClient.run(d.dir().resolve("admin.sock"), "show stat 2 8 -1\n");
            List<String> header = List.of(all.lines().findFirst().orElseThrow().substring(2).split(",", -1));
            int addr = header.indexOf("addr");
            int bin = header.indexOf("bin");
            int bout = header.indexOf("bout");
            int smax = header.indexOf("smax");
            int stot = header.indexOf("stot");
            long[] sums = new long[2];
            long[] fe = new long[2];
            List<String> out = new ArrayList<>();
            for (String l : all.lines().filter(l -> l.startsWith("fe,")).toList()) {
                String[] f = l.split(",", -1);
                if (f[1].equals("FRONTEND")) {
                    fe[0] = Long.parseLong(f[bin]);
                    fe[1] = Long.parseLong(f[bout]);
                    continue;
                }
                assertThat(f[addr]).as("addr of %s", f[1]).startsWith("127.0.0.1:");
                sums[0] += Long.parseLong(f[bin]);
                sums[1] += Long.parseLong(f[bout]);
                f[addr] = "ADDR";
                f[bin] = "BIN";
                f[bout] = "BOUT";
                // the most connections at once: whether one was still closing when the next came is timing, in either
                // daemon (HAProxy once gave 2 on a listener that had one connection)
                assertThat(Long.parseLong(f[smax])).as("smax of %s", f[1]).isBetween(Math.min(1, Long.parseLong(f[stot])), 2L);
                f[smax] = "SMAX";
                out.add(String.join(",", f));
            }
            assertThat(sums).as("the listeners' bytes add up to the frontend's").containsExactly(fe);
            assertThat(fe[0]).isPositive();
            // show stat 2 8 -1: the listeners alone, the same rows
            assertThat(only.lines().filter(l -> l.startsWith("fe,")).count()).isEqualTo(out.size());
            return out;
        }
    }

    @Test
    void listenerRowsAsHaproxy() throws Exception {
        Program.HAPROXY.require();
        TestPki.Issued cert = new TestPki("socket-stats-ca").leaf("localhost", "127.0.0.1");
        List<String> theirs = run(true, cert.pem().toString());
        List<String> ours = run(false, cert.pem().toString());
        assertThat(theirs).hasSize(5);
        // the daemon's readiness probe is the first connection of clear (an empty one: an invalid request)
        assertThat(theirs.get(0)).startsWith("fe,clear,,,0,SMAX,0,3,BIN,BOUT,1,0,1,");
        assertThat(ours).as("listener rows of show stat").isEqualTo(theirs);
    }

    /**
     * A QUIC bind of such a frontend has its row too (HAProxy 2.6's QUIC listeners have one; Debian's build has no QUIC to
     * compare with): its connection, TLS session, denied request and bytes.
     */
    @Test
    void aQuicBindHasItsRow() throws Exception {
        TestPki.Issued cert = new TestPki("socket-stats-quic").leaf("localhost", "127.0.0.1");
        int port = Ports.free();
        try (Daemon d = Daemon.start(false, """
                global
                    stats socket @DIR@/admin.sock level admin
                defaults
                    mode http
                    timeout client 5s
                    timeout server 2s
                    timeout connect 1s
                frontend fe
                    option socket-stats
                    bind 127.0.0.1:%1$d name tcp
                    bind quic4@127.0.0.1:%1$d name quic ssl crt %2$s
                    http-request deny if { path /deny }
                    http-request return status 200
                """.formatted(port, cert.pem()), port)) {
            try (H3Client h3 = new H3Client(port)) {
                assertThat(h3.get("/deny").status()).isEqualTo(403);
                assertThat(h3.get("/").status()).isEqualTo(200);
            }
            String row = AdminClient.run(d.dir().resolve("admin.sock"), "show stat 2 8 -1\n").lines().filter(l -> l.startsWith("fe,quic,"))
                    .findFirst().orElseThrow();
            List<String> header = List.of(AdminClient.run(d.dir().resolve("admin.sock"), "show stat\n").lines().findFirst().orElseThrow()
                    .substring(2).split(",", -1));
            String[] f = row.split(",", -1);
            assertThat(f[header.indexOf("stot")]).isEqualTo("1");
            assertThat(f[header.indexOf("sid")]).isEqualTo("2");
            assertThat(f[header.indexOf("dreq")]).isEqualTo("1");
            assertThat(f[header.indexOf("ssl_sess")]).isEqualTo("1");
            assertThat(f[header.indexOf("addr")]).isEqualTo("127.0.0.1:" + port);
            assertThat(Long.parseLong(f[header.indexOf("bout")])).isPositive();
        }
    }
}
