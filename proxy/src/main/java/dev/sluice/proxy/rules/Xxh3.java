package dev.sluice.proxy.rules;

/**
 * XXH3's 64-bit hash with a seed (xxHash 0.8, {@code XXH3_64bits_withSeed}), what HAProxy 2.6's {@code xxh3([<seed>])}
 * converter gives: the scalar code path of the reference implementation, its default secret, the custom secret derived
 * from a non-zero seed for inputs over 240 bytes. Unsigned arithmetic on {@code long}s; {@link Math#multiplyHigh} and
 * {@link Math#unsignedMultiplyHigh} for the 128-bit products.
 */
final class Xxh3 {
    private Xxh3() {
    }

    private static final long PRIME32_1 = 0x9E3779B1L;
    private static final long PRIME32_2 = 0x85EBCA77L;
    private static final long PRIME32_3 = 0xC2B2AE3DL;
    private static final long PRIME64_1 = 0x9E3779B185EBCA87L;
    private static final long PRIME64_2 = 0xC2B2AE3D27D4EB4FL;
    private static final long PRIME64_3 = 0x165667B19E3779F9L;
    private static final long PRIME64_4 = 0x85EBCA77C2B2AE63L;
    private static final long PRIME64_5 = 0x27D4EB2F165667C5L;
    private static final int STRIPE_LEN = 64;
    private static final int SECRET_CONSUME_RATE = 8;
    private static final int SECRET_SIZE_MIN = 136;

    /** XXH3_kSecret. */
    private static final byte[] SECRET = bytes(
            "b8fe6c3923a44bbe7c01812cf721ad1cded46de9839097db7240a4a4b7b3671fcb79e64eccc0e578825ad07dccff7221b8084674f743248ee03590e6813a264c"
                    + "3c2852bb91c300cb88d0658b1b532ea371644897a20df94e3819ef46a9deacd8a8fa763fe39c343ff9dcbbc7c70b4f1d8a51e04bcdb45931c89f7ec9d9787364"
                    + "eac5ac8334d3ebc3c581a0fffa1363eb170ddd51b7f0da49d316552629d4689e2b16be587d47a1fc8ff8b8d17ad031ce45cb3a8f95160428afd7fbcabb4b407e");

