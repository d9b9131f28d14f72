package dev.sluice.proxy.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.DefaultHttp2FrameReader;
import io.netty.handler.codec.http2.DefaultHttp2FrameWriter;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The HTTP/2 form of an HTTP check: its request as HAProxy's H2 multiplexer sends it, the answer back as HTTP/1.1. */
class H2CheckCodecTest {
    private final EmbeddedChannel ch = new EmbeddedChannel(new H2CheckCodec(16384));

    @AfterEach
    void close() {
        ch.finishAndReleaseAll();
    }

    /** The frames the codec wrote, after the preface: "TYPE stream flags [headers or data]". */
    private List<String> sent() throws Exception {
        ByteBuf all = Unpooled.buffer();
        for (ByteBuf b; (b = ch.readOutbound()) != null; ) {
            all.writeBytes(b);
            b.release();
        }
        ByteBuf preface = Http2CodecUtil.connectionPrefaceBuf();
        assertThat(all.readSlice(preface.readableBytes())).isEqualTo(preface);
        preface.release();
        List<String> frames = new ArrayList<>();
        DefaultHttp2FrameReader reader = new DefaultHttp2FrameReader(true);
        EmbeddedChannel decoding = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
        reader.readFrame(decoding.pipeline().firstContext(), all, new Http2FrameAdapter() {
            @Override
            public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings settings) {
                frames.add("SETTINGS " + settings);
            }

            @Override
            public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding, boolean end) {
                frames.add("HEADERS " + streamId + (end ? " END_STREAM " : " ") + headers);
            }

            @Override
            public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int dep, short weight, boolean excl,
                    int padding, boolean end) {
                onHeadersRead(ctx, streamId, headers, padding, end);
            }

            @Override
            public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean end) {
                frames.add("DATA " + streamId + (end ? " END_STREAM " : " ") + data.toString(StandardCharsets.ISO_8859_1));
                return data.readableBytes();
            }
        });
        reader.close();
        decoding.finishAndReleaseAll();
        all.release();
        return frames;
    }

    private void serverSends(java.util.function.Consumer<ChannelHandlerContext> frames) {
        EmbeddedChannel server = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
        frames.accept(server.pipeline().firstContext());
        server.flushOutbound();
        for (ByteBuf b; (b = server.readOutbound()) != null; ) {
            ch.writeInbound(b);
        }
        server.finishAndReleaseAll();
    }

    private String received() {
        ByteBuf in = ch.readInbound();
        if (in == null) {
            return null;
        }
        String s = in.toString(StandardCharsets.ISO_8859_1);
        in.release();
        return s;
    }

    @Test
    void theRequestIsSentAsHaproxysH2MuxSendsItAndTheAnswerComesBackAsHttp1() throws Exception {
        ch.writeAndFlush(Unpooled.copiedBuffer("POST /health HTTP/1.1\r\nHost: app.test\r\nX-A: 1\r\nconnection: close\r\ncontent-length: 4\r\n\r\nping",
                StandardCharsets.ISO_8859_1));
        List<String> frames = sent();
        assertThat(frames).hasSize(3);
        assertThat(frames.get(0)).startsWith("SETTINGS ").contains("ENABLE_PUSH=0");
        // :scheme https for an origin-form URI, host as a field (no :authority), connection dropped, names in lower case
        assertThat(frames.get(1)).isEqualTo("HEADERS 1 DefaultHttp2Headers[:method: POST, :scheme: https, :path: /health, host: app.test, x-a: 1,"
                + " content-length: 4]");
        assertThat(frames.get(2)).isEqualTo("DATA 1 END_STREAM ping");
        DefaultHttp2FrameWriter w = new DefaultHttp2FrameWriter();
        serverSends(ctx -> {
            w.writeSettings(ctx, new Http2Settings().maxConcurrentStreams(100), ctx.newPromise());
            w.writeHeaders(ctx, 1, new DefaultHttp2Headers().status("100"), 0, false, ctx.newPromise());
            w.writeHeaders(ctx, 1, new DefaultHttp2Headers().status("503").add("x-state", "down").add("content-length", "5"), 0, false,
                    ctx.newPromise());
            w.writeData(ctx, 1, Unpooled.copiedBuffer("do", StandardCharsets.ISO_8859_1), 0, false, ctx.newPromise());
            w.writeData(ctx, 1, Unpooled.copiedBuffer("wn!", StandardCharsets.ISO_8859_1), 0, true, ctx.newPromise());
        });
        assertThat(received()).isEqualTo("HTTP/1.1 503 \r\nx-state: down\r\ncontent-length: 5\r\n\r\ndown!");
        // the server's SETTINGS are acknowledged
        ByteBuf ack = ch.readOutbound();
        assertThat(ack.getByte(3)).isEqualTo((byte) 4);
        assertThat(ack.getByte(4)).isEqualTo((byte) 1);
        ack.release();
        w.close();
    }

    @Test
    void aBodylessRequestEndsWithItsHeadersAndAResetMeansNoAnswer() throws Exception {
        ch.writeAndFlush(Unpooled.copiedBuffer("OPTIONS / HTTP/1.0\r\n\r\n", StandardCharsets.ISO_8859_1));
        assertThat(sent().get(1)).isEqualTo("HEADERS 1 END_STREAM DefaultHttp2Headers[:method: OPTIONS, :scheme: https, :path: /]");
        DefaultHttp2FrameWriter w = new DefaultHttp2FrameWriter();
        serverSends(ctx -> w.writeRstStream(ctx, 1, 2, ctx.newPromise()));
        assertThat(received()).isNull();
        assertThat(ch.isOpen()).isFalse();
        w.close();
    }

    @Test
    void notHttp2ClosesTheConnection() {
        ch.writeAndFlush(Unpooled.copiedBuffer("GET / HTTP/1.1\r\n\r\n", StandardCharsets.ISO_8859_1));
        ch.releaseOutbound();
        ch.writeInbound(ByteBufAllocator.DEFAULT.buffer().writeBytes("HTTP/1.1 200 OK\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1)));
        assertThat(received()).isNull();
        assertThat(ch.isOpen()).isFalse();
    }
}
