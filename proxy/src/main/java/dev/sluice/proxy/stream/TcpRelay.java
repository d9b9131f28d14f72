package dev.sluice.proxy.stream;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;

/**
 * The two directions of a layer-4 stream: what is read on one socket is written through to the other (no copy, one
 * flush per read batch), with back-pressure (a socket's reading stops while the other cannot take more, and goes on
 * when it drains), half-closes carried both ways (a FIN read on one socket is sent on the other once what was written
 * there is out), and HAProxy's inactivity timeouts per side. The stream ends when both directions are shut, or when a
 * side fails or times out; the relay tells its {@link Listener} and keeps nothing else.
 * <p>
 * Timeouts, as HAProxy 2.6's stream: a side's timer runs while the relay waits on it, to read (its input is open and
 * not paused) or to write (bytes or a FIN are pending towards it); reading from it or writing to it re-arms the timer,
 * and a timer that fires while the pending bytes went down meanwhile re-arms too (the peer reads, slowly). The value is
 * {@code timeout client} on the client side and {@code timeout server} on the server side, or {@code timeout tunnel}
 * for both once connected; once a FIN was sent to a side its read timeout is its {@code -fin} timeout
 * ({@code timeout client-fin}, {@code server-fin}), and with a tunnel timeout so is its write timeout once it sent its
 * own FIN. Before the server connection exists, the client's bytes are held (up to {@link #HOLD_LIMIT}, then reading
 * stops) and written first once connected.
 * <p>
 * One per stream, used on the stream's event loop only.
 */
final class TcpRelay {
    /** Client bytes held while the server connection is not there yet, by default: HAProxy's buffer size. */
    static final int HOLD_LIMIT = 16384;

    /** What the relay tells its stream. */
    interface Listener {
        /** Both directions were shut cleanly (a FIN each way, carried to the other side). */
        void relayEnded();

        /** A side failed (reset, write error, closed without its FIN): the {@code client} one or the server one. */
        void sideFailed(boolean client);

        /** A side's timeout expired while the relay waited on it. */
        void sideTimedOut(boolean client);
    }

    /** One socket of the stream and what the relay knows of it. */
    final class Side {
        final boolean client;
        Side other;
        TcpPeer peer;
        final Deadline timer;
        /** Its FIN was read. */
        boolean inputShut;
        /** A FIN towards it waits for the bytes written before it. */
        boolean finPending;
        /** A FIN was sent to it. */
        boolean finSent;
        /** What it sends is held, not written to the other side (response inspection). */
        boolean holding;
        /** Reading from it stopped: the other side cannot take more (or the hold is full). */
        boolean paused;
        /** Bytes read from it. */
        long bytesRead;
        /** Its bytes go to the other side through the kernel (null: copied). */
        TcpSplice splice;
        /** Its pending write bytes when the timer was last armed (a drop since then is progress). */
        private long pendingAtArm;
        /**
         * What it sent before the other side existed (the client's first bytes while connecting), in one buffer: content
         * inspection reads it as the payload.
         */
        private ByteBuf held;

        Side(boolean client, EventLoop loop) {
            this.client = client;
            this.timer = new Deadline(loop, this::expired);
        }

        private void pause() {
            if (!paused) {
                paused = true;
                peer.reading(false);
            }
        }

        private void resume() {
            if (paused && !inputShut && (held == null || held.readableBytes() < holdLimit) && (splice == null || !splice.full())) {
                paused = false;
                peer.reading(true);
            }
        }

        /** Whether bytes or a FIN wait to be written to this side. */
        private boolean writing() {
            return finPending || peer != null && (!peer.isWritable() || peer.pendingBytes() > 0);
        }

        /** The timeout to wait on this side now, 0 when the relay does not wait on it. */
        private long timeout() {
            if (peer == null) {
                return 0;
            }
            boolean tunnel = connected && tunnelTimeout > 0;
            long base = tunnel ? tunnelTimeout : client ? clientTimeout : serverTimeout;
            long fin = client ? clientFinTimeout : serverFinTimeout;
            long t = 0;
            if (!inputShut && !paused) {
                t = finSent && fin > 0 ? fin : base;
            }
            if (writing()) {
                long w = tunnel && inputShut && fin > 0 ? fin : base;
                t = t <= 0 ? w : w <= 0 ? t : Math.min(t, w);
            }
            return t;
        }

