package dev.sluice.proxy.fcgi;

import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.stream.ServerFailure;
import dev.sluice.proxy.stream.ServerSide;
import dev.sluice.proxy.stream.Stream;
import io.netty.buffer.ByteBuf;

/**
 * One request on a {@link FcgiMuxConnection}: the {@link ServerSide} of a client's {@link Stream}, its request and
 * response a {@link FcgiExchange}. Its request id is taken when its head is sent. Done (END_REQUEST read, the request sent
 * whole), it leaves the connection; abandoned before, it leaves it too, with an ABORT_REQUEST when its request was begun
 * and not sent whole, as HAProxy 2.6 does (a request sent whole is not aborted: what the application still sends for it
 * is ignored). Used only on the connection's loop.
 */
final class FcgiMuxStream implements ServerSide {
    private final FcgiMuxConnection conn;
    private final boolean reused;
    final FcgiExchange exchange;
    private Stream stream;
    private boolean paused;

    FcgiMuxStream(FcgiMuxConnection conn, boolean reused) {
        this.conn = conn;
        this.reused = reused;
        this.exchange = new FcgiExchange(conn.app(), conn, conn.loop(), this::onTimeout);
    }

    Stream stream() {
        return stream;
    }

    boolean paused() {
        return paused;
    }

    @Override
    public void attach(Stream s) {
        stream = s;
    }

    @Override
    public boolean isOpen() {
        return conn.usable();
    }

    @Override
    public String sni() {
        return conn.sni();
    }

    @Override
    public dev.sluice.proxy.tls.TlsSession tlsSession() {
        io.netty.channel.Channel ch = conn.channel();
        return ch == null ? null : dev.sluice.proxy.tls.TlsSession.of(ch);
    }

    @Override
    public io.netty.channel.Channel channel() {
        return conn.channel();
    }

    /** HAProxy 2.6 answers 1 for every HTX mux but H2's, FastCGI's included. */
    @Override
    public int httpMajor() {
        return 1;
    }

    /**
     * Whether the request took a connection that had carried requests before and carried none then (one that may have
     * gone stale while idle: a failure before any byte is replayed on a new connection, as on an HTTP/1 one).
     */
    @Override
    public boolean reused() {
        return reused;
    }

    @Override
    public Object owner() {
        return conn.owner();
    }

    @Override
    public Server server() {
        return conn.server();
    }

    @Override
    public void sendHead(RequestHead head) {
        exchange.start(stream, conn.register(this));
        exchange.sendHead(head);
    }

    @Override
    public void sendBody(ByteBuf data) {
        exchange.sendBody(data);
    }

    @Override
    public void sendEnd(HttpFields trailers) {
        exchange.sendEnd();
    }

    @Override
    public boolean isWritable() {
        io.netty.channel.Channel ch = conn.channel();
        return ch != null && ch.isWritable();
    }

    @Override
    public void flush() {
        conn.flush();
    }

    /** The connection is not read while a stream's client cannot take more (the others wait too, as in HAProxy). */
    @Override
    public void pauseResponseBody() {
        if (!paused) {
            paused = true;
            conn.paused(true);
        }
        exchange.disarm();
    }

    @Override
    public void resumeResponseBody() {
        if (paused) {
            paused = false;
            conn.paused(false);
        }
        if (stream != null && !exchange.responseEnded()) {
            exchange.arm();
        }
    }

    @Override
    public void release() {
        stream = null;
        conn.leave(this);
    }

    @Override
    public void startTunnel() {
        // FastCGI carries no tunnel
        abort();
    }

    @Override
    public void sendRaw(ByteBuf data) {
        data.release();
    }

    @Override
    public void abort() {
        stream = null;
        conn.leave(this);
    }

    private void onTimeout() {
        if (!exchange.timedOut()) {
            conn.leave(this);
        }
    }

    /** The connection closed or broke: the stream fails as {@code kind} (null: as the response got so far says). */
    void connectionClosed(ServerFailure kind) {
        exchange.cancelTimer();
        if (kind == ServerFailure.INVALID_RESPONSE) {
            exchange.invalid();
        } else {
            exchange.closed(kind);
        }
        stream = null;
        exchange.detach();
    }
}
