package dev.sluice.proxy.memory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.pools.Pool;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code flush pools} (HAProxy's SIGQUIT): the dump is the one from before, then each "loop" (here a
 * single-thread executor) drops its own cache and the shared spares go, minAvail included.
 */
class ProxyPoolsTest {
    private final ExecutorService[] loops = {Executors.newSingleThreadExecutor(), Executors.newSingleThreadExecutor()};

    @AfterEach
    void shutDown() {
        for (ExecutorService l : loops) {
            l.shutdownNow();
        }
    }

    /** Runs a task on every loop, completing when all ran it, as the runtime's workers do. */
    private CompletionStage<?> eachLoop(Runnable task) {
        List<CompletableFuture<Void>> parts = new ArrayList<>();
        for (ExecutorService l : loops) {
            try {
                parts.add(CompletableFuture.runAsync(task, l));
            } catch (RejectedExecutionException e) {
                parts.add(CompletableFuture.failedFuture(e));
            }
        }
        return CompletableFuture.allOf(parts.toArray(new CompletableFuture[0]));
    }

    private static void churn(Pool<long[]> p, int n) {
        List<long[]> held = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            held.add(p.alloc());
        }
        held.forEach(p::release);
    }

    @Test
    void flushAnswersTheDumpFromBeforeThenEveryLoopsCacheAndEverySpareAreGone() throws Exception {
        ProxyPools pools = new ProxyPools(1);
        Pool<long[]> p = pools.registry().create("flushme", long[].class, 96, () -> new long[8], a -> { },
                dev.sluice.pools.PoolOptions.DEFAULT.withThreadCacheItems(8).withMinAvail(40));
        // each loop takes 20, then gives them back: 8 stay in its own cache, the rest overflow to the shared one,
        // all kept (minAvail 40), and gone after the flush all the same
        List<List<long[]>> held = new ArrayList<>();
        for (ExecutorService l : loops) {
            held.add(l.submit(() -> {
                List<long[]> mine = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    mine.add(p.alloc());
                }
                return mine;
            }).get(5, TimeUnit.SECONDS));
        }
        for (int i = 0; i < loops.length; i++) {
            List<long[]> mine = held.get(i);
            loops[i].submit(() -> mine.forEach(p::release)).get(5, TimeUnit.SECONDS);
        }
        assertThat(p.allocated()).isEqualTo(40);
        long cached = p.cached();
        assertThat(cached).isBetween(10L, 16L);
        assertThat(p.sharedSpares()).isEqualTo(40 - cached);
        assertThat(pools.registry().reservedBytes()).isEqualTo(40 * 96);

        String dump = pools.flush(this::eachLoop).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(dump).startsWith("Dumping pools usage. Use SIGQUIT to flush them.\n")
                .contains("  - Pool flushme (96 bytes) : 40 allocated (3840 bytes), " + cached + " used (~" + cached + " by thread caches)")
                .contains("\nTotal: ");
        assertThat(p.allocated()).isZero();
        assertThat(p.used()).isZero();
        assertThat(p.cached()).isZero();
        assertThat(pools.registry().reservedBytes()).isZero();
    }

    @Test
    void aLoopThatRefusesTheTaskDoesNotKeepTheSharedSparesAlive() throws Exception {
        ProxyPools pools = new ProxyPools(0);
        Pool<long[]> p = pools.registry().create("shared", long[].class, 96, () -> new long[8], a -> { },
                dev.sluice.pools.PoolOptions.DEFAULT.withThreadCacheItems(0).withMinAvail(5));
        churn(p, 5);
        assertThat(p.sharedSpares()).isEqualTo(5);
        loops[1].shutdown();
        pools.dropSpares(this::eachLoop).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(p.sharedSpares()).isZero();
        assertThat(p.allocated()).isZero();
    }

    @Test
    void flushIsAnAdminCommand() {
        ProxyPools pools = new ProxyPools(0);
        dev.sluice.proxy.admin.CliRegistry r = new dev.sluice.proxy.admin.CliRegistry();
        Function<Runnable, CompletionStage<?>> each = this::eachLoop;
        pools.register(r, each);
        dev.sluice.proxy.admin.CliCommand c = r.find(List.of("flush", "pools"));
        assertThat(c).isNotNull();
        assertThat(c.level()).isEqualTo(dev.sluice.config.model.StatsSocket.Level.ADMIN);
        assertThat(c.usage()).isEqualTo("flush pools                             : dump the memory pools usage, then release every spare object");
    }
}