        /** Re-arms the timer for what the relay waits on this side now (or disarms it). */
        void refresh() {
            if (ended) {
                return;
            }
            long t = timeout();
            if (t > 0) {
                pendingAtArm = peer.pendingBytes();
                timer.arm(t);
            } else {
                timer.disarm();
            }
        }

        private void expired() {
            if (ended) {
                return;
            }
            long pending = peer.pendingBytes();
            if (pending < pendingAtArm) {
                // the peer reads, slowly: that is progress
                refresh();
                return;
            }
            listener.sideTimedOut(client);
        }

        private void hold(ByteBuf data) {
            if (held == null) {
                held = data;
            } else {
                // one contiguous buffer for the payload fetches: appended to the first read's buffer (the relay owns it),
                // or both copied to a new one when it cannot grow
                if (held.maxWritableBytes() < data.readableBytes()) {
                    ByteBuf merged = data.alloc().buffer(held.readableBytes() + data.readableBytes());
                    merged.writeBytes(held);
                    held.release();
                    held = merged;
                }
                held.writeBytes(data);
                data.release();
            }
            if (held.readableBytes() >= holdLimit) {
                pause();
            }
        }

        private void dropHeld() {
            ByteBuf h = held;
            held = null;
            if (h != null) {
                h.release();
            }
        }

        /** Sends a FIN to this side once what was written to it is out. */
        void sendFin() {
            if (finPending || finSent || ended) {
                return;
            }
            finPending = true;
            refresh();
            peer.shutdownOutput(() -> {
                finPending = false;
                finSent = true;
                if (!ended) {
                    refresh();
                    endIfDone();
                }
            });
        }
    }

    private final Listener listener;
    private final int holdLimit;
    final Side client;
    final Side server;
    private boolean connected;
    private boolean ended;
    private long clientTimeout;
    private long serverTimeout;
    private long tunnelTimeout;
    private long clientFinTimeout;
    private long serverFinTimeout;

    /** A relay from {@code clientPeer}, waiting for its server; {@code clientTimeout} (0: none) until then. */
    TcpRelay(Listener listener, TcpPeer clientPeer, EventLoop loop, long clientTimeout) {
        this(listener, clientPeer, loop, clientTimeout, HOLD_LIMIT);
    }

    /** The same, holding at most {@code holdLimit} client bytes while connecting ({@code tune.bufsize}). */
    TcpRelay(Listener listener, TcpPeer clientPeer, EventLoop loop, long clientTimeout, int holdLimit) {
        this.listener = listener;
        this.holdLimit = holdLimit;
        this.client = new Side(true, loop);
        this.server = new Side(false, loop);
        client.other = server;
        server.other = client;
        client.peer = clientPeer;
        this.clientTimeout = clientTimeout;
    }

    /**
     * The timeouts once the backend is known (milliseconds, 0 or less: none): {@code timeout client} of the frontend,
     * {@code server} and {@code tunnel} of the backend, {@code client-fin} of the frontend, {@code server-fin} of the
     * backend.
     */
    void timeouts(long client, long server, long tunnel, long clientFin, long serverFin) {
        this.clientTimeout = client;
        this.serverTimeout = server;
        this.tunnelTimeout = tunnel;
        this.clientFinTimeout = clientFin;
        this.serverFinTimeout = serverFin;
    }

    /** Whether the server side is there. */
    boolean connected() {
        return connected;
    }

    /** Bytes held from the client while connecting. */
    long heldBytes() {
        return client.held == null ? 0 : client.held.readableBytes();
    }

    /** Takes the bytes held from the client (ownership passes), or null when there are none. */
    ByteBuf takeHeld() {
        ByteBuf h = client.held;
        client.held = null;
        return h;
    }

    /** The bytes held from the client while connecting (not to be changed), or null when there are none. */
    ByteBuf held() {
        return client.held;
    }

    /** Starts the relay: the client side's timer runs. */
    void start() {
        client.refresh();
    }

    /** The server connection is there: the held bytes go first, then a FIN the client sent meanwhile. */
    void connected(TcpPeer serverPeer) {
        server.peer = serverPeer;
        connected = true;
        release(client);
    }

    /**
     * Holds what the server sends (its bytes are not written to the client) until {@link #release}: the response
     * content rules read them first.
     */
    void holdServer() {
        server.holding = true;
    }

