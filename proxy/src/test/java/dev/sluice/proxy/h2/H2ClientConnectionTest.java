package dev.sluice.proxy.h2;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.runtime.EmbeddedProxy;
import dev.sluice.proxy.runtime.LogCatcher;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.DefaultHttp2FrameReader;
import io.netty.handler.codec.http2.DefaultHttp2FrameWriter;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2EventAdapter;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link H2ClientConnection} on an embedded channel, with the real stream and an HTTP/1 server connection behind it
 * ({@link EmbeddedProxy}); the test is the HTTP/2 client, writing and reading frames with Netty's frame codec. Pins
 * the preface and SETTINGS exchange, a request answered, two concurrent streams, a client resetting a stream in the
 * middle of its response, and the answers to invalid request heads (RST_STREAM PROTOCOL_ERROR, or a 400).
 */
class H2ClientConnectionTest {

    /** The HTTP/2 client: encodes frames to bytes and decodes what the proxy sends into one line per frame. */
    static final class Peer {
        private final EmbeddedChannel wire = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
        private final ChannelHandlerContext ctx = wire.pipeline().firstContext();
        private final DefaultHttp2FrameWriter writer = new DefaultHttp2FrameWriter();
        private final DefaultHttp2FrameReader reader = new DefaultHttp2FrameReader();
        private final ByteBuf received = Unpooled.buffer();
        final List<String> frames = new ArrayList<>();

        private final Http2EventAdapter listener = new Http2EventAdapter() {
            @Override
            public void onSettingsRead(ChannelHandlerContext c, Http2Settings settings) {
                frames.add("SETTINGS " + settings);
            }

            @Override
            public void onSettingsAckRead(ChannelHandlerContext c) {
                frames.add("SETTINGS_ACK");
            }

            @Override
            public void onHeadersRead(ChannelHandlerContext c, int streamId, Http2Headers headers, int padding, boolean end) {
                StringBuilder sb = new StringBuilder("HEADERS ").append(streamId);
                for (Map.Entry<CharSequence, CharSequence> e : headers) {
                    sb.append(' ').append(e.getKey()).append('=').append(e.getValue());
                }
                frames.add(sb.append(end ? " END" : "").toString());
            }

            @Override
            public void onHeadersRead(ChannelHandlerContext c, int streamId, Http2Headers headers, int dep, short weight, boolean excl,
                    int padding, boolean end) {
                onHeadersRead(c, streamId, headers, padding, end);
            }

            @Override
            public int onDataRead(ChannelHandlerContext c, int streamId, ByteBuf data, int padding, boolean end) {
                frames.add("DATA " + streamId + " " + data.toString(StandardCharsets.US_ASCII) + (end ? " END" : ""));
                return data.readableBytes() + padding;
            }

            @Override
            public void onRstStreamRead(ChannelHandlerContext c, int streamId, long errorCode) {
                frames.add("RST_STREAM " + streamId + " " + Http2Error.valueOf(errorCode));
            }

            @Override
            public void onGoAwayRead(ChannelHandlerContext c, int lastStreamId, long errorCode, ByteBuf debugData) {
                frames.add("GOAWAY " + lastStreamId + " " + Http2Error.valueOf(errorCode));
            }

            @Override
            public void onWindowUpdateRead(ChannelHandlerContext c, int streamId, int increment) {
                frames.add("WINDOW_UPDATE " + streamId + " " + increment);
            }
        };

        Peer preface() {
            wire.writeOutbound(Http2CodecUtil.connectionPrefaceBuf());
            writer.writeSettings(ctx, new Http2Settings(), wire.newPromise());
            return this;
        }

        Peer settingsAck() {
            writer.writeSettingsAck(ctx, wire.newPromise());
            return this;
        }

        Peer headers(int stream, Http2Headers h, boolean end) {
            writer.writeHeaders(ctx, stream, h, 0, end, wire.newPromise());
            return this;
        }

        Peer data(int stream, String text, boolean end) {
            writer.writeData(ctx, stream, Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII), 0, end, wire.newPromise());
            return this;
        }

        Peer rst(int stream, Http2Error error) {
            writer.writeRstStream(ctx, stream, error.code(), wire.newPromise());
            return this;
        }

