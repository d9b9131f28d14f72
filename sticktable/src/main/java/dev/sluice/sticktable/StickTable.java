package dev.sluice.sticktable;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A stick table: a key index sharded by key hash, entries with compact lock-free data, expiry, eviction
 * when full, and (with peers) an update log. Built by the proxy's runtime from a {@link StickTableSpec};
 * every method may be called from any thread (event loops for the request path, the admin and peers
 * tasks for the rest).
 *
 * <p>How the pieces fit (HAProxy's design after its lock work, adapted to the JVM):
 * <ul>
 * <li>Key index: {@code N} {@link Shard}s picked by the top bits of the key hash. Each shard's map is a
 * {@code ConcurrentHashMap} read without any lock, so lookups never take a lock (in the baseline layout
 * they take the table lock shared). Creations and removals take the shard's {@link PaddedLock}
 * exclusively; nothing ever holds two shard locks.</li>
 * <li>Reference counts (trackers) are an atomic int per entry, changed by CAS outside every lock. A
 * removal marks the entry dead by CAS 0 -> {@link StickEntry#DEAD} under its shard lock, then takes it out
 * of the map before unlocking; a tracker attaches by CAS n -> n+1 with n &gt;= 0. Exactly one of the two
 * wins, so no entry is freed while tracked and no tracker ever attaches to a freed entry (it retries and
 * finds the key gone). An entry created by {@link #track} is born with one tracker, i.e. counted before
 * the creating lock is released, so it cannot be purged between creation and tracking. Whether an entry
 * may go is checked on the count (and expiry date) before taking any lock ({@link #untrack}, purge
 * candidates), so the common case costs no lock.</li>
 * <li>Expiry: a touch stores the new date in the entry with a plain atomic store; the shard's expiry
 * queue catches up lazily when purge or eviction meets the entry. Tracked entries never expire nor get
 * evicted.</li>
 * <li>Size: {@link #used()} is an atomic count; a creation reserves a slot first, and when the table is
 * full evicts a batch of {@code size/256 + 1} of the untracked entries with the oldest expiry dates, taking
 * the shard locks one after the other ({@code nopurge}: the creation fails instead).</li>
 * <li>Update log: see {@link UpdateLog}; it has its own lock, never taken while a shard lock is held.</li>
 * <li>Memory: with an {@link EntryMemory} (the proxy's {@code -m} ceiling), a creation takes its room there
 * after reserving its slot, and every removal gives it back; refused, nothing is created.</li>
 * </ul>
 */
public final class StickTable {
    private static final AtomicLong NEXT_PTR = new AtomicLong(0x1000);

    private final String name;
    private final StickTableSpec spec;
    private final DataLayout layout;
    private final TableClock clock;
    private final Shard[] shards;
    private final int shardShift;
    private final boolean lockedLookups;
    private final UpdateLog updateLog;
    private final TableOptions.UpdateRecording recording;
    private final AtomicInteger used = new AtomicInteger();
    private final int evictBatch;
    /** Null when entries are not accounted. */
    private final EntryMemory memory;

    public StickTable(String name, StickTableSpec spec) {
        this(name, spec, TableOptions.DEFAULT);
    }

    public StickTable(String name, StickTableSpec spec, TableOptions options) {
        this.name = name;
        this.spec = spec;
        this.layout = new DataLayout(spec.store());
        this.clock = options.clock();
        TableOptions.UpdateRecording rec = options.updates();
        if (rec == null) {
            rec = spec.peers() != null ? TableOptions.UpdateRecording.OWN_LOCK : TableOptions.UpdateRecording.OFF;
        }
        this.recording = rec;
        this.lockedLookups = rec == TableOptions.UpdateRecording.UNDER_TABLE_LOCK;
        int n = lockedLookups ? 1 : options.shards();
        this.shards = new Shard[n];
        for (int i = 0; i < n; i++) {
            shards[i] = new Shard();
        }
        this.shardShift = 32 - Integer.numberOfTrailingZeros(n);
        this.updateLog = switch (rec) {
            case OFF -> null;
            case OWN_LOCK -> new UpdateLog(new PaddedLock());
            case UNDER_TABLE_LOCK -> new UpdateLog(shards[0].lock);
        };
        this.evictBatch = (spec.size() >>> 8) + 1;
        this.memory = options.memory();
    }

    // ---- description ----

    public String name() {
        return name;
    }

    public StickTableSpec spec() {
        return spec;
    }

    public DataLayout layout() {
        return layout;
    }

    public KeyType keyType() {
        return spec.keyType();
    }

    /** Maximum number of entries ({@code size}). */
    public int size() {
        return spec.size();
    }

    /** Current number of entries (HAProxy's {@code current}, {@code used:} in dumps). */
    public int used() {
        return Math.max(0, used.get());
    }

    /** {@code expire} in ms, 0 when entries never expire. */
    public long expireMs() {
        return spec.expireMs();
    }

    public TableClock clock() {
        return clock;
    }

    /** Now on the table clock. */
    public long now() {
        return clock.nowMillis();
    }

    public TableOptions.UpdateRecording updateRecording() {
        return recording;
    }

    /** The update log for peers, or null when update recording is off. */
    public UpdateLog updateLog() {
        return updateLog;
    }

    // ---- keys (conversions in TableKeys) ----

    /**
     * The key for a text sample: a {@code string} key (truncated to {@code len}), a {@code binary} key
     * (the text's bytes, padded), or for address and integer tables the parsed value, null when the text
     * does not parse (a sample that cannot be converted gives no key, so no tracking).
     */
    public StickKey keyOfString(CharSequence s) {
        return TableKeys.ofString(spec, s);
    }

    /** The key for raw bytes: string and binary tables take them as is; ip/ipv6/integer tables need 4/16/4 bytes. */
    public StickKey keyOfBytes(byte[] b) {
        return TableKeys.ofBytes(spec, b);
    }

    /** The key for an integer sample (an {@code integer} table keeps the low 32 bits). */
    public StickKey keyOfInteger(long v) {
        return TableKeys.ofInteger(spec, v);
    }

    /**
     * The key for an address sample: {@code ip} tables take IPv4 (and IPv4-mapped IPv6), {@code ipv6}
     * tables take IPv6 and map IPv4 into {@code ::ffff:a.b.c.d}, string tables take the text form.
     * Null when the address does not fit the table.
     */
    public StickKey keyOfAddress(InetAddress a) {
        return TableKeys.ofAddress(spec, a);
    }

    /**
     * Parses a key as sample text: a dotted quad, an IPv6 literal, a decimal in [0, 2^32), or a string.
     * Returns null when invalid, and for binary tables.
     */
    public StickKey parseKey(String text) {
        return TableKeys.parse(spec, text);
    }

    /**
     * Parses a key typed on the admin socket the way HAProxy 2.6 does (see {@code TableKeys.parseCli}:
     * lenient for {@code ip}, {@code strtoul} for {@code integer}). Returns null when HAProxy answers
     * "Invalid key", and for binary tables.
     */
    public StickKey parseCliKey(String text) {
        return TableKeys.parseCli(spec, text);
    }

    /** The key as {@code show table} prints it after {@code key=}. */
    public String formatKey(StickKey k) {
        return KeyText.format(spec.keyType(), k);
    }

    // ---- lookups and tracking ----

    /**
     * The entry for {@code key}, or null. Creates nothing and refreshes nothing (for the {@code table_*} and
     * {@code in_table} converters and the {@code src_*} fetches). Takes no lock. The entry may be removed
     * right after; reading it stays safe, its values are then those it had when it went.
     */
    public StickEntry lookup(StickKey key) {
        Shard s = shardOf(key);
        if (lockedLookups) {
            s.lock.lockShared();
            try {
                return s.map.get(key);
            } finally {
                s.lock.unlockShared();
            }
        }
        StickEntry e = s.map.get(key);
        return e == null || e.isRemoved() ? null : e;
    }

    /**
     * Finds or creates the entry for {@code key} and counts the caller as one of its trackers, so it can
     * neither expire nor be evicted until {@link #untrack}. Returns null when the table is full and no
     * entry can be evicted, or full with {@code nopurge}: the caller then does nothing (no tracking, no
     * stickiness), as HAProxy does. Does not touch: call {@link #touch} after updating the data.
     */
    public StickEntry track(StickKey key) {
        Shard s = shardOf(key);
        StickEntry e;
        if (lockedLookups) {
            s.lock.lockShared();
            try {
                e = s.map.get(key);
                if (e != null && e.tryRetain()) {
                    return e;
                }
            } finally {
                s.lock.unlockShared();
            }
        } else {
            e = s.map.get(key);
            if (e != null && e.tryRetain()) {
                return e;
            }
        }
        return createTracked(s, key);
    }

    /**
     * Adds a tracker to an entry obtained by {@link #lookup}; false if it was removed meanwhile (then
     * {@link #track(StickKey)} the key again).
     */
    public boolean retain(StickEntry e) {
        checkOwned(e);
        return e.tryRetain();
    }

    /**
     * Drops one tracker. The last tracker leaving an entry whose expiry date has passed removes it at once
     * (decided on the count and the date before any lock is taken); otherwise the purge will.
     */
    public void untrack(StickEntry e) {
        checkOwned(e);
        if (e.release() == 0 && spec.expireMs() > 0 && e.expire - now() <= 0) {
            killIfExpired(e);
        }
    }

    /**
     * A local change: pushes the expiry date to now + {@code expire} (for a table without expire, to now,
     * which orders eviction by last use) with a plain atomic store, and records the change in the update
     * log when there is one.
     */
    public void touch(StickEntry e) {
        long now = now();
        e.expire = spec.expireMs() > 0 ? now + spec.expireMs() : now;
        if (updateLog != null) {
            updateLog.recordLocal(e);
        }
    }

    /**
     * A change learned from a peer: the expiry date becomes now + {@code expireInMs} (negative: the
     * table's own {@code expire}), and the update log numbers it as learned ({@code +2^31}) so it is never
     * sent back to peers.
     */
    public void touchLearned(StickEntry e, long expireInMs) {
        long now = now();
        long exp = expireInMs >= 0 ? expireInMs : spec.expireMs();
        e.expire = spec.expireMs() > 0 || expireInMs >= 0 ? now + exp : now;
        if (updateLog != null) {
            updateLog.recordLearned(e);
        }
    }

    /**
     * Tracks {@code key}, applies {@code change}, touches and untracks: the whole of a {@code stick store}
     * or a CLI {@code set table}. Returns false (and does nothing) when no entry could be created.
     */
    public boolean update(StickKey key, Consumer<StickEntry> change) {
        StickEntry e = track(key);
        if (e == null) {
            return false;
        }
        try {
            change.accept(e);
            touch(e);
        } finally {
            untrack(e);
        }
        return true;
    }

    private StickEntry createTracked(Shard s, StickKey key) {
        if (!reserveSlot()) {
            return null;
        }
        if (memory != null && !memory.take()) {
            // the memory ceiling: as a full nopurge table, nothing is created and the caller does nothing
            used.decrementAndGet();
            return null;
        }
        long now = now();
        StickEntry fresh = new StickEntry(this, key, NEXT_PTR.getAndIncrement(), 1, spec.expireMs() > 0 ? now + spec.expireMs() : now);
        StickEntry cur;
        s.lock.lock();
        try {
            cur = s.map.get(key);
            if (cur == null) {
                s.map.put(key, fresh);
                s.enqueue(fresh, fresh.expire);
                return fresh;
            }
            // Another thread created it first. Entries in the map are alive while we hold the lock.
            if (!cur.tryRetain()) {
                throw new IllegalStateException("dead entry left in the index: " + cur);
            }
        } finally {
            s.lock.unlock();
        }
        used.decrementAndGet();
        if (memory != null) {
            memory.give();
        }
        return cur;
    }

    /** Reserves room for one more entry, evicting when full; false when there is none to be had. */
    private boolean reserveSlot() {
        if (used.getAndIncrement() < spec.size()) {
            return true;
        }
        if (!spec.noPurge() && evictOldest(evictBatch) > 0) {
            return true;
        }
        used.decrementAndGet();
        return false;
    }

    // ---- expiry and eviction ----

    /**
     * Removes the expired untracked entries (the proxy schedules this at {@link #nextExpiry()}). Tracked
     * entries met on the way are re-queued one {@code expire} later. Returns the number removed. Holds each
     * shard lock for a bounded number of entries at a time.
     */
    public int purgeExpired() {
        if (spec.expireMs() == 0) {
            return 0;
        }
        // One date for the whole run: entries re-queued on the way land after it, so the run ends.
        long now = now();
        int total = 0;
        for (Shard s : shards) {
            for (;;) {
                List<StickEntry> dead = new ArrayList<>();
                boolean more = purgeSome(s, now, dead, 1024);
                finishRemoval(dead);
                total += dead.size();
                if (!more) {
                    break;
                }
            }
        }
        return total;
    }

    /** Purges at most {@code budget} queue positions of one shard; true when it stopped on the budget. */
    private boolean purgeSome(Shard s, long now, List<StickEntry> dead, int budget) {
        s.lock.lock();
        try {
            StickEntry e = s.first();
            while (e != null && e.queuedExpire - now <= 0) {
                if (budget-- == 0) {
                    return true;
                }
                StickEntry next = s.after(e);
                long exp = e.expire;
                if (e.refsRaw() != 0) {
                    s.requeue(e, Math.max(exp, now + spec.expireMs()));
                } else if (exp - now > 0) {
                    s.requeue(e, exp);
                } else if (e.tryKill()) {
                    s.drop(e);
                    dead.add(e);
                }
                e = next;
            }
            return false;
        } finally {
            s.lock.unlock();
        }
    }

    /** The earliest queued expiry date, or -1 when nothing is queued or entries never expire. */
    public long nextExpiry() {
        if (spec.expireMs() == 0) {
            return -1;
        }
        long min = Long.MAX_VALUE;
        for (Shard s : shards) {
            s.lock.lock();
            try {
                StickEntry e = s.first();
                if (e != null) {
                    min = Math.min(min, e.queuedExpire);
                }
            } finally {
                s.lock.unlock();
            }
        }
        return min == Long.MAX_VALUE ? -1 : min;
    }

    private void killIfExpired(StickEntry e) {
        Shard s = shardOf(e.key);
        boolean killed = false;
        s.lock.lock();
        try {
            if (e.refsRaw() == 0 && e.expire - now() <= 0 && e.tryKill()) {
                s.drop(e);
                killed = true;
            }
        } finally {
            s.lock.unlock();
        }
        if (killed) {
            finishRemoval(List.of(e));
        }
    }

    /**
     * Evicts up to {@code batch} untracked entries with the oldest expiry dates across all shards. Each
     * shard, under its lock, offers its {@code batch} oldest candidates (fixing lagging queue positions on
     * the way); the globally oldest are then removed shard by shard, skipping any that got tracked or
     * touched in between. Returns the number removed.
     */
    int evictOldest(int batch) {
        List<StickEntry> candidates = new ArrayList<>();
        List<Long> dates = new ArrayList<>();
        for (Shard s : shards) {
            s.lock.lock();
            try {
                int taken = 0;
                StickEntry e = s.first();
                while (e != null && taken < batch) {
                    StickEntry next = s.after(e);
                    long exp = e.expire;
                    if (exp != e.queuedExpire) {
                        // Touched since queued: moves later, and the walk meets it again there.
                        s.requeue(e, exp);
                        if (next == null || Shard.before(e, next)) {
                            next = e;
                        }
                    } else if (e.refsRaw() == 0) {
                        candidates.add(e);
                        dates.add(exp);
                        taken++;
                    }
                    e = next;
                }
            } finally {
                s.lock.unlock();
            }
        }
        Integer[] order = new Integer[candidates.size()];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.<Integer>comparingLong(dates::get).thenComparingLong(i -> candidates.get(i).id));
        List<List<StickEntry>> chosen = new ArrayList<>(shards.length);
        for (int i = 0; i < shards.length; i++) {
            chosen.add(new ArrayList<>());
        }
        for (int i = 0; i < Math.min(batch, order.length); i++) {
            StickEntry e = candidates.get(order[i]);
            chosen.get(shardIndex(e.key)).add(e);
        }
        int removed = 0;
        for (int i = 0; i < shards.length; i++) {
            if (chosen.get(i).isEmpty()) {
                continue;
            }
            Shard s = shards[i];
            List<StickEntry> dead = new ArrayList<>();
            s.lock.lock();
            try {
                for (StickEntry e : chosen.get(i)) {
                    // Skip those tracked or touched since they were picked: they are no longer the oldest.
                    if (e.queued && e.expire == e.queuedExpire && e.tryKill()) {
                        s.drop(e);
                        dead.add(e);
                    }
                }
            } finally {
                s.lock.unlock();
            }
            finishRemoval(dead);
            removed += dead.size();
        }
        return removed;
    }

    /** After entries were killed and dropped under their shard lock: fix the count and the update log. */
    private void finishRemoval(List<StickEntry> dead) {
        if (dead.isEmpty()) {
            return;
        }
        used.addAndGet(-dead.size());
        if (memory != null) {
            for (int i = 0; i < dead.size(); i++) {
                memory.give();
            }
        }
        if (updateLog != null) {
            updateLog.removeAll(dead);
        }
    }

    // ---- admin: dump, clear, set ----

    /**
     * Calls {@code action} for every live entry the query addresses. Takes no lock: the walk is weakly
     * consistent (entries added or removed meanwhile may or may not be seen), like HAProxy's dump.
     */
    public void forEach(TableQuery query, Consumer<StickEntry> action) {
        if (query instanceof TableQuery.ByKey(StickKey key)) {
            StickEntry e = lookup(key);
            if (e != null) {
                action.accept(e);
            }
            return;
        }
        for (Shard s : shards) {
            for (StickEntry e : s.map.values()) {
                if (!e.isRemoved() && query.matches(e)) {
                    action.accept(e);
                }
            }
        }
    }

    /** The live entries the query addresses, in key order (the order of HAProxy's dumps). */
    public List<StickEntry> select(TableQuery query) {
        List<StickEntry> out = new ArrayList<>();
        forEach(query, out::add);
        out.sort(Comparator.comparing(StickEntry::key));
        return out;
    }

    /** Every live entry. */
    public List<StickEntry> entries() {
        List<StickEntry> out = new ArrayList<>();
        forEach(new TableQuery.All(), out::add);
        return out;
    }

    /** The entry with this synthetic pointer, or null (a scan, as the CLI needs it rarely). */
    public StickEntry findByPtr(long ptr) {
        StickEntry[] found = new StickEntry[1];
        forEach(new TableQuery.ByPtr(ptr), e -> found[0] = e);
        return found[0];
    }

    /**
     * {@code clear table}: removes the addressed entries that no tracker holds; tracked ones are skipped
     * and counted in {@link ClearResult#inUse()}.
     */
    public ClearResult clear(TableQuery query) {
        int removed = 0;
        int inUse = 0;
        for (Shard s : shards) {
            if (query instanceof TableQuery.ByKey(StickKey key) && shardOf(key) != s) {
                continue;
            }
            List<StickEntry> dead = new ArrayList<>();
            s.lock.lock();
            try {
                List<StickEntry> victims = new ArrayList<>();
                if (query instanceof TableQuery.ByKey(StickKey key)) {
                    StickEntry e = s.map.get(key);
                    if (e != null) {
                        victims.add(e);
                    }
                } else {
                    for (StickEntry e : s.map.values()) {
                        if (query.matches(e)) {
                            victims.add(e);
                        }
                    }
                }
                for (StickEntry e : victims) {
                    if (e.refsRaw() == 0 && e.tryKill()) {
                        s.drop(e);
                        dead.add(e);
                    } else {
                        inUse++;
                    }
                }
            } finally {
                s.lock.unlock();
            }
            finishRemoval(dead);
            removed += dead.size();
        }
        return new ClearResult(removed, inUse);
    }

    /**
     * {@code set table}: applies {@code values} to the entry addressed by key (created if missing) or by
     * pointer, then touches it. Returns the entry, or null when it could not be created ("Unable to
     * allocate a new entry") or, by pointer, does not exist.
     *
     * @throws IllegalArgumentException for a query that is not by key or pointer, or a type not stored
     */
    public StickEntry set(TableQuery target, List<DataAssignment> values) {
        for (DataAssignment v : values) {
            if (!layout.stores(v.type()) || (v.type() != DataType.SERVER_KEY && layout.slot(v.type(), v.index()) < 0)) {
                throw new IllegalArgumentException("Data type not stored in this table");
            }
        }
        StickEntry e;
        switch (target) {
            case TableQuery.ByKey(StickKey key) -> e = track(key);
            case TableQuery.ByPtr(long ptr) -> {
                e = findByPtr(ptr);
                if (e != null && !e.tryRetain()) {
                    e = null;
                }
            }
            default -> throw new IllegalArgumentException("set table needs a key or a pointer");
        }
        if (e == null) {
            return null;
        }
        try {
            for (DataAssignment v : values) {
                v.applyTo(e);
            }
            touch(e);
        } finally {
            untrack(e);
        }
        return e;
    }

    // ---- internals ----

    Shard shardOf(StickKey key) {
        return shards[shardIndex(key)];
    }

    /** The top bits of the hash (the shard maps use the low bits for their buckets). */
    int shardIndex(StickKey key) {
        return shards.length == 1 ? 0 : key.hashCode() >>> shardShift;
    }

    int shardCount() {
        return shards.length;
    }

    /** Entries in the index, counted shard by shard (for tests: must equal {@link #used()} when idle). */
    int indexedCount() {
        int n = 0;
        for (Shard s : shards) {
            n += s.map.size();
        }
        return n;
    }

    /** Entries in the expiry queues (for tests: must equal {@link #indexedCount()} when idle). */
    int queuedCount() {
        int n = 0;
        for (Shard s : shards) {
            s.lock.lock();
            try {
                n += s.expiry.size();
            } finally {
                s.lock.unlock();
            }
        }
        return n;
    }

    private void checkOwned(StickEntry e) {
        if (e.table != this) {
            throw new IllegalArgumentException("entry of table " + e.table.name() + " used with table " + name);
        }
    }

    @Override
    public String toString() {
        return "StickTable[" + name + ", type " + spec.keyType().haproxyName() + ", size " + spec.size() + ", used " + used() + "]";
    }
}
