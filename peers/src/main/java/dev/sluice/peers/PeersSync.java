package dev.sluice.peers;

import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The replication of one {@code peers} section (HAProxy's struct peers and its sync task, process_peer_sync): the
 * peers, the resync state of this process (learn from the old local process first, then from a remote peer, then
 * consider itself up to date), and a task on the section's event loop that opens sessions to the remote peers that have
 * none, sends heartbeats after 3 s of silence, drops a peer that said nothing for 5 s and reconnects after a random
 * 50 to 2,050 ms, and wakes the sessions that have local updates to push. Everything runs on that one loop.
 */
public final class PeersSync {

    /** Opens a session: a channel to {@code peer} whose pipeline is a {@link PeerFrameDecoder} and {@code session}. */
    public interface Connector {
        void connect(Peer peer, PeerSession session);
    }

    /** Where this process learns the tables from (HAProxy's PEERS_RESYNC_STATEMASK). */
    public enum Resync {
        FROM_LOCAL, FROM_REMOTE, FINISHED
    }

    /** How often the task looks at the update logs and timers. */
    static final long TICK_MS = 10;

    private final String section;
    private final String localName;
    private final long pid;
    private final List<Peer> peers = new ArrayList<>();
    private final List<SharedTable> tables;
    private final int maxUpdates;
    private final LongSupplier clock;
    private final Random random;
    private Connector connector;
    private EventLoop loop;
    private Consumer<String> logger = s -> { };
    private ScheduledFuture<?> task;
    private final java.util.concurrent.atomic.AtomicBoolean wake = new java.util.concurrent.atomic.AtomicBoolean();

    private volatile Resync resync = Resync.FROM_LOCAL;
    private volatile int resyncFlags;
    private boolean assigned;
    private boolean processRequested;
    private long resyncTimeout = Long.MAX_VALUE;
    private volatile boolean stopping;
    private boolean oldProcess;
    private Runnable whenTaught;

    // counters (metrics)
    private volatile long learned;
    private volatile long pushed;
    private volatile long refused;
    private volatile long errors;
    private volatile long resyncs;
    private volatile long taskCalls;

    /**
     * @param peers      name, host, port and whether it is this process, in declaration order
     * @param tables     the tables replicated in this section, with their ids (1, 2, ... in order)
     * @param maxUpdates updates sent per table and pass ({@code tune.peers.max-updates-at-once})
     */
    public PeersSync(String section, String localName, long pid, List<PeerSpec> peers, List<SharedTable> tables, int maxUpdates,
            LongSupplier clock, Random random) {
        this.section = section;
        this.localName = localName;
        this.pid = pid;
        this.tables = List.copyOf(tables);
        this.maxUpdates = maxUpdates;
        this.clock = clock;
        this.random = random;
        for (PeerSpec p : peers) {
            this.peers.add(new Peer(p.name(), p.host(), p.port(), p.local(), tables));
        }
    }

    /** A peer as the configuration gives it. */
    public record PeerSpec(String name, String host, int port, boolean local) {
    }

    public String section() {
        return section;
    }

    public String localName() {
        return localName;
    }

    long pid() {
        return pid;
    }

    long now() {
        return clock.getAsLong();
    }

    int random(int bound) {
        return random.nextInt(bound);
    }

    int maxUpdates() {
        return maxUpdates;
    }

    public List<Peer> peers() {
        return peers;
    }

    public List<SharedTable> tables() {
        return tables;
    }

    public Resync resync() {
        return resync;
    }

    /** HAProxy's peers->flags: the resync state bits (0x1 local done, 0x2 remote done), assignment, and what happened. */
    public int flags() {
        int state = switch (resync) {
            case FROM_LOCAL -> 0;
            case FROM_REMOTE -> 1;
            case FINISHED -> 3;
        };
        return state | (assigned ? 0x4 : 0) | (processRequested ? 0x8 : 0) | resyncFlags;
    }

    long resyncTimeout() {
        return resyncTimeout;
    }

    long taskCalls() {
        return taskCalls;
    }

    public int resyncFlags() {
        return resyncFlags;
    }

    public boolean stopping() {
        return stopping;
    }

    public long learnedCount() {
        return learned;
    }

    public long pushedCount() {
        return pushed;
    }

    public long refusedCount() {
        return refused;
    }

    public long errorCount() {
        return errors;
    }

    public long resyncCount() {
        return resyncs;
    }

    public EventLoop loop() {
        return loop;
    }

    Peer peer(String name) {
        for (Peer p : peers) {
            if (p.name().equals(name)) {
                return p;
            }
        }
        return null;
    }

    public Peer localPeer() {
        for (Peer p : peers) {
            if (p.local()) {
                return p;
            }
        }
        return null;
    }

    /** The handler of a session a peer opens to this process (after a {@link PeerFrameDecoder}). */
    public PeerSession acceptedSession() {
        return new PeerSession(this);
    }

    /**
     * Starts the task on {@code loop}. {@code oldProcess}: an older process of the same configuration runs (-sf, a
     * master-worker reload) and will connect to teach this one, which waits up to 5 s for it before asking a remote
     * peer.
     */
    public void start(EventLoop loop, Connector connector, boolean oldProcess, Consumer<String> logger) {
        this.loop = loop;
        this.connector = connector;
        this.oldProcess = oldProcess;
        this.logger = logger == null ? s -> { } : logger;
        // a local change that queues an entry wakes the sessions at once (once per pass), as HAProxy's touch wakes its task
        for (SharedTable t : tables) {
            if (t.table().updateLog() != null) {
                t.table().updateLog().onQueued(this::queued);
            }
        }
        loop.execute(() -> {
            tick();
            task = loop.scheduleWithFixedDelay(this::tick, TICK_MS, TICK_MS, TimeUnit.MILLISECONDS);
        });
    }

    /**
     * On a request's thread: a local update waits; one wake-up per pass, {@link #BATCH_MS} later, so a hot entry changed
     * by every request is pushed at most every 2 ms, not once per request.
     */
    private void queued() {
        if (!wake.get() && wake.compareAndSet(false, true)) {
            try {
                loop.schedule(this::push, BATCH_MS, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // the process is stopping: nothing to push to any more
            }
        }
    }

    /** How long a wake-up waits for more updates to push together. */
    static final long BATCH_MS = 2;

    /** On the loop: the established sessions push what waits. */
    private void push() {
        wake.set(false);
        if (stopping) {
            return;
        }
        for (Peer p : peers) {
            PeerSession s = p.session;
            if (!p.local() && s != null && s.established()) {
                s.pump();
            }
        }
    }

    /** As {@link #start} without a loop: the caller runs {@link #tick} (tests). */
    void startForTest(Connector connector, boolean oldProcess, Consumer<String> logger) {
        this.connector = connector;
        this.oldProcess = oldProcess;
        this.logger = logger;
    }

    /** As {@link #softStop} on the caller's thread (tests). */
    void softStopForTest(Runnable taught) {
        beginSoftStop(taught);
    }

    private void beginSoftStop(Runnable taught) {
        if (stopping) {
            return;
        }
        stopping = true;
        whenTaught = taught;
        for (Peer p : peers) {
            p.reconnectAt = now() + 50 + random(2000);
            if (p.session != null) {
                p.session.end();
            }
        }
    }

    /**
     * Soft stop: drop the remote sessions, connect to the local peer (the new process) and teach it everything;
     * {@code taught} runs once that is done or cannot be done. Call on any thread.
     */
    public void softStop(Runnable taught) {
        if (loop == null) {
            taught.run();
            return;
        }
        loop.execute(() -> {
            beginSoftStop(taught);
            tick();
        });
    }

    /** Closes every session and stops the task. */
    public void close() {
        if (loop == null) {
            return;
        }
        for (SharedTable t : tables) {
            if (t.table().updateLog() != null) {
                t.table().updateLog().onQueued(null);
            }
        }
        loop.execute(() -> {
            if (task != null) {
                task.cancel(false);
            }
            for (Peer p : peers) {
                if (p.session != null) {
                    p.session.end();
                }
            }
        });
    }

    void log(Peer p, String what) {
        logger.accept("Peers section '" + section + "': peer '" + (p == null ? "?" : p.name()) + "' " + what + ".");
    }

    // ------------------------------------------------------------------ the task

    void tick() {
        taskCalls++;
        long now = now();
        if (!stopping) {
            if (resyncTimeout == Long.MAX_VALUE) {
                resyncTimeout = now + Wire.RESYNC_TIMEOUT_MS;
            }
            if (resync == Resync.FROM_LOCAL && (!oldProcess || now - resyncTimeout >= 0) && !assigned) {
                resync = Resync.FROM_REMOTE;
                resyncFlags |= RESYNC_LOCALTIMEOUT;
                resyncTimeout = now + Wire.RESYNC_TIMEOUT_MS;
            }
            for (Peer p : peers) {
                if (p.local()) {
                    continue;
                }
                PeerSession s = p.session;
                if (s == null) {
                    int sc = p.statusCode;
                    if (sc == 0 || ((sc == Wire.SC_CONNECT || sc == Wire.SC_SUCCESS || sc == Wire.SC_CONNECTED)
                            && now - p.reconnectAt >= 0)) {
                        connect(p, now);
                    }
                } else if (p.statusCode == Wire.SC_SUCCESS && s.established()) {
                    if (resync == Resync.FROM_REMOTE && !assigned && !p.has(Peer.LEARN_NOTUP2DATE)) {
                        p.set(Peer.LEARN_ASSIGN);
                        assigned = true;
                        resyncFlags |= RESYNC_REMOTEASSIGN;
                        s.pump();
                    } else if (hasUpdates(p)) {
                        p.clear(Peer.HEARTBEAT);
                        p.heartbeatAt = now + Wire.HEARTBEAT_TIMEOUT_MS;
                        s.pump();
                    } else if (now - p.reconnectAt >= 0) {
                        if (p.has(Peer.ALIVE)) {
                            p.clear(Peer.ALIVE);
                            p.reconnectAt = now + Wire.RECONNECT_TIMEOUT_MS;
                        } else {
                            p.reconnectAt = now + 50 + random(2000);
                            p.heartbeatAt = Long.MAX_VALUE;
                            p.noHbt++;
                            log(p, "is dead (nothing received for 5 s)");
                            s.end();
                        }
                    } else if (now - p.heartbeatAt >= 0) {
                        p.heartbeatAt = now + Wire.HEARTBEAT_TIMEOUT_MS;
                        p.set(Peer.HEARTBEAT);
                        s.pump();
                    }
                }
            }
            if (resync == Resync.FROM_REMOTE && !assigned && now - resyncTimeout >= 0) {
                resync = Resync.FINISHED;
                resyncFlags |= RESYNC_REMOTETIMEOUT;
                logger.accept("Peers section '" + section + "': no peer taught this process, its tables are considered up to date.");
            }
        } else {
            Peer local = localPeer();
            if (local == null || local.has(Peer.TEACH_COMPLETE)) {
                taughtDone();
            } else if (local.session == null) {
                int sc = local.statusCode;
                if (sc == 0 || sc == Wire.SC_SUCCESS || sc == Wire.SC_CONNECTED || sc == Wire.SC_TRY_AGAIN) {
                    if (whenTaught != null && now - local.reconnectAt >= 0) {
                        connect(local, now);
                    }
                } else {
                    taughtDone();
                }
            } else if (local.session.established()) {
                local.session.pump();
            }
        }
    }

    private void taughtDone() {
        Runnable r = whenTaught;
        whenTaught = null;
        if (r != null) {
            r.run();
        }
    }

    private boolean hasUpdates(Peer p) {
        for (SharedTable t : p.tables) {
            if (t.table().updateLog() != null && t.lastPushed != t.table().updateLog().localUpdate()) {
                return true;
            }
        }
        return false;
    }

    private void connect(Peer p, long now) {
        if (connector == null || p.host() == null || p.port() == 0) {
            return;
        }
        p.newConn++;
        p.reconnectAt = now + Wire.RECONNECT_TIMEOUT_MS;
        p.heartbeatAt = Long.MAX_VALUE;
        p.statusCode = Wire.SC_CONNECT;
        p.lastHandshake = now;
        PeerSession s = new PeerSession(this, p);
        p.session = s;
        connector.connect(p, s);
    }

    // ------------------------------------------------------------------ session events

    // resync flags shown by 'show peers' (HAProxy's PEERS_F_RESYNC_*)
    static final int RESYNC_LOCALTIMEOUT = 0x10;
    static final int RESYNC_REMOTETIMEOUT = 0x20;
    static final int RESYNC_LOCALABORT = 0x40;
    static final int RESYNC_REMOTEABORT = 0x80;
    static final int RESYNC_LOCALFINISHED = 0x100;
    static final int RESYNC_REMOTEFINISHED = 0x200;
    static final int RESYNC_LOCALPARTIAL = 0x400;
    static final int RESYNC_REMOTEPARTIAL = 0x800;
    static final int RESYNC_LOCALASSIGN = 0x1000;
    static final int RESYNC_REMOTEASSIGN = 0x2000;
    static final int RESYNC_REQUESTED = 0x4000;

    private void initCursors(Peer p) {
        long now = now();
        p.heartbeatAt = now + Wire.HEARTBEAT_TIMEOUT_MS;
        p.confirm = 0;
        p.lastLocalTable = null;
        for (SharedTable t : p.tables) {
            t.lastGet = 0;
            t.lastAcked = 0;
            long local = t.table().updateLog() == null ? 0 : t.table().updateLog().localUpdate();
            if (t.acked > local) {
                t.acked = 0;
            }
            t.teachingOrigin = t.acked;
            t.lastPushed = t.acked;
            t.teach = null;
            t.teachDone = false;
            t.remoteId = 0;
        }
        p.clear(Peer.TEACH_PROCESS | Peer.TEACH_FINISHED | Peer.LEARN_ASSIGN | Peer.LEARN_NOTUP2DATE);
    }

    /** A session a peer opened passed the handshake (HAProxy's init_accepted_peer). */
    void accepted(Peer p, boolean downgrade) {
        initCursors(p);
        p.statusCode = Wire.SC_SUCCESS;
        p.lastHandshake = now();
        if (p.local()) {
            if (resync == Resync.FROM_LOCAL && !assigned) {
                // the old process connects to teach: it is assigned, and the lesson counts as asked for
                p.set(Peer.LEARN_ASSIGN);
                assigned = true;
                processRequested = true;
                resyncFlags |= RESYNC_LOCALASSIGN;
            }
        } else if (resync == Resync.FROM_REMOTE && !assigned) {
            p.set(Peer.LEARN_ASSIGN);
            assigned = true;
            resyncFlags |= RESYNC_REMOTEASSIGN;
        }
    }

    /** A session this process opened passed the handshake (HAProxy's init_connected_peer). */
    void connected(Peer p) {
        initCursors(p);
        if (p.local()) {
            p.set(Peer.TEACH_PROCESS);
        } else if (resync == Resync.FROM_REMOTE && !assigned) {
            p.set(Peer.LEARN_ASSIGN);
            assigned = true;
            resyncFlags |= RESYNC_REMOTEASSIGN;
        }
    }

    void sessionEnded(Peer p, boolean wasEstablished) {
        p.session = null;
        if (p.has(Peer.LEARN_ASSIGN)) {
            assigned = false;
            processRequested = false;
            resyncFlags |= p.local() ? RESYNC_LOCALABORT : RESYNC_REMOTEABORT;
        }
        p.clear(Peer.TEACH_PROCESS | Peer.TEACH_FINISHED | Peer.LEARN_ASSIGN);
        if (wasEstablished) {
            log(p, "disconnected");
        }
    }

    boolean needsRequest() {
        return assigned && !processRequested;
    }

    void requested() {
        processRequested = true;
    }

    void resyncRequested(Peer p) {
        resyncFlags |= RESYNC_REQUESTED;
        resyncs++;
        log(p, "asked for a full resync");
    }

    /** The assigned peer finished its lesson: up to date ({@code finished}) or not. */
    void lessonEnded(Peer p, boolean finished) {
        assigned = false;
        processRequested = false;
        if (finished) {
            resync = Resync.FINISHED;
            resyncFlags |= p.local() ? RESYNC_LOCALFINISHED : RESYNC_REMOTEFINISHED;
            log(p, "taught this process the tables");
        } else {
            resyncFlags |= p.local() ? RESYNC_LOCALPARTIAL : RESYNC_REMOTEPARTIAL;
            p.set(Peer.LEARN_NOTUP2DATE);
            resyncTimeout = now() + Wire.RESYNC_TIMEOUT_MS;
            log(p, "taught this process partially");
        }
    }

    boolean upToDate() {
        return resync == Resync.FINISHED;
    }

    void taughtNewProcess(Peer p) {
        log(p, "(the new process) learned the tables");
        taughtDone();
    }

    void learned() {
        learned++;
    }

    void pushed() {
        pushed++;
    }

    void refused(int code) {
        refused++;
    }

    void protocolError(Peer p, int type) {
        errors++;
        log(p, type == Wire.ERR_PROTOCOL ? "sent a malformed message" : "sent a message over the size limit");
    }
}
