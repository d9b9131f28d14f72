package dev.sluice.proxy.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.rules.ClientHellos;
import dev.sluice.proxy.runtime.EmbeddedProxy;
import dev.sluice.proxy.runtime.LogCatcher;
import dev.sluice.proxy.stats.Counter;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Content inspection of {@code mode tcp} streams on embedded channels ({@code tcp-request inspect-delay},
 * {@code tcp-request content} rules of the frontend and of the backend), with the outcomes HAProxy 2.6 was seen giving
 * on the same configurations: a rejected payload ({@code PR}, dreq, the frontend as backend in the log), a condition
 * waiting for more bytes until they come (a payload split over reads), a silent client let through when the delay ends,
 * the client's FIN making the evaluation final, a client timeout during inspection ({@code cR}, the backend chosen on
 * what was sent), the backend's own rules with its own delay, routing by SNI and by ALPN on a real ClientHello sent
 * byte by byte, {@code silent-drop} and variables set by content rules.
 */
class TcpInspectionTest {
    private final LogCatcher log = new LogCatcher();
    private EmbeddedProxy proxy;

    private EmbeddedProxy proxy(String frontend, String rest) {
        proxy = EmbeddedProxy.of("""
                defaults
                    mode tcp
                    %s
                    option tcplog
                    timeout connect 1s
                    timeout client 5s
                    timeout server 5s
                """.formatted(log.logLine()) + rest, frontend);
        return proxy;
    }

    @AfterEach
    void tearDown() {
        if (proxy != null) {
            proxy.close();
        }
        log.close();
    }

    private static long sessions(EmbeddedProxy p, String backend) {
        return p.backend(backend).counters().get(Counter.SESSIONS);
    }

    private static String[] fields(String line) {
        return line.split(" ");
    }

    private static final String RULES = """
            frontend f
                bind 127.0.0.1:8080
                tcp-request inspect-delay 2s
                tcp-request content reject if { req.payload(0,3) -m str BAD }
                tcp-request content silent-drop if { req.payload(0,3) -m str SIL }
                tcp-request content accept if { req.len gt 3 }
                default_backend b
            backend b
                server s1 127.0.0.1:9001
            """;

    @Test
    void aRejectedPayloadIsPrAndCountsADeniedRequest() {
        EmbeddedProxy p = proxy("f", RULES);
        EmbeddedProxy.Duplex client = p.tcpClient();
        client.receive("BADxx");
        p.run();
        assertThat(client.isOpen()).isFalse();
        assertThat(p.servers()).isEmpty();
        // HAProxy names the frontend as the backend of a stream rejected before it had one
        assertThat(log.next()).matches(".* f f/<NOSRV> -1/-1/\\d+ 0 PR 1/1/0/0/0 0/0");
        assertThat(p.frontend().counters().get(Counter.DENIED_REQUESTS)).isEqualTo(1);
        assertThat(p.backend("b").counters().get(Counter.DENIED_REQUESTS)).isZero();
        assertThat(p.backend("b").counters().get(Counter.SESSIONS)).isZero();
    }

    @Test
    void aConditionWaitsForTheBytesItNeedsThenTheyAllGoToTheServer() {
        EmbeddedProxy p = proxy("f", RULES);
        EmbeddedProxy.Duplex client = p.tcpClient();
        client.receive("B");
        p.run();
        client.receive("A");
        p.run();
        // "BA" may still become "BAD": no server yet
        assertThat(p.servers()).isEmpty();
        assertThat(client.isOpen()).isTrue();
        client.receive("Xyz");
        p.run();
        EmbeddedProxy.Duplex server = (EmbeddedProxy.Duplex) p.server(0);
        assertThat(server.readText()).isEqualTo("BAXyz");
        client.receiveFin();
        server.receiveFin();
        p.run();
        String[] f = fields(log.next());
        assertThat(f[3]).isEqualTo("b/s1");
        assertThat(f[6]).isEqualTo("--");
    }

    @Test
    void aSilentClientGoesOnWhenTheDelayEnds() {
        EmbeddedProxy p = proxy("f", RULES);
        EmbeddedProxy.Duplex client = p.tcpClient();
        p.run();
        p.advance(1999);
        assertThat(p.servers()).isEmpty();
        p.advance(2);
        EmbeddedProxy.Duplex server = (EmbeddedProxy.Duplex) p.server(0);
        server.receive("banner");
        p.run();
        assertThat(client.readText()).isEqualTo("banner");
    }

