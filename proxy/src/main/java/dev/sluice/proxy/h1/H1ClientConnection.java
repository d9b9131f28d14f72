package dev.sluice.proxy.h1;

import dev.sluice.config.model.HttpOptions;
import dev.sluice.config.model.Timeouts;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.diag.UnexpectedErrors;
import dev.sluice.proxy.h2.H2ClientConnection;
import dev.sluice.proxy.http.GeneratedResponse;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.MessageHead;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.http.h1.H1Error;
import dev.sluice.proxy.http.h1.H1Parser;
import dev.sluice.proxy.http.h1.InputBuffer;
import dev.sluice.proxy.listener.ClientAddresses;
import dev.sluice.proxy.listener.ConnectionLimit;
import dev.sluice.proxy.listener.ProxyHeader;
import dev.sluice.proxy.rules.Trackers;
import dev.sluice.proxy.stats.ErrorCapture;
import dev.sluice.proxy.stream.ClientEnd;
import dev.sluice.proxy.stream.ClientSide;
import dev.sluice.proxy.stream.ClientTimes;
import dev.sluice.proxy.stream.Deadline;
import dev.sluice.proxy.stream.Frontend;
import dev.sluice.proxy.stream.RequestLog;
import dev.sluice.proxy.stream.ServerSide;
import dev.sluice.proxy.stream.SoftStop;
import dev.sluice.proxy.stream.Stream;
import dev.sluice.proxy.stream.Termination.Cause;
import dev.sluice.proxy.stream.Termination.State;
import dev.sluice.proxy.tls.TlsSession;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * An HTTP/1.x client connection: parses requests one at a time (pipelined ones wait), hands each to a {@link Stream},
 * and has what the stream sends back written by its {@link H1ResponseWriter}. Decides keep-alive, drains an unread request
 * body after an early answer, applies {@code timeout http-request}, {@code http-keep-alive} and {@code client}. One
 * instance per connection, used only on its event loop.
 */
public final class H1ClientConnection extends ChannelInboundHandlerAdapter implements ClientSide, H1Parser.Sink {

    private enum Phase {
        /** Waiting for (the rest of) a request head. */
        WAIT_REQUEST,
        /** A stream is running. */
        EXCHANGE,
        /** The response was sent before the request body ended: discard the rest of it, then go on. */
        DRAIN,
        /** The exchange switched protocols (WebSocket, CONNECT): raw bytes both ways. */
        TUNNEL,
        /** Closing after the last response. */
        CLOSING,
        /** An answer went out while the client may still be sending: output shut, input read and dropped until a bound. */
        LINGER
    }

    /** How much unread request body is discarded to keep the connection after an early response. */
    private static final long MAX_DRAIN = 1024 * 1024;
    /** Bytes of pipelined requests read ahead of the current exchange before reading pauses. */
    private static final int MAX_BUFFERED_AHEAD = 64 * 1024;
    /** The most a lingering close waits for the client's FIN (less when timeout client-fin / client are shorter). */
    private static final long MAX_LINGER_MILLIS = 5000;

    private Frontend frontend;
    private final ConnectionLimit limit;
    private final H1Parser parser;
    private final InputBuffer input = new InputBuffer();
    private final H1ResponseWriter writer = new H1ResponseWriter();
    private ChannelHandlerContext ctx;
    private Channel ch;
    private int loopIndex;
    private Deadline timer;
    private boolean admitted;
    /** A {@code tcp-request session} rule rejected the connection: it closes, nothing else happens. */
    private boolean sessionRejected;
    /** A layer-4 connection that became HTTP: counted as a session already. */
    private boolean switched;
    /** The backend of its first request, chosen before it became HTTP, or null. */
    private Backend chosenBackend;
    private Phase phase = Phase.WAIT_REQUEST;
    private int requests;
    private boolean inParse;
    private boolean reparse;
    private long drained;
    private long lingered;
    private boolean inputClosed;

