package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * TLS passthrough routed by the ClientHello ({@code mode tcp}, {@code req.ssl_sni}, {@code req.ssl_alpn},
 * {@code req_ssl_hello_type}), Sluice against HAProxy 2.6 on one configuration: three TLS origins whose certificates
 * the clients verify (the proxy holds no certificate: the origin's own must reach the client, so nothing was
 * decrypted), curl by SNI to each, an ACME tls-alpn-01 handshake ({@code openssl s_client -alpn acme-tls/1}) routed to
 * its own origin, a ClientHello written one byte per segment still routed by its SNI (a whole HTTPS request through),
 * a silent client let through to the default backend when {@code inspect-delay} ends, and plain text sent to the default
 * backend at once. Compared: what each client got, which origin took each connection, and the tcplog lines.
 */
class SniRoutingTest {
    static TestPki pki;
    static TlsOrigin a;
    static TlsOrigin b;
    static TlsOrigin c;
    static TlsOrigin acme;

    @BeforeAll
    static void origins() throws Exception {
        pki = new TestPki("sni-ca");
        a = new TlsOrigin(pki.leaf("a.example"), "origin A".getBytes(StandardCharsets.US_ASCII));
        b = new TlsOrigin(pki.leaf("b.example", "www.b.example"), "origin B".getBytes(StandardCharsets.US_ASCII));
        c = new TlsOrigin(pki.leaf("c.example"), "origin C".getBytes(StandardCharsets.US_ASCII));
        acme = new TlsOrigin(pki.leaf("a.example"), "acme".getBytes(StandardCharsets.US_ASCII), "acme-tls/1");
    }

    @AfterAll
    static void close() {
        for (TlsOrigin o : new TlsOrigin[] {a, b, c, acme}) {
            if (o != null) {
                o.close();
            }
        }
    }

    static String config(int port) {
        return """
                global
                    log stdout format raw local0
                defaults
                    mode tcp
                    log global
                    option tcplog
                    timeout connect 2s
                    timeout client 10s
                    timeout server 10s
                frontend fe_tls
                    bind 127.0.0.1:%d
                    tcp-request inspect-delay 1s
                    tcp-request content accept if { req_ssl_hello_type 1 }
                    use_backend be_acme if { req.ssl_alpn acme-tls/1 }
                    use_backend be_a if { req_ssl_sni -i a.example }
                    use_backend be_b if { req.ssl_sni -m end .b.example }
                    use_backend be_b if { req.ssl_sni b.example }
                    default_backend be_c
                backend be_a
                    server a 127.0.0.1:%d
                backend be_b
                    server b 127.0.0.1:%d
                backend be_c
                    server c 127.0.0.1:%d
                backend be_acme
                    server acme 127.0.0.1:%d
                """.formatted(port, a.port(), b.port(), c.port(), acme.port());
    }

    /** A connection's outcome: what the client got, the origin that took it, its local port (to find its log line). */
    record Case(String got, String origin, int clientPort) {
    }

    /** The origin whose connection count moved since {@code before}, or "none". */
    static String moved(int[] before) {
        TlsOrigin[] all = {a, b, c, acme};
        String[] names = {"a", "b", "c", "acme"};
        for (int i = 0; i < all.length; i++) {
            if (all[i].connections() != before[i]) {
                return names[i];
            }
        }
        return "none";
    }

    static int[] counts() {
        return new int[] {a.connections(), b.connections(), c.connections(), acme.connections()};
    }

    static Case curl(int port, String host) throws Exception {
        int[] before = counts();
        Sluice.Result r = TlsTest.exec(List.of("curl", "-sS", "--http1.1", "--cacert", pki.caFile().toString(),
                "--resolve", host + ":" + port + ":127.0.0.1", "https://" + host + ":" + port + "/"), null);
        Daemon.sleep(100);
        return new Case(r.output(), moved(before), -1);
    }

