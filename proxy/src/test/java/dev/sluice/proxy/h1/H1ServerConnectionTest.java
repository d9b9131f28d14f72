package dev.sluice.proxy.h1;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.runtime.EmbeddedProxy;
import dev.sluice.proxy.runtime.LogCatcher;
import java.io.IOException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link H1ServerConnection} on an embedded channel, between a real HTTP/1 client connection and a scripted server
 * ({@link EmbeddedProxy}): how a response is parsed and re-framed, when the connection is kept for the next request,
 * and what the client and the access log (status, termination flags, bytes) see when the server fails, closes or
 * stays silent. Pins today's behaviour ahead of the stream refactor.
 */
class H1ServerConnectionTest {
    private final LogCatcher log = new LogCatcher();
    private final EmbeddedProxy proxy = EmbeddedProxy.of("""
            defaults
                mode http
                timeout connect 1s
                timeout client 5s
                timeout server 3s
            frontend fe
                bind 127.0.0.1:8080
                %s
                log-format "%%ST %%tsc %%B %%s"
                default_backend be
            backend be
                server s1 127.0.0.1:9001
            """.formatted(log.logLine()));
    private final EmbeddedProxy.Channel client = proxy.h1Client();

    @AfterEach
    void close() {
        proxy.close();
        log.close();
    }

    /** Sends a GET and returns the server connection that got it (its request read). */
    private EmbeddedProxy.Channel get(String path) {
        int before = proxy.servers().size();
        client.receive("GET " + path + " HTTP/1.1\r\nhost: a\r\n\r\n");
        EmbeddedProxy.Channel s = proxy.servers().size() > before ? proxy.servers().get(before) : proxy.server(before - 1);
        assertThat(s.readText()).startsWith("GET " + path + " HTTP/1.1\r\n");
        return s;
    }

    @Test
    void aContentLengthResponseInPiecesIsForwardedAsItCameAndLogged() {
        EmbeddedProxy.Channel server = get("/");
        server.receive("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n");
        assertThat(client.readText()).isEmpty();
        server.receive("\r\nhello");
        assertThat(client.readText()).isEqualTo("HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 10\r\n\r\nhello");
        server.receive("world");
        assertThat(client.readText()).isEqualTo("world");
        assertThat(log.next()).isEqualTo("200 ---- 82 s1");
    }

    @Test
    void aChunkedResponseIsChunkedAgainForAnHttp11Client() {
        EmbeddedProxy.Channel server = get("/");
        server.receive("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel");
        server.receive("lo\r\n3;ext=1\r\nabc\r\n0\r\nx-t: 1\r\n\r\n");
        assertThat(client.readText()).isEqualTo("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nhel\r\n2\r\nlo\r\n3\r\nabc\r\n0\r\nx-t: 1\r\n\r\n");
        // %B is HAProxy's HTX size: the head (20 + 8 + 3 + 2 + 24 + 1), the payload (8, not the chunk framing), the
        // trailer (4) and the end-of-trailers block (1)
        assertThat(log.next()).isEqualTo("200 ---- 71 s1");
        assertThat(server.isOpen()).isTrue();
    }

    @Test
    void aKeptServerConnectionCarriesTheNextRequest() {
        EmbeddedProxy.Channel server = get("/1");
        server.receive("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n");
        assertThat(server.isOpen()).isTrue();
        assertThat(get("/2")).isSameAs(server);
        assertThat(proxy.servers()).hasSize(1);
    }

