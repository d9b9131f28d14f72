package dev.sluice.proxy.h1;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.runtime.EmbeddedProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The hop-by-hop fields between an HTTP/1 client and an HTTP/1 server on embedded channels ({@link EmbeddedProxy}):
 * each expected text is what haproxy 2.6.12 -db wrote for the same bytes and options. The fields stay, Connection
 * without its close and keep-alive tokens, TE as "trailers"; the proxy's own Connection line (close under httpclose
 * or http-server-close, keep-alive toward HTTP/1.0) comes after the fields, none when Connection has an upgrade token.
 */
class H1HopByHopTest {
    private static final String REQUEST = "GET /x HTTP/1.1\r\nHost: t\r\nConnection: keep-alive, X-Foo, TE\r\nX-Foo: 1\r\n"
            + "TE: gzip, trailers\r\nKeep-Alive: 300\r\nProxy-Connection: keep-alive\r\nUpgrade: h2c\r\n"
            + "HTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n\r\n";
    private static final String FORWARDED = "GET /x HTTP/1.1\r\nhost: t\r\nconnection: X-Foo,TE\r\nx-foo: 1\r\nte: trailers\r\n"
            + "keep-alive: 300\r\nproxy-connection: keep-alive\r\nupgrade: h2c\r\nhttp2-settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n";
    private static final String RESPONSE = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive, X-Resp\r\nX-Resp: 1\r\n"
            + "Keep-Alive: timeout=5\r\nProxy-Connection: keep-alive\r\n\r\nok";
    private static final String RELAYED = "HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: X-Resp\r\nx-resp: 1\r\n"
            + "keep-alive: timeout=5\r\nproxy-connection: keep-alive\r\n";

    private EmbeddedProxy proxy;
    private EmbeddedProxy.Channel client;

    private void start(String defaults, String frontend) {
        proxy = EmbeddedProxy.of("""
                defaults
                    mode http
                    timeout connect 1s
                    timeout client 5s
                    timeout server 3s
                %s
                frontend fe
                    bind 127.0.0.1:8080
                %s
                    default_backend be
                backend be
                    server s1 127.0.0.1:9001
                """.formatted(defaults, frontend));
        client = proxy.h1Client();
    }

    @AfterEach
    void close() {
        proxy.close();
    }

    /** Sends {@code request}, returns what the server read; the server answers {@code response}. */
    private String exchange(String request, String response) {
        int before = proxy.servers().size();
        client.receive(request);
        EmbeddedProxy.Channel s = proxy.servers().size() > before ? proxy.servers().get(before) : proxy.server(before - 1);
        String got = s.readText();
        s.receive(response);
        proxy.run();
        return got;
    }

    @Test
    void aRequestKeepsItsFieldsConnectionLosesKeepAlive() {
        start("", "");
        assertThat(exchange(REQUEST, RESPONSE)).isEqualTo(FORWARDED + "\r\n");
        assertThat(client.readText()).isEqualTo(RELAYED + "\r\nok");
        assertThat(client.isOpen()).isTrue();
    }

    @Test
    void httpcloseAndHttpServerCloseAddTheirCloseAfterTheFields() {
        start("    option httpclose", "");
        assertThat(exchange(REQUEST, RESPONSE)).isEqualTo(FORWARDED + "connection: close\r\n\r\n");
        assertThat(client.readText()).isEqualTo(RELAYED + "connection: close\r\n\r\nok");
        proxy.close();
        start("    option http-server-close", "");
        assertThat(exchange(REQUEST, RESPONSE)).isEqualTo(FORWARDED + "connection: close\r\n\r\n");
        assertThat(client.readText()).isEqualTo(RELAYED + "\r\nok");
        // several Connection fields: each cleaned where it is, the one left empty gone
        assertThat(exchange("GET /2 HTTP/1.1\r\nHost: t\r\nConnection: X-A\r\nConnection: X-B, keep-alive\r\nConnection: keep-alive\r\n"
                + "X-A: 1\r\n\r\n", RESPONSE))
            .isEqualTo("GET /2 HTTP/1.1\r\nhost: t\r\nconnection: X-A\r\nconnection: X-B\r\nx-a: 1\r\nconnection: close\r\n\r\n");
    }

    @Test
    void anHttp10ClientGetsKeepAliveAfterTheFieldsUnlessItCloses() {
        start("", "");
        String request = "GET /x HTTP/1.0\r\nHost: t\r\nConnection: keep-alive, X-Foo\r\nX-Foo: 1\r\n\r\n";
        assertThat(exchange(request, RESPONSE))
            .isEqualTo("GET /x HTTP/1.0\r\nhost: t\r\nconnection: X-Foo\r\nx-foo: 1\r\nconnection: keep-alive\r\n\r\n");
        assertThat(client.readText()).isEqualTo(RELAYED + "connection: keep-alive\r\n\r\nok");
        proxy.close();
        // under httpclose HTTP/1.0 says close by itself: nothing is added toward the server
        start("    option httpclose", "");
        assertThat(exchange(request, RESPONSE)).isEqualTo("GET /x HTTP/1.0\r\nhost: t\r\nconnection: X-Foo\r\nx-foo: 1\r\n\r\n");
        assertThat(client.readText()).isEqualTo(RELAYED + "connection: close\r\n\r\nok");
    }