    @Test
    void theClientsFinMakesTheEvaluationFinalAndIsCarriedOnceConnected() {
        EmbeddedProxy p = proxy("f", RULES);
        EmbeddedProxy.Duplex client = p.tcpClient();
        client.receive("he");
        p.run();
        assertThat(p.servers()).isEmpty();
        client.receiveFin();
        p.run();
        EmbeddedProxy.Duplex server = (EmbeddedProxy.Duplex) p.server(0);
        assertThat(server.readText()).isEqualTo("he");
        assertThat(server.outputShut()).isTrue();
    }

    @Test
    void aClientTimeoutDuringInspectionIsCrWithTheBackendChosen() {
        EmbeddedProxy p = proxy("f", RULES.replace("bind 127.0.0.1:8080", "bind 127.0.0.1:8080\n    timeout client 1s"));
        EmbeddedProxy.Duplex client = p.tcpClient();
        p.run();
        p.advance(1001);
        assertThat(client.isOpen()).isFalse();
        assertThat(p.servers()).isEmpty();
        String[] f = fields(log.next());
        assertThat(f[3]).isEqualTo("b/<NOSRV>");
        assertThat(f[4]).matches("-1/-1/\\d+");
        assertThat(f[6]).isEqualTo("cR");
    }

    @Test
    void theBackendsRulesRunWithItsOwnDelay() {
        EmbeddedProxy p = proxy("f", """
                frontend f
                    bind 127.0.0.1:8080
                    default_backend b2
                backend b2
                    tcp-request inspect-delay 1500ms
                    tcp-request content reject if { req.payload(0,3) -m str BAD }
                    tcp-request content accept if { req.len gt 3 }
                    server s1 127.0.0.1:9001
                """);
        EmbeddedProxy.Duplex bad = p.tcpClient();
        bad.receive("BADx");
        p.run();
        assertThat(bad.isOpen()).isFalse();
        assertThat(log.next()).contains(" f b2/<NOSRV> -1/-1/").contains(" PR ");
        assertThat(p.frontend().counters().get(Counter.DENIED_REQUESTS)).isEqualTo(1);

        EmbeddedProxy.Duplex quiet = p.tcpClient();
        p.run();
        p.advance(1499);
        assertThat(p.servers()).isEmpty();
        p.advance(2);
        assertThat(p.servers()).hasSize(1);
        assertThat(quiet.isOpen()).isTrue();
    }

    @Test
    void aClientHelloSentByteByByteIsRoutedBySniAndAlpn() throws Exception {
        String config = """
                frontend f
                    bind 127.0.0.1:8080
                    tcp-request inspect-delay 5s
                    tcp-request content accept if { req.ssl_hello_type 1 }
                    use_backend acme if { req.ssl_alpn acme-tls/1 }
                    use_backend bsni if { req.ssl_sni -i b.example }
                    default_backend other
                backend acme
                    server a 127.0.0.1:9001
                backend bsni
                    server b 127.0.0.1:9002
                backend other
                    server o 127.0.0.1:9003
                """;
        EmbeddedProxy p = proxy("f", config);
        byte[] hello = ClientHellos.hello("TLSv1.3", "B.Example");
        EmbeddedProxy.Duplex client = p.tcpClient();
        for (int i = 0; i < hello.length; i++) {
            client.writeInbound(Unpooled.wrappedBuffer(hello, i, 1));
            p.run();
            if (i < hello.length - 1) {
                assertThat(p.servers()).as("after %d bytes", i + 1).isEmpty();
            }
        }
        EmbeddedProxy.Duplex server = (EmbeddedProxy.Duplex) p.server(0);
        assertThat(sessions(p, "bsni")).isEqualTo(1);
        byte[] got = new byte[hello.length];
        server.readBytes().readBytes(got).release();
        // passed through untouched: the proxy never terminates TLS here
        assertThat(Arrays.equals(got, hello)).isTrue();

        EmbeddedProxy.Duplex acme = p.tcpClient();
        acme.writeInbound(Unpooled.wrappedBuffer(ClientHellos.hello("TLSv1.2", "b.example", "h2", "acme-tls/1")));
        p.run();
        assertThat(p.servers()).hasSize(2);
        assertThat(sessions(p, "acme")).isEqualTo(1);

        // not TLS: the hello type has no value at once, no wait
        EmbeddedProxy.Duplex plain = p.tcpClient();
        plain.receive("GET / HTTP/1.1\r\n");
        p.run();
        assertThat(p.servers()).hasSize(3);
        assertThat(sessions(p, "other")).isEqualTo(1);
    }

