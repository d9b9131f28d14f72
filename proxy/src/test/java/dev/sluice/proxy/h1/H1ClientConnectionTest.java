package dev.sluice.proxy.h1;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.runtime.EmbeddedProxy;
import io.netty.buffer.Unpooled;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link H1ClientConnection} on an embedded channel, with the real stream and server connection behind it
 * ({@link EmbeddedProxy}): what a client sees on the wire for ordinary exchanges, keep-alive and pipelining,
 * back-pressure on a request body, a malformed request, a client that leaves, and the client-side timeouts
 * (on the loop's mock clock). Pins today's behaviour ahead of the stream refactor.
 */
class H1ClientConnectionTest {
    static final String CONFIG = """
            defaults
                mode http
                timeout connect 1s
                timeout client 5s
                timeout server 5s
                timeout http-request 2s
                timeout http-keep-alive 3s
            frontend fe
                bind 127.0.0.1:8080
                default_backend be
            backend be
                server s1 127.0.0.1:9001
            """;

    static final String OK_HI = "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nhi";
    static final String BAD_REQUEST = "HTTP/1.1 400 Bad request\r\nContent-length: 90\r\nCache-Control: no-cache\r\nConnection: close\r\n"
            + "Content-Type: text/html\r\n\r\n<html><body><h1>400 Bad request</h1>\nYour browser sent an invalid request.\n</body></html>\n";
    static final String REQUEST_TIMEOUT = "HTTP/1.1 408 Request Time-out\r\nContent-length: 110\r\nCache-Control: no-cache\r\n"
            + "Connection: close\r\nContent-Type: text/html\r\n\r\n<html><body><h1>408 Request Time-out</h1>\n"
            + "Your browser didn't send a complete request in time.\n</body></html>\n";

    private final EmbeddedProxy proxy = EmbeddedProxy.of(CONFIG);
    private final EmbeddedProxy.Channel client = proxy.h1Client();

    @AfterEach
    void close() {
        proxy.close();
    }

    @Test
    void aGetIsForwardedAndItsResponseComesBackOnAKeptConnection() {
        client.receive("GET /x?y=1 HTTP/1.1\r\nHost: a\r\nUser-Agent: t\r\n\r\n");
        assertThat(proxy.servers()).hasSize(1);
        EmbeddedProxy.Channel server = proxy.server(0);
        assertThat(server.readText()).isEqualTo("GET /x?y=1 HTTP/1.1\r\nhost: a\r\nuser-agent: t\r\n\r\n");
        server.receive(OK_HI);
        assertThat(client.readText()).isEqualTo(OK_HI);
        assertThat(client.isOpen()).isTrue();
        assertThat(server.isOpen()).isTrue();
    }

    @Test
    void keepAliveCarriesTheNextRequestOnTheSameConnections() {
        client.receive("GET /1 HTTP/1.1\r\nhost: a\r\n\r\n");
        EmbeddedProxy.Channel server = proxy.server(0);
        assertThat(server.readText()).startsWith("GET /1 ");
        server.receive(OK_HI);
        assertThat(client.readText()).isEqualTo(OK_HI);

        client.receive("GET /2 HTTP/1.1\r\nhost: a\r\n\r\n");
        // the idle server connection went back to the pool and carries the second request
        assertThat(proxy.servers()).hasSize(1);
        assertThat(server.readText()).isEqualTo("GET /2 HTTP/1.1\r\nhost: a\r\n\r\n");
        server.receive("HTTP/1.1 204 No Content\r\n\r\n");
        assertThat(client.readText()).isEqualTo("HTTP/1.1 204 No Content\r\n\r\n");
        assertThat(client.isOpen()).isTrue();
    }

    @Test
    void anHttp10RequestWithoutKeepAliveGetsItsAnswerThenTheConnectionCloses() {
        client.receive("GET / HTTP/1.0\r\n\r\n");
        EmbeddedProxy.Channel server = proxy.server(0);
        // an HTTP/1.0 request goes on as HTTP/1.0, asking the server for keep-alive
        assertThat(server.readText()).isEqualTo("GET / HTTP/1.0\r\nconnection: keep-alive\r\n\r\n");
        server.receive(OK_HI);
        assertThat(client.readText()).isEqualTo("HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nhi");
        proxy.run();
        assertThat(client.isOpen()).isFalse();
    }

    @Test
    void pipelinedRequestsAreServedOneAtATimeAndAnsweredInOrder() {
        client.receive("GET /a HTTP/1.1\r\nhost: a\r\n\r\nGET /b HTTP/1.1\r\nhost: a\r\n\r\n");
        EmbeddedProxy.Channel server = proxy.server(0);
        // the second request waits for the first response
        assertThat(server.readText()).isEqualTo("GET /a HTTP/1.1\r\nhost: a\r\n\r\n");
        server.receive("HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\na");
        assertThat(proxy.servers()).hasSize(1);
        assertThat(server.readText()).isEqualTo("GET /b HTTP/1.1\r\nhost: a\r\n\r\n");
        server.receive("HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\nb");
        assertThat(client.readText()).isEqualTo("HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\na" + "HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\nb");
    }

    @Test
    void aRequestBodyInPiecesPausesTheClientWhileTheServerCannotTakeMore() {
        client.receive("POST /up HTTP/1.1\r\nhost: a\r\ncontent-length: 10\r\n\r\n");
        EmbeddedProxy.Channel server = proxy.server(0);
        assertThat(server.readText()).isEqualTo("POST /up HTTP/1.1\r\nhost: a\r\ncontent-length: 10\r\n\r\n");
        // the server connection's buffer fills with 2 bytes: not writable until flushed
        server.config().setWriteBufferWaterMark(new io.netty.channel.WriteBufferWaterMark(1, 2));
        client.pipeline().fireChannelRead(Unpooled.copiedBuffer("hello", StandardCharsets.US_ASCII));
        assertThat(server.isWritable()).isFalse();
        assertThat(client.config().isAutoRead()).as("client reading paused").isFalse();
        // the read round ends: what was written to the server is flushed, and reading resumes
        client.pipeline().fireChannelReadComplete();
        client.runPendingTasks();
        assertThat(server.isWritable()).isTrue();
        assertThat(client.config().isAutoRead()).as("client reading resumed").isTrue();
        assertThat(server.readText()).isEqualTo("hello");
        client.receive("world");
        assertThat(server.readText()).isEqualTo("world");
        server.receive(OK_HI);
        assertThat(client.readText()).isEqualTo(OK_HI);
        assertThat(client.isOpen()).isTrue();
    }

    @Test
    void aResponseBodyPausesTheServerWhileTheClientCannotTakeMore() {
        client.receive("GET / HTTP/1.1\r\nhost: a\r\n\r\n");
        EmbeddedProxy.Channel server = proxy.server(0);
        server.readText();
        client.config().setWriteBufferWaterMark(new io.netty.channel.WriteBufferWaterMark(1, 2));
        server.pipeline().fireChannelRead(Unpooled.copiedBuffer("HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nhello", StandardCharsets.US_ASCII));
        assertThat(client.isWritable()).isFalse();
        assertThat(server.config().isAutoRead()).as("server reading paused").isFalse();
        server.pipeline().fireChannelReadComplete();
        server.runPendingTasks();
        assertThat(client.isWritable()).isTrue();
        assertThat(server.config().isAutoRead()).as("server reading resumed").isTrue();
        server.receive("world");
        assertThat(client.readText()).isEqualTo("HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nhelloworld");
    }

    @Test
    void aMalformedRequestGets400AndTheConnectionCloses() {
        client.receive("GET / HTTP/1.1\r\nhost: a\r\nbad header\r\n\r\n");
        assertThat(client.readText()).isEqualTo(BAD_REQUEST);
        proxy.run();
        assertThat(client.isOpen()).isFalse();
        assertThat(proxy.servers()).isEmpty();
    }

    @Test
    void aClientClosingMidRequestAbortsTheServerConnection() {
        client.receive("POST / HTTP/1.1\r\nhost: a\r\ncontent-length: 10\r\n\r\nhello");
        EmbeddedProxy.Channel server = proxy.server(0);
        assertThat(server.readText()).isEqualTo("POST / HTTP/1.1\r\nhost: a\r\ncontent-length: 10\r\n\r\nhello");
        client.close();
        proxy.run();
        assertThat(server.isOpen()).isFalse();
        assertThat(client.readText()).isEmpty();
    }

    @Test
    void aClientHalfClosingMidRequestAbortsLikeAClose() {
        client.receive("POST / HTTP/1.1\r\nhost: a\r\ncontent-length: 10\r\n\r\nhel");
        EmbeddedProxy.Channel server = proxy.server(0);
        server.readText();
        client.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
        proxy.run();
        assertThat(client.isOpen()).isFalse();
        assertThat(server.isOpen()).isFalse();
        assertThat(client.readText()).isEmpty();
    }

    @Test
    void aHalfCloseAfterACompleteRequestStillGetsTheResponseThenCloses() {
        client.receive("GET / HTTP/1.1\r\nhost: a\r\n\r\n");
        EmbeddedProxy.Channel server = proxy.server(0);
        server.readText();
        client.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
        assertThat(client.isOpen()).isTrue();
        server.receive(OK_HI);
        assertThat(client.readText()).isEqualTo("HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nhi");
        proxy.run();
        assertThat(client.isOpen()).isFalse();
    }

    @Test
    void anIncompleteHeadGets408AfterTimeoutHttpRequest() {
        client.receive("GET / HTTP/1.1\r\nhost: a\r\n");
        proxy.advance(1999);
        assertThat(client.readText()).isEmpty();
        assertThat(client.isOpen()).isTrue();
        proxy.advance(1);
        assertThat(client.readText()).isEqualTo(REQUEST_TIMEOUT);
        proxy.run();
        assertThat(client.isOpen()).isFalse();
        assertThat(proxy.servers()).isEmpty();
    }

    @Test
    void aNewConnectionThatSendsNothingGets408Too() {
        proxy.advance(2000);
        assertThat(client.readText()).isEqualTo(REQUEST_TIMEOUT);
        proxy.run();
        assertThat(client.isOpen()).isFalse();
    }

    @Test
    void anIdleKeptConnectionClosesSilentlyAfterTimeoutHttpKeepAlive() {
        client.receive("GET / HTTP/1.1\r\nhost: a\r\n\r\n");
        proxy.server(0).readText();
        proxy.server(0).receive(OK_HI);
        assertThat(client.readText()).isEqualTo(OK_HI);
        proxy.advance(2999);
        assertThat(client.isOpen()).isTrue();
        proxy.advance(1);
        assertThat(client.readText()).isEmpty();
        assertThat(client.isOpen()).isFalse();
    }

    @Test
    void aStalledRequestBodyTimesOutAfterTimeoutClientAndAbortsTheServerConnection() {
        client.receive("POST / HTTP/1.1\r\nhost: a\r\ncontent-length: 10\r\n\r\nhel");
        EmbeddedProxy.Channel server = proxy.server(0);
        server.readText();
        proxy.advance(4999);
        assertThat(client.isOpen()).isTrue();
        proxy.advance(1);
        // no response at all: the exchange ends with both connections closed (logged cD/cH in HAProxy's terms)
        assertThat(client.readText()).isEmpty();
        assertThat(client.isOpen()).isFalse();
        assertThat(server.isOpen()).isFalse();
    }
}
