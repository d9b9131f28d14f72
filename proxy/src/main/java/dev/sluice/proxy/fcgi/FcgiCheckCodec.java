package dev.sluice.proxy.fcgi;

import dev.sluice.config.model.FcgiApp;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.http.HeaderNames;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The HTTP health check of a {@code proto fcgi} server, spoken in FastCGI as HAProxy 2.6 does (its checks use the
 * server's multiplexer): put in front of the check's HTTP/1 handler, it turns the check's request (the HTTP/1 bytes it
 * writes, whole) into BEGIN_REQUEST, PARAMS and STDIN records, and the application's answer (STDOUT up to
 * END_REQUEST) into an HTTP/1.1 response with a Content-Length, which the check then judges as it judges any. The
 * parameters are the defaults of {@link FcgiParams} (HAProxy runs no {@code set-param} rule for a check: there is no
 * stream); REMOTE_ADDR and SERVER_PORT are the check connection's ends. An unreadable answer closes the connection (the
 * check sees no response). One per check connection, on its loop.
 */
public final class FcgiCheckCodec extends ChannelDuplexHandler implements FcgiRecordReader.Sink {
    private static final int ID = 1;

    private final Server server;
    private final FcgiParams.App defaults;
    private final String software;
    private final FcgiRecordReader reader = new FcgiRecordReader(this);
    private ByteBuf request;
    private ByteBuf input;
    private ByteBuf stdout;
    private ChannelHandlerContext ctx;
    private boolean head;

    public FcgiCheckCodec(Server server, FcgiApp app, String software) {
        this.server = server;
        this.software = software;
        this.defaults = new FcgiParams.App(app.docroot(), app.index(), app.pathInfo() == null ? null : Pattern.compile(app.pathInfo()));
    }

    /** Whether a check of {@code server} goes through this codec: a {@code proto fcgi} server of a backend with an application. */
    public static boolean speaksFcgi(Server server) {
        return server.backend().fcgiRules() != null && "fcgi".equals(server.config().proto());
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
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
        ByteBuf records = encode();
        if (records == null) {
            promise.setSuccess();
            return;
        }
        ctx.write(records, promise);
    }

    /** The records of the request once its head arrived whole (the check writes it in one piece), else null. */
    private ByteBuf encode() {
        String text = request.toString(StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        if (end < 0) {
            return null;
        }
        String[] lines = text.substring(0, end).split("\r\n");
        String[] start = lines[0].split(" ", 3);
        HttpFields fields = new HttpFields(lines.length);
        long length = 0;
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon <= 0) {
                continue;
            }
            AsciiString name = new AsciiString(lines[i].substring(0, colon).strip().toLowerCase(java.util.Locale.ROOT));
            AsciiString value = new AsciiString(lines[i].substring(colon + 1).strip());
            if (name.contentEquals("connection")) {
                continue;
            }
            if (name.contentEquals(HeaderNames.CONTENT_LENGTH)) {
                length = Long.parseLong(value.toString());
            }
            fields.add(name, value);
        }
        byte[] body = text.substring(end + 4).getBytes(StandardCharsets.ISO_8859_1);
        request.release();
        request = null;
        head = start[0].equals("HEAD");
        HttpVersion version = start.length > 2 && start[2].equals("HTTP/1.0") ? HttpVersion.HTTP_1_0 : HttpVersion.HTTP_1_1;
        RequestHead h = new RequestHead(new AsciiString(start[0]), new AsciiString(start.length > 1 ? start[1] : "/"), version, fields);
        InetSocketAddress local = ctx.channel().localAddress() instanceof InetSocketAddress a ? a : null;
        InetSocketAddress remote = ctx.channel().remoteAddress() instanceof InetSocketAddress a ? a : null;
        List<String[]> params;
        try {
            params = FcgiParams.build(defaults, h, Map.of(), Set.of(), new FcgiParams.Exchange(local, remote, false, software, null, null),
                    length > 0 ? 0 : body.length);
        } catch (IllegalArgumentException e) {
            ctx.channel().close();
            return null;
        }
        ByteBuf out = ctx.alloc().buffer(256);
        append(out, FcgiRecords.beginRequest(ctx.alloc(), ID, false));
        append(out, FcgiRecords.params(ctx.alloc(), ID, params));
        if (body.length > 0) {
            append(out, FcgiRecords.stdin(ctx.alloc(), ID, Unpooled.wrappedBuffer(body)));
        }
        append(out, FcgiRecords.stdinEnd(ctx.alloc(), ID));
        return out;
    }

    private static void append(ByteBuf out, ByteBuf records) {
        out.writeBytes(records);
        records.release();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf in)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (input == null) {
            input = ctx.alloc().buffer(in.readableBytes());
        }
        input.writeBytes(in);
        in.release();
        reader.read(input);
        if (input != null) {
            input.discardReadBytes();
        }
    }

    @Override
    public void onStdout(int id, ByteBuf data) {
        if (stdout == null) {
            stdout = ctx.alloc().buffer(Math.max(256, data.readableBytes()));
        }
        stdout.writeBytes(data);
        data.release();
    }

    @Override
    public void onStderr(int id, ByteBuf data) {
        String text = data.toString(StandardCharsets.ISO_8859_1).stripTrailing();
        data.release();
        server.backend().fcgiStderr(text);
    }

    @Override
    public void onEndRequest(int id, long appStatus, int protocolStatus) {
        ByteBuf out = stdout == null ? Unpooled.EMPTY_BUFFER : stdout;
        stdout = null;
        ResponseHead r = null;
        try {
            if (protocolStatus == FcgiRecords.REQUEST_COMPLETE) {
                r = CgiHead.parse(out, true);
            }
        } catch (IllegalArgumentException e) {
            r = null;
        }
        if (r == null) {
            out.release();
            reader.stop();
            ctx.channel().close();
            return;
        }
        r.fields().removeAll(HeaderNames.CONTENT_LENGTH);
        int n = head ? 0 : out.readableBytes();
        StringBuilder sb = new StringBuilder(256).append("HTTP/1.1 ").append(r.status()).append(' ').append(r.reason()).append("\r\n");
        for (int i = 0; i < r.fields().size(); i++) {
            sb.append(r.fields().name(i)).append(": ").append(r.fields().value(i)).append("\r\n");
        }
        sb.append("content-length: ").append(n).append("\r\nconnection: close\r\n\r\n");
        ByteBuf http = ctx.alloc().buffer(sb.length() + n);
        http.writeCharSequence(sb, StandardCharsets.ISO_8859_1);
        http.writeBytes(out, out.readerIndex(), n);
        out.release();
        reader.stop();
        ctx.fireChannelRead(http);
        ctx.fireChannelReadComplete();
    }

    @Override
    public void onValues(ByteBuf content) {
    }

    @Override
    public void onError(String why) {
        ctx.channel().close();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        release();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        reader.stop();
        release();
        ctx.fireChannelInactive();
    }

    private void release() {
        if (request != null) {
            request.release();
            request = null;
        }
        if (input != null) {
            input.release();
            input = null;
        }
        if (stdout != null) {
            stdout.release();
            stdout = null;
        }
    }
}
