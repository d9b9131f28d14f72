package dev.sluice.quic;

import dev.sluice.pools.Pool;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.DatagramPacket;
import io.netty.util.collection.LongObjectHashMap;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongPredicate;

/**
 * The handler in front of the QUIC codec on one UDP socket: it keeps the {@link ClosingConnection} records of
 * the connections the server closed and answers their datagrams itself, never reaching the codec (which freed
 * those connections at once). It sees every datagram first: empty ones are dropped (a zero-length datagram is
 * no QUIC packet; io_uring writes one as a flush barrier on close), those whose destination CID carries the
 * prefix of a record feed that record, which re-sends its CONNECTION_CLOSE datagram on HAProxy's back-off. On
 * the way out it captures the CONNECTION_CLOSE datagram of a closing connection ({@link #beginCapture} /
 * {@link #endCapture}, bracketing the codec's synchronous close). Records are freed at their deadline by one
 * timer per socket. Owned by the socket's event loop.
 */
public final class ClosingConnections extends ChannelDuplexHandler {
    /**
     * The deadline's cap: a record never lives longer than this (HAProxy: min(3 x PTO, 1 s)). The system
     * property {@code sluice.quic.closingMaxLifetimeMs} changes it for measurements only (the memory bench keeps
     * 10,000 records alive long enough to weigh them); never set it in production.
     */
    static final long MAX_LIFETIME_NANOS = TimeUnit.MILLISECONDS.toNanos(Long.getLong("sluice.quic.closingMaxLifetimeMs", 1000));

    private final Pool<ClosingConnection> pool;
    private final QuicCounters counters;
    private final AtomicInteger dropCloses;
    private final LongObjectHashMap<ClosingConnection> byPrefix = new LongObjectHashMap<>();
    private final PriorityQueue<ClosingConnection> byDeadline = new PriorityQueue<>((a, b) -> Long.compare(a.deadline, b.deadline));
    private ChannelHandlerContext ctx;
    private ScheduledFuture<?> timer;
    private long timerAt;

    /** While the socket stops: whether a CID prefix names a live connection (else null), and what to run once empty. */
    private LongPredicate live;
    private Runnable whenEmpty;

    private InetSocketAddress capturing;
    /** Datagrams to the peer written while capturing: message, promise, message, promise ... */
    private final List<Object> held = new ArrayList<>(4);

    /**
     * @param pool        where records come from (its {@code alloc} may refuse: the close then keeps nothing)
     * @param dropCloses  test knob: while positive, captured CONNECTION_CLOSE datagrams are dropped instead of
     *                    sent (and the count decremented), as if the network had lost them
     */
    public ClosingConnections(Pool<ClosingConnection> pool, QuicCounters counters, AtomicInteger dropCloses) {
        this.pool = pool;
        this.counters = counters;
        this.dropCloses = dropCloses;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
        ClosingConnection r;
        while ((r = byDeadline.poll()) != null) {
            free(r);
        }
        byPrefix.clear();
        releaseHeld();
    }

    /**
     * The socket stops taking connections: from now on a long-header datagram (Initial, 0-RTT, Handshake) is
     * dropped unless its destination CID names a connection for which {@code isLive} holds, so no new connection
     * reaches the codec while existing handshakes finish; {@code whenEmpty} runs each time the last record goes.
     */
    void stopAccepting(LongPredicate isLive, Runnable whenEmpty) {
        this.live = isLive;
        this.whenEmpty = whenEmpty;
    }

    /** Records alive now (the socket's loop only). */
    public int size() {
        return byPrefix.size();
    }

    /** Whether a record uses {@code prefix} (the CID generator then draws another). */
    boolean taken(long prefix) {
        return byPrefix.containsKey(prefix);
    }

    /** The records, for {@code show quic} (the socket's loop only). */
    List<ClosingConnection> records() {
        return new ArrayList<>(byPrefix.values());
    }

