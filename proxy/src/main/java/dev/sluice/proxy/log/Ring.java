package dev.sluice.proxy.log;

import dev.sluice.config.model.LogTarget;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * A ring of log messages (a {@code ring} section, or HAProxy's built-in {@code buf0}): a bounded buffer of {@code size}
 * bytes where each message costs its length plus HAProxy's per-message overhead (a varint length and a reader count
 * byte); writing a message that does not fit drops the oldest ones. Messages are numbered; readers ({@code show events},
 * the forwarders to the ring's servers) keep the number of the next message they want and ask for what follows.
 * Written by the log writer thread only (never by an event loop); a short lock guards the deque against readers.
 */
public final class Ring {
    private final String name;
    private final String description;
    private final LogTarget.Format format;
    private final int maxLen;
    private final int size;
    private final ArrayDeque<byte[]> messages = new ArrayDeque<>();
    /** The number of the oldest message kept; the next one written gets {@code first + messages.size()}. */
    private long first;
    private int used;
    private volatile long dropped;

    /** {@code format}: the header messages get as they enter; {@code maxLen}: the longest message kept (header included). */
    public Ring(String name, String description, LogTarget.Format format, int maxLen, int size) {
        this.name = name;
        this.description = description;
        this.format = format;
        this.maxLen = maxLen;
        this.size = size;
    }

    public LogTarget.Format format() {
        return format;
    }

    public int maxLen() {
        return maxLen;
    }

    public int size() {
        return size;
    }

    public String name() {
        return name;
    }

    public String description() {
        return description;
    }

    /** The bytes a message costs in the ring, as in HAProxy's ring_write: varint length + message + reader count. */
    static int cost(int len) {
        int varint = 1;
        long v = len;
        if (v >= 240) {
            v = (v - 240) >> 4;
            varint++;
            while (v >= 128) {
                v = (v - 128) >> 7;
                varint++;
            }
        }
        return varint + len + 1;
    }

    /**
     * Adds a message, dropping the oldest ones until it fits; one larger than the whole ring is refused (false), which
     * the writer counts in {@link #dropped}.
     */
    public boolean write(byte[] message) {
        int cost = cost(message.length);
        synchronized (this) {
            if (cost > size) {
                return false;
            }
            while (used + cost > size) {
                byte[] old = messages.removeFirst();
                used -= cost(old.length);
                first++;
            }
            messages.addLast(message);
            used += cost;
            notifyAll();
        }
        return true;
    }

    /**
     * Messages refused since the last "N events dropped" message the writer put in the ring ({@code show events} shows
     * it). Written by the log writer thread only.
     */
    public long dropped() {
        return dropped;
    }

    void dropped(long n) {
        dropped = n;
    }

    /** The number the next message written will get. */
    public synchronized long next() {
        return first + messages.size();
    }

    /** The number of the oldest message kept. */
    public synchronized long oldest() {
        return first;
    }

    /**
     * The messages numbered {@code from} and after (from the oldest kept when older ones were dropped), at most {@code max}.
     */
    public synchronized List<byte[]> read(long from, int max) {
        long skip = Math.max(0, from - first);
        List<byte[]> out = new ArrayList<>();
        if (skip >= messages.size()) {
            return out;
        }
        Iterator<byte[]> it = messages.iterator();
        for (long i = 0; i < skip; i++) {
            it.next();
        }
        while (it.hasNext() && out.size() < max) {
            out.add(it.next());
        }
        return out;
    }

    /** The number of the first message {@link #read} returns for {@code from}. */
    public synchronized long start(long from) {
        return Math.max(from, first);
    }

    /** Waits until a message numbered {@code from} or after exists, at most {@code ms}; whether one does. */
    public synchronized boolean await(long from, long ms) throws InterruptedException {
        long end = System.nanoTime() + ms * 1_000_000L;
        while (first + messages.size() <= from) {
            long left = (end - System.nanoTime()) / 1_000_000L;
            if (left <= 0) {
                return false;
            }
            wait(left);
        }
        return true;
    }

    /** Bytes in use (messages and their overhead). */
    public synchronized int used() {
        return used;
    }
}
