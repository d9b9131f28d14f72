package dev.sluice.proxy.cache;

import dev.sluice.config.model.Cache;
import dev.sluice.pools.Budget;
import dev.sluice.proxy.http.HeaderNames;
import dev.sluice.proxy.http.HttpFields;
import dev.sluice.proxy.http.RequestHead;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The store of one {@code cache} section, shared by every event loop without a lock: entries by primary key (the SHA-1
 * of {@code https://} + Host + URI, as HAProxy's), each key with one entry or, for responses with a Vary, up to
 * {@code max-secondary-entries} variants. Its memory is counted as HAProxy counts it, in 1 kB blocks
 * ({@code total-max-size}); when a new entry needs blocks the oldest stored entries go first. Each block is also taken
 * from the process's {@code cache} budget, so {@code show pools} shows them and the {@code -m} ceiling bounds them.
 * Expired entries go when a lookup or {@code show cache} meets them, or when their blocks are needed.
 */
public final class HttpCache {
    static final int BLOCK = Cache.BLOCK_SIZE;
    /**
     * What an entry costs beyond its head's and body's bytes as HAProxy counts them (the cache_entry structure and its
     * HTX bookkeeping), measured on HAProxy 2.6's {@code show cache} sizes.
     */
    static final int ENTRY_OVERHEAD = 113;

    /** A primary key: the 20 bytes of the SHA-1; its first four, little-endian, are what {@code show cache} prints. */
    public record Key(byte[] sha1) {
        int hash32() {
            return SecondaryKey.getInt(sha1, 0);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && Arrays.equals(sha1, k.sha1);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(sha1);
        }
    }

    private final Cache config;
    private final Budget budget;
    private final ConcurrentHashMap<Key, CacheEntry[]> entries = new ConcurrentHashMap<>();
    /** Entries in the order they were stored: the eviction order. Removed ones are skipped when met. */
    private final ConcurrentLinkedQueue<CacheEntry> order = new ConcurrentLinkedQueue<>();
    private final AtomicLong usedBlocks = new AtomicLong();
    /** Blocks of the entries being sent now (HAProxy's "hot" rows, which are not available). */
    private final AtomicLong hotBlocks = new AtomicLong();

    /** @param budget where blocks are counted too ({@code show pools}, {@code -m}); null when not counted */
    public HttpCache(Cache config, Budget budget) {
        this.config = config;
        this.budget = budget;
    }

    public Cache config() {
        return config;
    }

    public String name() {
        return config.name();
    }

    static long now() {
        return System.currentTimeMillis() / 1000;
    }

    /** {@link #key(RequestHead, String)} of an HTTP/1 request. */
    public static Key key(RequestHead r) {
        return key(r, "https://");
    }

    /**
     * The primary key of a request: SHA-1 of its absolute URI, or of "https://" + Host + target; null without a Host. An
     * HTTP/2 or HTTP/3 request is HAProxy's absolute URI, {@code scheme} (its {@code :scheme}: Sluice takes "https://"
     * over TLS, "http://" in clear text) + authority + path.
     */
    public static Key key(RequestHead r, String scheme) {
        String target = r.target().toString();
        if (target.isEmpty()) {
            return null;
        }
        String uri;
        if (target.startsWith("/") || target.equals("*")) {
            int h = r.fields().indexOf(HeaderNames.HOST);
            if (h < 0) {
                return null;
            }
            uri = scheme + r.fields().value(h) + target;
        } else {
            uri = target;
        }
        return new Key(SHA1.get().digest(uri.getBytes(StandardCharsets.ISO_8859_1)));
    }

    /** One digest per thread (an event loop's), reset by each {@code digest}. */
    private static final ThreadLocal<MessageDigest> SHA1 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-1");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    });

    /**
     * The fresh entry that answers a request of primary key {@code key} and fields {@code request}, or null. As HAProxy:
     * when the first entry of the key expired there is none; a key with variants is searched with the request's
     * secondary key of the first entry's signature.
     */
    public CacheEntry lookup(Key key, HttpFields request) {
        CacheEntry[] list = entries.get(key);
        if (list == null || list.length == 0) {
            return null;
        }
        long now = now();
        CacheEntry first = list[0];
        if (first.expired(now)) {
            remove(first);
            return null;
        }
        if (first.signature == 0) {
            return first;
        }
        byte[] sk = SecondaryKey.of(request, first.signature);
        if (sk == null) {
            return null;
        }
        for (CacheEntry e : list) {
            if (e.expired(now)) {
                remove(e);
            } else if (e.secondary != null && SecondaryKey.matches(e.secondary, sk)) {
                return e;
            }
        }
        return null;
    }

    /** An entry is being sent: its blocks are not available until {@link #released}. */
    public void using(CacheEntry e) {
        e.users.incrementAndGet();
        hotBlocks.addAndGet(e.blocks);
    }

    public void released(CacheEntry e) {
        e.users.decrementAndGet();
        hotBlocks.addAndGet(-e.blocks);
    }

    /** A successful unsafe request (RFC 7234 4.4): the first entry of its key goes. */
    public void invalidate(Key key) {
        CacheEntry[] list = entries.get(key);
        if (list != null && list.length > 0) {
            remove(list[0]);
        }
    }

    /**
     * Stores a complete entry, replacing the one it updates; false when it does not fit or its key has all its variants.
     * The variant it updates is, as HAProxy finds it, the first whose stored key serves {@code requestKey}, the secondary
     * key of the request (so a response in another encoding than the stored one is stored beside it).
     */
    boolean insert(CacheEntry e, byte[] requestKey) {
        if (e.size > config.maxObjectSize() || !reserve(e.blocks)) {
            return false;
        }
        long now = now();
        CacheEntry[] replaced = new CacheEntry[1];
        boolean[] refused = new boolean[1];
        List<CacheEntry> dropped = new ArrayList<>();
        entries.compute(e.key, (k, list) -> {
            List<CacheEntry> out = new ArrayList<>();
            int variants = 0;
            if (list != null && e.signature != 0) {
                for (CacheEntry o : list) {
                    if (o.secondary != null && SecondaryKey.matches(o.secondary, requestKey) && replaced[0] == null) {
                        replaced[0] = o;
                    } else if (!o.expired(now)) {
                        out.add(o);
                        variants += o.signature != 0 ? 1 : 0;
                    } else {
                        dropped.add(o);
                    }
                }
                if (variants >= config.maxSecondaryEntries()) {
                    refused[0] = true;
                    return list;
                }
            } else if (list != null && list.length > 0) {
                replaced[0] = list[0];
                out.addAll(Arrays.asList(list).subList(1, list.length));
            }
            out.add(e);
            return out.toArray(new CacheEntry[0]);
        });
        if (refused[0]) {
            unreserve(e.blocks);
            return false;
        }
        for (CacheEntry o : dropped) {
            if (o.removed.compareAndSet(false, true)) {
                unreserve(o.blocks);
            }
        }
        if (replaced[0] != null && replaced[0].removed.compareAndSet(false, true)) {
            unreserve(replaced[0].blocks);
        }
        order.add(e);
        return true;
    }

    /** Takes the entry out of the store, once; its blocks come back. */
    void remove(CacheEntry e) {
        if (!e.removed.compareAndSet(false, true)) {
            return;
        }
        entries.computeIfPresent(e.key, (k, list) -> {
            CacheEntry[] out = Arrays.stream(list).filter(o -> o != e).toArray(CacheEntry[]::new);
            return out.length == 0 ? null : out;
        });
        unreserve(e.blocks);
    }

    /** Finds {@code n} blocks, the oldest entries making room; false when even an empty cache has not enough. */
    private boolean reserve(int n) {
        while (true) {
            long used = usedBlocks.get();
            if (used + n <= config.maxBlocks()) {
                if (usedBlocks.compareAndSet(used, used + n)) {
                    break;
                }
                continue;
            }
            CacheEntry oldest = order.poll();
            if (oldest == null) {
                return false;
            }
            remove(oldest);
        }
        if (budget != null) {
            for (int i = 0; i < n; i++) {
                if (!budget.take()) {
                    for (int j = 0; j < i; j++) {
                        budget.give();
                    }
                    usedBlocks.addAndGet(-n);
                    return false;
                }
            }
        }
        return true;
    }

    private void unreserve(int n) {
        usedBlocks.addAndGet(-n);
        if (budget != null) {
            for (int i = 0; i < n; i++) {
                budget.give();
            }
        }
        // drop the removed entries at the head of the eviction order
        CacheEntry head;
        while ((head = order.peek()) != null && head.removed.get()) {
            order.remove(head);
        }
    }

    /** Blocks held by entries now. */
    public long usedBlocks() {
        return usedBlocks.get();
    }

    /** How many entries the cache holds now, every variant counted. */
    public int size() {
        int n = 0;
        for (CacheEntry[] l : entries.values()) {
            n += l.length;
        }
        return n;
    }

    /**
     * {@code show cache}'s lines for this cache, as HAProxy 2.6 prints them: a header with the blocks available, then one
     * line per key, its first variant, in the order of the first four bytes of the key (an expired one is removed instead).
     */
    List<String> show() {
        List<String> out = new ArrayList<>();
        String self = "0x" + Long.toHexString(0x7f0000000000L | System.identityHashCode(this));
        out.add(self + ": " + config.name() + " (shctx:" + self + ", available blocks:" + (config.maxBlocks() - hotBlocks.get()) + ")");
        // HAProxy walks its tree key by key: the first variant of each key only
        List<CacheEntry> all = new ArrayList<>();
        for (CacheEntry[] l : entries.values()) {
            if (l.length > 0) {
                all.add(l[0]);
            }
        }
        all.sort(Comparator.comparingLong(e -> e.key.hash32() & 0xffffffffL));
        long now = now();
        for (CacheEntry e : all) {
            if (e.expired(now)) {
                remove(e);
                continue;
            }
            out.add("0x" + Long.toHexString(0x7f0000000000L | System.identityHashCode(e)) + " hash:" + (e.key.hash32() & 0xffffffffL)
                    + " vary:0x" + SecondaryKey.hex(e.secondary != null ? e.secondary : new byte[SecondaryKey.LENGTH]) + " size:" + e.size
                    + " (" + e.blocks + " blocks), refcount:" + e.users.get() + ", expire:" + (e.expire - now));
        }
        return out;
    }
}
