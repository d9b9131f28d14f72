package dev.sluice.proxy.rules;

/**
 * HAProxy's string hashes (sdbm, djb2, wt6, crc32) and its avalanche mix, for converters and load
 * balancing. The range forms hash {@code len} bytes from {@code off} without copying.
 */
public final class Hashes {
    private Hashes() {
    }

    public static int sdbm(byte[] b) {
        return sdbm(b, 0, b.length);
    }

    public static int sdbm(byte[] b, int off, int len) {
        int h = 0;
        for (int i = off; i < off + len; i++) {
            h = (b[i] & 0xff) + (h << 6) + (h << 16) - h;
        }
        return h;
    }

    public static int djb2(byte[] b) {
        return djb2(b, 0, b.length);
    }

    public static int djb2(byte[] b, int off, int len) {
        int h = 5381;
        for (int i = off; i < off + len; i++) {
            h = (h << 5) + h + (b[i] & 0xff);
        }
        return h;
    }

    /** HAProxy's {@code hash_wt6}: two words mixed with data-dependent rotations. */
    public static int wt6(byte[] b) {
        return wt6(b, 0, b.length);
    }

    /**
     * HAProxy's hash_wt6: two words mixed with rotations whose widths come from the data (checked against
     * HAProxy 2.6's {@code wt6} converter). A rotation by 0 keeps the word, as x86 does for C's shift by 32.
     */
    public static int wt6(byte[] b, int off, int len) {
        int h0 = 0xa53c_965a;
        int h1 = 0x5ca6_953a;
        int step0 = 6;
        int step1 = 18;
        for (int i = off; i < off + len; i++) {
            int t = b[i] & 0xff;
            h0 = ~(h0 ^ t);
            h1 = ~(h1 + t);
            t = (h1 << step0) | (h1 >>> (32 - step0));
            h1 = (h0 << step1) | (h0 >>> (32 - step1));
            h0 = t;
            t = ((h0 >>> 16) ^ h1) & 0xffff;
            step0 = t & 0x1f;
            step1 = t >>> 11;
        }
        return h0 ^ h1;
    }

    /** The CRC32 of Ethernet, gzip and PNG (HAProxy's hash_crc32). */
    public static int crc32(byte[] b, int off, int len) {
        java.util.zip.CRC32 c = new java.util.zip.CRC32();
        c.update(b, off, len);
        return (int) c.getValue();
    }

    /**
     * HAProxy's {@code full_hash}: Bob Jenkins' full avalanche, then a multiplication by the prime
     * 3221225473 (HAProxy spreads the values over its trees with it; checked against HAProxy 2.6's
     * {@code sdbm(1)} converter and its consistent-hashing ring).
     */
    public static int fullAvalanche(int a) {
        a = (a + 0x7ed55d16) + (a << 12);
        a = (a ^ 0xc761c23c) ^ (a >>> 19);
        a = (a + 0x165667b1) + (a << 5);
        a = (a + 0xd3a2646c) ^ (a << 9);
        a = (a + 0xfd7046c5) + (a << 3);
        a = (a ^ 0xb55a4f09) ^ (a >>> 16);
        return a * (int) 3221225473L;
    }
}
