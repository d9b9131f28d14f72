package dev.sluice.sticktable;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class PaddedLockTest {

    /**
     * Checks the layout the class comment reasons about, with the field offsets HotSpot actually chose:
     * the state word starts at least 128 bytes into the object and at least 128 bytes of padding follow
     * it, so nothing written by another object shares its cache line or the adjacent one.
     */
    @Test
    void theStateWordHas128BytesOfPaddingOnEachSide() throws Exception {
        // sun.misc.Unsafe through reflection: javac warns on its direct use and nothing else gives offsets.
        Object unsafe;
        java.lang.reflect.Method offsetOf;
        try {
            Class<?> u = Class.forName("sun.misc.Unsafe");
            Field f = u.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            unsafe = f.get(null);
            offsetOf = u.getMethod("objectFieldOffset", Field.class);
        } catch (ReflectiveOperationException | RuntimeException e) {
            Assumptions.abort("no Unsafe to read field offsets: " + e);
            return;
        }
        long state = -1;
        long minOther = Long.MAX_VALUE;
        long maxOther = -1;
        int others = 0;
        for (Class<?> c = PaddedLock.class; c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers())) {
                    continue;
                }
                long off = (long) offsetOf.invoke(unsafe, f);
                if (f.getName().equals("state")) {
                    assertThat(f.getType()).isEqualTo(long.class);
                    state = off;
                } else {
                    assertThat(f.getType()).isEqualTo(long.class);
                    minOther = Math.min(minOther, off);
                    maxOther = Math.max(maxOther, off);
                    others++;
                }
            }
        }
        assertThat(others).isEqualTo(32);
        assertThat(state).as("offset of state").isGreaterThanOrEqualTo(128);
        assertThat(maxOther + 8 - (state + 8)).as("padding after state").isGreaterThanOrEqualTo(128);
        assertThat(minOther).as("first pad before state").isLessThan(state);
    }

    @Test
    void exclusiveHoldersExcludeEachOther() throws Exception {
        PaddedLock lock = new PaddedLock();
        int[] counter = {0};
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            ts.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 100_000; i++) {
                    lock.lock();
                    try {
                        counter[0]++;
                    } finally {
                        lock.unlock();
                    }
                }
            }));
        }
        for (Thread t : ts) {
            t.join();
        }
        assertThat(counter[0]).isEqualTo(400_000);
        assertThat(lock.tryLock()).isTrue();
        assertThat(lock.tryLock()).isFalse();
        lock.unlock();
    }

    @Test
    void sharedHoldersExcludeWriters() throws Exception {
        PaddedLock lock = new PaddedLock();
        AtomicInteger inside = new AtomicInteger();
        AtomicBoolean bad = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
            ts.add(Thread.ofPlatform().start(() -> {
                while (!stop.get()) {
                    lock.lockShared();
                    inside.incrementAndGet();
                    if (lock.isHeldExclusively()) {
                        bad.set(true);
                    }
                    inside.decrementAndGet();
                    lock.unlockShared();
                }
            }));
        }
        for (int i = 0; i < 20_000; i++) {
            lock.lock();
            if (inside.get() != 0) {
                bad.set(true);
            }
            lock.unlock();
        }
        stop.set(true);
        for (Thread t : ts) {
            t.join();
        }
        assertThat(bad).isFalse();
        assertThat(lock.sharedHolders()).isZero();
    }
}
