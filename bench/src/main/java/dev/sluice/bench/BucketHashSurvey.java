package dev.sluice.bench;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.IntUnaryOperator;

/**
 * How well candidate multipliers spread identity hashes over 2^bits pool buckets, measured as HAProxy
 * measured its pointer hashes: hash N = B/2 objects into B buckets, count the share of buckets hit, average
 * over 4096 windows of consecutive objects. A random function fills 1 - (1 - 1/B)^(B/2). Prints one row
 * per multiplier for real identity hashes of this JVM (run it with {@code -XX:+UnlockExperimentalVMOptions
 * -XX:hashCode=3} or {@code =4} to see sequence- or address-derived hashes), then the worst and mean fill
 * relative to random over synthetic address progressions (strides 1 to 256 bytes) at 3 to 6 bits.
 *
 * <p>Run: {@code java -cp bench/target/benchmarks.jar dev.sluice.bench.BucketHashSurvey}.
 */
public final class BucketHashSurvey {

    private static final long[] CANDIDATES = {
        0x9d28e4e9L, 0x9e3779b9L, 0xacd1be85L, 0x2545f491L, 0x5bd1e995L, 0x85ebca6bL, 0xcc9e2d51L, 0x27d4eb2fL,
        0x165667b1L,
    };

    private BucketHashSurvey() {
    }

    private static int index(int h, int mult, int bits) {
        return mult == 1 ? h & ((1 << bits) - 1) : (h * mult) >>> (32 - bits);
    }

    private static double fill(int[] hashes, int mult, int bits) {
        int b = 1 << bits;
        int n = b / 2;
        SplittableRandom rnd = new SplittableRandom(bits);
        boolean[] seen = new boolean[b];
        double total = 0;
        for (int t = 0; t < 4096; t++) {
            Arrays.fill(seen, false);
            int start = rnd.nextInt(hashes.length - n);
            int unique = 0;
            for (int i = 0; i < n; i++) {
                int k = index(hashes[start + i], mult, bits);
                if (!seen[k]) {
                    seen[k] = true;
                    unique++;
                }
            }
            total += (double) unique / b;
        }
        return total / 4096;
    }

    private static double ideal(int bits) {
        int b = 1 << bits;
        return 1 - Math.pow(1 - 1.0 / b, b / 2.0);
    }

    private static int[] identityHashes(int n, int threads) throws InterruptedException {
        int[] out = new int[n];
        int per = n / threads;
        Thread[] ts = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int base = t * per;
            ts[t] = Thread.ofPlatform().start(() -> {
                for (int i = 0; i < per; i++) {
                    Object o = switch (i % 3) {
                        case 0 -> new byte[200];
                        case 1 -> new Object();
                        default -> new long[4];
                    };
                    out[base + i] = System.identityHashCode(o);
                }
            });
        }
        for (Thread t : ts) {
            t.join();
        }
        return out;
    }

    private static int[] progression(int stride) {
        IntUnaryOperator f = i -> 0x7f00_0000 + i * stride;
        int[] h = new int[40_000];
        for (int i = 0; i < h.length; i++) {
            h[i] = f.applyAsInt(i);
        }
        return h;
    }

    public static void main(String[] args) throws InterruptedException {
        int[] hashes = identityHashes(40_002, 2);
        StringBuilder head = new StringBuilder(String.format("%-12s", "fill %"));
        StringBuilder random = new StringBuilder(String.format("%-12s", "random"));
        for (int bits = 1; bits <= 10; bits++) {
            head.append(String.format(" %6s", bits + " bits"));
            random.append(String.format(" %6.2f", 100 * ideal(bits)));
        }
        System.out.println("Identity hashes of this JVM (" + hashes.length + " objects, 2 threads)");
        System.out.println(head);
        System.out.println(random);
        System.out.println(row("low bits", hashes, 1));
        for (long m : CANDIDATES) {
            System.out.println(row(String.format("0x%08x", m), hashes, (int) m));
        }
        int[] strides = {1, 8, 16, 24, 32, 40, 48, 56, 64, 96, 200, 216, 256};
        System.out.println();
        System.out.println("Address progressions (strides 1..256), 3 to 6 bits, fill relative to random");
        for (long m : CANDIDATES) {
            double worst = Double.MAX_VALUE;
            double sum = 0;
            int n = 0;
            for (int s : strides) {
                int[] in = progression(s);
                for (int bits = 3; bits <= 6; bits++) {
                    double r = fill(in, (int) m, bits) / ideal(bits);
                    worst = Math.min(worst, r);
                    sum += r;
                    n++;
                }
            }
            System.out.printf("0x%08x   worst %5.1f%%   mean %5.1f%%%n", m, 100 * worst, 100 * sum / n);
        }
    }

    private static String row(String label, int[] hashes, int mult) {
        StringBuilder sb = new StringBuilder(String.format("%-12s", label));
        for (int bits = 1; bits <= 10; bits++) {
            sb.append(String.format(" %6.2f", 100 * fill(hashes, mult, bits)));
        }
        return sb.toString();
    }
}