    @Test
    void aServerAskingToCloseIsNotReused() {
        EmbeddedProxy.Channel server = get("/1");
        server.receive("HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
        proxy.run();
        assertThat(server.isOpen()).isFalse();
        // the client connection stays: only the server side closed
        assertThat(client.readText()).isEqualTo("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n");
        assertThat(client.isOpen()).isTrue();
        EmbeddedProxy.Channel second = get("/2");
        assertThat(second).isNotSameAs(server);
        assertThat(proxy.servers()).hasSize(2);
    }

    @Test
    void anHttp10ResponseWithoutKeepAliveIsNotReused() {
        EmbeddedProxy.Channel server = get("/1");
        server.receive("HTTP/1.0 200 OK\r\ncontent-length: 2\r\n\r\nhi");
        proxy.run();
        assertThat(server.isOpen()).isFalse();
        // the client gets the server's HTTP/1.0, with keep-alive said (an HTTP/1.0 response closes by default), and keeps
        // its connection, as HAProxy's h1_update_res_conn_value: only the server side closed
        assertThat(client.readText()).isEqualTo("HTTP/1.0 200 OK\r\ncontent-length: 2\r\nconnection: keep-alive\r\n\r\nhi");
        assertThat(client.isOpen()).isTrue();
    }

    @Test
    void aResponseDelimitedByTheCloseEndsWhenTheServerClosesAndClosesTheClientToo() {
        EmbeddedProxy.Channel server = get("/");
        server.receive("HTTP/1.1 200 OK\r\n\r\nsome");
        assertThat(client.readText()).isEqualTo("HTTP/1.1 200 OK\r\nconnection: close\r\n\r\nsome");
        server.receive(" more");
        server.close();
        proxy.run();
        assertThat(client.readText()).isEqualTo(" more");
        assertThat(client.isOpen()).isFalse();
        assertThat(log.next()).isEqualTo("200 ---- 43 s1");
    }

    @Test
    void anInterimResponseIsForwardedBeforeTheFinalOne() {
        client.receive("POST / HTTP/1.1\r\nhost: a\r\ncontent-length: 2\r\nexpect: 100-continue\r\n\r\n");
        EmbeddedProxy.Channel server = proxy.server(0);
        // the framing field stays where it came, as HAProxy keeps it
        assertThat(server.readText()).isEqualTo("POST / HTTP/1.1\r\nhost: a\r\ncontent-length: 2\r\nexpect: 100-continue\r\n\r\n");
        server.receive("HTTP/1.1 100 Continue\r\n\r\n");
        assertThat(client.readText()).isEqualTo("HTTP/1.1 100 Continue\r\n\r\n");
        client.receive("ok");
        assertThat(server.readText()).isEqualTo("ok");
        server.receive("HTTP/1.1 201 Created\r\ncontent-length: 0\r\n\r\n");
        assertThat(client.readText()).isEqualTo("HTTP/1.1 201 Created\r\ncontent-length: 0\r\n\r\n");
        // %B counts the interim response too, as HAProxy 2.6 does (40 + 54, in HTX sizes)
        assertThat(log.next()).isEqualTo("201 ---- 94 s1");
    }

    @Test
    void aServerDyingMidBodyCutsTheClientShortAndLogsSD() {
        EmbeddedProxy.Channel server = get("/");
        server.receive("HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nhel");
        server.close();
        proxy.run();
        // what was forwarded stays forwarded; the client connection closes without the rest
        assertThat(client.readText()).isEqualTo("HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nhel");
        assertThat(client.isOpen()).isFalse();
        assertThat(log.next()).isEqualTo("200 SD-- 53 s1");
    }

    @Test
    void anErrorOnTheServerConnectionMidBodyIsLikeAClose() {
        EmbeddedProxy.Channel server = get("/");
        server.receive("HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nhel");
        server.pipeline().fireExceptionCaught(new IOException("Connection reset by peer"));
        proxy.run();
        assertThat(server.isOpen()).isFalse();
        assertThat(client.readText()).isEqualTo("HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nhel");
        assertThat(client.isOpen()).isFalse();
        assertThat(log.next()).isEqualTo("200 SD-- 53 s1");
    }

    @Test
    void aServerClosingBeforeAnyByteGives502AndLogsSH() {
        EmbeddedProxy.Channel server = get("/");
        server.close();
        proxy.run();
        assertThat(client.readText()).isEqualTo("HTTP/1.1 502 Bad Gateway\r\ncontent-length: 107\r\ncache-control: no-cache\r\n"
                + "content-type: text/html\r\n\r\n<html><body><h1>502 Bad Gateway</h1>\n"
                + "The server returned an invalid or incomplete response.\n</body></html>\n");
        assertThat(client.isOpen()).isTrue();
        assertThat(log.next()).isEqualTo("502 SH-- 209 s1");
    }

    @Test
    void anInvalidResponseHeadGives502AndLogsPH() {
        EmbeddedProxy.Channel server = get("/");
        server.receive("HTTP/1.1 200 OK\r\nbad header\r\n\r\n");
        proxy.run();
        assertThat(client.readText()).startsWith("HTTP/1.1 502 Bad Gateway\r\n");
        assertThat(server.isOpen()).isFalse();
        assertThat(log.next()).isEqualTo("502 PH-- 209 s1");
    }

    @Test
    void aSilentServerGets504AfterTimeoutServerAndLogsSH() {
        EmbeddedProxy.Channel server = get("/");
        proxy.advance(2999);
        assertThat(client.readText()).isEmpty();
        proxy.advance(1);
        assertThat(client.readText()).isEqualTo("HTTP/1.1 504 Gateway Time-out\r\ncontent-length: 92\r\ncache-control: no-cache\r\n"
                + "content-type: text/html\r\n\r\n<html><body><h1>504 Gateway Time-out</h1>\nThe server didn't respond in time.\n</body></html>\n");
        assertThat(server.isOpen()).isFalse();
        assertThat(log.next()).isEqualTo("504 sH-- 198 s1");
    }

    @Test
    void aServerStallingMidBodyIsCutAfterTimeoutServerAndLogsSD() {
        EmbeddedProxy.Channel server = get("/");
        server.receive("HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nhel");
        assertThat(client.readText()).isEqualTo("HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nhel");
        proxy.advance(3000);
        assertThat(server.isOpen()).isFalse();
        assertThat(client.isOpen()).isFalse();
        assertThat(log.next()).isEqualTo("200 sD-- 53 s1");
    }
}
