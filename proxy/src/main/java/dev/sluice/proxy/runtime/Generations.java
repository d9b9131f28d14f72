package dev.sluice.proxy.runtime;

import dev.sluice.config.model.Config;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.function.Function;

/**
 * The configurations a process runs, one after the other: the current {@link ProxyRuntime} and those an in-process
 * reload replaced, which finish the streams they started (see "Reloading in the process" in docs/design.md). A
 * reload reads and checks the files with the same code as {@code -c}; a configuration with errors changes nothing and
 * says why. Reloads run one at a time, on a thread of their own (binding waits, which an event loop must not).
 */
public final class Generations {
    /** What reading the configuration gave: the model and what running it needs, or why it cannot run. */
    public record Loaded(Config config, ProxyRuntime.Prepared prepared, List<String> messages) {
        /** A configuration that cannot run: {@code messages} say why. */
        public static Loaded failed(List<String> messages) {
            return new Loaded(null, null, messages);
        }
    }

    /** The outcome of a reload: whether the new configuration runs, and the messages (warnings, errors). */
    public record Result(boolean ok, boolean restartNeeded, List<String> messages) {
        public Result(boolean ok, List<String> messages) {
            this(ok, false, messages);
        }

        /**
         * HAProxy 2.7's answer to the master CLI's {@code reload}: {@code Success=1|0}, {@code --}, the messages; when a new
         * process is needed (see {@link Generations#reload(boolean)}), {@code Restart=1} instead of {@code Success=}.
         */
        public String answer() {
            StringBuilder b = new StringBuilder(restartNeeded ? "Restart=1" : ok ? "Success=1" : "Success=0").append("\n--\n");
            for (String m : messages) {
                b.append(m).append('\n');
            }
            return b.toString();
        }
    }

