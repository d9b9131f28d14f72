package dev.sluice.proxy.stream;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;

/**
 * When an HTTP client connection and its streams began, as HAProxy's session times them for the log: the connection's
 * accept (%t of its first stream), the handshakes that followed it (PROXY header, TLS: %Th of the first stream), and each
 * stream's own "accept", from which its idle time (%Ti) runs until its request starts: the end of the handshakes for the
 * first stream, then the end of the previous request (HTTP/1) or the previous stream's creation (HTTP/2), without
 * handshake. One per connection, used on its event loop.
 */
public final class ClientTimes {
    /** {epoch ms, nanos} of the accept, left on the channel by the handler that came first (PROXY header reader, TLS). */
    private static final AttributeKey<long[]> ACCEPTED = AttributeKey.valueOf("sluice.accepted");

    private final long acceptDate;
    private long streamAccept;
    private long handshakeMs;

    private ClientTimes(long acceptDate, long acceptNanos, long now) {
        this.acceptDate = acceptDate;
        this.streamAccept = acceptNanos;
        this.handshakeMs = Accounting.ms(acceptNanos, now);
    }

    /** The first handler of connection {@code ch} notes its accept (the first to call it wins). */
    public static void accepted(Channel ch, long date, long nanos) {
        ch.attr(ACCEPTED).setIfAbsent(new long[] {date, nanos});
    }

    /** The times of connection {@code ch}, whose handshakes end now (accepted now when no handler noted an earlier accept). */
    public static ClientTimes of(Channel ch) {
        long now = System.nanoTime();
        long[] a = ch.attr(ACCEPTED).setIfAbsent(new long[] {System.currentTimeMillis(), now});
        // a handler that comes later on the connection (HTTP/2 after an HTTP/1 preface) finds the same accept
        return a == null ? new ClientTimes(ch.attr(ACCEPTED).get()[0], now, now) : new ClientTimes(a[0], a[1], now);
    }

    /** Epoch milliseconds of the connection's accept. */
    public long acceptDate() {
        return acceptDate;
    }

    /** The current stream's accept ({@link System#nanoTime()}). */
    public long streamAcceptNanos() {
        return streamAccept;
    }

    /** The current stream's handshake time (%Th): the connection's handshakes for its first stream, 0 after. */
    public long handshakeMs() {
        return handshakeMs;
    }

    /** The next stream's accept is {@code now} ({@link System#nanoTime()}), without handshake. */
    public void next(long now) {
        streamAccept = now;
        handshakeMs = 0;
    }
}