    private static byte[] bytes(String hex) {
        byte[] b = new byte[hex.length() / 2];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        }
        return b;
    }

    private static long le64(byte[] b, int i) {
        return (b[i] & 0xffL) | (b[i + 1] & 0xffL) << 8 | (b[i + 2] & 0xffL) << 16 | (b[i + 3] & 0xffL) << 24 | (b[i + 4] & 0xffL) << 32
                | (b[i + 5] & 0xffL) << 40 | (b[i + 6] & 0xffL) << 48 | (b[i + 7] & 0xffL) << 56;
    }

    private static long le32(byte[] b, int i) {
        return (b[i] & 0xffL) | (b[i + 1] & 0xffL) << 8 | (b[i + 2] & 0xffL) << 16 | (b[i + 3] & 0xffL) << 24;
    }

    private static long mul128Fold64(long a, long b) {
        return a * b ^ Math.unsignedMultiplyHigh(a, b);
    }

    private static long avalanche(long h) {
        h ^= h >>> 37;
        h *= 0x165667919E3779F9L;
        return h ^ h >>> 32;
    }

    private static long avalanche64(long h) {
        h ^= h >>> 33;
        h *= PRIME64_2;
        h ^= h >>> 29;
        h *= PRIME64_3;
        return h ^ h >>> 32;
    }

    private static long rrmxmx(long h, long len) {
        h ^= Long.rotateLeft(h, 49) ^ Long.rotateLeft(h, 24);
        h *= 0x9FB21C651E98DF25L;
        h ^= (h >>> 35) + len;
        h *= 0x9FB21C651E98DF25L;
        return h ^ h >>> 28;
    }

    private static long mix16B(byte[] in, int i, byte[] secret, int s, long seed) {
        return mul128Fold64(le64(in, i) ^ le64(secret, s) + seed, le64(in, i + 8) ^ le64(secret, s + 8) - seed);
    }

    /** XXH3_64bits_withSeed. */
    static long hash(byte[] in, long seed) {
        int len = in.length;
        byte[] secret = SECRET;
        if (len <= 16) {
            if (len > 8) {
                long bitflip1 = (le64(secret, 24) ^ le64(secret, 32)) + seed;
                long bitflip2 = (le64(secret, 40) ^ le64(secret, 48)) - seed;
                long lo = le64(in, 0) ^ bitflip1;
                long hi = le64(in, len - 8) ^ bitflip2;
                return avalanche(len + Long.reverseBytes(lo) + hi + mul128Fold64(lo, hi));
            }
            if (len >= 4) {
                long s = seed ^ (Integer.reverseBytes((int) seed) & 0xffffffffL) << 32;
                long input1 = le32(in, 0);
                long input2 = le32(in, len - 4);
                long bitflip = (le64(secret, 8) ^ le64(secret, 16)) - s;
                return rrmxmx((input2 + (input1 << 32)) ^ bitflip, len);
            }
            if (len > 0) {
                long combined = (in[0] & 0xffL) << 16 | (in[len >> 1] & 0xffL) << 24 | (in[len - 1] & 0xffL) | (long) len << 8;
                long bitflip = (le32(secret, 0) ^ le32(secret, 4)) + seed;
                return avalanche64(combined ^ bitflip);
            }
            return avalanche64(seed ^ le64(secret, 56) ^ le64(secret, 64));
        }
        if (len <= 128) {
            long acc = len * PRIME64_1;
            if (len > 32) {
                if (len > 64) {
                    if (len > 96) {
                        acc += mix16B(in, 48, secret, 96, seed);
                        acc += mix16B(in, len - 64, secret, 112, seed);
                    }
                    acc += mix16B(in, 32, secret, 64, seed);
                    acc += mix16B(in, len - 48, secret, 80, seed);
                }
                acc += mix16B(in, 16, secret, 32, seed);
                acc += mix16B(in, len - 32, secret, 48, seed);
            }
            acc += mix16B(in, 0, secret, 0, seed);
            acc += mix16B(in, len - 16, secret, 16, seed);
            return avalanche(acc);
        }
        if (len <= 240) {
            long acc = len * PRIME64_1;
            int rounds = len / 16;
            for (int i = 0; i < 8; i++) {
                acc += mix16B(in, 16 * i, secret, 16 * i, seed);
            }
            acc = avalanche(acc);
            for (int i = 8; i < rounds; i++) {
                acc += mix16B(in, 16 * i, secret, 16 * (i - 8) + 3, seed);
            }
            acc += mix16B(in, len - 16, secret, SECRET_SIZE_MIN - 17, seed);
            return avalanche(acc);
        }
        return hashLong(in, seed == 0 ? SECRET : customSecret(seed));
    }

    /** XXH3_initCustomSecret: the default secret, each 16 bytes' low half plus the seed and high half minus it. */
    private static byte[] customSecret(long seed) {
        byte[] s = new byte[SECRET.length];
        for (int i = 0; i < SECRET.length / 16; i++) {
            put64(s, 16 * i, le64(SECRET, 16 * i) + seed);
            put64(s, 16 * i + 8, le64(SECRET, 16 * i + 8) - seed);
        }
        return s;
    }

    private static void put64(byte[] b, int i, long v) {
        for (int k = 0; k < 8; k++) {
            b[i + k] = (byte) (v >>> 8 * k);
        }
    }

    private static long hashLong(byte[] in, byte[] secret) {
        long[] acc = {PRIME32_3, PRIME64_1, PRIME64_2, PRIME64_3, PRIME64_4, PRIME32_2, PRIME64_5, PRIME32_1};
        int len = in.length;
        int stripesPerBlock = (secret.length - STRIPE_LEN) / SECRET_CONSUME_RATE;
        int blockLen = STRIPE_LEN * stripesPerBlock;
        int blocks = (len - 1) / blockLen;
        for (int n = 0; n < blocks; n++) {
            for (int s = 0; s < stripesPerBlock; s++) {
                accumulate(acc, in, n * blockLen + s * STRIPE_LEN, secret, s * SECRET_CONSUME_RATE);
            }
            scramble(acc, secret, secret.length - STRIPE_LEN);
        }
        int stripes = ((len - 1) - blockLen * blocks) / STRIPE_LEN;
        for (int s = 0; s < stripes; s++) {
            accumulate(acc, in, blocks * blockLen + s * STRIPE_LEN, secret, s * SECRET_CONSUME_RATE);
        }
        accumulate(acc, in, len - STRIPE_LEN, secret, secret.length - STRIPE_LEN - 7);
        long result = len * PRIME64_1;
        for (int i = 0; i < 4; i++) {
            result += mul128Fold64(acc[2 * i] ^ le64(secret, 11 + 16 * i), acc[2 * i + 1] ^ le64(secret, 11 + 16 * i + 8));
        }
        return avalanche(result);
    }

    private static void accumulate(long[] acc, byte[] in, int i, byte[] secret, int s) {
        for (int k = 0; k < 8; k++) {
            long data = le64(in, i + 8 * k);
            long key = data ^ le64(secret, s + 8 * k);
            acc[k ^ 1] += data;
            acc[k] += (key & 0xffffffffL) * (key >>> 32);
        }
    }

    private static void scramble(long[] acc, byte[] secret, int s) {
        for (int k = 0; k < 8; k++) {
            long a = acc[k];
            a ^= a >>> 47;
            a ^= le64(secret, s + 8 * k);
            acc[k] = a * PRIME32_1;
        }
    }
}