    @Test
    void silentDropCountsOnTheFrontendAndEndsAsPr() {
        EmbeddedProxy p = proxy("f", RULES);
        EmbeddedProxy.Duplex client = p.tcpClient();
        client.receive("SILx");
        p.run();
        assertThat(client.isOpen()).isFalse();
        assertThat(log.next()).matches(".* f f/<NOSRV> -1/-1/\\d+ 0 PR 1/1/0/0/0 0/0");
        assertThat(p.frontend().counters().get(Counter.DENIED_REQUESTS)).isEqualTo(1);
    }

    @Test
    void variablesSetByContentRulesChooseTheBackend() {
        EmbeddedProxy p = proxy("f", """
                frontend f
                    bind 127.0.0.1:8080
                    tcp-request inspect-delay 1s
                    tcp-request content set-var(txn.proto) str(redis) if { req.payload(0,1) -m str * }
                    tcp-request content accept if { req.len gt 0 }
                    use_backend redis if { var(txn.proto) -m str redis }
                    default_backend other
                backend redis
                    server r 127.0.0.1:9001
                backend other
                    server o 127.0.0.1:9002
                """);
        EmbeddedProxy.Duplex client = p.tcpClient();
        client.receive("*1\r\n$4\r\nPING\r\n");
        p.run();
        assertThat(p.servers()).hasSize(1);
        assertThat(sessions(p, "redis")).isEqualTo(1);
    }

    private static final String RESPONSE_RULES = """
            listen l
                bind 127.0.0.1:8080
                tcp-response inspect-delay 1s
                tcp-response content reject if { res.payload(0,3) -m str BAD }
                tcp-response content close if { res.payload(0,3) -m str CLO }
                tcp-response content accept if { res.len gt 3 }
                server s1 127.0.0.1:9001
            """;

    @Test
    void theServersBytesWaitForTheResponseRules() {
        EmbeddedProxy p = proxy("l", RESPONSE_RULES);
        EmbeddedProxy.Duplex client = p.tcpClient();
        p.run();
        EmbeddedProxy.Duplex server = (EmbeddedProxy.Duplex) p.server(0);
        server.receive("ab");
        p.run();
        assertThat(client.readText()).isEmpty();
        // the request direction is not held
        client.receive("req");
        p.run();
        assertThat(server.readText()).isEqualTo("req");
        server.receive("cd");
        p.run();
        assertThat(client.readText()).isEqualTo("abcd");
        server.receive("ef");
        p.run();
        assertThat(client.readText()).isEqualTo("ef");
    }

    @Test
    void aRejectedResponseIsPdAndCountsADeniedResponse() {
        EmbeddedProxy p = proxy("l", RESPONSE_RULES);
        EmbeddedProxy.Duplex client = p.tcpClient();
        p.run();
        EmbeddedProxy.Duplex server = (EmbeddedProxy.Duplex) p.server(0);
        server.receive("BAD banner");
        p.run();
        assertThat(client.readText()).isEmpty();
        assertThat(client.isOpen()).isFalse();
        assertThat(server.isOpen()).isFalse();
        String[] f = fields(log.next());
        assertThat(f[3]).isEqualTo("l/s1");
        // %B counts what the server sent, forwarded or not, as HAProxy's
        assertThat(f[5]).isEqualTo("10");
        assertThat(f[6]).isEqualTo("PD");
        assertThat(p.frontend().counters().get(Counter.DENIED_RESPONSES)).isEqualTo(1);
        assertThat(p.backend("l").counters().get(Counter.DENIED_RESPONSES)).isEqualTo(1);
    }

