package dev.sluice.proxy.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.backend.ServerConnector;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.runtime.EmbeddedProxy;
import dev.sluice.proxy.runtime.LogCatcher;
import dev.sluice.proxy.stream.FakeSides.FakeClient;
import dev.sluice.proxy.stream.FakeSides.FakeServer;
import io.netty.util.AsciiString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A {@link Stream} with {@code cache-use} and {@code cache-store} between the fake sides of {@link FakeSides}: a
 * response stored as it passes answers the next request without the server (with Age, as 304 or without body when
 * asked), a response cut short or refused by the rules is not stored, and the log names {@code <CACHE>} with "LR".
 */
class CacheStreamTest {
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
                log-format "%%ST %%tsc %%b/%%s %%Tw/%%Tc/%%Tr"
                http-response set-header x-hit %%[res.cache_hit]
                default_backend be
            backend be
                http-reuse always
                http-request cache-use c
                http-response cache-store c
                server s1 127.0.0.1:9001
            cache c
                total-max-size 1
            """.formatted(log.logLine()));
    private final FakeSides sides = new FakeSides(proxy);
    private final FakeClient client = sides.client;
    private final FakeServer server = sides.server;

    @AfterEach
    void close() {
        proxy.close();
        log.close();
    }

    private Stream ask(String method, String path, String... kv) {
        return sides.ask(method, path, kv);
    }

    private static ResponseHead ok(String body, String... kv) {
        return FakeSides.response(200, body.length(), kv);
    }

    private void serve(Stream s, String body, String... kv) {
        assertThat(server.events).as("client %s", client.events).contains("attach");
        s.onResponseHead(ok(body, kv));
        s.onResponseBody(FakeSides.text(body));
        s.onResponseEnd(null);
    }

    @Test
    void aStoredResponseAnswersTheNextRequestsWithoutTheServer() {
        serve(ask("GET", "/a"), "hello", "cache-control", "max-age=60", "etag", "\"e1\"");
        assertThat(log.next()).startsWith("200 ---- be/s1 ");
        server.events.clear();
        client.events.clear();
        Stream hit = ask("GET", "/a");
        assertThat(hit.finished()).as("server %s client %s", server.events, client.events).isTrue();
        assertThat(hit.response().fields().get(new AsciiString("age")).toString()).matches("[01]"); // whole seconds since it was stored
        assertThat(hit.response().fields().get(new AsciiString("x-hit")).toString()).isEqualTo("1");
        assertThat(client.events).containsExactly("head 200", "body hello", "end");
        assertThat(log.next()).isEqualTo("200 LR-- be/<CACHE> 0/0/0");
        client.events.clear();
        Stream head = ask("HEAD", "/a");
        assertThat(head.response().hasBody()).isFalse();
        assertThat(client.events).containsExactly("head 200", "end");
        client.events.clear();
        ask("GET", "/a", "if-none-match", "\"e1\"");
        assertThat(client.events).containsExactly("head 304", "end");
        assertThat(server.events).isEmpty();
        assertThat(log.next()).startsWith("200 LR--");
        assertThat(log.next()).isEqualTo("304 LR-- be/<CACHE> 0/0/0");
    }

    @Test
    void aResponseCutShortIsNotStored() {
        Stream s = ask("GET", "/cut");
        s.onResponseHead(ok("hello", "cache-control", "max-age=60"));
        s.onResponseBody(FakeSides.text("he"));
        s.onServerFailure(ServerFailure.TRUNCATED);
        log.next();
        ServerConnector.park(server.server, 0, server);
        server.open = true;
        server.events.clear();
        Stream again = ask("GET", "/cut");
        assertThat(server.events).contains("head GET /cut");
        serve(again, "hello", "cache-control", "max-age=60");
        assertThat(log.next()).startsWith("200 ---- be/s1");
    }

    @Test
    void aNonCacheableResponseGoesToTheServerEachTime() {
        serve(ask("GET", "/p"), "x", "cache-control", "private, max-age=60");
        server.events.clear();
        serve(ask("GET", "/p"), "x", "cache-control", "private, max-age=60");
        assertThat(server.events).contains("head GET /p");
        assertThat(log.next()).startsWith("200 ---- be/s1");
        assertThat(log.next()).startsWith("200 ---- be/s1");
    }
}