    // the current exchange
    private Stream stream;
    private boolean requestEnded;
    private boolean clientKeepAlive;
    private ClientTimes times;
    private long requestStart;
    private TlsSession tlsSession;
    /** The client's addresses: the PROXY header's when the connection started with one ({@code accept-proxy}). */
    private InetSocketAddress remote;
    private InetSocketAddress local;
    private ProxyHeader.Received proxyHeader;
    /** Whether the first bytes were looked at for HTTP/2's preface (from the start: HTTP/1 forced, {@link #noH2Upgrade}). */
    private boolean prefaceChecked;

    public H1ClientConnection(Frontend frontend, boolean admitted) {
        this.frontend = frontend;
        this.limit = frontend.limit();
        this.admitted = admitted;
        this.parser = new H1Parser(true, frontend.h1Limits(), this);
    }

    /**
     * A layer-4 connection of the frontend that becomes HTTP ({@code switch-mode http}, HAProxy's implicit upgrade):
     * admitted, counted, tracked and logged as a session already; its first request goes to {@code chosen} when not null.
     */
    public H1ClientConnection(Frontend frontend, boolean admitted, Backend chosen) {
        this(frontend, admitted);
        this.switched = true;
        this.chosenBackend = chosen;
    }

    /** HTTP/1 forced ({@code proto h1}): HTTP/2's preface is a bad request, not an upgrade, as in HAProxy. */
    public H1ClientConnection noH2Upgrade() {
        prefaceChecked = true;
        return this;
    }

    @Override
    public void setAddress(boolean source, InetSocketAddress a) {
        if (source) {
            remote = a;
        } else {
            local = a;
        }
    }

    @Override
    public Backend takeChosenBackend() {
        Backend b = chosenBackend;
        chosenBackend = null;
        return b;
    }

    // ------------------------------------------------------------------ channel events

    @Override
    public List<ServerSide> privateConnections() {
        if (privateConnections == null) {
            privateConnections = new ArrayList<>(2);
        }
        return privateConnections;
    }

    /** The server connections private to this one ({@code http-reuse never}), in first-use order; null until one. */
    private List<ServerSide> privateConnections;

    @Override
    public boolean firstRequest() {
        return requests <= 1;
    }

    @Override
    public Future<?> closeFuture() {
        return ch.closeFuture();
    }