    /** The bytes held from the server (not to be changed), or null when there are none. */
    ByteBuf heldFromServer() {
        return server.held;
    }

    /** Bytes held from the server. */
    long heldFromServerBytes() {
        return server.held == null ? 0 : server.held.readableBytes();
    }

    /**
     * What {@code from} sent while it was held goes to the other side (which is there), then its FIN if it sent one;
     * from now on its bytes flow through.
     */
    void release(Side from) {
        from.holding = false;
        if (ended) {
            return;
        }
        Side to = from.other;
        ByteBuf h = from.held;
        from.held = null;
        if (h != null) {
            to.peer.write(h);
            to.peer.flush();
        }
        if (from.inputShut) {
            to.sendFin();
        } else if (to.peer.isWritable()) {
            from.resume();
        }
        from.refresh();
        to.refresh();
    }

    // ------------------------------------------------------------------ events of either side

    /** Bytes read on {@code from}; takes ownership. */
    void received(Side from, ByteBuf data) {
        if (ended) {
            data.release();
            return;
        }
        from.bytesRead += data.readableBytes();
        Side to = from.other;
        if (to.peer == null || from.holding) {
            from.hold(data);
            from.refresh();
            return;
        }
        to.peer.write(data);
        if (!to.peer.isWritable()) {
            // paused first: the flush (what is written must move for the writability to come back) may make it writable
            // again at once, and that event resumes the reading
            from.pause();
            to.peer.flush();
        }
        from.refresh();
        to.refresh();
    }

    /**
     * Splices each direction asked for ({@code request}: client to server, {@code response}: server to client) where both
     * sockets allow it, through pipes of {@code pipeSize} bytes (0: the system's). Call once connected.
     */
    void splice(boolean request, boolean response, int pipeSize) {
        for (Side from : new Side[] {client, server}) {
            if (from.client ? request : response) {
                from.splice = from.peer.spliceTo(from.other.peer, pipeSize, () -> spliceDrained(from));
            }
        }
    }

    /** Pipe bytes from {@code from} went out: its reading goes on if the other side takes more. */
    private void spliceDrained(Side from) {
        if (ended) {
            return;
        }
        if (from.other.peer.isWritable()) {
            from.resume();
        }
        from.refresh();
        from.other.refresh();
    }

    /** A batch of reads on {@code from} is over: what it wrote to the other side goes out. */
    void readComplete(Side from) {
        if (!ended && from.splice != null && !from.holding && !from.inputShut && from.other.peer != null) {
            long n = from.splice.pump();
            from.bytesRead += n;
            if (from.splice.full()) {
                from.pause();
            }
            if (n > 0) {
                from.refresh();
            }
        }
        if (!ended && from.other.peer != null) {
            from.other.peer.flush();
            // armed again once the bytes left: armed with them still pending, the timer would take their departure
            // for the peer's progress when it expires, and wait a whole timeout more
            from.other.refresh();
        }
    }

    /** {@code side}'s socket became writable or not. */
    void writabilityChanged(Side side, boolean writable) {
        if (ended || side.peer == null) {
            return;
        }
        if (writable) {
            side.other.resume();
            side.other.refresh();
        }
        side.refresh();
    }

    /** {@code from} sent its FIN: carried to the other side (once connected). */
    void inputShut(Side from) {
        if (ended || from.inputShut) {
            return;
        }
        from.inputShut = true;
        from.paused = false;
        from.refresh();
        if (from.other.peer != null && !from.holding) {
            from.other.sendFin();
        }
        endIfDone();
    }

    /** {@code side} failed (reset, write error) or closed without a FIN. */
    void failed(Side side) {
        if (!ended) {
            listener.sideFailed(side.client);
        }
    }

    private void endIfDone() {
        if (!ended && client.inputShut && server.inputShut && client.finSent && server.finSent) {
            end();
            listener.relayEnded();
        }
    }

    /** The relay is over: timers off, held bytes released; closing the sockets is the stream's. Idempotent. */
    void end() {
        ended = true;
        client.timer.cancel();
        server.timer.cancel();
        client.dropHeld();
        server.dropHeld();
        for (Side side : new Side[] {client, server}) {
            if (side.splice != null) {
                side.splice.close();
                side.splice = null;
            }
        }
    }

    boolean ended() {
        return ended;
    }
}
