package dev.sluice.regtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * TLS ends and the PROXY protocol of {@code mode tcp} proxies, Sluice against HAProxy 2.6 on one configuration (one
 * daemon of each for the class, the origins shared): TLS terminated in front of a clear-text echo (4 MiB intact both
 * ways, the client half-closing with a bare FIN gets the answer), a client's close_notify as its half-close (HAProxy
 * still answers it; Sluice's BoringSSL cannot: the tagged departure), re-encryption to a TLS echo server (its name and
 * CA checked), the tcplog lines, the ssl fetches in a log-format, a failed client handshake's line, a server whose
 * certificate does not verify (a connection failure: SC, econ, retries), the PROXY v2 header a server gets (the bytes
 * compared, the ports masked; before the ClientHello over TLS), a PROXY header before TLS on a TCP bind and one asked for
 * by {@code tcp-request connection expect-proxy layer4}, and the chain of corpus file 21-acmesh-alpn-proxyproto.cfg
 * without its content inspection (a TCP frontend, send-proxy-v2 to an HTTP frontend's {@code ssl accept-proxy} bind, an
 * HTTP origin) with curl through it.
 */
class TcpTlsTest {
    static final String PROXY_V1 = "PROXY TCP4 10.1.2.3 10.4.5.6 1111 2222\r\n";

    static TestPki pki;
    static TestPki.Issued front;
    static TestPki other;
    static TcpOrigin echo;
    static TcpOrigin sink;
    static TcpOrigin recorder;
    static final LinkedBlockingQueue<byte[]> recorded = new LinkedBlockingQueue<>();
    static TlsEchoOrigin tlsEcho;
    static Origin web;
    static Daemon sluice;
    static Daemon haproxy;
    static final Map<Daemon, Map<String, Integer>> PORTS = new LinkedHashMap<>();

    /** The listeners of the configuration, each on its own port per daemon. */
    static final List<String> NAMES = List.of("term", "sink", "reenc", "fmt", "fmt_alpn", "badca", "pp2", "pp2ssl", "acc", "fe_alpn", "fe_https", "exp");

    @BeforeAll
    static void start() {
        Program.HAPROXY.require();
        pki = new TestPki("tcp-tls");
        front = pki.leaf("front.test");
        other = new TestPki("unrelated");
        echo = TcpOrigin.start(TcpOrigin.ECHO);
        sink = TcpOrigin.start(TcpOrigin.SINK);
        recorder = TcpOrigin.start(TcpTlsTest::record);
        tlsEcho = new TlsEchoOrigin(pki, pki.leaf("back.test"));
        web = Origin.start("web");
        haproxy = daemon(true);
        sluice = daemon(false);
    }

