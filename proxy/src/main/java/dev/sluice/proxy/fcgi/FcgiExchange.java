package dev.sluice.proxy.fcgi;

import dev.sluice.config.model.FcgiApp;
import dev.sluice.config.model.Timeouts;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.http.HeaderNames;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.MessageHead;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.http.Status;
import dev.sluice.proxy.rules.FcgiRules;
import dev.sluice.proxy.stream.Deadline;
import dev.sluice.proxy.stream.ServerFailure;
import dev.sluice.proxy.stream.Stream;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One request on a FastCGI connection, both ways: the stream's request written as BEGIN_REQUEST, PARAMS (built by
 * {@link FcgiParams} with the backend's {@code fcgi-app} rules) and STDIN records under its request id; the STDOUT of that
 * id read as a CGI response ({@link CgiHead}, then the body) and handed to the stream, END_REQUEST its end. A request body
 * of unknown length (no Content-Length) is held until its end, so that CONTENT_LENGTH can be given, as HAProxy waits for
 * the body. Applies {@code timeout server} while the stream is attached. The connection that carries it
 * ({@link FcgiServerConnection}, one request at a time, or a {@link FcgiMuxStream} of a {@link FcgiMuxConnection}) writes
 * its records ({@link Wire}) and routes the records of its id to it. Used only on the connection's loop.
 */
final class FcgiExchange {
    /** A request body held for its length beyond this is refused (500). */
    static final int MAX_HELD_BODY = 16 << 20;

    /** The connection's side: where records go. */
    interface Wire {
        ByteBufAllocator alloc();

        /** Writes records (not flushed yet). */
        void write(ByteBuf records);

        /** Writes out what was written. */
        void flush();
    }

    /** The application's settings, the same for every request of a connection. */
    record App(Server server, FcgiApp app, FcgiParams.App defaults, FcgiRules rules, String software) {
        static App of(Server server, FcgiApp app, FcgiRules rules, String software) {
            return new App(server, app, new FcgiParams.App(app.docroot(), app.index(), app.pathInfo() == null ? null : Pattern.compile(app.pathInfo())),
                    rules, software);
        }
    }

    private final App app;
    private final Wire wire;
    private final EventLoop loop;
    private final Deadline timer;
    private Stream stream;
    private int id;
    private boolean beginSent;
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
    private final List<ByteBuf> early = new ArrayList<>();

    FcgiExchange(App app, Wire wire, EventLoop loop, Runnable onTimeout) {
        this.app = app;
        this.wire = wire;
        this.loop = loop;
        this.timer = new Deadline(loop, onTimeout);
    }

    /** A new request: {@code s}'s, under request id {@code id}. */
    void start(Stream s, int id) {
        stream = s;
        this.id = id;
        beginSent = false;
        requestEnded = false;
        responseEnded = false;
        anyResponseBytes = false;
        headSent = false;
        endSent = false;
        head = null;
        timer.disarm();
    }

    Stream stream() {
        return stream;
    }

    int id() {
        return id;
    }

    /** BEGIN_REQUEST went out. */
    boolean beginSent() {
        return beginSent;
    }

    /** The whole request went out (the empty STDIN record). */
    boolean requestEnded() {
        return requestEnded;
    }

    /** END_REQUEST came (REQUEST_COMPLETE, after a CGI head). */
    boolean responseEnded() {
        return responseEnded;
    }

    /** Whether any STDOUT byte of the response came. */
    boolean anyResponseBytes() {
        return anyResponseBytes;
    }

    long serverTimeout() {
        if (stream != null) {
            return stream.serverTimeout();
        }
        long t = app.server().backend().timeouts().server();
        return t == Timeouts.UNSET ? 0 : t;
    }

    /** {@code timeout server} starts again (something came from the application, or the request went out). */
    void arm() {
        timer.arm(serverTimeout());
    }

    void disarm() {
        timer.disarm();
    }

    void cancelTimer() {
        timer.cancel();
    }

    /** The stream is gone: nothing more is handed to it, what was held is released. */
    void detach() {
        stream = null;
        timer.disarm();
        releaseHeld();
        releaseResponse();
    }

    // ------------------------------------------------------------------ request

