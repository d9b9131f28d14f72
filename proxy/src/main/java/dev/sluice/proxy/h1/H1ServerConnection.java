package dev.sluice.proxy.h1;

import dev.sluice.proxy.stream.ServerFailure;
import dev.sluice.config.model.HttpOptions;
import dev.sluice.config.model.Timeouts;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.backend.ServerConnector;
import dev.sluice.proxy.diag.UnexpectedErrors;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.MessageHead;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.http.h1.H1Encoder;
import dev.sluice.proxy.http.h1.H1Error;
import dev.sluice.proxy.http.h1.H1Limits;
import dev.sluice.proxy.http.h1.H1Parser;
import dev.sluice.proxy.http.h1.InputBuffer;
import dev.sluice.proxy.stats.ErrorCapture;
import dev.sluice.proxy.stream.Deadline;
import dev.sluice.proxy.stream.Frontend;
import dev.sluice.proxy.stream.ServerSide;
import dev.sluice.proxy.stream.Stream;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * An HTTP/1.1 connection to a server: encodes the stream's request, parses the response and hands it to
 * the stream, then goes back to its event loop's idle pool when both messages ended cleanly and the
 * server keeps the connection and the server's estimated need leaves room for it ({@link ServerConnector#keepIdle}).
 * Applies {@code timeout server} while a stream is attached; idle, it has no timeout of its own: the pool purge
 * ({@code pool-purge-delay}) closes it, or its client connection closing when it is private ({@code http-reuse never}).
 * One instance per connection, used only on its loop.
 */
public final class H1ServerConnection extends ChannelInboundHandlerAdapter implements ServerSide, H1Parser.Sink {

    /** How long an idle connection waits in the pool (HAProxy's {@code pool-purge-delay} default). */
    /** The server; a reload may hand the idle connection to its successor ({@link #moveTo}). */
    private Server server;
    private final int loopIndex;
    private final H1Parser parser;
    private final String sni;
    private final InputBuffer input = new InputBuffer();
    private ChannelHandlerContext ctx;
    private Channel ch;
    private Deadline timer;
    private Stream stream;
    private int requests;
    /** The client connection this one is private to (http-reuse never), or null. */
    private Object owner;
    private boolean parked;
    /** Counted in the server's used connections of this loop (attached to a stream). */
    private boolean inUse;
    private boolean chunked;
    private boolean chunkWritten;
    /** The request sent asks the server to close after this exchange (the options, or a close token in Connection). */
    private boolean closeAfter;
    private boolean dirty;
    private boolean requestEnded;
    private boolean responseEnded;
    private boolean keepAlive;
    private boolean anyResponseBytes;
    private boolean tunnel;

    /** {@code sni}: the TLS server name the connection is opened with (null: none, or clear text). */
    public H1ServerConnection(Server server, int loopIndex, H1Limits limits, String sni) {
        this.server = server;
        this.loopIndex = loopIndex;
        this.sni = sni;
        this.parser = new H1Parser(false, limits, this);
    }

    @Override
    public dev.sluice.proxy.tls.TlsSession tlsSession() {
        return ch == null ? null : dev.sluice.proxy.tls.TlsSession.of(ch);
    }

    @Override
    public Channel channel() {
        return ch;
    }

    @Override
    public int httpMajor() {
        return 1;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.ch = ctx.channel();
        this.timer = new Deadline(ch.eventLoop(), this::onTimeout);
    }

    // ------------------------------------------------------------------ ServerSide

    @Override
    public void attach(Stream s) {
        stream = s;
        if (parked) {
            parked = false;
        }
        if (!inUse) {
            inUse = true;
            ServerConnector.used(server, loopIndex);
        }
        requests++;
        requestEnded = false;
        responseEnded = false;
        keepAlive = false;
        anyResponseBytes = false;
        timer.disarm();
    }

    @Override
    public boolean isOpen() {
        return ch.isActive();
    }

    @Override
    public String sni() {
        return sni;
    }

    @Override
    public Object owner() {
        return owner;
    }

    @Override
    public void owner(Object session) {
        this.owner = session;
    }

    @Override
    public Server server() {
        return server;
    }