    @Override
    public Trackers sessionTrackers() {
        return ch == null ? null : ch.attr(SESSION_TRACKERS).get();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.ch = ctx.channel();
        writer.attach(ctx);
        if (ch.isActive()) {
            // added after a TLS handshake
            started();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        started();
        ctx.fireChannelActive();
    }

    private void started() {
        // an accepted channel is active when this handler is added and then fires channelActive: once only
        if (timer != null || sessionRejected) {
            return;
        }
        proxyHeader = ProxyHeader.Received.of(ch);
        remote = ProxyHeader.Received.remote(proxyHeader, ch);
        local = ProxyHeader.Received.local(proxyHeader, ch);
        if (!switched && !frontend.startSession(ch, remote, local)) {
            sessionRejected = true;
            ch.close();
            return;
        }
        remote = ClientEnd.overridden(ch, true, remote);
        local = ClientEnd.overridden(ch, false, local);
        loopIndex = frontend.workers().indexOf(ch.eventLoop());
        timer = new Deadline(ch.eventLoop(), this::onTimeout);
        if (switched) {
            frontend.countSwitchedToHttp();
        } else {
            frontend.countConnection(loopIndex, false);
        }
        times = ClientTimes.of(ch);
        requestStart = System.nanoTime();
        tlsSession = TlsSession.of(ch);
        if (frontend.accessLog() != null && !switched) {
            frontend.accessLog().logConnect(remoteAddress(), localAddress(), frontend.name(), true);
        }
        if (admitted) {
            armRequestTimeout();
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt == ConnectionLimit.Admitted.INSTANCE) {
            admitted = true;
            armRequestTimeout();
            return;
        }
        if (evt instanceof ChannelInputShutdownEvent) {
            inputShutdown();
            return;
        }
        if (evt == SoftStop.EVENT || evt == SoftStop.IF_REMOVED && frontend.isStopped()) {
            // idle after an exchange: goes now; in one: after its response; new: its first request comes (H1C_F_WAIT_NEXT_REQ)
            if (phase == Phase.WAIT_REQUEST && requests > 0 && parser.idle() && !input.isReadable()) {
                closeNow();
            }
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    /**
     * The client half-closed (sent FIN). A complete request still gets its response, after which the connection closes,
     * unless {@code option abortonclose} aborts it ({@link Stream#onClientHalfClosed}); a partial one is an error.
     */
    private void inputShutdown() {
        inputClosed = true;
        switch (phase) {
            case TUNNEL -> {
                Stream s = stream;
                stream = null;
                if (s != null) {
                    s.onTunnelClosed(true, false);
                } else {
                    closeNow();
                }
            }
            case WAIT_REQUEST -> {
                if (!parser.idle() || input.isReadable()) {
                    // bytes of an unfinished head: HAProxy answers 400
                    parseInput();
                    if (phase == Phase.WAIT_REQUEST && !parser.failed()) {
                        logBadRequest(400, Cause.CLIENT_ABORT, State.REQUEST, false);
                        sendRawAndClose(GeneratedResponse.of(400));
                    }
                } else {
                    if (requests == 0 && !frontend.config().options().ignoreProbes()) {
                        // a connection closed before its first byte: HAProxy counts and logs it (400, CR) unless dontlognull,
                        // and option http-ignore-probes ignores it altogether
                        logBadRequest(400, Cause.CLIENT_ABORT, State.REQUEST, true);
                    }
                    closeNow();
                }
            }
            case EXCHANGE -> {
                if (!requestEnded) {
                    Stream s = stream;
                    stream = null;
                    if (s != null) {
                        s.onClientClosed();
                    }
                    closeNow();
                } else if (stream != null) {
                    // a complete request: served unless option abortonclose aborts it
                    stream.onClientHalfClosed();
                }
            }
            default -> closeNow();
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        if (phase == Phase.TUNNEL) {
            timer.arm(tunnelTimeout());
            if (stream != null) {
                stream.onTunnelFromClient(in);
            } else {
                in.release();
            }
            return;
        }
        if (phase == Phase.LINGER) {
            lingered += in.readableBytes();
            in.release();
            if (lingered > MAX_DRAIN) {
                ch.close();
            }
            return;
        }
        if (phase == Phase.CLOSING || parser.failed()) {
            in.release();
            return;
        }
        if (phase == Phase.EXCHANGE || phase == Phase.DRAIN) {
            timer.arm(frontend.timeouts().client());
        } else if (!input.isReadable() && parser.idle()) {
            requestStart = System.nanoTime();
            if (requests > 0) {
                // first bytes of a kept-alive connection's next request: the head must now arrive in time
                timer.arm(requestTimeout());
            }
        }
        input.append(ctx.alloc(), in);
        if (!prefaceChecked) {
            // HTTP/2 with prior knowledge on a connection that started as HTTP/1, as HAProxy's HTTP/1 multiplexer upgrades
            int m = ProxyHeader.prefixMatch(input.get(), HttpVersion.H2_PREFACE);
            if (m == 0) {
                return;
            }
            prefaceChecked = true;
            if (m > 0) {
                upgradeToH2(ctx);
                return;
            }
        }
        parseInput();
        if (parser.paused() && input.readableBytes() > MAX_BUFFERED_AHEAD) {
            // a pipelining client got far ahead of its responses: stop reading until they catch up
            ch.config().setAutoRead(false);
        }
    }

    /**
     * Gives the connection to an HTTP/2 handler with what was received (the preface included), keeping its slot,
     * its session counters and its log; the HTTP/1 side only stops its timer and no longer counts as open.
     */
    private void upgradeToH2(ChannelHandlerContext ctx) {
        ByteBuf received = input.get().retainedDuplicate();
        input.release();
        timer.cancel();
        frontend.connectionClosed(false);
        boolean a = admitted;
        admitted = false;
        phase = Phase.CLOSING;
        ctx.pipeline().replace(this, ctx.name(), H2ClientConnection.upgraded(frontend, a));
        ctx.fireChannelRead(received);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (stream != null) {
            stream.flushServer();
        }
        flush();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        boolean writable = ch.isWritable();
        if (stream != null) {
            stream.onClientWritable(writable);
        }
        if (!writable) {
            timer.arm(frontend.timeouts().client());
        } else if (phase == Phase.EXCHANGE && requestEnded) {
            // the client reads again: nothing is expected from it until the response is done
            timer.disarm();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (timer != null) {
            timer.cancel();
            frontend.connectionClosed(false);
        }
        input.release();
        Stream s = stream;
        stream = null;
        if (s != null) {
            if (phase == Phase.TUNNEL) {
                s.onTunnelClosed(true, false);
            } else {
                s.onClientClosed();
            }
        }
        if (admitted) {
            admitted = false;
            limit.release();
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // connection resets and the like: the connection goes, the process stays
        UnexpectedErrors.report("H1ClientConnection", cause);
        ch.close();
    }

    // ------------------------------------------------------------------ parsing

    private void parseInput() {
        if (inParse) {
            reparse = true;
            return;
        }
        inParse = true;
        try {
            do {
                reparse = false;
                ByteBuf b = input.get();
                if (b != null && b.isReadable() && !parser.paused() && !parser.failed() && phase != Phase.CLOSING) {
                    parser.parse(b);
                }
            } while (reparse);
            input.compact();
        } finally {
            inParse = false;
        }
    }

    @Override
    public void onHead(MessageHead head) {
        RequestHead req = (RequestHead) head;
        requests++;
        phase = Phase.EXCHANGE;
        writer.request(req.version());
        requestEnded = false;
        clientKeepAlive = (req.version() == HttpVersion.HTTP_1_1 ? !parser.closeWanted() : parser.keepAliveWanted())
                && !parser.closeAfter();
        if (req.hasBody()) {
            timer.arm(frontend.timeouts().client());
        } else {
            timer.disarm();
        }
        stream = new Stream(this, frontend = frontend.current(ch), req); // a reload's new configuration, if any
        stream.start();
    }

    @Override
    public void onBody(ByteBuf data) {
        if (phase == Phase.DRAIN || stream == null) {
            drained += data.readableBytes();
            data.release();
            if (drained > MAX_DRAIN && phase == Phase.DRAIN) {
                // the answer is out: the client may still be sending, so linger rather than reset it
                phase = Phase.CLOSING;
                timer.disarm();
                lingerAfter(ctx.writeAndFlush(Unpooled.EMPTY_BUFFER));
            } else if (drained > MAX_DRAIN) {
                closeNow();
            }
            return;
        }
        stream.onRequestBody(data);
    }

    @Override
    public void onEnd(HttpFields trailers) {
        requestEnded = true;
        if (phase == Phase.DRAIN) {
            nextRequest();
            return;
        }
        if (stream != null) {
            // the parser now waits for the response; reading goes on (no epoll change per request) and
            // only a client pipelining more than MAX_BUFFERED_AHEAD bytes gets paused (see channelRead)
            timer.disarm();
            stream.onRequestEnd(trailers);
        }
    }

    @Override
    public void onError(H1Error error) {
        Stream s = stream;
        Backend be = s == null ? null : s.backend();
        Server srv = s == null ? null : s.server();
        frontend.lastError(ErrorCapture.capture(true, frontend.name(), frontend.id(), be == null ? null : be.name(),
                be == null ? -1 : be.id(), srv == null ? null : srv.name(), srv == null ? -1 : srv.id(), remoteAddress(), input.get(),
                parser.messageStart(), error.offset()));
        stream = null;
        if (s != null) {
            s.onClientClosed();
        }
        if (writer.headSent()) {
            closeNow();
            return;
        }
        logBadRequest(error.status(), Cause.PROXY, State.REQUEST, false);
        sendRawAndClose(GeneratedResponse.of(error.status()));
    }

    /**
     * Counts and logs a request that never became a stream (HAProxy's "&lt;BADREQ&gt;" lines). {@code empty}: nothing was
     * received on the connection; HAProxy counts it all the same and {@code option dontlognull} only keeps it out of the log.
     */
    private void logBadRequest(int status, Cause cause, State state, boolean empty) {
        // every invalid request (400, 408, 413, 414, 431) passes here: the one place ereq is counted for HTTP/1
        frontend.countInvalidRequest(status, ch);
        RequestLog.badRequest(this, frontend, status, cause, state, empty);
    }

    // ------------------------------------------------------------------ ClientSide

    @Override
    public EventLoop loop() {
        return ch.eventLoop();
    }

    @Override
    public int loopIndex() {
        return loopIndex;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote != null ? remote : ClientAddresses.remote(ch);
    }

    @Override
    public InetSocketAddress localAddress() {
        return local != null ? local : ClientAddresses.local(ch);
    }

    @Override
    public ProxyHeader.Received proxyHeader() {
        return proxyHeader;
    }

    /** Whether the connection closes after this response, whatever its framing. */
    private boolean mustClose() {
        return !clientKeepAlive || inputClosed || stream == null || stream.connectionMode() == HttpOptions.ConnectionMode.CLOSE
                || frontend.isStopped();
    }

    @Override
    public void sendHead(ResponseHead head) {
        if (head.isInterim()) {
            writer.interim(head);
        } else {
            writer.head(head, mustClose());
        }
    }

    @Override
    public void sendBody(ByteBuf data) {
        writer.body(data);
    }

    @Override
    public void sendEnd(HttpFields trailers) {
        writer.end(trailers);
        exchangeDone();
    }

    @Override
    public void sendGenerated(ResponseHead head, byte[] body) {
        writer.generated(head, body, mustClose(), stream != null && stream.request().isHead());
        exchangeDone();
    }

    @Override
    public boolean isWritable() {
        return ch.isWritable();
    }

    @Override
    public ClientTimes times() {
        return times;
    }

    @Override
    public long requestStartNanos() {
        return requestStart;
    }

    @Override
    public boolean tls() {
        return tlsSession != null;
    }

    @Override
    public TlsSession tlsSession() {
        return tlsSession;
    }

    @Override
    public long bytesOut() {
        return writer.bytesOut();
    }

    @Override
    public void flush() {
        writer.flush();
    }

    @Override
    public void pauseRequestBody() {
        ch.config().setAutoRead(false);
    }

    @Override
    public void resumeRequestBody() {
        if (phase == Phase.EXCHANGE && !requestEnded) {
            ch.config().setAutoRead(true);
        }
    }

    @Override
    public void startTunnel() {
        phase = Phase.TUNNEL;
        timer.arm(tunnelTimeout());
        ch.config().setAutoRead(true);
        ByteBuf rest = input.get();
        if (rest != null && rest.isReadable() && stream != null) {
            stream.onTunnelFromClient(rest.readRetainedSlice(rest.readableBytes()));
        }
        input.compact();
    }

    @Override
    public void sendRaw(ByteBuf data) {
        timer.arm(tunnelTimeout());
        writer.raw(data);
    }

    private long tunnelTimeout() {
        long t = frontend.timeouts().tunnel();
        return t != Timeouts.UNSET ? t : frontend.timeouts().client();
    }

    @Override
    public void abort() {
        stream = null;
        if (phase == Phase.TUNNEL) {
            phase = Phase.CLOSING;
            timer.disarm();
            ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        // what the response already wrote goes out first (as HAProxy forwards what it had): a head whose body
        // the server then cut short reaches the client before the close, instead of nothing at all
        flush();
        closeNow();
    }

    // ------------------------------------------------------------------ between exchanges

    private void exchangeDone() {
        stream = null;
        if (!writer.keepAlive() || inputClosed || !ch.isActive()) {
            phase = Phase.CLOSING;
            writer.flushedByCaller();
            ChannelFuture written = ctx.writeAndFlush(Unpooled.EMPTY_BUFFER);
            if (requestEnded && !input.isReadable()) {
                written.addListener(ChannelFutureListener.CLOSE);
            } else {
                // answered before the request was read whole: the client may still be sending
                lingerAfter(written);
            }
            return;
        }
        if (!requestEnded) {
            phase = Phase.DRAIN;
            drained = 0;
            flush();
            timer.arm(frontend.timeouts().client());
            ch.config().setAutoRead(true);
            parseInput();
            return;
        }
        nextRequest();
    }

    private void nextRequest() {
        flush();
        phase = Phase.WAIT_REQUEST;
        writer.nextRequest();
        parser.resume();
        requestStart = System.nanoTime();
        times.next(requestStart);
        if (input.isReadable()) {
            timer.arm(requestTimeout());
        } else {
            long ka = frontend.timeouts().effectiveKeepAlive();
            timer.arm(ka != Timeouts.UNSET ? ka : frontend.timeouts().client());
        }
        ch.config().setAutoRead(true);
        parseInput();
    }

    private long requestTimeout() {
        long t = frontend.timeouts().httpRequest();
        return t != Timeouts.UNSET ? t : frontend.timeouts().client();
    }

    private void armRequestTimeout() {
        timer.arm(requestTimeout());
    }

    private void onTimeout() {
        switch (phase) {
            case WAIT_REQUEST -> {
                boolean empty = requests == 0 && parser.idle() && !input.isReadable();
                if (empty && frontend.config().options().ignoreProbes()) {
                    // option http-ignore-probes: a connection that never sent a byte (a browser's pre-connect) goes quietly
                    closeNow();
                } else if (requests == 0 || !parser.idle() || input.isReadable()) {
                    // HAProxy answers 408 to a new connection or a started request; an idle kept-alive one just closes
                    logBadRequest(408, Cause.CLIENT_TIMEOUT, State.REQUEST, requests == 0 && !input.isReadable());
                    sendRawAndClose(GeneratedResponse.of(408));
                } else {
                    closeNow();
                }
            }
            case EXCHANGE -> {
                Stream s = stream;
                stream = null;
                if (s != null) {
                    s.onClientTimeout();
                }
                closeNow();
            }
            case TUNNEL -> {
                Stream s = stream;
                stream = null;
                if (s != null) {
                    s.onTunnelClosed(true, true);
                }
                closeNow();
            }
            default -> closeNow();
        }
    }

    private void sendRawAndClose(GeneratedResponse r) {
        phase = Phase.CLOSING;
        timer.disarm();
        ByteBuf page = writer.errorPage(r, frontend.errors());
        if (page == null) {
            // the frontend's errorfile for this status is empty: close without an answer
            ch.close();
            return;
        }
        lingerAfter(ctx.writeAndFlush(page));
    }

    /**
     * Closes once {@code written} is out without destroying it: closing a socket with unread input makes the kernel answer
     * with a reset, which can reach the client before it reads the answer (a 431 to a 70 KB header line arrived as
     * "connection reset"). So the output is shut first (the FIN follows the answer, as HAProxy's shutdown(SHUT_WR) before
     * close), then input is read and dropped until the client's FIN, {@link #MAX_DRAIN} bytes, or the client-fin timeout.
     */
    private void lingerAfter(ChannelFuture written) {
        written.addListener(f -> {
            if (!f.isSuccess() || !ch.isActive() || inputClosed) {
                ch.close();
                return;
            }
            phase = Phase.LINGER;
            lingered = 0;
            timer.arm(Linger.millis(frontend.timeouts(), MAX_LINGER_MILLIS));
            ch.config().setAutoRead(true);
            Linger.shutdownOutput(ch);
        });
    }

    private void closeNow() {
        phase = Phase.CLOSING;
        timer.disarm();
        ch.close();
    }
}