    /** An HTTPS request whose ClientHello (and everything after it) is written one byte per segment. */
    static Case byteByByte(int port, String host) throws Exception {
        int[] before = counts();
        KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
        ks.load(null, null);
        try (InputStream in = Files.newInputStream(pki.caFile())) {
            ks.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ks);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        Socket raw = new Socket() {
            @Override
            public OutputStream getOutputStream() throws IOException {
                OutputStream out = super.getOutputStream();
                return new FilterOutputStream(out) {
                    @Override
                    public void write(byte[] b, int off, int len) throws IOException {
                        for (int i = 0; i < len; i++) {
                            out.write(b[off + i]);
                            out.flush();
                        }
                    }
                };
            }
        };
        raw.setTcpNoDelay(true);
        raw.connect(new InetSocketAddress("127.0.0.1", port));
        int local = raw.getLocalPort();
        try (SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket(raw, host, port, true)) {
            s.setSoTimeout(10_000);
            var params = s.getSSLParameters();
            params.setEndpointIdentificationAlgorithm("HTTPS");
            s.setSSLParameters(params);
            s.getOutputStream().write(("GET / HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            // the origin keeps the connection: read the head and its Content-Length's worth, then close
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            InputStream in = s.getInputStream();
            String text = "";
            while (true) {
                int c = in.read();
                if (c < 0) {
                    break;
                }
                got.write(c);
                text = got.toString(StandardCharsets.US_ASCII);
                int head = text.indexOf("\r\n\r\n");
                if (head > 0) {
                    String len = text.lines().filter(l -> l.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")).findFirst()
                            .orElse("content-length: 0");
                    if (text.length() - head - 4 >= Integer.parseInt(len.substring(15).strip())) {
                        break;
                    }
                }
            }
            Daemon.sleep(100);
            return new Case(text.substring(text.indexOf("\r\n\r\n") + 4), moved(before), local);
        }
    }

    /** A connection that sends {@code text} (nothing when null) after {@code waitMs}, then half-closes and reads to the end. */
    static Case raw(int port, String text, long waitMs) throws Exception {
        int[] before = counts();
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            Daemon.sleep(waitMs);
            if (text != null) {
                s.getOutputStream().write(text.getBytes(StandardCharsets.US_ASCII));
            }
            s.shutdownOutput();
            try {
                s.getInputStream().transferTo(OutputStream.nullOutputStream());
            } catch (IOException e) {
                // reset by the origin that got no TLS: what matters is where it went
            }
            int local = s.getLocalPort();
            Daemon.sleep(100);
            return new Case("", moved(before), local);
        }
    }

    static Map<String, Object> run(boolean haproxy) throws Exception {
        int port = Ports.free();
        Map<String, Object> out = new LinkedHashMap<>();
        try (Daemon d = Daemon.start(haproxy, config(port), port)) {
            curl(port, "a.example");
            out.put("curl a", curl(port, "a.example"));
            out.put("curl www.b", curl(port, "www.b.example"));
            out.put("curl b", curl(port, "b.example"));
            int[] before = counts();
            Sluice.Result s = TlsTest.exec(List.of("openssl", "s_client", "-connect", "127.0.0.1:" + port, "-servername", "a.example", "-alpn",
                    "acme-tls/1", "-CAfile", pki.caFile().toString()), "");
            Daemon.sleep(100);
            String alpn = s.output().lines().filter(l -> l.startsWith("ALPN protocol")).findFirst().orElse(s.output());
            out.put("acme", new Case(alpn, moved(before), -1));
            Case slow = byteByByte(port, "www.b.example");
            out.put("byte by byte", slow);
            Case silent = raw(port, null, 1300);
            out.put("silent", silent);
            Case plain = raw(port, "GET / HTTP/1.0\r\n\r\n", 0);
            out.put("plain", plain);
            for (String k : List.of("byte by byte", "silent", "plain")) {
                int p = ((Case) out.get(k)).clientPort();
                List<String> l = d.awaitLines(x -> x.contains("127.0.0.1:" + p + " "), 1);
                out.put(k + " line", l.isEmpty() ? null : l.getFirst());
            }
        }
        return out;
    }

    @Test
    void passthroughIsRoutedByTheClientHelloAsHaproxyRoutesIt() throws Exception {
        Program.HAPROXY.require();
        Program.CURL.require();
        Program.OPENSSL.require();
        Map<String, Object> theirs = run(true);
        Map<String, Object> ours = run(false);
        // what HAProxy does with these
        assertThat(theirs.get("curl a")).isEqualTo(new Case("origin A", "a", -1));
        assertThat(theirs.get("curl www.b")).isEqualTo(new Case("origin B", "b", -1));
        assertThat(((Case) theirs.get("acme")).origin()).isEqualTo("acme");
        assertThat(((Case) theirs.get("byte by byte")).got()).isEqualTo("origin B");
        for (String k : List.of("curl a", "curl www.b", "curl b", "acme", "byte by byte", "silent", "plain")) {
            Case h = (Case) theirs.get(k);
            Case s = (Case) ours.get(k);
            assertThat(s.got()).as(k).isEqualTo(h.got());
            assertThat(s.origin()).as(k).isEqualTo(h.origin());
        }
        for (String k : List.of("byte by byte", "silent", "plain")) {
            String what = k + "\nhaproxy: " + theirs.get(k + " line") + "\nsluice:  " + ours.get(k + " line");
            assertThat(theirs.get(k + " line")).as(what).isNotNull();
            assertThat(ours.get(k + " line")).as(what).isNotNull();
            TcpLogTest.Line h = TcpLogTest.parse((String) theirs.get(k + " line"));
            TcpLogTest.Line s = TcpLogTest.parse((String) ours.get(k + " line"));
            assertThat(s.be() + "/" + s.srv()).as(what).isEqualTo(h.be() + "/" + h.srv());
            assertThat(s.flags()).as(what).isEqualTo(h.flags());
            // the time to the server: the hello's bytes, the inspect-delay (1 s), or at once
            assertThat(s.tw()).as(what).isBetween(h.tw() - 150, h.tw() + 150);
        }
        assertThat(TcpLogTest.parse((String) theirs.get("silent line")).tw()).isBetween(1000L, 1100L);
        assertThat(TcpLogTest.parse((String) theirs.get("plain line")).tw()).isLessThan(50L);
    }
}