    @Override
    public boolean moveTo(Server successor) {
        if (!parked || owner != null || stream != null || !ch.isActive()) {
            return false;
        }
        server = successor;
        return true;
    }

    @Override
    public void ownerGone(Object session) {
        if (owner == session) {
            abort();
        }
    }

    private void notInUse() {
        if (inUse) {
            inUse = false;
            ServerConnector.unused(server, loopIndex);
        }
    }

    @Override
    public boolean reused() {
        return requests > 1;
    }

    private long serverTimeout() {
        if (stream != null) {
            return stream.serverTimeout();
        }
        long t = server.backend().timeouts().server();
        return t == Timeouts.UNSET ? 0 : t;
    }

    @Override
    public void sendHead(RequestHead head) {
        parser.expectResponseTo(head.isHead(), head.isConnect());
        chunked = head.body() == MessageHead.Body.STREAMED;
        chunkWritten = false;
        // an HTTP/1.0 request goes on as HTTP/1.0, as HAProxy does, unless its body needs chunking (h2 client
        // without content-length)
        boolean http10 = head.version() == HttpVersion.HTTP_1_0 && !chunked;
        // HAProxy's mux_h1 on the way out (h1_set_srv_conn_mode): a close token in the request's Connection (a rule's)
        // closes the connection after the exchange, a keep-alive one keeps it whatever the options
        int tokens = H1Encoder.connectionTokens(head.fields());
        closeAfter = (tokens & H1Encoder.CLOSE_TOKEN) != 0
                || (tokens & H1Encoder.KEEP_ALIVE_TOKEN) == 0 && stream.connectionMode() != HttpOptions.ConnectionMode.KEEP_ALIVE;
        // and its own Connection line after the fields (h1_update_req_conn_value): none when upgrading, else what
        // the version does not imply
        byte[] connection = (tokens & H1Encoder.UPGRADE_TOKEN) != 0 ? null
                : closeAfter ? (http10 ? null : H1Encoder.CONNECTION_CLOSE)
                : http10 ? H1Encoder.CONNECTION_KEEP_ALIVE : null;
        ctx.write(H1Encoder.request(ctx.alloc(), head, http10, chunked ? H1Encoder.TE_CHUNKED : null, connection));
        dirty = true;
        timer.arm(serverTimeout());
    }

    @Override
    public void sendBody(ByteBuf data) {
        int n = data.readableBytes();
        if (n == 0) {
            data.release();
            return;
        }
        if (chunked) {
            ctx.write(H1Encoder.chunkHeader(ctx.alloc(), n, chunkWritten));
            chunkWritten = true;
        }
        ctx.write(data);
        dirty = true;
    }

    @Override
    public void sendEnd(HttpFields trailers) {
        if (chunked) {
            ctx.write(H1Encoder.lastChunk(ctx.alloc(), chunkWritten, trailers));
        }
        requestEnded = true;
        dirty = false;
        ctx.flush();
    }

    @Override
    public boolean isWritable() {
        return ch.isWritable();
    }

    @Override
    public void flush() {
        if (dirty) {
            dirty = false;
            ctx.flush();
        }
    }

    @Override
    public void pauseResponseBody() {
        ch.config().setAutoRead(false);
        // the server is not read while the client cannot take more: timeout server waits (timeout client runs)
        if (!tunnel) {
            timer.disarm();
        }
    }

    @Override
    public void resumeResponseBody() {
        ch.config().setAutoRead(true);
        if (!tunnel && stream != null && !responseEnded) {
            timer.arm(serverTimeout());
        }
    }

    @Override
    public void release() {
        stream = null;
        ch.config().setAutoRead(true);
        timer.disarm();
        // idle, it waits in the pool only as far as the server's estimated need goes (a private one for its owner);
        // the pool purge closes it later, as HAProxy has no idle timeout of its own
        boolean keep = keepAlive && requestEnded && responseEnded && ch.isActive() && !input.isReadable()
                && (owner != null || ServerConnector.keepIdle(server, loopIndex)) && ServerConnector.current(server, ch.remoteAddress());
        notInUse();
        if (keep && owner == null && server.retired()) {
            // a reload replaced the server while the exchange ran: idle, the connection is its successor's
            Server next = server.successor();
            if (next == null) {
                keep = false;
            } else {
                server = next;
            }
        }
        if (keep) {
            parked = true;
            ServerConnector.park(server, loopIndex, this);
        } else {
            ch.close();
        }
    }

