package dev.sluice.proxy.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sluice.proxy.runtime.EmbeddedProxy;
import dev.sluice.proxy.runtime.LogCatcher;
import dev.sluice.proxy.stats.Counter;
import dev.sluice.proxy.tls.TestCertificate;
import io.netty.handler.ssl.OpenSsl;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS ends of {@code mode tcp} streams on embedded channels, with the daemon's pipelines (a {@code bind ... ssl}
 * connection starts as {@code BindPipelines} starts it; a {@code server ... ssl} connection is the layer-4 connector's)
 * and a JDK TLS 1.3 engine playing the far end ({@link TlsPeer}). A client's close_notify is its half-close (a FIN to
 * the server); a server's FIN reaches a TLS client as close_notify then FIN; a bare FIN from a TLS client still gets
 * the answer; the server's close_notify and FIN likewise; what a TLS server says after Sluice's close_notify still reaches
 * the client (Netty reports the session closed at the first read after it, which is not the server's half-close). The
 * ssl fetches and {@code %sslv} in the log line, ALPN offered only as the bind says, the handshake failure's line, a TLS
 * server that does not answer its handshake ({@code sC}). BoringSSL's departure is pinned: it answers a close_notify at
 * once and encrypts nothing after it, so what the server sends afterwards ends the stream {@code CD}.
 */
class TcpTlsTest {
    @TempDir
    static Path dir;
    static Path pem;
    static TestCertificate back;
    private final LogCatcher log = new LogCatcher();
    private EmbeddedProxy proxy;

    @BeforeAll
    static void certificates() {
        pem = TestCertificate.of("front.test").pem(dir, "front.pem");
        back = TestCertificate.of("back.test");
    }

    /** A listen {@code l} with {@code bind} and {@code server} options, its log line in {@code format}. */
    private EmbeddedProxy proxy(String format, String bind, String server) {
        proxy = EmbeddedProxy.of("""
                defaults
                    mode tcp
                    %s
                    %s
                    timeout connect 1s
                    timeout client 5s
                    timeout server 5s
                listen l
                    bind 127.0.0.1:8080 %s
                    retries 0
                    server s1 127.0.0.1:9001 %s
                """.formatted(log.logLine(), format, bind, server), "l");
        return proxy;
    }

    /** A TLS frontend (its certificate for front.test) in front of a clear-text server. */
    private EmbeddedProxy tlsFrontend() {
        return proxy("option tcplog", "ssl crt " + pem, "");
    }

    @AfterEach
    void tearDown() {
        if (proxy != null) {
            proxy.close();
        }
        log.close();
    }

    private static String[] fields(String line) {
        return line.split(" ");
    }

    @Test
    void aClientsCloseNotifyIsItsHalfCloseAndTheServersFinEndsTheStream() throws Exception {
        EmbeddedProxy p = tlsFrontend();
        EmbeddedProxy.Duplex client = p.accept();
        TlsPeer peer = TlsPeer.client(client, "front.test", p::run).handshake();
        EmbeddedProxy.Duplex server = (EmbeddedProxy.Duplex) p.server(0);
        peer.send("hello");
        assertThat(server.readText()).isEqualTo("hello");
        assertThat(server.outputShut()).isFalse();
        peer.closeNotify();
        assertThat(server.outputShut()).as("the close_notify reached the server as a FIN").isTrue();
        assertThat(client.isOpen()).isTrue();
        server.receiveFin();
        p.run();
        assertThat(client.outputShut()).isTrue();
        assertThat(client.isOpen()).isFalse();
        String[] f = fields(log.next());
        assertThat(f[5]).isEqualTo("0");
        assertThat(f[6]).isEqualTo("--");
    }

    @Test
    void aServersFinReachesTheTlsClientAsCloseNotifyThenFin() throws Exception {
        EmbeddedProxy p = tlsFrontend();
        EmbeddedProxy.Duplex client = p.accept();
        TlsPeer peer = TlsPeer.client(client, "front.test", p::run).handshake();
        EmbeddedProxy.Duplex server = (EmbeddedProxy.Duplex) p.server(0);
        server.receive("bye");
        p.run();
        peer.pump();
        assertThat(peer.events()).containsExactly("data:bye");
        server.receiveFin();
        p.run();
        assertThat(client.outputShut()).isTrue();
        assertThat(client.queuedAtFin()).as("the close_notify (a 24-byte record) was written before the FIN").isEqualTo(24);
        peer.pump();
        assertThat(peer.events()).containsExactly("data:bye", "close_notify");
        // the client may still talk (half-closed), then closes its side
        peer.send("more");
        assertThat(server.readText()).isEqualTo("more");
        client.receiveFin();
        p.run();
        assertThat(server.outputShut()).isTrue();
        assertThat(client.isOpen()).isFalse();
        String[] f = fields(log.next());
        assertThat(f[5]).isEqualTo("3");
        assertThat(f[6]).isEqualTo("--");
    }

    @Test
    void aTlsClientHalfClosingWithABareFinGetsTheAnswer() throws Exception {
        EmbeddedProxy p = tlsFrontend();
        EmbeddedProxy.Duplex client = p.accept();
        TlsPeer peer = TlsPeer.client(client, "front.test", p::run).handshake();
        EmbeddedProxy.Duplex server = (EmbeddedProxy.Duplex) p.server(0);
        peer.send("question");
        client.receiveFin();
        p.run();
        assertThat(server.readText()).isEqualTo("question");
        assertThat(server.outputShut()).isTrue();
        server.receive("answer");
        server.receiveFin();
        p.run();
        peer.pump();
        assertThat(peer.events()).containsExactly("data:answer", "close_notify");
        assertThat(client.isOpen()).isFalse();
        assertThat(fields(log.next())[6]).isEqualTo("--");
    }

    /**
     * The departure HAProxy 2.6 does not have (its OpenSSL writes after a client's close_notify): BoringSSL, as Netty
     * drives it, answers the close_notify at once and encrypts nothing more, so the server's later bytes cannot reach
     * the client, which counts as gone.
     */
    @Test
    void whatTheServerSendsAfterTheClientsCloseNotifyEndsTheStreamCd() throws Exception {
        assumeTrue(OpenSsl.isAvailable(), "BoringSSL's behaviour");
        EmbeddedProxy p = tlsFrontend();
        EmbeddedProxy.Duplex client = p.accept();
        TlsPeer peer = TlsPeer.client(client, "front.test", p::run).handshake();
        EmbeddedProxy.Duplex server = (EmbeddedProxy.Duplex) p.server(0);
        peer.send("hello");
        peer.closeNotify();
        assertThat(peer.events()).containsExactly("close_notify");
        assertThat(server.readText()).isEqualTo("hello");
        server.receive("late");
        p.run();
        assertThat(client.isOpen()).isFalse();
        assertThat(server.isOpen()).isFalse();
        String[] f = fields(log.next());
        // %B counts what was read from the server, delivered or not, as HAProxy's
        assertThat(f[5]).isEqualTo("4");
        assertThat(f[6]).isEqualTo("CD");
        assertThat(p.backend("l").counters().get(Counter.CLIENT_ABORTS)).isEqualTo(1);
    }

    @Test
    void theSslFetchesAndTheLogSeeTheHandshake() throws Exception {
        EmbeddedProxy p = proxy("log-format \"%[ssl_fc] %[ssl_fc_sni] %[ssl_fc_has_sni] %[ssl_fc_alpn] %[ssl_fc_protocol] %sslv %[ssl_fc_is_resumed]\"",
                "ssl crt " + pem, "");
        EmbeddedProxy.Duplex client = p.accept();
        // no 'alpn' on a TCP frontend's bind: none offered, whatever the client asks
        TlsPeer peer = TlsPeer.client(client, "front.test", p::run, "h2", "http/1.1").handshake();
        peer.send("x");
        client.receiveFin();
        ((EmbeddedProxy.Duplex) p.server(0)).receiveFin();
        p.run();
        assertThat(log.next()).isEqualTo("1 front.test 1 - TLSv1.3 TLSv1.3 0");
    }

    @Test
    void aTcpFrontendOffersTheAlpnOfItsBind() throws Exception {
        EmbeddedProxy p = proxy("log-format \"%[ssl_fc_alpn]\"", "ssl crt " + pem + " alpn foo,bar", "");
        EmbeddedProxy.Duplex client = p.accept();
        TlsPeer.client(client, null, p::run, "bar", "h2").handshake();
        client.receiveFin();
        ((EmbeddedProxy.Duplex) p.server(0)).receiveFin();
        p.run();
        assertThat(log.next()).isEqualTo("bar");
    }

    @Test
    void aFailedHandshakeIsLoggedAsHaproxyLogsEmbryonicSessions() {
        EmbeddedProxy p = tlsFrontend();
        EmbeddedProxy.Duplex client = p.accept();
        client.receive("GET / HTTP/1.0\r\n\r\n");
        p.run();
        assertThat(client.isOpen()).isFalse();
        assertThat(p.servers()).isEmpty();
        assertThat(log.next()).matches("127\\.0\\.0\\.1:40000 \\[[^]]+\\] l/1: SSL handshake failure");
    }

    @Test
    void aTlsServersCloseNotifyIsItsHalfClose() throws Exception {
        EmbeddedProxy p = proxy("option tcplog", "", "ssl verify none");
        EmbeddedProxy.Duplex client = p.accept();
        p.run();
        EmbeddedProxy.Duplex server = (EmbeddedProxy.Duplex) p.server(0);
        TlsPeer tls = TlsPeer.server(server, back, p::run);
        tls.pump();
        tls.send("bye");
        tls.closeNotify();
        assertThat(client.readText()).isEqualTo("bye");
        assertThat(client.outputShut()).isTrue();
        assertThat(server.isOpen()).isTrue();
        client.receiveFin();
        p.run();
        assertThat(server.isOpen()).isFalse();
        assertThat(fields(log.next())[6]).isEqualTo("--");
    }

    @Test
    void aClientsFinReachesATlsServerAsCloseNotifyThenFinAndTheServerMayStillAnswer() throws Exception {
        EmbeddedProxy p = proxy("option tcplog", "", "ssl verify none");
        EmbeddedProxy.Duplex client = p.accept();
        // all of it before the server connection completed its handshake: held, then sent, then the FIN
        client.receive("hello");
        client.receiveFin();
        p.run();
        EmbeddedProxy.Duplex server = (EmbeddedProxy.Duplex) p.server(0);
        TlsPeer tls = TlsPeer.server(server, back, p::run);
        tls.pump();
        assertThat(tls.events()).containsExactly("data:hello", "close_notify");
        assertThat(server.outputShut()).isTrue();
        // the server answers after Sluice's close_notify (Netty then says the session is closed: not its half-close)
        tls.send("echo");
        assertThat(client.readText()).isEqualTo("echo");
        assertThat(client.outputShut()).isFalse();
        tls.closeNotify();
        assertThat(client.outputShut()).isTrue();
        assertThat(client.isOpen()).isFalse();
        String[] f = fields(log.next());
        assertThat(f[5]).isEqualTo("4");
        assertThat(f[6]).isEqualTo("--");
    }

    @Test
    void aTlsServerSilentThroughTimeoutConnectIsSc() throws Exception {
        EmbeddedProxy p = proxy("option tcplog", "", "ssl verify none");
        EmbeddedProxy.Duplex client = p.accept();
        client.receive("x");
        p.run();
        assertThat(p.servers()).hasSize(1);
        p.advance(1000);
        assertThat(client.isOpen()).isFalse();
        assertThat(fields(log.next())[6]).isEqualTo("sC");
        assertThat(p.backend("l").counters().get(Counter.CONNECT_ERRORS)).isEqualTo(1);
    }
}
