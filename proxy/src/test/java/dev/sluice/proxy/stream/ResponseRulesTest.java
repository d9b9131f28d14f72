package dev.sluice.proxy.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.backend.ServerConnector;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.runtime.EmbeddedProxy;
import dev.sluice.proxy.stream.StreamTest.FakeClient;
import dev.sluice.proxy.stream.StreamTest.FakeServer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code http-response wait-for-body} on a {@link Stream} between the fake sides of {@link StreamTest}: the head waits
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
    private final FakeClient client = new FakeClient(proxy.loop());
    private final FakeServer server = new FakeServer(proxy.backend("be").servers().get(0));

    ResponseRulesTest() {
        ServerConnector.park(server.server, 0, server);
    }

    @AfterEach
    void close() {
        proxy.close();
    }

    private Stream ask() {
        server.events.clear();
        HttpFields f = new HttpFields();
        f.add("host", "a");
        Stream s = new Stream(client, proxy.frontend(), new RequestHead(AsciiString.of("GET"), AsciiString.of("/"), HttpVersion.HTTP_1_1, f));
        s.start();
        s.onRequestEnd(null);
        assertThat(server.events).as("client %s", client.events).contains("attach");
        return s;
    }

    private static ResponseHead ok(int length) {
        HttpFields f = new HttpFields();
        f.add("content-length", Integer.toString(length));
        ResponseHead r = new ResponseHead(HttpVersion.HTTP_1_1, 200, AsciiString.of("OK"), f);
        r.bodyLength(length);
        return r;
    }

    private static ByteBuf text(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
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
