package dev.sluice.proxy.listener;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The bytes of HAProxy 2.6's {@code _getsocks} answer (src/cli.c, read by src/sock.c): first the number of sockets,
 * a native {@code int} alone in its message; then messages of at most {@link #MAX_FDS} descriptors, each with one
 * entry per descriptor: the length of the network namespace's name (one byte, 0 for none), the name, the length of
 * the interface's name, the name, and four zero bytes (the listener options of HAProxy before 2.3). After each full
 * message the sender waits for the receiver's four-byte acknowledgement. Pure functions.
 */
final class GetsocksFormat {
    private GetsocksFormat() {
    }

    /** HAProxy's MAX_SEND_FD: descriptors per message (the kernel takes at most 253). */
    static final int MAX_FDS = 252;
    /** The longest entry: two lengths of one byte, two names of at most 255 bytes, four bytes of former options. */
    static final int MAX_ENTRY = 1 + 255 + 1 + 255 + 4;

    /** The names sent beside one descriptor (empty: none). */
    record Names(String namespace, String iface) {
    }

    /** The count message. */
    static byte[] count(int n) {
        return ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(n).array();
    }

    /** The number a count (or acknowledgement) message holds. */
    static int count(byte[] four) {
        return ByteBuffer.wrap(four).order(ByteOrder.nativeOrder()).getInt();
    }

    /** The entries of one message, one per descriptor, in order. */
    static byte[] entries(List<Names> names) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Names n : names) {
            name(out, n.namespace());
            name(out, n.iface());
            out.writeBytes(new byte[4]);
        }
        return out.toByteArray();
    }

    private static void name(ByteArrayOutputStream out, String s) {
        byte[] b = s == null ? new byte[0] : s.getBytes(StandardCharsets.UTF_8);
        if (b.length > 255) {
            throw new IllegalArgumentException("name longer than 255 bytes: " + s);
        }
        out.write(b.length);
        out.writeBytes(b);
    }

    /**
     * The names of the {@code n} descriptors received with {@code data} (the messages' bytes end to end); throws
     * {@link IllegalArgumentException} with HAProxy's words when the bytes do not hold {@code n} entries.
     */
    static List<Names> parse(byte[] data, int n) {
        List<Names> out = new ArrayList<>(n);
        int off = 0;
        for (int i = 0; i < n; i++) {
            String[] names = new String[2];
            for (int k = 0; k < 2; k++) {
                if (off >= data.length) {
                    throw inconsistency();
                }
                int len = data[off++] & 0xff;
                if (off + len > data.length) {
                    throw inconsistency();
                }
                names[k] = new String(data, off, len, StandardCharsets.UTF_8);
                off += len;
            }
            if (off + 4 > data.length) {
                throw inconsistency();
            }
            off += 4;
            out.add(new Names(names[0], names[1]));
        }
        return out;
    }

    private static IllegalArgumentException inconsistency() {
        return new IllegalArgumentException("Inconsistency while transferring sockets");
    }
}