    @Test
    void closeLetsTheBannerThroughThenEndsBothConnections() {
        EmbeddedProxy p = proxy("l", RESPONSE_RULES);
        EmbeddedProxy.Duplex client = p.tcpClient();
        p.run();
        EmbeddedProxy.Duplex server = (EmbeddedProxy.Duplex) p.server(0);
        server.receive("CLO banner");
        p.run();
        assertThat(server.isOpen()).isFalse();
        assertThat(client.readText()).isEqualTo("CLO banner");
        assertThat(client.outputShut()).isTrue();
        assertThat(client.isOpen()).isFalse();
        assertThat(fields(log.next())[6]).isEqualTo("--");
    }

    @Test
    void aServerFinMakesTheResponseEvaluationFinal() {
        EmbeddedProxy p = proxy("l", RESPONSE_RULES);
        EmbeddedProxy.Duplex client = p.tcpClient();
        p.run();
        EmbeddedProxy.Duplex server = (EmbeddedProxy.Duplex) p.server(0);
        server.receive("ok");
        server.receiveFin();
        p.run();
        assertThat(client.readText()).isEqualTo("ok");
        assertThat(client.outputShut()).isTrue();
    }

    @Test
    void setSrcAndSetDstChangeWhatTheRulesAndTheLogSee() {
        EmbeddedProxy p = proxy("f", """
                frontend f
                    bind 127.0.0.1:8080
                    tcp-request session set-src src,ipmask(24)
                    tcp-request content set-src-port int(4242)
                    tcp-request content set-dst str(192.0.2.7)
                    tcp-request content reject if { src 127.0.0.0 } { dst 192.0.2.7 } { src_port 4242 }
                    default_backend b
                backend b
                    server s1 127.0.0.1:9001
                """);
        EmbeddedProxy.Duplex client = p.tcpClient();
        p.run();
        assertThat(client.isOpen()).isFalse();
        // %ci:%cp
        assertThat(log.next()).startsWith("127.0.0.0:4242 [").contains(" PR ");
    }

    @Test
    void httpFetchesReadTheRequestHeadTheHeldBytesStartWith() {
        EmbeddedProxy p = proxy("f", """
                frontend f
                    bind 127.0.0.1:8080
                    tcp-request inspect-delay 2s
                    tcp-request content reject if HTTP { hdr(host) -i evil.example }
                    tcp-request content accept if HTTP
                    use_backend st if { path_beg /static }
                    default_backend other
                backend st
                    server s 127.0.0.1:9001
                backend other
                    server o 127.0.0.1:9002
                """);
        EmbeddedProxy.Duplex client = p.tcpClient();
        client.receive("GET /static/x HTTP/1.1\r\nHost: a\r\n");
        p.run();
        // not a whole head yet: the rules wait
        assertThat(p.servers()).isEmpty();
        client.receive("\r\n");
        p.run();
        assertThat(sessions(p, "st")).isEqualTo(1);
        assertThat(p.server(0).readText()).isEqualTo("GET /static/x HTTP/1.1\r\nHost: a\r\n\r\n");

        EmbeddedProxy.Duplex evil = p.tcpClient();
        evil.receive("GET / HTTP/1.1\r\nHost: EVIL.example\r\n\r\n");
        p.run();
        assertThat(evil.isOpen()).isFalse();
        assertThat(p.frontend().counters().get(Counter.DENIED_REQUESTS)).isEqualTo(1);

        // not HTTP: decided at once, no rule accepts, the default backend
        EmbeddedProxy.Duplex other = p.tcpClient();
        other.receive("\u0001\u0002 binary\r\n\r\n");
        p.run();
        assertThat(sessions(p, "other")).isEqualTo(1);
    }

    @Test
    void contentRulesCaptureIntoTheLogAndSetItsLevel() {
        EmbeddedProxy p = proxy("f", """
                frontend f
                    bind 127.0.0.1:8080
                    log-format "%ci %hr %ts"
                    tcp-request inspect-delay 1s
                    tcp-request content capture req.payload(0,4) len 4
                    tcp-request content accept if { req.len ge 4 }
                    default_backend b
                backend b
                    server s1 127.0.0.1:9001
                """);
        EmbeddedProxy.Duplex client = p.tcpClient();
        client.receive("PING more");
        p.run();
        EmbeddedProxy.Duplex server = (EmbeddedProxy.Duplex) p.server(0);
        client.receiveFin();
        server.receiveFin();
        p.run();
        assertThat(log.next()).endsWith(" {PING} --");
    }
}
