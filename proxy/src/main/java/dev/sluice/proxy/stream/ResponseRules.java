package dev.sluice.proxy.stream;

import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.ResponseHead;
import dev.sluice.proxy.rules.Rule;
import dev.sluice.proxy.stream.Termination.Cause;
import dev.sluice.proxy.stream.Termination.State;
import io.netty.buffer.ByteBuf;
import java.util.ArrayDeque;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The http-response rules of a {@link Stream}: the backend's, then the frontend's, stopping at an {@code http-response
 * wait-for-body} that must wait and going on from the same rule once what it waits for arrived. While it waits the
 * response is held: its head goes nowhere yet, its body pieces are kept, its end is noted; once the rules pass, the stream
 * sends the head ({@link Stream#responseRulesPassed}) and the held pieces and end follow in order. As HAProxy 2.6's
 * {@code http_wait_for_msg_body} on a response: nothing to wait for without a body; the wait ends with the whole body,
 * {@code at-least} bytes of it, or a full buffer ({@code tune.bufsize} less {@code tune.maxrewrite}, as for the request);
 * when the time passes first the client gets a 504 and the log sR (as HAProxy 2.6 logs it). Owned by its stream, on the stream's event loop only;
 * it owns the pieces it holds until they are sent or released.
 */
final class ResponseRules {
    private final Stream stream;
    private final StreamTarget target;
    /** Where the rules stopped for {@code wait-for-body}: the next rule, and whether it is a frontend rule. */
    private int ruleIndex;
    private boolean frontendRules;
    /** The compression's decision on this response, made before the rules and applied once they pass. */
    private boolean compressing;
    private ArrayDeque<ByteBuf> pending;
    private int pendingBytes;
    private boolean ended;
    private HttpFields trailers;
    /** Set once a {@code wait-for-body} ran: the held body is what {@code res.body} reads. */
    private boolean held;
    private boolean waiting;
    private long waitBytes;
    private ScheduledFuture<?> waitTimer;
    private byte[] heldBody;

    ResponseRules(Stream stream, StreamTarget target) {
        this.stream = stream;
        this.target = target;
    }

    /**
     * Runs the rules of a response head from the first ({@code compressing}: the compression's decision on it): true when
     * they all passed and the head goes to the client now; false when one ended the exchange, or they wait for the body
     * (then the stream's ResponseRules, made by the wait, notes where to go on). No object is made while no rule waits.
     */
    static boolean start(Stream stream, StreamTarget target, boolean compressing) {
        return run(stream, target, false, 0, compressing);
    }

    private boolean resume() {
        return run(stream, target, frontendRules, ruleIndex, compressing);
    }

    private static boolean run(Stream stream, StreamTarget target, boolean frontendRules, int ruleIndex, boolean compressing) {
        if (!frontendRules) {
            int r = Rule.resume(stream.backend().rules().response(), target, ruleIndex);
            if (r == Rule.ENDED || waits(stream, r, false, compressing)) {
                return false;
            }
            ruleIndex = 0;
        }
        int r = Rule.resume(stream.frontend().rules().response(), target, ruleIndex);
        return r != Rule.ENDED && !waits(stream, r, true, compressing);
    }

    /** Whether a rule stopped to wait for the body; if so, notes where the rules go on ({@code next}, of which list). */
    private static boolean waits(Stream stream, int next, boolean frontend, boolean compressing) {
        ResponseRules w = stream.responseRules(false);
        if (w == null || !w.waiting) {
            return false;
        }
        w.ruleIndex = next;
        w.frontendRules = frontend;
        w.compressing = compressing;
        return true;
    }

    /** The response is all here (a cached one): a {@code wait-for-body} passes at once. Returns this. */
    ResponseRules complete() {
        ended = true;
        return this;
    }

    /**
     * {@code http-response wait-for-body}: true at once when the response has no body, or its whole body, or
     * {@code atLeast} bytes of it (at most a buffer), are here; otherwise the rules wait for them until {@code millis}
     * passed.
     */
    boolean waitFor(long millis, long atLeast) {
        held = true;
        ResponseHead head = stream.response();
        long want = atLeast > 0 ? Math.min(atLeast, RequestBody.MAX_HELD_BODY) : RequestBody.MAX_HELD_BODY;
        if (ended || head == null || !head.hasBody() || pendingBytes >= want) {
            return true;
        }
        waiting = true;
        waitBytes = want;
        waitTimer = stream.client().loop().schedule(() -> {
            if (waiting && !stream.finished()) {
                waiting = false;
                waitTimer = null;
                // http_wait_for_msg_body's abort_res: a 504 for a server timeout; HAProxy 2.6 logs the state as R (sR--)
                stream.outcome().set(Cause.SERVER_TIMEOUT, State.REQUEST);
                stream.fail(504);
            }
        }, millis, TimeUnit.MILLISECONDS);
        return false;
    }

    /** A piece of response body while the rules wait: kept (ownership taken); false when they do not wait. */
    boolean hold(ByteBuf data) {
        if (!waiting) {
            return false;
        }
        if (pending == null) {
            pending = new ArrayDeque<>();
        }
        pending.add(data);
        pendingBytes += data.readableBytes();
        heldBody = null;
        if (pendingBytes >= waitBytes) {
            arrived();
        }
        return true;
    }

    /** The response's end while the rules wait: noted, and the rules go on; false when they do not wait. */
    boolean holdEnd(HttpFields trailers) {
        if (!waiting) {
            return false;
        }
        ended = true;
        this.trailers = trailers;
        arrived();
        return true;
    }

    /** What the wait waited for is here: the rules go on; when they pass, the head, then what was held, go out. */
    private void arrived() {
        target.woken();
        waiting = false;
        if (waitTimer != null) {
            waitTimer.cancel(false);
            waitTimer = null;
        }
        if (!resume()) {
            return;
        }
        // res.body keeps what the rules read (a log line may read it after the pieces left)
        held();
        ResponseHead head = stream.response();
        stream.responseRulesPassed(head, compressing);
        ArrayDeque<ByteBuf> p = pending;
        pending = null;
        pendingBytes = 0;
        for (ByteBuf b = p == null ? null : p.poll(); b != null; b = p.poll()) {
            if (stream.finished()) {
                b.release();
            } else {
                stream.sendResponseBody(b);
            }
        }
        if (ended && !stream.finished()) {
            stream.onResponseEnd(trailers);
        }
    }

    /** The body held by {@code wait-for-body} ({@code res.body}), null when none ran. */
    byte[] held() {
        if (!held) {
            return null;
        }
        if (heldBody == null) {
            heldBody = RequestBody.copy(pending, pendingBytes);
        }
        return heldBody;
    }

    /** Releases what {@code r} holds, if any (the exchange ended first). Idempotent. */
    static void release(ResponseRules r) {
        if (r != null) {
            r.release();
        }
    }

    private void release() {
        waiting = false;
        if (waitTimer != null) {
            waitTimer.cancel(false);
            waitTimer = null;
        }
        ArrayDeque<ByteBuf> p = pending;
        pending = null;
        pendingBytes = 0;
        for (ByteBuf b = p == null ? null : p.poll(); b != null; b = p.poll()) {
            b.release();
        }
    }
}
