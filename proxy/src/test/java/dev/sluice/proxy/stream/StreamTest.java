package dev.sluice.proxy.stream;

import static dev.sluice.proxy.stream.FakeSides.request;
import static dev.sluice.proxy.stream.FakeSides.response;
import static dev.sluice.proxy.stream.FakeSides.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.runtime.EmbeddedProxy;
import dev.sluice.proxy.runtime.LogCatcher;
import dev.sluice.proxy.stream.FakeSides.FakeClient;
import dev.sluice.proxy.stream.FakeSides.FakeServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Stream} between a fake client side and a fake server side ({@link FakeSides}): what the stream asks of each
 * side for an ordinary exchange, keep-alive, body back-pressure both ways, a server failing before or during the
 * response, a server timeout, a client leaving, and no server to go to; the access log's status and termination flags
 * for each. Pins today's behaviour ahead of the stream refactor.
 */
class StreamTest {

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
                log-format "%%ST %%tsc %%B %%b/%%s %%rc"
                use_backend down if { path_beg /down }
                use_backend slow if { path_beg /slow }
                default_backend be
            backend be
                http-reuse always
                server s1 127.0.0.1:9001
            backend down
                server d1 127.0.0.1:9002 disabled
            backend slow
                retries 1
                server t1 127.0.0.1:9003
            """.formatted(log.logLine()));
    private final FakeSides sides = new FakeSides(proxy);
    private final FakeClient client = sides.client;
    private final FakeServer server = sides.server;

    @AfterEach
    void close() {
        proxy.close();
        log.close();
    }

    /** A GET started and ended on the client side: the stream got the fake server from the pool. */
    private Stream get(String path) {
        return sides.ask("GET", path);
    }

    @Test
    void anExchangeGoesThroughAndTheServerConnectionGoesBackToThePool() {
        Stream s = get("/");
        assertThat(server.events).containsExactly("attach", "head GET /", "end");
        s.onResponseHead(response(200, 2));
        s.onResponseBody(text("hi"));
        s.onResponseEnd(null);
        assertThat(client.events).containsExactly("head 200", "body hi", "end");
        assertThat(server.events).endsWith("release");
        assertThat(s.finished()).isTrue();
        assertThat(s.status()).isEqualTo(200);
        assertThat(log.next()).isEqualTo("200 ---- 51 be/s1 0");
    }

    @Test
    void theBackendCountsTheStreamFromItsChoiceAndTheServerFromItsConnectUntilTheLine() {
        dev.sluice.proxy.backend.Backend be = proxy.backend("be");
        dev.sluice.proxy.backend.Server s1 = be.servers().get(0);
        Stream s = get("/");
        // HAProxy's beconn and cur_sess
        assertThat(be.activeStreams()).isEqualTo(1);
        assertThat(s1.currentSessions()).isEqualTo(1);
        s.onResponseHead(response(200, 0));
        s.onResponseEnd(null);
        assertThat(log.next()).startsWith("200 ----");
        assertThat(be.activeStreams()).isZero();
        assertThat(be.served()).isZero();
        assertThat(s1.currentSessions()).isZero();
        // a stream without a server counts in its backend too, until its line
        dev.sluice.proxy.backend.Backend down = proxy.backend("down");
        get("/down");
        assertThat(log.next()).startsWith("503 SC--");
        assertThat(down.activeStreams()).isZero();
        assertThat(down.snapshot().currentMax()).isEqualTo(1);
    }

    @Test
    void theNextRequestOfTheClientTakesTheKeptServerConnection() {
        Stream first = get("/1");
        first.onResponseHead(response(204, 0));
        first.onResponseEnd(null);
        server.events.clear();
        Stream second = get("/2");
        assertThat(server.events).containsExactly("attach", "head GET /2", "end");
        assertThat(proxy.servers()).isEmpty();
        second.onResponseHead(response(200, 0));
        second.onResponseEnd(null);
        assertThat(server.events).endsWith("release");
        assertThat(log.next()).startsWith("204 ----");
        assertThat(log.next()).startsWith("200 ----");
    }

    @Test
    void aRequestBodyPausesTheClientWhileTheServerCannotTakeMore() {
        Stream s = new Stream(client, proxy.frontend(), request("POST", "/up", 10));
        s.start();
        server.writable = false;
        s.onRequestBody(text("hello"));
        assertThat(client.events).containsExactly("pause");
        server.writable = true;
        s.onServerWritable(true);
        assertThat(client.events).containsExactly("pause", "resume");
        s.onRequestBody(text("world"));
        s.onRequestEnd(null);
        assertThat(server.events).containsExactly("attach", "head POST /up", "body hello", "body world", "end");
        assertThat(client.events).containsExactly("pause", "resume");
    }

    @Test
    void aResponseBodyPausesTheServerWhileTheClientCannotTakeMore() {
        Stream s = get("/");
        s.onResponseHead(response(200, 10));
        client.writable = false;
        s.onResponseBody(text("hello"));
        assertThat(server.events).endsWith("pause");
        client.writable = true;
        s.onClientWritable(true);
        assertThat(server.events).endsWith("pause", "resume");
        s.onResponseBody(text("world"));
        s.onResponseEnd(null);
        assertThat(client.events).containsExactly("head 200", "body hello", "body world", "end");
    }

    @Test
    void aServerDyingMidResponseAbortsBothSidesAndLogsSD() {
        Stream s = get("/");
        s.onResponseHead(response(200, 10));
        s.onResponseBody(text("hel"));
        s.onServerFailure(ServerFailure.TRUNCATED);
        assertThat(client.events).containsExactly("head 200", "body hel", "abort");
        assertThat(server.events).endsWith("abort");
        assertThat(s.finished()).isTrue();
        assertThat(log.next()).isEqualTo("200 SD-- 53 be/s1 0");
    }

    @Test
    void aServerClosingBeforeTheResponseGives502AndLogsSH() {
        Stream s = get("/");
        s.onServerFailure(ServerFailure.CLOSED_BEFORE_RESPONSE);
        assertThat(client.events).containsExactly("generated 502 Bad Gateway");
        assertThat(server.events).endsWith("abort");
        assertThat(s.status()).isEqualTo(502);
        assertThat(log.next()).isEqualTo("502 SH-- 209 be/s1 0");
    }

    @Test
    void aStaleReusedConnectionClosingBeforeTheResponseIsRetriedOnANewConnection() {
        server.reused = true;
        Stream s = get("/");
        s.onServerFailure(ServerFailure.CLOSED_BEFORE_RESPONSE);
        // no answer yet: the request goes again, on a new connection the connector opens (its connect is a loop task)
        assertThat(client.events).isEmpty();
        proxy.run();
        assertThat(proxy.servers()).hasSize(1);
        EmbeddedProxy.Channel fresh = proxy.server(0);
        assertThat(fresh.readText()).isEqualTo("GET / HTTP/1.1\r\nhost: a\r\n\r\n");
        fresh.receive("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n");
        assertThat(client.events).containsExactly("head 200", "end");
        // going again after a stale connection is not a retry: %rc stays 0
        assertThat(log.next()).isEqualTo("200 ---- 49 be/s1 0");
    }

    @Test
    void aServerTimeoutBeforeTheResponseGives504AndLogsSH() {
        Stream s = get("/");
        // timeout server is the server side's to apply: the stream tells it how long
        assertThat(s.serverTimeout()).isEqualTo(3000);
        s.onServerFailure(ServerFailure.TIMEOUT);
        assertThat(client.events).containsExactly("generated 504 Gateway Time-out");
        assertThat(log.next()).isEqualTo("504 sH-- 198 be/s1 0");
    }

    @Test
    void aClientLeavingWhileTheServerWorksAbortsTheServerConnectionAndLogsCH() {
        Stream s = get("/");
        s.onClientClosed();
        assertThat(server.events).endsWith("abort");
        assertThat(client.events).isEmpty();
        assertThat(log.next()).isEqualTo("-1 CH-- 0 be/s1 0");
    }

    @Test
    void noUsableServerGives503AndLogsSC() {
        Stream s = get("/down");
        assertThat(client.events).containsExactly("generated 503 Service Unavailable");
        assertThat(server.events).isEmpty();
        assertThat(s.status()).isEqualTo(503);
        assertThat(log.next()).isEqualTo("503 SC-- 217 down/<NOSRV> 0");
    }

    @Test
    void connectTimeoutsOnEveryAttemptGive503AndLogSmallSC() {
        // HAProxy 2.6: the last attempt ended by timeout connect is sC (a refused one SC)
        proxy.refuseConnects(2, new io.netty.channel.ConnectTimeoutException("connection timed out"));
        Stream s = get("/slow");
        proxy.run();
        assertThat(client.events).containsExactly("generated 503 Service Unavailable");
        assertThat(s.status()).isEqualTo(503);
        assertThat(log.next()).isEqualTo("503 sC-- 217 slow/t1 1");
    }
}
