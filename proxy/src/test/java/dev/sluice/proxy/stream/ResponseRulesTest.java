package dev.sluice.proxy.stream;

import static dev.sluice.proxy.stream.FakeSides.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.runtime.EmbeddedProxy;
import dev.sluice.proxy.stream.FakeSides.FakeClient;
import dev.sluice.proxy.stream.FakeSides.FakeServer;
import io.netty.buffer.ByteBuf;
import io.netty.util.AsciiString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code http-response wait-for-body} on a {@link Stream} between the fake sides of {@link FakeSides}: the head waits
 * until {@code at-least} bytes came, then goes with what was held, in order, and the rest follows; the rules read the
 * held bytes; a client that leaves meanwhile releases them (ResponseWaitForBodyTest compares it with HAProxy 2.6).
 */
class ResponseRulesTest {
    private final EmbeddedProxy proxy = EmbeddedProxy.of("""
            defaults
                mode http
                timeout connect 1s
                timeout client 5s
                timeout server 3s
            frontend fe
                bind 127.0.0.1:8080
                http-response wait-for-body time 5s at-least 4
                http-response set-header x-body %[res.body]
                http-response set-header x-len "%[res.body_len] %[res.body_size]"
                default_backend be
            backend be
                http-reuse always
                server s1 127.0.0.1:9001
            """);
    private final FakeSides sides = new FakeSides(proxy);
    private final FakeClient client = sides.client;
    private final FakeServer server = sides.server;

    @AfterEach
    void close() {
        proxy.close();
    }

    private Stream ask() {
        server.events.clear();
        Stream s = sides.ask("GET", "/");
        assertThat(server.events).as("client %s", client.events).contains("attach");
        return s;
    }

    private static ResponseHead ok(int length) {
        return FakeSides.response(200, length);
    }

    @Test
    void theHeadWaitsForTheBytesTheRulesWaitFor() {
        Stream s = ask();
        s.onResponseHead(ok(10));
        s.onResponseBody(text("ab"));
        assertThat(client.events).isEmpty();
        s.onResponseBody(text("cdef"));
        assertThat(client.events).containsExactly("head 200", "body ab", "body cdef");
        assertThat(s.response().fields().get(AsciiString.of("x-body")).toString()).isEqualTo("abcdef");
        assertThat(s.response().fields().get(AsciiString.of("x-len")).toString()).isEqualTo("6 10");
        s.onResponseBody(text("ghij"));
        s.onResponseEnd(null);
        assertThat(client.events).containsExactly("head 200", "body ab", "body cdef", "body ghij", "end");
        assertThat(s.finished()).isTrue();
    }

    @Test
    void aShortBodyEndsTheWait() {
        Stream s = ask();
        s.onResponseHead(ok(2));
        s.onResponseBody(text("ok"));
        assertThat(client.events).isEmpty();
        s.onResponseEnd(null);
        assertThat(client.events).containsExactly("head 200", "body ok", "end");
        assertThat(s.response().fields().get(AsciiString.of("x-len")).toString()).isEqualTo("2 2");
    }

    @Test
    void aClientLeavingReleasesWhatWasHeld() {
        Stream s = ask();
        s.onResponseHead(ok(10));
        ByteBuf held = text("ab");
        s.onResponseBody(held);
        s.onClientClosed();
        assertThat(held.refCnt()).isZero();
        assertThat(client.events).doesNotContain("head 200");
        assertThat(server.events).contains("abort");
    }
}
