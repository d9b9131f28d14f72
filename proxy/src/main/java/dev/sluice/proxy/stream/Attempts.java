package dev.sluice.proxy.stream;

import dev.sluice.config.model.Retries;
import dev.sluice.proxy.backend.Backend;
import dev.sluice.proxy.backend.Server;
import dev.sluice.proxy.http.RequestHead;
import dev.sluice.proxy.stats.Counter;
import io.netty.buffer.ByteBuf;
import io.netty.util.AsciiString;
import java.util.ArrayDeque;

/**
 * The attempts of one request at its servers: how many retries it has left ({@code retries}, or
 * {@code http-request set-retries}), which failures {@code retry-on} lets it retry, the request body kept for
 * a replay, whether a retry moves to another server ({@code option redispatch}), and what the log says about
 * it ({@code %rc} and its "+"). It decides and counts; the stream acts on the decisions. One per stream, on
 * its loop.
 * <p>
 * A request is sent again after it went out (anything but a connection failure) only when that is safe: its
 * method is idempotent (GET HEAD OPTIONS TRACE PUT DELETE, RFC 9110) and its body, if any, is complete and was
 * kept whole. HAProxy retries any method there; Sluice does not replay a POST.
 * <p>
 * Without a request (a stream that carries no HTTP request) only connection failures are retried: nothing is ever
 * sent again, nor kept for a replay.
 */
final class Attempts {

    /** What to do after a failure once the request went out. */
    enum Again {
        /** Nothing: the failure goes to the client. */
        NO,
        /** A reused connection died before any response byte (stale keep-alive): send again on a new connection. */
        STALE,
        /** {@code retry-on} covers it: a retry, counted and perhaps redispatched. */
        RETRY
    }

    private final Backend backend;
    /** The request, null for a stream without one. */
    private final RequestHead request;
    private final int retries;
    private final boolean idempotent;
    private int done;
    /** The server came from a stickiness rule (HAProxy's SF_DIRECT). */
    private boolean direct;
    /** The server of the last assignment while a new one is made (requeue, redispatch); null otherwise. */
    private Server previous;
    private boolean redispatched;
    private RequestReplay replay;
    /** {@code disable-l7-retry}: only connection failures are retried. */
    private boolean l7Disabled;

    /** As below, {@code disable-l7-retry} having run for the request when {@code l7Disabled}. */
    Attempts(Backend backend, RequestHead request, int retries, boolean l7Disabled) {
        this(backend, request, retries);
        this.l7Disabled = l7Disabled;
    }

    /** The attempts of {@code request} (null: a stream without a request), with {@code retries} retries. */
    Attempts(Backend backend, RequestHead request, int retries) {
        this.backend = backend;
        this.request = request;
        this.retries = retries;
        // no request: never sent again (afterSending and sending both stop at this flag)
        this.idempotent = request != null && idempotent(request.method());
    }

    /** {@code http-request disable-l7-retry}: after the request went out, no {@code retry-on} retry. */
    void disableL7Retry() {
        l7Disabled = true;
    }

    static boolean idempotent(AsciiString m) {
        return m.contentEquals("GET") || m.contentEquals("HEAD") || m.contentEquals("OPTIONS") || m.contentEquals("TRACE")
                || m.contentEquals("PUT") || m.contentEquals("DELETE");
    }

    void direct(boolean d) {
        direct = d;
    }

    boolean direct() {
        return direct;
    }

    /** Retries made so far (the log's %rc). */
    int done() {
        return done;
    }

    /** Whether the request moved to another server than first chosen (the log's "+"). */
    boolean redispatched() {
        return redispatched;
    }

    /** A connection to the server failed: whether {@code retry-on conn-failure} gives it another attempt (counted). */
    boolean connectFailed() {
        if (done < retries && backend.retryPolicy().on().contains(Retries.RetryOn.CONN_FAILURE)) {
            done++;
            return true;
        }
        return false;
    }

    /**
     * The request went out and failed by {@code event}, or got {@code status} (0: none): whether it goes again.
     * {@code reused}: it was on a reused connection; {@code requestEnded}: the client sent all of it.
     */
    Again afterSending(Retries.RetryOn event, int status, boolean reused, boolean requestEnded) {
        if (!idempotent || request.hasBody() && (replay == null || !replay.whole() || !requestEnded)) {
            return Again.NO;
        }
        if (event == Retries.RetryOn.EMPTY_RESPONSE && reused) {
            return Again.STALE;
        }
        if (l7Disabled) {
            return Again.NO;
        }
        Retries p = backend.retryPolicy();
        boolean covered = status > 0 ? p.statuses().contains(status) : p.on().contains(event);
        if (!covered || done >= retries) {
            return Again.NO;
        }
        done++;
        return Again.RETRY;
    }

    /**
     * Whether the next attempt goes through the balancing again (HAProxy's stream_choose_redispatch); if so the
     * request leaves {@code s} (see {@link #assigned}).
     */
    boolean redispatch(Server s) {
        if (!backend.redispatchOnRetry(s, direct, done)) {
            return false;
        }
        leaving(s);
        direct = false;
        return true;
    }

    /** The request leaves {@code s} for a new assignment (redispatch, requeue). */
    void leaving(Server s) {
        previous = s;
    }

    /** The server it is leaving, or null. */
    Server previous() {
        return previous;
    }

    /**
     * A slot is held on {@code s}: after a new assignment, HAProxy counts a redispatch on the server left when
     * the server changed, else a retry.
     */
    void assigned(Server s) {
        if (previous == null) {
            return;
        }
        Counter c = previous != s ? Counter.REDISPATCHES : Counter.RETRIES;
        previous.counters().add(c);
        backend.counters().add(c);
        redispatched |= previous != s;
        previous = null;
    }

    /**
     * The request is about to go on a connection: keeps its body for a replay when one may be needed (retries
     * after sending are configured, or the connection is reused and might be stale).
     */
    void sending(ServerSide c) {
        if (replay == null && idempotent && request.hasBody() && (!l7Disabled && backend.retryPolicy().afterSending() || c.reused())) {
            replay = new RequestReplay(RequestBody.MAX_HELD_BODY);
        }
    }

    /** A body chunk about to be sent. */
    void sent(ByteBuf chunk) {
        if (replay != null) {
            replay.keep(chunk);
        }
    }

    /** The body to send again (owned by the caller), or null when there is none. */
    ArrayDeque<ByteBuf> replayBody() {
        if (replay == null) {
            return null;
        }
        ArrayDeque<ByteBuf> b = replay.take();
        replay = null;
        return b;
    }

    /** A response is on its way to the client: no replay any more. */
    void release() {
        if (replay != null) {
            replay.release();
            replay = null;
        }
    }
}
