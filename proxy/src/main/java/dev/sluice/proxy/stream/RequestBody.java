package dev.sluice.proxy.stream;

import dev.sluice.proxy.http.HeaderNames;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.HttpVersion;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.http.Status;
import io.netty.buffer.ByteBuf;
import io.netty.util.AsciiString;
import java.util.ArrayDeque;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The request body a {@link Stream} holds while it has no server connection: buffered up to a limit (the client is
 * paused beyond it), held for {@code wait-for-body} (what {@code req.body} reads), handed to the server connection once
 * there, and whether the request ended. Owned by its stream, used on the stream's event loop only; it owns the
 * buffers it holds until they are sent or released.
 */
final class RequestBody {
    /** Request body held while no server connection is ready; beyond this the client is paused. */
    private static final int MAX_PENDING_BODY = 64 * 1024;
    /**
     * The most request body {@code wait-for-body} holds: HAProxy's buffer is full at {@code tune.bufsize}
     * (16384) less {@code tune.maxrewrite} (1024).
     */
    static final int MAX_HELD_BODY = 16384 - 1024;

    private final Stream stream;
    private final ClientSide client;
    private final RequestHead request;
    private boolean ended;
    private HttpFields trailers;
    private ArrayDeque<ByteBuf> pending;
    private int pendingBytes;
    private boolean paused;
    /** Set once a {@code wait-for-body} ran: the held body is what {@code req.body} reads. */
    private boolean held;
    private boolean waiting;
    private long waitBytes;
    private ScheduledFuture<?> waitTimer;
    private byte[] heldBody;

    RequestBody(Stream stream, ClientSide client, RequestHead request) {
        this.stream = stream;
        this.client = client;
        this.request = request;
    }

    /** Whether the whole request arrived. */
    boolean ended() {
        return ended;
    }

    /** The whole request arrived. */
    void markEnded() {
        ended = true;
    }

    /** The request's trailers (may be null), kept until a server connection takes them with the end. */
    void keepTrailers(HttpFields trailers) {
        this.trailers = trailers;
    }

    /** Whether the rules wait for the body ({@code wait-for-body}). */
    boolean waiting() {
        return waiting;
    }

    /** Whether the client was paused because too much body is held. */
    boolean paused() {
        return paused;
    }

    /**
     * Holds a piece of body (taking ownership) while no server connection is there; true when a {@code wait-for-body}
     * now has what it waited for (the caller resumes the rules with {@link #arrived}).
     */
    boolean hold(ByteBuf data) {
        if (pending == null) {
            pending = new ArrayDeque<>();
        }
        pending.add(data);
        pendingBytes += data.readableBytes();
        heldBody = null;
        if (waiting && pendingBytes >= waitBytes) {
            return true;
        }
        if (pendingBytes > MAX_PENDING_BODY && !paused) {
            paused = true;
            client.pauseRequestBody();
        }
        return false;
    }

    /** The server connection is there: what is held goes to it (counted by {@code attempts} for a replay), then the end. */
    void sendTo(ServerSide c, Attempts attempts) {
        if (pending != null) {
            ByteBuf b;
            while ((b = pending.poll()) != null) {
                attempts.sent(b);
                c.sendBody(b);
            }
            pendingBytes = 0;
        }
        if (ended) {
            c.sendEnd(trailers);
        } else {
            c.flush();
        }
        if (paused) {
            paused = false;
            if (c.isWritable()) {
                client.resumeRequestBody();
            }
        }
    }

    /** The body of a request sent again (an L7 retry): held until the next connection takes it. */
    void replay(ArrayDeque<ByteBuf> body) {
        pending = body;
        for (ByteBuf b : body) {
            pendingBytes += b.readableBytes();
        }
    }

    /** Releases what is held (the exchange is over, or went another way). */
    void release() {
        if (pending != null) {
            ByteBuf b;
            while ((b = pending.poll()) != null) {
                b.release();
            }
            pendingBytes = 0;
        }
    }

    /**
     * {@code wait-for-body}: true at once when the body is complete or {@code atLeast} bytes (at most
     * {@link #MAX_HELD_BODY}) are held; otherwise holds the request, answering an {@code Expect: 100-continue} itself as
     * HAProxy does, until enough arrived ({@link #hold} or the end says so), or until {@code millis} passed: then
     * {@code timedOut} runs, unless the stream finished meanwhile.
     */
    boolean waitFor(long millis, long atLeast, Runnable timedOut) {
        held = true;
        long want = atLeast > 0 ? Math.min(atLeast, MAX_HELD_BODY) : MAX_HELD_BODY;
        if (ended || !request.hasBody() || pendingBytes >= want) {
            return true;
        }
        waiting = true;
        waitBytes = want;
        AsciiString expect = request.fields().get(HeaderNames.EXPECT);
        if (expect != null && expect.contentEqualsIgnoreCase("100-continue")) {
            request.fields().removeAll(HeaderNames.EXPECT);
            ResponseHead interim = new ResponseHead(HttpVersion.HTTP_1_1, 100, Status.reason(100), new HttpFields(0));
            // in the response's bytes, as HAProxy's http_reply_100_continue counts it
            stream.accounting().responded(interim.htxSize());
            client.sendHead(interim);
            client.flush();
        }
        waitTimer = client.loop().schedule(() -> {
            if (waiting && !stream.finished()) {
                waiting = false;
                timedOut.run();
            }
        }, millis, TimeUnit.MILLISECONDS);
        return false;
    }

    /** What {@code wait-for-body} waited for arrived: the wait ends (the caller resumes the rules). */
    void arrived() {
        waiting = false;
        if (waitTimer != null) {
            waitTimer.cancel(false);
            waitTimer = null;
        }
    }

    /** The body held by {@code wait-for-body} ({@code req.body}), null when none ran. */
    byte[] held() {
        if (!held) {
            return null;
        }
        if (heldBody == null) {
            heldBody = copy(pending, pendingBytes);
        }
        return heldBody;
    }

    /** The readable bytes of {@code pieces} ({@code bytes} of them; null: none) in one array, the pieces untouched. */
    static byte[] copy(java.util.Collection<ByteBuf> pieces, int bytes) {
        byte[] b = new byte[bytes];
        int at = 0;
        if (pieces != null) {
            for (ByteBuf p : pieces) {
                int n = p.readableBytes();
                p.getBytes(p.readerIndex(), b, at, n);
                at += n;
            }
        }
        return b;
    }
}