    @Test
    void aServersCloseIsItsOwnTheClientKeepsItsConnection() {
        start("", "");
        assertThat(exchange("GET /x HTTP/1.1\r\nHost: t\r\n\r\n",
                "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close, X-Resp\r\nX-Resp: 1\r\n\r\nok"))
            .isEqualTo("GET /x HTTP/1.1\r\nhost: t\r\n\r\n");
        assertThat(client.readText()).isEqualTo("HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: X-Resp\r\nx-resp: 1\r\n\r\nok");
        assertThat(client.isOpen()).isTrue();
        assertThat(proxy.server(0).isOpen()).isFalse();
    }

    @Test
    void anUpgradeTokenMeansNoConnectionLineOfTheProxy() {
        start("    option httpclose", "");
        String ws = "GET /ws HTTP/1.0\r\nHost: t\r\nConnection: keep-alive, Upgrade, X-Foo\r\nUpgrade: websocket\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nX-Foo: 1\r\n\r\n";
        assertThat(exchange(ws, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade, X-Resp\r\nX-Resp: 1\r\n"
                + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\nframes"))
            .isEqualTo("GET /ws HTTP/1.0\r\nhost: t\r\nconnection: Upgrade,X-Foo\r\nupgrade: websocket\r\n"
                + "sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nx-foo: 1\r\n\r\n");
        assertThat(client.readText()).isEqualTo("HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade, X-Resp\r\n"
                + "x-resp: 1\r\nsec-websocket-accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\nframes");
        // the tunnel carries bytes both ways
        client.receive("up");
        assertThat(proxy.server(0).readText()).isEqualTo("up");
    }

    @Test
    void aResponseOfferingAnUpgradeGetsNoConnectionLineEither() {
        start("", "");
        exchange("GET /x HTTP/1.0\r\nHost: t\r\nConnection: keep-alive\r\n\r\n",
                "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTE: gzip, trailers\r\nConnection: Upgrade\r\nUpgrade: h2,h2c\r\n\r\nok");
        assertThat(client.readText())
            .isEqualTo("HTTP/1.1 200 OK\r\ncontent-length: 2\r\nte: trailers\r\nconnection: Upgrade\r\nupgrade: h2,h2c\r\n\r\nok");
    }

    @Test
    void aRequestWithABodyDoesNotUpgrade() {
        start("    option httpclose", "");
        assertThat(exchange("POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nConnection: keep-alive, Upgrade, X-Foo\r\n"
                + "Upgrade: websocket\r\nX-Foo: 1\r\n\r\nabc", RESPONSE))
            // its Upgrade field is gone, its Connection still names upgrade: no line of the proxy's
            .isEqualTo("POST /x HTTP/1.1\r\nhost: t\r\ncontent-length: 3\r\nconnection: Upgrade,X-Foo\r\nx-foo: 1\r\n\r\nabc");
        assertThat(client.readText()).isEqualTo(RELAYED + "connection: close\r\n\r\nok");
    }

    @Test
    void aRulesCloseTokenClosesLikeAnOption() {
        start("", """
                    http-request set-header Connection "close, X-A"
                    http-response set-header Connection "Close, X-B"
                """);
        assertThat(exchange("GET /x HTTP/1.1\r\nHost: t\r\nX-A: 1\r\n\r\n", RESPONSE))
            .isEqualTo("GET /x HTTP/1.1\r\nhost: t\r\nx-a: 1\r\nconnection: X-A\r\nconnection: close\r\n\r\n");
        assertThat(client.readText()).isEqualTo("HTTP/1.1 200 OK\r\ncontent-length: 2\r\nx-resp: 1\r\nkeep-alive: timeout=5\r\n"
                + "proxy-connection: keep-alive\r\nconnection: X-B\r\nconnection: close\r\n\r\nok");
        assertThat(client.isOpen()).isFalse();
        assertThat(proxy.server(0).isOpen()).isFalse();
    }

    @Test
    void aRulesKeepAliveTokenKeepsTheServerConnectionUnderHttpServerClose() {
        start("    option http-server-close", "    http-request set-header Connection keep-alive");
        assertThat(exchange("GET /1 HTTP/1.1\r\nHost: t\r\n\r\n", RESPONSE)).isEqualTo("GET /1 HTTP/1.1\r\nhost: t\r\n\r\n");
        assertThat(proxy.server(0).isOpen()).isTrue();
        assertThat(exchange("GET /2 HTTP/1.1\r\nHost: t\r\n\r\n", RESPONSE)).isEqualTo("GET /2 HTTP/1.1\r\nhost: t\r\n\r\n");
        assertThat(proxy.servers()).hasSize(1);
    }
}