    @AfterAll
    static void stop() {
        for (AutoCloseable c : new AutoCloseable[] {sluice, haproxy, echo, sink, recorder, tlsEcho, web}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                // closing
            }
        }
    }

    /** Keeps what a server connection sent (until it goes quiet for 300 ms or closes), then closes it. */
    static void record(Socket s, TcpOrigin o) throws IOException {
        s.setSoTimeout(300);
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buf = new byte[4096];
        try {
            int n;
            while ((n = s.getInputStream().read(buf)) > 0) {
                all.write(buf, 0, n);
            }
        } catch (SocketTimeoutException | SocketException e) {
            // quiet, or gone
        }
        recorded.add(all.toByteArray());
    }

    static Daemon daemon(boolean isHaproxy) {
        Map<String, Integer> p = new LinkedHashMap<>();
        for (String n : NAMES) {
            p.put(n, Ports.free());
        }
        String crt = front.pem().toString();
        String cfg = """
                global
                    log stdout format raw local0
                    stats socket @DIR@/admin.sock level admin
                    ssl-default-bind-ciphers ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384
                    ssl-default-bind-options no-sslv3 no-tlsv10 no-tlsv11 no-tls-tickets
                    ssl-default-server-ciphers ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384
                    ssl-default-server-options no-sslv3 no-tlsv10 no-tlsv11 no-tls-tickets
                defaults
                    log global
                    option tcplog
                    timeout connect 2s
                    timeout client 10s
                    timeout server 10s
                listen term
                    bind 127.0.0.1:%1$d ssl crt %2$s
                    server s1 127.0.0.1:%3$d
                listen sink
                    bind 127.0.0.1:%4$d ssl crt %2$s
                    server s1 127.0.0.1:%5$d
                listen reenc
                    bind 127.0.0.1:%6$d ssl crt %2$s
                    server s1 127.0.0.1:%7$d ssl verify required ca-file %8$s sni str(back.test)
                listen fmt
                    bind 127.0.0.1:%9$d ssl crt %2$s
                    tcp-request connection reject if !{ ssl_fc }
                    log-format "%%ft %%b/%%s %%ts fc=%%[ssl_fc] sni=%%[ssl_fc_sni] has_sni=%%[ssl_fc_has_sni] %%sslv alpn=%%[ssl_fc_alpn] proto=%%[ssl_fc_protocol] %%B %%U"
                    server s1 127.0.0.1:%3$d
                listen fmt_alpn
                    bind 127.0.0.1:%10$d ssl crt %2$s alpn foo,bar
                    log-format "%%ft %%b/%%s %%ts fc=%%[ssl_fc] sni=%%[ssl_fc_sni] has_sni=%%[ssl_fc_has_sni] %%sslv alpn=%%[ssl_fc_alpn] proto=%%[ssl_fc_protocol] %%B %%U"
                    server s1 127.0.0.1:%3$d
                listen badca
                    bind 127.0.0.1:%11$d
                    retries 1
                    server s1 127.0.0.1:%7$d ssl verify required ca-file %12$s
                listen pp2
                    bind 127.0.0.1:%13$d
                    server s1 127.0.0.1:%14$d send-proxy-v2
                listen pp2ssl
                    bind 127.0.0.1:%15$d
                    retries 0
                    server s1 127.0.0.1:%14$d send-proxy-v2 ssl verify none
                listen acc
                    bind 127.0.0.1:%16$d accept-proxy ssl crt %2$s
                    log-format "%%ci:%%cp %%fi:%%fp %%ft pp=%%[fc_rcvd_proxy] sni=%%[ssl_fc_sni] %%ts %%B"
                    server s1 127.0.0.1:%3$d
                listen exp
                    bind 127.0.0.1:%20$d
                    tcp-request connection expect-proxy layer4 if { src 127.0.0.1 }
                    log-format "%%ci:%%cp %%fi:%%fp %%ft pp=%%[fc_rcvd_proxy] fc=%%[ssl_fc] %%ts %%B"
                    server s1 127.0.0.1:%3$d

                # the chain of 21-acmesh-alpn-proxyproto.cfg, without its content inspection
                frontend fe_alpn
                  mode tcp
                  bind 127.0.0.1:%17$d
                  default_backend bk_https

                backend bk_https
                  server https 127.0.0.1:%18$d send-proxy-v2

                frontend fe_https
                  mode http
                  option forwardfor
                  option httplog
                  bind 127.0.0.1:%18$d ssl crt %2$s accept-proxy
                  http-request add-header X-Forwarded-Proto https
                  http-response set-header Strict-Transport-Security max-age=31536000;includeSubDomains;preload
                  default_backend bk_web

                backend bk_web
                  mode http
                  server web 127.0.0.1:%19$d
                """.formatted(p.get("term"), crt, echo.port(), p.get("sink"), sink.port(), p.get("reenc"), tlsEcho.port(), pki.caFile(),
                p.get("fmt"), p.get("fmt_alpn"), p.get("badca"), other.caFile(), p.get("pp2"), recorder.port(), p.get("pp2ssl"), p.get("acc"),
                p.get("fe_alpn"), p.get("fe_https"), web.port(), p.get("exp"));
        Daemon d = Daemon.start(isHaproxy, cfg, p.get("fe_https"));
        PORTS.put(d, p);
        return d;
    }

    static int port(Daemon d, String listener) {
        return PORTS.get(d).get(listener);
    }

    static List<Daemon> both() {
        return List.of(haproxy, sluice);
    }

    // ------------------------------------------------------------------ clients

    /** A TLS 1.3 client over {@code raw} (already connected), offering {@code sni} and {@code alpn}, handshake done. */
    static SSLSocket tls(Socket raw, String sni, String... alpn) throws IOException {
        SSLSocket s = (SSLSocket) pki.clientContext().getSocketFactory().createSocket(raw, sni, raw.getPort(), true);
        SSLParameters params = s.getSSLParameters();
        params.setServerNames(List.of(new SNIHostName(sni)));
        params.setProtocols(new String[] {"TLSv1.3"});
        if (alpn.length > 0) {
            params.setApplicationProtocols(alpn);
        }
        s.setSSLParameters(params);
        s.setSoTimeout(20_000);
        s.startHandshake();
        return s;
    }

    static Socket raw(Daemon d, String listener) throws IOException {
        Socket raw = new Socket("127.0.0.1", port(d, listener));
        raw.setSoTimeout(20_000);
        return raw;
    }

    /** Everything until the end (close_notify or FIN); what came before a reset when there is one. */
    static byte[] readAll(InputStream in) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buf = new byte[65536];
        try {
            int n;
            while ((n = in.read(buf)) >= 0) {
                all.write(buf, 0, n);
            }
        } catch (IOException e) {
            // reset, or TLS closed without close_notify: what came is the answer
        }
        return all.toByteArray();
    }

    /** The tcplog line of the connection from {@code clientPort}. */
    static TcpLogTest.Line tcplog(Daemon d, int clientPort) {
        return TcpLogTest.parse(TcpRelayTest.line(d, clientPort));
    }

    static String sha(byte[] b) {
        return HexFormat.of().formatHex(TcpOrigin.sha256().digest(b));
    }

    // ------------------------------------------------------------------ cases

    @Test
    void terminationCarriesBytesIntactBothWaysAndABareFinGetsTheAnswer() throws Exception {
        int n = 4 << 20;
        byte[] data = new byte[n];
        TcpOrigin.fill(data, 0, n);
        Map<Daemon, TcpLogTest.Line> lines = new LinkedHashMap<>();
        for (Daemon d : both()) {
            try (Socket raw = raw(d, "term"); SSLSocket s = tls(raw, "front.test")) {
                Thread writer = new Thread(() -> {
                    try {
                        OutputStream out = s.getOutputStream();
                        for (int off = 0; off < n; off += 65536) {
                            out.write(data, off, Math.min(65536, n - off));
                        }
                        out.flush();
                        // the half-close without close_notify: a TCP FIN under the TLS session
                        raw.shutdownOutput();
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                });
                writer.start();
                byte[] back = readAll(s.getInputStream());
                writer.join(20_000);
                assertThat(back.length).as(d.name()).isEqualTo(n);
                assertThat(sha(back)).as(d.name()).isEqualTo(sha(data));
                lines.put(d, tcplog(d, raw.getLocalPort()));
            }
        }
        TcpLogTest.Line h = lines.get(haproxy);
        TcpLogTest.Line s = lines.get(sluice);
        // an SSL frontend is named with a '~', in both
        assertThat(h.ft()).isEqualTo("term~");
        assertThat(s.ft()).isEqualTo(h.ft());
        assertThat(s.be() + "/" + s.srv()).isEqualTo(h.be() + "/" + h.srv()).isEqualTo("term/s1");
        assertThat(s.flags()).isEqualTo(h.flags()).isEqualTo("--");
        assertThat(s.bytes()).isEqualTo(h.bytes()).isEqualTo(Integer.toString(n));
        assertThat(s.counts()).isEqualTo(h.counts());
        // Tw counts from the accept, the handshake included, in both
        assertThat(h.tw()).isPositive();
        assertThat(s.tw()).isPositive();

        // a sink answers once it has the FIN: a bare FIN under TLS gets its answer
        for (Daemon d : both()) {
            try (Socket raw = raw(d, "sink"); SSLSocket t = tls(raw, "front.test")) {
                t.getOutputStream().write("ping".getBytes(StandardCharsets.US_ASCII));
                t.getOutputStream().flush();
                raw.shutdownOutput();
                String answer = new String(readAll(t.getInputStream()), StandardCharsets.US_ASCII);
                assertThat(answer).as(d.name()).isEqualTo("4 " + sha("ping".getBytes(StandardCharsets.US_ASCII)) + "\n");
                assertThat(tcplog(d, raw.getLocalPort()).flags()).as(d.name()).isEqualTo("--");
            }
        }
    }

    /**
     * A client's close_notify is its half-close: it reaches the server as a FIN in both. HAProxy (OpenSSL) still sends
     * the answer under TLS; Sluice's BoringSSL answers the close_notify at once and encrypts nothing after it, so the
     * answer cannot be sent and the stream ends CD (the tagged departure).
     */
    @Test
    void aClientsCloseNotifyIsItsHalfClose() throws Exception {
        String expected = "4 " + sha("ping".getBytes(StandardCharsets.US_ASCII)) + "\n";
        for (Daemon d : both()) {
            try (Socket raw = raw(d, "sink"); SSLSocket s = tls(raw, "front.test")) {
                s.getOutputStream().write("ping".getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                // TLS 1.3: close_notify, then the FIN, the input left open
                s.shutdownOutput();
                String answer = new String(readAll(s.getInputStream()), StandardCharsets.US_ASCII);
                TcpLogTest.Line line = tcplog(d, raw.getLocalPort());
                if (d.isHaproxy()) {
                    assertThat(answer).isEqualTo(expected);
                    assertThat(line.flags()).isEqualTo("--");
                    assertThat(line.bytes()).isEqualTo(Integer.toString(expected.length()));
                } else {
                    assertThat(answer).as("departure: BoringSSL writes nothing after a client's close_notify").isEmpty();
                    assertThat(line.flags()).isEqualTo("CD");
                    // read from the server, not delivered
                    assertThat(line.bytes()).isEqualTo(Integer.toString(expected.length()));
                }
            }
        }
    }

    @Test
    void reencryptionToATlsServer() throws Exception {
        byte[] data = new byte[256 << 10];
        TcpOrigin.fill(data, 7, data.length);
        Map<Daemon, TcpLogTest.Line> lines = new LinkedHashMap<>();
        for (Daemon d : both()) {
            int before = tlsEcho.serverNames().size();
            try (Socket raw = raw(d, "reenc"); SSLSocket s = tls(raw, "front.test")) {
                Thread writer = new Thread(() -> {
                    try {
                        s.getOutputStream().write(data);
                        s.getOutputStream().flush();
                        raw.shutdownOutput();
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                });
                writer.start();
                byte[] back = readAll(s.getInputStream());
                writer.join(20_000);
                assertThat(sha(back)).as(d.name()).isEqualTo(sha(data));
                lines.put(d, tcplog(d, raw.getLocalPort()));
            }
            assertThat(tlsEcho.serverNames().subList(before, tlsEcho.serverNames().size())).as(d.name()).containsExactly("back.test");
        }
        TcpLogTest.Line h = lines.get(haproxy);
        TcpLogTest.Line s = lines.get(sluice);
        assertThat(s.ft()).isEqualTo(h.ft()).isEqualTo("reenc~");
        assertThat(s.flags()).isEqualTo(h.flags()).isEqualTo("--");
        assertThat(s.bytes()).isEqualTo(h.bytes()).isEqualTo(Integer.toString(data.length));
        assertThat(s.tc()).isNotNegative();
    }

    @Test
    void theSslFetchesOfATcpFrontendInItsLogFormat() throws Exception {
        Map<String, Map<Daemon, String>> lines = new LinkedHashMap<>();
        for (Daemon d : both()) {
            for (String l : List.of("fmt", "fmt_alpn")) {
                try (Socket raw = raw(d, l); SSLSocket s = tls(raw, "front.test", "bar", "h2")) {
                    s.getOutputStream().write("hello".getBytes(StandardCharsets.US_ASCII));
                    s.getOutputStream().flush();
                    raw.shutdownOutput();
                    assertThat(readAll(s.getInputStream())).as(d.name()).hasSize(5);
                }
                String mark = l + "~ ";
                List<String> found = d.awaitLines(x -> x.startsWith(mark), 1);
                assertThat(found).as(d.output()).hasSize(1);
                lines.computeIfAbsent(l, k -> new LinkedHashMap<>()).put(d, found.get(0));
            }
        }
        // ssl_fc holds in the connection rules of an ssl bind (the connection was not rejected); no 'alpn' on the bind of
        // a TCP frontend: nothing negotiated; with one, the client's choice among it
        assertThat(lines.get("fmt").get(haproxy)).isEqualTo("fmt~ fmt/s1 -- fc=1 sni=front.test has_sni=1 TLSv1.3 alpn=- proto=TLSv1.3 5 5");
        assertThat(lines.get("fmt_alpn").get(haproxy))
                .isEqualTo("fmt_alpn~ fmt_alpn/s1 -- fc=1 sni=front.test has_sni=1 TLSv1.3 alpn=bar proto=TLSv1.3 5 5");
        for (String l : lines.keySet()) {
            assertThat(lines.get(l).get(sluice)).isEqualTo(lines.get(l).get(haproxy));
        }
    }

    @Test
    void aFailedClientHandshakeIsLoggedAsHaproxyDoes() throws Exception {
        Map<Daemon, List<String>> lines = new LinkedHashMap<>();
        for (Daemon d : both()) {
            int plain;
            try (Socket raw = raw(d, "term")) {
                raw.getOutputStream().write("GET / HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                raw.shutdownOutput();
                readAll(raw.getInputStream());
                plain = raw.getLocalPort();
            }
            int gone;
            try (Socket raw = raw(d, "term")) {
                gone = raw.getLocalPort();
            }
            String a = TcpRelayTest.line(d, plain);
            String b = TcpRelayTest.line(d, gone);
            lines.put(d, List.of(a.replaceAll("^\\S+ \\[[^]]+\\] ", ""), b.replaceAll("^\\S+ \\[[^]]+\\] ", "")));
        }
        assertThat(lines.get(haproxy)).containsExactly("term/1: SSL handshake failure", "term/1: Connection closed during SSL handshake");
        assertThat(lines.get(sluice)).isEqualTo(lines.get(haproxy));
    }

    @Test
    void aServerWhoseCertificateDoesNotVerifyIsAConnectionFailure() throws Exception {
        Map<Daemon, TcpLogTest.Line> lines = new LinkedHashMap<>();
        Map<Daemon, String> stats = new LinkedHashMap<>();
        for (Daemon d : both()) {
            try (Socket raw = raw(d, "badca")) {
                raw.getOutputStream().write("x".getBytes(StandardCharsets.US_ASCII));
                assertThat(readAll(raw.getInputStream())).isEmpty();
                lines.put(d, tcplog(d, raw.getLocalPort()));
            }
            stats.put(d, serverCounters(d, "badca"));
        }
        TcpLogTest.Line h = lines.get(haproxy);
        TcpLogTest.Line s = lines.get(sluice);
        assertThat(h.flags()).isEqualTo("SC");
        assertThat(s.flags()).isEqualTo(h.flags());
        assertThat(s.tc()).isEqualTo(h.tc()).isEqualTo(-1);
        assertThat(s.counts()).isEqualTo(h.counts());
        // a refused attempt waits MIN(1s, timeout connect) before the retry, in both
        assertThat(h.total()).isBetween(900L, 1500L);
        assertThat(s.total()).isBetween(900L, 1500L);
        assertThat(stats.get(haproxy)).isEqualTo("stot=2 econ=1 wretr=1");
        assertThat(stats.get(sluice)).isEqualTo(stats.get(haproxy));
    }

    /** {@code stot}, {@code econ} and {@code wretr} of server s1 of {@code proxy} in {@code show stat}. */
    static String serverCounters(Daemon d, String proxy) {
        String out = AdminClient.run(d.dir().resolve("admin.sock"), "show stat\n");
        List<String> rows = out.lines().toList();
        List<String> header = Arrays.asList(rows.get(0).substring(2).split(","));
        for (String r : rows) {
            String[] f = r.split(",", -1);
            if (f.length > 1 && f[0].equals(proxy) && f[1].equals("s1")) {
                return "stot=" + f[header.indexOf("stot")] + " econ=" + f[header.indexOf("econ")] + " wretr=" + f[header.indexOf("wretr")];
            }
        }
        throw new AssertionError("no row " + proxy + "/s1 in\n" + out);
    }

    @Test
    void theProxyV2HeaderIsHaproxysAndGoesBeforeTls() throws Exception {
        Map<Daemon, byte[]> plain = new LinkedHashMap<>();
        Map<Daemon, byte[]> overTls = new LinkedHashMap<>();
        for (Daemon d : both()) {
            recorded.clear();
            try (Socket raw = raw(d, "pp2")) {
                raw.getOutputStream().write("abc".getBytes(StandardCharsets.US_ASCII));
                raw.shutdownOutput();
                readAll(raw.getInputStream());
                byte[] b = recorded.poll(10, TimeUnit.SECONDS);
                assertThat(b).as(d.name()).isNotNull();
                plain.put(d, masked(b, raw.getLocalPort(), port(d, "pp2")));
            }
            recorded.clear();
            try (Socket raw = raw(d, "pp2ssl")) {
                raw.getOutputStream().write("abc".getBytes(StandardCharsets.US_ASCII));
                byte[] b = recorded.poll(10, TimeUnit.SECONDS);
                assertThat(b).as(d.name()).isNotNull().hasSizeGreaterThan(29);
                // the header, then the ClientHello's record (its random differs: the header and the record type are compared)
                overTls.put(d, masked(Arrays.copyOf(b, 29), raw.getLocalPort(), port(d, "pp2ssl")));
            }
        }
        byte[] h = plain.get(haproxy);
        assertThat(Arrays.copyOf(h, 12)).isEqualTo(new byte[] {0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a});
        assertThat(new String(h, 28, h.length - 28, StandardCharsets.US_ASCII)).isEqualTo("abc");
        assertThat(plain.get(sluice)).isEqualTo(h);
        assertThat(overTls.get(haproxy)[28]).as("a TLS handshake record").isEqualTo((byte) 0x16);
        assertThat(overTls.get(sluice)).isEqualTo(overTls.get(haproxy));
        assertThat(Arrays.copyOf(overTls.get(sluice), 28)).isEqualTo(Arrays.copyOf(h, 28));
    }

    /**
     * {@code b} with the ports of the v2 header (bytes 24-27, IPv4) checked, the client's ({@code source}) and the
     * listener's ({@code destination}, each daemon has its own), then zeroed.
     */
    static byte[] masked(byte[] b, int source, int destination) {
        assertThat(((b[24] & 0xff) << 8) | (b[25] & 0xff)).as("the header's source port").isEqualTo(source);
        assertThat(((b[26] & 0xff) << 8) | (b[27] & 0xff)).as("the header's destination port").isEqualTo(destination);
        byte[] c = b.clone();
        Arrays.fill(c, 24, 28, (byte) 0);
        return c;
    }

    @Test
    void aProxyHeaderGoesBeforeTlsOnATcpBindAndExpectProxyAsksForOne() throws Exception {
        Map<Daemon, String> lines = new LinkedHashMap<>();
        Map<Daemon, String> expected = new LinkedHashMap<>();
        for (Daemon d : both()) {
            try (Socket raw = raw(d, "exp")) {
                raw.getOutputStream().write((PROXY_V1.replace("1111", "3333") + "hi").getBytes(StandardCharsets.US_ASCII));
                raw.shutdownOutput();
                assertThat(new String(readAll(raw.getInputStream()), StandardCharsets.US_ASCII)).isEqualTo("hi");
            }
            List<String> l = d.awaitLines(x -> x.startsWith("10.1.2.3:3333 "), 1);
            assertThat(l).as(d.output()).hasSize(1);
            expected.put(d, l.get(0));
        }
        assertThat(expected.get(haproxy)).isEqualTo("10.1.2.3:3333 10.4.5.6:2222 exp pp=1 fc=0 -- 2");
        assertThat(expected.get(sluice)).isEqualTo(expected.get(haproxy));
        for (Daemon d : both()) {
            try (Socket raw = raw(d, "acc")) {
                raw.getOutputStream().write(PROXY_V1.getBytes(StandardCharsets.US_ASCII));
                try (SSLSocket s = tls(raw, "front.test")) {
                    s.getOutputStream().write("hi".getBytes(StandardCharsets.US_ASCII));
                    s.getOutputStream().flush();
                    raw.shutdownOutput();
                    assertThat(new String(readAll(s.getInputStream()), StandardCharsets.US_ASCII)).isEqualTo("hi");
                }
            }
            List<String> l = d.awaitLines(x -> x.startsWith("10.1.2.3:1111 "), 1);
            assertThat(l).as(d.output()).hasSize(1);
            lines.put(d, l.get(0));
        }
        assertThat(lines.get(haproxy)).isEqualTo("10.1.2.3:1111 10.4.5.6:2222 acc~ pp=1 sni=front.test -- 2");
        assertThat(lines.get(sluice)).isEqualTo(lines.get(haproxy));
    }

    @Test
    void theAcmeshAlpnProxyprotoChain() throws Exception {
        Program.CURL.require();
        Pattern httplog = Pattern.compile("^127\\.0\\.0\\.1:(\\d+) \\[[^]]+\\] fe_https~ bk_web/web \\S+ 200 .*");
        for (Daemon d : both()) {
            int before = web.requests().size();
            String out = CurlTest.curl("-i", "--http1.1", "--cacert", pki.caFile().toString(), "--resolve", "front.test:" + port(d, "fe_alpn") + ":127.0.0.1",
                    "-w", "\nlocal_port=%{local_port}", "https://front.test:" + port(d, "fe_alpn") + "/through");
            assertThat(out).as(d.name()).startsWith("HTTP/1.1 200").contains("origin web")
                    .containsIgnoringCase("strict-transport-security: max-age=31536000;includeSubDomains;preload");
            int clientPort = Integer.parseInt(out.substring(out.lastIndexOf("local_port=") + 11).strip());
            Origin.Request r = web.requests().get(before);
            assertThat(r.target()).isEqualTo("/through");
            assertThat(r.header("x-forwarded-proto")).isEqualTo("https");
            // the PROXY header carried curl's address to the HTTP frontend
            assertThat(r.header("x-forwarded-for")).isEqualTo("127.0.0.1");
            // the inner line names the same client (the PROXY header's): the outer one is the TCP frontend's
            List<String> outers = d.awaitLines(x -> x.startsWith("127.0.0.1:" + clientPort + " [") && x.contains(" fe_alpn "), 1);
            assertThat(outers).as(d.output()).hasSize(1);
            TcpLogTest.Line outer = TcpLogTest.parse(outers.get(0));
            assertThat(outer.ft()).as(d.name()).isEqualTo("fe_alpn");
            assertThat(outer.be() + "/" + outer.srv()).isEqualTo("bk_https/https");
            // curl sends its close_notify and closes: whether the TLS frontend's close_notify reached it first decides,
            // in both, between a clean end and a client that went (its reset)
            assertThat(outer.flags()).as(d.name()).isIn("--", "CD");
            List<String> inner = d.awaitLines(x -> httplog.matcher(x).matches(), 1);
            assertThat(inner).as(d.output()).isNotEmpty();
            Matcher m = httplog.matcher(inner.get(inner.size() - 1));
            assertThat(m.matches()).isTrue();
            assertThat(Integer.parseInt(m.group(1))).as("the inner line's client, from the PROXY header").isEqualTo(clientPort);
        }
    }
}
