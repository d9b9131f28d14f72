package dev.sluice.proxy.stream;

import io.netty.buffer.ByteBuf;
import java.util.ArrayDeque;

/**
 * What of a request body has been sent to a server, kept so that the request can be sent again (a retry
 * after the request went out, a stale reused connection): retained slices of the chunks as they went, no
 * copy, up to a bound ({@code tune.bufsize} less {@code tune.maxrewrite}, as HAProxy only retries requests
 * that fit in a buffer). Beyond the bound nothing is kept and the request cannot be replayed. Owned by one
 * stream, on its loop.
 */
final class RequestReplay {
    private final int limit;
    private ArrayDeque<ByteBuf> chunks = new ArrayDeque<>();
    private int bytes;
    private boolean overflowed;

    RequestReplay(int limit) {
        this.limit = limit;
    }

    /** Keeps a view of a chunk about to be sent (the caller still hands {@code sent} itself on). */
    void keep(ByteBuf sent) {
        if (overflowed) {
            return;
        }
        bytes += sent.readableBytes();
        if (bytes > limit) {
            release();
            overflowed = true;
            return;
        }
        chunks.add(sent.retainedSlice());
    }

    /** Whether every byte sent so far is kept. */
    boolean whole() {
        return !overflowed;
    }

    /** The kept chunks, to send again (the caller owns them now); nothing is kept any more. */
    ArrayDeque<ByteBuf> take() {
        ArrayDeque<ByteBuf> out = chunks;
        chunks = new ArrayDeque<>();
        bytes = 0;
        return out;
    }

    int bytes() {
        return bytes;
    }

    void release() {
        ByteBuf b;
        while ((b = chunks.poll()) != null) {
            b.release();
        }
        bytes = 0;
    }
}
