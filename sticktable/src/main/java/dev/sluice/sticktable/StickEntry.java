package dev.sluice.sticktable;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One stick-table entry: its key, its data in a single {@code long[]} laid out by the table's
 * {@link DataLayout}, its tracker count and its expiry date. Created and removed only by its
 * {@link StickTable}; every method here may be called from any thread without a lock: counters are
 * updated with atomic adds and CASes on the array, rates with {@link RateCounter}, so a tracker that
 * holds the entry (see {@link StickTable#track}) updates it concurrently with other trackers, readers,
 * the purge and the update log.
 *
 * <p>Methods for a data type the table does not store do nothing and return 0 (the proxy checks
 * {@link DataLayout#stores} once when it resolves a fetch, since a fetch of a type not stored is "no
 * match"); the generic {@link #get(DataType, int)} and {@link #set(DataType, int, long)} throw instead.
 * 32-bit counters wrap like HAProxy's {@code unsigned int}; byte counters are 64-bit.
 *
 * <p>After changing data, call {@link StickTable#touch} so the expiry date moves and peers see the change.
 */
public final class StickEntry {
    private static final VarHandle AA = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle REFS;
    private static final long U32 = 0xFFFF_FFFFL;

    static {
        try {
            REFS = MethodHandles.lookup().findVarHandle(StickEntry.class, "refs", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** {@link #refs} of an entry that left the table: no tracker can attach any more. */
    static final int DEAD = Integer.MIN_VALUE;

    final StickTable table;
    final DataLayout layout;
    final StickKey key;
    final long id;
    final long[] data;

    /** Number of trackers, or {@link #DEAD}. Changed by CAS only, never under a lock. */
    private volatile int refs;
    /** Expiry date on the table clock; written by touches with plain atomic stores. */
    volatile long expire;
    private volatile String serverKey;

    // Guarded by the shard lock: the position in the shard's expiry queue (lazily behind 'expire').
    long queuedExpire;
    boolean queued;

    // Guarded by the update log's lock (updList is volatile so that touch can skip the lock; see UpdateLog).
    long updSeq;
    StickEntry updPrev;
    StickEntry updNext;
    volatile byte updList;
    /** Set when a peer batch handed this entry out, cleared when it gets a new sequence number. */
    volatile boolean seen;

    StickEntry(StickTable table, StickKey key, long id, int initialRefs, long expire) {
        this.table = table;
        this.layout = table.layout();
        this.key = key;
        this.id = id;
        this.data = new long[layout.slots()];
        this.refs = initialRefs;
        this.expire = expire;
    }

    public StickKey key() {
        return key;
    }

    /** The stable synthetic "pointer" printed as {@code 0x...:} in dumps and accepted by {@code ptr}. */
    public long ptr() {
        return id;
    }

    public StickTable table() {
        return table;
    }

    /** Number of trackers (what {@code show table} prints as {@code use=}); 0 once removed. */
    public int trackers() {
        int r = refs;
        return Math.max(r, 0);
    }

    /** True once the entry left its table (expired, evicted or cleared); its data is then stale. */
    public boolean isRemoved() {
        return refs == DEAD;
    }

    /** Expiry date on the table clock (for a table without {@code expire}, the date of the last touch). */
    public long expireAt() {
        return expire;
    }

    // ---- reference count: atomics, never under a lock ----

    /** Adds a tracker unless the entry is dead. */
    boolean tryRetain() {
        for (;;) {
            int r = refs;
            if (r < 0) {
                return false;
            }
            if (REFS.compareAndSet(this, r, r + 1)) {
                return true;
            }
        }
    }

    /** Drops a tracker; returns the remaining count. */
    int release() {
        for (;;) {
            int r = refs;
            if (r <= 0) {
                throw new IllegalStateException("untrack of an entry that is not tracked (use=" + Math.max(r, 0) + ")");
            }
            if (REFS.compareAndSet(this, r, r - 1)) {
                return r - 1;
            }
        }
    }

    /** Marks an untracked entry dead; fails if a tracker holds it (or attached meanwhile). */
    boolean tryKill() {
        return REFS.compareAndSet(this, 0, DEAD);
    }

    int refsRaw() {
        return refs;
    }

    /** Raw value of a slot, with an atomic (opaque) load. */
    long slotValue(int s) {
        return (long) AA.getOpaque(data, s);
    }

    // ---- events: one call per proxy event updates the count and the matching rate ----

    /**
     * A tracker starts following this entry ({@code track-sc*}): {@code conn_cur++}, {@code conn_cnt++} and
     * {@code conn_rate++}, as HAProxy credits them on attach even for a tracker set up after the accept.
     */
    public void onTrackStart() {
        incU32(layout.slot(DataType.CONN_CUR), 1);
        incU32(layout.slot(DataType.CONN_CNT), 1);
        rateAdd(DataType.CONN_RATE, 0, 1);
    }

    /** {@code src_updt_conn_cnt}: {@code conn_cnt++} alone (no rate, no {@code conn_cur}); returns the new count, 0 when not stored. */
    public long incConnCnt() {
        return incU32(layout.slot(DataType.CONN_CNT), 1);
    }

    /** The tracker stops: {@code conn_cur--}, never below 0. */
    public void onTrackEnd() {
        decU32Floor(layout.slot(DataType.CONN_CUR));
    }

    /** A session was accepted: {@code sess_cnt++}, {@code sess_rate++}. */
    public void onSession() {
        incU32(layout.slot(DataType.SESS_CNT), 1);
        rateAdd(DataType.SESS_RATE, 0, 1);
    }

    /** An HTTP request: {@code http_req_cnt++}, {@code http_req_rate++}. */
    public void onHttpRequest() {
        incU32(layout.slot(DataType.HTTP_REQ_CNT), 1);
        rateAdd(DataType.HTTP_REQ_RATE, 0, 1);
    }

    /** An invalid/denied/tarpitted request, failed auth or 4xx: {@code http_err_cnt++}, {@code http_err_rate++}. */
    public void onHttpError() {
        incU32(layout.slot(DataType.HTTP_ERR_CNT), 1);
        rateAdd(DataType.HTTP_ERR_RATE, 0, 1);
    }

    /** A server-side failure (5xx, broken response): {@code http_fail_cnt++}, {@code http_fail_rate++}. */
    public void onHttpFailure() {
        incU32(layout.slot(DataType.HTTP_FAIL_CNT), 1);
        rateAdd(DataType.HTTP_FAIL_RATE, 0, 1);
    }

    /** Bytes from the client: {@code bytes_in_cnt += n}, {@code bytes_in_rate += n}. */
    public void onBytesIn(long n) {
        add64(layout.slot(DataType.BYTES_IN_CNT), n);
        rateAdd(DataType.BYTES_IN_RATE, 0, n);
    }

    /** Bytes to the client: {@code bytes_out_cnt += n}, {@code bytes_out_rate += n}. */
    public void onBytesOut(long n) {
        add64(layout.slot(DataType.BYTES_OUT_CNT), n);
        rateAdd(DataType.BYTES_OUT_RATE, 0, n);
    }

    /** Protocol glitches: {@code glitch_cnt += n}, {@code glitch_rate += n}. */
    public void onGlitches(long n) {
        incU32(layout.slot(DataType.GLITCH_CNT), n);
        rateAdd(DataType.GLITCH_RATE, 0, n);
    }

    // ---- general purpose counters and tags ----

    /** {@code sc-inc-gpc(idx)}: {@code gpc[idx]++} and {@code gpc_rate[idx]++}; returns the new gpc value. */
    public long incGpc(int idx) {
        return addGpc(idx, 1);
    }

    /** {@code sc-add-gpc(idx)}: adds {@code v} to {@code gpc[idx]} and {@code gpc_rate[idx]}; returns the new gpc value. */
    public long addGpc(int idx, long v) {
        rateAdd(DataType.GPC_RATE, idx, v);
        return incU32(layout.slot(DataType.GPC, idx), v);
    }

    /** {@code gpc[idx]}, 0 when not stored. */
    public long gpc(int idx) {
        return readU32(layout.slot(DataType.GPC, idx));
    }

    /** Sets {@code gpc[idx]} to 0 and returns the previous value. */
    public long clearGpc(int idx) {
        return swapU32(layout.slot(DataType.GPC, idx), 0);
    }

    /** The rate of {@code gpc_rate[idx]}. */
    public long gpcRate(int idx) {
        return rate(DataType.GPC_RATE, idx);
    }

    /** {@code sc-inc-gpc0}: {@code gpc0++} and {@code gpc0_rate++} (falling back to element 0 of the arrays, as HAProxy does). */
    public long incGpc0() {
        return incLegacyGpc(DataType.GPC0, DataType.GPC0_RATE, 0, 1);
    }

    /** {@code sc-inc-gpc1}: {@code gpc1++} and {@code gpc1_rate++} (falling back to element 1 of the arrays). */
    public long incGpc1() {
        return incLegacyGpc(DataType.GPC1, DataType.GPC1_RATE, 1, 1);
    }

    public long gpc0() {
        return readU32(legacySlot(DataType.GPC0, DataType.GPC, 0));
    }

    public long gpc1() {
        return readU32(legacySlot(DataType.GPC1, DataType.GPC, 1));
    }

    /** {@code sc-clr-gpc0}: sets gpc0 to 0, returns the previous value. */
    public long clearGpc0() {
        return swapU32(legacySlot(DataType.GPC0, DataType.GPC, 0), 0);
    }

    public long clearGpc1() {
        return swapU32(legacySlot(DataType.GPC1, DataType.GPC, 1), 0);
    }

    public long gpc0Rate() {
        return layout.stores(DataType.GPC0_RATE) ? rate(DataType.GPC0_RATE, 0) : rate(DataType.GPC_RATE, 0);
    }

    public long gpc1Rate() {
        return layout.stores(DataType.GPC1_RATE) ? rate(DataType.GPC1_RATE, 0) : rate(DataType.GPC_RATE, 1);
    }

    /** {@code sc-set-gpt(idx)}: sets tag {@code gpt[idx]}. */
    public void setGpt(int idx, long v) {
        storeU32(layout.slot(DataType.GPT, idx), v);
    }

    public long gpt(int idx) {
        return readU32(layout.slot(DataType.GPT, idx));
    }

    /** {@code sc-set-gpt0}: sets gpt0 (or gpt[0]). */
    public void setGpt0(long v) {
        storeU32(legacySlot(DataType.GPT0, DataType.GPT, 0), v);
    }

    public long gpt0() {
        return readU32(legacySlot(DataType.GPT0, DataType.GPT, 0));
    }

    // ---- server persistence ----

    /** Stores the server id ({@code stick store}, {@code stick on}). */
    public void setServerId(int serverId) {
        int s = layout.slot(DataType.SERVER_ID);
        if (s >= 0) {
            AA.setVolatile(data, s, (long) serverId);
        }
    }

    public int serverId() {
        int s = layout.slot(DataType.SERVER_ID);
        return s < 0 ? 0 : (int) (long) AA.getOpaque(data, s);
    }

    /** Stores the server key (name or address, per {@code srvkey}); null clears it. */
    public void setServerKey(String key) {
        if (layout.stores(DataType.SERVER_KEY)) {
            serverKey = key;
        }
    }

    /** The server key, or null. */
    public String serverKey() {
        return serverKey;
    }

    // ---- generic access, for the CLI, peers and converters ----

    /**
     * Element {@code idx} of {@code type}: the count, tag or id, or for a rate its current value.
     *
     * @throws IllegalArgumentException when the table does not store it (or for {@code server_key})
     */
    public long get(DataType type, int idx) {
        int s = slotOrThrow(type, idx);
        return switch (type.kind()) {
            case SINT -> (int) (long) AA.getOpaque(data, s);
            case UINT -> readU32(s);
            case ULL -> (long) AA.getOpaque(data, s);
            case RATE -> RateCounter.read(data, s, layout.period(type), table.now());
            case DICT -> throw new IllegalArgumentException("server_key is not a number");
        };
    }

    /** {@link #get(DataType, int)} for element 0. */
    public long get(DataType type) {
        return get(type, 0);
    }

    /**
     * Overwrites element {@code idx} of {@code type}, as {@code set table} does: a rate gets a current
     * period starting now with {@code value} events and an empty previous one.
     */
    public void set(DataType type, int idx, long value) {
        int s = slotOrThrow(type, idx);
        switch (type.kind()) {
            case SINT -> AA.setVolatile(data, s, (long) (int) value);
            case UINT -> storeU32(s, value);
            case ULL -> AA.setVolatile(data, s, value);
            case RATE -> RateCounter.set(data, s, table.now(), value);
            case DICT -> throw new IllegalArgumentException("server_key is not a number");
        }
    }

    /** Adds {@code delta} to a counter, or counts {@code delta} events on a rate. */
    public void add(DataType type, int idx, long delta) {
        int s = slotOrThrow(type, idx);
        switch (type.kind()) {
            case SINT -> AA.getAndAdd(data, s, delta);
            case UINT -> incU32(s, delta);
            case ULL -> add64(s, delta);
            case RATE -> RateCounter.add(data, s, layout.period(type), table.now(), delta);
            case DICT -> throw new IllegalArgumentException("server_key is not a number");
        }
    }

    /** The raw state of a rate (for peers). */
    public RateState rateState(DataType type, int idx) {
        requireRate(type);
        return RateCounter.state(data, slotOrThrow(type, idx));
    }

    /** Overwrites the raw state of a rate (peers learning an entry). */
    public void loadRate(DataType type, int idx, RateState state) {
        requireRate(type);
        RateCounter.load(data, slotOrThrow(type, idx), state.started(), state.periodStartMs(), state.current(), state.previous());
    }

    // ---- internals ----

    private long rate(DataType type, int idx) {
        int s = layout.slot(type, idx);
        return s < 0 ? 0 : RateCounter.read(data, s, layout.period(type), table.now());
    }

    /** Counts {@code n} events on a rate if stored; reads the clock only then. */
    private void rateAdd(DataType type, int idx, long n) {
        int s = layout.slot(type, idx);
        if (s >= 0) {
            RateCounter.add(data, s, layout.period(type), table.now(), n);
        }
    }

    private long incLegacyGpc(DataType gpc, DataType gpcRate, int arrayIdx, long n) {
        if (layout.stores(gpcRate)) {
            rateAdd(gpcRate, 0, n);
        } else {
            rateAdd(DataType.GPC_RATE, arrayIdx, n);
        }
        return incU32(legacySlot(gpc, DataType.GPC, arrayIdx), n);
    }

    private int legacySlot(DataType legacy, DataType array, int idx) {
        int s = layout.slot(legacy);
        return s >= 0 ? s : layout.slot(array, idx);
    }

    private int slotOrThrow(DataType type, int idx) {
        if (type.kind() == DataType.Kind.DICT) {
            throw new IllegalArgumentException("server_key is not a number");
        }
        int s = layout.slot(type, idx);
        if (s < 0) {
            throw new IllegalArgumentException(layout.stores(type)
                    ? "index " + idx + " out of range for " + type.haproxyName() + "(" + layout.count(type) + ")"
                    : "data type " + type.haproxyName() + " not stored in table " + table.name());
        }
        return s;
    }

    private static void requireRate(DataType type) {
        if (!type.isRate()) {
            throw new IllegalArgumentException(type.haproxyName() + " is not a rate");
        }
    }

    private long incU32(int s, long n) {
        if (s < 0) {
            return 0;
        }
        return ((long) AA.getAndAdd(data, s, n) + n) & U32;
    }

    private void add64(int s, long n) {
        if (s >= 0) {
            AA.getAndAdd(data, s, n);
        }
    }

    private void decU32Floor(int s) {
        if (s < 0) {
            return;
        }
        for (;;) {
            long v = (long) AA.getVolatile(data, s);
            if ((v & U32) == 0 || AA.compareAndSet(data, s, v, v - 1)) {
                return;
            }
        }
    }

    private long readU32(int s) {
        return s < 0 ? 0 : (long) AA.getOpaque(data, s) & U32;
    }

    private void storeU32(int s, long v) {
        if (s >= 0) {
            AA.setVolatile(data, s, v & U32);
        }
    }

    private long swapU32(int s, long v) {
        return s < 0 ? 0 : (long) AA.getAndSet(data, s, v & U32) & U32;
    }

    @Override
    public String toString() {
        return "StickEntry[0x" + Long.toHexString(id) + " " + key + " use=" + trackers() + "]";
    }
}
