package dev.sluice.sticktable;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A stick-table key in its stored form: the exact bytes HAProxy would store for the table's key type
 * (4 network-order bytes for {@code ip}, 16 for {@code ipv6}, 4 big-endian bytes for {@code integer},
 * at most {@code len} bytes for {@code string}, exactly {@code len} zero-padded bytes for {@code binary}).
 * Keys are built by {@link StickTable}'s {@code keyOf...} methods, which know the type and length, or by
 * the static factories here. Immutable and thread-safe; the hash is computed once. Keys order as HAProxy's
 * key trees walk them in dumps: by their stored bytes, unsigned, a prefix first (numeric order for
 * {@code ip}, {@code ipv6} and {@code integer} keys, {@code strcmp} order for strings).
 */
public final class StickKey implements Comparable<StickKey> {
    private final byte[] bytes;
    private final int hash;

    private StickKey(byte[] bytes) {
        this.bytes = bytes;
        this.hash = mix(Arrays.hashCode(bytes));
    }

    /** An IPv4 key from an address in host int form (a.b.c.d = a&lt;&lt;24 | b&lt;&lt;16 | c&lt;&lt;8 | d). */
    public static StickKey ipv4(int address) {
        return new StickKey(new byte[] {(byte) (address >>> 24), (byte) (address >>> 16), (byte) (address >>> 8), (byte) address});
    }

    /** An IPv4 key from 4 network-order bytes. */
    public static StickKey ipv4(byte[] address) {
        if (address.length != 4) {
            throw new IllegalArgumentException("an IPv4 key needs 4 bytes, got " + address.length);
        }
        return new StickKey(address.clone());
    }

    /** An IPv6 key from 16 network-order bytes. */
    public static StickKey ipv6(byte[] address) {
        if (address.length != 16) {
            throw new IllegalArgumentException("an IPv6 key needs 16 bytes, got " + address.length);
        }
        return new StickKey(address.clone());
    }

    /** An {@code integer} key: the low 32 bits of {@code value}, as HAProxy casts a 64-bit sample. */
    public static StickKey integer(long value) {
        int v = (int) value;
        return new StickKey(new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v});
    }

    /** A {@code string} key truncated to {@code len} bytes. */
    public static StickKey string(byte[] value, int len) {
        return new StickKey(Arrays.copyOf(value, Math.min(value.length, len)));
    }

    /**
     * A {@code string} key from text, truncated to {@code len} bytes. Text maps to bytes as ISO-8859-1
     * (one byte per char, so header bytes the HTTP layer decoded as Latin-1 come back unchanged); text
     * with a char above U+00FF is encoded as UTF-8 instead.
     */
    public static StickKey string(CharSequence value, int len) {
        return string(textBytes(value), len);
    }

    /** A {@code binary} key: {@code value} truncated or zero-padded to exactly {@code len} bytes. */
    public static StickKey binary(byte[] value, int len) {
        return new StickKey(Arrays.copyOf(value, len));
    }

    /** The stored bytes (a copy). */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** Number of stored bytes. */
    public int length() {
        return bytes.length;
    }

    /** The stored byte at {@code i}, as an unsigned value. */
    public int byteAt(int i) {
        return bytes[i] & 0xFF;
    }

    /** The first 4 bytes as a big-endian int: the address of an {@code ip} key, the value of an {@code integer} key. */
    public int int32() {
        return (bytes[0] & 0xFF) << 24 | (bytes[1] & 0xFF) << 16 | (bytes[2] & 0xFF) << 8 | bytes[3] & 0xFF;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StickKey k && k.hash == hash && Arrays.equals(k.bytes, bytes);
    }

    @Override
    public int compareTo(StickKey o) {
        return Arrays.compareUnsigned(bytes, o.bytes);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return "StickKey" + Arrays.toString(bytes);
    }

    static byte[] textBytes(CharSequence s) {
        int n = s.length();
        byte[] out = new byte[n];
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c > 0xFF) {
                return s.toString().getBytes(StandardCharsets.UTF_8);
            }
            out[i] = (byte) c;
        }
        return out;
    }

    /**
     * Murmur3's finaliser: the table picks the shard from the top bits and the shard's hash map its bucket
     * from the low bits, so every bit must depend on every input byte.
     */
    private static int mix(int h) {
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }
}