    @Override
    public void startTunnel() {
        tunnel = true;
        keepAlive = false;
        timer.arm(tunnelTimeout());
        ByteBuf rest = input.get();
        if (rest != null && rest.isReadable() && stream != null) {
            stream.onTunnelFromServer(rest.readRetainedSlice(rest.readableBytes()));
        }
        input.compact();
    }

    @Override
    public void sendRaw(ByteBuf data) {
        timer.arm(tunnelTimeout());
        ctx.write(data);
        dirty = true;
    }

    private long tunnelTimeout() {
        return stream != null ? stream.tunnelTimeout() : serverTimeout();
    }

    @Override
    public void abort() {
        stream = null;
        keepAlive = false;
        notInUse();
        if (tunnel) {
            ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        ch.close();
    }

    // ------------------------------------------------------------------ channel events

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        if (tunnel) {
            timer.arm(tunnelTimeout());
            if (stream != null) {
                stream.onTunnelFromServer(in);
            } else {
                in.release();
            }
            return;
        }
        if (stream == null || parser.failed()) {
            // nothing was asked: a server talking out of turn cannot be trusted with another request
            in.release();
            ch.close();
            return;
        }
        anyResponseBytes = true;
        timer.arm(serverTimeout());
        parser.parse(input.append(ctx.alloc(), in));
        input.compact();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (stream != null) {
            stream.flushClient();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (stream != null) {
            stream.onServerWritable(ch.isWritable());
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        timer.cancel();
        notInUse();
        if (parked) {
            parked = false;
            ServerConnector.unpark(server, loopIndex, this);
        }
        Stream s = stream;
        if (s != null && tunnel) {
            stream = null;
            s.onTunnelClosed(false, false);
        } else if (s != null) {
            if (!anyResponseBytes) {
                s.onServerFailure(ServerFailure.CLOSED_BEFORE_RESPONSE);
            } else if (!parser.inputClosed() && stream != null) {
                s.onServerFailure(ServerFailure.TRUNCATED);
            }
        }
        input.release();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        UnexpectedErrors.report("H1ServerConnection", cause);
        ch.close();
    }

    private void onTimeout() {
        if (tunnel && stream != null) {
            Stream s = stream;
            stream = null;
            s.onTunnelClosed(false, true);
            return;
        }
        if (stream != null) {
            stream.onServerFailure(ServerFailure.TIMEOUT);
        } else {
            ch.close();
        }
    }

    // ------------------------------------------------------------------ parser sink

    @Override
    public void onHead(MessageHead head) {
        if (stream == null) {
            ch.close();
            return;
        }
        ResponseHead r = (ResponseHead) head;
        if (r.status() == 101) {
            r.upgrade(parser.upgradeProtocol());
        }
        if (!r.isInterim()) {
            keepAlive = (r.version() == HttpVersion.HTTP_1_1 ? !parser.closeWanted() : parser.keepAliveWanted())
                    && !parser.closeAfter() && r.body() != MessageHead.Body.UNTIL_CLOSE
                    && !closeAfter;
        }
        stream.onResponseHead(r);
    }

    @Override
    public void onBody(ByteBuf data) {
        if (stream == null) {
            data.release();
            return;
        }
        stream.onResponseBody(data);
    }

    @Override
    public void onEnd(HttpFields trailers) {
        responseEnded = true;
        timer.disarm();
        if (stream != null) {
            stream.onResponseEnd(trailers);
        }
    }

    @Override
    public void onError(H1Error error) {
        keepAlive = false;
        Backend be = server.backend();
        Frontend fe = stream == null ? null : stream.frontend();
        be.lastError(ErrorCapture.capture(false, be.name(), be.id(), fe == null ? null : fe.name(), fe == null ? -1 : fe.id(),
                server.name(), server.id(), stream == null ? null : stream.client().remoteAddress(), input.get(), parser.messageStart(), error.offset()));
        if (stream != null) {
            stream.onServerFailure(ServerFailure.INVALID_RESPONSE);
        } else {
            ch.close();
        }
    }
}
