package dev.sluice.proxy.fcgi;

import dev.sluice.proxy.stream.ServerFailure;
import dev.sluice.config.model.FcgiApp;
import dev.sluice.config.model.Timeouts;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.backend.ServerConnector;
import dev.sluice.proxy.diag.UnexpectedErrors;
import dev.sluice.proxy.http.HeaderNames;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.MessageHead;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.http.Status;
import dev.sluice.proxy.http.h1.InputBuffer;
import dev.sluice.proxy.rules.FcgiRules;
import dev.sluice.proxy.stream.Deadline;
import dev.sluice.proxy.stream.ServerSide;
import dev.sluice.proxy.stream.Stream;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A FastCGI connection to a {@code proto fcgi} server, one request at a time (the connection-pool design of
 * {@code h1.H1ServerConnection}): the stream's request goes out as BEGIN_REQUEST, PARAMS (built by {@link FcgiParams}
 * with the backend's {@code fcgi-app} rules) and STDIN records; STDOUT is read as a CGI response ({@link CgiHead}, then
 * the body), STDERR is logged ({@code log-stderr}), END_REQUEST ends the response. With {@code option keep-conn} (the
 * default) the application keeps the connection and it goes back to its loop's idle pool, as an HTTP/1 one does.
 * A request body of unknown length (no Content-Length) is held until its end, so that CONTENT_LENGTH can be given, as
 * HAProxy waits for the body. Applies {@code timeout server} while a stream is attached. One instance per connection,
 * used only on its loop.
 */
public final class FcgiServerConnection extends ChannelInboundHandlerAdapter implements ServerSide, FcgiRecordReader.Sink {
    /** A request body held for its length beyond this is refused (500). */
    static final int MAX_HELD_BODY = 16 << 20;

    private final Server server;
    private final int loopIndex;
    private final FcgiApp app;
    private final FcgiParams.App defaults;
    private final FcgiRules rules;
    private final String software;
    private final FcgiRecordReader reader = new FcgiRecordReader(this);
    private final InputBuffer input = new InputBuffer();
    private ChannelHandlerContext ctx;
    private Channel ch;
    private Deadline timer;
    private Stream stream;
    private int requests;
    private int id;
    private Object owner;
    private boolean parked;
    private boolean inUse;
    private boolean dirty;
    private boolean requestEnded;
    private boolean responseEnded;
    private boolean anyResponseBytes;
    private boolean noBody;
    /** The request head while its body is held for its length (no Content-Length); null otherwise. */
    private RequestHead heldHead;
    private CompositeByteBuf heldBody;
    /** The CGI head being received; the response head parsed but not handed on yet; the body that came with it. */
    private ByteBuf headBytes;
    private ResponseHead head;
    private boolean headSent;
    private boolean endSent;
    /** Inside {@link #channelRead}: the input buffer is the reader's until it returns. */
    private boolean reading;
    private final List<ByteBuf> early = new ArrayList<>();
    /** What GET_VALUES told (0: not asked or not told). */
    private int maxReqs;
    private int mpxsConns = -1;

    public FcgiServerConnection(Server server, int loopIndex, FcgiApp app, FcgiRules rules, String software) {
        this.server = server;
        this.loopIndex = loopIndex;
        this.app = app;
        this.rules = rules;
        this.software = software;
        this.defaults = new FcgiParams.App(app.docroot(), app.index(), app.pathInfo() == null ? null : Pattern.compile(app.pathInfo()));
    }

    @Override
    public dev.sluice.proxy.tls.TlsSession tlsSession() {
        return ch == null ? null : dev.sluice.proxy.tls.TlsSession.of(ch);
    }

    @Override
    public Channel channel() {
        return ch;
    }