    private final Function<ProxyRuntime, Loaded> loader;
    private final boolean quiet;
    private volatile ProxyRuntime current;
    /** Replaced configurations still finishing their streams. */
    private final List<ProxyRuntime> retiring = new CopyOnWriteArrayList<>();
    private final ExecutorService reloads = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "sluice-reload");
        t.setDaemon(true);
        return t;
    });
    private volatile int count;
    private volatile long lastMillis;
    /** The heap's committed size at the first reload, then after each collection {@link #collectIfSettled} asked for; reload thread only. */
    private long heapBaseline = -1;

    /**
     * {@code loader} reads the configuration files again (with the command line's settings) for each reload, given the
     * running configuration (whose unchanged TLS contexts it may take over: {@link ProxyRuntime#check(Config, ProxyRuntime)}).
     */
    public Generations(ProxyRuntime first, Function<ProxyRuntime, Loaded> loader, boolean quiet) {
        this.current = first;
        this.loader = loader;
        this.quiet = quiet;
        first.generations(this);
    }

    public ProxyRuntime current() {
        return current;
    }

    /** In-process reloads done since the start. */
    public int reloads() {
        return count;
    }

    /** When the last reload was done (epoch milliseconds), 0 when none was. */
    public long lastReloadMillis() {
        return lastMillis;
    }

    /** Configurations alive: the current one and those still finishing. */
    public int alive() {
        return 1 + retiring.size();
    }

    /** The argument of a master's {@code reload} on a worker's admin socket (see {@link #reload(boolean)}). */
    public static final String IN_PLACE_ONLY = "in-place-only";

    /**
     * Runs the reload path ({@link #WARM_UP_ROUNDS} times), {@code delayMs} after the start, without switching to what it builds: the files read and
     * checked, the new configuration built, then dropped as a refused reload's is ({@link Reload#discard}). The first
     * real reload then finds its code loaded and compiled. Nothing is printed, logged or counted; a failure is the next
     * real reload's to report.
     */
    public void warmUp(long delayMs) {
        CompletableFuture.runAsync(() -> {
            for (int i = 0; i < WARM_UP_ROUNDS; i++) {
                warmUpOnce();
            }
        }, CompletableFuture.delayedExecutor(delayMs, java.util.concurrent.TimeUnit.MILLISECONDS, reloads));
    }

    /**
     * How many times {@link #warmUp} runs the path: once leaves its per-server code interpreted or in C1's first tier (a
     * thousand servers are a thousand calls, below C2's thresholds); the first real reload of such a configuration took
     * twice as long as the next ones.
     */
    private static final int WARM_UP_ROUNDS = 3;

    private void warmUpOnce() {
        ProxyRuntime old = current;
        if (old.stopping() || count > 0) {
            return;
        }
        Loaded loaded;
        try {
            loaded = loader.apply(old);
        } catch (RuntimeException e) {
            return;
        }
        if (loaded.config() == null) {
            return;
        }
        ProxyRuntime next = null;
        try {
            next = ProxyRuntime.reloaded(loaded.config(), loaded.prepared(), old);
        } catch (RuntimeException e) {
            // the next real reload says why
        } finally {
            drop(next, loaded);
        }
    }

    /**
     * Drops a configuration built from {@code loaded} that will not run: {@code next} (null when its build failed) as a
     * refused reload's ({@link Reload#discard}), and the TLS contexts the check made with its hold on those it took over.
     */
    private static void drop(ProxyRuntime next, Loaded loaded) {
        if (next != null) {
            Reload.discard(next);
        }
        if (loaded.prepared().tls() != null) {
            loaded.prepared().tls().close();
        }
    }

    /** Reloads now, on the reload thread; the result once the new configuration answers (or was refused). */
    public CompletableFuture<Result> reload() {
        return reload(false);
    }

    /**
     * The same; with {@code inPlaceOnly} (a master's request), a configuration that changes a setting only a new process
     * applies (nbthread, cpu-map, tune.maxpollevents) is not loaded: the result is {@link Result#restartNeeded} with
     * the reasons, and the master starts a new worker instead.
     */
    public CompletableFuture<Result> reload(boolean inPlaceOnly) {
        return CompletableFuture.supplyAsync(() -> {
            Result r = reloadNow(inPlaceOnly);
            if (r.restartNeeded()) {
                // nothing changed here: the master that asked says what it does instead
                return r;
            }
            // the console (unless -q) and the global log targets, whatever asked for the reload
            if (!quiet) {
                r.messages().forEach(System.err::println);
            }
            Reload.log(current, r.messages());
            return r;
        }, reloads);
    }

    private Result reloadNow(boolean inPlaceOnly) {
        ProxyRuntime old = current;
        if (old.stopping()) {
            return new Result(false, List.of("[ALERT] the process is stopping: no reload"));
        }
        long t0 = System.nanoTime();
        long a0 = allocated();
        if (heapBaseline < 0) {
            heapBaseline = Runtime.getRuntime().totalMemory();
        }
        Loaded loaded;
        try {
            loaded = loader.apply(old);
        } catch (RuntimeException e) {
            loaded = Loaded.failed(List.of("[ALERT] cannot read the configuration: " + e));
        }
        List<String> messages = new ArrayList<>(loaded.messages());
        if (loaded.config() == null) {
            messages.add("[ALERT] Reload failed: the running configuration is kept.");
            return new Result(false, messages);
        }
        if (inPlaceOnly) {
            List<String> restart = Reload.restartChanges(old.config(), loaded.config(), old.workers().count(),
                    ProxyRuntime.threads(loaded.config()));
            if (!restart.isEmpty()) {
                if (loaded.prepared().tls() != null) {
                    loaded.prepared().tls().close();
                }
                return new Result(false, true, restart);
            }
        }
        long t1 = System.nanoTime();
        ProxyRuntime next = null;
        long t2;
        try {
            next = ProxyRuntime.reloaded(loaded.config(), loaded.prepared(), old);
            if (quiet) {
                next.quiet();
            }
            t2 = System.nanoTime();
            next.start();
        } catch (RuntimeException e) {
            drop(next, loaded);
            messages.add("[ALERT] " + e.getMessage());
            messages.add("[ALERT] Reload failed: the running configuration is kept.");
            return new Result(false, messages);
        }
        messages.addAll(next.reloadNotes());
        current = next;
        count++;
        lastMillis = System.currentTimeMillis();
        retiring.add(old);
        Reload.retire(old, next, retiring, () -> released(old));
        long t3 = System.nanoTime();
        // not String.format: its first use initialises the locale data (20 ms, in the first reload's time)
        messages.add("[NOTICE] Reloaded in the process in " + tenths(t3 - t0) + " ms (generation " + (count + 1) + ": files read and checked in "
                + tenths(t1 - t0) + " ms, built in " + tenths(t2 - t1) + " ms, started in " + tenths(t3 - t2) + " ms; "
                + tenths(allocated() - a0) + " MB allocated).");
        return new Result(true, messages);
    }

    /**
     * A replaced configuration ended its last stream. Configurations die old: by then their objects are in the old
     * generation, which only a full collection empties, and the collector grows the heap rather than collect it while
     * garbage is all it holds (a reload of 1,000 servers leaves about 2 MB there; 100 reloads took the resident size
     * from 149 to 352 MB). So once reloads have stopped for {@link #SETTLE_MS} and no replaced configuration is left, a
     * heap grown by more than {@link #HEAP_SLACK} since the first reload (or since the last such collection) is
     * collected once, and given back (Serial with {@code -XX:-ShrinkHeapInSteps}, G1 concurrently with
     * {@code -XX:+ExplicitGCInvokesConcurrent}: the launcher's flags). A pause of tens of milliseconds, once per burst of
     * reloads at most.
     */
    private void released(ProxyRuntime old) {
        retiring.remove(old);
        int at = count;
        CompletableFuture.runAsync(() -> collectIfSettled(at), CompletableFuture.delayedExecutor(SETTLE_MS, java.util.concurrent.TimeUnit.MILLISECONDS,
                reloads));
    }

    static final long SETTLE_MS = 10_000;
    static final long HEAP_SLACK = 32L << 20;

    private void collectIfSettled(int at) {
        if (count != at || !retiring.isEmpty() || current.stopping() || !grown(Runtime.getRuntime().totalMemory(), heapBaseline)) {
            return;
        }
        System.gc();
        heapBaseline = Runtime.getRuntime().totalMemory();
    }

    /** Whether a heap committed at {@code committed} bytes grew enough since {@code baseline} (-1: no reload yet) to collect. */
    static boolean grown(long committed, long baseline) {
        return baseline >= 0 && committed - baseline > HEAP_SLACK;
    }

    /** {@code v} millionths as a decimal with one digit after the point (nanoseconds as milliseconds: 12.3). */
    static String tenths(long v) {
        long t = (Math.max(0, v) + 50_000) / 100_000;
        return t / 10 + "." + t % 10;
    }

    /** The bytes the calling thread allocated so far (a reload's cost in garbage), 0 where the JVM does not count them. */
    private static long allocated() {
        return Threads.BEAN instanceof com.sun.management.ThreadMXBean t ? Math.max(0, t.getCurrentThreadAllocatedBytes()) : 0;
    }

    /** Looked up once, at the first reload (the look-up is slower than the count), not at the start. */
    private static final class Threads {
        static final java.lang.management.ThreadMXBean BEAN = java.lang.management.ManagementFactory.getThreadMXBean();
    }

    /** {@code SIGUSR1}: every configuration stops gracefully; the process ends with the last stream. */
    public void softStop() {
        for (ProxyRuntime r : retiring) {
            Reload.softStop(r);
        }
        current.othersDrained(() -> retiring.isEmpty());
        current.softStop();
    }

    /** {@code SIGTERM}: everything closes now. */
    public void stop() {
        current.stop();
    }

    /** Waits until the process's runtime (whichever is current) has stopped. */
    public void awaitStop() throws InterruptedException {
        // the current one may change while waiting: a replaced one never stops the process
        while (!current.awaitStop(100)) {
            // again
        }
        reloads.shutdownNow();
    }
}
