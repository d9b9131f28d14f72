package dev.sluice.proxy.rules;

/**
 * XXH32 and XXH64 (Yann Collet's xxHash, as HAProxy's xxh32/xxh64 converters and its dynamic cookies use them),
 * little-endian reads.
 */
public final class XxHash {
    private XxHash() {
    }

    private static final int P32_1 = 0x9E3779B1;
    private static final int P32_2 = 0x85EBCA77;
    private static final int P32_3 = 0xC2B2AE3D;
    private static final int P32_4 = 0x27D4EB2F;
    private static final int P32_5 = 0x165667B1;
    private static final long P64_1 = 0x9E3779B185EBCA87L;
    private static final long P64_2 = 0xC2B2AE3D27D4EB4FL;
    private static final long P64_3 = 0x165667B19E3779F9L;
    private static final long P64_4 = 0x85EBCA77C2B2AE63L;
    private static final long P64_5 = 0x27D4EB2F165667C5L;

    private static int i32(byte[] b, int p) {
        return b[p] & 0xff | (b[p + 1] & 0xff) << 8 | (b[p + 2] & 0xff) << 16 | (b[p + 3] & 0xff) << 24;
    }

    private static long i64(byte[] b, int p) {
        return i32(b, p) & 0xffffffffL | (long) i32(b, p + 4) << 32;
    }

    private static int round32(int acc, int in) {
        return Integer.rotateLeft(acc + in * P32_2, 13) * P32_1;
    }

    public static int xxh32(byte[] b, int seed) {
        int p = 0;
        int n = b.length;
        int h;
        if (n >= 16) {
            int v1 = seed + P32_1 + P32_2;
            int v2 = seed + P32_2;
            int v3 = seed;
            int v4 = seed - P32_1;
            for (; p <= n - 16; p += 16) {
                v1 = round32(v1, i32(b, p));
                v2 = round32(v2, i32(b, p + 4));
                v3 = round32(v3, i32(b, p + 8));
                v4 = round32(v4, i32(b, p + 12));
            }
            h = Integer.rotateLeft(v1, 1) + Integer.rotateLeft(v2, 7) + Integer.rotateLeft(v3, 12) + Integer.rotateLeft(v4, 18);
        } else {
            h = seed + P32_5;
        }
        h += n;
        for (; p + 4 <= n; p += 4) {
            h = Integer.rotateLeft(h + i32(b, p) * P32_3, 17) * P32_4;
        }
        for (; p < n; p++) {
            h = Integer.rotateLeft(h + (b[p] & 0xff) * P32_5, 11) * P32_1;
        }
        h ^= h >>> 15;
        h *= P32_2;
        h ^= h >>> 13;
        h *= P32_3;
        h ^= h >>> 16;
        return h;
    }

    private static long round64(long acc, long in) {
        return Long.rotateLeft(acc + in * P64_2, 31) * P64_1;
    }

    private static long merge64(long h, long v) {
        return (h ^ round64(0, v)) * P64_1 + P64_4;
    }

    public static long xxh64(byte[] b, long seed) {
        int p = 0;
        int n = b.length;
        long h;
        if (n >= 32) {
            long v1 = seed + P64_1 + P64_2;
            long v2 = seed + P64_2;
            long v3 = seed;
            long v4 = seed - P64_1;
            for (; p <= n - 32; p += 32) {
                v1 = round64(v1, i64(b, p));
                v2 = round64(v2, i64(b, p + 8));
                v3 = round64(v3, i64(b, p + 16));
                v4 = round64(v4, i64(b, p + 24));
            }
            h = Long.rotateLeft(v1, 1) + Long.rotateLeft(v2, 7) + Long.rotateLeft(v3, 12) + Long.rotateLeft(v4, 18);
            h = merge64(h, v1);
            h = merge64(h, v2);
            h = merge64(h, v3);
            h = merge64(h, v4);
        } else {
            h = seed + P64_5;
        }
        h += n;
        for (; p + 8 <= n; p += 8) {
            h ^= round64(0, i64(b, p));
            h = Long.rotateLeft(h, 27) * P64_1 + P64_4;
        }
        if (p + 4 <= n) {
            h ^= (i32(b, p) & 0xffffffffL) * P64_1;
            h = Long.rotateLeft(h, 23) * P64_2 + P64_3;
            p += 4;
        }
        for (; p < n; p++) {
            h ^= (b[p] & 0xff) * P64_5;
            h = Long.rotateLeft(h, 11) * P64_1;
        }
        h ^= h >>> 33;
        h *= P64_2;
        h ^= h >>> 29;
        h *= P64_3;
        h ^= h >>> 32;
        return h;
    }
}
