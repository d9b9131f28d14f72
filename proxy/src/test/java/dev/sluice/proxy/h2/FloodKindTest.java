package dev.sluice.proxy.h2;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.stats.H2Counters;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.AbstractHttp2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Each flood protection {@link H2ClientConnection} turns on, tripped for real in Netty's HTTP/2 codec with
 * the same limits, is told apart by {@link H2ClientConnection#floodKind}: Netty names the protection only in
 * its message, so this test is what notices when a Netty upgrade rewords one.
 */
class FloodKindTest {

    /** A server-side handler with H2ClientConnection's limits that records its connection errors. */
    static final class Probe extends Http2ConnectionHandler {
        final List<Http2Exception> errors = new ArrayList<>();
        final List<Boolean> outbound = new ArrayList<>();

        Probe(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings) {
            super(decoder, encoder, settings);
            decoder.frameListener(new Http2FrameAdapter());
        }

        @Override
        protected void onConnectionError(ChannelHandlerContext ctx, boolean out, Throwable cause, Http2Exception http2Ex) {
            errors.add(http2Ex);
            outbound.add(out);
            super.onConnectionError(ctx, out, cause, http2Ex);
        }

        H2Counters.Flood kind() {
            assertThat(errors).isNotEmpty();
            assertThat(errors.get(0).error()).isEqualTo(Http2Error.ENHANCE_YOUR_CALM);
            return H2ClientConnection.floodKind(outbound.get(0), errors.get(0).getMessage());
        }
    }

    static final class Builder extends AbstractHttp2ConnectionHandlerBuilder<Probe, Builder> {
        Builder() {
            server(true);
            initialSettings(Http2Settings.defaultSettings().maxConcurrentStreams(H2ClientConnection.MAX_CONCURRENT_STREAMS));
            decoderEnforceMaxRstFramesPerWindow(H2ClientConnection.MAX_RST_PER_WINDOW, H2ClientConnection.RST_WINDOW_SECONDS);
            encoderEnforceMaxRstFramesPerWindow(H2ClientConnection.MAX_RST_PER_WINDOW, H2ClientConnection.RST_WINDOW_SECONDS);
            decoderEnforceMaxConsecutiveEmptyDataFrames(H2ClientConnection.MAX_EMPTY_DATA);
            encoderEnforceMaxQueuedControlFrames(H2ClientConnection.MAX_QUEUED_CONTROL_FRAMES);
            decoderEnforceMaxSmallContinuationFrames(H2ClientConnection.MAX_SMALL_CONTINUATIONS);
        }

        @Override
        protected Probe build() {
            return super.build();
        }

        @Override
        protected Probe build(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings) {
            return new Probe(decoder, encoder, settings);
        }
    }

    static void frame(ByteArrayOutputStream out, int type, int flags, int stream, byte[] payload) {
        out.write(payload.length >> 16);
        out.write(payload.length >> 8);
        out.write(payload.length);
        out.write(type);
        out.write(flags);
        out.write(stream >> 24);
        out.write(stream >> 16);
        out.write(stream >> 8);
        out.write(stream);
        out.writeBytes(payload);
    }

    /** A GET header block: literal fields without indexing, no Huffman. */
    static byte[] get() {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (String[] f : new String[][] {{":method", "GET"}, {":scheme", "http"}, {":path", "/"}, {":authority", "x"}}) {
            b.write(0);
            for (String s : f) {
                byte[] v = s.getBytes(StandardCharsets.US_ASCII);
                b.write(v.length);
                b.writeBytes(v);
            }
        }
        return b.toByteArray();
    }

    static byte[] int32(long v) {
        return new byte[] {(byte) (v >> 24), (byte) (v >> 16), (byte) (v >> 8), (byte) v};
    }

    /** A client that does not read: what the server writes is dropped and does not complete until {@link #fail}. */
    static final class Stalled extends ChannelOutboundHandlerAdapter {
        final List<ChannelPromise> pending = new ArrayList<>();

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            ReferenceCountUtil.release(msg);
            pending.add(promise);
        }

        /** The connection is gone: the writes fail (and their listeners release what they hold). */
        void fail() {
            for (ChannelPromise p : pending) {
                p.tryFailure(new java.nio.channels.ClosedChannelException());
            }
        }
    }

    /** Feeds the client preface, its SETTINGS and {@code frames} in one read; returns the probe. */
    static Probe feed(ByteArrayOutputStream frames) {
        return feed(frames, false);
    }

    static Probe feed(ByteArrayOutputStream frames, boolean stalled) {
        Probe p = new Builder().build();
        Stalled st = new Stalled();
        EmbeddedChannel ch = stalled ? new EmbeddedChannel(st, p) : new EmbeddedChannel(p);
        ByteArrayOutputStream in = new ByteArrayOutputStream();
        in.writeBytes("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        frame(in, 4, 0, 0, new byte[0]);
        in.writeBytes(frames.toByteArray());
        ByteBuf buf = Unpooled.wrappedBuffer(in.toByteArray());
        ch.writeInbound(buf);
        st.fail();
        ch.finishAndReleaseAll();
        return p;
    }

    @Test
    void rapidResetIsToldApart() {
        ByteArrayOutputStream f = new ByteArrayOutputStream();
        for (int i = 0; i <= H2ClientConnection.MAX_RST_PER_WINDOW; i++) {
            frame(f, 1, 0x5, 2 * i + 1, get());
            frame(f, 3, 0, 2 * i + 1, int32(Http2Error.CANCEL.code()));
        }
        assertThat(feed(f).kind()).isEqualTo(H2Counters.Flood.RAPID_RESET);
    }

    @Test
    void resetsTheClientProvokesAreToldApart() {
        // a WINDOW_UPDATE of 0 on an open stream is a stream error: the server answers RST_STREAM PROTOCOL_ERROR
        ByteArrayOutputStream f = new ByteArrayOutputStream();
        for (int i = 0; i <= H2ClientConnection.MAX_RST_PER_WINDOW; i++) {
            frame(f, 1, 0x4, 2 * i + 1, get());
            frame(f, 8, 0, 2 * i + 1, int32(0));
        }
        assertThat(feed(f).kind()).isEqualTo(H2Counters.Flood.RESETS_SENT);
    }

    @Test
    void emptyDataIsToldApart() {
        ByteArrayOutputStream f = new ByteArrayOutputStream();
        frame(f, 1, 0x4, 1, get());
        for (int i = 0; i <= H2ClientConnection.MAX_EMPTY_DATA; i++) {
            frame(f, 0, 0, 1, new byte[0]);
        }
        assertThat(feed(f).kind()).isEqualTo(H2Counters.Flood.EMPTY_DATA);
    }

    @Test
    void queuedControlFramesAreToldApart() {
        // PINGs whose acknowledgements a client that does not read leaves queued
        ByteArrayOutputStream f = new ByteArrayOutputStream();
        for (int i = 0; i <= H2ClientConnection.MAX_QUEUED_CONTROL_FRAMES; i++) {
            frame(f, 6, 0, 0, new byte[8]);
        }
        assertThat(feed(f, true).kind()).isEqualTo(H2Counters.Flood.CONTROL_FRAMES);
    }

    @Test
    void continuationFloodIsToldApart() {
        ByteArrayOutputStream f = new ByteArrayOutputStream();
        byte[] block = get();
        frame(f, 1, 0x1, 1, new byte[] {block[0]});
        for (int i = 1; i < block.length; i++) {
            frame(f, 9, i == block.length - 1 ? 0x4 : 0, 1, new byte[] {block[i]});
        }
        assertThat(block.length).isGreaterThan(H2ClientConnection.MAX_SMALL_CONTINUATIONS + 1);
        assertThat(feed(f).kind()).isEqualTo(H2Counters.Flood.CONTINUATION);
    }

    @Test
    void anythingElseIsOther() {
        assertThat(H2ClientConnection.floodKind(false, "something new")).isEqualTo(H2Counters.Flood.OTHER);
        assertThat(H2ClientConnection.floodKind(false, null)).isEqualTo(H2Counters.Flood.OTHER);
    }
}