        /** Sends what was written since the last send to the proxy, in one read. */
        void sendTo(EmbeddedChannel proxyClient) {
            wire.flush();
            ByteBuf all = Unpooled.buffer();
            Object o;
            while ((o = wire.readOutbound()) != null) {
                all.writeBytes((ByteBuf) o);
                ReferenceCountUtil.release(o);
            }
            proxyClient.writeInbound(all);
        }

        /** Decodes what the proxy wrote since the last call; returns the new frames, leaving out WINDOW_UPDATEs. */
        List<String> read(EmbeddedChannel proxyClient) throws Http2Exception {
            Object o;
            while ((o = proxyClient.readOutbound()) != null) {
                received.writeBytes((ByteBuf) o);
                ReferenceCountUtil.release(o);
            }
            int before = frames.size();
            reader.readFrame(ctx, received, listener);
            received.discardReadBytes();
            return frames.subList(before, frames.size()).stream().filter(f -> !f.startsWith("WINDOW_UPDATE")).toList();
        }

        void close() {
            received.release();
            reader.close();
            writer.close();
            wire.finishAndReleaseAll();
        }
    }

    private final LogCatcher log = new LogCatcher();
    private final EmbeddedProxy proxy = EmbeddedProxy.of("""
            defaults
                mode http
                timeout connect 1s
                timeout client 5s
                timeout server 5s
            frontend fe
                bind 127.0.0.1:8080 proto h2
                %s
                log-format "%%ST %%tsc %%r"
                default_backend be
            backend be
                server s1 127.0.0.1:9001
            """.formatted(log.logLine()));
    private final EmbeddedProxy.Channel client = proxy.h2Client();
    private final Peer peer = new Peer();

    @AfterEach
    void close() {
        peer.close();
        proxy.close();
        log.close();
    }

    private static Http2Headers get(String path) {
        return new DefaultHttp2Headers().method("GET").scheme("http").authority("a").path(path);
    }

    /** The preface exchange: the proxy's SETTINGS, then its acknowledgement of the client's. */
    private void connect() throws Http2Exception {
        peer.preface().settingsAck().sendTo(client);
        assertThat(peer.read(client)).containsExactly(
                "SETTINGS {MAX_CONCURRENT_STREAMS=100, INITIAL_WINDOW_SIZE=65535, MAX_HEADER_LIST_SIZE=30720}", "SETTINGS_ACK");
    }

    @Test
    void aGetAfterThePrefaceIsForwardedAsHttp11AndAnswered() throws Exception {
        connect();
        peer.headers(1, get("/x"), true).sendTo(client);
        EmbeddedProxy.Channel server = proxy.server(0);
        assertThat(server.readText()).isEqualTo("GET /x HTTP/1.1\r\nhost: a\r\n\r\n");
        server.receive("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nhi");
        assertThat(peer.read(client)).containsExactly("HEADERS 1 :status=200 content-length=2", "DATA 1 hi END");
        assertThat(client.isOpen()).isTrue();
        assertThat(log.next()).isEqualTo("200 ---- GET http://a/x HTTP/2.0");
    }

    @Test
    void twoConcurrentStreamsGetTheirAnswersInTheOrderTheServersGiveThem() throws Exception {
        connect();
        peer.headers(1, get("/slow"), true).headers(3, get("/fast"), true).sendTo(client);
        assertThat(proxy.servers()).hasSize(2);
        EmbeddedProxy.Channel slow = proxy.server(0);
        EmbeddedProxy.Channel fast = proxy.server(1);
        assertThat(slow.readText()).startsWith("GET /slow ");
        assertThat(fast.readText()).startsWith("GET /fast ");
        fast.receive("HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\nf");
        slow.receive("HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\ns");
        assertThat(peer.read(client)).containsExactly("HEADERS 3 :status=200 content-length=1", "DATA 3 f END",
                "HEADERS 1 :status=200 content-length=1", "DATA 1 s END");
    }

    @Test
    void aBodyInSeveralReadsEndsOnItsLastDataFrameAndTrailersFollowTheData() throws Exception {
        connect();
        peer.headers(1, get("/cl"), true).sendTo(client);
        EmbeddedProxy.Channel server = proxy.server(0);
        server.readText();
        // the piece of a round is written at the round's flush; the end in a later round rides on its last piece
        server.receive("HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhel");
        assertThat(peer.read(client)).containsExactly("HEADERS 1 :status=200 content-length=5", "DATA 1 hel");
        server.receive("lo");
        assertThat(peer.read(client)).containsExactly("DATA 1 lo END");
        peer.headers(3, get("/chunked"), true).sendTo(client);
        EmbeddedProxy.Channel server2 = proxy.servers().getLast();
        server2.readText();
        server2.receive("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n");
        assertThat(peer.read(client)).containsExactly("HEADERS 3 :status=200", "DATA 3 abc");
        server2.receive("2\r\nde\r\n0\r\nx-sum: 5\r\n\r\n");
        assertThat(peer.read(client)).containsExactly("DATA 3 de", "HEADERS 3 x-sum=5 END");
        // a response ending with an empty chunk in its own read: an empty DATA frame ends the stream
        peer.headers(5, get("/late-end"), true).sendTo(client);
        EmbeddedProxy.Channel server3 = proxy.servers().getLast();
        server3.readText();
        server3.receive("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nfg\r\n");
        assertThat(peer.read(client)).containsExactly("HEADERS 5 :status=200", "DATA 5 fg");
        server3.receive("0\r\n\r\n");
        assertThat(peer.read(client)).containsExactly("DATA 5  END");
    }

    @Test
    void aRequestBodyGoesToTheServer() throws Exception {
        connect();
        Http2Headers h = new DefaultHttp2Headers().method("POST").scheme("http").authority("a").path("/up");
        peer.headers(1, h, false).data(1, "hello", true).sendTo(client);
        EmbeddedProxy.Channel server = proxy.server(0);
        // no content-length from the client: the body goes chunked
        assertThat(server.readText()).isEqualTo("POST /up HTTP/1.1\r\nhost: a\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n");
        server.receive("HTTP/1.1 204 No Content\r\n\r\n");
        assertThat(peer.read(client)).containsExactly("HEADERS 1 :status=204 END");
    }

    @Test
    void aClientResettingAStreamMidResponseAbortsItsServerConnectionOnly() throws Exception {
        connect();
        peer.headers(1, get("/big"), true).sendTo(client);
        EmbeddedProxy.Channel server = proxy.server(0);
        server.readText();
        server.receive("HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nhel");
        assertThat(peer.read(client)).containsExactly("HEADERS 1 :status=200 content-length=10", "DATA 1 hel");
        peer.rst(1, Http2Error.CANCEL).sendTo(client);
        proxy.run();
        assertThat(server.isOpen()).isFalse();
        assertThat(client.isOpen()).isTrue();
        assertThat(log.next()).isEqualTo("200 CD-- GET http://a/big HTTP/2.0");
        // the connection serves the next stream
        peer.headers(3, get("/next"), true).sendTo(client);
        assertThat(proxy.servers()).hasSize(2);
        assertThat(proxy.server(1).readText()).startsWith("GET /next ");
    }

    @Test
    void anUpperCaseFieldNameResetsTheStreamWithProtocolError() throws Exception {
        connect();
        Http2Headers h = new DefaultHttp2Headers(false).method("GET").scheme("http").authority("a").path("/");
        h.add("X-Upper", "1");
        peer.headers(1, h, true).sendTo(client);
        assertThat(peer.read(client)).containsExactly("RST_STREAM 1 PROTOCOL_ERROR");
        assertThat(proxy.servers()).isEmpty();
        assertThat(client.isOpen()).isTrue();
    }

    @Test
    void aConnectionSpecificFieldResetsTheStreamWithProtocolError() throws Exception {
        connect();
        Http2Headers h = new DefaultHttp2Headers(false).method("GET").scheme("http").authority("a").path("/");
        h.add("connection", "keep-alive");
        peer.headers(1, h, true).sendTo(client);
        assertThat(peer.read(client)).containsExactly("RST_STREAM 1 PROTOCOL_ERROR");
        assertThat(proxy.servers()).isEmpty();
    }

    @Test
    void anAsteriskPathOnAGetIsAnswered400() throws Exception {
        connect();
        peer.headers(1, get("*"), true).sendTo(client);
        List<String> frames = peer.read(client);
        assertThat(frames).hasSize(2);
        assertThat(frames.get(0)).isEqualTo("HEADERS 1 :status=400 content-length=90 cache-control=no-cache content-type=text/html");
        assertThat(frames.get(1)).isEqualTo("DATA 1 <html><body><h1>400 Bad request</h1>\nYour browser sent an invalid request.\n</body></html>\n END");
        assertThat(proxy.servers()).isEmpty();
    }
}
