package dev.sluice.proxy.rules;

/** HAProxy's string hashes (sdbm, djb2, wt6) and its avalanche mix, for converters and load balancing. */
public final class Hashes {
    private Hashes() {
    }

    public static int sdbm(byte[] b) {
        int h = 0;
        for (byte x : b) {
            h = (x & 0xff) + (h << 6) + (h << 16) - h;
        }
        return h;
    }

    public static int djb2(byte[] b) {
        int h = 5381;
        for (byte x : b) {
            h = (h << 5) + h + (x & 0xff);
        }
        return h;
    }

    /** HAProxy's {@code hash_wt6}: two words mixed with data-dependent rotations. */
    public static int wt6(byte[] b) {
        int h0 = 0xa53c965a;
        int h1 = 0x5ca6953a;
        int step0 = 6;
        int step1 = 18;
        for (byte x : b) {
            int t = x & 0xff;
            h0 = ~(h0 ^ t);
            h1 = ~(h1 + t);
            t = Integer.rotateLeft(h1, step0);
            h1 = Integer.rotateLeft(h0, step1);
            h0 = t;
            t = ((h0 >>> 16) ^ h1) & 0xffff;
            step0 = t & 0x1f;
            step1 = t >>> 11;
        }
        return h0 ^ h1;
    }

    /** Bob Jenkins' full avalanche, as HAProxy's {@code full_hash}. */
    public static int fullAvalanche(int a) {
        a = (a + 0x7ed55d16) + (a << 12);
        a = (a ^ 0xc761c23c) ^ (a >>> 19);
        a = (a + 0x165667b1) + (a << 5);
        a = (a + 0xd3a2646c) ^ (a << 9);
        a = (a + 0xfd7046c5) + (a << 3);
        a = (a ^ 0xb55a4f09) ^ (a >>> 16);
        return a;
    }
}
