package dev.sluice.proxy.tcp;

import dev.sluice.proxy.stream.TcpSplice;
import dev.sluice.proxy.transport.SpliceCalls;
import dev.sluice.proxy.transport.SpliceRegion;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.epoll.AbstractEpollStreamChannel;
import io.netty.util.concurrent.FastThreadLocal;

/**
 * A spliced direction between two epoll socket channels: splice(2) from the source socket into a pipe of its own,
 * then the pipe's bytes written to the target as {@link SpliceRegion}s, in order with what the relay copied before.
 * The source reads at most {@link #PEEK} bytes per wakeup through Netty (small exchanges stay a copy; the read is the
 * readiness signal), the rest is spliced at the end of the batch. What the pipe holds counts as the target's pending
 * bytes. Used on the channels' event loop.
 */
final class ChannelSplice implements TcpSplice {
    /** Bytes Netty reads per wakeup of a spliced source. */
    static final int PEEK = 1024;

    private static final FastThreadLocal<SpliceCalls> CALLS = new FastThreadLocal<>() {
        @Override
        protected SpliceCalls initialValue() {
            return new SpliceCalls();
        }
    };

    private final SpliceCalls calls = CALLS.get();
    private final int source;
    private final ChannelPeer sourcePeer;
    private final ChannelPeer target;
    private final AbstractEpollStreamChannel targetChannel;
    private final Runnable drained;
    private final int[] pipe;
    private final int capacity;
    private long inPipe;
    private boolean closed;

    private ChannelSplice(ChannelPeer from, AbstractEpollStreamChannel source, ChannelPeer target, int[] pipe,
            int capacity, Runnable drained) {
        this.source = source.fd().intValue();
        this.sourcePeer = from;
        this.target = target;
        this.targetChannel = (AbstractEpollStreamChannel) target.ch;
        this.pipe = pipe;
        this.capacity = capacity;
        this.drained = drained;
        source.config().setRecvByteBufAllocator(new FixedRecvByteBufAllocator(PEEK).maxMessagesPerRead(1));
    }

    /** A splice from {@code from} to {@code to}, or null when either is not a clear-text epoll socket or no pipe. */
    static ChannelSplice between(ChannelPeer from, ChannelPeer to, int pipeSize, Runnable drained) {
        if (!SpliceCalls.available() || !(from.ch instanceof AbstractEpollStreamChannel src)
                || !(to.ch instanceof AbstractEpollStreamChannel) || from.encrypted() || to.encrypted()) {
            return null;
        }
        SpliceCalls calls = CALLS.get();
        try {
            int[] p = calls.pipe(pipeSize);
            return new ChannelSplice(from, src, to, p, calls.pipeSize(p[0]), drained);
        } catch (SpliceCalls.Failure e) {
            return null;
        }
    }

    @Override
    public long pump() {
        long total = 0;
        try {
            while (!closed && inPipe < capacity) {
                long n = calls.splice(source, pipe[1], capacity - inPipe);
                if (n <= 0) {
                    // AGAIN: drained; 0: the end of the stream, which Netty reads next (EPOLLRDHUP)
                    break;
                }
                inPipe += n;
                total += n;
                long moved = n;
                target.splicePending += moved;
                target.writeRegion(new SpliceRegion(calls, pipe[0], targetChannel, moved), f -> {
                    inPipe -= moved;
                    target.splicePending -= moved;
                    if (f.isSuccess()) {
                        drained.run();
                    }
                });
            }
        } catch (SpliceCalls.Failure e) {
            // the source failed (reset). The call took the socket's error: Netty's next read finds only its end, which
            // must not pass for a FIN
            sourcePeer.failed(e);
        }
        if (total > 0) {
            target.flush();
        }
        return total;
    }

    @Override
    public boolean full() {
        return inPipe >= capacity;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            SpliceCalls.close(pipe[0]);
            SpliceCalls.close(pipe[1]);
        }
    }
}