    void sendHead(RequestHead h) {
        noBody = h.isHead();
        continueExpected(h);
        if (h.body() == MessageHead.Body.STREAMED) {
            // the client's pace while the body is held: timeout server starts once the request goes out
            heldHead = h;
            heldBody = wire.alloc().compositeBuffer(Integer.MAX_VALUE);
            return;
        }
        arm();
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
            Map<String, String> set = app.rules() == null ? Map.of() : app.rules().params(stream.target());
            Set<String> hidden = app.rules() == null ? Set.of() : app.rules().hidden(stream.target());
            var client = stream.client();
            Server server = app.server();
            params = FcgiParams.build(app.defaults(), h, set, hidden, new FcgiParams.Exchange(client.remoteAddress(), client.localAddress(),
                    client.tls(), app.software(), server.backend().sendNameHeader(), server.name()), bodyLength);
        } catch (IllegalArgumentException e) {
            // HAProxy's processing error: an internal error for the client
            Stream s = stream;
            loop.execute(() -> {
                if (!s.finished()) {
                    s.fail(500);
                }
            });
            return false;
        }
        wire.write(FcgiRecords.beginRequest(wire.alloc(), id, app.app().keepConn()));
        wire.write(FcgiRecords.params(wire.alloc(), id, params));
        beginSent = true;
        return true;
    }

    void sendBody(ByteBuf data) {
        if (heldBody != null) {
            if (heldBody.readableBytes() + (long) data.readableBytes() > MAX_HELD_BODY) {
                data.release();
                releaseHeld();
                Stream s = stream;
                loop.execute(() -> {
                    if (s != null && !s.finished()) {
                        s.fail(500);
                    }
                });
                return;
            }
            heldBody.addComponent(true, data);
            return;
        }
        if (!data.isReadable() || !beginSent) {
            data.release();
            return;
        }
        wire.write(FcgiRecords.stdin(wire.alloc(), id, data));
    }

    void sendEnd() {
        if (heldHead != null) {
            RequestHead h = heldHead;
            ByteBuf body = heldBody;
            heldHead = null;
            heldBody = null;
            arm();
            if (!begin(h, body.readableBytes())) {
                body.release();
                return;
            }
            if (body.isReadable()) {
                wire.write(FcgiRecords.stdin(wire.alloc(), id, body));
            } else {
                body.release();
            }
        }
        if (!beginSent) {
            return;
        }
        wire.write(FcgiRecords.stdinEnd(wire.alloc(), id));
        requestEnded = true;
        wire.flush();
    }

    private void releaseHeld() {
        heldHead = null;
        if (heldBody != null) {
            heldBody.release();
            heldBody = null;
        }
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

    // ------------------------------------------------------------------ response

    /** After the records of a read: hands the stream a response head that came whole, and the response's end. */
    void afterRead() {
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
                r.fields().removeAll(HeaderNames.CONTENT_LENGTH);
            }
        } else if (declared >= 0) {
            r.bodyLength(declared);
        } else if (responseEnded) {
            long n = 0;
            for (ByteBuf b : early) {
                n += b.readableBytes();
            }
            // the whole response came at once: its length is known (HAProxy's fcgi filter adds it then)
            r.fields().add(HeaderNames.CONTENT_LENGTH, new io.netty.util.AsciiString(Long.toString(n)));
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

    /** A piece of this request's STDOUT (released here). */
    void onStdout(ByteBuf data) {
        if (stream == null || responseEnded || !data.isReadable()) {
            data.release();
            return;
        }
        anyResponseBytes = true;
        if (head == null) {
            if (headBytes == null) {
                headBytes = wire.alloc().buffer(data.readableBytes());
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

    /**
     * This request's END_REQUEST: the end of the response when it is REQUEST_COMPLETE after a CGI head; otherwise
     * (refused: overloaded, cannot multiplex, unknown role; or no head) an invalid response. Whether it was complete.
     */
    boolean onEndRequest(int protocolStatus) {
        if (stream == null) {
            return false;
        }
        if (protocolStatus != FcgiRecords.REQUEST_COMPLETE || head == null) {
            invalid();
            return false;
        }
        responseEnded = true;
        return true;
    }

    /** The response cannot be read (an invalid head or record): false when no stream was there to tell. */
    boolean invalid() {
        Stream s = stream;
        if (s == null) {
            return false;
        }
        s.onServerFailure(headSent ? ServerFailure.TRUNCATED : ServerFailure.INVALID_RESPONSE);
        return true;
    }

    /** The connection closed (or broke) before the response's end: the stream is told, as the closing {@code kind}. */
    void closed(ServerFailure kind) {
        Stream s = stream;
        if (s != null && !responseEnded) {
            s.onServerFailure(kind != null ? kind : anyResponseBytes ? ServerFailure.TRUNCATED : ServerFailure.CLOSED_BEFORE_RESPONSE);
        }
    }

    /** {@code timeout server} expired: whether a stream was there to tell. */
    boolean timedOut() {
        Stream s = stream;
        if (s == null) {
            return false;
        }
        s.onServerFailure(ServerFailure.TIMEOUT);
        return true;
    }

    /** A STDERR record's content (released), logged as the backend's application logs it, without its final line feeds. */
    static void logStderr(Server server, ByteBuf data) {
        try {
            String text = data.toString(java.nio.charset.StandardCharsets.ISO_8859_1);
            while (text.endsWith("\n")) {
                text = text.substring(0, text.length() - 1);
            }
            server.backend().fcgiStderr(text);
        } finally {
            data.release();
        }
    }
}