    // ------------------------------------------------------------------ inbound

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof DatagramPacket p) {
            ByteBuf c = p.content();
            if (!c.isReadable()) {
                counters.emptyDatagrams.increment();
                p.release();
                return;
            }
            if (!byPrefix.isEmpty() && Cids.hasOurCid(c)) {
                ClosingConnection r = byPrefix.get(Cids.datagramPrefix(c));
                if (r != null) {
                    answer(r, p);
                    return;
                }
            }
            if (live != null && (c.getByte(c.readerIndex()) & 0x80) != 0 && !(Cids.hasOurCid(c) && live.test(Cids.datagramPrefix(c)))) {
                // stopping: a new connection (or a Retry's follow-up); the client retries, and reaches the sockets
                // of the new process once this one is gone
                counters.refusedWhileStopping.increment();
                p.release();
                return;
            }
        }
        ctx.fireChannelRead(msg);
    }

    private void answer(ClosingConnection r, DatagramPacket p) {
        counters.closingDatagrams.increment();
        int len = p.content().readableBytes();
        InetSocketAddress from = p.sender();
        p.release();
        int before = r.packetsForResend;
        if (r.onDatagram(len, r.isPeer(from))) {
            r.sent();
            counters.closeResends.increment();
            ctx.writeAndFlush(new DatagramPacket(Unpooled.wrappedBuffer(r.datagram), from), ctx.voidPromise());
        } else if (r.packetsForResend != before) {
            counters.closeAmplificationDrops.increment();
        }
    }

    // ------------------------------------------------------------------ outbound

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof DatagramPacket p) {
            if (!p.content().isReadable()) {
                counters.emptyDatagrams.increment();
                p.release();
                promise.trySuccess();
                return;
            }
            if (capturing != null && capturing.equals(p.recipient())) {
                held.add(p);
                held.add(promise);
                return;
            }
        }
        ctx.write(msg, promise);
    }

    /**
     * The codec is about to close a connection with {@code peer}: hold what it writes there until
     * {@link #endCapture}, the last datagram being the one with CONNECTION_CLOSE.
     */
    void beginCapture(InetSocketAddress peer) {
        releaseHeld();
        capturing = peer;
    }

    /**
     * The close is done: sends what was held (the CONNECTION_CLOSE datagram last, unless the test knob drops
     * it) and keeps a record of the connection when there was such a datagram.
     *
     * @param rx         bytes received from the peer over the connection's life
     * @param tx         bytes sent to it before the close
     * @param validated  whether the peer's address is validated (no amplification limit applies)
     * @param lifetime   nanoseconds the record should live (3 x PTO; capped at 1 s)
     * @return the record, or null when nothing was sent or the pool refused
     */
    ClosingConnection endCapture(long prefix, long rx, long tx, boolean validated, long lifetime) {
        InetSocketAddress peer = capturing;
        capturing = null;
        int n = held.size() / 2;
        if (n == 0) {
            return null;
        }
        DatagramPacket last = (DatagramPacket) held.get(2 * n - 2);
        ByteBuf c = last.content();
        byte[] datagram = new byte[c.readableBytes()];
        c.getBytes(c.readerIndex(), datagram);
        for (int i = 0; i < n; i++) {
            DatagramPacket p = (DatagramPacket) held.get(2 * i);
            ChannelPromise promise = (ChannelPromise) held.get(2 * i + 1);
            if (i == n - 1 && dropCloses.get() > 0 && dropCloses.getAndDecrement() > 0) {
                counters.knobDrops.increment();
                p.release();
                promise.trySuccess();
            } else {
                ctx.write(p, promise);
            }
        }
        held.clear();
        ctx.flush();
        ClosingConnection r = pool == null ? new ClosingConnection() : pool.alloc();
        if (r == null) {
            counters.poolFailures.increment();
            return null;
        }
        long now = System.nanoTime();
        r.set(prefix, peer, datagram, rx, tx + datagram.length, validated, now, now + Math.min(lifetime, MAX_LIFETIME_NANOS));
        ClosingConnection old = byPrefix.put(prefix, r);
        if (old != null) {
            byDeadline.remove(old);
            free(old);
        }
        byDeadline.add(r);
        counters.closingRecords.increment();
        arm(r.deadline);
        return r;
    }

    private void releaseHeld() {
        for (int i = 0; i + 1 < held.size(); i += 2) {
            ((DatagramPacket) held.get(i)).release();
            ((ChannelPromise) held.get(i + 1)).trySuccess();
        }
        held.clear();
    }

    // ------------------------------------------------------------------ deadlines

    private void arm(long deadline) {
        if (timer != null && timerAt <= deadline) {
            return;
        }
        if (timer != null) {
            timer.cancel(false);
        }
        timerAt = deadline;
        timer = ctx.executor().schedule(this::expire, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    private void expire() {
        timer = null;
        long now = System.nanoTime();
        ClosingConnection r;
        while ((r = byDeadline.peek()) != null && r.deadline - now <= 0) {
            byDeadline.poll();
            if (byPrefix.get(r.prefix) == r) {
                byPrefix.remove(r.prefix);
            }
            free(r);
        }
        if (r != null) {
            arm(r.deadline);
        } else if (whenEmpty != null) {
            whenEmpty.run();
        }
    }

    private void free(ClosingConnection r) {
        counters.recordsFreed.increment();
        if (pool != null) {
            pool.release(r);
        } else {
            r.clear();
        }
    }
}
