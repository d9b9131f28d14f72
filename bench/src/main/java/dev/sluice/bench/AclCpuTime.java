package dev.sluice.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.function.Supplier;

/**
 * {@link AclBench}'s {@code compiled} and {@code compiledSamples} timed in thread CPU time per op rather than wall time:
 * on a loaded machine a descheduled thread does not count, so two jars run one after the other in alternation compare
 * better than with JMH's wall-clock figures (cache and hyper-thread sharing still count). Warms up for about 8 s, then
 * prints the median of 15 batches of 200,000 ops for each.
 * <p>
 * Run: {@code java -cp bench/target/benchmarks.jar dev.sluice.bench.AclCpuTime}, alternating the jar built before a
 * change and the one after it, a dozen rounds.
 */
public final class AclCpuTime {
    private static int sink;

    private AclCpuTime() {
    }

    static double measure(Supplier<String> op, int batches, int perBatch) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        double[] ns = new double[batches];
        for (int b = 0; b < batches; b++) {
            long t0 = mx.getCurrentThreadCpuTime();
            for (int i = 0; i < perBatch; i++) {
                sink ^= op.get().hashCode();
            }
            ns[b] = (mx.getCurrentThreadCpuTime() - t0) / (double) perBatch;
        }
        Arrays.sort(ns);
        return ns[batches / 2];
    }

    public static void main(String[] args) {
        AclBench bench = new AclBench();
        bench.setUp();
        for (int i = 0; i < 2; i++) {
            measure(bench::compiled, 10, 200_000);
            measure(bench::compiledSamples, 10, 200_000);
        }
        double compiled = measure(bench::compiled, 15, 200_000);
        double samples = measure(bench::compiledSamples, 15, 200_000);
        System.out.printf("compiled %.1f compiledSamples %.1f ns/op (CPU)%n", compiled, samples);
        if (sink == 42) {
            System.out.println();
        }
    }
}
