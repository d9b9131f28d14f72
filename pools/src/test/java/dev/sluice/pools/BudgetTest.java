package dev.sluice.pools;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import org.junit.jupiter.api.Test;

class BudgetTest {

    @Test
    void countsLiveObjectsAndHoldsThemToTheCeilingWithThePools() {
        PoolRegistry r = new PoolRegistry(10 * 1024);
        Budget streams = r.budget("stream", 1024);
        Pool<byte[]> buf = r.create("buffer", byte[].class, 4096, () -> new byte[1], b -> { }, PoolOptions.DEFAULT.withExact(true));
        byte[] one = buf.alloc();
        for (int i = 0; i < 6; i++) {
            assertThat(streams.take()).isTrue();
        }
        assertThat(streams.take()).isFalse();
        assertThat(streams.used()).isEqualTo(6);
        assertThat(streams.failed()).isEqualTo(1);
        assertThat(r.reservedBytes()).isEqualTo(6 * 1024 + 4096);
        streams.give();
        assertThat(streams.take()).isTrue();
        for (int i = 0; i < 6; i++) {
            streams.give();
        }
        assertThat(streams.used()).isZero();
        assertThat(r.reservedBytes()).isEqualTo(4096);
        assertThat(r.totals().failed()).isEqualTo(1);
        buf.release(one);
    }

    @Test
    void showPoolsListsItAmongThePoolsBySize() {
        PoolRegistry r = new PoolRegistry();
        r.create("small", Object.class, 16, Object::new, o -> { });
        r.create("large", String.class, 4096, String::new, o -> { });
        Budget b = r.budget("stream", 1024);
        b.take();
        b.take();
        List<String> lines = ShowPools.render(r, ShowPoolsArgs.ALL).lines().toList();
        assertThat(lines.get(1)).startsWith("  - Pool small (16 bytes)");
        assertThat(lines.get(2)).startsWith("  - Pool stream (1024 bytes) : 2 allocated (2048 bytes), 2 used (~0 by thread caches), needed_avg ")
                .endsWith(", 0 failures, 1 users, @0x" + Integer.toHexString(System.identityHashCode(b)));
        assertThat(lines.get(3)).startsWith("  - Pool large (4096 bytes)");
        assertThat(r.totals().usedBytes()).isEqualTo(2048);
    }

    @Test
    void takenOnOneThreadGivenOnAnotherTheSumStaysExact() throws Exception {
        PoolRegistry r = new PoolRegistry(1 << 30);
        Budget b = r.budget("sess", 512);
        BlockingQueue<Boolean> handoff = new ArrayBlockingQueue<>(1024);
        int n = 200_000;
        Thread taker = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < n; i++) {
                if (b.take()) {
                    try {
                        handoff.put(true);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        });
        Thread giver = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < n; i++) {
                try {
                    handoff.take();
                } catch (InterruptedException e) {
                    return;
                }
                b.give();
            }
        });
        taker.join();
        giver.join();
        assertThat(b.used()).isZero();
        assertThat(b.failed()).isZero();
        assertThat(r.reservedBytes()).isZero();
        List<Thread> both = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            both.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 10_000; i++) {
                    b.take();
                }
            }));
        }
        for (Thread t : both) {
            t.join();
        }
        assertThat(b.used()).isEqualTo(20_000);
        assertThat(r.reservedBytes()).isEqualTo(20_000L * 512);
    }
}
