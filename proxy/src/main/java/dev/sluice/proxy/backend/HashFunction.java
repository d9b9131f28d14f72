package dev.sluice.proxy.backend;

import dev.sluice.config.model.HashType;
import dev.sluice.proxy.rules.Hashes;

/**
 * The hash function of {@code hash-type} (HAProxy's gen_hash): sdbm, djb2, wt6, crc32 or none (the key
 * read as a decimal number), then the avalanche mix when asked. Immutable.
 */
final class HashFunction {
    private final HashType.Function function;
    private final boolean avalanche;

    HashFunction(HashType type) {
        this.function = type.function();
        this.avalanche = type.avalanche();
    }

    /** The hash of {@code len} bytes of {@code b} from {@code off}. */
    int hash(byte[] b, int off, int len) {
        int h = switch (function) {
            case SDBM -> Hashes.sdbm(b, off, len);
            case DJB2 -> Hashes.djb2(b, off, len);
            case WT6 -> Hashes.wt6(b, off, len);
            case CRC32 -> Hashes.crc32(b, off, len);
            case NONE -> (int) decimal(b, off, len);
        };
        return mix(h);
    }

    /** The avalanche step alone (the source algorithm hashes the address itself). */
    int mix(int h) {
        return avalanche ? Hashes.fullAvalanche(h) : h;
    }

    /** HAProxy's read_int64: an optional sign and the digits that follow, 0 when there are none. */
    static long decimal(byte[] b, int off, int len) {
        int i = off;
        int end = off + len;
        boolean neg = false;
        if (i < end && (b[i] == '-' || b[i] == '+')) {
            neg = b[i] == '-';
            i++;
        }
        long v = 0;
        while (i < end && b[i] >= '0' && b[i] <= '9') {
            v = v * 10 + (b[i] - '0');
            i++;
        }
        return neg ? -v : v;
    }
}