    /** HAProxy 2.6 answers 1 for every HTX mux but H2's, FastCGI's included. */
    @Override
    public int httpMajor() {
        return 1;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.ch = ctx.channel();
        this.timer = new Deadline(ch.eventLoop(), this::onTimeout);
        if (ch.isActive()) {
            connected();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        connected();
        ctx.fireChannelActive();
    }

    private boolean greeted;

    /** A new connection: FCGI_GET_VALUES first with {@code option get-values}. */
    private void connected() {
        if (greeted) {
            return;
        }
        greeted = true;
        if (app.getValues()) {
            ctx.write(FcgiRecords.getValues(ctx.alloc()));
            dirty = true;
        }
    }

    /** FCGI_MAX_REQS as the application told it (0: not asked or not told). */
    int maxReqs() {
        return maxReqs;
    }

    /** FCGI_MPXS_CONNS as the application told it (-1: not asked or not told). */
    int mpxsConns() {
        return mpxsConns;
    }

    // ------------------------------------------------------------------ ServerSide

    @Override
    public void attach(Stream s) {
        stream = s;
        parked = false;
        if (!inUse) {
            inUse = true;
            ServerConnector.used(server, loopIndex);
        }
        requests++;
        id = id >= 0xffff ? 1 : id + 1;
        requestEnded = false;
        responseEnded = false;
        anyResponseBytes = false;
        headSent = false;
        endSent = false;
        head = null;
        timer.disarm();
    }

    @Override
    public boolean isOpen() {
        return ch.isActive();
    }

    @Override
    public String sni() {
        return null;
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
    public void ownerGone(Object session) {
        if (owner == session) {
            abort();
        }
    }

    @Override
    public boolean reused() {
        return requests > 1;
    }

    private void notInUse() {
        if (inUse) {
            inUse = false;
            ServerConnector.unused(server, loopIndex);
        }
    }

    private long serverTimeout() {
        if (stream != null) {
            return stream.serverTimeout();
        }
        long t = server.backend().timeouts().server();
        return t == Timeouts.UNSET ? 0 : t;
    }

    @Override
    public void sendHead(RequestHead h) {
        noBody = h.isHead();
        continueExpected(h);
        if (h.body() == MessageHead.Body.STREAMED) {
            // the client's pace while the body is held: timeout server starts once the request goes out
            heldHead = h;
            heldBody = ctx.alloc().compositeBuffer(Integer.MAX_VALUE);
            return;
        }
        timer.arm(serverTimeout());
        begin(h, 0);
    }

    /**
     * {@code Expect: 100-continue}: an application never answers it, so the proxy does, and the field goes, as HAProxy's
     * wait for the body of a FastCGI request does (http_handle_expect_hdr) for HTTP/1.1 and later.
     */
    private void continueExpected(RequestHead h) {
        if (h.version() == HttpVersion.HTTP_1_0) {
            return;
        }
        HttpFields f = h.fields();
        for (int i = 0; i < f.size(); i++) {
            if (f.name(i).contentEqualsIgnoreCase(HeaderNames.EXPECT) && f.value(i).toString().strip().equalsIgnoreCase("100-continue")) {
                f.remove(i);
                stream.onResponseHead(new ResponseHead(HttpVersion.HTTP_1_1, 100, Status.reason(100), new HttpFields(0)));
                stream.flushClient();
                return;
            }
        }
    }

    /** BEGIN_REQUEST and PARAMS; false (the stream answered 500) when the parameters cannot be built. */
    private boolean begin(RequestHead h, long bodyLength) {
        List<String[]> params;
        try {
            Map<String, String> set = rules == null ? Map.of() : rules.params(stream.target());
            Set<String> hidden = rules == null ? Set.of() : rules.hidden(stream.target());
            var client = stream.client();
            params = FcgiParams.build(defaults, h, set, hidden, new FcgiParams.Exchange(client.remoteAddress(), client.localAddress(),
                    client.tls(), software, server.backend().sendNameHeader(), server.name()), bodyLength);
        } catch (IllegalArgumentException e) {
            // HAProxy's processing error: an internal error for the client
            Stream s = stream;
            ch.eventLoop().execute(() -> {
                if (!s.finished()) {
                    s.fail(500);
                }
            });
            return false;
        }
        ctx.write(FcgiRecords.beginRequest(ctx.alloc(), id, app.keepConn()));
        ctx.write(FcgiRecords.params(ctx.alloc(), id, params));
        dirty = true;
        return true;
    }

    @Override
    public void sendBody(ByteBuf data) {
        if (heldBody != null) {
            if (heldBody.readableBytes() + (long) data.readableBytes() > MAX_HELD_BODY) {
                data.release();
                releaseHeld();
                Stream s = stream;
                ch.eventLoop().execute(() -> {
                    if (s != null && !s.finished()) {
                        s.fail(500);
                    }
                });
                return;
            }
            heldBody.addComponent(true, data);
            return;
        }
        if (!data.isReadable()) {
            data.release();
            return;
        }
        ctx.write(FcgiRecords.stdin(ctx.alloc(), id, data));
        dirty = true;
    }

    @Override
    public void sendEnd(HttpFields trailers) {
        if (heldHead != null) {
            RequestHead h = heldHead;
            ByteBuf body = heldBody;
            heldHead = null;
            heldBody = null;
            timer.arm(serverTimeout());
            if (!begin(h, body.readableBytes())) {
                body.release();
                return;
            }
            if (body.isReadable()) {
                ctx.write(FcgiRecords.stdin(ctx.alloc(), id, body));
            } else {
                body.release();
            }
        }
        ctx.write(FcgiRecords.stdinEnd(ctx.alloc(), id));
        requestEnded = true;
        dirty = false;
        ctx.flush();
    }

    private void releaseHeld() {
        heldHead = null;
        if (heldBody != null) {
            heldBody.release();
            heldBody = null;
        }
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
        timer.disarm();
    }

    @Override
    public void resumeResponseBody() {
        ch.config().setAutoRead(true);
        if (stream != null && !responseEnded) {
            timer.arm(serverTimeout());
        }
    }

    @Override
    public void release() {
        stream = null;
        ch.config().setAutoRead(true);
        timer.disarm();
        releaseHeld();
        releaseResponse();
        // after a reload the connection closes: its application's settings (docroot, params) are the old configuration's
        boolean keep = app.keepConn() && requestEnded && responseEnded && ch.isActive() && !input.isReadable() && !server.retired()
                && (owner != null || ServerConnector.keepIdle(server, loopIndex)) && ServerConnector.current(server, ch.remoteAddress());
        notInUse();
        if (keep) {
            parked = true;
            ServerConnector.park(server, loopIndex, this);
        } else {
            ch.close();
        }
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
        reader.stop();
        notInUse();
        releaseHeld();
        releaseResponse();
        ch.close();
    }

    private void releaseResponse() {
        if (headBytes != null) {
            headBytes.release();
            headBytes = null;
        }
        for (ByteBuf b : early) {
            b.release();
        }
        early.clear();
    }

    // ------------------------------------------------------------------ channel events

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        if (stream == null && !app.getValues() || reader.failed()) {
            // nothing was asked: an application talking out of turn cannot be trusted with another request
            in.release();
            ch.close();
            return;
        }
        if (stream != null) {
            timer.arm(serverTimeout());
        }
        reading = true;
        try {
            reader.read(input.append(ctx.alloc(), in));
        } finally {
            reading = false;
        }
        if (!ch.isActive() || reader.failed()) {
            input.release();
            return;
        }
        input.compact();
        if (stream != null && head != null && !headSent) {
            sendHeadOn();
        }
        if (stream != null && responseEnded && headSent && !endSent) {
            endSent = true;
            timer.disarm();
            stream.onResponseEnd(null);
        }
    }

    /** Hands the response head to the stream with what body came in the same read (its length when that was all). */
    private void sendHeadOn() {
        ResponseHead r = head;
        headSent = true;
        long declared = CgiHead.contentLength(r);
        if (noBody || r.status() == 204 || r.status() == 304 || r.status() < 200) {
            r.bodyNone();
            if (r.status() == 204) {
                r.fields().removeAll(dev.sluice.proxy.http.HeaderNames.CONTENT_LENGTH);
            }
        } else if (declared >= 0) {
            r.bodyLength(declared);
        } else if (responseEnded) {
            long n = 0;
            for (ByteBuf b : early) {
                n += b.readableBytes();
            }
            // the whole response came at once: its length is known (HAProxy's fcgi filter adds it then)
            r.fields().add(dev.sluice.proxy.http.HeaderNames.CONTENT_LENGTH, new io.netty.util.AsciiString(Long.toString(n)));
            r.bodyLength(n);
        } else {
            r.bodyStreamed();
        }
        Stream s = stream;
        s.onResponseHead(r);
        List<ByteBuf> pieces = List.copyOf(early);
        early.clear();
        for (ByteBuf b : pieces) {
            if (stream == s && !noBody && r.hasBody()) {
                s.onResponseBody(b);
            } else {
                b.release();
            }
        }
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
        if (s != null && !responseEnded) {
            s.onServerFailure(anyResponseBytes ? ServerFailure.TRUNCATED : ServerFailure.CLOSED_BEFORE_RESPONSE);
        }
        reader.stop();
        releaseHeld();
        releaseResponse();
        if (!reading) {
            input.release();
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        UnexpectedErrors.report("FcgiServerConnection", cause);
        ch.close();
    }

    private void onTimeout() {
        if (stream != null) {
            stream.onServerFailure(ServerFailure.TIMEOUT);
        } else {
            ch.close();
        }
    }

    private void invalid() {
        Stream s = stream;
        if (s != null && !headSent) {
            s.onServerFailure(ServerFailure.INVALID_RESPONSE);
        } else if (s != null) {
            s.onServerFailure(ServerFailure.TRUNCATED);
        } else {
            ch.close();
        }
    }

    // ------------------------------------------------------------------ records

    @Override
    public void onStdout(int rid, ByteBuf data) {
        if (stream == null || rid != id || responseEnded) {
            data.release();
            return;
        }
        if (!data.isReadable()) {
            data.release();
            return;
        }
        anyResponseBytes = true;
        if (head == null) {
            if (headBytes == null) {
                headBytes = ctx.alloc().buffer(data.readableBytes());
            }
            headBytes.writeBytes(data);
            data.release();
            ResponseHead r;
            try {
                r = CgiHead.parse(headBytes, stream.request().version() != HttpVersion.HTTP_1_0);
            } catch (IllegalArgumentException e) {
                headBytes.release();
                headBytes = null;
                invalid();
                return;
            }
            if (r == null) {
                return;
            }
            head = r;
            ByteBuf rest = headBytes;
            headBytes = null;
            if (rest.isReadable()) {
                early.add(rest);
            } else {
                rest.release();
            }
            return;
        }
        if (!headSent) {
            early.add(data);
            return;
        }
        if (noBody || !head.hasBody()) {
            data.release();
            return;
        }
        stream.onResponseBody(data);
    }

    @Override
    public void onStderr(int rid, ByteBuf data) {
        try {
            String text = data.toString(StandardCharsets.ISO_8859_1);
            while (text.endsWith("\n")) {
                text = text.substring(0, text.length() - 1);
            }
            server.backend().fcgiStderr(text);
        } finally {
            data.release();
        }
    }

    @Override
    public void onEndRequest(int rid, long appStatus, int protocolStatus) {
        if (stream == null || rid != id) {
            return;
        }
        if (protocolStatus != FcgiRecords.REQUEST_COMPLETE || head == null) {
            // refused (overloaded, cannot multiplex, unknown role) or ended without a CGI head
            invalid();
            return;
        }
        responseEnded = true;
    }

    @Override
    public void onValues(ByteBuf content) {
        try {
            Map<String, String> v = FcgiRecords.readPairs(content);
            String r = v.get("FCGI_MAX_REQS");
            String m = v.get("FCGI_MPXS_CONNS");
            if (r != null && r.matches("\\d{1,9}")) {
                maxReqs = Integer.parseInt(r);
            }
            if (m != null && m.matches("\\d{1,9}")) {
                mpxsConns = Integer.parseInt(m);
            }
        } catch (IllegalArgumentException e) {
            // a malformed answer tells nothing
        }
    }

    @Override
    public void onError(String why) {
        invalid();
        if (ch.isActive()) {
            ch.close();
        }
    }
}
