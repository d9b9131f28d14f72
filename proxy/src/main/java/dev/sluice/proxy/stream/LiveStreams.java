package dev.sluice.proxy.stream;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The streams in progress, per event loop: what {@code show sess} lists and {@code shutdown session}
 * finds. Each loop has its own array, touched only by that loop: a stream takes a slot when it starts and
 * gives it back when it ends (two array writes, no lock, no atomic). The admin side reads a loop's streams
 * with a task on that loop ({@code Workers.onEachLoop}), the way HAProxy isolates threads to dump them.
 * A stream's id carries its loop in its low 12 bits (nbthread goes up to 4096), so {@code shutdown session <id>}
 * goes straight to it.
 */
public final class LiveStreams {
    /** Per-loop state; only its loop touches it. */
    private static final class Loop {
        Live[] streams = new Live[64];
        int size;
        long created;
        long accepted;
    }

    private static final int LOOP_BITS = 12;

    private final Loop[] loops;
    /** HAProxy's stream epoch: {@code show sess} moves it on, each stream keeps the one it started in. */
    private volatile int epoch;

    public LiveStreams(int loopCount) {
        if (loopCount > 1 << LOOP_BITS) {
            throw new IllegalArgumentException("at most " + (1 << LOOP_BITS) + " event loops");
        }
        loops = new Loop[loopCount];
        for (int i = 0; i < loopCount; i++) {
            loops[i] = new Loop();
        }
    }

    /** Registers a starting stream of loop {@code loop}; on that loop. Returns the stream's id. */
    long add(Live s, int loop) {
        Loop l = loops[loop];
        if (l.size == l.streams.length) {
            l.streams = Arrays.copyOf(l.streams, l.size * 2);
        }
        s.liveSlot = l.size;
        l.streams[l.size++] = s;
        return ++l.created << LOOP_BITS | loop;
    }

    /** Unregisters an ending stream; on its loop. Idempotent. */
    void remove(Live s, int loop) {
        int slot = s.liveSlot;
        if (slot < 0) {
            return;
        }
        Loop l = loops[loop];
        Live last = l.streams[--l.size];
        l.streams[slot] = last;
        last.liveSlot = slot;
        l.streams[l.size] = null;
        s.liveSlot = -1;
    }

    /** A client connection was accepted on loop {@code loop} ({@code show activity}); on that loop. */
    public void accepted(int loop) {
        loops[loop].accepted++;
    }

    /** The streams of loop {@code loop} right now; only on that loop. */
    public List<Live> on(int loop) {
        Loop l = loops[loop];
        List<Live> out = new ArrayList<>(l.size);
        for (int i = 0; i < l.size; i++) {
            out.add(l.streams[i]);
        }
        return out;
    }

    /** Streams started on loop {@code loop} since the start; only on that loop. */
    public long created(int loop) {
        return loops[loop].created;
    }

    /** Connections accepted on loop {@code loop} since the start; only on that loop. */
    public long acceptedOn(int loop) {
        return loops[loop].accepted;
    }

    /** The loop of a stream id, or -1 when it names none. */
    public int loopOf(long id) {
        int loop = (int) (id & ((1 << LOOP_BITS) - 1));
        return id <= 0 || loop >= loops.length ? -1 : loop;
    }

    public int epoch() {
        return epoch;
    }

    /** {@code show sess}: the epoch moves on, so the next dump tells newer streams apart. */
    public synchronized int nextEpoch() {
        return ++epoch;
    }

    public int loopCount() {
        return loops.length;
    }
}
