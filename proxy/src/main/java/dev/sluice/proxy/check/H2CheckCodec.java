package dev.sluice.proxy.check;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http2.DefaultHttp2FrameReader;
import io.netty.handler.codec.http2.DefaultHttp2FrameWriter;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The HTTP check spoken in HTTP/2 ({@code http-check connect proto h2}, a {@code proto h2} server checked through its
 * default connection, or h2 chosen by ALPN), as HAProxy 2.6's check does through its H2 multiplexer: put in front of
 * the check's HTTP/1 handler, it turns the check's request (the HTTP/1 bytes it writes, whole) into the connection
 * preface, a SETTINGS frame and stream 1's HEADERS ({@code :method}, {@code :scheme https} as HAProxy for an
 * origin-form URI, {@code :path}, the fields without the connection-specific ones, names in lower case) and DATA, and
 * the server's answer on stream 1 (the final HEADERS, DATA up to END_STREAM) into an HTTP/1.1 response with a
 * Content-Length and no reason phrase (HAProxy's H2 responses have none), which the check judges as it judges any.
 * SETTINGS and PING are acknowledged; a RST_STREAM or GOAWAY before the answer closes the connection (the check sees no
 * response). One per check connection, on its loop.
 */
final class H2CheckCodec extends ChannelDuplexHandler {
    private static final int STREAM = 1;
    /** HTTP/2 drops these HTTP/1 fields (HAProxy's H2 multiplexer does the same). */
    private static final Set<String> DROPPED = Set.of("connection", "proxy-connection", "keep-alive", "upgrade", "transfer-encoding");

    private final DefaultHttp2FrameWriter writer = new DefaultHttp2FrameWriter();
    private final DefaultHttp2FrameReader reader = new DefaultHttp2FrameReader(true);
    private final int limit;
    private ByteBuf request;
    private ByteBuf input;
    private Http2Headers response;
    private final ByteArrayOutputStream body = new ByteArrayOutputStream(256);
    private boolean done;

    /** {@code limit}: the most body bytes kept (the check's buffer). */
    H2CheckCodec(int limit) {
        this.limit = limit;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof ByteBuf b)) {
            ctx.write(msg, promise);
            return;
        }
        if (request == null) {
            request = ctx.alloc().buffer(b.readableBytes());
        }
        request.writeBytes(b);
        b.release();
        String text = request.toString(StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        if (end < 0) {
            promise.setSuccess();
            return;
        }
        request.release();
        request = null;
        Http2Headers h = new DefaultHttp2Headers(false);
        String[] lines = text.substring(0, end).split("\r\n");
        String[] start = lines[0].split(" ", 3);
        h.method(start[0]).scheme("https").path(start.length > 1 && !start[1].isEmpty() ? start[1] : start[0].equals("OPTIONS") ? "*" : "/");
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon <= 0) {
                continue;
            }
            String name = lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT);
            String value = lines[i].substring(colon + 1).strip();
            if (DROPPED.contains(name)) {
                continue;
            }
            if (name.equals("te")) {
                if (!value.toLowerCase(Locale.ROOT).contains("trailers")) {
                    continue;
                }
                value = "trailers";
            }
            h.add(name, value);
        }
        byte[] data = text.substring(end + 4).getBytes(StandardCharsets.ISO_8859_1);
        ctx.write(Http2CodecUtil.connectionPrefaceBuf());
        Http2Settings settings = new Http2Settings().pushEnabled(false);
        writer.writeSettings(ctx, settings, ctx.newPromise());
        writer.writeHeaders(ctx, STREAM, h, 0, data.length == 0, ctx.newPromise());
        if (data.length > 0) {
            writer.writeData(ctx, STREAM, Unpooled.wrappedBuffer(data), 0, true, ctx.newPromise());
        }
        promise.setSuccess();
        ctx.flush();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Http2Exception {
        if (!(msg instanceof ByteBuf in)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (done) {
            in.release();
            return;
        }
        if (input == null) {
            input = ctx.alloc().buffer(in.readableBytes());
        }
        input.writeBytes(in);
        in.release();
        try {
            reader.readFrame(ctx, input, new Listener());
        } catch (Http2Exception e) {
            // not HTTP/2: the check gets no response
            done = true;
            ctx.close();
            return;
        }
        input.discardReadBytes();
        ctx.flush();
    }

    private final class Listener extends Http2FrameAdapter {
        @Override
        public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings settings) {
            writer.writeSettingsAck(ctx, ctx.newPromise());
        }

        @Override
        public void onPingRead(ChannelHandlerContext ctx, long data) {
            writer.writePing(ctx, true, data, ctx.newPromise());
        }

        @Override
        public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding, boolean endOfStream) {
            headers(ctx, streamId, headers, endOfStream);
        }

        @Override
        public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int streamDependency, short weight,
                boolean exclusive, int padding, boolean endOfStream) {
            headers(ctx, streamId, headers, endOfStream);
        }

        @Override
        public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) {
            int n = data.readableBytes() + padding;
            if (streamId == STREAM && response != null && !done) {
                int keep = Math.min(data.readableBytes(), limit - body.size());
                if (keep > 0) {
                    byte[] b = new byte[keep];
                    data.getBytes(data.readerIndex(), b);
                    body.write(b, 0, keep);
                }
                if (endOfStream || body.size() >= limit) {
                    answer(ctx);
                }
            }
            return n;
        }

        @Override
        public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
            if (streamId == STREAM) {
                end(ctx);
            }
        }

        @Override
        public void onGoAwayRead(ChannelHandlerContext ctx, int lastStreamId, long errorCode, ByteBuf debugData) {
            end(ctx);
        }
    }

    private void headers(ChannelHandlerContext ctx, int streamId, Http2Headers headers, boolean endOfStream) {
        if (streamId != STREAM || done) {
            return;
        }
        if (response == null) {
            CharSequence status = headers.status();
            if (status == null || status.length() == 3 && status.charAt(0) == '1') {
                // an interim response
                return;
            }
            response = headers;
        }
        if (endOfStream) {
            answer(ctx);
        }
    }

    /** The whole response: as HTTP/1.1 to the check's handler. */
    private void answer(ChannelHandlerContext ctx) {
        done = true;
        StringBuilder b = new StringBuilder(256).append("HTTP/1.1 ").append(response.status()).append(" \r\n");
        for (Map.Entry<CharSequence, CharSequence> f : response) {
            String name = f.getKey().toString();
            if (name.startsWith(":") || name.equals("content-length") || name.equals("transfer-encoding")) {
                continue;
            }
            b.append(name).append(": ").append(f.getValue()).append("\r\n");
        }
        b.append("content-length: ").append(body.size()).append("\r\n\r\n");
        ByteBuf out = ctx.alloc().buffer(b.length() + body.size());
        out.writeCharSequence(b, StandardCharsets.ISO_8859_1);
        out.writeBytes(body.toByteArray());
        ctx.fireChannelRead(out);
    }

    /** The stream or connection ended without a full answer: the check sees the connection close. */
    private void end(ChannelHandlerContext ctx) {
        if (!done) {
            done = true;
            ctx.close();
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (request != null) {
            request.release();
            request = null;
        }
        if (input != null) {
            input.release();
            input = null;
        }
        reader.close();
        writer.close();
    }
}
