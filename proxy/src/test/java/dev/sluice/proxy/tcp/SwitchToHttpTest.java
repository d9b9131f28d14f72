package dev.sluice.proxy.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.h1.H1ClientConnection;
import dev.sluice.proxy.runtime.EmbeddedProxy;
import dev.sluice.proxy.runtime.LogCatcher;
import dev.sluice.proxy.stats.Counter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A {@code mode tcp} frontend's connections becoming HTTP on embedded channels: HAProxy's implicit upgrade when the
 * frontend chooses an HTTP backend (the choice made before any request holds for the first request, later requests are
 * routed by the switching rules on their own, as HAProxy 2.6 was seen doing), and {@code tcp-request content switch-mode
 * http} after inspection, the frontend's HTTP rules then applying, on the multiplexer {@code proto} forces (HTTP/2 only,
 * HTTP/1 without the upgrade on HTTP/2's preface). The connection is counted once, as a session.
 */
class SwitchToHttpTest {
    private static final String OK = "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok";
    private final LogCatcher log = new LogCatcher();
    private EmbeddedProxy proxy;

    @AfterEach
    void tearDown() {
        if (proxy != null) {
            proxy.close();
        }
        log.close();
    }

    private EmbeddedProxy proxy(String rest) {
        proxy = EmbeddedProxy.of("""
                defaults
                    %s
                    timeout connect 1s
                    timeout client 5s
                    timeout server 5s
                """.formatted(log.logLine()) + rest, "f");
        return proxy;
    }

    @Test
    void anHttpBackendUpgradesTheConnectionAndItsFirstRequestKeepsTheBackendChosenBefore() {
        EmbeddedProxy p = proxy("""
                frontend f
                    mode tcp
                    bind 127.0.0.1:8080
                    use_backend st if { path_beg /static }
                    default_backend web
                backend web
                    mode http
                    server w 127.0.0.1:9001
                backend st
                    mode http
                    server s 127.0.0.1:9002
                """);
        EmbeddedProxy.Duplex client = p.tcpClient();
        p.run();
        assertThat(client.pipeline().get(H1ClientConnection.class)).isNotNull();
        client.receive("GET /static/a HTTP/1.1\r\nHost: a\r\n\r\n");
        p.run();
        EmbeddedProxy.Channel web = p.server(0);
        assertThat(web.readText()).startsWith("GET /static/a HTTP/1.1\r\n");
        web.receive(OK);
        p.run();
        assertThat(client.readText()).isEqualTo(OK);
        assertThat(p.backend("web").counters().get(Counter.REQUESTS)).isEqualTo(1);
        // the next request is routed on its own
        client.receive("GET /static/b HTTP/1.1\r\nHost: a\r\n\r\n");
        p.run();
        assertThat(p.backend("st").counters().get(Counter.REQUESTS)).isEqualTo(1);
        assertThat(p.frontend().counters().get(Counter.SESSIONS)).isEqualTo(1);
        assertThat(p.frontend().counters().get(Counter.CONNECTIONS)).isEqualTo(1);
        assertThat(p.frontend().counters().get(Counter.REQUESTS)).isEqualTo(2);
    }

    @Test
    void switchModeHttpHandsTheInspectedBytesToHttpWithTheFrontendsRules() {
        EmbeddedProxy p = proxy("""
                frontend f
                    mode tcp
                    bind 127.0.0.1:8080
                    tcp-request inspect-delay 2s
                    tcp-request content switch-mode http if { req.len gt 0 }
                    http-request set-header X-Switched yes
                    default_backend web
                backend web
                    mode http
                    server w 127.0.0.1:9001
                """);
        EmbeddedProxy.Duplex client = p.tcpClient();
        client.receive("GET /x HTTP/1.1\r\n");
        p.run();
        client.receive("Host: a\r\n\r\n");
        p.run();
        EmbeddedProxy.Channel web = p.server(0);
        assertThat(web.readText()).startsWith("GET /x HTTP/1.1\r\n").contains("x-switched: yes\r\n");
        web.receive(OK);
        p.run();
        assertThat(client.readText()).isEqualTo(OK);
        assertThat(p.frontend().counters().get(Counter.SESSIONS)).isEqualTo(1);
    }

    private EmbeddedProxy forced(String proto) {
        return proxy("""
                frontend f
                    mode tcp
                    option tcplog
                    bind 127.0.0.1:8080
                    tcp-request inspect-delay 2s
                    tcp-request content switch-mode http proto %s if { req.len gt 0 }
                    default_backend web
                backend web
                    mode http
                    server w 127.0.0.1:9001
                """.formatted(proto));
    }

    @Test
    void http2ForcedOnBytesThatAreNotItsPrefaceClosesWithoutAWord() {
        EmbeddedProxy p = forced("h2");
        EmbeddedProxy.Duplex client = p.tcpClient();
        client.receive("GET /x HTTP/1.1\r\nHost: a\r\n\r\n");
        p.run();
        assertThat(client.isOpen()).isFalse();
        // HAProxy's HTTP/2 multiplexer sends its settings only after the client's preface: nothing at all here
        assertThat(client.readText()).isEmpty();
        assertThat(p.servers()).isEmpty();
        // and the stream's line says PR, as HAProxy's ("ft ft/<NOSRV> -1/-1/0 0 PR"), nothing counted as denied
        String[] line = log.next().split(" ");
        assertThat(line[3]).isEqualTo("f/<NOSRV>");
        assertThat(line[6]).isEqualTo("PR");
        assertThat(p.frontend().counters().get(Counter.DENIED_REQUESTS)).isZero();
    }

    @Test
    void http2ForcedSpeaksHttp2() {
        EmbeddedProxy p = forced("h2");
        EmbeddedProxy.Duplex client = p.tcpClient();
        client.receive("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
        p.run();
        assertThat(client.isOpen()).isTrue();
        // the server's preface: a SETTINGS frame (type 4 on stream 0)
        io.netty.buffer.ByteBuf out = client.readOutbound();
        try {
            assertThat(out.getByte(3)).isEqualTo((byte) 4);
        } finally {
            out.release();
        }
        client.discard();
    }

    @Test
    void http1ForcedTakesHttp2sPrefaceForABadRequest() {
        EmbeddedProxy p = forced("h1");
        EmbeddedProxy.Duplex client = p.tcpClient();
        client.receive("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
        p.run();
        assertThat(client.readText()).startsWith("HTTP/1.1 400 ");
        assertThat(p.servers()).isEmpty();
    }
}
